/**
 * What the setup guide shows: a read-only model of one `ClusterAccess`, plain data. The
 * ClusterAccess side builds it (src/private/guide-model.ts) and hands it over; nothing under
 * src/setup-guide/ reads a construct. Not exported.
 *
 * Values known only at deploy (tokens) are placeholders here, and no key value is ever part of
 * it: a key is known to the model only by its name, its variable and its outputs.
 */

/** A cluster as the guide shows it. */
export interface GuideCluster {
  /** The name, or `invalid-name` when it is invalid (synth fails then; the guide still renders). */
  readonly name: string;
  /** Whether the address is known at synth (not a token). */
  readonly known: boolean;
  /** The address as given; a placeholder when not known. */
  readonly address: string;
  /** The REST and gRPC endpoints with their ports; placeholders when not known. */
  readonly restEndpoint: string;
  readonly grpcEndpoint: string;
  /** The ASCII host (what the console shows); a placeholder when not known. */
  readonly host: string;
  readonly restPort: number;
  readonly grpcPort: number;
  /** The Terraform outputs that hold the endpoints (`qdrant_<name>_rest_endpoint`, `…_grpc_endpoint`). */
  readonly restOutput: string;
  readonly grpcOutput: string;
}

/** A key's declared access: what to select in the console, what its check proves. */
export interface GuideAccess {
  readonly mode: 'manage' | 'read-only' | 'collections';
  /** Collections the key may read (mode `collections`). */
  readonly read: readonly string[];
  /** Collections the key may read and write (mode `collections`). */
  readonly readWrite: readonly string[];
}

/** The Terraform variable a key is read from at deploy. */
export interface GuideVariable {
  /** Its Terraform name. */
  readonly name: string;
  /** `TF_VAR_<name>`: where Terraform and the checks read it from. */
  readonly environmentVariable: string;
  /** Declared by the library (the key has no `source`), or the user's own (`ApiKeySource.fromVariable`). */
  readonly declaredByLibrary: boolean;
}

/** A secret target that receives entries of the access. */
export interface GuideTarget {
  /** What the target says it is: any text (a user's target writes what it likes), shown as code. */
  readonly description: string;
  /** A built-in target, or `custom` for one of the user's own. */
  readonly kind: 'dotenv' | 'json' | 'outputs' | 'custom';
  /** `dotenv`, `json`: the file as the stack gives it, relative to the project directory or absolute. */
  readonly file?: string;
  /** `json`: the sidecar file the writer keeps next to it. */
  readonly sidecar?: string;
}

/** The names of a key's entries on one cluster. */
export interface GuideNames {
  readonly url: string;
  readonly grpcUrl: string;
  readonly apiKey: string;
}

/** One secret target that receives a key's entries for one cluster, and the names it gives them. */
export interface GuideDelivery {
  readonly target: GuideTarget;
  /** Missing when another entry has taken the name (synth reports it; the guide still renders). */
  readonly names: Partial<GuideNames>;
}

/** A key on one of its clusters. */
export interface GuideGrant {
  readonly cluster: GuideCluster;
  /** Where the deploy writes the key's entries for this cluster, in the access's target order. */
  readonly deliveries: readonly GuideDelivery[];
  /** The names a secret target of this key alone would give (what an app reads when the key has no target). */
  readonly ownNames: GuideNames;
}

/** A key as the guide shows it. */
export interface GuideKey {
  /** The name, or `invalid-name` when it is invalid. */
  readonly name: string;
  /** Its clusters, in the access's order (each `cluster` is an object of `GuideModel.clusters`). */
  readonly grants: readonly GuideGrant[];
  /** Where its value comes from: a variable, or undefined for `ApiKeySource.fromToken`. */
  readonly variable?: GuideVariable;
  /** Its declared access, if any. */
  readonly access?: GuideAccess;
  /** The Terraform output that publishes its expiry; none for an ephemeral key. */
  readonly expiresAtOutput?: string;
  /** Set for a key kept out of Terraform's plan and state (`ephemeral`); `keyVersion` is undefined when it is checked and written on every deploy. */
  readonly ephemeral?: { readonly keyVersion?: number };
  /** `createdOn` as given, as text. */
  readonly createdOn?: string;
  readonly rotateAfterDays: number;
  /** `createdOn` + `rotateAfterDays`, when both are valid. */
  readonly dueOn?: string;
}

/** The health-check options the guide describes, with their defaults applied. */
export interface GuideChecks {
  readonly enabled: boolean;
  /** What proves the keys: the bundled checker run by Node (`node`), or Terraform's own `data "http"` reads (`terraform`). */
  readonly engine: 'node' | 'terraform';
  /** The failure catalog's ids that the engine can report (every one with `node`). */
  readonly failureIds: readonly string[];
  /** `api-key` or `bearer`. */
  readonly header: string;
  readonly requireAuth: boolean;
  readonly grpc: boolean;
  readonly allowExcessAccess: boolean;
  readonly minValidityDays: number;
  readonly runOnEveryDeploy: boolean;
}

/** The guide of one `ClusterAccess`. */
export interface GuideModel {
  /** The construct path of the access. */
  readonly path: string;
  /** The id of its stack, when it is in one. */
  readonly stack?: string;
  /** In the order they were added. */
  readonly clusters: readonly GuideCluster[];
  /** In the order they were added. */
  readonly keys: readonly GuideKey[];
  /** Every secret target of the keys, in the order the access binds them. */
  readonly targets: readonly GuideTarget[];
  readonly checks: GuideChecks;
}

/** A key's clusters, in order. */
export function clustersOf(k: GuideKey): GuideCluster[] {
  return k.grants.map((g) => g.cluster);
}

/** The keys that cover a cluster, in key order. */
export function keysOf(m: GuideModel, c: GuideCluster): GuideKey[] {
  return m.keys.filter((k) => k.grants.some((g) => g.cluster === c));
}
