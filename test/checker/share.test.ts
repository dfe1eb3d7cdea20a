/**
 * Connection sharing between check processes (`check --share-connections`, assets/checker/share.js),
 * with the real CLI in a copy of the runtime (as a stack holds one) against stand-ins:
 * - ten processes of ten keys, started together as Terraform starts them, make a few connections
 *   per cluster instead of ten; every key is still sent, each process prints its own key's lines;
 * - the key never crosses the socket (a test leader records what a follower sends);
 * - a leader never checks a value other than the follower's (the sha256 must match);
 * - a follower checks alone, with the same lines and errors, when the leader refuses, sends
 *   garbage, or is killed mid-check; a stale socket file is replaced;
 * - a directory that others may enter is not used, and a connection that sends nothing does not keep a
 *   leader running;
 * - in a leader's pool, one key's timeout or failed request is not another key's.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as Checker from '../../assets/checker';
import { copyRuntime, runNode, type NodeRun } from '../../tools/testing/run-node';
import { canaryKey, StandInQdrant } from '../../tools/testing/stand-in-qdrant';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { checkMany } = require('../../assets/checker/batch.js') as { checkMany: typeof Checker.checkMany };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ConnectionPool } = require('../../assets/checker/pool.js') as { ConnectionPool: new () => { close(): void } };

jest.setTimeout(120_000);

const KEYS = Array.from({ length: 10 }, (_, i) => canaryKey(`canary-share-${i}`));
const WRONG = canaryKey('canary-share-wrong');
const SECRETS = [...KEYS, WRONG];
/** Leaders at a time (one per core, up to 4). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SLOTS } = require('../../assets/checker/share.js') as { SLOTS: number };
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const variable = (i: number): string => `TF_VAR_qdrant_api_key_k${i}`;

let tmp: string;
let cli: string;
let shareDir: string;
let clusters: StandInQdrant[];
const outputs: string[] = [];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-share-'));
  const runtime = copyRuntime(tmp);
  cli = path.join(runtime, 'checker', 'cli.js');
  shareDir = path.join(runtime, '.share');
  // Slow answers: the processes started together are all still running when the last one starts.
  clusters = await Promise.all([0, 1, 2].map(() => StandInQdrant.start({ apiKey: KEYS[0], moreApiKeys: KEYS.slice(1), mode: 'slow', params: { slowMs: 400 } })));
});

afterAll(async () => {
  await Promise.all(clusters.map((c) => c.stop()));
  fs.rmSync(tmp, { recursive: true, force: true });
  // Belt and braces: nothing any run printed holds a key.
  expect(outputs.filter((o) => SECRETS.some((k) => o.includes(k)))).toEqual([]);
});

/** The environment Terraform gives key i's check: every key variable (Terraform's own environment), its grants and its key's sha256. */
function envOf(i: number, { keyValue = KEYS[i] }: { keyValue?: string } = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
  KEYS.forEach((k, j) => { env[variable(j)] = k; });
  env[variable(i)] = keyValue;
  env.QCA_KEY_SHA256 = sha256(keyValue);
  env.QCA_GRANTS = JSON.stringify(clusters.map((c, j) => ({ label: `k${i} → c${j}`, url: c.url, grpcUrl: c.grpcUrl })));
  return env;
}

function argsOf(i: number, ca = clusters[0].caFile): string[] {
  return [cli, 'check', '--grants-env', 'QCA_GRANTS', '--key-env', variable(i), '--key-sha256-env', 'QCA_KEY_SHA256', '--ca', ca, '--retries', '0', '--share-connections'];
}

function check(i: number, { ca = clusters[0].caFile, env = envOf(i) }: { ca?: string; env?: NodeJS.ProcessEnv } = {}): Promise<NodeRun> {
  return runNode(argsOf(i, ca), { env, cwd: tmp, outputs, deadlineMs: 60_000 });
}

const connections = (): number => clusters.reduce((n, c) => n + c.restConnections + c.grpcConnections, 0);
const okLines = (run: NodeRun): string[] => run.stdout.split('\n').filter((l) => l.startsWith('ok   '));
/** `ok   k1 → c0  qdrant …` → `ok k1 → c0`. */
const verdictOf = (line: string): string => line.replace(/^(ok|FAIL) +(.+?) {2}.*$/, '$1 $2');

const sockets = (): string[] => (fs.existsSync(shareDir) ? fs.readdirSync(shareDir).filter((f) => f.endsWith('.sock')) : []);

/**
 * Starts key 0's check (with `options`) until a leader listens on every slot (each process takes
 * its slot by its pid), so that a process started next is a follower whatever its pid. Resolves the runs.
 */
async function leadersOnEverySlot(options: Partial<Parameters<typeof runNode>[1]> = {}): Promise<Promise<NodeRun>[]> {
  const runs: Promise<NodeRun>[] = [];
  for (let started = 0; sockets().length < SLOTS; started++) {
    if (started === 4 * SLOTS + 8) throw new Error(`${started} processes made ${sockets().length} of ${SLOTS} leaders`);
    const seen = sockets().length;
    runs.push(runNode(argsOf(0), { env: envOf(0), cwd: tmp, outputs, deadlineMs: 60_000, ...options }));
    // Until it has led or joined: its socket, or a moment (a follower makes none).
    for (let i = 0; i < 20 && sockets().length === seen; i++) await new Promise((r) => setTimeout(r, 25));
  }
  return runs;
}

beforeEach(() => {
  fs.rmSync(shareDir, { recursive: true, force: true });
});

test('ten processes of ten keys share a few connections per cluster; every key is sent, each process prints its own lines', async () => {
  const before = connections();
  const keyed = clusters.map((c) => c.requests.length);
  const runs = await Promise.all(KEYS.map((_, i) => check(i)));
  runs.forEach((run, i) => {
    expect({ i, code: run.code, stderr: run.stderr }).toEqual({ i, code: 0, stderr: '' });
    // Its own three lines, no other key's.
    expect(run.stdout.trim().split('\n').map(verdictOf).sort()).toEqual([0, 1, 2].map((j) => `ok k${i} → c${j}`));
  });
  // Alone, ten processes make 2 connections per cluster each (60); sharing, one per leader and port.
  expect(connections() - before).toBeLessThanOrEqual(SLOTS * 2 * clusters.length);
  clusters.forEach((c, j) => {
    const requests = c.requests.slice(keyed[j]);
    // Every key was itself sent to every cluster (the key step), each in its own request.
    const sent = new Set(requests.filter((r) => r.path === '/collections').map((r) => r.headers['api-key']).filter(Boolean));
    expect(sent).toEqual(new Set(KEYS));
    // The requests without a key (root, enforced) are the same for every key: one per leader, not ten.
    expect(requests.filter((r) => r.path === '/' && !r.headers['api-key']).length).toBeLessThanOrEqual(SLOTS);
  });
  // The leaders removed their sockets.
  expect(fs.readdirSync(shareDir)).toEqual([]);
});

test('a leader checks only the value whose sha256 the follower holds: another value for the same variable is checked alone', async () => {
  // Key 1's process got a different value (another Terraform run, say): the leader, holding the
  // right one, must not check its own instead. Checked alone, the wrong value is rejected.
  const leaders = await leadersOnEverySlot();
  const odd = await check(1, { env: envOf(1, { keyValue: WRONG }) });
  expect(odd.code).toBe(1);
  expect(odd.stdout).toMatch(/^FAIL k1 → c0 {2}step key: key rejected/m);
  for (const run of await Promise.all(leaders)) expect(run.code).toBe(0);
});

/** A test leader on every slot's socket: records the lines it is sent, answers with `answer`. */
async function fakeLeader(answer: (socket: net.Socket) => void): Promise<{ received: string[]; close: () => Promise<void> }> {
  fs.mkdirSync(shareDir, { mode: 0o700 });
  const received: string[] = [];
  const servers = await Promise.all(Array.from({ length: SLOTS }, (_, slot) => new Promise<net.Server>((resolve) => {
    const server = net.createServer((socket) => {
      socket.setEncoding('utf8');
      let data = '';
      socket.on('data', (d: string) => {
        data += d;
        if (data.includes('\n')) {
          received.push(data);
          answer(socket);
        }
      });
    });
    server.listen(path.join(shareDir, `checks-${slot}.sock`), () => resolve(server));
  })));
  return { received, close: () => Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => undefined) };
}

test('the key never crosses the socket: a follower sends the variable\'s name and the sha256 Terraform gave it; refused, it checks alone', async () => {
  const leader = await fakeLeader((socket) => socket.end('{"refused":true}\n'));
  try {
    const run = await check(3);
    expect(run.code).toBe(0);
    expect(okLines(run)).toHaveLength(3);
    expect(leader.received).toHaveLength(1);
    const request = JSON.parse(leader.received[0]);
    expect(request).toMatchObject({ v: 1, keyEnv: variable(3), keySha256: sha256(KEYS[3]) });
    expect(SECRETS.some((k) => leader.received[0].includes(k))).toBe(false);
    expect(request.options.caFile).toBe(path.resolve(clusters[0].caFile));
  } finally {
    await leader.close();
  }
});

test('a leader that sends garbage, or goes away after part of the reports, leaves the rest to the follower', async () => {
  for (const reply of ['not json\n', '{"i":0,"report":{"ok":true,"label":"k4 → c0","steps":[],"warnings":[]}}\n']) {
    fs.rmSync(shareDir, { recursive: true, force: true });
    const leader = await fakeLeader((socket) => socket.end(reply));
    try {
      const run = await check(4);
      expect({ reply, code: run.code, stderr: run.stderr }).toEqual({ reply, code: 0, stderr: '' });
      // The report that came is printed as it came, and the two that did not are checked here.
      expect(run.stdout.trim().split('\n').map(verdictOf).sort()).toEqual(['ok k4 → c0', 'ok k4 → c1', 'ok k4 → c2']);
    } finally {
      await leader.close();
    }
  }
});

test('followers of a leader killed mid-check check their grants themselves', async () => {
  let kill: () => void = () => undefined;
  const killed = new Promise<void>((resolve) => { kill = resolve; });
  const leaders = await leadersOnEverySlot({ signalWhen: killed, signal: 'SIGKILL' });
  const followers = KEYS.slice(1, 5).map((_, n) => check(n + 1));
  await new Promise((r) => setTimeout(r, 250)); // they connect; the stand-ins answer after 400 ms
  kill();
  // (A process started early to find every slot may have finished before the kill.)
  for (const run of await Promise.all(leaders)) expect(run.signal === 'SIGKILL' || run.code === 0).toBe(true);
  expect((await Promise.all(leaders)).some((run) => run.signal === 'SIGKILL')).toBe(true);
  for (const [n, run] of (await Promise.all(followers)).entries()) {
    expect({ n, code: run.code, stderr: run.stderr }).toEqual({ n, code: 0, stderr: '' });
    expect(okLines(run)).toHaveLength(3);
  }
});

test('a stale socket file (a leader that was killed) is replaced', async () => {
  // A process that listens on every slot's path and is killed leaves the files behind.
  fs.mkdirSync(shareDir, { mode: 0o700 });
  const paths = Array.from({ length: SLOTS }, (_, slot) => path.join(shareDir, `checks-${slot}.sock`));
  const stale = await runNode(['-e', `const net = require('net'); let n = 0; for (const p of ${JSON.stringify(paths)}) net.createServer().listen(p, () => { if (++n === ${SLOTS}) process.kill(process.pid, 'SIGKILL'); });`]);
  expect(stale.signal).toBe('SIGKILL');
  expect(fs.readdirSync(shareDir).filter((f) => f.endsWith('.sock'))).toHaveLength(SLOTS);
  const before = connections();
  const runs = await Promise.all(KEYS.slice(0, 6).map((_, i) => check(i)));
  for (const run of runs) expect({ code: run.code, stderr: run.stderr, ok: okLines(run).length }).toEqual({ code: 0, stderr: '', ok: 3 });
  expect(connections() - before).toBeLessThanOrEqual(SLOTS * 2 * clusters.length);
});

test('a share directory that others may enter, or a link, is not used: every process checks alone', async () => {
  for (const make of [
    () => fs.mkdirSync(shareDir, { mode: 0o755 }),
    () => fs.symlinkSync(fs.mkdtempSync(path.join(tmp, 'elsewhere-')), shareDir),
  ]) {
    fs.rmSync(shareDir, { recursive: true, force: true });
    make();
    fs.chmodSync(shareDir, 0o755);
    const before = connections();
    const runs = await Promise.all(KEYS.slice(0, 4).map((_, i) => check(i)));
    for (const run of runs) expect({ code: run.code, ok: okLines(run).length }).toEqual({ code: 0, ok: 3 });
    expect(connections() - before).toBe(4 * 2 * clusters.length);
    expect(fs.readdirSync(shareDir)).toEqual([]);
  }
});

test('the same errors as alone: a follower with a bad option gets its own usage error, exit 2', async () => {
  const leaders = await leadersOnEverySlot();
  const bad = await check(1, { ca: path.join(tmp, 'missing.pem') });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/cannot read CA file .*missing\.pem.*ENOENT/);
  for (const run of await Promise.all(leaders)) expect(run.code).toBe(0);
});

test('--share-connections needs a key from a Terraform variable with its sha256', async () => {
  const env = envOf(0);
  for (const args of [
    ['--grants-env', 'QCA_GRANTS', '--key-env', variable(0)],
    ['--grants-env', 'QCA_GRANTS', '--key-env', 'KEY', '--key-sha256-env', 'QCA_KEY_SHA256'],
    ['--url', clusters[0].url, '--key-env', variable(0), '--key-sha256-env', 'QCA_KEY_SHA256'],
  ]) {
    const run = await runNode([cli, 'check', ...args, '--share-connections'], { env: { ...env, KEY: KEYS[0] }, cwd: tmp, outputs });
    expect({ args, code: run.code }).toEqual({ args, code: 2 });
    expect(run.stderr).toMatch(/--share-connections goes with --grants-env, --key-sha256-env and a --key-env of a Terraform variable \(TF_VAR_\.\.\.\).*leave out --share-connections/);
  }
});

test('a leader refuses a follower whose Node or trust settings (NODE_EXTRA_CA_CERTS, NODE_OPTIONS, SSL_CERT_*) differ', async () => {
  const leaders = await leadersOnEverySlot();
  const ask = (sock: string, trust: string | undefined): Promise<string> => new Promise((resolve, reject) => {
    const c = net.connect(path.join(shareDir, sock));
    let data = '';
    c.setEncoding('utf8').on('data', (d: string) => { data += d; }).on('close', () => resolve(data)).on('error', reject);
    c.write(`${JSON.stringify({ v: 1, trust, keyEnv: variable(1), keySha256: sha256(KEYS[1]), options: { caFile: clusters[0].caFile }, grants: [{ url: clusters[0].url }] })}\n`);
  });
  for (const sock of sockets()) {
    for (const trust of ['another Node\n/etc/other-ca.pem\n\n\n', undefined]) expect(await ask(sock, trust)).toBe('{"refused":true}\n');
  }
  for (const run of await Promise.all(leaders)) expect(run.code).toBe(0);
});

test('a connection that sends nothing does not keep a leader running', async () => {
  const leaders = await leadersOnEverySlot();
  const idle = sockets().map((sock) => net.connect(path.join(shareDir, sock)).on('error', () => undefined));
  try {
    // Each ends after its own checks and its wait for a request (5 s), well before its deadline (60 s).
    for (const run of await Promise.all(leaders)) expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
  } finally {
    for (const s of idle) s.destroy();
  }
});

describe('the pool of a leader (pool.js)', () => {
  const withPool = async (run: (pool: unknown) => Promise<void>): Promise<void> => {
    const pool = new ConnectionPool();
    try {
      await run(pool);
    } finally {
      pool.close();
    }
  };

  test('one key\'s timeout does not end the connection another key still waits for, on its own clock', async () => {
    // TCP is accepted, TLS never answered: both keys wait for the same connection.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const url = `https://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    try {
      await withPool(async (pool) => {
        const [short, long] = await Promise.all([1, 3].map((timeoutSeconds, i) => checkMany(
          { apiKey: KEYS[i], timeoutSeconds, retries: 0 }, [{ label: `k${i}`, url }], { connections: pool } as Parameters<typeof checkMany>[2])));
        expect(short.grants[0].reason).toMatch(/^no answer within 1 s \(request timeout\)/);
        // Alone it would wait 3 s: so it does when another key gave up first (not ended with it at 1 s).
        expect(long.grants[0].reason).toMatch(/^no answer within 3 s \(request timeout\)/);
        expect(long.grants[0].durationMs).toBeGreaterThanOrEqual(2900);
      });
    } finally {
      silent.close();
    }
  });

  test('a request without a key that failed is not another key\'s answer: a later check asks again', async () => {
    const flaky = await StandInQdrant.start({ apiKey: KEYS[0], moreApiKeys: [KEYS[1]], mode: 'flaky-5xx', params: { failFirst: 2 } });
    try {
      await withPool(async (pool) => {
        const settings = { connections: pool } as Parameters<typeof checkMany>[2];
        const grant = [{ label: 'flaky', url: flaky.url }];
        const first = await checkMany({ apiKey: KEYS[0], caFile: flaky.caFile, retries: 0 }, grant, settings);
        expect(first.grants[0]).toMatchObject({ ok: false, failedStep: 'root' });
        const later = await checkMany({ apiKey: KEYS[1], caFile: flaky.caFile, retries: 0 }, grant, settings);
        expect(later.ok).toBe(true);
        // That answer is the cluster's, and is kept: a third key asks nothing without its key.
        const before = flaky.requests.length;
        expect((await checkMany({ apiKey: KEYS[0], caFile: flaky.caFile, retries: 0 }, grant, settings)).ok).toBe(true);
        expect(flaky.requests.slice(before).every((r) => r.headers['api-key'] !== undefined)).toBe(true);
      });
    } finally {
      await flaky.stop();
    }
  });
});
