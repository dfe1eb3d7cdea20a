/** The guide's model of one `ClusterAccess` (built by private/guide-model.ts): plain data, tokens as placeholders, no key value. */

/** A cluster as the guide shows it. */
export interface GuideCluster {
  /** `invalid-name` when invalid (synth fails then; the guide still renders). */
  readonly name: string;
  /** Known at synth (not a token); else address, endpoints and host are placeholders. */
  readonly known: boolean;
  readonly address: string;
  readonly restEndpoint: string;
  readonly grpcEndpoint: string;
  /** ASCII, as the console shows it. */
  readonly host: string;
  readonly restPort: number;
  readonly grpcPort: number;
  /** The Terraform outputs that hold the endpoints. */
  readonly restOutput: string;
  readonly grpcOutput: string;
}

/** A key's declared access: what to select in the console, what its check proves. */
export interface GuideAccess {
  readonly mode: 'manage' | 'read-only' | 'collections';
  readonly read: readonly string[];
  readonly readWrite: readonly string[];
}

/** The Terraform variable a key is read from at deploy. */
export interface GuideVariable {
  readonly name: string;
  /** `TF_VAR_<name>` */
  readonly environmentVariable: string;
  /** Else the user's own (`ApiKeySource.fromVariable`). */
  readonly declaredByLibrary: boolean;
}

/** A secret target that receives entries of the access. */
export interface GuideTarget {
  /** Any text (a user's target writes what it likes), shown as code. */
  readonly description: string;
  readonly kind: 'dotenv' | 'json' | 'outputs' | 'custom';
  /** `dotenv`, `json`: the file as given. */
  readonly file?: string;
  /** `json`: the writer's sidecar file next to it. */
  readonly sidecar?: string;
}

/** The names of a key's entries on one cluster. */
export interface GuideNames {
  readonly url: string;
  readonly grpcUrl: string;
  readonly apiKey: string;
}

/** A target of a key's entries for one cluster, and their names. */
export interface GuideDelivery {
  readonly target: GuideTarget;
  /** Missing when another entry has taken the name (synth reports it; the guide still renders). */
  readonly names: Partial<GuideNames>;
}

/** A key on one of its clusters. */
export interface GuideGrant {
  readonly cluster: GuideCluster;
  /** In the access's target order. */
  readonly deliveries: readonly GuideDelivery[];
  /** The names a target of this key alone would give. */
  readonly ownNames: GuideNames;
}

/** A key as the guide shows it. */
export interface GuideKey {
  /** `invalid-name` when invalid. */
  readonly name: string;
  /** In the access's order (each `cluster` is an object of `GuideModel.clusters`). */
  readonly grants: readonly GuideGrant[];
  /** Undefined for `ApiKeySource.fromToken`. */
  readonly variable?: GuideVariable;
  readonly access?: GuideAccess;
  readonly expiresAtOutput?: string;
  /** No `keyVersion`: checked and written on every deploy. */
  readonly ephemeral?: { readonly keyVersion?: number };
  readonly createdOn?: string;
  readonly rotateAfterDays: number;
  /** `createdOn` + `rotateAfterDays`, when both are valid. */
  readonly dueOn?: string;
}

/** The health-check options the guide describes, with their defaults applied. */
export interface GuideChecks {
  readonly enabled: boolean;
  readonly engine: 'node' | 'terraform';
  /** The failure catalog's ids that the engine can report. */
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
  readonly stack?: string;
  /** Clusters, keys and targets in the order they were added or bound. */
  readonly clusters: readonly GuideCluster[];
  readonly keys: readonly GuideKey[];
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
