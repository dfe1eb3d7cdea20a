/**
 * The environment variables an app reads to reach a cluster. One convention for the setup guide
 * now and for secret targets later, following the Qdrant ecosystem (`QDRANT_URL`,
 * `QDRANT_API_KEY`): plain names when a `ClusterAccess` has one cluster, names carrying the
 * cluster (`QDRANT_PROD_EU_URL`) when it has several. Not exported from the package.
 */
import { envCase } from './naming';

export interface ClusterEnvNames {
  /** REST endpoint, e.g. `QDRANT_PROD_EU_URL`. */
  readonly url: string;
  /** gRPC endpoint, e.g. `QDRANT_PROD_EU_GRPC_URL`. */
  readonly grpcUrl: string;
  /** The key, e.g. `QDRANT_PROD_EU_API_KEY`. */
  readonly apiKey: string;
}

/**
 * @param clusterName the cluster's logical name (`prod-eu` gives `PROD_EU`)
 * @param single whether the cluster is the only one of its `ClusterAccess`
 */
export function clusterEnvNames(clusterName: string, single: boolean): ClusterEnvNames {
  const prefix = single ? 'QDRANT_' : `QDRANT_${envCase(clusterName)}_`;
  return { url: `${prefix}URL`, grpcUrl: `${prefix}GRPC_URL`, apiKey: `${prefix}API_KEY` };
}
