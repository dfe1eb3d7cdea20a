/**
 * The health-check options, and each key's `null_resource` whose local-exec checks it on its clusters. The key never reaches the
 * command line (a variable's is compared by sha256 with the `TF_VAR_...` the checker reads; an ephemeral key's by a guard).
 */
import { createHash } from 'crypto';
import * as path from 'path';
import { Annotations, AssetType, Fn, Lazy, Op, TerraformAsset, Token } from 'cdktf';
import { Construct } from 'constructs';
import type { ApiKey } from './api-key';
import { KEY_SHA256_ENV, everyDeploy, keyGuard } from './private/ephemeral';
import { errors, grantLabel, plainName } from './private/errors';
import { DEPLOY_COMMAND, DEPLOY_COMMAND_OPTION } from './private/framework';
import { InputFile, inputFile } from './private/input-file';
import { NullResource } from './private/null-resource';
import { CLI, protocol, readCaFile } from './private/runtime';
import { terraformLiteralProblem } from './private/stack-strings';
import { StackSupport } from './private/stack-support';

/** How the key is sent to the cluster. */
export enum ApiKeyHeader {
  /** `api-key: <key>` (what the official clients send). */
  API_KEY = 'api-key',
  /** `Authorization: Bearer <key>`. */
  BEARER = 'bearer',
}

/** What proves the keys during a deploy (docs/engines.md compares them). */
export enum CheckEngine {
  /** The bundled checker, run by Node.js where Terraform applies: checks REST and gRPC, keeps the key out of the state. */
  NODE = 'node',
  /**
   * Terraform itself (hashicorp/http data sources, read at every plan): needs no Node, checks REST
   * only, stores the key in the state, refuses file targets.
   */
  TERRAFORM = 'terraform',
}

/** Options of the health check that proves each key on every cluster it is granted to during `cdktf deploy`. */
export interface HealthCheckOptions {
  /**
   * Run the health checks. When false, nothing verifies the keys before their secret targets are written.
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * What proves the keys (`CheckEngine`, docs/engines.md).
   * @default CheckEngine.NODE
   */
  readonly engine?: CheckEngine;

  /**
   * How the key is sent (one header only). `CheckEngine.TERRAFORM` sends only `Authorization:
   * Bearer`: hashicorp/http follows redirects and would pass an `api-key` header to another host.
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
   * A PEM file with an extra CA to trust (private CAs), relative to where synth runs. It is copied
   * into the stack; with `CheckEngine.TERRAFORM` it replaces the trusted roots (docs/engines.md).
   * @default - Node.js's root CAs and `NODE_EXTRA_CA_CERTS`
   */
  readonly caFile?: string;

  /**
   * Run the checks on every deploy, not only when the key, its clusters, the checker or these
   * options change (`CheckEngine.TERRAFORM` checks at every plan anyway).
   * @default false
   */
  readonly runOnEveryDeploy?: boolean;

  /**
   * Also check each cluster's gRPC endpoint (not with `CheckEngine.TERRAFORM`).
   * @default true
   */
  readonly grpc?: boolean;

  /**
   * Warn instead of failing when a key has more access than its declared `access`.
   * @default false
   */
  readonly allowExcessAccess?: boolean;

  /**
   * Fail a key (a JWT) that expires in fewer days than this (0-3650); an expired key always fails.
   * @default 0
   */
  readonly minValidityDays?: number;
}

// ---- not exported from the package ------------------------------------------------------------

type WithDefaults = Required<Omit<HealthCheckOptions, 'caFile'>>;

/** The options as they run: defaults filled, the CA copied (NODE) or read (TERRAFORM). */
export interface CheckSettings extends WithDefaults {
  readonly ca?: TerraformAsset;
  readonly caPem?: string;
  /** The setup guide's path for messages; undefined without a guide. */
  readonly guideFile?: string;
}

/** The options with defaults, the settings the checks run with, and the options' problems. */
export function healthCheckSettings(scope: Construct, given: HealthCheckOptions, guide: boolean):
{ options: HealthCheckOptions; settings: CheckSettings; problems: string[] } {
  const options = withHealthCheckDefaults(given);
  const { caFile, ...rest } = options;
  const settings = { ...rest, guideFile: guide ? StackSupport.of(scope).guideFile() : undefined };
  // Not a string: reported by the props check.
  const ca = typeof caFile === 'string' ? readCa(caFile) : undefined;
  const problems = [...rangeProblems(options), ...(ca?.problems ?? [])];
  if (options.engine !== CheckEngine.TERRAFORM) {
    const asset = ca?.pem === undefined ? undefined : new TerraformAsset(scope, 'CaFile', { path: path.resolve(caFile!), type: AssetType.FILE });
    if (asset && terraformLiteralProblem(asset.path)) problems.push(errors.unsafePath('healthCheck.caFile, copied into the stack as', asset.path));
    return { options, settings: { ...settings, ca: asset }, problems };
  }
  if (options.header === ApiKeyHeader.API_KEY) problems.push(errors.terraformEngineHeader());
  if (options.enabled) {
    if (given.grpc !== false) Annotations.of(scope).addWarning(errors.terraformEngineGrpc());
    if (given.runOnEveryDeploy === true) Annotations.of(scope).addWarning(errors.terraformEngineEveryDeploy());
    if (ca?.pem !== undefined) Annotations.of(scope).addInfo(errors.terraformEngineCa(caFile!));
  }
  return { options, settings: { ...settings, caPem: ca?.pem }, problems };
}

/** Where Terraform hands over a key from another resource. */
const HANDED_KEY_ENV = 'QDRANT_API_KEY';

/** The health check of one key. */
export class HealthCheck extends Construct {
  /** Secret targets of the key depend on it. */
  public readonly resource: NullResource;

  constructor(scope: Construct, id: string, apiKey: ApiKey, settings: CheckSettings) {
    super(scope, id);
    const support = StackSupport.of(this);
    support.useProvider('null');
    const source = apiKey.source._config();
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
      label: plainName(apiKey.keyName, 'invalid-key-name'),
      deployCommand: DEPLOY_COMMAND_OPTION,
    };
    const grantsFile = inputFile(this, () => grantList(apiKey, settings.grpc));
    // The guide is not part of the options' hash: its path is resolved at synth.
    const invocation = protocol.invocation('check', { ...values, guide: settings.guideFile, grantsFile: grantsFile.path, grantsSha256: grantsFile.sha256 }, cli);
    // Hashed here when the grants are known at synth (a Lazy string inside Fn would be read as an expression).
    const grantsHash = Lazy.stringValue({
      produce: () => {
        const list = grantList(apiKey, settings.grpc);
        // Built by Terraform when a URL is a token.
        if (list.some((g) => Token.isUnresolved(g.url) || Token.isUnresolved(g.grpcUrl ?? ''))) return Fn.sha256(Fn.jsonencode(list));
        return createHash('sha256').update(JSON.stringify(list)).digest('hex');
      },
    });
    // What reaches the check's environment: for a variable, only the sha256 to compare TF_VAR_... with
    // (-var and .tfvars win over it); a handed key itself, sensitive, so Terraform hides the output on success.
    let keyEnvironment: Record<string, string> = {};
    if (values.keySha256Env) keyEnvironment = { [KEY_SHA256_ENV]: source.inheritedSha256! };
    else if (!source.inheritedEnvironmentVariable) keyEnvironment = { [HANDED_KEY_ENV]: source.expression };
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

    const variable = source.variable;
    this.resource = new NullResource(this, 'Resource', {
      triggers,
      provisioners: [...(guard ? [guard] : []),
        { type: 'local-exec', command: invocation.command, environment: environment as unknown as Record<string, string> }],
      // A key's variable without a value fails the deploy at once, naming the variable.
      lifecycle: variable ? {
        precondition: [{
          condition: Op.neq(variable.value, Token.nullValue()),
          errorMessage: errors.keyNotSet(plainName(apiKey.keyName), variable.friendlyUniqueId, DEPLOY_COMMAND, settings.guideFile),
        }],
      } : undefined,
    });
    this.node.addValidation({ validate: () => execLimitProblems(apiKey, grantsFile, invocation.environment) });
  }
}

/** `[{"label":"search-api → prod-eu","url":"https://…:6333","grpcUrl":"https://…:6334"}, …]`; a URL may be a token. */
function grantList(apiKey: ApiKey, grpc: boolean): { label: string; url: string; grpcUrl?: string }[] {
  return apiKey.clusters.map((c) => ({
    label: grantLabel(apiKey.keyName, c.clusterName),
    url: c.restEndpoint,
    ...(grpc ? { grpcUrl: c.grpcEndpoint } : {}),
  }));
}

/** What the check's process could not receive (protocol.EXEC_LIMITS). */
function execLimitProblems(apiKey: ApiKey, grants: InputFile, environment: Record<string, string>): string[] {
  const problems: string[] = [];
  const key = plainName(apiKey.keyName);
  const values = grants.deployTimeValues() + 1;
  if (values > protocol.EXEC_LIMITS.deployTimeValues) {
    const clusters = apiKey.clusters.filter((c) => Token.isUnresolved(c.restEndpoint)).length;
    problems.push(errors.checkTooManyDeployValues(key, values, clusters, protocol.EXEC_LIMITS.deployTimeValues));
  }
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
function rangeProblems(o: HealthCheckOptions): string[] {
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
    const inRange = v >= spec.min && v <= spec.max && (!integer || Number.isInteger(v));
    if (Token.isUnresolved(v)) problems.push(errors.healthCheckToken(prop, example));
    else if (!inRange) problems.push(errors.healthCheckRange(prop, v, spec.min, spec.max, integer, example));
  }
  return problems;
}

/** The CA file's PEM, or its problems by the runtime's rule (assets/runtime/ca-file.ts), the one --ca meets at deploy. */
function readCa(file: string): { pem?: string; problems: string[] } {
  if (Token.isUnresolved(file)) return { problems: [errors.caFileToken()] };
  const resolved = path.resolve(file);
  if (terraformLiteralProblem(resolved)) return { problems: [errors.unsafePath('healthCheck.caFile', resolved)] };
  const ca = readCaFile(resolved);
  if ('pem' in ca) return { pem: ca.pem, problems: [] };
  switch (ca.problem) {
    case 'unreadable': return { problems: [ca.missing ? errors.caFileMissing(file, resolved) : errors.caFileUnreadable(file, ca.detail)] };
    case 'not-regular': return { problems: [errors.caFileNotRegular(file)] };
    case 'too-large': return { problems: [errors.caFileTooLarge(file, ca.size)] };
    default: return { problems: [errors.caFileNotPem(file)] };
  }
}
