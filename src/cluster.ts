import { Fn, Op, TerraformOutput, Token, conditional } from 'cdktf';
import { Construct } from 'constructs';
import { NAME_RULE, isValidName, q, snakeCase } from './private/naming';
import { checkClusterUrl, showUrl } from './private/url';

/** The REST port of a Qdrant Cloud cluster. */
export const DEFAULT_REST_PORT = 6333;
/** The gRPC port of a Qdrant Cloud cluster. */
export const DEFAULT_GRPC_PORT = 6334;

/**
 * A Qdrant cluster, as passed to `ClusterAccess` or `ClusterAccess.addCluster()`.
 */
export interface ClusterOptions {
  /**
   * Logical name of the cluster, unique within one `ClusterAccess` (for example `prod-eu`).
   * It names Terraform outputs and environment variables, so it starts with a letter and holds
   * only letters, digits, `-` and `_`. Names that differ only in case or `-`/`_` collide.
   */
  readonly name: string;

  /**
   * Address of the cluster: `https://<host>` or `https://<host>:<port>`, for example
   * `https://abc-123.eu-central-1-0.aws.cloud.qdrant.io`. No path, query, fragment or
   * credentials. `http://` is accepted for loopback hosts only.
   *
   * An unresolved token (such as the `url` attribute of a cluster created by another provider)
   * is accepted; it is then checked by the health check at deploy time.
   */
  readonly url: string;

  /**
   * REST port.
   * @default - the port in `url`, else 6333
   */
  readonly restPort?: number;

  /**
   * gRPC port.
   * @default 6334
   */
  readonly grpcPort?: number;
}

/**
 * Properties of a `Cluster`.
 */
export interface ClusterProps extends ClusterOptions {}

/**
 * One Qdrant cluster: its address and its REST and gRPC endpoints.
 *
 * Usually created through `ClusterAccess` (`clusters: [...]` or `addCluster()`). It adds two
 * non-secret Terraform outputs: `qdrant_<name>_rest_endpoint` and `qdrant_<name>_grpc_endpoint`.
 */
export class Cluster extends Construct {
  /**
   * Return whether the given object is a `Cluster` (works across copies of this package).
   */
  public static isCluster(x: any): x is Cluster {
    return x !== null && typeof x === 'object' && CLUSTER_SYMBOL in x;
  }

  /** The logical name, e.g. `prod-eu`. */
  public readonly clusterName: string;

  /** The address as given, e.g. `https://abc-123.eu-central-1-0.aws.cloud.qdrant.io`. */
  public readonly url: string;

  /** The REST port. */
  public readonly restPort: number;

  /** The gRPC port. */
  public readonly grpcPort: number;

  /** REST endpoint with its port, e.g. `https://host:6333`. A token when `url` is one. */
  public readonly restEndpoint: string;

  /** gRPC endpoint with its port, e.g. `https://host:6334`. A token when `url` is one. */
  public readonly grpcEndpoint: string;

  constructor(scope: Construct, id: string, props: ClusterProps) {
    super(scope, id);
    Object.defineProperty(this, CLUSTER_SYMBOL, { value: true });
    this.clusterName = props.name;
    this.url = props.url;

    if (Token.isUnresolved(props.url)) {
      // Known only at deploy time: build the endpoints in Terraform.
      const base = Fn.trimsuffix(props.url, '/');
      this.restPort = props.restPort ?? DEFAULT_REST_PORT;
      this.grpcPort = props.grpcPort ?? DEFAULT_GRPC_PORT;
      const hostOnly = Fn.regex('^[^:]+://[^/:]+', base);
      this.restEndpoint = props.restPort !== undefined
        ? Fn.format('%s:%d', [hostOnly, props.restPort])
        : Token.asString(conditional(
          Op.gte(Fn.lengthOf(Fn.regexall('^[^:]+://[^/]+:[0-9]+$', base)), 1),
          base,
          Fn.format('%s:%d', [base, DEFAULT_REST_PORT]),
        ));
      this.grpcEndpoint = Fn.format('%s:%d', [hostOnly, this.grpcPort]);
    } else {
      const parsed = checkClusterUrl(props.url).parsed;
      this.restPort = props.restPort ?? parsed?.explicitPort ?? DEFAULT_REST_PORT;
      this.grpcPort = props.grpcPort ?? DEFAULT_GRPC_PORT;
      const origin = parsed?.origin ?? props.url;
      this.restEndpoint = `${origin}:${this.restPort}`;
      this.grpcEndpoint = `${origin}:${this.grpcPort}`;
    }

    const tfName = isValidName(props.name) ? snakeCase(props.name) : `invalid_${snakeCase(id)}`;
    new TerraformOutput(this, 'RestEndpoint', {
      value: this.restEndpoint,
      description: `REST endpoint of Qdrant cluster ${props.name} (not secret)`,
    }).overrideLogicalId(`qdrant_${tfName}_rest_endpoint`);
    new TerraformOutput(this, 'GrpcEndpoint', {
      value: this.grpcEndpoint,
      description: `gRPC endpoint of Qdrant cluster ${props.name} (not secret)`,
    }).overrideLogicalId(`qdrant_${tfName}_grpc_endpoint`);

    this.node.addValidation({ validate: () => this.validateCluster(props) });
  }

  private validateCluster(props: ClusterProps): string[] {
    const errors: string[] = [];
    const label = `cluster ${q(props.name)}`;
    if (!isValidName(props.name)) {
      errors.push(`cluster name ${q(props.name)} is invalid: ${NAME_RULE}; use a name like "prod-eu"`);
    }
    if (!Token.isUnresolved(props.url)) {
      for (const problem of checkClusterUrl(props.url).problems) {
        errors.push(`${label} url ${showUrl(props.url)} ${problem}`);
      }
    }
    for (const [what, port] of [['restPort', props.restPort], ['grpcPort', props.grpcPort]] as const) {
      if (port !== undefined && !Token.isUnresolved(port) && !(Number.isInteger(port) && port >= 1 && port <= 65535)) {
        errors.push(`${label} ${what} ${port} is outside 1-65535; use a TCP port such as ${what === 'restPort' ? 6333 : 6334}`);
      }
    }
    if (this.restPort === this.grpcPort) {
      errors.push(
        `${label} REST and gRPC ports are both ${this.restPort}; they must differ (Qdrant Cloud uses 6333 for REST and 6334 for gRPC)`,
      );
    }
    return errors;
  }
}

const CLUSTER_SYMBOL = Symbol.for('cdktf-qdrant-cluster-access.Cluster');
