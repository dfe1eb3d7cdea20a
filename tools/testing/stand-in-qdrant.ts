/**
 * A stand-in Qdrant server for tests: real HTTPS (REST) and HTTP/2 over TLS (gRPC) on 127.0.0.1,
 * with a CA made for the test run. It is for the fault modes a real server cannot produce; where it
 * answers like Qdrant it must answer exactly like each real Qdrant version the tests run does
 * (test/real-qdrant/parity.test.ts runs one matrix of probes against both and compares the answers).
 *
 * REST, as measured on a real server (the Qdrant auth reference, §9): `/`, `/healthz`, `/readyz*`,
 * `/livez*` need no key; a missing key gets 401 text `Must provide an API key or an Authorization
 * bearer token`, a wrong one 401 text `Invalid API key or JWT` (both without content-type); the
 * `api-key` header wins over `Authorization: Bearer` even when empty. With `jwtRbac`, HS256 JWTs
 * signed with the manage key are accepted (`access` `r`, `m` or a collection list; `exp` with 30 s
 * leeway); an expired one gets 403 text `ExpiredSignature`, a bad signature 403 text
 * `InvalidSignature`, anything else that is no valid token 401 `Invalid API key or JWT`. Access
 * checks answer 403 JSON `{"status":{"error":"Forbidden: …"},"time":…}`. The side-effect-free
 * access probes answer as Qdrant does: `POST /collections/aliases` `{"actions":[]}`,
 * `GET /collections/<c>/exists`, `POST /collections/<c>/points/delete` `{"points":[]}` and a
 * `GET /collections` filtered for collection-scoped tokens.
 *
 * gRPC ({@link StandInQdrant.grpcUrl}): `/qdrant.Qdrant/HealthCheck` and `/grpc.health.v1.Health/Check`
 * need no key; `/qdrant.Collections/List` answers a ListCollectionsResponse; every other method
 * UNIMPLEMENTED (12). Failures are trailers-only answers: UNAUTHENTICATED (16) with the 401 texts,
 * PERMISSION_DENIED (7) for `ExpiredSignature` / `InvalidSignature`.
 *
 * Modes add the Qdrant Cloud edge and faults (see {@link StandInMode}).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as http2 from 'node:http2';
import * as https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { atTestFileEnd } from './file-end';
import type { Grant } from './jwt';
import { verifyJwt } from './jwt';

export type StandInMode =
  /** Self-hosted Qdrant with API keys. */
  | 'normal'
  /**
   * Qdrant Cloud edge: every path, `/` included, needs a valid key, else 403 JSON {"error":"forbidden"}.
   * gRPC (not confirmed for the real edge): the health methods need a valid key too, else trailers-only 16.
   */
  | 'cloud-edge'
  /** Nothing listens: {@link StandInQdrant.url} and {@link StandInQdrant.grpcUrl} point to closed ports. */
  | 'refused'
  /** Accepts connections (TLS and the HTTP/2 handshake included) and never answers. */
  | 'hang'
  /** Answers normally after `slowMs`. */
  | 'slow'
  /** The first `failFirst` requests get 503 (gRPC: HTTP 503 without grpc-status, as a proxy sends), then normal. */
  | 'flaky-5xx'
  /** The first `failFirst` requests get 429 with `Retry-After: retryAfter` (gRPC: HTTP 429), then normal. */
  | 'rate-limited'
  /** Every request gets 302 to the same path on another origin ({@link StandInQdrant.otherOrigin}). */
  | 'redirect'
  /** Every path answers 200 with an HTML page (a proxy or a web app, not Qdrant). */
  | 'not-qdrant'
  /** No authentication at all (Qdrant without an api_key). */
  | 'open'
  /** Rejects every key with an error body (gRPC: grpc-message) that echoes the received credential headers. */
  | 'echo-key'
  /** A proxy in front of Qdrant drops the `api-key` header (Bearer still gets through). */
  | 'strip-api-key';

export interface StandInOptions {
  /** The manage (read-write) key; with `jwtRbac` also the JWT secret. */
  readonly apiKey: string;
  /** The read-only key. */
  readonly readOnlyApiKey?: string;
  /** A key that is answered with 403 `ExpiredSignature` (an expired JWT). */
  readonly expiredApiKey?: string;
  /** More manage keys, e.g. one key per app plus a rotated one (like `alt_api_key`, also JWT secrets). */
  readonly moreApiKeys?: readonly string[];
  /** Accept HS256 JWTs signed with `apiKey` (or one of `moreApiKeys`), as Qdrant's `jwt_rbac`. Default false. */
  readonly jwtRbac?: boolean;
  readonly mode?: StandInMode;
  /** Version in GET / and the gRPC HealthCheck. Default 1.16.2. */
  readonly version?: string;
  /** Existing collections. Default ['products', 'support-tickets']. */
  readonly collections?: readonly string[];
  /** `http` for a plain-HTTP server and cleartext HTTP/2 gRPC (loopback tests). Default `https`. */
  readonly protocol?: 'https' | 'http';
  readonly params?: ModeParams;
}

export interface ModeParams {
  /** `slow`: delay before answering. Default 300. */
  readonly slowMs?: number;
  /** `flaky-5xx`, `rate-limited`: how many requests fail first. Default 2. */
  readonly failFirst?: number;
  /** `rate-limited`: the Retry-After value in seconds. Default 1. */
  readonly retryAfter?: number;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** Headers as received (lower-case names). */
  readonly headers: http.IncomingHttpHeaders;
  /** Header names and values in order, as sent (duplicates kept). */
  readonly rawHeaders: readonly string[];
  /** The mode the server was in. */
  readonly mode: StandInMode;
  /** '2.0' or '1.1' for REST requests; undefined for gRPC calls (always HTTP/2). */
  readonly httpVersion?: string;
}

export interface TestCa {
  readonly dir: string;
  /** PEM of the CA certificate: what `--ca` / `caFile` / NODE_EXTRA_CA_CERTS take. */
  readonly caFile: string;
  readonly serverCert: string;
  readonly serverKey: string;
}

/** A key value that tests search for in every output: it must never show up. */
export function canaryKey(prefix = 'canary'): string {
  return `${prefix}-${randomBytes(12).toString('hex')}`;
}

/** True when the request carried any credential header. */
export function carriesKey(r: RecordedRequest): boolean {
  return r.headers['api-key'] !== undefined || r.headers.authorization !== undefined;
}

// What must not outlive a test file (re-exported: suites import it from here).
export { atTestFileEnd };

let testCa: TestCa | undefined;

/**
 * The CA and server certificate for 127.0.0.1/localhost shared by a test file: made once per
 * process (per jest test file) in a temp dir removed when the test file ends (see {@link atTestFileEnd}).
 */
export function getTestCa(): TestCa {
  if (testCa) return testCa;
  const ca = createTestCa();
  atTestFileEnd(() => {
    fs.rmSync(ca.dir, { recursive: true, force: true });
    if (testCa === ca) testCa = undefined;
  });
  testCa = ca;
  return testCa;
}

/**
 * A new CA and server certificate for 127.0.0.1/localhost, made with the openssl CLI in a new temp
 * dir that the caller removes (`fs.rmSync(ca.dir, { recursive: true, force: true })`). For a second,
 * untrusted CA; use {@link getTestCa} otherwise.
 */
export function createTestCa(): TestCa {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stand-in-qdrant-'));
  try {
    const f = (name: string) => path.join(dir, name);
    // A minimal config, so the system openssl.cnf adds no extensions of its own.
    fs.writeFileSync(f('openssl.cnf'), [
      '[req]', 'distinguished_name = dn', 'prompt = no', '[dn]', 'CN = stand-in-qdrant test CA',
      '[ca_ext]', 'basicConstraints = critical,CA:TRUE', 'keyUsage = critical,keyCertSign,cRLSign',
      'subjectKeyIdentifier = hash', '',
    ].join('\n'));
    fs.writeFileSync(f('server.ext'), [
      'basicConstraints = CA:FALSE', 'keyUsage = critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage = serverAuth', 'subjectAltName = IP:127.0.0.1,DNS:localhost', '',
    ].join('\n'));
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2',
      '-config', 'openssl.cnf', '-extensions', 'ca_ext');
    openssl('req', '-new', ...ec, '-keyout', 'server.key', '-out', 'server.csr',
      '-config', 'openssl.cnf', '-subj', '/CN=127.0.0.1');
    openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial',
      '-out', 'server.crt', '-days', '2', '-extfile', 'server.ext');
    return {
      dir,
      caFile: f('ca.crt'),
      serverCert: fs.readFileSync(f('server.crt'), 'utf8'),
      serverKey: fs.readFileSync(f('server.key'), 'utf8'),
    };
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** What a valid credential may do: global read or manage, or read / read-write on some collections. */
type Access = Grant;

/** The outcome of authentication: an access, or the auth layer's rejection (plain text). */
type Auth =
  | { readonly ok: true; readonly access: Access }
  | { readonly ok: false; readonly status: 401 | 403; readonly text: string };

const MANAGE: Access = { global: 'm' };
const READ: Access = { global: 'r' };
const JSON_TYPE = 'application/json';
const GRPC_TYPE = 'application/grpc';
const MISSING = 'Must provide an API key or an Authorization bearer token';
const INVALID = 'Invalid API key or JWT';
const MAX_BODY_BYTES = 1024 * 1024;
const HEALTH_METHODS = new Set(['/qdrant.Qdrant/HealthCheck', '/grpc.health.v1.Health/Check']);

const authOk = (access: Access): Auth => ({ ok: true, access });
const authFail = (status: 401 | 403, text: string): Auth => ({ ok: false, status, text });

type LoopbackServerKind = http.Server | http2.Http2Server | http2.Http2SecureServer;

/**
 * A server on a free port of 127.0.0.1 (HTTPS with the test CA's certificate, or plain HTTP) that
 * tracks its sockets so stop() can destroy them (e.g. in `hang` mode): the stand-in's REST and
 * gRPC ports, and what tests build their own proxies in front of a stand-in on (see {@link forwardTo}).
 */
export class LoopbackServer {
  /**
   * With `http2`, HTTPS offers HTTP/2 and HTTP/1.1 by ALPN, as Qdrant's REST port does (actix-web
   * with rustls); without it, HTTP/1.1 only (as a plain proxy in front of Qdrant may).
   */
  static async start(protocol: 'https' | 'http', handler: http.RequestListener, options: { http2?: boolean } = {}): Promise<LoopbackServer> {
    const ca = getTestCa();
    let server: LoopbackServerKind;
    if (protocol === 'http') server = http.createServer(handler);
    else if (options.http2) server = http2.createSecureServer({ cert: ca.serverCert, key: ca.serverKey, allowHTTP1: true }, handler as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void);
    else server = https.createServer({ cert: ca.serverCert, key: ca.serverKey }, handler);
    return LoopbackServer.listen(server, protocol);
  }

  /** A gRPC port: HTTP/2 over TLS (cleartext HTTP/2 for `protocol: 'http'`), each stream to `handler`. */
  static async startGrpc(
    protocol: 'https' | 'http',
    handler: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void,
  ): Promise<LoopbackServer> {
    const ca = getTestCa();
    const server = protocol === 'https' ? http2.createSecureServer({ cert: ca.serverCert, key: ca.serverKey }) : http2.createServer();
    server.on('stream', handler);
    server.on('session', (session: http2.ServerHttp2Session) => session.on('error', () => undefined)); // a client that goes away mid-stream
    return LoopbackServer.listen(server, protocol);
  }

  /**
   * A cleartext gRPC port whose `handler` answers each call once its request has been read
   * (`method`: the call's path, e.g. /qdrant.Collections/List).
   */
  static startGrpcAnswering(
    handler: (stream: http2.ServerHttp2Stream, method: string, headers: http2.IncomingHttpHeaders) => void,
  ): Promise<LoopbackServer> {
    return LoopbackServer.startGrpc('http', (stream, headers) => {
      stream.on('error', () => undefined);
      stream.resume();
      stream.on('end', () => handler(stream, String(headers[':path']), headers));
    });
  }

  private static async listen(server: LoopbackServerKind, protocol: 'https' | 'http'): Promise<LoopbackServer> {
    const l = new LoopbackServer(server, protocol);
    await listenOnLoopback(server);
    return l;
  }

  /** TCP connections accepted so far (a check over HTTP/2 needs one per cluster). */
  connections = 0;
  // Raw sockets: stop() ends them all, HTTP/2 sessions and unfinished TLS handshakes included.
  private readonly sockets = new Set<Socket>();
  private constructor(private readonly server: LoopbackServerKind, readonly protocol: 'https' | 'http') {
    server.on('connection', (s: Socket) => {
      this.connections += 1;
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  get url(): string {
    return `${this.protocol}://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    if ('closeAllConnections' in this.server) this.server.closeAllConnections();
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

function listenOnLoopback(server: net.Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
}

/** A port on 127.0.0.1 where nothing listens (bound, then closed). */
export async function closedPort(): Promise<number> {
  const s = net.createServer();
  await listenOnLoopback(s);
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

export class StandInQdrant {
  /** Starts the stand-in (REST, gRPC and the redirect target) on free ports of 127.0.0.1. */
  static async start(options: StandInOptions): Promise<StandInQdrant> {
    const s = new StandInQdrant(options);
    try {
      await s.listen(options.protocol ?? 'https');
    } catch (e) {
      await s.stop();
      throw e;
    }
    return s;
  }

  /** Every REST request the main server received, in order. */
  readonly requests: RecordedRequest[] = [];
  /** Every gRPC call the gRPC port received, in order (`method` is the HTTP method, `path` the gRPC method path). */
  readonly grpcRequests: RecordedRequest[] = [];
  /** The CA file that signed the server certificate. */
  readonly caFile: string;
  /** The origin that `redirect` mode points to: a second HTTPS server, open, that logs what it receives. */
  readonly otherOrigin: { url: string; readonly requests: RecordedRequest[] } = { url: '', requests: [] };

  private mode: StandInMode;
  private params: ModeParams;
  private requestsInMode = 0;
  private grpcRequestsInMode = 0;
  private readonly collections: Set<string>;
  /** alias → collection */
  private readonly aliases = new Map<string, string>();
  private main?: LoopbackServer;
  private other?: LoopbackServer;
  private grpc?: LoopbackServer;
  private refusedUrl = '';
  private refusedGrpcUrl = '';

  private constructor(private readonly options: StandInOptions) {
    if (!options.apiKey) throw new Error('StandInQdrant needs an apiKey');
    this.mode = options.mode ?? 'normal';
    this.params = options.params ?? {};
    this.collections = new Set(options.collections ?? ['products', 'support-tickets']);
    this.caFile = getTestCa().caFile;
  }

  /** The base URL to check (a closed port in `refused` mode). */
  get url(): string {
    return this.mode === 'refused' ? this.refusedUrl : this.main!.url;
  }

  /** The gRPC base URL, `https://127.0.0.1:<port>` (a closed port in `refused` mode). */
  get grpcUrl(): string {
    return this.mode === 'refused' ? this.refusedGrpcUrl : this.grpc!.url;
  }

  /** TCP connections the REST port accepted so far. */
  get restConnections(): number {
    return this.main?.connections ?? 0;
  }

  /** TCP connections the gRPC port accepted so far. */
  get grpcConnections(): number {
    return this.grpc?.connections ?? 0;
  }

  /** Switches mode; the request counters of `flaky-5xx` / `rate-limited` restart. */
  setMode(mode: StandInMode, params: ModeParams = {}): void {
    this.mode = mode;
    this.params = params;
    this.requestsInMode = 0;
    this.grpcRequestsInMode = 0;
  }

  async stop(): Promise<void> {
    await Promise.all([this.main?.stop(), this.other?.stop(), this.grpc?.stop()]);
  }

  private async listen(protocol: 'https' | 'http'): Promise<void> {
    this.main = await LoopbackServer.start(protocol, (req, res) => this.handle(req, res), { http2: true });
    this.other = await LoopbackServer.start('https', (req, res) => {
      this.otherOrigin.requests.push(record(req, this.mode));
      // Answers like an open Qdrant, so a checker that followed the redirect would be fooled.
      readBody(req, (body) => this.route(req, res, MANAGE, body));
    });
    this.otherOrigin.url = this.other.url;
    this.grpc = await LoopbackServer.startGrpc(protocol, (stream, headers) => this.handleGrpc(stream, headers));
    this.refusedUrl = `${protocol}://127.0.0.1:${await closedPort()}`;
    this.refusedGrpcUrl = `${protocol}://127.0.0.1:${await closedPort()}`;
  }

  // -------------------------------------------------------------------------------------------
  // REST

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.requests.push(record(req, this.mode));
    this.requestsInMode += 1;
    const failFirst = this.params.failFirst ?? 2;
    switch (this.mode) {
      case 'hang':
        req.resume();
        return; // never answer; stop() destroys the socket
      case 'flaky-5xx':
        if (this.requestsInMode <= failFirst) return drain(req, () => send(res, 503, 'text/plain', 'Service Unavailable'));
        break;
      case 'rate-limited':
        if (this.requestsInMode <= failFirst) {
          res.setHeader('retry-after', String(this.params.retryAfter ?? 1));
          return drain(req, () => sendJson(res, 429, { status: { error: 'Too many requests: rate limit exceeded' }, time: 0.000001 }));
        }
        break;
      case 'redirect':
        res.setHeader('location', `${this.otherOrigin.url}${req.url ?? '/'}`);
        return drain(req, () => send(res, 302, undefined, ''));
      case 'not-qdrant':
        return drain(req, () => send(res, 200, 'text/html; charset=utf-8',
          '<!doctype html><html><head><title>Welcome to nginx!</title></head><body><h1>Welcome to nginx!</h1></body></html>'));
      default:
        break;
    }
    const slowMs = this.mode === 'slow' ? this.params.slowMs ?? 300 : 0;
    readBody(req, (body) => {
      if (slowMs > 0) setTimeout(() => this.answer(req, res, body), slowMs);
      else this.answer(req, res, body);
    });
  }

  /** Authentication as Qdrant (or the Cloud edge) does it, then the route. */
  private answer(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
    const p = pathOf(req.url);
    const headers = { ...req.headers };
    if (this.mode === 'strip-api-key') delete headers['api-key'];
    const auth = this.authenticate(credentialOf(headers));

    if (this.mode === 'open') return this.route(req, res, MANAGE, body);
    if (this.mode === 'cloud-edge' && !auth.ok) {
      return send(res, 403, 'application/json; charset=utf-8', '{"error":"forbidden"}');
    }
    if (this.mode === 'echo-key' && !isWhitelisted(p)) {
      // A (bad) server that echoes what it got: the checker must redact it.
      return send(res, 401, undefined,
        `${INVALID}: got api-key=${String(req.headers['api-key'])} authorization=${String(req.headers.authorization)}`);
    }
    if (isWhitelisted(p)) return this.route(req, res, auth.ok ? auth.access : READ, body);
    if (!auth.ok) return send(res, auth.status, undefined, auth.text);
    return this.route(req, res, auth.access, body);
  }

  /**
   * The credential's access: the static keys first, then (with `jwtRbac`) an HS256 JWT, checked in
   * Qdrant's order: algorithm, signature (403 `InvalidSignature`), claims, `exp` (403 `ExpiredSignature`).
   */
  private authenticate(credential: string | undefined): Auth {
    const o = this.options;
    if (credential === undefined) return authFail(401, MISSING);
    if (credential === o.apiKey || o.moreApiKeys?.includes(credential)) return authOk(MANAGE);
    if (o.readOnlyApiKey !== undefined && credential === o.readOnlyApiKey) return authOk(READ);
    if (o.expiredApiKey !== undefined && credential === o.expiredApiKey) return authFail(403, 'ExpiredSignature');
    if (o.jwtRbac) {
      const v = verifyJwt(credential, [o.apiKey, ...(o.moreApiKeys ?? [])]);
      return v.ok ? authOk(v.grant) : authFail(v.status, v.text);
    }
    return authFail(401, INVALID);
  }

  /** The subset of the REST API the checker, its probes and js-client-rest's getCollections/versionInfo use. */
  private route(req: http.IncomingMessage, res: http.ServerResponse, access: Access, body: Buffer): void {
    const p = pathOf(req.url);
    const method = req.method ?? 'GET';
    if (p === '/' && method === 'GET') return sendJson(res, 200, this.versionInfo());
    if ((p === '/healthz' || p.startsWith('/livez')) && method === 'GET') return send(res, 200, 'text/plain; charset=utf-8', 'healthz check passed');
    if (p.startsWith('/readyz') && method === 'GET') return send(res, 200, 'text/plain; charset=utf-8', 'all shards are ready');
    if (p === '/collections' && method === 'GET') {
      return ok(res, { collections: this.visibleCollections(access).map((name) => ({ name })) });
    }
    if (p === '/aliases' && method === 'GET') {
      // Measured: a collection-scoped token sees only aliases whose own name is in its scope.
      const visible = [...this.aliases].filter(([alias]) => scopeDenial(access, alias) === undefined);
      return ok(res, { aliases: visible.map(([alias, collection]) => ({ alias_name: alias, collection_name: collection })) });
    }
    if (p === '/collections/aliases' && method === 'POST') return this.updateAliases(res, access, body);
    const m = /^\/collections\/([^/]+)(\/exists|\/points\/delete)?$/.exec(p);
    if (m) {
      const name = decodeURIComponent(m[1]);
      if (m[2] === '/exists') {
        if (method !== 'GET') return send(res, 404, undefined, '');
        if (deny(res, scopeDenial(access, name))) return;
        return ok(res, { exists: this.resolve(name) !== undefined });
      }
      if (m[2] === '/points/delete') {
        if (method !== 'POST') return send(res, 404, undefined, '');
        return this.deletePoints(res, access, name, body);
      }
      if (method === 'GET') {
        if (deny(res, scopeDenial(access, name))) return;
        if (this.resolve(name) !== undefined) {
          return ok(res, { status: 'green', optimizer_status: 'ok', points_count: 0, segments_count: 1, config: {} });
        }
        return notFound(res, name);
      }
      if (deny(res, globalDenial(access, true))) return;
      if (method === 'PUT') {
        this.collections.add(name);
        return ok(res, true);
      }
      if (method === 'DELETE') {
        for (const [alias, target] of this.aliases) if (target === name) this.aliases.delete(alias);
        return ok(res, this.collections.delete(name));
      }
    }
    return send(res, 404, undefined, '');
  }

  /** `POST /collections/aliases`: global manage access; `{"actions":[]}` changes nothing and answers 200 true. */
  private updateAliases(res: http.ServerResponse, access: Access, body: Buffer): void {
    const parsed = parseJsonBody(body);
    if (!parsed.ok) return formatError(res, parsed.error);
    const actions = (parsed.value as { actions?: unknown } | null)?.actions;
    if (!Array.isArray(actions)) return formatError(res, 'missing field `actions`');
    if (deny(res, globalDenial(access, true))) return;
    for (const a of actions as Record<string, Record<string, string> | undefined>[]) {
      if (a.create_alias) {
        if (!this.collections.has(a.create_alias.collection_name)) return notFound(res, a.create_alias.collection_name);
        this.aliases.set(a.create_alias.alias_name, a.create_alias.collection_name);
      } else if (a.delete_alias) {
        this.aliases.delete(a.delete_alias.alias_name); // measured: deleting a missing alias answers 200 true
      } else if (a.rename_alias) {
        const target = this.aliases.get(a.rename_alias.old_alias_name);
        if (target === undefined) return notFound(res, a.rename_alias.old_alias_name);
        this.aliases.delete(a.rename_alias.old_alias_name);
        this.aliases.set(a.rename_alias.new_alias_name, target);
      } else {
        return formatError(res, 'unknown variant in `actions` (the stand-in knows create_alias, delete_alias, rename_alias)');
      }
    }
    return ok(res, true);
  }

  /**
   * `POST /collections/<c>/points/delete`, checked in the order measured on real Qdrant: collection
   * in the token's scope (403), collection exists (404, even for a global read-only key), write access
   * (403), then an empty selection is 400 `Bad request: Empty update request`. The stand-in holds no
   * points, so a non-empty delete deletes nothing and succeeds.
   */
  private deletePoints(res: http.ServerResponse, access: Access, name: string, body: Buffer): void {
    const parsed = parseJsonBody(body);
    if (!parsed.ok) return formatError(res, parsed.error);
    const selector = parsed.value as { points?: unknown; filter?: unknown } | null;
    if (selector === null || typeof selector !== 'object' || (!Array.isArray(selector.points) && typeof selector.filter !== 'object')) {
      return formatError(res, 'data did not match any variant of untagged enum PointsSelector');
    }
    if (deny(res, scopeDenial(access, name))) return;
    if (this.resolve(name) === undefined) return notFound(res, name);
    if (deny(res, writeDenial(access, name))) return;
    if (Array.isArray(selector.points) && selector.points.length === 0) {
      return sendJson(res, 400, { status: { error: 'Bad request: Empty update request' }, time: 0.000001 });
    }
    return ok(res, { operation_id: 0, status: 'acknowledged' });
  }

  /** The collection a name (or alias) refers to. */
  private resolve(name: string): string | undefined {
    return this.collections.has(name) ? name : this.aliases.get(name);
  }

  private visibleCollections(access: Access): string[] {
    return [...this.collections].filter((c) => scopeDenial(access, c) === undefined);
  }

  private versionInfo(): { title: string; version: string; commit: string } {
    return { title: 'qdrant - vector search engine', version: this.options.version ?? '1.16.2', commit: '0123456789abcdef0123456789abcdef01234567' };
  }

  // -------------------------------------------------------------------------------------------
  // gRPC

  private handleGrpc(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    this.grpcRequests.push(recordGrpc(headers, this.mode));
    this.grpcRequestsInMode += 1;
    stream.on('error', () => undefined); // a client that resets its stream
    const failFirst = this.params.failFirst ?? 2;
    const plain = (status: number, extra: http2.OutgoingHttpHeaders, type: string, text: string) => {
      stream.respond({ ':status': status, 'content-type': type, ...extra });
      stream.end(text);
    };
    stream.resume(); // every method served here takes an empty request message
    switch (this.mode) {
      case 'hang':
        return; // never answer; stop() destroys the session
      case 'flaky-5xx':
        // What an HTTP proxy in front of gRPC sends: no grpc-status at all.
        if (this.grpcRequestsInMode <= failFirst) return plain(503, {}, 'text/plain', 'Service Unavailable');
        break;
      case 'rate-limited':
        if (this.grpcRequestsInMode <= failFirst) return plain(429, { 'retry-after': String(this.params.retryAfter ?? 1) }, 'text/plain', 'Too Many Requests');
        break;
      case 'redirect':
        return plain(302, { location: `${this.otherOrigin.url}${String(headers[':path'])}` }, 'text/plain', '');
      case 'not-qdrant':
        return plain(200, {}, 'text/html; charset=utf-8', '<!doctype html><html><head><title>Welcome to nginx!</title></head><body></body></html>');
      default:
        break;
    }
    const go = () => this.answerGrpc(stream, headers);
    const slowMs = this.mode === 'slow' ? this.params.slowMs ?? 300 : 0;
    if (slowMs > 0) setTimeout(go, slowMs);
    else go();
  }

  private answerGrpc(stream: http2.ServerHttp2Stream, received: http2.IncomingHttpHeaders): void {
    if (stream.destroyed) return;
    const method = String(received[':path'] ?? '');
    const headers = { ...received };
    if (this.mode === 'strip-api-key') delete headers['api-key'];
    const auth = this.authenticate(credentialOf(headers as http.IncomingHttpHeaders));
    const health = HEALTH_METHODS.has(method);
    const rejected = (a: Auth & { ok: false }) => trailersOnly(stream, a.status === 401 ? 16 : 7, a.text);

    if (this.mode === 'open') return this.serveGrpc(stream, method, MANAGE);
    if (this.mode === 'cloud-edge' && !auth.ok) return rejected(auth);
    if (this.mode === 'echo-key' && !health) {
      return trailersOnly(stream, 16, `${INVALID}: got api-key=${String(received['api-key'])} authorization=${String(received.authorization)}`);
    }
    if (health) return this.serveGrpc(stream, method, auth.ok ? auth.access : READ);
    if (!auth.ok) return rejected(auth);
    return this.serveGrpc(stream, method, auth.access);
  }

  private serveGrpc(stream: http2.ServerHttp2Stream, method: string, access: Access): void {
    switch (method) {
      case '/qdrant.Qdrant/HealthCheck': {
        const v = this.versionInfo();
        return unaryReply(stream, Buffer.concat([pbString(1, v.title), pbString(2, v.version), pbString(3, v.commit)]));
      }
      case '/grpc.health.v1.Health/Check':
        return unaryReply(stream, Buffer.from([0x08, 0x01])); // status: SERVING
      case '/qdrant.Collections/List': {
        const names = this.visibleCollections(access).map((name) => pbBytes(1, pbString(1, name)));
        return unaryReply(stream, Buffer.concat([...names, pbDouble(2, 0.000012)]));
      }
      default:
        // Measured: an unknown method with a valid key is a trailers-only UNIMPLEMENTED, no message.
        stream.respond({ ':status': 200, 'content-type': GRPC_TYPE, 'grpc-status': '12', 'content-length': '0' }, { endStream: true });
        return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Access checks: the Forbidden texts of Qdrant's RBAC (403 JSON)

/** A global operation: collection-scoped tokens never; `manage` needs global manage access. */
function globalDenial(access: Access, manage: boolean): string | undefined {
  if ('collections' in access) return 'Forbidden: Global access is required';
  return manage && access.global !== 'm' ? 'Forbidden: Global manage access is required' : undefined;
}

/** Any access to a collection: collection-scoped tokens only to their collections. */
function scopeDenial(access: Access, collection: string): string | undefined {
  return 'collections' in access && !access.collections.has(collection) ? `Forbidden: Access to collection ${collection} is required` : undefined;
}

/** Writing to a collection (after {@link scopeDenial}). */
function writeDenial(access: Access, collection: string): string | undefined {
  if ('collections' in access) {
    return access.collections.get(collection) === 'rw' ? undefined : `Forbidden: Write access to collection ${collection} is required`;
  }
  return access.global === 'm' ? undefined : 'Forbidden: Global manage access is required';
}

/** Sends the 403 when there is a denial, and returns true then. */
function deny(res: http.ServerResponse, denial: string | undefined): true | undefined {
  if (denial === undefined) return undefined;
  sendJson(res, 403, { status: { error: denial }, time: 0.000001 });
  return true;
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers

/** A REST request as received; over HTTP/2 without the pseudo-headers, so records read alike over either protocol. */
function record(req: http.IncomingMessage, mode: StandInMode): RecordedRequest {
  const headers: http.IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) if (!name.startsWith(':')) headers[name] = value;
  const rawHeaders: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    if (!req.rawHeaders[i].startsWith(':')) rawHeaders.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  return { method: req.method ?? '', path: req.url ?? '', headers, rawHeaders, mode, httpVersion: req.httpVersion };
}

function recordGrpc(headers: http2.IncomingHttpHeaders, mode: StandInMode): RecordedRequest {
  const plain: http.IncomingHttpHeaders = {};
  const raw: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    plain[name] = value;
    for (const v of Array.isArray(value) ? value : [String(value)]) raw.push(name, v);
  }
  return { method: String(headers[':method'] ?? ''), path: String(headers[':path'] ?? ''), headers: plain, rawHeaders: raw, mode };
}

/** Reads a request body (at most MAX_BODY_BYTES are kept). */
function readBody(req: http.IncomingMessage, then: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (d: Buffer) => {
    size += d.length;
    if (size <= MAX_BODY_BYTES) chunks.push(d);
  });
  req.on('end', () => then(Buffer.concat(chunks)));
  req.on('error', () => undefined);
}

function drain(req: http.IncomingMessage, then: () => void): void {
  readBody(req, () => then());
}

function parseJsonBody(body: Buffer): { ok: true; value: unknown } | { ok: false; error: string } {
  if (body.length === 0) return { ok: false, error: 'EOF while parsing a value at line 1 column 0' };
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** Qdrant's answer to a body that does not deserialize (the serde message itself differs). */
function formatError(res: http.ServerResponse, message: string): void {
  sendJson(res, 400, { status: { error: `Format error in JSON body: ${message}` }, time: 0.0 });
}

function notFound(res: http.ServerResponse, name: string): void {
  sendJson(res, 404, { status: { error: `Not found: Collection \`${name}\` doesn't exist!` }, time: 0.000001 });
}

/** Path without query, trailing slashes trimmed (Qdrant's NormalizePath::trim runs before auth). */
function pathOf(url: string | undefined): string {
  const p = (url ?? '/').split('?')[0].replace(/\/+$/, '');
  return p === '' ? '/' : p;
}

function isWhitelisted(p: string): boolean {
  return p === '/' || p === '/healthz' || p.startsWith('/readyz') || p.startsWith('/livez');
}

/** `api-key` if present (even empty), else `Authorization` with the case-sensitive `Bearer ` prefix. */
function credentialOf(headers: http.IncomingHttpHeaders): string | undefined {
  const apiKey = headers['api-key'];
  if (apiKey !== undefined) return Array.isArray(apiKey) ? apiKey[0] : apiKey;
  const auth = headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
}

/** Sends a body; no content-type when `type` is undefined (as Qdrant's auth layer does). */
function send(res: http.ServerResponse, status: number, type: string | undefined, body: string): void {
  if (type) res.setHeader('content-type', type);
  res.statusCode = status;
  res.end(body);
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  send(res, status, JSON_TYPE, JSON.stringify(body));
}

function ok(res: http.ServerResponse, result: unknown): void {
  sendJson(res, 200, { result, status: 'ok', time: 0.00001 });
}

// ---------------------------------------------------------------------------------------------
// gRPC helpers: an encoder written apart from assets/checker/grpc.ts, so the two check each other

/** A trailers-only answer, as tonic sends it: status 200, the gRPC status and percent-encoded message in the headers. */
function trailersOnly(stream: http2.ServerHttp2Stream, code: number, message: string): void {
  stream.respond({ ':status': 200, 'content-type': GRPC_TYPE, 'grpc-status': String(code), 'grpc-message': percentEncode(message) }, { endStream: true });
}

/** One message, then the trailers with grpc-status 0. */
function unaryReply(stream: http2.ServerHttp2Stream, message: Buffer): void {
  stream.respond({ ':status': 200, 'content-type': GRPC_TYPE }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  stream.end(Buffer.concat([head, message]));
}

/** tonic's grpc-message encoding: controls, space and `"#<>`?{}%` are percent-encoded, the rest is sent as is. */
function percentEncode(message: string): string {
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += byte < 0x21 || byte > 0x7e || '"#<>`?{}%'.includes(c) ? `%${byte.toString(16).toUpperCase().padStart(2, '0')}` : c;
  }
  return out;
}

function pbVarint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v >= 128) {
    out.push((v % 128) + 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

function pbBytes(field: number, value: Buffer): Buffer {
  return Buffer.concat([pbVarint(field * 8 + 2), pbVarint(value.length), value]);
}

function pbString(field: number, value: string): Buffer {
  return pbBytes(field, Buffer.from(value, 'utf8'));
}

function pbDouble(field: number, value: number): Buffer {
  const b = Buffer.alloc(9);
  b[0] = field * 8 + 1;
  b.writeDoubleLE(value, 1);
  return b;
}

/**
 * Forwards one request to `upstream` over HTTPS (trusting the test CA) and pipes the answer back;
 * a failed upstream request destroys the response. `body`: the request body when the caller has
 * already read it; otherwise the request is piped through.
 */
export function forwardTo(upstream: StandInQdrant, req: http.IncomingMessage, res: http.ServerResponse, body?: Buffer): void {
  // Hop-by-hop headers (and HTTP/2's pseudo-headers) stay on their own hop.
  const hop = (name: string) => name.startsWith(':') || ['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade'].includes(name);
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !hop(name)));
  const up = https.request(`${upstream.url}${req.url}`, { method: req.method, headers, ca: fs.readFileSync(upstream.caFile), agent: false }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !hop(name))));
    answer.pipe(res);
  });
  up.on('error', () => res.destroy());
  if (body) up.end(body);
  else req.pipe(up);
}
