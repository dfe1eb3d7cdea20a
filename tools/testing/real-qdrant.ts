/**
 * Real Qdrant servers for tests, one per version of this run (scripts/qdrant-servers.sh lists them
 * and builds each from source with `../shared/qdrant/build.sh`): one process per instance on free
 * ports of 127.0.0.1 (REST and gRPC), fresh storage in a temp dir, TLS with the test CA of the
 * stand-in, configured only through `QDRANT__…` environment variables.
 *
 *   describeRealQdrant('my suite', () => {
 *     test('…', async () => {
 *       const q = await RealQdrant.start({ apiKey, readOnlyApiKey, jwtRbac: true, collections: ['products'] });
 *       try { … q.restUrl, q.grpcUrl, q.caFile, q.version … } finally { await q.stop(); }
 *     });
 *   });
 *
 * {@link describeRealQdrant} runs its suite once per version, with the version in the title
 * (`my suite [qdrant 1.19.0]`), and `RealQdrant.start` starts that version's binary. A version
 * without a binary is skipped with the reason printed once per test file; under CI (`CI` set) it
 * fails instead. The binaries are found (and, the first time on a machine, built) while jest
 * collects the tests, outside any hook timeout. Give hooks that start servers a timeout of their
 * own: a start takes well under a second here, but `startTimeoutMs` is 60 s. Assertions take the
 * version from the server (`q.version`), never from a literal.
 *
 * Also here: the access-probe matrix of the Qdrant auth reference §9.2 (the side-effect-free REST and
 * gRPC probes and the credentials to send), shared by the real-server tests and the parity test
 * that runs it against both this server and the stand-in.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { collectionJwt, makeClaims, manageJwt, readJwt, signJwt } from './jwt';
import { atTestFileEnd, getTestCa } from './stand-in-qdrant';
import type { Variant } from './variants';
import { describeVariants } from './variants';
import { decodeHealthCheckReply, decodeListCollections, encodeEmpty, openGrpc } from '../../assets/checker/grpc';

const REPO = path.resolve(__dirname, '..', '..');
const SERVERS_SCRIPT = path.join(REPO, 'scripts', 'qdrant-servers.sh');
const DIR_PREFIX = 'qca-real-qdrant-';
const LOG_TAIL_LINES = 40;
const READY_POLL_MS = 50;

export interface RealQdrantOptions {
  /** The server to start. @default - the binary of the describeRealQdrant block that is running */
  readonly binary?: QdrantBinary;
  /** The manage (read-write) key, also the JWT secret. @default - no key: an open server */
  readonly apiKey?: string;
  /** The global read-only key. @default - none */
  readonly readOnlyApiKey?: string;
  /** Accept HS256 JWTs signed with `apiKey`. @default false */
  readonly jwtRbac?: boolean;
  /** HTTPS and gRPC over TLS with the test CA's server certificate for 127.0.0.1/localhost. @default true */
  readonly tls?: boolean;
  /** Collections created at start (4-dim Cosine vectors), each with `pointsPerCollection` points. @default [] */
  readonly collections?: readonly string[];
  /** @default 3 */
  readonly pointsPerCollection?: number;
  /** Bound on the wait for `GET /readyz`. @default 60000 */
  readonly startTimeoutMs?: number;
  /** Bound on the wait after SIGTERM before SIGKILL. @default 10000 */
  readonly stopTimeoutMs?: number;
  /** Where the instance's temp dir (`qca-real-qdrant-…`) is made. @default os.tmpdir() */
  readonly tmpDir?: string;
}

export interface HttpAnswer {
  readonly status: number;
  /** The `content-type` header; undefined when the server sent none. */
  readonly contentType: string | undefined;
  readonly body: string;
}

/** What a server holds, for "nothing changed" checks: read with the manage key. */
export interface QdrantState {
  /** Collection names, sorted. */
  readonly collections: readonly string[];
  /** `alias → collection` from `GET /aliases`, sorted by alias. */
  readonly aliases: readonly { readonly alias: string; readonly collection: string }[];
  /** Exact point count per collection. */
  readonly points: Readonly<Record<string, number>>;
}

// ---------------------------------------------------------------------------------------------
// Finding the binaries: one per Qdrant version the suites run against

/** A Qdrant server binary, and the version it says it is (`<binary> --version`). */
export interface QdrantBinary {
  readonly path: string;
  readonly version: string;
}

let variants: readonly Variant<QdrantBinary>[] | undefined;

/** The Qdrant binaries of this run, one variant per version (see {@link findQdrantBinaries}). Cached per process. */
export function qdrantVariants(): readonly Variant<QdrantBinary>[] {
  variants ??= findQdrantBinaries();
  return variants;
}

/**
 * Looks for the binaries, uncached: `QDRANT_BINS` from `env` (paths separated by `:`), else
 * `QDRANT_BIN` (one path), else every version that `serversScript --versions` lists, each from
 * `serversScript --build <version>` (instant when cached; a build of a missing version takes 6-10
 * minutes). A binary's label is `qdrant <version>`, the version from its `--version`; a path or a
 * version that cannot run here is a variant with the reason, in one line.
 */
export function findQdrantBinaries(env: NodeJS.ProcessEnv = process.env, serversScript: string = SERVERS_SCRIPT): Variant<QdrantBinary>[] {
  if (env.QDRANT_BINS) {
    const seen = new Set<string>();
    return env.QDRANT_BINS.split(path.delimiter).filter((p) => p !== '').map((p) => {
      const found = binaryAt(p, 'QDRANT_BINS');
      if (!found.value) return found;
      if (seen.has(found.value.version)) return { label: `${found.label} at ${p}`, unavailable: `QDRANT_BINS: ${p} is version ${found.value.version} again` };
      seen.add(found.value.version);
      return found;
    });
  }
  if (env.QDRANT_BIN) return [binaryAt(env.QDRANT_BIN, 'QDRANT_BIN')];
  let versions: string[];
  try {
    versions = run('bash', [serversScript, '--versions']).split('\n').filter((v) => v !== '');
  } catch (e) {
    return [{ label: 'qdrant', unavailable: `no QDRANT_BINS or QDRANT_BIN, and ${serversScript} --versions failed: ${lastLine(e)}` }];
  }
  return versions.map((version): Variant<QdrantBinary> => {
    let built: string;
    try {
      built = run('bash', [serversScript, '--build', version], 40 * 60_000).trim().split('\n').pop() ?? '';
    } catch (e) {
      return { label: `qdrant ${version}`, unavailable: `${serversScript} --build ${version} failed: ${lastLine(e)}` };
    }
    const found = binaryAt(built, `${serversScript} --build ${version}`);
    if (found.value && found.value.version !== version) {
      return { label: `qdrant ${version}`, unavailable: `${serversScript} --build ${version} printed ${built}, which says it is ${found.value.version}` };
    }
    return found.value ? found : { label: `qdrant ${version}`, unavailable: found.unavailable };
  });
}

/** The variant of the binary at `p` (named by `source` in a reason): its version from `--version`. */
function binaryAt(p: string, source: string): Variant<QdrantBinary> {
  if (!isExecutable(p)) return { label: `qdrant at ${p}`, unavailable: `${source}: ${p} is not an executable file` };
  let said: string;
  try {
    said = run(p, ['--version'], 30_000).trim();
  } catch (e) {
    return { label: `qdrant at ${p}`, unavailable: `${source}: ${p} --version failed: ${lastLine(e)}` };
  }
  const version = /^qdrant (\d+\.\d+\.\d+\S*)$/.exec(said)?.[1];
  if (!version) return { label: `qdrant at ${p}`, unavailable: `${source}: ${p} --version printed '${said.slice(0, 200)}', not 'qdrant <version>'` };
  return { label: `qdrant ${version}`, value: { path: p, version } };
}

function run(cmd: string, args: string[], timeout = 60_000): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout });
}

/** The last line of a failed command's stderr, else the first line of its error. */
function lastLine(e: unknown): string {
  const err = e as { stderr?: string; message: string };
  return (err.stderr ?? '').trim().split('\n').pop() || err.message.split('\n')[0];
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The binary of the describeRealQdrant block that is running (set by its first beforeAll). */
let current: QdrantBinary | undefined;

/**
 * `describe` for suites that need a real server: once per Qdrant version of this run
 * ({@link qdrantVariants}), titled `<name> [qdrant <version>]`. `fn` gets the block's binary, and
 * {@link RealQdrant.start} starts that binary by default inside the block. A version that cannot
 * run here is skipped with the reason printed once per test file; under CI (`CI` set) it fails
 * instead, so a broken setup cannot pass green.
 */
export function describeRealQdrant(name: string, fn: (qdrant: QdrantBinary) => void): void {
  describeVariants('real-Qdrant', qdrantVariants(), name, (qdrant) => {
    beforeAll(() => {
      current = qdrant;
    });
    afterAll(() => {
      current = undefined;
    });
    fn(qdrant);
  });
}

// ---------------------------------------------------------------------------------------------
// The server

const running = new Set<RealQdrant>();
// Last resort for a suite that forgot stop(): no orphan server, no temp dir left behind.
atTestFileEnd(() => {
  for (const q of running) q.killNow();
});

export class RealQdrant {
  /**
   * Starts a server on free loopback ports and waits until `GET /readyz` answers 200, then creates
   * the collections. Rejects with the log's tail when it does not start in time; nothing is left
   * running and the temp dir is removed in that case.
   */
  static async start(options: RealQdrantOptions = {}): Promise<RealQdrant> {
    const binary = options.binary ?? current;
    if (!binary) throw new Error('RealQdrant.start outside a describeRealQdrant block: pass options.binary (one of qdrantVariants())');
    const bin = binary.path;
    let lastError: Error | undefined;
    // Ports are found free and then closed; another process may take one before Qdrant binds it.
    for (let attempt = 0; attempt < 3; attempt++) {
      const q = new RealQdrant(bin, options, await freePorts(2));
      try {
        await q.waitReady(options.startTimeoutMs ?? 60_000);
        await q.seed();
        return q;
      } catch (e) {
        const addressInUse = /address already in use|AddrInUse/i.test(q.readLog());
        await q.stop();
        lastError = e as Error;
        if (!addressInUse) break;
      }
    }
    throw lastError!;
  }

  /** The temp dir: storage, snapshots, the TLS files and the log. Removed by stop(). */
  readonly dir: string;
  /** The server's stdout and stderr. */
  readonly logFile: string;
  readonly restPort: number;
  readonly grpcPort: number;
  /** `https://127.0.0.1:<port>` (`http://` with `tls: false`). */
  readonly restUrl: string;
  /** `https://127.0.0.1:<port>` of the gRPC port (`http://` with `tls: false`). */
  readonly grpcUrl: string;
  /** The PEM of the CA that signed the server certificate; undefined with `tls: false`. */
  readonly caFile: string | undefined;
  /** The collections created at start and the points in each. */
  readonly seeded: Readonly<Record<string, number>>;

  private readonly child: ChildProcess;
  private readonly ca: Buffer | undefined;
  private readonly exited: Promise<void>;
  private hasExited = false;
  private stopped?: Promise<void>;
  private serverVersion = '';

  private constructor(bin: string, private readonly options: RealQdrantOptions, [restPort, grpcPort]: number[]) {
    this.dir = fs.mkdtempSync(path.join(options.tmpDir ?? os.tmpdir(), DIR_PREFIX));
    this.logFile = path.join(this.dir, 'qdrant.log');
    this.restPort = restPort;
    this.grpcPort = grpcPort;
    const useTls = options.tls ?? true;
    const scheme = useTls ? 'https' : 'http';
    this.restUrl = `${scheme}://127.0.0.1:${restPort}`;
    this.grpcUrl = `${scheme}://127.0.0.1:${grpcPort}`;
    const n = options.pointsPerCollection ?? 3;
    this.seeded = Object.fromEntries((options.collections ?? []).map((c) => [c, n]));

    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) {
      // Nothing from the caller's environment configures this server, and no config file is read
      // (cwd is the temp dir, which has no config/ folder).
      if (!/^QDRANT/i.test(k) && k !== 'RUN_MODE') env[k] = v;
    }
    Object.assign(env, {
      QDRANT__SERVICE__HOST: '127.0.0.1',
      QDRANT__SERVICE__HTTP_PORT: String(restPort),
      QDRANT__SERVICE__GRPC_PORT: String(grpcPort),
      QDRANT__SERVICE__ENABLE_STATIC_CONTENT: 'false',
      QDRANT__SERVICE__MAX_WORKERS: '2',
      QDRANT__CLUSTER__ENABLED: 'false',
      QDRANT__STORAGE__STORAGE_PATH: path.join(this.dir, 'storage'),
      QDRANT__STORAGE__SNAPSHOTS_PATH: path.join(this.dir, 'snapshots'),
      QDRANT__STORAGE__TEMP_PATH: path.join(this.dir, 'tmp'),
      QDRANT__STORAGE__WAL__WAL_CAPACITY_MB: '1',
      QDRANT__TELEMETRY_DISABLED: 'true',
      QDRANT__LOG_LEVEL: 'INFO',
    });
    if (options.apiKey !== undefined) env.QDRANT__SERVICE__API_KEY = options.apiKey;
    if (options.readOnlyApiKey !== undefined) env.QDRANT__SERVICE__READ_ONLY_API_KEY = options.readOnlyApiKey;
    if (options.jwtRbac) env.QDRANT__SERVICE__JWT_RBAC = 'true';
    if (useTls) {
      const ca = getTestCa();
      const cert = path.join(this.dir, 'cert.pem');
      const key = path.join(this.dir, 'key.pem');
      fs.writeFileSync(cert, ca.serverCert);
      fs.writeFileSync(key, ca.serverKey, { mode: 0o600 });
      this.caFile = path.join(this.dir, 'ca.pem');
      fs.copyFileSync(ca.caFile, this.caFile);
      this.ca = fs.readFileSync(this.caFile);
      Object.assign(env, {
        QDRANT__SERVICE__ENABLE_TLS: 'true',
        QDRANT__TLS__CERT: cert,
        QDRANT__TLS__KEY: key,
        QDRANT__TLS__CA_CERT: this.caFile,
      });
    }

    const log = fs.openSync(this.logFile, 'a');
    try {
      this.child = spawn(bin, ['--disable-telemetry'], { cwd: this.dir, env, stdio: ['ignore', log, log] });
    } finally {
      fs.closeSync(log);
    }
    this.exited = new Promise((resolve) => {
      this.child.once('exit', () => {
        this.hasExited = true;
        resolve();
      });
      this.child.once('error', () => {
        this.hasExited = true;
        resolve();
      });
    });
    running.add(this);
  }

  /** The server's version from `GET /`, e.g. `1.19.0`. */
  get version(): string {
    return this.serverVersion;
  }

  /** The manage key this server was started with (undefined for an open server). */
  get apiKey(): string | undefined {
    return this.options.apiKey;
  }

  /** Whether the process is still running. */
  get alive(): boolean {
    return !this.hasExited;
  }

  /** One REST request; `key` goes into `api-key` (use `headers` for anything else). */
  request(method: string, p: string, opts: { key?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<HttpAnswer> {
    const headers: Record<string, string> = { ...(opts.key === undefined ? {} : { 'api-key': opts.key }), ...opts.headers };
    return httpRequest(this.restUrl, this.ca, method, p, headers, opts.body);
  }

  /** Collections, aliases and exact point counts, read with the manage key. */
  async snapshotState(): Promise<QdrantState> {
    const list = await this.expectOk<{ collections: { name: string }[] }>('GET', '/collections');
    // All aliases are listed by GET /aliases (GET /collections/aliases is read as a collection named "aliases": 404).
    const aliases = await this.expectOk<{ aliases: { alias_name: string; collection_name: string }[] }>('GET', '/aliases');
    const collections = list.collections.map((c) => c.name).sort();
    const points: Record<string, number> = {};
    for (const c of collections) {
      const r = await this.expectOk<{ count: number }>('POST', `/collections/${encodeURIComponent(c)}/points/count`, { exact: true });
      points[c] = r.count;
    }
    return {
      collections,
      aliases: aliases.aliases.map((a) => ({ alias: a.alias_name, collection: a.collection_name })).sort((a, b) => a.alias.localeCompare(b.alias)),
      points,
    };
  }

  /** The last lines of the server's log, with the configured keys masked. */
  logTail(lines = LOG_TAIL_LINES): string {
    return this.readLog().trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** SIGTERM, SIGKILL after `stopTimeoutMs`, then removes the temp dir. Safe to call twice. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      if (!this.hasExited) {
        this.child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const timedOut = await Promise.race([
          this.exited.then(() => false),
          new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), this.options.stopTimeoutMs ?? 10_000))),
        ]);
        clearTimeout(timer);
        if (timedOut) {
          this.child.kill('SIGKILL');
          await this.exited;
        }
      }
      running.delete(this);
      fs.rmSync(this.dir, { recursive: true, force: true });
    })();
    return this.stopped;
  }

  /** @internal Synchronous kill and cleanup, for the end of the test file or process. */
  killNow(): void {
    if (!this.hasExited) this.child.kill('SIGKILL');
    running.delete(this);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private readLog(): string {
    let text: string;
    try {
      text = fs.readFileSync(this.logFile, 'utf8');
    } catch {
      return '';
    }
    for (const k of [this.options.apiKey, this.options.readOnlyApiKey]) {
      if (k) text = text.split(k).join('[redacted]');
    }
    return text;
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (this.hasExited) {
        throw new Error(`qdrant exited before it was ready (exit code ${String(this.child.exitCode)}); log tail:\n${this.logTail()}`);
      }
      try {
        const r = await httpRequest(this.restUrl, this.ca, 'GET', '/readyz', {}, undefined, 2_000);
        if (r.status === 200) {
          const root = JSON.parse((await httpRequest(this.restUrl, this.ca, 'GET', '/', {})).body) as { version: string };
          this.serverVersion = root.version;
          return;
        }
        last = `GET /readyz answered ${r.status}`;
      } catch (e) {
        last = (e as Error).message;
      }
      await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
    }
    throw new Error(`qdrant was not ready within ${timeoutMs} ms (${last}); log tail:\n${this.logTail()}`);
  }

  private async seed(): Promise<void> {
    for (const [c, n] of Object.entries(this.seeded)) {
      const name = encodeURIComponent(c);
      await this.expectOk('PUT', `/collections/${name}`, { vectors: { size: 4, distance: 'Cosine' } });
      if (n > 0) {
        const points = Array.from({ length: n }, (_, i) => ({ id: i + 1, vector: [1, i + 1, 0.5, 0.25], payload: { n: i + 1 } }));
        await this.expectOk('PUT', `/collections/${name}/points?wait=true`, { points });
      }
    }
  }

  private async expectOk<T>(method: string, p: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = this.options.apiKey === undefined ? {} : { 'api-key': this.options.apiKey };
    const r = await httpRequest(this.restUrl, this.ca, method, p, headers, body);
    if (r.status !== 200) throw new Error(`${method} ${p} answered ${r.status}: ${r.body.slice(0, 300)}`);
    return (JSON.parse(r.body) as { result: T }).result;
  }
}

/** Free TCP ports on 127.0.0.1: all bound at once (so they differ), then closed. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: count }, () => new Promise<net.Server>((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve(s));
  })));
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}

/** One HTTP(S) request without keep-alive; `body` is sent as JSON. */
export function httpRequest(
  base: string, ca: Buffer | string | undefined, method: string, p: string,
  headers: Record<string, string>, body?: unknown, timeoutMs = 10_000,
): Promise<HttpAnswer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const allHeaders = { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) };
  const mod = base.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(`${base}${p}`, { method, headers: allHeaders, agent: false, ...(ca ? { ca } : {}), timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode!, contentType: res.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${p}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

// ---------------------------------------------------------------------------------------------
// The access-probe matrix (the Qdrant auth reference §9.2): what the real-server tests assert and
// what the parity test compares between this server and the stand-in

/** Where to send the probes. Both RealQdrant and StandInQdrant fit. */
export interface ProbeTarget {
  readonly restUrl?: string;
  readonly url?: string;
  readonly grpcUrl: string;
  readonly caFile?: string;
}

/**
 * What Qdrant (each version the tests run: scripts/qdrant-servers.sh) makes of a credential (with
 * `jwt_rbac` on): global manage or read access, access to one collection (read, or read-write), or
 * the auth layer's rejection.
 */
export type ExpectedGrant =
  | 'manage'
  | 'read'
  | { readonly collection: string; readonly write: boolean }
  | { readonly status: 401 | 403; readonly text: string };

/** A named way to present a credential: REST headers, which are also the gRPC metadata. */
export interface ProbeCredential {
  readonly name: string;
  readonly headers: Readonly<Record<string, string>>;
  /** What a server with both keys and `jwt_rbac` on grants it. */
  readonly grant: ExpectedGrant;
}

export interface RestProbe {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  /** Which probe of §9.2 this is. */
  readonly kind: 'aliases' | 'exists' | 'delete' | 'list';
  /** The collection it asks about (`exists`, `delete`). */
  readonly collection?: string;
}

/** A REST answer with the `time` field removed and collection lists sorted, for comparison. */
export interface RestProbeAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  /** Parsed JSON (without `time`), or the text. */
  readonly body: unknown;
}

export interface GrpcProbeAnswer {
  readonly grpcStatus: number;
  readonly grpcMessage: string;
  readonly trailersOnly: boolean;
  readonly contentType: string;
  /** HealthCheck: `{title, version}` (commit left out: the real build has none); List: sorted names. */
  readonly result?: unknown;
}

export interface MatrixRow<A> {
  readonly probe: string;
  readonly credential: string;
  readonly answer: A;
}

/** The collection a missing-collection probe names. */
export const MISSING_COLLECTION = 'missing-collection';
export const GRPC_PROBES = ['/qdrant.Qdrant/HealthCheck', '/qdrant.Collections/List'] as const;
const MISSING_TEXT = 'Must provide an API key or an Authorization bearer token';
const INVALID_TEXT = 'Invalid API key or JWT';

/**
 * The credentials of the matrix: the two static keys, JWTs (global r and m; `scoped` with r and
 * with rw; expired an hour ago; expired 10 s ago, inside the 30 s leeway; signed with another
 * secret), a wrong key, no key, and the manage key as `Authorization: Bearer`.
 */
export function probeCredentials(manageKey: string, readOnlyKey: string, scoped: string): ProbeCredential[] {
  const apiKey = (value: string) => ({ 'api-key': value });
  return [
    { name: 'manage key', headers: apiKey(manageKey), grant: 'manage' },
    { name: 'read-only key', headers: apiKey(readOnlyKey), grant: 'read' },
    { name: 'JWT r', headers: apiKey(readJwt(manageKey)), grant: 'read' },
    { name: 'JWT m', headers: apiKey(manageJwt(manageKey)), grant: 'manage' },
    { name: `JWT ${scoped} r`, headers: apiKey(collectionJwt(manageKey, [{ collection: scoped, access: 'r' }])), grant: { collection: scoped, write: false } },
    { name: `JWT ${scoped} rw`, headers: apiKey(collectionJwt(manageKey, [{ collection: scoped, access: 'rw' }])), grant: { collection: scoped, write: true } },
    { name: 'JWT r expired 1 h ago', headers: apiKey(readJwt(manageKey, -3600)), grant: { status: 403, text: 'ExpiredSignature' } },
    { name: 'JWT r expired 10 s ago (leeway)', headers: apiKey(readJwt(manageKey, -10)), grant: 'read' },
    {
      name: 'JWT r, bad signature',
      headers: apiKey(signJwt(`not-${manageKey}`, makeClaims({ access: 'r', expiresIn: 3600 }))),
      grant: { status: 403, text: 'InvalidSignature' },
    },
    { name: 'wrong key', headers: apiKey('wrong-key-0123456789'), grant: { status: 401, text: INVALID_TEXT } },
    { name: 'no key', headers: {}, grant: { status: 401, text: MISSING_TEXT } },
    { name: 'manage key as Bearer', headers: { authorization: `Bearer ${manageKey}` }, grant: 'manage' },
  ];
}

/** The same credentials for a server with keys but `jwt_rbac` off: every JWT is 401 `Invalid API key or JWT`. */
export function withoutJwtRbac(credentials: readonly ProbeCredential[]): ProbeCredential[] {
  return credentials.map((c) => (c.name.startsWith('JWT') ? { ...c, grant: { status: 401, text: INVALID_TEXT } } : c));
}

/** The same credentials for a server without any key: everything, no key included, may manage. */
export function onOpenServer(credentials: readonly ProbeCredential[]): ProbeCredential[] {
  return credentials.map((c) => ({ ...c, grant: 'manage' }));
}

/** The side-effect-free REST probes about collection `c` and `other` (and a missing one), plus the list. */
export function restProbes(c: string, other: string): RestProbe[] {
  const name = encodeURIComponent;
  return [
    { name: 'POST /collections/aliases {"actions":[]}', method: 'POST', path: '/collections/aliases', body: { actions: [] }, kind: 'aliases' },
    ...[c, other, MISSING_COLLECTION].map((x): RestProbe => ({
      name: `GET /collections/${x}/exists`, method: 'GET', path: `/collections/${name(x)}/exists`, kind: 'exists', collection: x,
    })),
    ...[c, other, MISSING_COLLECTION].map((x): RestProbe => ({
      name: `POST /collections/${x}/points/delete {"points":[]}`,
      method: 'POST',
      path: `/collections/${name(x)}/points/delete`,
      body: { points: [] },
      kind: 'delete',
      collection: x,
    })),
    { name: 'GET /collections', method: 'GET', path: '/collections', kind: 'list' },
  ];
}

/**
 * What Qdrant (each version the tests run) answers to `probe` for a credential with `grant`, as measured (the auth
 * reference §9 and test/real-qdrant): auth-layer rejections are plain text without content-type;
 * access denials 403 JSON. `points/delete` checks, in order: the collection is in a scoped
 * token's reach (403), it exists (404, also for a global read-only key), write access (403), and
 * then the empty selection is 400 `Bad request: Empty update request`.
 */
export function expectedRestAnswer(grant: ExpectedGrant, probe: RestProbe, existing: readonly string[]): RestProbeAnswer {
  const json = (status: number, body: unknown): RestProbeAnswer => ({ status, contentType: 'application/json', body });
  const result = (r: unknown) => json(200, { result: r, status: 'ok' });
  const forbidden = (m: string) => json(403, { status: { error: `Forbidden: ${m}` } });
  if (typeof grant === 'object' && 'status' in grant) return { status: grant.status, contentType: undefined, body: grant.text };
  const scoped = typeof grant === 'object' ? grant : undefined;
  const inReach = (x: string) => scoped === undefined || scoped.collection === x;
  const x = probe.collection ?? '';
  switch (probe.kind) {
    case 'aliases':
      if (grant === 'manage') return result(true);
      return forbidden(scoped ? 'Global access is required' : 'Global manage access is required');
    case 'exists':
      return inReach(x) ? result({ exists: existing.includes(x) }) : forbidden(`Access to collection ${x} is required`);
    case 'delete':
      if (!inReach(x)) return forbidden(`Access to collection ${x} is required`);
      if (!existing.includes(x)) return json(404, { status: { error: `Not found: Collection \`${x}\` doesn't exist!` } });
      if (scoped ? !scoped.write : grant !== 'manage') {
        return forbidden(scoped ? `Write access to collection ${x} is required` : 'Global manage access is required');
      }
      return json(400, { status: { error: 'Bad request: Empty update request' } });
    case 'list':
      return result({ collections: existing.filter(inReach).sort().map((n) => ({ name: n })) });
  }
}

/**
 * What Qdrant (each version the tests run) answers over gRPC: HealthCheck is served to anyone; List answers the (filtered)
 * names; auth-layer rejections are trailers-only, 16 (UNAUTHENTICATED) for the 401 texts and 7
 * (PERMISSION_DENIED) for `ExpiredSignature` / `InvalidSignature`.
 */
export function expectedGrpcAnswer(
  grant: ExpectedGrant, probe: typeof GRPC_PROBES[number], existing: readonly string[], version: string,
): GrpcProbeAnswer {
  const served = (result: unknown): GrpcProbeAnswer => ({ grpcStatus: 0, grpcMessage: '', trailersOnly: false, contentType: 'application/grpc', result });
  if (probe === '/qdrant.Qdrant/HealthCheck') return served({ title: 'qdrant - vector search engine', version });
  if (typeof grant === 'object' && 'status' in grant) {
    return { grpcStatus: grant.status === 401 ? 16 : 7, grpcMessage: grant.text, trailersOnly: true, contentType: 'application/grpc', result: undefined };
  }
  return served(existing.filter((n) => typeof grant !== 'object' || grant.collection === n).sort());
}

/** The expected rows of {@link runRestMatrix}, in its order. */
export function expectedRestMatrix(
  credentials: readonly ProbeCredential[], probes: readonly RestProbe[], existing: readonly string[],
): MatrixRow<RestProbeAnswer>[] {
  return probes.flatMap((p) => credentials.map((c) => ({
    probe: p.name, credential: c.name, answer: expectedRestAnswer(c.grant, p, existing),
  })));
}

/** The expected rows of {@link runGrpcMatrix}, in its order. */
export function expectedGrpcMatrix(
  credentials: readonly ProbeCredential[], existing: readonly string[], version: string,
): MatrixRow<GrpcProbeAnswer>[] {
  return GRPC_PROBES.flatMap((p) => credentials.map((c) => ({
    probe: p, credential: c.name, answer: expectedGrpcAnswer(c.grant, p, existing, version),
  })));
}

/** Sends every probe with every credential, one at a time. */
export async function runRestMatrix(
  target: ProbeTarget, credentials: readonly ProbeCredential[], probes: readonly RestProbe[],
): Promise<MatrixRow<RestProbeAnswer>[]> {
  const base = target.restUrl ?? target.url!;
  const ca = target.caFile ? fs.readFileSync(target.caFile) : undefined;
  const rows: MatrixRow<RestProbeAnswer>[] = [];
  for (const probe of probes) {
    for (const credential of credentials) {
      const a = await httpRequest(base, ca, probe.method, probe.path, { ...credential.headers }, probe.body);
      rows.push({ probe: probe.name, credential: credential.name, answer: normalizeRest(a) });
    }
  }
  return rows;
}

/** Calls HealthCheck and Collections/List with every credential as metadata. */
export async function runGrpcMatrix(target: ProbeTarget, credentials: readonly ProbeCredential[]): Promise<MatrixRow<GrpcProbeAnswer>[]> {
  const secureContext = target.caFile ? tls.createSecureContext({ ca: fs.readFileSync(target.caFile) }) : undefined;
  const client = openGrpc(target.grpcUrl, { secureContext, timeoutMs: 10_000 });
  const rows: MatrixRow<GrpcProbeAnswer>[] = [];
  try {
    for (const probe of GRPC_PROBES) {
      for (const credential of credentials) {
        const a = await client.call(probe, { metadata: credential.headers, message: encodeEmpty() });
        let result: unknown;
        if (a.grpcStatus === 0 && probe === '/qdrant.Qdrant/HealthCheck') {
          const h = decodeHealthCheckReply(a.messages[0]);
          result = { title: h.title, version: h.version };
        } else if (a.grpcStatus === 0) {
          result = decodeListCollections(a.messages[0]).sort();
        }
        rows.push({
          probe: probe,
          credential: credential.name,
          answer: { grpcStatus: a.grpcStatus, grpcMessage: a.grpcMessage, trailersOnly: a.trailersOnly, contentType: a.contentType, result },
        });
      }
    }
  } finally {
    await client.close();
  }
  return rows;
}

/** Drops `time` (it differs on every answer) and sorts `result.collections` (the server's order is its own). */
export function normalizeRest(a: HttpAnswer): RestProbeAnswer {
  let body: unknown = a.body;
  if (a.contentType?.startsWith('application/json')) {
    const parsed = JSON.parse(a.body) as Record<string, unknown>;
    delete parsed.time;
    // GET /: a release build also names its git commit; one built from source (as here) has none.
    if (typeof parsed.title === 'string' && typeof parsed.version === 'string') delete parsed.commit;
    const result = parsed.result as { collections?: { name: string }[] } | undefined;
    if (result && Array.isArray(result.collections)) {
      result.collections = [...result.collections].sort((x, y) => x.name.localeCompare(y.name));
    }
    body = parsed;
  }
  return { status: a.status, contentType: a.contentType, body };
}
