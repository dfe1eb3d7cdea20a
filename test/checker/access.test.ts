/**
 * The access step (assets/checker/probes.ts, run by steps.ts) against the stand-in when things go
 * wrong on one probe: a 5xx that is retried, a redirect, a probe that never answers (timeout and
 * deadline), an answer no Qdrant gives. The faults are put on single probes by a small HTTPS proxy
 * in front of the stand-in (the stand-in's own modes act on every request, and GET / would fail
 * first). A key scoped to collections beyond the declared ones, as the server lists them (the
 * proxy answers the keyed `GET /collections`) or as its token names them. Then the CLI:
 * --allow-excess-access turns excess into a warning line, contradictory
 * declarations are usage errors, and NODE_TLS_REJECT_UNAUTHORIZED=0 does not make it trust a
 * certificate, over REST or gRPC. The verdicts themselves are in test/real-qdrant/verdicts.test.ts.
 */
import * as fs from 'node:fs';
import type * as http from 'node:http';
import { checkClusterAccess, formatReport, formatWarnings } from '../../assets/checker';
import type * as Checker from '../../assets/checker';
import { collectionJwt } from '../../tools/testing/jwt';
import { runNode } from '../../tools/testing/run-node';
import { canaryKey, carriesKey, createTestCa, forwardTo, LoopbackServer, StandInQdrant } from '../../tools/testing/stand-in-qdrant';


const CLI = `${__dirname}/../../assets/checker/cli.js`;
const KEY = canaryKey();
const TIMEOUT_FIX = '; check that this machine may reach the cluster directly (the check does not use HTTPS_PROXY); raise healthCheck.timeoutSeconds (--timeout) for slow links';
const UNEXPECTED_FIX = '; check the cluster\'s status in the console and the address; run the check again';
const READ_ONLY_KEY = canaryKey('canary-ro');
const SCOPED = collectionJwt(KEY, [{ collection: 'products', access: 'rw' }]);
const SECRETS = [KEY, READ_ONLY_KEY, SCOPED];
const FAST = { retries: 3, backoffBaseMs: 10, backoffCapMs: 50, timeoutSeconds: 2, deadlineSeconds: 10 };

const ALIASES = 'POST /collections/aliases';
const DELETE_PRODUCTS = 'POST /collections/products/points/delete';

/** What the proxy does with one request: pass it on, answer it itself, or never answer. */
type Fault = 'forward' | 'hang' | { status: number; headers?: Record<string, string>; body?: string };

/**
 * An HTTPS proxy (the test CA's certificate) in front of the stand-in. `rules` maps
 * `METHOD /path` to the faults for its 1st, 2nd, … request (then `forward`); a rule for
 * `METHOD /path +key` acts only on the requests that carry a key. Records what it got.
 */
class FaultProxy {
  static async start(upstream: StandInQdrant): Promise<FaultProxy> {
    const p = new FaultProxy(upstream);
    p.server = await LoopbackServer.start('https', (req, res) => p.handle(req, res));
    return p;
  }

  readonly seen: { route: string; apiKey: boolean }[] = [];
  rules: Record<string, Fault[]> = {};
  private server!: LoopbackServer;
  private readonly counts = new Map<string, number>();

  private constructor(private readonly upstream: StandInQdrant) {}

  get url(): string {
    return this.server.url;
  }

  reset(rules: Record<string, Fault[]> = {}): void {
    this.rules = rules;
    this.counts.clear();
    this.seen.length = 0;
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const route = `${req.method} ${(req.url ?? '/').split('?')[0]}`;
    const apiKey = req.headers['api-key'] !== undefined || req.headers.authorization !== undefined;
    this.seen.push({ route, apiKey });
    const rule = apiKey && this.rules[`${route} +key`] ? `${route} +key` : route;
    const n = (this.counts.get(rule) ?? 0) + 1;
    this.counts.set(rule, n);
    const fault = this.rules[rule]?.[n - 1] ?? 'forward';
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      if (fault === 'hang') return;
      if (fault !== 'forward') {
        res.writeHead(fault.status, fault.headers ?? {});
        res.end(fault.body ?? '');
        return;
      }
      forwardTo(this.upstream, req, res, Buffer.concat(chunks));
    });
  }
}

let s: StandInQdrant;
let proxy: FaultProxy;

beforeAll(async () => {
  s = await StandInQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, jwtRbac: true });
  proxy = await FaultProxy.start(s);
});
afterAll(async () => {
  await proxy.stop();
  await s.stop();
});
beforeEach(() => {
  s.setMode('normal');
  s.requests.length = 0;
  s.grpcRequests.length = 0;
  s.otherOrigin.requests.length = 0;
  proxy.reset();
});

async function check(options: Partial<Checker.CheckOptions>): Promise<Checker.CheckReport> {
  const r = await checkClusterAccess({ url: proxy.url, caFile: s.caFile, apiKey: KEY, label: 'app → prod', ...FAST, ...options });
  const text = JSON.stringify(r) + formatReport(r) + formatWarnings(r).join('\n');
  expect(SECRETS.some((k) => text.includes(k))).toBe(false);
  return r;
}

const stepOf = (r: Checker.CheckReport, name: Checker.StepName) => r.steps.find((x) => x.name === name);

describe('what the access step sends', () => {
  test('collections access: the probes of probes.ts, each with the key, and no write', async () => {
    const r = await check({ apiKey: SCOPED, access: 'collections', writeCollections: ['products'] });
    expect(r).toMatchObject({ ok: true, access: { declared: 'collections', readCollections: [], writeCollections: ['products'], excess: [] } });
    expect(stepOf(r, 'access')).toMatchObject({ ok: true, attempts: 4, message: 'access to 1 collection as declared' });
    const probes = s.requests.filter((q) => q.path !== '/' && (q.path !== '/collections' || carriesKey(q)));
    expect(probes.map((q) => `${q.method} ${q.path.replace(/probe-[0-9a-f]+/, 'probe-<random>')}`).sort()).toEqual([
      'GET /collections', // the key step's
      'GET /collections', // the access step's: which collections the key reaches
      'GET /collections/qdrant-cluster-access-probe-<random>/exists',
      ALIASES,
      DELETE_PRODUCTS,
    ]);
    expect(probes.every((q) => q.headers['api-key'] === SCOPED && q.headers.authorization === undefined)).toBe(true);
  });

  test('no declared access: no access step, no probe', async () => {
    const r = await check({});
    expect(r.steps.map((x) => x.name)).toEqual(['root', 'key', 'enforced']);
    expect(s.requests.map((q) => q.path).sort()).toEqual(['/', '/collections', '/collections']);
  });
});

describe('faults on one probe', () => {
  test('a 503 on the alias probe is retried; the check passes', async () => {
    proxy.reset({ [ALIASES]: [{ status: 503, headers: { 'content-type': 'text/plain' }, body: 'Service Unavailable' }] });
    const r = await check({ access: 'manage' });
    expect(r.ok).toBe(true);
    expect(stepOf(r, 'access')).toMatchObject({ ok: true, attempts: 2, message: 'manage access as declared' });
    expect(proxy.seen.filter((x) => x.route === ALIASES)).toHaveLength(2);
    expect(s.requests.filter((q) => q.path === '/collections/aliases')).toHaveLength(1);
  });

  test('a 5xx that outlasts the retries: unexpected answer in step access, naming the probe and the attempts', async () => {
    const unavailable = { status: 502, headers: { 'content-type': 'text/html' }, body: '<html><head><title>502 Bad Gateway</title></head></html>' };
    proxy.reset({ [DELETE_PRODUCTS]: [unavailable, unavailable, unavailable] });
    const r = await check({ apiKey: SCOPED, access: 'collections', writeCollections: ['products'], retries: 2 });
    expect(r).toMatchObject({
      ok: false,
      failedStep: 'access',
      failureId: 'unexpected-answer',
      reason: `unexpected answer to POST /collections/products/points/delete: 502 HTML page "502 Bad Gateway" after 3 attempts${UNEXPECTED_FIX}`,
    });
    expect(proxy.seen.filter((x) => x.route === DELETE_PRODUCTS)).toHaveLength(3);
    // The other steps passed: the key works, it is the probe that got no real answer.
    expect(r.steps.filter((x) => !x.ok).map((x) => x.name)).toEqual(['access']);
  });

  test('a 429 with Retry-After on a probe is waited out and retried', async () => {
    proxy.reset({ [ALIASES]: [{ status: 429, headers: { 'retry-after': '0' }, body: '' }] });
    const r = await check({ access: 'read-only', apiKey: READ_ONLY_KEY });
    expect(r.ok).toBe(true);
    expect(proxy.seen.filter((x) => x.route === ALIASES)).toHaveLength(2);
  });

  test.each([301, 303, 307, 308])('a redirect (%i) on a probe fails the step and is not followed: the key goes nowhere else', async (status) => {
    const location = `${s.otherOrigin.url}/collections/products/points/delete`;
    proxy.reset({ [DELETE_PRODUCTS]: [{ status, headers: { location } }] });
    const r = await check({ apiKey: SCOPED, access: 'collections', writeCollections: ['products'] });
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'redirect' });
    expect(r.reason).toBe(`redirected (${status}) to ${s.otherOrigin.url} — not followed so the key is not sent elsewhere; use the final URL`);
    expect(stepOf(r, 'access')?.status).toBe(status);
    expect(s.otherOrigin.requests).toHaveLength(0);
    expect(proxy.seen.filter((x) => x.route === DELETE_PRODUCTS)).toHaveLength(1); // a redirect is not retried
  });

  test('a probe that never answers: each attempt times out, then the deadline ends the check', async () => {
    proxy.reset({ [ALIASES]: ['hang', 'hang', 'hang', 'hang'] });
    const r = await check({ access: 'manage', timeoutSeconds: 1, deadlineSeconds: 2, retries: 3 });
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'deadline' });
    expect(r.reason).toMatch(/^overall deadline of 2 s reached after \d attempts?; check the network and the cluster's status; /);
    // The steps that had their answers passed.
    expect(r.steps.filter((x) => x.ok).map((x) => x.name)).toEqual(['root', 'key', 'enforced']);
  });

  // Not a speed test: the deadline is a promise to the user (a deploy never waits longer). From a
  // mutation audit: the last attempt's timeout was not cut to the time left, and nothing noticed.
  test('the last attempt is cut short by the deadline, not given a whole timeout', async () => {
    proxy.reset({ [ALIASES]: ['hang', 'hang'] });
    const started = Date.now();
    const r = await check({ access: 'manage', timeoutSeconds: 3, deadlineSeconds: 4, retries: 1 });
    const ms = Date.now() - started;
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'deadline' });
    // A 3 s attempt, then one of the ~1 s left: about 4 s. A whole second timeout would take 6 s.
    expect(ms).toBeLessThan(5000);
  }, 15_000);

  test('a probe that never answers, without retries: a timeout', async () => {
    proxy.reset({ [ALIASES]: ['hang'] });
    const r = await check({ access: 'manage', timeoutSeconds: 1, retries: 0 });
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'timeout', reason: `no answer within 1 s (request timeout)${TIMEOUT_FIX}` });
  });

  test('an answer no Qdrant gives (a proxy\'s 404 on exists) is an unexpected answer, not "missing"', async () => {
    proxy.reset({ 'GET /collections/products/exists': [{ status: 404, headers: { 'content-type': 'text/plain' }, body: 'no route' }] });
    const r = await check({ access: 'read-only', apiKey: READ_ONLY_KEY, readCollections: ['products'] });
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'unexpected-answer', reason: `unexpected answer to GET /collections/products/exists: 404 no route${UNEXPECTED_FIX}` });
  });

  test('a 200 to exists that is not Qdrant\'s JSON is an unexpected answer', async () => {
    proxy.reset({ 'GET /collections/products/exists': [{ status: 200, headers: { 'content-type': 'text/html' }, body: '<html><title>Login</title></html>' }] });
    const r = await check({ access: 'any', readCollections: ['products'] });
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'unexpected-answer', reason: `unexpected answer to GET /collections/products/exists: 200 HTML page "Login"${UNEXPECTED_FIX}` });
  });

  test('a probe that echoes the key: the message is redacted', async () => {
    proxy.reset({ [ALIASES]: [{ status: 418, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: { error: `odd key ${KEY}` } }) }] });
    const r = await check({ access: 'manage' });
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'unexpected-answer', reason: `unexpected answer to POST /collections/aliases: 418 odd key [redacted]${UNEXPECTED_FIX}` });
  });
});

describe('collections access: a key that reaches undeclared collections', () => {
  const FIX = '; create a key limited to the declared collections, or declare them too';
  /** Qdrant's answer to the keyed `GET /collections`, listing `names`. */
  const listing = (names: string[]): Fault => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ result: { collections: names.map((name) => ({ name })) }, status: 'ok', time: 0.00001 }),
  });

  test('one the server lists: excess; with allowExcessAccess a warning line', async () => {
    proxy.reset({ 'GET /collections +key': [listing(['products', 'orders']), listing(['products', 'orders'])] });
    const r = await check({ apiKey: SCOPED, access: 'collections', writeCollections: ['products'] });
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'excess-collections', reason: `key has access to undeclared collections: "orders"${FIX}` });

    proxy.reset({ 'GET /collections +key': [listing(['products', 'orders']), listing(['products', 'orders'])] });
    const allowed = await check({ apiKey: SCOPED, access: 'collections', writeCollections: ['products'], allowExcessAccess: true });
    expect(allowed).toMatchObject({ ok: true, access: { excess: [`key has access to undeclared collections: "orders"${FIX}`] } });
    expect(formatWarnings(allowed)[0]).toBe(`warn app → prod  key has access to undeclared collections: "orders"${FIX} (allowed: allowExcessAccess)`);
  });

  test('the server\'s names are shown sorted, one line, clipped, five at most, never with the key', async () => {
    // A name with the key, or part of it in another case, is not shown at all.
    const names = ['products', 'n3', 'm'.repeat(300), 'n1', `col-${SCOPED}`, 'a\u202eb\nc', 'n2', `x-${SCOPED.slice(-20).toLowerCase()}`];
    proxy.reset({ 'GET /collections +key': [listing(names), listing(names)] });
    const r = await check({ apiKey: SCOPED, access: 'collections', writeCollections: ['products'] });
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'excess-collections' });
    const hidden = '(a name not shown: it holds part of the API key)';
    expect(r.reason).toBe(`key has access to undeclared collections: "a\\u202eb\\nc", ${hidden}, "${'m'.repeat(38)}…, "n1", "n2" and 2 more${FIX}`);
    const last = ['products', `x-${SCOPED.slice(-20).toLowerCase()}`];
    proxy.reset({ 'GET /collections +key': [listing(last), listing(last)] });
    const r2 = await check({ apiKey: SCOPED, access: 'collections', writeCollections: ['products'] });
    expect(r2.reason).toBe(`key has access to undeclared collections: ${hidden}${FIX}`);
  });

  test('one its token names that does not exist (yet): excess', async () => {
    const token = collectionJwt(KEY, [{ collection: 'products', access: 'rw' }, { collection: 'not-created-yet', access: 'r' }]);
    const r = await check({ apiKey: token, access: 'collections', writeCollections: ['products'] });
    const reason = 'key has access to undeclared collections: "not-created-yet" (not created yet); create it before the deploy and declare it too, ' +
      'or use a key without it, or allow excess access (healthCheck.allowExcessAccess, --allow-excess-access)';
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'excess-collections', reason });
    expect(r.collectionCount).toBe(1);
    expect(JSON.stringify(r)).not.toContain(token);
  });
});

// ---------------------------------------------------------------------------------------------
// The CLI

interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

async function runCli(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  const { code, stdout, stderr } = await runNode([CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
  expect(SECRETS.some((k) => stdout.includes(k) || stderr.includes(k))).toBe(false);
  return { code, stdout, stderr };
}

describe('CLI: declared access', () => {
  const base = () => ['check', '--url', s.url, '--grpc-url', s.grpcUrl, '--ca', s.caFile, '--label', 'search-api → prod-eu'];

  test('more access than declared fails; --allow-excess-access makes it a warning line', async () => {
    const strict = await runCli([...base(), '--access', 'read-only'], { QDRANT_API_KEY: KEY });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/^FAIL search-api → prod-eu {2}step access: key has manage access but is declared read-only \(200 ok to the empty alias batch\); create a key with only that access {2}\d+ ms\n$/);

    const allowed = await runCli([...base(), '--access', 'read-only', '--allow-excess-access'], { QDRANT_API_KEY: KEY });
    expect(allowed.code).toBe(0);
    expect(allowed.stderr).toBe('');
    expect(allowed.stdout.split('\n')).toEqual([
      expect.stringMatching(/^ok {3}search-api → prod-eu {2}qdrant 1\.16\.2 {2}key accepted, keys enforced, read-only as declared, gRPC ok {2}\d+ ms$/),
      'warn search-api → prod-eu  key has manage access but is declared read-only (200 ok to the empty alias batch); create a key with only that access (allowed: allowExcessAccess)',
      '',
    ]);
  });

  test('--allow-excess-access does not hide missing access', async () => {
    const r = await runCli([...base(), '--access', 'manage', '--allow-excess-access'], { QDRANT_API_KEY: READ_ONLY_KEY });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/step access: key cannot manage the cluster \(403 Forbidden: Global manage access is required\)/);
  });

  test('collection lists, and --json with the declared access and what was in excess', async () => {
    const r = await runCli([...base(), '--access', 'collections', '--read-collections', 'products', '--allow-excess-access', '--json'], { QDRANT_API_KEY: SCOPED });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Checker.CheckReport;
    expect(report).toMatchObject({
      ok: true,
      keyAccess: 'read-write on products',
      access: { declared: 'collections', readCollections: ['products'], writeCollections: [], excess: [expect.stringMatching(/^key can write collection "products"/)] },
      warnings: [expect.stringMatching(/^key can write collection "products".*\(allowed: allowExcessAccess\)$/), expect.stringMatching(/^key expires /)],
    });
  });

  test.each([
    [['--access', 'collections'], 'access collections needs --read-collections or --write-collections'],
    [['--access', 'read-only', '--write-collections', 'orders'], 'access read-only and write collections contradict each other'],
    [['--access', 'everything'], '--access must be one of any, read-only, manage, collections'],
    [['--access', 'collections', '--read-collections', 'a/b'], 'is not a collection name'],
    [['--access', 'collections', '--read-collections', 'products,orders,products'], 'readCollections lists "products" twice; list each collection once'],
    // Shown as its escape: refused for a zero-width space, it must not look like a plain name.
    [['--access', 'collections', '--read-collections', 'prod\u200bucts'], 'readCollections: "prod\\u200bucts" is not a collection name'],
    // A JWT (another key, say) is not a name: it would be probed in a URL and shown in the line.
    [['--access', 'collections', '--read-collections', 'eyJhbGciOiJIUzI1NiJ9.eyJhY2Nlc3MiOiJyIn0.c2ln'], 'is not a collection name (1-255 characters'],
  ])('usage error %p: exit 2, nothing sent', async (extra, message) => {
    const r = await runCli([...base(), ...extra], { QDRANT_API_KEY: KEY });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(s.requests.filter(carriesKey)).toHaveLength(0);
  });
});

describe('CLI: NODE_TLS_REJECT_UNAUTHORIZED=0 does not switch TLS verification off', () => {
  test('control: a plain Node client in the same environment is fooled by it', async () => {
    const script = 'require("https").get(process.argv[1] + "/", (res) => { console.log(res.statusCode); res.resume(); }).on("error", (e) => console.log(e.code));';
    const r = (await runNode(['-e', script, s.url], { env: { PATH: process.env.PATH ?? '', NODE_TLS_REJECT_UNAUTHORIZED: '0' } })).stdout.trim();
    expect(r).toBe('200');
  });

  test.each([
    ['no --ca', [] as string[]],
    ['--ca of another CA', ['another']],
  ])('REST and gRPC refuse the certificate (%s); the key is never sent', async (_name, ca) => {
    const other = ca.length > 0 ? createTestCa() : undefined;
    try {
      const r = await runCli(
        ['check', '--url', s.url, '--grpc-url', s.grpcUrl, '--access', 'manage', '--json', '--retries', '0', ...(other ? ['--ca', other.caFile] : [])],
        { QDRANT_API_KEY: KEY, NODE_TLS_REJECT_UNAUTHORIZED: '0' },
      );
      expect(r.code).toBe(1);
      const report = JSON.parse(r.stdout) as Checker.CheckReport;
      expect(report).toMatchObject({ ok: false, failedStep: 'root', failureId: 'tls-untrusted' });
      // enforced (no key) goes out with root, and fails the same way.
      expect(report.steps.map((x) => [x.name, x.ok])).toEqual([['root', false], ['enforced', false], ['grpc', false]]);
      expect(report.steps.find((x) => x.name === 'grpc')?.message).toMatch(/^TLS certificate not trusted: .*\(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/);
      // Nothing reached the servers: TLS failed before any request.
      expect(s.requests).toHaveLength(0);
      expect(s.grpcRequests).toHaveLength(0);
    } finally {
      if (other) fs.rmSync(other.dir, { recursive: true, force: true });
    }
  });
});

// Found by a mutation audit: these verdicts were guarded only by the real-Qdrant suites, which do
// not run without a Qdrant binary. The stand-in answers the probes as Qdrant 1.18.3 does (parity).
describe('access verdicts against the stand-in (no Qdrant binary needed)', () => {
  const READ_PRODUCTS = collectionJwt(KEY, [{ collection: 'products', access: 'r' }]);

  test('a key scoped to some collections, declared read-only (cluster-wide): no-global-read', async () => {
    const r = await check({ apiKey: SCOPED, access: 'read-only' });
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'no-global-read' });
  });

  test('a cluster-wide read-only key, declared for some collections: excess-global (a warning when allowed)', async () => {
    const r = await check({ apiKey: READ_ONLY_KEY, access: 'collections', readCollections: ['products'] });
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'excess-global' });
    const allowed = await check({ apiKey: READ_ONLY_KEY, access: 'collections', readCollections: ['products'], allowExcessAccess: true });
    expect(allowed.ok).toBe(true);
    expect(allowed.access?.excess).toEqual([expect.stringMatching(/^key has access to every collection/)]);
  });

  test('a key that may only read a collection declared read-write: collection-no-write', async () => {
    const r = await check({ apiKey: READ_PRODUCTS, access: 'collections', writeCollections: ['products'] });
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'collection-no-write' });
  });

  test('a 400 to the write probe that is not Qdrant\'s "Empty update request" (a proxy, a WAF): not taken for write access', async () => {
    proxy.reset({ [DELETE_PRODUCTS]: [{ status: 400, headers: { 'content-type': 'text/plain' }, body: 'Bad Request' }] });
    const r = await check({ apiKey: SCOPED, access: 'collections', writeCollections: ['products'] });
    expect(r).toMatchObject({ ok: false, failedStep: 'access', failureId: 'unexpected-answer' });
    proxy.reset({ [DELETE_PRODUCTS]: [{ status: 400, headers: { 'content-type': 'text/plain' }, body: 'Bad Request' }] });
    const ro = await check({ apiKey: READ_PRODUCTS, access: 'collections', readCollections: ['products'] });
    expect(ro).toMatchObject({ ok: false, failedStep: 'access', failureId: 'unexpected-answer' }); // not excess-write
  });

  test('an answer to the keyless GET /collections that is neither a refusal nor 200 (a proxy\'s 404): unexpected, not "open"', async () => {
    const fault: Fault = { status: 404, headers: { 'content-type': 'text/plain' }, body: 'no route' };
    for (const requireAuth of [true, false]) {
      proxy.reset({ 'GET /collections +key': ['forward'], 'GET /collections': [fault] });
      const r = await check({ requireAuth });
      expect(r).toMatchObject({ ok: false, failedStep: 'enforced', failureId: 'unexpected-answer' });
    }
  });
});
