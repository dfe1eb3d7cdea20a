import type { ApiKeySource } from './api-key-source';
import type { KeyAccess } from './key-access';
import type { ISecretTarget, SecretNaming } from './secret-target';

/**
 * One API key, as passed to `ClusterAccess` or `ClusterAccess.addApiKey()`.
 */
export interface ApiKeyOptions {
  /**
   * Logical name of the key, unique within one stack (for example `search-api`). It names the
   * Terraform variable `qdrant_api_key_<name>` when no `source` is given, and the output
   * `qdrant_api_key_<name>_expires_at` (none for an ephemeral key), where `<name>` is the key name in lower case with each
   * `-` turned into `_` (`Search-API` gives `qdrant_api_key_search_api`). It starts with a
   * letter, holds only letters, digits, `-` and `_`, and is at most 63 characters long.
   */
  readonly name: string;

  /**
   * Where the key's value comes from at deploy time.
   * @default - a new sensitive Terraform variable `qdrant_api_key_<name>` (see `name`), set through `TF_VAR_qdrant_api_key_<name>`
   */
  readonly source?: ApiKeySource;

  /**
   * Keep the key out of Terraform's plan and state.
   *
   * Its variable is declared `ephemeral` (Terraform 1.10 or later, OpenTofu 1.11 or later, which
   * the stack then requires), and nothing derived from the key is stored. The costs: the key's
   * check and writes run again only when `keyVersion` changes, or on every deploy without one; no
   * expiry output (the check's line still shows the expiry, and `healthCheck.minValidityDays` still
   * applies); no `SecretTarget.terraformOutputs()`; a target of your own gets an ephemeral value,
   * for write-only attributes and provisioners only (see docs/security.md, "Ephemeral keys"). A
   * variable of your own (`ApiKeySource.fromVariable(v)`) declared ephemeral
   * (`v.addOverride('ephemeral', true)`) makes the key ephemeral; with `ephemeral: true` it must be.
   * @default false (true for a variable of your own that is ephemeral)
   */
  readonly ephemeral?: boolean;

  /**
   * The version of an ephemeral key: give the next number (1, 2, 3 …) with each new key.
   *
   * Its check and writes run again when it changes, and only then (Terraform keeps nothing of an
   * ephemeral key by which a new one could be noticed). For ephemeral keys only.
   * @default - none: the check and writes of an ephemeral key run on every deploy
   */
  readonly keyVersion?: number;

  /**
   * The day the key was created in the console, as `YYYY-MM-DD`. With `rotateAfterDays` it gives
   * the day the key is due for rotation, shown in the setup guide; synth warns once it is due
   * (today is the real date, or the context value `cdktf-qdrant-cluster-access:today` when set).
   * Keys that are JWTs carry their real expiry, which the deploy reads (see `expiresAtOutputName`).
   * A date later than tomorrow (UTC) is refused.
   * @default - not recorded: no due date and no warning
   */
  readonly createdOn?: string;

  /**
   * Days after `createdOn` when the key is due for rotation (1-3650).
   * @default 90
   */
  readonly rotateAfterDays?: number;

  /**
   * The access the key's apps need. The health check proves it with probes that change nothing,
   * and fails a key with less (or, unless `healthCheck.allowExcessAccess`, more) access. The setup
   * guide tells what to select in the console.
   * @default - any valid key passes
   */
  readonly access?: KeyAccess;

  /**
   * Names of the clusters this key is granted to. One key may cover several clusters, and a
   * cluster may appear in several keys. More can be added later with `ApiKey.grant()`.
   * @default - no clusters yet; call `grant()` before synth
   */
  readonly clusters?: string[];

  /**
   * Where the app finds this key and the URLs of its clusters: `.env` or JSON files, Terraform
   * outputs, or your own stores (see `SecretTarget` and `ISecretTarget`). The entries are written
   * at deploy, after the key's health check has passed. More can be added with
   * `ApiKey.addSecretTarget()`.
   * @default - none: the key stays where the deploy reads it
   */
  readonly secretTargets?: ISecretTarget[];

  /**
   * How this key's entries are named in the targets of `secretTargets` (given without them, or
   * with an empty list, it is refused: for a target added later, pass the naming to
   * `ApiKey.addSecretTarget()`).
   * @default - `QDRANT_URL`, `QDRANT_GRPC_URL`, `QDRANT_API_KEY` in a target that receives one cluster, `QDRANT_<CLUSTER>_...` in one that receives several
   */
  readonly secretNaming?: SecretNaming;
}
