import { createHash } from 'crypto';
import { resource } from '@cdktf/provider-null';
import { Fn, TerraformAsset } from 'cdktf';
import { Construct } from 'constructs';
import { ApiKeyGrant } from './api-key';
import { ensureNullProvider } from './private/null-provider';

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
 * Options of the health check that runs during `cdktf deploy` for every (key, cluster) grant.
 */
export interface HealthCheckOptions {
  /**
   * Run the health check. When false, no `null_resource` (and no null provider) is added.
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * How the key is sent. Only one of the two headers is ever sent.
   * @default ApiKeyHeader.API_KEY
   */
  readonly header?: ApiKeyHeader;

  /**
   * Timeout of each HTTP request, in seconds (1-300).
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
   * the synth.
   * @default - the system's trusted roots only
   */
  readonly caFile?: string;

  /**
   * Run the checks on every deploy. Otherwise they run when their inputs change: the URL, the
   * key (through a hash), the checker or these options.
   * @default false
   */
  readonly runOnEveryDeploy?: boolean;
}

/**
 * Properties of a `HealthCheck`.
 */
export interface HealthCheckProps {
  /** The (key, cluster) pair to check. */
  readonly grant: ApiKeyGrant;
  /** The checker, copied into the stack (a directory asset holding `cli.js`). */
  readonly checker: TerraformAsset;
  /** The extra CA file, copied into the stack. @default - none */
  readonly caFile?: TerraformAsset;
  /** Options. @default - see `HealthCheckOptions` */
  readonly options?: HealthCheckOptions;
}

/**
 * Proves at deploy time that one key works on one cluster: a `null_resource` whose `local-exec`
 * provisioner runs the bundled checker (`GET /`, then `GET /collections` with and without the
 * key). A failed check fails the deploy.
 *
 * The key never appears in the command: the checker reads it from the `TF_VAR_...` variable
 * that Terraform itself inherits (default source and `ApiKeySource.fromVariable`), or from the
 * provisioner's `environment` for `ApiKeySource.fromToken`.
 */
export class HealthCheck extends Construct {
  /** The `null_resource`. */
  public readonly resource: resource.Resource;

  constructor(scope: Construct, id: string, props: HealthCheckProps) {
    super(scope, id);
    const { apiKey, cluster } = props.grant;
    const options = props.options ?? {};
    const source = apiKey._sourceConfigResolved();

    const environment: Record<string, string> = {
      QCA_CHECKER: `${props.checker.path}/cli.js`,
      QCA_URL: cluster.restEndpoint,
      QCA_LABEL: `${apiKey.keyName} → ${cluster.clusterName}`,
    };
    let keyEnv = source.inheritedEnvironmentVariable;
    if (!keyEnv) {
      // A token from another resource: Terraform must hand it over, which hides the
      // checker's output on success (Terraform still prints it on failure).
      keyEnv = 'QDRANT_API_KEY';
      environment[keyEnv] = source.expression;
    }

    const args = [
      'check', '--url', '"$QCA_URL"', '--label', '"$QCA_LABEL"', '--key-env', keyEnv,
      '--header', options.header ?? ApiKeyHeader.API_KEY,
      '--timeout', String(options.timeoutSeconds ?? 10),
      '--retries', String(options.retries ?? 3),
    ];
    if (options.requireAuth === false) args.push('--allow-open');
    if (props.caFile) {
      environment.QCA_CA = props.caFile.path;
      args.push('--ca', '"$QCA_CA"');
    }

    const optionsHash = createHash('sha256')
      .update(JSON.stringify({ args, ca: props.caFile?.assetHash ?? null }))
      .digest('hex')
      .slice(0, 16);
    const triggers: Record<string, string> = {
      url: cluster.restEndpoint,
      key_sha256: Fn.sha256(source.expression),
      checker: props.checker.assetHash,
      options: optionsHash,
    };
    if (options.runOnEveryDeploy) triggers.run = Fn.timestamp();

    this.resource = new resource.Resource(this, 'Resource', {
      triggers,
      provisioners: [{
        type: 'local-exec',
        command: `node "$QCA_CHECKER" ${args.join(' ')}`,
        environment,
      }],
    });
    ensureNullProvider(this);
  }
}
