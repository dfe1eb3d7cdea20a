/**
 * The health check of one key: one `null_resource` whose local-exec runs the checker once for
 * every cluster the key is granted to (they are checked concurrently in that one process). Not
 * exported: `ClusterAccess` adds one per key.
 *
 * - The key never appears in the command or the environment when it comes from a variable: the
 *   checker reads the `TF_VAR_...` that Terraform itself inherits, so the check's lines stay
 *   visible. A key from another resource is handed over in `environment` (marked sensitive), which
 *   makes Terraform hide this key's output on success, and only this key's.
 * - A variable can also be set by -var or a .tfvars file, which win over `TF_VAR_...`: the targets
 *   would then get a key that was never checked. So the checker also gets the sha256 of the value
 *   Terraform uses, marked nonsensitive (a hash of a high-entropy key; Terraform never prints a
 *   provisioner's environment, and a sensitive value there would hide the check's lines), and
 *   refuses a `TF_VAR_...` that differs (--key-sha256-env).
 * - Every value reaches the shell quoted, through the environment (runtime/protocol.js).
 * - Triggers: the grants, a hash of the key, the runtime's hash and the options. Rotating one key
 *   re-runs that key's check only.
 */
import { createHash } from 'crypto';
import { Fn, Lazy, Op, TerraformAsset, Token, conditional } from 'cdktf';
import { Construct } from 'constructs';
import type { ApiKey } from '../api-key';
import { NullResource } from './null-resource';
import { CLI, names, protocol } from './runtime';
import { StackSupport } from './stack-support';

/** The checker options of a `ClusterAccess`, defaults applied. */
export interface CheckSettings {
  readonly header: string;
  readonly timeoutSeconds: number;
  readonly retries: number;
  readonly requireAuth: boolean;
  readonly grpc: boolean;
  readonly allowExcessAccess: boolean;
  readonly minValidityDays: number;
  readonly runOnEveryDeploy: boolean;
  readonly caFile?: TerraformAsset;
  readonly deployCommand: string;
  /** Whether the setup guide is written: the missing-key message points to it. */
  readonly guide: boolean;
}

/** The environment variable that holds the grants (the checker's --grants-env). */
const GRANTS_ENV = 'QCA_GRANTS';
/** The environment variable that holds a key handed over by Terraform (fromToken sources). */
const HANDED_KEY_ENV = 'QDRANT_API_KEY';
/** The environment variable that holds the sha256 of a variable's value (the checker's --key-sha256-env). */
const KEY_SHA256_ENV = 'QCA_KEY_SHA256';

export class KeyCheck extends Construct {
  /** The `null_resource`: secret targets of the key depend on it. */
  public readonly resource: NullResource;

  constructor(scope: Construct, id: string, apiKey: ApiKey, settings: CheckSettings) {
    super(scope, id);
    const support = StackSupport.of(this);
    support.useNullProvider();
    const source = apiKey._sourceConfig();
    const keyEnv = source.inheritedEnvironmentVariable ?? HANDED_KEY_ENV;
    const access = apiKey.access;
    const keySha256 = Fn.sha256(keyOrEmpty(source.expression, source.variable !== undefined));

    const values = {
      grantsEnv: GRANTS_ENV,
      keyEnv,
      keySha256Env: source.inheritedEnvironmentVariable ? KEY_SHA256_ENV : undefined,
      header: settings.header,
      timeout: settings.timeoutSeconds,
      retries: settings.retries,
      allowOpen: !settings.requireAuth,
      access: access?._checkerAccess(),
      readCollections: access?.readCollections.length ? access.readCollections : undefined,
      writeCollections: access?.readWriteCollections.length ? access.readWriteCollections : undefined,
      allowExcessAccess: settings.allowExcessAccess,
      minValidityDays: settings.minValidityDays || undefined,
      ca: settings.caFile ? `${settings.caFile.path}` : undefined,
      label: names.isValidName(apiKey.keyName) ? apiKey.keyName : 'invalid-key-name',
      deployCommand: settings.deployCommand === protocol.CHECK_OPTIONS.deployCommand.default ? undefined : settings.deployCommand,
    };
    const invocation = protocol.invocation('check', values, `${support.runtime.path}/${CLI.checker}`);
    const grants = Lazy.stringValue({ produce: () => grantsJson(apiKey, settings.grpc).json });
    // Hashed here when the grants are known at synth (a Lazy string inside Fn would be read as an expression).
    const grantsHash = Lazy.stringValue({
      produce: () => {
        const g = grantsJson(apiKey, settings.grpc);
        return g.tokens ? Fn.sha256(g.json) : createHash('sha256').update(g.json).digest('hex');
      },
    });
    const environment: Record<string, string> = { ...invocation.environment, [GRANTS_ENV]: grants };
    if (source.inheritedEnvironmentVariable) {
      // From a variable: the hash of the value Terraform hands to the targets, which the checker
      // compares with the TF_VAR_... it reads (they differ when -var or a .tfvars file sets it too).
      environment[KEY_SHA256_ENV] = variableSha256(source.expression);
    } else {
      // From another resource: Terraform must hand the key over, which hides this check's output on
      // success (a failure is still printed in full, and never holds the key).
      environment[HANDED_KEY_ENV] = source.expression;
    }

    const optionsHash = createHash('sha256')
      .update(JSON.stringify({ values, ca: settings.caFile?.assetHash ?? null }))
      .digest('hex')
      .slice(0, 16);
    const triggers: Record<string, string> = {
      grants: grantsHash,
      key_sha256: keySha256,
      runtime: support.runtime.assetHash,
      options: optionsHash,
    };
    if (settings.runOnEveryDeploy) triggers.run = Fn.timestamp();

    const preconditions = apiKey._keyPreconditions(settings.deployCommand, settings.guide ? support.guideFile() : undefined);
    this.resource = new NullResource(this, 'Resource', {
      triggers,
      provisioners: [{ type: 'local-exec', command: invocation.command, environment }],
      lifecycle: preconditions.length > 0 ? { precondition: preconditions } : undefined,
    });
  }
}

/**
 * The sha256 of a key variable's value as Terraform uses it (null as ""), marked nonsensitive: it is
 * handed to the checker and the writer, which compare it with the TF_VAR_... they read (-var and
 * .tfvars files win over it). A hash of a high-entropy key; Terraform never prints a provisioner's
 * environment, and a sensitive value there would hide the step's lines.
 */
export function variableSha256(expression: string): string {
  return Token.asString(Fn.nonsensitive(Fn.sha256(keyOrEmpty(expression, true))));
}

/** A variable may be null (not set): its precondition reports that, so the hash must not fail first. */
function keyOrEmpty(expression: string, isVariable: boolean): string {
  return isVariable ? Token.asString(conditional(Op.eq(expression, Token.nullValue()), '', expression)) : expression;
}

/** `[{"label":"search-api → prod-eu","url":"https://…:6333","grpcUrl":"https://…:6334"}, …]`, built by Terraform when a URL is a token. */
function grantsJson(apiKey: ApiKey, grpc: boolean): { json: string; tokens: boolean } {
  const keyName = names.isValidName(apiKey.keyName) ? apiKey.keyName : 'invalid-key-name';
  const list = apiKey.clusters.map((c) => ({
    label: names.grantLabel(keyName, names.isValidName(c.clusterName) ? c.clusterName : 'invalid-cluster-name'),
    url: c.restEndpoint,
    ...(grpc ? { grpcUrl: c.grpcEndpoint } : {}),
  }));
  const tokens = list.some((g) => Token.isUnresolved(g.url) || Token.isUnresolved(g.grpcUrl ?? ''));
  return { json: tokens ? Fn.jsonencode(list) : JSON.stringify(list), tokens };
}
