/**
 * A stand-in Qdrant REST server for tests: real HTTPS on 127.0.0.1 with a CA made for the test run.
 *
 * It answers like Qdrant >= 1.9 does (see the Qdrant auth reference): `/`, `/healthz`, `/readyz*`,
 * `/livez*` need no key; a missing key gets 401 text `Must provide an API key or an Authorization
 * bearer token`, a wrong one 401 text `Invalid API key or JWT` (both without content-type); the
 * `api-key` header wins over `Authorization: Bearer` even when empty; a read-only key writing gets 403
 * JSON `{"status":{"error":"Forbidden: Global manage access is required"},"time":…}`.
 * Modes add the Qdrant Cloud edge and faults (see {@link StandInMode}).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export type StandInMode =
  /** Self-hosted Qdrant with API keys. */
  | 'normal'
  /** Qdrant Cloud edge: every path, `/` included, needs a valid key, else 403 JSON {"error":"forbidden"}. */
  | 'cloud-edge'
  /** Nothing listens: {@link StandInQdrant.url} points to a closed port. */
  | 'refused'
  /** Accepts connections (TLS included) and never answers. */
  | 'hang'
  /** Answers normally after `slowMs`. */
  | 'slow'
  /** The first `failFirst` requests get 503, then normal. */
  | 'flaky-5xx'
  /** The first `failFirst` requests get 429 with `Retry-After: retryAfter`, then normal. */
  | 'rate-limited'
  /** Every request gets 302 to the same path on another origin ({@link StandInQdrant.otherOrigin}). */
  | 'redirect'
  /** Every path answers 200 with an HTML page (a proxy or a web app, not Qdrant). */
  | 'not-qdrant'
  /** No authentication at all (Qdrant without an api_key). */
  | 'open'
  /** Rejects every key with an error body that echoes the received credential headers. */
  | 'echo-key'
  /** A proxy in front of Qdrant drops the `api-key` header (Bearer still gets through). */
  | 'strip-api-key';

export interface StandInOptions {
  /** The manage (read-write) key. */
  readonly apiKey: string;
  /** The read-only key. */
  readonly readOnlyApiKey?: string;
  /** A key that is answered with 403 `ExpiredSignature` (an expired JWT). */
  readonly expiredApiKey?: string;
  /** More manage keys, e.g. one key per app plus a rotated one. */
  readonly moreApiKeys?: readonly string[];
  readonly mode?: StandInMode;
  /** Version in GET /. Default 1.16.2. */
  readonly version?: string;
  /** Existing collections. Default ['products', 'support-tickets']. */
  readonly collections?: readonly string[];
  /** `http` for a plain-HTTP server (loopback tests). Default `https`. */
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

let testCa: TestCa | undefined;

/**
 * A CA and a server certificate for 127.0.0.1/localhost, made with the openssl CLI once per
 * process (per jest test file) in a temp dir removed at exit.
 */
export function getTestCa(): TestCa {
  if (testCa) return testCa;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stand-in-qdrant-'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
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
  testCa = {
    dir,
    caFile: f('ca.crt'),
    serverCert: fs.readFileSync(f('server.crt'), 'utf8'),
    serverKey: fs.readFileSync(f('server.key'), 'utf8'),
  };
  return testCa;
}

type Access = 'manage' | 'read' | 'expired' | 'invalid';
const JSON_TYPE = 'application/json';
const MISSING = 'Must provide an API key or an Authorization bearer token';
const INVALID = 'Invalid API key or JWT';

/** A listening server that tracks its sockets so stop() can destroy them (e.g. in `hang` mode). */
class Listener {
  static async start(protocol: 'https' | 'http', handler: http.RequestListener): Promise<Listener> {
    const ca = getTestCa();
    const server = protocol === 'https'
      ? https.createServer({ cert: ca.serverCert, key: ca.serverKey }, handler)
      : http.createServer(handler);
    const l = new Listener(server, protocol);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return l;
  }

  private readonly sockets = new Set<Socket>();
  private constructor(private readonly server: http.Server, readonly protocol: 'https' | 'http') {
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  get url(): string {
    return `${this.protocol}://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

/** A port on 127.0.0.1 where nothing listens (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

export class StandInQdrant {
  /** Starts the stand-in (and its redirect target) on free ports of 127.0.0.1. */
  static async start(options: StandInOptions): Promise<StandInQdrant> {
    const s = new StandInQdrant(options);
    await s.listen(options.protocol ?? 'https');
    return s;
  }

  /** Every request the main server received, in order. */
  readonly requests: RecordedRequest[] = [];
  /** The CA file that signed the server certificate. */
  readonly caFile: string;
  /** The origin that `redirect` mode points to: a second HTTPS server, open, that logs what it receives. */
  readonly otherOrigin: { url: string; readonly requests: RecordedRequest[] } = { url: '', requests: [] };

  private mode: StandInMode;
  private params: ModeParams;
  private requestsInMode = 0;
  private readonly collections: Set<string>;
  private main?: Listener;
  private other?: Listener;
  private refusedUrl = '';

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

  /** Switches mode; the request counter of `flaky-5xx` / `rate-limited` restarts. */
  setMode(mode: StandInMode, params: ModeParams = {}): void {
    this.mode = mode;
    this.params = params;
    this.requestsInMode = 0;
  }

  async stop(): Promise<void> {
    await Promise.all([this.main?.stop(), this.other?.stop()]);
  }

  private async listen(protocol: 'https' | 'http'): Promise<void> {
    this.main = await Listener.start(protocol, (req, res) => this.handle(req, res));
    this.other = await Listener.start('https', (req, res) => {
      this.otherOrigin.requests.push(record(req, this.mode));
      req.resume();
      // Answers like an open Qdrant, so a checker that followed the redirect would be fooled.
      this.route(req, res, 'manage');
    });
    this.otherOrigin.url = this.other.url;
    this.refusedUrl = `${protocol}://127.0.0.1:${await closedPort()}`;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.requests.push(record(req, this.mode));
    this.requestsInMode += 1;
    req.resume(); // bodies are not needed
    const failFirst = this.params.failFirst ?? 2;
    switch (this.mode) {
      case 'hang':
        return; // never answer; stop() destroys the socket
      case 'slow':
        setTimeout(() => this.answer(req, res), this.params.slowMs ?? 300);
        return;
      case 'flaky-5xx':
        if (this.requestsInMode <= failFirst) return send(res, 503, 'text/plain', 'Service Unavailable');
        break;
      case 'rate-limited':
        if (this.requestsInMode <= failFirst) {
          res.setHeader('retry-after', String(this.params.retryAfter ?? 1));
          return sendJson(res, 429, { status: { error: 'Too many requests: rate limit exceeded' }, time: 0.000001 });
        }
        break;
      case 'redirect':
        res.setHeader('location', `${this.otherOrigin.url}${req.url ?? '/'}`);
        return send(res, 302, undefined, '');
      case 'not-qdrant':
        return send(res, 200, 'text/html; charset=utf-8',
          '<!doctype html><html><head><title>Welcome to nginx!</title></head><body><h1>Welcome to nginx!</h1></body></html>');
      default:
        break;
    }
    this.answer(req, res);
  }

  /** Authentication as Qdrant (or the Cloud edge) does it, then the route. */
  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const p = pathOf(req);
    const headers = { ...req.headers };
    if (this.mode === 'strip-api-key') delete headers['api-key'];
    const credential = credentialOf(headers);
    const access = credential === undefined ? undefined : this.accessOf(credential);

    if (this.mode === 'open') return this.route(req, res, 'manage');
    if (this.mode === 'cloud-edge' && access !== 'manage' && access !== 'read') {
      return send(res, 403, 'application/json; charset=utf-8', '{"error":"forbidden"}');
    }
    if (this.mode === 'echo-key' && !isWhitelisted(p)) {
      // A (bad) server that echoes what it got: the checker must redact it.
      return send(res, 401, undefined,
        `${INVALID}: got api-key=${String(req.headers['api-key'])} authorization=${String(req.headers.authorization)}`);
    }
    if (isWhitelisted(p)) return this.route(req, res, access ?? 'read');
    if (credential === undefined) return send(res, 401, undefined, MISSING);
    if (access === 'invalid') return send(res, 401, undefined, INVALID);
    if (access === 'expired') return send(res, 403, undefined, 'ExpiredSignature');
    return this.route(req, res, access!);
  }

  private accessOf(credential: string): Access {
    const o = this.options;
    if (credential === o.apiKey || o.moreApiKeys?.includes(credential)) return 'manage';
    if (o.readOnlyApiKey !== undefined && credential === o.readOnlyApiKey) return 'read';
    if (o.expiredApiKey !== undefined && credential === o.expiredApiKey) return 'expired';
    return 'invalid';
  }

  /** The subset of the REST API the checker and js-client-rest's getCollections/versionInfo use. */
  private route(req: http.IncomingMessage, res: http.ServerResponse, access: Access): void {
    const p = pathOf(req);
    const method = req.method ?? 'GET';
    if (p === '/' && method === 'GET') {
      return sendJson(res, 200, {
        title: 'qdrant - vector search engine',
        version: this.options.version ?? '1.16.2',
        commit: '0123456789abcdef0123456789abcdef01234567',
      });
    }
    if ((p === '/healthz' || p.startsWith('/livez')) && method === 'GET') return send(res, 200, 'text/plain; charset=utf-8', 'healthz check passed');
    if (p.startsWith('/readyz') && method === 'GET') return send(res, 200, 'text/plain; charset=utf-8', 'all shards are ready');
    if (p === '/collections' && method === 'GET') {
      return ok(res, { collections: [...this.collections].map((name) => ({ name })) });
    }
    const m = /^\/collections\/([^/]+)(\/exists)?$/.exec(p);
    if (m) {
      const name = decodeURIComponent(m[1]);
      if (method !== 'GET' && access !== 'manage') {
        return sendJson(res, 403, { status: { error: 'Forbidden: Global manage access is required' }, time: 0.000002 });
      }
      if (m[2] && method === 'GET') return ok(res, { exists: this.collections.has(name) });
      if (m[2]) return send(res, 404, undefined, '');
      if (method === 'PUT') {
        this.collections.add(name);
        return ok(res, true);
      }
      if (method === 'DELETE') return ok(res, this.collections.delete(name));
      if (method === 'GET' && this.collections.has(name)) {
        return ok(res, { status: 'green', optimizer_status: 'ok', points_count: 0, segments_count: 1, config: {} });
      }
      return sendJson(res, 404, { status: { error: `Not found: Collection \`${name}\` doesn't exist!` }, time: 0.000001 });
    }
    return send(res, 404, undefined, '');
  }
}

function record(req: http.IncomingMessage, mode: StandInMode): RecordedRequest {
  return { method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers }, rawHeaders: [...req.rawHeaders], mode };
}

/** Path without query, trailing slashes trimmed (Qdrant's NormalizePath::trim runs before auth). */
function pathOf(req: http.IncomingMessage): string {
  const p = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
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
