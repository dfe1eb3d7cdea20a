/**
 * The health check of each key: what `ClusterAccess` users set (`HealthCheckOptions`), and the
 * construct that runs it (`HealthCheck`, not exported from the package: `ClusterAccess` adds one
 * per key, and nothing else could). One `null_resource` whose local-exec runs the checker once for
 * every cluster the key is granted to; they are checked concurrently in that one process.
 *
 * - The key never appears in the command or the environment when it comes from a variable: the
 *   checker reads the `TF_VAR_...` that Terraform itself inherits, so the check's lines stay
 *   visible. A key from another resource is handed over in `environment` (marked sensitive), which
 *   makes Terraform hide this key's output on success, and only this key's.
 * - A variable can also be set by -var or a .tfvars file, which win over `TF_VAR_...`: the targets
 *   would then get a key that was never checked. So the checker also gets the sha256 of the value
 *   Terraform uses, marked nonsensitive (a hash of a high-entropy key; Terraform never prints a
 *   provisioner's environment, and a sensitive value there would hide the check's lines), and
 *   refuses a `TF_VAR_...` that differs (--key-sha256-env). For an ephemeral key that hash would
 *   hide the check's lines (it is derived from an ephemeral value): a provisioner of its own
 *   compares first (private/ephemeral.ts).
 * - Every value reaches the shell quoted, through the environment (runtime/protocol.js). The
 *   grants, however many, are in a file of the stack (private/input-file.ts).
 * - Triggers: the grants, a hash of the key (for an ephemeral key its keyVersion, or every
 *   deploy), the runtime's hash and the options. Rotating one key re-runs that key's check only.
 */
import { createHash } from 'crypto';
import * as path from 'path';
import { Annotations, AssetType, Fn, Lazy, Op, TerraformAsset, Token } from 'cdktf';
import { Construct } from 'constructs';
import type { ApiKey } from './api-key';
import { everyDeploy, keyGuard } from './private/ephemeral';
import { errors } from './private/errors';
import { DEPLOY_COMMAND, DEPLOY_COMMAND_OPTION } from './private/framework';
import { InputFile, inputFile } from './private/input-file';
import { NullResource } from './private/null-resource';
import { CLI, names, protocol, readCaFile } from './private/runtime';
import { terraformLiteralProblem } from './private/stack-strings';
import { StackSupport } from './private/stack-support';

/**
 * How the key is sent to the cluster.
 */
export enum ApiKeyHeader {
  /** `api-key: <key>` (what the official clients send). */
  API_KEY = 'api-key',
  /** `Authorization: Bearer <key>`. */
  BEARER = 'bearer',
}

/**
 * What proves the keys during a deploy (docs/engines.md compares them).
 */
export enum CheckEngine {
  /**
   * The bundled checker, run by Node.js on the machine that applies: one `null_resource` with a
   * `local-exec` per key. Checks REST and gRPC; keeps the key out of the state.
   */
  NODE = 'node',
  /**
   * Terraform itself: `data "http"` sources of hashicorp/http with postconditions, read at every
   * plan. Needs no Node (HCP Terraform, Atlantis); checks REST only; stores the key in the state
   * (in every keyed data source); refuses file targets (`SecretTarget.dotenv`, `json`).
   */
  TERRAFORM = 'terraform',
}

/**
 * Options of the health check that runs during `cdktf deploy`: one check per key, which proves
 * the key on every cluster it is granted to.
 */
export interface HealthCheckOptions {
  /**
   * Run the health checks. When false, no check resource is added (the null provider is still
   * added, for the `.env` and JSON writers and the `Files` record that cleans up a file no target
   * writes to any more), and nothing verifies the keys before their secret targets are written.
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * What proves the keys: the bundled checker, run by Node.js on the machine that applies
   * (`CheckEngine.NODE`), or Terraform itself (`CheckEngine.TERRAFORM`: no Node at plan or apply,
   * for runners without it such as HCP Terraform or Atlantis; the checks run at every plan, gRPC
   * is not checked, the key is stored in the state, and file targets are refused). See
   * docs/engines.md.
   * @default CheckEngine.NODE
   */
  readonly engine?: CheckEngine;

  /**
   * How the key is sent. Only one of the two headers is ever sent. `CheckEngine.TERRAFORM` sends
   * `Authorization: Bearer` only: hashicorp/http follows redirects, and would send an `api-key`
   * header on to another host.
   * @default - ApiKeyHeader.API_KEY; ApiKeyHeader.BEARER with CheckEngine.TERRAFORM
   */
  readonly header?: ApiKeyHeader;

  /**
   * Timeout of each request, in seconds (1-300). The time limit of one cluster's check is
   * max(60, 4 × this).
   * @default 10
   */
  readonly timeoutSeconds?: number;

  /**
   * Retries after a network error, a timeout, a 5xx or a 429 (0-10). A 401 or 403 is never retried.
   * @default 3
   */
  readonly retries?: number;

  /**
   * Fail when the cluster answers `GET /collections` without any key (it is open to anyone).
   * @default true
   */
  readonly requireAuth?: boolean;

  /**
   * A PEM file with an extra CA certificate to trust, for clusters behind a private CA. It is
   * copied into the synthesized stack. Relative paths are resolved from the working directory of
   * the synth; a token (a value known only at deploy) and a file over 1 MiB are refused. TLS
   * verification itself cannot be turned off. With `CheckEngine.TERRAFORM` the PEM is read at
   * synth and embedded in the stack, and it replaces the trusted roots of the checks' requests
   * (hashicorp/http trusts only these CAs): it must hold every CA the clusters' chains need.
   * @default - Node.js's bundled root CAs and those of `NODE_EXTRA_CA_CERTS` (Node reads the
   * operating system's trust store only when `NODE_OPTIONS` asks: `--use-openssl-ca`, or on Node
   * 22.15 and later `--use-system-ca`; the file adds to the roots Node uses either way)
   */
  readonly caFile?: string;

  /**
   * Run the checks on every deploy. Otherwise a key's check runs when its inputs change: the
   * key (through a hash; an ephemeral key through its `keyVersion`, or on every deploy without
   * one), its clusters, the checker or these options. (`CheckEngine.TERRAFORM` checks at every
   * plan: this has no effect there.)
   * @default false
   */
  readonly runOnEveryDeploy?: boolean;

  /**
   * Also check each cluster's gRPC endpoint (`Cluster.grpcEndpoint`, port 6334 by default):
   * Qdrant's health check, then `Collections/List` with and without the key. Turn it off for
   * clusters whose gRPC port the deploy machine cannot reach. `CheckEngine.TERRAFORM` does not
   * check gRPC (a synth warning says so unless this is false).
   * @default true
   */
  readonly grpc?: boolean;

  /**
   * When a key has more access than its declared `access` (manage where read-only was declared,
   * write where only read was, collections other than the declared ones), warn instead of failing
   * the deploy.
   * @default false
   */
  readonly allowExcessAccess?: boolean;

  /**
   * Fail the check of a key that expires in fewer days than this (0-3650). Keys with granular
   * access are JWTs that carry their expiry; a plain key has none and is never failed by this.
   * A key that expires within 14 days gets a warning line (not shown for a key from
   * `ApiKeySource.fromToken`: Terraform hides that check's output when it passes; watch the key's
   * `..._expires_at` output, which an ephemeral key does not have), and a key past its expiry
   * always fails (Qdrant still accepts one for 30 seconds).
   * @default 0
   */
  readonly minValidityDays?: number;
}

// ---- not exported from the package ------------------------------------------------------------

/** Every health-check option but the CA file, with its default. */
type WithDefaults = Required<Omit<HealthCheckOptions, 'caFile'>>;

/**
 * The health checks of a `ClusterAccess` as they run: every option with its default, the CA file
 * as copied into the stack (`CheckEngine.NODE`) or read (`CheckEngine.TERRAFORM`), and whether the
 * setup guide is written (the missing-key message points to it).
 */
export interface CheckSettings extends WithDefaults {
  readonly ca?: TerraformAsset;
  readonly caPem?: string;
  readonly guide: boolean;
}

/**
 * The health checks of a `ClusterAccess`: its options with their defaults, the settings its checks
 * run with, and the options' problems. A CA file is copied into the stack, under `scope`, or read
 * for the Terraform engine, which warns (on `scope`) of what it does not do.
 */
export function healthCheckSettings(scope: Construct, given: HealthCheckOptions, guide: boolean):
{ options: HealthCheckOptions; settings: CheckSettings; problems: string[] } {
  const options = withHealthCheckDefaults(given);
  const problems = healthCheckProblems(options);
  const { caFile, ...settings } = options;
  if (options.engine !== CheckEngine.TERRAFORM) return { options, settings: { ...settings, ca: caAsset(scope, caFile, problems), guide }, problems };
  if (options.header === ApiKeyHeader.API_KEY) problems.push(errors.terraformEngineHeader());
  if (options.enabled) {
    if (given.grpc !== false) Annotations.of(scope).addWarning(errors.terraformEngineGrpc());
    if (given.runOnEveryDeploy === true) Annotations.of(scope).addWarning(errors.terraformEngineEveryDeploy());
  }
  const ca = typeof caFile === 'string' && !Token.isUnresolved(caFile) && caFileProblems(caFile).length === 0 ? readCaFile(path.resolve(caFile)) : undefined;
  const caPem = ca && 'pem' in ca ? ca.pem : undefined;
  if (caPem !== undefined && options.enabled) Annotations.of(scope).addInfo(errors.terraformEngineCa(caFile as string));
  return { options, settings: { ...settings, caPem, guide }, problems };
}

/** The environment variable that holds a key handed over by Terraform (fromToken sources). */
const HANDED_KEY_ENV = 'QDRANT_API_KEY';
/** The environment variable that holds the sha256 of a variable's value (the checker's --key-sha256-env). */
const KEY_SHA256_ENV = 'QCA_KEY_SHA256';

/** The health check of one key (see the header). */
export class HealthCheck extends Construct {
  /** The `null_resource`: secret targets of the key depend on it. */
  public readonly resource: NullResource;

  constructor(scope: Construct, id: string, apiKey: ApiKey, settings: CheckSettings) {
    super(scope, id);
    const support = StackSupport.of(this);
    support.useNullProvider();
    const source = apiKey._sourceConfig();
    const keyEnv = source.inheritedEnvironmentVariable ?? HANDED_KEY_ENV;
    const access = apiKey.access;
    const cli = `${support.runtime.path}/${CLI.checker}`;
    // The check compares the TF_VAR_... it reads with Terraform's value; for an ephemeral key, the guard does.
    const guard = source.inheritedEnvironmentVariable && apiKey.ephemeral
      ? keyGuard(cli, { environmentVariable: source.inheritedEnvironmentVariable, sha256: source.inheritedSha256! }) : undefined;

    const values = {
      keyEnv,
      keySha256Env: source.inheritedEnvironmentVariable && !guard ? KEY_SHA256_ENV : undefined,
      header: settings.header,
      timeout: settings.timeoutSeconds,
      retries: settings.retries,
      allowOpen: !settings.requireAuth,
      access: access?._checkerAccess(),
      readCollections: access?.readCollections.length ? access.readCollections : undefined,
      writeCollections: access?.readWriteCollections.length ? access.readWriteCollections : undefined,
      allowExcessAccess: settings.allowExcessAccess,
      minValidityDays: settings.minValidityDays || undefined,
      ca: settings.ca ? `${settings.ca.path}` : undefined,
      label: names.isValidName(apiKey.keyName) ? apiKey.keyName : 'invalid-key-name',
      deployCommand: DEPLOY_COMMAND_OPTION,
    };
    // The failure lines name the guide's path (resolved at synth: not part of the options' hash).
    const guide = settings.guide ? support.guideFile() : undefined;
    // The grants, however many: in a file of the stack (its URLs from tokens in variables of their own).
    const grantsFile = inputFile(this, () => grantList(apiKey, settings.grpc));
    const invocation = protocol.invocation('check', { ...values, guide, grantsFile: grantsFile.path, grantsSha256: grantsFile.sha256 }, cli);
    // Hashed here when the grants are known at synth (a Lazy string inside Fn would be read as an expression).
    const grantsHash = Lazy.stringValue({
      produce: () => {
        const g = grantsJson(apiKey, settings.grpc);
        return g.tokens ? Fn.sha256(g.json) : createHash('sha256').update(g.json).digest('hex');
      },
    });
    const keyEnvironment: Record<string, string> = {};
    if (values.keySha256Env) {
      // From a variable: the hash of the value Terraform hands to the targets, which the checker
      // compares with the TF_VAR_... it reads (they differ when -var or a .tfvars file sets it too).
      keyEnvironment[KEY_SHA256_ENV] = source.inheritedSha256!;
    } else if (!source.inheritedEnvironmentVariable) {
      // From another resource: Terraform must hand the key over, which hides this check's output on
      // success (a failure is still printed in full, and never holds the key).
      keyEnvironment[HANDED_KEY_ENV] = source.expression;
    }
    const environment = Lazy.anyValue({ produce: () => ({ ...invocation.environment, ...keyEnvironment, ...grantsFile.environment() }) });

    const optionsHash = createHash('sha256')
      .update(JSON.stringify({ values, ca: settings.ca?.assetHash ?? null }))
      .digest('hex')
      .slice(0, 16);
    const triggers: Record<string, string> = {
      grants: grantsHash,
      ...apiKey._keyTriggers(),
      runtime: support.runtime.assetHash,
      options: optionsHash,
      ...(settings.runOnEveryDeploy ? everyDeploy() : {}),
    };

    const preconditions = keyPreconditions(apiKey, guide);
    this.resource = new NullResource(this, 'Resource', {
      triggers,
      provisioners: [...(guard ? [guard] : []),
        { type: 'local-exec', command: invocation.command, environment: environment as unknown as Record<string, string> }],
      lifecycle: preconditions.length > 0 ? { precondition: preconditions } : undefined,
    });
    this.node.addValidation({ validate: () => execLimitProblems(apiKey, grantsFile, invocation.environment) });
  }
}

/** `[{"label":"search-api → prod-eu","url":"https://…:6333","grpcUrl":"https://…:6334"}, …]`; a URL may be a token. */
function grantList(apiKey: ApiKey, grpc: boolean): { label: string; url: string; grpcUrl?: string }[] {
  const keyName = names.isValidName(apiKey.keyName) ? apiKey.keyName : 'invalid-key-name';
  return apiKey.clusters.map((c) => ({
    label: names.grantLabel(keyName, names.isValidName(c.clusterName) ? c.clusterName : 'invalid-cluster-name'),
    url: c.restEndpoint,
    ...(grpc ? { grpcUrl: c.grpcEndpoint } : {}),
  }));
}

/** The grants as JSON, for the trigger: built by Terraform when a URL is a token. */
function grantsJson(apiKey: ApiKey, grpc: boolean): { json: string; tokens: boolean } {
  const list = grantList(apiKey, grpc);
  const tokens = list.some((g) => Token.isUnresolved(g.url) || Token.isUnresolved(g.grpcUrl ?? ''));
  return { json: tokens ? Fn.jsonencode(list) : JSON.stringify(list), tokens };
}

/**
 * What the check's process could not receive (protocol.EXEC_LIMITS): more values known only at
 * deploy than fit (the endpoints of clusters whose url is a token, and the key), or a list of
 * collections longer than one environment string holds. The grants themselves are in a file.
 */
function execLimitProblems(apiKey: ApiKey, grants: InputFile, environment: Record<string, string>): string[] {
  const problems: string[] = [];
  const key = names.isValidName(apiKey.keyName) ? apiKey.keyName : '(invalid name)';
  const values = grants.deployTimeValues() + 1;
  if (values > protocol.EXEC_LIMITS.deployTimeValues) {
    const clusters = apiKey.clusters.filter((c) => Token.isUnresolved(c.restEndpoint)).length;
    problems.push(errors.checkTooManyDeployValues(key, values, clusters, protocol.EXEC_LIMITS.deployTimeValues));
  }
  // The only option values that grow with the configuration.
  for (const [option, kind] of [['readCollections', 'read'], ['writeCollections', 'write']] as const) {
    const name = protocol.envNameOf(option);
    const value = environment[name];
    const bytes = value === undefined ? 0 : Buffer.byteLength(`${name}=${value}`) + 1;
    if (bytes > protocol.EXEC_LIMITS.envStringBytes) {
      problems.push(errors.checkCollectionsTooLong(key, kind, value.split(',').length, bytes, protocol.EXEC_LIMITS.envStringBytes));
    }
  }
  return problems;
}

/**
 * A precondition for the check: a key read from a variable that has no value fails the deploy at
 * once, naming the variable (instead of a prompt, or a check that fails later with a less direct
 * message). `guide`: where the setup guide is, when it is written.
 */
function keyPreconditions(apiKey: ApiKey, guide?: string): { condition: any; errorMessage: string }[] {
  const variable = apiKey._sourceConfig().variable;
  if (!variable) return [];
  return [{
    condition: Op.neq(variable.value, Token.nullValue()),
    errorMessage: errors.keyNotSet(names.isValidName(apiKey.keyName) ? apiKey.keyName : '(invalid name)', variable.friendlyUniqueId, DEPLOY_COMMAND, guide),
  }];
}

/** The health-check options with every default filled in. */
function withHealthCheckDefaults(o: HealthCheckOptions): WithDefaults & Pick<HealthCheckOptions, 'caFile'> {
  const engine = o.engine ?? CheckEngine.NODE;
  return {
    enabled: o.enabled ?? true,
    engine,
    header: o.header ?? (engine === CheckEngine.TERRAFORM ? ApiKeyHeader.BEARER : ApiKeyHeader.API_KEY),
    timeoutSeconds: o.timeoutSeconds ?? protocol.CHECK_OPTIONS.timeout.default,
    retries: o.retries ?? protocol.CHECK_OPTIONS.retries.default,
    requireAuth: o.requireAuth ?? true,
    caFile: o.caFile,
    runOnEveryDeploy: o.runOnEveryDeploy ?? false,
    grpc: o.grpc ?? true,
    allowExcessAccess: o.allowExcessAccess ?? false,
    minValidityDays: o.minValidityDays ?? protocol.CHECK_OPTIONS.minValidityDays.default,
  };
}

/** Ranges from the checker's own option specs: synth and deploy cannot disagree. */
function healthCheckProblems(o: HealthCheckOptions): string[] {
  const problems: string[] = [];
  const specs = protocol.CHECK_OPTIONS;
  const ranged: [keyof HealthCheckOptions, typeof specs.timeout, boolean, number][] = [
    ['timeoutSeconds', specs.timeout, false, 10],
    ['retries', specs.retries, true, 3],
    ['minValidityDays', specs.minValidityDays, true, 14],
  ];
  for (const [prop, spec, integer, example] of ranged) {
    const v = o[prop];
    // Wrong types (NaN among them) are reported by the props check.
    if (typeof v !== 'number' || Number.isNaN(v)) continue;
    // The values go into the checker's options, its trigger hash and the setup guide: literals only.
    if (Token.isUnresolved(v)) {
      problems.push(errors.healthCheckToken(prop, example));
      continue;
    }
    if (!(v >= spec.min && v <= spec.max && (!integer || Number.isInteger(v)))) {
      problems.push(errors.healthCheckRange(prop, v, spec.min, spec.max, integer, example));
    }
  }
  if (typeof o.caFile === 'string') problems.push(...caFileProblems(o.caFile));
  return problems;
}

function caFileProblems(file: string): string[] {
  if (Token.isUnresolved(file)) return [errors.caFileToken()];
  const resolved = path.resolve(file);
  if (terraformLiteralProblem(resolved)) return [errors.unsafePath('healthCheck.caFile', resolved)];
  // The runtime's rule for a CA file (assets/runtime/ca-file.ts), the one --ca meets at deploy.
  const ca = readCaFile(resolved);
  if ('pem' in ca) return [];
  switch (ca.problem) {
    case 'unreadable': return [ca.missing ? errors.caFileMissing(file, resolved) : errors.caFileUnreadable(file, ca.detail)];
    case 'not-regular': return [errors.caFileNotRegular(file)];
    case 'too-large': return [errors.caFileTooLarge(file, ca.size)];
    default: return [errors.caFileNotPem(file)];
  }
}

/** The CA file, copied into the stack; `problems` gets its copy's. */
function caAsset(scope: Construct, file: unknown, problems: string[]): TerraformAsset | undefined {
  // Not a string (reported by the props check), a token (reported with the file's problems), or a
  // file with problems: nothing to copy.
  if (typeof file !== 'string' || Token.isUnresolved(file) || caFileProblems(file).length > 0) return undefined;
  const asset = new TerraformAsset(scope, 'CaFile', { path: path.resolve(file), type: AssetType.FILE });
  if (terraformLiteralProblem(asset.path)) problems.push(errors.unsafePath('healthCheck.caFile, copied into the stack as', asset.path));
  return asset;
}
