/**
 * The checks of several keys over shared connections (assets/checker/pool.js, as a leader of
 * share.js runs them) against a real Qdrant 1.18.3 with TLS and jwt_rbac: REST and gRPC streams of
 * different keys, each with its own credential, on one connection per port give every key the
 * verdict it gets alone (a key with too little access, a wrong key and an expired JWT included).
 */
import type * as Checker from '../../assets/checker';
import { collectionJwt, makeClaims, readJwt, signJwt } from '../../tools/testing/jwt';
import { describeRealQdrant, RealQdrant } from '../../tools/testing/real-qdrant';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { checkMany } = require('../../assets/checker/batch.js') as { checkMany: typeof Checker.checkMany };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ConnectionPool } = require('../../assets/checker/pool.js') as { ConnectionPool: new () => { clients: Map<string, unknown>; close(): void } };

jest.setTimeout(120_000);

const KEY = canaryKey();
const READ_ONLY_KEY = canaryKey('canary-ro');
const WRONG_KEY = canaryKey('canary-wrong');

/** Each key with its declared access, and whether it passes. */
const CASES: { name: string; options: Pick<Checker.CheckOptions, 'apiKey' | 'access' | 'readCollections' | 'writeCollections'>; ok: boolean }[] = [
  { name: 'manage key, manage', options: { apiKey: KEY, access: 'manage' }, ok: true },
  { name: 'read-only key, read-only', options: { apiKey: READ_ONLY_KEY, access: 'read-only' }, ok: true },
  { name: 'read-only key, manage', options: { apiKey: READ_ONLY_KEY, access: 'manage' }, ok: false },
  { name: 'JWT r, read-only', options: { apiKey: readJwt(KEY), access: 'read-only' }, ok: true },
  { name: 'JWT products r, read products', options: { apiKey: collectionJwt(KEY, [{ collection: 'products', access: 'r' }]), access: 'collections', readCollections: ['products'] }, ok: true },
  { name: 'JWT products r, rw products', options: { apiKey: collectionJwt(KEY, [{ collection: 'products', access: 'r' }]), access: 'collections', writeCollections: ['products'] }, ok: false },
  { name: 'expired JWT', options: { apiKey: signJwt(KEY, makeClaims({ access: 'r', expiresIn: -3600 })) }, ok: false },
  { name: 'wrong key', options: { apiKey: WRONG_KEY }, ok: false },
];

/** A report without its timings, which differ from run to run. */
function verdictOf(report: Checker.CheckReport): unknown {
  return JSON.parse(JSON.stringify(report, (k, v) => (k === 'durationMs' ? undefined : v)));
}

describeRealQdrant('checks of several keys over shared connections against real Qdrant', () => {
  let q: RealQdrant;
  let grants: Checker.Grant[];
  beforeAll(async () => {
    q = await RealQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, jwtRbac: true, collections: ['products', 'orders'] });
    grants = [{ label: 'real', url: q.restUrl, grpcUrl: q.grpcUrl }];
  });
  afterAll(async () => {
    await q?.stop();
  });

  test('every key gets the verdict it gets alone, over one REST and one gRPC connection', async () => {
    const options = (c: typeof CASES[number]) => ({ ...c.options, caFile: q.caFile!, retries: 0 });
    const alone: Checker.BatchReport[] = [];
    for (const c of CASES) alone.push(await checkMany(options(c), grants));
    expect(alone.map((r) => r.ok)).toEqual(CASES.map((c) => c.ok));

    const pool = new ConnectionPool();
    try {
      const shared = await Promise.all(CASES.map((c) => checkMany(options(c), grants, { connections: pool } as Parameters<typeof checkMany>[2])));
      CASES.forEach((c, i) => {
        expect({ name: c.name, report: verdictOf(shared[i].grants[0]) }).toEqual({ name: c.name, report: verdictOf(alone[i].grants[0]) });
      });
      expect([...pool.clients.keys()].map((id) => id.split(' ')[0]).sort()).toEqual(['grpc', 'rest']);
    } finally {
      pool.close();
    }
    const text = JSON.stringify([alone]);
    expect([KEY, READ_ONLY_KEY, WRONG_KEY].some((k) => text.includes(k))).toBe(false);
  });
});
