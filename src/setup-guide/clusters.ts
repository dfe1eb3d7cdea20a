/** Section 1: the clusters and their endpoints. */
import { Heading, code, list, table } from './markdown';
import { GuideModel, keysOf } from './model';

export function clustersSection(m: GuideModel, h: Heading): string[] {
  const out = h(1, '1. Clusters');
  if (m.clusters.length === 0) return [...out, 'No clusters yet: add them with `clusters: [...]` or `addCluster()`.'];
  return [
    ...out,
    'The REST endpoint (port 6333 on Qdrant Cloud) serves the HTTP API and the REST clients; ' +
      'the gRPC endpoint (port 6334) serves the gRPC clients. Neither is secret.',
    ...table(['Cluster', 'Address', 'REST endpoint', 'gRPC endpoint', 'Keys'], m.clusters.map((c) => [
      code(c.name),
      c.known ? code(c.address) : `set at deploy (a token); see output ${code(c.restOutput)}`,
      code(c.known ? c.restEndpoint : c.restOutput),
      code(c.known ? c.grpcEndpoint : c.grpcOutput),
      list(keysOf(m, c).map((k) => code(k.name))),
    ])),
  ];
}
