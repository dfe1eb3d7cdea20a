export * from './cluster-access';
export * from './cluster';
export * from './api-key';
export * from './api-key-source';
export * from './health-check';
export * from './setup-guide';
export * from './secret-target';
