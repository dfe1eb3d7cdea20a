/** The schemas of the public structs (props.ts), compared with the jsii assembly by a test. */
import { PropType, StructSchema } from './props';

/** Marks set by the constructors (Symbol.for: shared by two copies of the package). */
export const KEY_ACCESS_SYMBOL = Symbol.for('cdktf-qdrant-cluster-access.KeyAccess');
export const API_KEY_SOURCE_SYMBOL = Symbol.for('cdktf-qdrant-cluster-access.ApiKeySource');
export const CLUSTER_ACCESS_SYMBOL = Symbol.for('cdktf-qdrant-cluster-access.ClusterAccess');

const hasMethods = (x: unknown, methods: readonly string[]) => x !== null && typeof x === 'object' &&
  methods.every((m) => typeof (x as Record<string, unknown>)[m] === 'function');

/** Duck types (another copy of the package); an Object.create copy has the methods, not the mark. */
export const isApiKeySource = (x: unknown) => hasMethods(x, ['_config', '_problems']) && API_KEY_SOURCE_SYMBOL in (x as object);
export const isKeyAccess = (x: unknown) => hasMethods(x, ['_checkerAccess']) && KEY_ACCESS_SYMBOL in (x as object);
const isSecretTarget = (x: unknown) => hasMethods(x, ['bind']) && typeof (x as { description?: unknown }).description === 'string' &&
  (x as { description: string }).description.trim() !== '';

const SECRET_TARGET: PropType = {
  instanceOf: 'ISecretTarget (e.g. SecretTarget.dotenv({ path }))',
  test: isSecretTarget,
  // In Python, a plain attribute set in `__init__` is not seen by JavaScript; a `@property` is.
  hint: (x) => (hasMethods(x, ['bind']) ? 'a target needs a description (text, not empty) besides bind(); in Python, declare description as a @property' : undefined),
};

/** The target argument of addSecretTarget, checked like a prop. */
export const TARGET_ARGUMENT: StructSchema = { name: 'addSecretTarget argument', required: ['secretTarget'], fields: { secretTarget: SECRET_TARGET } };

export const CLUSTER_OPTIONS: StructSchema = {
  name: 'ClusterOptions',
  required: ['name', 'url'],
  fields: { name: 'string', url: 'string', restPort: 'number', grpcPort: 'number' },
};

export const SECRET_NAMING: StructSchema = {
  name: 'SecretNaming',
  fields: { prefix: 'string', names: 'string-map' },
};

/** The options of an API key that the key itself checks. */
export const API_KEY_PROPS: StructSchema = {
  name: 'ApiKeyOptions',
  mayBeKey: true,
  required: ['name'],
  fields: {
    name: 'string',
    source: { instanceOf: 'ApiKeySource (from ApiKeySource.fromVariable or fromToken)', test: isApiKeySource, mayHoldKey: true },
    createdOn: 'string',
    rotateAfterDays: 'number',
    access: { instanceOf: 'KeyAccess (from KeyAccess.readOnly, manage or collections)', test: isKeyAccess },
    ephemeral: 'boolean',
    keyVersion: 'number',
  },
};

const HEALTH_CHECK_OPTIONS: StructSchema = {
  name: 'HealthCheckOptions',
  fields: {
    enabled: 'boolean',
    engine: { oneOf: ['node', 'terraform'] },
    header: { oneOf: ['api-key', 'bearer'] },
    timeoutSeconds: 'number',
    retries: 'number',
    requireAuth: 'boolean',
    caFile: 'string',
    runOnEveryDeploy: 'boolean',
    grpc: 'boolean',
    allowExcessAccess: 'boolean',
    minValidityDays: 'number',
  },
};

const SETUP_GUIDE_OPTIONS: StructSchema = {
  name: 'SetupGuideOptions',
  fields: { enabled: 'boolean', outputPath: 'string' },
};

/** ApiKeyOptions as ClusterAccess checks them: API_KEY_PROPS's fields are the key's to check (each problem is reported once). */
export const API_KEY_OPTIONS_IN_ACCESS: StructSchema = {
  name: API_KEY_PROPS.name,
  mayBeKey: true,
  fields: {
    ...Object.fromEntries(Object.keys(API_KEY_PROPS.fields).map((k) => [k, 'any' as const])),
    clusters: 'string-list',
    secretTargets: 'construct-list',
    secretNaming: { struct: SECRET_NAMING },
  },
};

/** Items are checked where they are added. */
const anyItem = () => true;

export const CLUSTER_ACCESS_PROPS: StructSchema = {
  name: 'ClusterAccessProps',
  fields: {
    clusters: { instanceOf: 'ClusterOptions objects', list: true, test: anyItem },
    apiKeys: { instanceOf: 'ApiKeyOptions objects', list: true, test: anyItem, mayHoldKey: true },
    healthCheck: { struct: HEALTH_CHECK_OPTIONS },
    setupGuide: { struct: SETUP_GUIDE_OPTIONS },
  },
};

export const FILE_SECRET_TARGET_OPTIONS: StructSchema = {
  name: 'FileSecretTargetOptions',
  required: ['path'],
  fields: { path: 'string' },
};

export const KEY_ACCESS_COLLECTIONS: StructSchema = {
  name: 'CollectionAccessOptions',
  fields: { read: 'string-list', readWrite: 'string-list' },
};

/** For the test against the jsii assembly. */
export const ALL_SCHEMAS: readonly StructSchema[] = [
  CLUSTER_ACCESS_PROPS, CLUSTER_OPTIONS, API_KEY_OPTIONS_IN_ACCESS, SECRET_NAMING, HEALTH_CHECK_OPTIONS,
  SETUP_GUIDE_OPTIONS, FILE_SECRET_TARGET_OPTIONS, KEY_ACCESS_COLLECTIONS,
];
