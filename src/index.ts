// The public API, by name: the files' other exports (the check construct, the built-in targets' classes, internal configs) are internal.
export { ClusterAccess } from './cluster-access';
export type { ClusterAccessProps } from './cluster-access';
export { Cluster } from './cluster';
export type { ClusterOptions } from './cluster';
export { ApiKey } from './api-key';
export type { ApiKeyGrant } from './api-key';
export type { ApiKeyOptions } from './api-key-options';
export { ApiKeySource } from './api-key-source';
export { KeyAccess } from './key-access';
export type { CollectionAccessOptions } from './key-access';
export { ApiKeyHeader, CheckEngine } from './health-check';
export type { HealthCheckOptions } from './health-check';
export * from './setup-guide';
export { SecretEntryKind, SecretTarget } from './secret-target';
export type { FileSecretTargetOptions, ISecretTarget, SecretEntry, SecretNaming, SecretTargetBindOptions, SecretTargetConfig } from './secret-target';
export * from './setup-guide-api';
