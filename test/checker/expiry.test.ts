/**
 * What the checker reads from a key that is a JWT (assets/checker/jwt.ts): its expiry, its access
 * in words and the collections its access names, and nothing else. Then the expiry step of a check
 * (an expired key, warn and fail thresholds) against the stand-in, with a fixed "now". The
 * real-server side is test/real-qdrant/expiry.test.ts.
 */
import { checkClusterAccess, formatReport, formatWarnings } from '../../assets/checker';
import type * as Checker from '../../assets/checker';
import * as jwt from '../../assets/checker/jwt';
import { base64url, signJwt } from '../../tools/testing/jwt';
import { canaryKey, StandInQdrant } from '../../tools/testing/stand-in-qdrant';


const SECRET = canaryKey();
const DAY_MS = 24 * 60 * 60 * 1000;
const EXP = 1_800_000_000; // 2027-01-15T08:00:00Z

/** A token with any header and claims (signed, though nothing here checks the signature). */
function token(claims: unknown, header: unknown = { alg: 'HS256', typ: 'JWT' }): string {
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${input}.${base64url('signature-bytes-of-the-test')}`;
}

describe('keyInfo: what a key says about itself', () => {
  test('a plain key is no JWT and carries no expiry', () => {
    expect(jwt.keyInfo(SECRET)).toEqual({ jwt: false, expiresAt: null });
    expect(jwt.keyInfo('')).toEqual({ jwt: false, expiresAt: null });
  });

  test('a JWT: the date of its exp and its access in words', () => {
    expect(jwt.keyInfo(signJwt(SECRET, { exp: EXP, access: 'r' }))).toEqual({ jwt: true, expiresAt: new Date(EXP * 1000), access: 'read-only' });
    expect(jwt.keyInfo(signJwt(SECRET, { exp: 0, access: 'm' }))).toEqual({ jwt: true, expiresAt: new Date(0), access: 'manage' });
    expect(jwt.keyInfo(signJwt(SECRET, {}))).toEqual({ jwt: true, expiresAt: null, access: 'manage (no access claim)' });
  });

  test('a JWT scoped to collections: the names its access gives, once each (the access step compares them)', () => {
    const access = [{ collection: 'products', access: 'r' }, { collection: 'a b', access: 'rw' }, { collection: 'products', access: 'rw' }, null, { access: 'r' }, { collection: 7 }];
    expect(jwt.keyInfo(signJwt(SECRET, { exp: EXP, access })).collections).toEqual(['products', 'a b']);
    expect(jwt.keyInfo(signJwt(SECRET, { access: [] })).collections).toEqual([]);
    expect(jwt.keyInfo(signJwt(SECRET, { access: 'r' }))).not.toHaveProperty('collections');
  });

  test.each([
    ['two parts', 'eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjF9'],
    ['four parts', `${token({ exp: EXP })}.more`],
    ['parts that are not base64url', 'e30=.e30=.sig'],
    ['a header that is not JSON', `${base64url('not json')}.${base64url('{"exp":1800000000}')}.sig`],
    ['a header without alg', token({ exp: EXP }, { typ: 'JWT' })],
    ['a header whose alg is not a string', token({ exp: EXP }, { alg: 1 })],
    ['a payload that is not JSON', `${base64url('{"alg":"HS256"}')}.${base64url('{exp:')}.sig`],
    ['a payload that is an array', token([EXP])],
    ['a payload that is a string', token('exp')],
    ['a payload that is null', token(null)],
    ['an empty payload part', `${base64url('{"alg":"HS256"}')}..sig`],
    ['dots only', '..'],
  ])('malformed (%s): no JWT, no expiry', (_name, key) => {
    expect(jwt.keyInfo(key)).toEqual({ jwt: false, expiresAt: null });
  });

  test.each([undefined, null, 42, {}, ['a', 'b', 'c']])('not a string (%p): no JWT', (key) => {
    expect(jwt.keyInfo(key)).toEqual({ jwt: false, expiresAt: null });
  });

  test.each([
    ['a string', 'soon'],
    ['a number in a string (Qdrant refuses the token: exp is a u64)', String(EXP)],
    ['a fraction (Qdrant refuses the token: exp is a u64)', EXP + 0.5],
    ['negative', -1],
    ['null', null],
    ['true', true],
    ['an object', { at: EXP }],
    ['past year 5000 (as good as never)', 1e12],
  ])('exp that is %s: a JWT without expiry', (_name, exp) => {
    expect(jwt.keyInfo(token({ exp, access: 'r' }))).toEqual({ jwt: true, expiresAt: null, access: 'read-only' });
  });

  test('never the token: no segment of it, and no secret, in what keyInfo returns', () => {
    const keys = [
      signJwt(SECRET, { exp: EXP, access: [{ collection: 'products', access: 'r' }], sub: SECRET, subject: SECRET }),
      // A collection named like a secret is shown in words, clipped and with odd characters replaced.
      signJwt(SECRET, { exp: EXP, access: [{ collection: SECRET, access: 'rw' }] }),
    ];
    for (const key of keys) {
      const out = JSON.stringify(jwt.keyInfo(key));
      for (const part of [key, ...key.split('.')]) expect(out.includes(part)).toBe(false);
    }
    expect(JSON.stringify(jwt.keyInfo(keys[0])).includes(SECRET)).toBe(false);
  });
});

describe('accessInWords', () => {
  test.each([
    [undefined, 'manage (no access claim)'],
    ['r', 'read-only'],
    ['m', 'manage'],
    ['x', 'unknown access'],
    [42, 'unknown access'],
    [{ collection: 'products', access: 'r' }, 'unknown access'],
    [[], 'no collections'],
    [[{ collection: 'products', access: 'r' }, { collection: 'orders', access: 'rw' }], 'read-only on products, read-write on orders'],
    [[{ collection: 'products', access: 'prw' }], 'points read-write on products'],
    [[{ collection: 'products', access: 'x' }, null, { access: 'r' }], 'unknown access on products, unknown access on ?, read-only on ?'],
    [[{ collection: 'a b\n\u202e<c>', access: 'r' }], 'read-only on a?b???c?'],
    [[{ collection: 'x'.repeat(100), access: 'r' }], `read-only on ${'x'.repeat(64)}`],
  ])('%p → %p', (access, words) => {
    expect(jwt.accessInWords(access)).toBe(words);
  });
});

describe('daysUntil and describeExpiry: whole days, rounded down', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  const at = (ms: number) => new Date(now.getTime() + ms);
  test.each([
    [90 * DAY_MS, 90, 'expires 2027-02-20 (in 90 days)'],
    [90 * DAY_MS - 1000, 89, 'expires 2027-02-20 (in 89 days)'],
    [DAY_MS, 1, 'expires 2026-11-23 (in 1 day)'],
    [DAY_MS - 1, 0, 'expires 2026-11-23 (in less than a day)'],
    [1000, 0, 'expires 2026-11-22 (in less than a day)'],
    [0, 0, 'expired 2026-11-22 (less than a day ago)'],
    [-10_000, -1, 'expired 2026-11-22 (less than a day ago)'],
    [-DAY_MS, -1, 'expired 2026-11-21 (1 day ago)'],
    [-21 * DAY_MS - 5000, -22, 'expired 2026-11-01 (21 days ago)'],
  ])('%p ms from now: %p days, %p', (ms, days, text) => {
    expect(jwt.daysUntil(at(ms), now)).toBe(days);
    expect(jwt.describeExpiry(at(ms), now)).toBe(text);
  });
});

describe('the expiry step of a check (stand-in, a fixed now)', () => {
  const now = new Date();
  const inDays = (d: number, extraMs = 3_600_000) => Math.floor((now.getTime() + d * DAY_MS + extraMs) / 1000);
  let s: StandInQdrant;
  beforeAll(async () => {
    s = await StandInQdrant.start({ apiKey: SECRET, jwtRbac: true });
  });
  afterAll(() => s.stop());

  async function check(exp: number | undefined, extra: Partial<Checker.CheckOptions> = {}): Promise<Checker.CheckReport> {
    const apiKey = extra.apiKey ?? signJwt(SECRET, { access: 'r', ...(exp === undefined ? {} : { exp }) });
    const r = await checkClusterAccess({ url: s.url, caFile: s.caFile, label: 'app → prod', now, ...extra, apiKey });
    const text = JSON.stringify(r) + formatReport(r) + formatWarnings(r).join('');
    expect([SECRET, apiKey, ...apiKey.split('.')].some((p) => text.includes(p))).toBe(false);
    return r;
  }

  test('warnValidityDays: a warning below it, none at it', async () => {
    expect((await check(inDays(14))).warnings).toEqual([]);
    expect((await check(inDays(13))).warnings).toEqual([expect.stringMatching(/^key expires \d{4}-\d\d-\d\d \(in 13 days\): rotate it soon/)]);
    expect((await check(inDays(13), { warnValidityDays: 0 })).warnings).toEqual([]);
    expect((await check(inDays(40), { warnValidityDays: 60 })).warnings).toHaveLength(1);
  });

  test('minValidityDays: fails below it, passes at it; 0 never fails', async () => {
    expect(await check(inDays(30), { minValidityDays: 30 })).toMatchObject({ ok: true, warnings: [] });
    expect(await check(inDays(29), { minValidityDays: 30 })).toMatchObject({ ok: false, failedStep: 'expiry', failureId: 'key-expires-soon' });
    expect(await check(inDays(0), { minValidityDays: 0 })).toMatchObject({ ok: true, warnings: [expect.stringMatching(/in less than a day/)] });
  });

  test('a key past its exp fails whatever minValidityDays: Qdrant accepts it for 30 s more, or this clock is ahead', async () => {
    const at = new Date(); // the stand-in's clock: the token is 10 s past its exp, inside the leeway
    const exp = Math.floor(at.getTime() / 1000) - 10;
    const when = new Date(exp * 1000).toISOString().replace(/^(.{10})T(.{8}).*$/, '$1 at $2 UTC');
    for (const minValidityDays of [0, 30]) {
      const r = await check(exp, { now: at, minValidityDays });
      expect(r).toMatchObject({ ok: false, failedStep: 'expiry', failureId: 'key-expired', keyStatus: 'accepted', warnings: [] });
      expect(r.reason).toBe(`key expired on ${when} (by this machine's clock; Qdrant accepts a key for 30 s past its expiry); create a new key and rotate to it`);
      expect(r.steps.filter((x) => !x.ok).map((x) => x.name)).toEqual(['expiry']);
    }
  });

  test('the expiry step runs only when every other step passed', async () => {
    const r = await check(inDays(1), { minValidityDays: 30, apiKey: signJwt(`not-${SECRET}`, { access: 'r', exp: inDays(1) }) });
    expect(r).toMatchObject({ ok: false, failedStep: 'key', failureId: 'key-rejected' });
    expect(r.steps.map((x) => x.name)).not.toContain('expiry');
    // The date is still in the report.
    expect(r.expiresAt).toBe(new Date(inDays(1) * 1000).toISOString());
  });
});
