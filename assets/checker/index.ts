/**
 * The checker's Node API, for JavaScript and TypeScript users of the package:
 * `cdktf-qdrant-cluster-access/assets/checker`.
 *
 * The check proves that one API key works on one Qdrant cluster: `root` (GET / without the key;
 * with it only after an edge refused the keyless one), `key` (GET /collections with the key),
 * `enforced` (GET /collections without a key), and, when asked, `access` (side-effect-free probes
 * of the declared access), `grpc` (the gRPC endpoint) and `expiry` (a JWT's expiry date). GET /
 * alone proves nothing about the key: self-hosted Qdrant does not check keys on it.
 * checkClusterAccess and checkMany reject only with a RuntimeError of code ERR_QDRANT_USAGE
 * (a bad URL, an empty key, a bad number, an unreadable CA file: the CLI exits 2).
 */
export { checkClusterAccess } from './check';
export { checkMany } from './batch';
export { formatReport, formatWarnings, formatSummary } from './report';
export { parseBaseUrl } from './options';
export { FAILURES } from './failures';
export { RuntimeError } from '../runtime/errors';
export type { BatchReport, CheckReport, StepName, StepResult } from './report';
export type { BaseUrl, CheckOptions, DeclaredAccess, Grant, KeyHeader, SharedCheckOptions } from './options';
export type { FailureEntry, FailureId } from './failures';
