import type { ApiKeySource } from './api-key-source';
import type { KeyAccess } from './key-access';
import type { ISecretTarget, SecretNaming } from './secret-target';

/** One API key, as passed to `ClusterAccess` or `ClusterAccess.addApiKey()`. */
export interface ApiKeyOptions {
  /**
   * Logical name of the key, unique within one stack (e.g. `search-api`): a letter, then letters,
   * digits, `-` and `_`, at most 63. It names the variable `qdrant_api_key_<name>` (lower case, `-` as `_`).
   */
  readonly name: string;

  /**
   * Where the key's value comes from at deploy time.
   * @default - a new sensitive Terraform variable `qdrant_api_key_<name>` (see `name`), set through `TF_VAR_qdrant_api_key_<name>`
   */
  readonly source?: ApiKeySource;

  /**
   * Keep the key out of Terraform's plan and state (an `ephemeral` variable, Terraform 1.10+):
   * its check and writes re-run only when `keyVersion` changes (docs/security.md).
   * @default false (true for a variable of your own that is ephemeral)
   */
  readonly ephemeral?: boolean;

  /**
   * The version of an ephemeral key (1, 2, 3 … with each new key): its check and writes re-run when it changes.
   * @default - none: the check and writes of an ephemeral key run on every deploy
   */
  readonly keyVersion?: number;

  /**
   * The day the key was created, `YYYY-MM-DD`: with `rotateAfterDays`, synth warns once rotation is due.
   * @default - not recorded: no due date and no warning
   */
  readonly createdOn?: string;

  /**
   * Days after `createdOn` when the key is due for rotation (1-3650).
   * @default 90
   */
  readonly rotateAfterDays?: number;

  /**
   * The access the key's apps need: the check fails a key with less (or, unless `allowExcessAccess`, more).
   * @default - any valid key passes
   */
  readonly access?: KeyAccess;

  /**
   * Names of the clusters this key is granted to (more with `ApiKey.grant()`).
   * @default - no clusters yet; call `grant()` before synth
   */
  readonly clusters?: string[];

  /**
   * Where the app finds this key and its clusters' URLs, written once the key's check passed.
   * @default - none: the key stays where the deploy reads it
   */
  readonly secretTargets?: ISecretTarget[];

  /**
   * How this key's entries are named in `secretTargets` (refused without them).
   * @default - `QDRANT_URL`, `QDRANT_GRPC_URL`, `QDRANT_API_KEY` in a target that receives one cluster, `QDRANT_<CLUSTER>_...` in one that receives several
   */
  readonly secretNaming?: SecretNaming;
}
