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
   * How the key is sent. Only one of the two headers is ever sent.
   * @default ApiKeyHeader.API_KEY
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
   * verification itself cannot be turned off.
   * @default - Node.js's bundled root CAs and those of `NODE_EXTRA_CA_CERTS` (Node reads the
   * operating system's trust store only when `NODE_OPTIONS` asks: `--use-openssl-ca`, or on Node
   * 22.15 and later `--use-system-ca`; the file adds to the roots Node uses either way)
   */
  readonly caFile?: string;

  /**
   * Run the checks on every deploy. Otherwise a key's check runs when its inputs change: the
   * key (through a hash), its clusters, the checker or these options.
   * @default false
   */
  readonly runOnEveryDeploy?: boolean;

  /**
   * Also check each cluster's gRPC endpoint (`Cluster.grpcEndpoint`, port 6334 by default):
   * Qdrant's health check, then `Collections/List` with and without the key. Turn it off for
   * clusters whose gRPC port the deploy machine cannot reach.
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
   * `..._expires_at` output), and a key past its expiry always fails (Qdrant still accepts one
   * for 30 seconds).
   * @default 0
   */
  readonly minValidityDays?: number;
}
