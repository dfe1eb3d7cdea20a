/**
 * The checker's Node API, for JavaScript and TypeScript users of the package:
 * `cdktf-qdrant-cluster-access/assets/checker` (the steps of a check: steps.ts, grpc-step.ts).
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
