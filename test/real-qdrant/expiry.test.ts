/**
 * Key expiry (issue #14) against each real Qdrant version with jwt_rbac on: JWTs signed in the test,
 * with `exp` in 3 days, in 200 days, in the past, and without `exp`, through the checker's Node API
 * and its CLI (a child process). The server decides whether the key works; the checker reads the
 * date from the token and warns or fails before the key runs out.
 */
import * as path from 'node:path';
import { checkClusterAccess, formatReport, formatWarnings } from '../../assets/checker';
import type * as Checker from '../../assets/checker';
import { expIn, signJwt } from '../../tools/testing/jwt';
import { describeRealQdrant, RealQdrant } from '../../tools/testing/real-qdrant';
import { runNode } from '../../tools/testing/run-node';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';


// Bounds, not expectations.
jest.setTimeout(60_000);

const CLI = path.join(__dirname, '..', '..', 'assets', 'checker', 'cli.js');
const KEY = canaryKey();
const DAY = 24 * 60 * 60;
// An hour more than the whole days, so that "in N days" (whole days, rounded down) is N.
const IN_3_DAYS = expIn(3 * DAY + 3600);
const IN_200_DAYS = expIn(200 * DAY + 3600);
const DAYS_AGO_5 = expIn(-5 * DAY - 3600);
const TOKENS = {
  in3: signJwt(KEY, { access: 'r', exp: IN_3_DAYS }),
  in200: signJwt(KEY, { access: [{ collection: 'products', access: 'rw' }], exp: IN_200_DAYS }),
  past: signJwt(KEY, { access: 'r', exp: DAYS_AGO_5 }),
  noExp: signJwt(KEY, { access: 'r' }),
};
const SECRETS = [KEY, ...Object.values(TOKENS)];

const day = (exp: number) => new Date(exp * 1000).toISOString().slice(0, 10);
const iso = (exp: number) => new Date(exp * 1000).toISOString();
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function noKeyIn(...texts: string[]): void {
  const leaked = SECRETS.filter((s) => texts.some((t) => t.includes(s)));
  expect(leaked.length).toBe(0);
}

describeRealQdrant('key expiry against real Qdrant (jwt_rbac on)', () => {
  let q: RealQdrant;
  beforeAll(async () => {
    q = await RealQdrant.start({ apiKey: KEY, jwtRbac: true, collections: ['products'] });
  });
  afterAll(() => q?.stop());

  async function check(apiKey: string, extra: Partial<Checker.CheckOptions> = {}): Promise<Checker.CheckReport> {
    const r = await checkClusterAccess({ url: q.restUrl, grpcUrl: q.grpcUrl, caFile: q.caFile, apiKey, label: 'search-api → prod-eu', ...extra });
    noKeyIn(JSON.stringify(r), formatReport(r), ...formatWarnings(r));
    return r;
  }

  async function cli(apiKey: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const { code, stdout, stderr } = await runNode([CLI, 'check', '--url', q.restUrl, '--grpc-url', q.grpcUrl, '--ca', q.caFile!, '--label', 'search-api → prod-eu', ...args], {
      env: { PATH: process.env.PATH ?? '', QDRANT_API_KEY: apiKey },
    });
    noKeyIn(stdout, stderr);
    return { code, stdout, stderr };
  }

  test('expires in 3 days: passes, with a warning line that gives the date and says to rotate', async () => {
    const r = await check(TOKENS.in3);
    expect(r).toMatchObject({ ok: true, keyStatus: 'accepted', expiresAt: iso(IN_3_DAYS), keyAccess: 'read-only' });
    expect(r.steps.find((s) => s.name === 'expiry')).toEqual({ name: 'expiry', ok: true, message: `expires ${day(IN_3_DAYS)} (in 3 days)`, durationMs: 0, attempts: 0 });
    expect(formatWarnings(r)).toEqual([`warn search-api → prod-eu  key expires ${day(IN_3_DAYS)} (in 3 days): rotate it soon (setup guide, section 6)`]);

    const run = await cli(TOKENS.in3);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^ok {3}search-api → prod-eu {2}qdrant ${escape(q.version)} {2}key accepted, keys enforced, gRPC ok {2}expires ${day(IN_3_DAYS)} \\(in 3 days\\) {2}\\d+ ms$`));
    expect(lines[1]).toBe(`warn search-api → prod-eu  key expires ${day(IN_3_DAYS)} (in 3 days): rotate it soon (setup guide, section 6)`);
  });

  test('expires in 3 days with --min-validity-days 7: fails in step expiry, saying when it expires and how to rotate', async () => {
    const r = await check(TOKENS.in3, { minValidityDays: 7 });
    expect(r).toMatchObject({ ok: false, failedStep: 'expiry', failureId: 'key-expires-soon', keyStatus: 'accepted', expiresAt: iso(IN_3_DAYS) });
    expect(r.reason).toBe(`key expires too soon: it expires ${day(IN_3_DAYS)} (in 3 days), and at least 7 days are required ` +
      '(healthCheck.minValidityDays, --min-validity-days); create a new key, deploy it, then delete the old one (setup guide, section 6)');
    // Every other step passed: the key works today.
    expect(r.steps.filter((s) => !s.ok).map((s) => s.name)).toEqual(['expiry']);

    const run = await cli(TOKENS.in3, '--min-validity-days', '7');
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^FAIL search-api → prod-eu {2}step expiry: ${escape(r.reason!)} {2}\\d+ ms\n$`));
    // 3 days are enough for --min-validity-days 3.
    expect((await check(TOKENS.in3, { minValidityDays: 3 })).ok).toBe(true);
  });

  test('expires in 200 days: passes, the pass line shows the date, no warning', async () => {
    const r = await check(TOKENS.in200, { access: 'collections', writeCollections: ['products'], minValidityDays: 30 });
    expect(r).toMatchObject({ ok: true, expiresAt: iso(IN_200_DAYS), keyAccess: 'read-write on products', warnings: [] });
    expect(formatReport(r)).toMatch(new RegExp(
      `^ok {3}search-api → prod-eu {2}qdrant ${escape(q.version)} {2}key accepted, keys enforced, access to 1 collection as declared, gRPC ok {2}expires ${day(IN_200_DAYS)} \\(in 200 days\\) {2}\\d+ ms$`));
  });

  test('expired 5 days ago: the server refuses it (403 ExpiredSignature) and the message gives the date', async () => {
    const r = await check(TOKENS.past);
    expect(r).toMatchObject({ ok: false, failedStep: 'key', failureId: 'key-expired', keyStatus: 'expired', expiresAt: iso(DAYS_AGO_5) });
    expect(r.reason).toBe(`key expired on ${day(DAYS_AGO_5)} (403 ExpiredSignature); create a new key and rotate to it`);
    expect(r.steps.find((s) => s.name === 'grpc')?.message).toBe(`key expired on ${day(DAYS_AGO_5)} (gRPC 7 ExpiredSignature); create a new key and rotate to it`);

    const run = await cli(TOKENS.past, '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, failureId: 'key-expired', expiresAt: iso(DAYS_AGO_5) });
  });

  test('expired 10 s ago: the server still accepts it (30 s leeway), the check fails in step expiry', async () => {
    // Minted here, just before use: the leeway must not run out before the server sees it.
    const exp = expIn(-10);
    const token = signJwt(KEY, { access: 'r', exp });
    const when = new Date(exp * 1000).toISOString().replace(/^(.{10})T(.{8}).*$/, '$1 at $2 UTC');
    const reason = `key expired on ${when} (by this machine's clock; Qdrant accepts a key for 30 s past its expiry); create a new key and rotate to it`;
    const r = await check(token);
    expect(JSON.stringify(r)).not.toContain(token);
    expect(r).toMatchObject({ ok: false, failedStep: 'expiry', failureId: 'key-expired', keyStatus: 'accepted', expiresAt: iso(exp), reason });
    // The server took the key on every path: only the date says it is expired.
    expect(r.steps.filter((s) => !s.ok).map((s) => s.name)).toEqual(['expiry']);

    const run = await cli(signJwt(KEY, { access: 'r', exp: expIn(-10) }), '--access', 'read-only');
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^FAIL search-api → prod-eu {2}step expiry: key expired on \d{4}-\d\d-\d\d at \d\d:\d\d:\d\d UTC \(by this machine's clock; [^\n]*; create a new key and rotate to it {2}\d+ ms\n$/);
  });

  test('no exp: passes, expiresAt null, no expiry step and no warning', async () => {
    const r = await check(TOKENS.noExp, { minValidityDays: 365 });
    expect(r).toMatchObject({ ok: true, expiresAt: null, keyAccess: 'read-only', warnings: [] });
    expect(r.steps.map((s) => s.name)).toEqual(['root', 'key', 'enforced', 'grpc']);
    expect(formatReport(r)).not.toMatch(/expire/);

    const run = await cli(TOKENS.noExp, '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, expiresAt: null });
  });

  test('a plain key: expiresAt null and no keyAccess (nothing is read from it)', async () => {
    const r = await check(KEY, { minValidityDays: 365 });
    expect(r).toMatchObject({ ok: true, expiresAt: null, warnings: [] });
    expect(r.keyAccess).toBeUndefined();
  });
});
