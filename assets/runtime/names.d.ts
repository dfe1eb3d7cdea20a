/** Names of clusters, keys, environment variables and writer owners (see names.js). */

export declare const NAME_RULE: string;
export declare const ENV_NAME_RULE: string;
export declare const OWNER_RULE: string;
/** What a collection name may be (for messages). */
export declare const COLLECTION_RULE: string;

/** A cluster or key name: letters, digits, `-` and `_`, starting with a letter, at most 63. */
export declare function isValidName(name: unknown): name is string;
/** A collection name a key's access may list: see COLLECTION_RULE. */
export declare function isCollectionName(name: unknown): name is string;
/** An environment-variable name a shell can export. */
export declare function isEnvName(name: unknown): name is string;
/** A writer owner (a construct path) that needs no quoting anywhere. */
export declare function isOwner(owner: unknown): owner is string;

/** `Prod-EU` → `prod_eu`: names with the same key collide. */
export declare function collisionKey(name: string): string;
/** `search-api` → `search_api`. */
export declare function snakeCase(name: string): string;
/** `prod-eu` → `PROD_EU`. */
export declare function envCase(name: string): string;
/** `search-api` → `qdrant_api_key_search_api`. */
export declare function keyVariableName(keyName: string): string;
/** `prod-eu` → `qdrant_prod_eu`. */
export declare function clusterOutputPrefix(clusterName: string): string;
/** `search-api` → `qdrant_api_key_search_api_expires_at`. */
export declare function keyExpiryOutputName(keyName: string): string;

export interface ClusterEnvNames {
  /** REST endpoint, e.g. `QDRANT_PROD_EU_URL`. */
  readonly url: string;
  /** gRPC endpoint, e.g. `QDRANT_PROD_EU_GRPC_URL`. */
  readonly grpcUrl: string;
  /** The key, e.g. `QDRANT_PROD_EU_API_KEY`. */
  readonly apiKey: string;
}
/** `QDRANT_URL`… for a target with one cluster, `QDRANT_<CLUSTER>_URL`… with several. */
export declare function clusterEnvNames(clusterName: string, single: boolean): ClusterEnvNames;
/** `search-api → prod-eu`. */
export declare function grantLabel(keyName: string, clusterName: string): string;
