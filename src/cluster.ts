import { Fn, Op, TerraformOutput, Token, Tokenization, conditional } from 'cdktf';
import { Construct } from 'constructs';
import { errors, nameShown, plainName } from './private/errors';
import { checkStruct, onlyByFactory } from './private/props';
import { names, urls } from './private/runtime';
import { CLUSTER_OPTIONS } from './private/schemas';
import { StackSupport, isSibling } from './private/stack-support';

/** A Qdrant cluster, as passed to `ClusterAccess` or `ClusterAccess.addCluster()`. */
export interface ClusterOptions {
  /**
   * Logical name of the cluster, unique within one stack (e.g. `prod-eu`): a letter, then letters,
   * digits, `-` and `_`, at most 63. Names that differ only in case or `-`/`_` collide.
   */
  readonly name: string;

  /**
   * `https://<host>[:<port>]`, e.g. `https://abc-123.eu-central-1-0.aws.cloud.qdrant.io`: no path,
   * query or credentials; `http://` for loopback hosts only. A token alone is checked at deploy.
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

/** One Qdrant cluster (through `ClusterAccess`), with non-secret outputs `<outputPrefix>_rest_endpoint` and `<outputPrefix>_grpc_endpoint`. */
export class Cluster extends Construct {
  /** The REST port of a Qdrant Cloud cluster. */
  public static readonly DEFAULT_REST_PORT: number = urls.DEFAULT_REST_PORT;

  /** The gRPC port of a Qdrant Cloud cluster. */
  public static readonly DEFAULT_GRPC_PORT: number = urls.DEFAULT_GRPC_PORT;

  /** Return whether the given object is a `Cluster` (works across copies of this package). */
  public static isCluster(x: any): x is Cluster {
    return x !== null && typeof x === 'object' && CLUSTER_SYMBOL in x;
  }

  /** @internal */
  public static _create(scope: Construct, id: string, options: ClusterOptions): Cluster {
    return new Cluster(scope, id, options, FACTORY);
  }

  /** The logical name, e.g. `prod-eu`. */
  public readonly clusterName: string;

  /** The address as given, e.g. `https://abc-123.eu-central-1-0.aws.cloud.qdrant.io`. */
  public readonly url: string;

  /** The host (ASCII, lower case; an IDN as punycode). A token when `url` is one. */
  public readonly host: string;

  /** The REST port (when `url` is a token, a port inside its value is not seen here). */
  public readonly restPort: number;

  /** The gRPC port. */
  public readonly grpcPort: number;

  /** REST endpoint with its port, e.g. `https://host:6333`. A token when `url` is one. */
  public readonly restEndpoint: string;

  /** gRPC endpoint with its port, e.g. `https://host:6334`. A token when `url` is one. */
  public readonly grpcEndpoint: string;

  /** The names of its Terraform outputs start with this, e.g. `qdrant_prod_eu`. */
  public readonly outputPrefix: string;

  private readonly parsed?: urls.ParsedClusterUrl;
  private readonly problems: string[];

  private constructor(scope: Construct, id: string, props: ClusterOptions, factory: symbol) {
    onlyByFactory(factory, FACTORY, errors.clusterWithNew());
    super(scope, id);
    Object.defineProperty(this, CLUSTER_SYMBOL, { value: true });
    const p = props ?? ({} as ClusterOptions);
    // A name that may be a key, or is not text, is not shown: the construct id stands in.
    this.problems = checkStruct(props, CLUSTER_OPTIONS, `cluster ${JSON.stringify(typeof p.name === 'string' && nameShown(p.name) ? p.name : id)} options`);
    this.clusterName = typeof p.name === 'string' ? p.name : id;
    this.url = typeof p.url === 'string' ? p.url : '';
    const restPort = validPort(p.restPort);
    this.grpcPort = validPort(p.grpcPort) ?? urls.DEFAULT_GRPC_PORT;

    if (Token.isUnresolved(this.url)) {
      if (Tokenization.reverseString(this.url).literals.length > 0) this.problems.push(errors.clusterUrlMixedToken(this.clusterName));
      // Built by Terraform; the checker applies the URL rule at deploy.
      const base = Fn.trimsuffix(this.url, '/');
      const hostOnly = Fn.regex(`^[^:]+://${TOKEN_URL_HOST}`, base);
      // A capture group would make regex() return a list: take the scheme off instead.
      this.host = Fn.replace(hostOnly, '/^[^:]+:[/][/]/', '');
      this.restPort = restPort ?? urls.DEFAULT_REST_PORT;
      this.restEndpoint = restPort !== undefined
        ? Fn.format('%s:%d', [hostOnly, restPort])
        : Token.asString(conditional(
          Op.gte(Fn.lengthOf(Fn.regexall(`^[^:]+://${TOKEN_URL_HOST}:[0-9]+$`, base)), 1),
          base,
          Fn.format('%s:%d', [base, urls.DEFAULT_REST_PORT]),
        ));
      this.grpcEndpoint = Fn.format('%s:%d', [hostOnly, this.grpcPort]);
    } else {
      this.parsed = urls.parseClusterUrl(this.url);
      if (typeof p.url === 'string') for (const problem of this.parsed.problems) this.problems.push(errors.clusterUrl(this.clusterName, this.url, problem));
      this.restPort = restPort ?? this.parsed.explicitPort ?? urls.DEFAULT_REST_PORT;
      // Placeholder endpoints for a bad address, so that one synth reports every problem.
      const origin = this.parsed.problems.length === 0 && this.parsed.origin ? this.parsed.origin : 'https://invalid.invalid';
      this.host = this.parsed.host ?? 'invalid.invalid';
      this.restEndpoint = `${origin}:${this.restPort}`;
      this.grpcEndpoint = `${origin}:${this.grpcPort}`;
    }
    for (const [what, port] of [['restPort', p.restPort], ['grpcPort', p.grpcPort]] as const) {
      if (typeof port !== 'number' || Number.isNaN(port)) continue;
      // A port goes into endpoints, hashes and the setup guide as text: it must be known at synth.
      if (Token.isUnresolved(port)) this.problems.push(errors.clusterPortToken(this.clusterName, what));
      else if (validPort(port) === undefined) this.problems.push(errors.clusterPort(this.clusterName, what, port));
    }
    if (this.restPort === this.grpcPort) this.problems.push(errors.clusterSamePorts(this.clusterName, this.restPort));
    if (typeof p.name === 'string' && !names.isValidName(p.name)) this.problems.push(errors.invalidName('cluster', p.name));

    this.outputPrefix = names.isValidName(this.clusterName)
      ? names.clusterOutputPrefix(this.clusterName)
      : `qdrant_invalid_${names.snakeCase(id.replace(/[^A-Za-z0-9_-]/g, '_'))}`;
    const support = StackSupport.of(this);
    const outputs = [['RestEndpoint', 'REST', this.restEndpoint], ['GrpcEndpoint', 'gRPC', this.grpcEndpoint]]
      .map(([outputId, what, value]) => ({ id: outputId, what, value, name: `${this.outputPrefix}_${what.toLowerCase()}_endpoint` }));
    const clash = outputs.map((o) => support.claim('output', o.name, this.node.path)).find((other) => other !== undefined);
    // A sibling's clash is reported by its ClusterAccess.
    if (clash && !isSibling(this, clash)) this.problems.push(errors.clusterOutputClash(this.clusterName, this.outputPrefix, clash));
    // The name goes into the stack only once it is known to be plain (no "${" for Terraform to read).
    for (const o of outputs) {
      const description = `${o.what} endpoint of Qdrant cluster ${plainName(this.clusterName)} (not secret)`;
      support.declared(new TerraformOutput(this, o.id, { value: o.value, description }), o.name);
    }

    this.node.addValidation({ validate: () => [...this.problems] });
  }

  /** @internal */
  public get _parsedUrl(): urls.ParsedClusterUrl | undefined {
    return this.parsed;
  }
}

/** A port: a whole number in 1-65535 (not a token); undefined otherwise. */
function validPort(port: unknown): number | undefined {
  if (typeof port !== 'number' || Token.isUnresolved(port)) return undefined;
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? port : undefined;
}

/**
 * A token URL's host for Terraform's regex: a bracketed IPv6 address (its colons are no port) or a
 * name. No backslashes: cdktf writes the pattern into HCL as is, where `\[` is an invalid escape.
 */
const TOKEN_URL_HOST = '(?:[[][0-9A-Za-z:.%_-]*]|[^/:]+)';

const CLUSTER_SYMBOL = Symbol.for('cdktf-qdrant-cluster-access.Cluster');

const FACTORY = Symbol('Cluster._create');
