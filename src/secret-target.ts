import { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';

/**
 * What a secret entry holds.
 */
export enum SecretEntryKind {
  /** The cluster's REST endpoint with its port, e.g. `https://abc.cloud.qdrant.io:6333`. */
  REST_URL = 'rest-url',
  /** The cluster's gRPC endpoint with its port, e.g. `https://abc.cloud.qdrant.io:6334`. */
  GRPC_URL = 'grpc-url',
  /** The API key (a reference that Terraform resolves at apply time). */
  API_KEY = 'api-key',
}

/**
 * One name/value pair that a secret target stores, e.g. `QDRANT_PROD_EU_API_KEY`.
 */
export interface SecretEntry {
  /** The name under which the app reads the value (after any prefix and override). */
  readonly name: string;

  /** What the entry holds. */
  readonly kind: SecretEntryKind;

  /**
   * The value. For URLs, the endpoint with its port (a token when the cluster's URL is one). For
   * the key, always a token (a sensitive variable or another resource's attribute) that Terraform
   * resolves at apply time: never a plaintext key.
   */
  readonly value: string;

  /** True for the key. A store must keep such a value secret (mark it sensitive). */
  readonly sensitive: boolean;

  /** The key the entry belongs to. */
  readonly keyName: string;

  /** The cluster the entry belongs to. */
  readonly clusterName: string;
}

/**
 * A key entry whose key Terraform reads from a variable: the `TF_VAR_...` that holds it, which a
 * `local-exec` provisioner inherits (so the key stays out of its configuration, and Terraform
 * shows its output), and the sha256 of the value Terraform uses, which the process compares with
 * what it reads (-var and .tfvars files win over `TF_VAR_...`).
 */
export interface InheritedKey {
  readonly environmentVariable: string;
  readonly sha256: string;
}

/**
 * How keys reach processes is no part of `SecretEntry`: the plan records it here, by entry, for
 * the built-in file targets.
 */
const INHERITED_KEYS = new WeakMap<SecretEntry, InheritedKey>();

/** Records that `entry`'s key is read from a variable; returns the entry. */
export function withInheritedKey(entry: SecretEntry, key: InheritedKey | undefined): SecretEntry {
  if (key) INHERITED_KEYS.set(entry, key);
  return entry;
}

/** The variable `entry`'s key is read from, when it is one (see {@link withInheritedKey}). */
export function inheritedKeyOf(entry: SecretEntry): InheritedKey | undefined {
  return INHERITED_KEYS.get(entry);
}

/**
 * What `ISecretTarget.bind` receives.
 */
export interface SecretTargetBindOptions {
  /**
   * Every entry the target receives from one `ClusterAccess`, across all of its keys, each name
   * once, in the order of the keys and their clusters.
   */
  readonly entries: SecretEntry[];

  /**
   * A stable label for this binding: the construct path of the `ClusterAccess`. Use it to tell
   * these entries apart from those of another `ClusterAccess` writing to the same store.
   */
  readonly owner: string;

  /**
   * The health checks of the target's keys. Make every resource that stores the entries depend
   * on them (`dependsOn: options.dependsOn`), so that nothing is written before the keys are
   * proven: a failed check then leaves the store as it was. Resources, data sources and modules
   * created under `scope`, and the `dependables` returned, are made to depend on them in any case.
   * (A Terraform output cannot wait: Terraform writes outputs even when a dependency failed,
   * whatever resources the value refers to. With health checks on, an output created under
   * `scope`, or returned, is a validation error: use `SecretTarget.terraformOutputs()` (which
   * holds its values back; it may also be bound under `scope`). Never pass
   * a key to a `terraform_data`: it does not keep the sensitive mark on its output, so plans print
   * the key in clear.)
   */
  readonly dependsOn: ITerraformDependable[];
}

/**
 * What `ISecretTarget.bind` returns.
 */
export interface SecretTargetConfig {
  /**
   * The resources that store the entries. They are made to wait for the health checks of the
   * target's keys (as every resource, data source and module created under the bind scope is), so
   * that a key is written only once it is proven. Return resources created outside the bind scope
   * here. A list of resources, data sources or modules of the stack of the `ClusterAccess`;
   * with health checks on, anything else (an output, another stack's resource) is a validation error.
   * @default - none
   */
  readonly dependables?: ITerraformDependable[];
}

/**
 * A place where the app finds its Qdrant URLs and keys: a `.env` file, a JSON file, Terraform
 * outputs (see `SecretTarget`), or a store of your own, such as a Kubernetes Secret. Implement
 * this interface for your own store: `bind` creates the resources that hold the entries.
 *
 * Attach a target to a key with `apiKeys: [{ ..., secretTargets: [target] }]` or
 * `apiKey.addSecretTarget(target)`. One target may receive several keys.
 */
export interface ISecretTarget {
  /**
   * One line naming the store, for error messages and the setup guide, e.g. `.env file ".env"`.
   * Never a secret.
   *
   * It also names the bind scope, and so the Terraform addresses of the target's resources: keep
   * it stable, and distinct for each store within its first 60 characters (as a construct id:
   * letters, digits, `.`, `_` and `-`; other characters count as `-`). Targets that share those
   * are told apart by their order only, and get a synth warning.
   */
  readonly description: string;

  /**
   * Create the resources that store the entries, under `scope`, depending on
   * `options.dependsOn`. Called once per `ClusterAccess` that the target is attached to, at synth,
   * when every key and grant is known.
   */
  bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig;
}

/**
 * How a key's entries are named in one target. By default a target that receives one cluster
 * gets `QDRANT_URL`, `QDRANT_GRPC_URL` and `QDRANT_API_KEY`; a target that receives several gets
 * `QDRANT_<CLUSTER>_URL`, `QDRANT_<CLUSTER>_GRPC_URL` and `QDRANT_<CLUSTER>_API_KEY`.
 */
export interface SecretNaming {
  /**
   * Put in front of every default name: `APP_` gives `APP_QDRANT_URL`. Letters, digits and `_`, not starting
   * with a digit.
   * @default - no prefix
   */
  readonly prefix?: string;

  /**
   * Replace names: the default name (without prefix) → the name to use as is, e.g.
   * `{ QDRANT_PROD_EU_API_KEY: 'SEARCH_API_KEY' }`. A default name that the key does not produce
   * is an error.
   * @default - the default names
   */
  readonly names?: { [defaultName: string]: string };
}

/**
 * Options of the file targets `SecretTarget.dotenv()` and `SecretTarget.json()`.
 */
export interface FileSecretTargetOptions {
  /**
   * The file. A relative path is resolved against the directory where synth runs (the project
   * directory of `cdktf deploy`). Its directory must exist at deploy time; the file is created
   * (mode 0600) when missing.
   *
   * The file is written on the machine that runs the deploy, and its absolute path is part of
   * the target's identity in the Terraform state. With state shared between machines or
   * checkouts, a deploy from elsewhere moves the entries: it removes them from the file at the
   * previous path when that file exists on the deploying machine (nothing to remove otherwise),
   * and writes them to the file at the new path. The entries in the file belong to the
   * `ClusterAccess`'s construct path and the Terraform workspace (`<path>@<workspace>` outside
   * `default`): a second workspace that would write the same names into the file is refused.
   */
  readonly path: string;
}
