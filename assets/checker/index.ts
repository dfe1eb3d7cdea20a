/**
 * The checker's Node API (`cdktf-qdrant-cluster-access/assets/checker`): checkClusterAccess and
 * checkMany reject only with a RuntimeError of code ERR_QDRANT_USAGE (the CLI exits 2).
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
