/**
 * The checker's failure lines against each real Qdrant version: each one says what to do, shows no
 * declared collection name that holds part of the key, tells a collection that is not created yet
 * from an undeclared one, and names the port or the scheme when the address is the wrong one. The
 * passing access words say when a key may write points only (`prw`).
 */
import { checkClusterAccess, formatReport, formatWarnings } from '../../assets/checker';
import type * as Checker from '../../assets/checker';
import { holdsPart } from '../../assets/runtime/secrets';
import { collectionJwt, expIn, signJwt } from '../../tools/testing/jwt';
import { describeRealQdrant, RealQdrant } from '../../tools/testing/real-qdrant';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';


jest.setTimeout(120_000);

const KEY = canaryKey();
const READ_ONLY_KEY = canaryKey('canary-ro');
/** A valid collection name that holds 19 characters of the manage key. */
const PART = KEY.slice(1, 20);
/** The same for the read-only key. */
const RO_PART = READ_ONLY_KEY.slice(1, 20);
const HIDDEN = '(a name not shown: it holds part of the API key)';
const FAST = { retries: 3, backoffBaseMs: 10, backoffCapMs: 50, timeoutSeconds: 3, deadlineSeconds: 20 };

let q: RealQdrant;
let plain: RealQdrant;

describeRealQdrant('checker failure lines (real Qdrant)', () => {
  beforeAll(async () => {
    [q, plain] = await Promise.all([
      RealQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, jwtRbac: true, collections: ['products', 'orders', PART, RO_PART] }),
      RealQdrant.start({ apiKey: KEY, tls: false }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([q?.stop(), plain?.stop()]);
  });

  async function check(options: Partial<Checker.CheckOptions>): Promise<Checker.CheckReport> {
    const r = await checkClusterAccess({ url: q.restUrl, caFile: q.caFile, apiKey: KEY, label: 'app', ...FAST, ...options });
    const text = JSON.stringify(r) + formatReport(r) + formatWarnings(r).join('\n');
    expect(holdsPart(text, [KEY, READ_ONLY_KEY, options.apiKey ?? KEY])).toBe(false);
    return r;
  }
  const stepOf = (r: Checker.CheckReport, name: Checker.StepName) => r.steps.find((x) => x.name === name);

  describe('declared names that hold part of the key are not shown', () => {
    test('collection-missing', async () => {
      const r = await check({ access: 'any', readCollections: ['products', `x${KEY.slice(2, 20)}`] });
      expect(r).toMatchObject({ ok: false, failureId: 'collection-missing' });
      expect(r.reason).toContain(HIDDEN);
    });

    test('collection-no-write and collection-no-access', async () => {
      const ro = await check({ apiKey: READ_ONLY_KEY, access: 'any', writeCollections: [RO_PART] });
      expect(ro).toMatchObject({ ok: false, failureId: 'collection-no-write' });
      expect(ro.reason).toContain(HIDDEN);
      const scoped = collectionJwt(KEY, [{ collection: 'products', access: 'r' }]);
      const na = await check({ apiKey: scoped, access: 'any', readCollections: [scoped.slice(-19)] });
      expect(na).toMatchObject({ ok: false, failureId: 'collection-no-access' });
      expect(na.reason).toContain(HIDDEN);
    });

    test('excess-write, and the JSON report\'s declared lists', async () => {
      const r = await check({ access: 'collections', readCollections: [PART], allowExcessAccess: true });
      expect(r.ok).toBe(true);
      expect(r.access).toMatchObject({ readCollections: [HIDDEN], writeCollections: [] });
      expect(r.access?.excess.find((e) => e.startsWith('key can write collection'))).toContain(HIDDEN);
      const w = await check({ access: 'any', writeCollections: ['products', PART] });
      expect(w.access).toMatchObject({ readCollections: [], writeCollections: ['products', HIDDEN] });
    });
  });

  describe('collections that are not created yet', () => {
    const token = collectionJwt(KEY, [{ collection: 'products', access: 'rw' }, { collection: 'future', access: 'rw' }]);

    test('undeclared: marked "(not created yet)", with a fix that fits', async () => {
      const r = await check({ apiKey: token, access: 'collections', writeCollections: ['products'] });
      expect(r).toMatchObject({ ok: false, failureId: 'excess-collections' });
      expect(r.reason).toBe('key has access to undeclared collections: "future" (not created yet); create it before the deploy and declare it too, ' +
        'or use a key without it, or allow excess access (healthCheck.allowExcessAccess, --allow-excess-access)');
    });

    test('declared: collection-missing says to create it or fix the declared access', async () => {
      const r = await check({ apiKey: token, access: 'collections', writeCollections: ['products', 'future'] });
      expect(r).toMatchObject({ ok: false, failureId: 'collection-missing' });
      expect(r.reason).toBe('collection does not exist: "future"; create it before the deploy, or fix or remove its name in the declared access');
    });
  });

  describe('every failure line ends with a fix', () => {
    test('key rejected', async () => {
      const r = await check({ apiKey: canaryKey('canary-wrong') });
      expect(r.reason).toBe('key rejected (401 Invalid API key or JWT); check the key\'s clusters in the console (setup guide, section 2), ' +
        'set the variable again (setup guide, section 3), or create a new key');
    });

    test('no access to a collection', async () => {
      const scoped = collectionJwt(KEY, [{ collection: 'products', access: 'r' }]);
      const r = await check({ apiKey: scoped, access: 'any', readCollections: ['orders'] });
      expect(r.reason).toMatch(/^key has no access to collection "orders" \(403 .*\); create a key that includes this collection \(the console's Collections tab\), or fix the declared access$/);
    });

    test('no global read: the probe name is not shown, the line says what it tested', async () => {
      const scoped = collectionJwt(KEY, [{ collection: 'products', access: 'r' }]);
      const r = await check({ apiKey: scoped, access: 'read-only' });
      expect(r).toMatchObject({ failureId: 'no-global-read' });
      expect(r.reason).not.toContain('qdrant-cluster-access-probe');
      expect(r.reason).toBe('key cannot read every collection (403 to a random collection name, which tests cluster-wide read); create a cluster-wide read-only key');
    });
  });

  describe('wrong port or scheme', () => {
    test('--grpc-url given the REST port over TLS: the port hint', async () => {
      const r = await check({ grpcUrl: q.restUrl });
      expect(stepOf(r, 'grpc')?.message).toMatch(/^not a Qdrant gRPC endpoint: \/qdrant\.Qdrant\/HealthCheck answered HTTP 401.* — is the port right\? Qdrant gRPC is 6334$/);
    });

    test('--grpc-url given the REST port over plain http: the port hint', async () => {
      const r = await checkClusterAccess({ url: plain.restUrl, grpcUrl: plain.restUrl, apiKey: KEY, ...FAST });
      expect(stepOf(r, 'grpc')).toMatchObject({ ok: false, attempts: 1 });
      expect(stepOf(r, 'grpc')?.message).toMatch(/ — is the port right\? Qdrant gRPC is 6334$/);
    });

    test('http:// to the TLS gRPC port: may speak TLS, not retried', async () => {
      const r = await check({ grpcUrl: q.grpcUrl.replace('https:', 'http:') });
      expect(stepOf(r, 'grpc')).toMatchObject({ ok: false, attempts: 1 });
      expect(stepOf(r, 'grpc')?.message).toMatch(/ — the port may speak TLS: use https:\/\/; Qdrant gRPC is 6334$/);
    });

    test('http:// to the TLS REST port: may speak TLS', async () => {
      const r = await check({ url: q.restUrl.replace('https:', 'http:') });
      expect(r).toMatchObject({ ok: false, failedStep: 'root', failureId: 'invalid-http' });
      expect(r.reason).toMatch(/^invalid HTTP answer \(HPE_[A-Z_]+\) — the port may speak TLS: use https:\/\/; Qdrant REST is 6333$/);
    });
  });

  test('a points-only key (prw) passes a declared write, and the access words say so', async () => {
    const token = signJwt(KEY, { exp: expIn(3600), access: [{ collection: 'products', access: 'prw' }, { collection: 'orders', access: 'r' }] });
    const r = await check({ apiKey: token, access: 'collections', writeCollections: ['products'], readCollections: ['orders'] });
    expect(r.ok).toBe(true);
    expect(stepOf(r, 'access')?.message).toBe('access to 2 collections as declared (points only: "products")');
    expect(formatReport(r)).toContain('access to 2 collections as declared (points only: "products")');
  });
});
