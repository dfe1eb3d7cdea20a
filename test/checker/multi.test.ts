/**
 * Many grants of one key in one process (assets/checker/batch.ts `checkMany`, and the CLI with
 * --grants-env) against stand-ins: one line per grant naming key → cluster and, on failure, the
 * step; a summary line naming exactly the failed grants; exit codes; and the number of clusters
 * checked at the same time bounded by the concurrency. Each "cluster" is an HTTPS proxy in front
 * of a slow stand-in that counts the requests in flight, so overlapping checks are seen.
 */
import type * as http from 'node:http';
import type * as Checker from '../../assets/checker';
import { checkMany, formatReport, formatSummary } from '../../assets/checker';
import { runNode } from '../../tools/testing/run-node';
import { canaryKey, closedPort, forwardTo, LoopbackServer, StandInQdrant } from '../../tools/testing/stand-in-qdrant';


jest.setTimeout(60_000);

const CLI = `${__dirname}/../../assets/checker/cli.js`;
const KEY = canaryKey();
const OTHER_KEY = canaryKey('canary-other');
const SECRETS = [KEY, OTHER_KEY];
const FAST = { retries: 1, backoffBaseMs: 10, backoffCapMs: 50, timeoutSeconds: 5 };

/** Counts, across all proxies, how many have a request in flight at once (the clusters being checked). */
class InFlight {
  max = 0;
  private readonly active = new Map<string, number>();
  begin(cluster: string): void {
    this.active.set(cluster, (this.active.get(cluster) ?? 0) + 1);
    this.max = Math.max(this.max, [...this.active.values()].filter((n) => n > 0).length);
  }
  end(cluster: string): void {
    this.active.set(cluster, (this.active.get(cluster) ?? 1) - 1);
  }
  reset(): void {
    this.max = 0;
    this.active.clear();
  }
}

/** One "cluster": an HTTPS proxy (the test CA's certificate) that forwards to a stand-in and reports to `inFlight`. */
class CountingProxy {
  static async start(name: string, upstream: StandInQdrant, inFlight: InFlight): Promise<CountingProxy> {
    const p = new CountingProxy(name, upstream, inFlight);
    p.server = await LoopbackServer.start('https', (req, res) => p.forward(req, res));
    return p;
  }

  private server!: LoopbackServer;

  private constructor(readonly name: string, private readonly upstream: StandInQdrant, private readonly inFlight: InFlight) {}

  get url(): string {
    return this.server.url;
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.inFlight.begin(this.name);
    let ended = false;
    const end = () => {
      if (!ended) this.inFlight.end(this.name);
      ended = true;
    };
    res.on('finish', end);
    res.on('close', end);
    forwardTo(this.upstream, req, res);
  }
}

const inFlight = new InFlight();
const standIns: Record<string, StandInQdrant> = {};
const proxies: CountingProxy[] = [];
let grants: Checker.Grant[];
let caFile: string;

beforeAll(async () => {
  // KEY is read-only on `ro` (as declared), unknown on `other`, a manage key on `manage`. All answer after 100 ms.
  const slow = { mode: 'slow' as const, params: { slowMs: 100 } };
  standIns.ro = await StandInQdrant.start({ apiKey: OTHER_KEY, readOnlyApiKey: KEY, ...slow });
  standIns.other = await StandInQdrant.start({ apiKey: OTHER_KEY, ...slow });
  standIns.manage = await StandInQdrant.start({ apiKey: KEY, ...slow });
  caFile = standIns.ro.caFile;
  const plan: [string, string][] = [['eu-1', 'ro'], ['eu-2', 'ro'], ['us-1', 'other'], ['us-2', 'ro'], ['staging', 'manage']];
  for (const [name, upstream] of plan) proxies.push(await CountingProxy.start(name, standIns[upstream], inFlight));
  grants = [
    ...proxies.map((p) => ({ label: `search-api → ${p.name}`, url: p.url })),
    { label: 'search-api → dev', url: `https://127.0.0.1:${await closedPort()}` },
  ];
  // gRPC of one grant, straight to its stand-in (not counted).
  grants[0] = { ...grants[0], grpcUrl: standIns.ro.grpcUrl };
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.stop()));
  await Promise.all(Object.values(standIns).map((s) => s.stop()));
});
beforeEach(() => inFlight.reset());

const FAILED = ['search-api → us-1', 'search-api → staging', 'search-api → dev'];
const SUMMARY = 'FAIL 3 of 6 grants of key search-api failed: search-api → us-1 (step key), search-api → staging (step access), search-api → dev (step root)';

describe('checkMany', () => {
  test('one report per grant in the order given, the failed ones named, at most `concurrency` clusters at once', async () => {
    const seen: string[] = [];
    const result = await checkMany({ apiKey: KEY, caFile, access: 'read-only', ...FAST }, grants, {
      concurrency: 2,
      onReport: (r) => seen.push(r.label),
    });
    expect(result.grants.map((r) => [r.label, r.ok, r.failedStep, r.failureId])).toEqual([
      ['search-api → eu-1', true, undefined, undefined],
      ['search-api → eu-2', true, undefined, undefined],
      ['search-api → us-1', false, 'key', 'key-rejected'],
      ['search-api → us-2', true, undefined, undefined],
      ['search-api → staging', false, 'access', 'excess-manage'],
      ['search-api → dev', false, 'root', 'refused'],
    ]);
    expect(result).toMatchObject({ ok: false, expiresAt: null, failed: FAILED });
    expect(seen.sort()).toEqual(grants.map((g) => g.label).sort());
    expect(formatSummary(result, 'search-api')).toBe(SUMMARY);
    expect(inFlight.max).toBe(2);
    expect(SECRETS.some((k) => JSON.stringify(result).includes(k))).toBe(false);
  });

  test('concurrency 1 checks one cluster at a time; a larger one overlaps more of them', async () => {
    await checkMany({ apiKey: KEY, caFile, access: 'read-only', ...FAST }, grants, { concurrency: 1 });
    expect(inFlight.max).toBe(1);
    inFlight.reset();
    await checkMany({ apiKey: KEY, caFile, access: 'read-only', ...FAST }, grants, { concurrency: 8 });
    expect(inFlight.max).toBeGreaterThan(2);
    expect(inFlight.max).toBeLessThanOrEqual(proxies.length);
  });

  test('all passing: no summary', async () => {
    const ok = grants.filter((g) => !FAILED.includes(g.label!));
    const result = await checkMany({ apiKey: KEY, caFile, access: 'read-only', ...FAST }, ok, { concurrency: 2 });
    expect(result).toMatchObject({ ok: true, failed: [] });
    expect(formatSummary(result, 'search-api')).toBeUndefined();
    expect(result.grants.map(formatReport)).toEqual(ok.map((g) => expect.stringMatching(new RegExp(`^ok {3}${g.label} {2}qdrant 1\\.16\\.2 {2}key accepted, keys enforced, read-only as declared`))));
  });

  test('a grant list that is not one is a usage error before anything is sent', async () => {
    const before = Object.values(standIns).map((x) => x.requests.length);
    const bad: unknown[] = [[], [...grants, null], [...grants, { url: grants[0].url, key: 'x' }], [...grants, { label: 'no url' }], [{ url: 42 }]];
    for (const list of bad) {
      await expect(checkMany({ apiKey: KEY, caFile }, list as Checker.Grant[])).rejects.toMatchObject({ name: 'RuntimeError', code: 'ERR_QDRANT_USAGE' });
    }
    expect(Object.values(standIns).map((x) => x.requests.length)).toEqual(before);
  });

  // checkGrantList parses every url and grpcUrl first: otherwise the grants before a bad URL would
  // be checked (keys sent) before the UsageError, and others would keep running after it.
  test('a grant with a bad URL is a usage error before anything is sent', async () => {
    const before = standIns.ro.requests.length;
    await expect(checkMany({ apiKey: KEY, caFile, ...FAST }, [grants[1], { url: 'ftp://x' }], { concurrency: 1 })).rejects.toMatchObject({ name: 'RuntimeError', code: 'ERR_QDRANT_USAGE' });
    expect(standIns.ro.requests.length).toBe(before);
  });
});

// ---------------------------------------------------------------------------------------------
// The CLI

async function runCli(args: readonly string[], env: Record<string, string>, closeStdout = false):
Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runNode([CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, closeStdout });
  expect(SECRETS.some((k) => stdout.includes(k) || stderr.includes(k))).toBe(false);
  return { code, stdout, stderr };
}

describe('CLI --grants-env', () => {
  const args = (...extra: string[]) => ['check', '--grants-env', 'QCA_GRANTS', '--label', 'search-api', '--ca', caFile, '--access', 'read-only', '--retries', '1', ...extra];

  test('one line per grant naming key → cluster (and the step when it failed), then the summary; exit 1', async () => {
    const r = await runCli(args('--concurrency', '2'), { QDRANT_API_KEY: KEY, QCA_GRANTS: JSON.stringify(grants) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(grants.length + 1);
    // Lines come as grants finish; the summary is last (Terraform prints it at the end of its error).
    expect(lines[lines.length - 1]).toBe(SUMMARY);
    const byLabel = (label: string) => lines.find((l) => l.startsWith(`ok   ${label}  `) || l.startsWith(`FAIL ${label}  `));
    expect(byLabel('search-api → eu-1')).toMatch(/^ok {3}search-api → eu-1 {2}qdrant 1\.16\.2 {2}key accepted, keys enforced, read-only as declared, gRPC ok {2}\d+ ms$/);
    expect(byLabel('search-api → eu-2')).toMatch(/^ok {3}search-api → eu-2 {2}qdrant 1\.16\.2 {2}key accepted, keys enforced, read-only as declared {2}\d+ ms$/);
    expect(byLabel('search-api → us-2')).toMatch(/^ok {3}search-api → us-2 /);
    expect(byLabel('search-api → us-1')).toMatch(/^FAIL search-api → us-1 {2}step key: key rejected \(401 Invalid API key or JWT\); check the key's clusters in the console \(setup guide, section 2\), set the variable again \(setup guide, section 3\), or create a new key {2}\d+ ms$/);
    expect(byLabel('search-api → staging')).toMatch(/^FAIL search-api → staging {2}step access: key has manage access but is declared read-only/);
    expect(byLabel('search-api → dev')).toMatch(/^FAIL search-api → dev {2}step root: connection refused by 127\.0\.0\.1:\d+ \(ECONNREFUSED\) after 2 attempts/);
    expect(inFlight.max).toBe(2);
  });

  test('--allow-excess-access: the excess grant passes with a warning line; the summary names the two left', async () => {
    const r = await runCli(args('--allow-excess-access'), { QDRANT_API_KEY: KEY, QCA_GRANTS: JSON.stringify(grants) });
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toContain('warn search-api → staging  key has manage access but is declared read-only (200 ok to the empty alias batch); ' +
      'create a key with only that access (allowed: allowExcessAccess)');
    expect(lines[lines.length - 1]).toBe('FAIL 2 of 6 grants of key search-api failed: search-api → us-1 (step key), search-api → dev (step root)');
  });

  test('all grants pass: exit 0, one ok line each, no summary', async () => {
    const ok = grants.filter((g) => !FAILED.includes(g.label!));
    const r = await runCli(args(), { QDRANT_API_KEY: KEY, QCA_GRANTS: JSON.stringify(ok) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.map((l) => /^(ok {3}|FAIL )(.+?) {2}/.exec(l)?.[0]).sort()).toEqual(ok.map((g) => `ok   ${g.label}  `).sort());
  });

  // `qdrant-cluster-access check ... | head -1`: every line after the reader left failed with EPIPE,
  // which Node raised as an uncaught error (a stack trace on stderr, exit 1 even when all passed).
  test('a reader that goes away (| head -1): no stack trace, and the exit code still says what the checks found', async () => {
    const ok = grants.filter((g) => !FAILED.includes(g.label!));
    const passed = await runCli(args(), { QDRANT_API_KEY: KEY, QCA_GRANTS: JSON.stringify(ok) }, true);
    expect(passed).toEqual({ code: 0, stdout: '', stderr: '' });
    const failed = await runCli(args(), { QDRANT_API_KEY: KEY, QCA_GRANTS: JSON.stringify(grants) }, true);
    expect(failed).toEqual({ code: 1, stdout: '', stderr: '' });
  });

  test('--json: one BatchReport', async () => {
    const r = await runCli(args('--json', '--concurrency', '3'), { QDRANT_API_KEY: KEY, QCA_GRANTS: JSON.stringify(grants) });
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout) as Checker.BatchReport;
    expect(result).toMatchObject({ ok: false, expiresAt: null, failed: FAILED });
    expect(result.grants.map((g) => g.label)).toEqual(grants.map((g) => g.label));
    expect(inFlight.max).toBeLessThanOrEqual(3);
  });

  test('a --label with control characters: the summary is one line of plain text', async () => {
    const label = 'k\u001b[2K\rok   all fine\nx';
    const r = await runCli(['check', '--grants-env', 'QCA_GRANTS', '--label', label, '--ca', caFile, '--retries', '1'],
      { QDRANT_API_KEY: KEY, QCA_GRANTS: JSON.stringify([grants[2]]) });
    expect(r.code).toBe(1);
    // eslint-disable-next-line no-control-regex
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^FAIL search-api → us-1 {2}step key: /);
    expect(lines[1]).toBe('FAIL 1 of 1 grant of key k [2K ok all fine x failed: search-api → us-1 (step key)');
  });

  test.each([
    ['not JSON', { QCA_GRANTS: '[{' }, [], 'is not valid JSON'],
    ['an empty list', { QCA_GRANTS: '[]' }, [], 'environment variable QCA_GRANTS (--grants-env) must be a non-empty JSON list of {"label","url","grpcUrl"}'],
    ['an object', { QCA_GRANTS: '{}' }, [], 'environment variable QCA_GRANTS (--grants-env) must be a non-empty JSON list of {"label","url","grpcUrl"}'],
    ['an unknown field', { QCA_GRANTS: '[{"url":"https://127.0.0.1:1","key":"x"}]' }, [], 'grant 1 has unknown field "key"'],
    ['a grant without url', { QCA_GRANTS: '[{"label":"a"}]' }, [], 'grant 1 has no "url"'],
    ['the variable not set', {}, [], 'environment variable QCA_GRANTS (--grants-env) is not set or empty'],
    ['--grpc-url too', { QCA_GRANTS: '[{"url":"https://127.0.0.1:1"}]' }, ['--grpc-url', 'https://127.0.0.1:2'], '--grpc-url goes with --url'],
  ])('usage error (%s): exit 2, nothing checked', async (_name, env, extra, message) => {
    const before = Object.values(standIns).map((s) => s.requests.length);
    const r = await runCli([...args(), ...extra], { QDRANT_API_KEY: KEY, ...env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(Object.values(standIns).map((s) => s.requests.length)).toEqual(before);
  });
});
