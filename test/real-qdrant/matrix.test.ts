/**
 * The access-probe matrix against each real Qdrant version (the auth reference §9.2): every probe
 * with every credential answers as measured, and none of them changes anything on the server.
 * The expected table lives in tools/testing/real-qdrant.ts; the stand-in is held to the same table.
 */
import {
  describeRealQdrant,
  expectedGrpcMatrix,
  expectedRestMatrix,
  onOpenServer,
  probeCredentials,
  RealQdrant,
  restProbes,
  runGrpcMatrix,
  runRestMatrix,
  withoutJwtRbac,
} from '../../tools/testing/real-qdrant';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';

// Bounds, not expectations: starting real servers and running the matrices takes a few seconds on a busy machine.
jest.setTimeout(120_000);

const KEY = canaryKey();
const READ_ONLY_KEY = canaryKey('canary-ro');
const COLLECTIONS = ['products', 'support-tickets'];
const [C, OTHER] = COLLECTIONS;

describeRealQdrant('real Qdrant: REST access probes (keys and jwt_rbac)', () => {
  let q: RealQdrant;
  beforeAll(async () => {
    q = await RealQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, jwtRbac: true, collections: COLLECTIONS });
  });
  afterAll(() => q?.stop());

  test('every probe with every credential answers as measured', async () => {
    const credentials = probeCredentials(KEY, READ_ONLY_KEY, C);
    const probes = restProbes(C, OTHER);
    expect(await runRestMatrix(q, credentials, probes)).toEqual(expectedRestMatrix(credentials, probes, COLLECTIONS));
  });

  test('the probes have no side effect: collections, aliases and point counts are unchanged', async () => {
    const before = await q.snapshotState();
    expect(before).toEqual({ collections: COLLECTIONS, aliases: [], points: { [C]: 3, [OTHER]: 3 } });
    const credentials = probeCredentials(KEY, READ_ONLY_KEY, C);
    await runRestMatrix(q, credentials, restProbes(C, OTHER));
    await runRestMatrix(q, credentials, restProbes(OTHER, C));
    await runGrpcMatrix(q, credentials);
    expect(await q.snapshotState()).toEqual(before);
  });

  test('the side-effect check sees a change (a control: an alias made with the manage key)', async () => {
    const made = await q.request('POST', '/collections/aliases', { key: KEY, body: { actions: [{ create_alias: { collection_name: C, alias_name: 'control' } }] } });
    try {
      expect(made.status).toBe(200);
      expect((await q.snapshotState()).aliases).toEqual([{ alias: 'control', collection: C }]);
    } finally {
      await q.request('POST', '/collections/aliases', { key: KEY, body: { actions: [{ delete_alias: { alias_name: 'control' } }] } });
    }
    expect((await q.snapshotState()).aliases).toEqual([]);
  });
});

describeRealQdrant('real Qdrant: REST access probes without jwt_rbac', () => {
  let q: RealQdrant;
  beforeAll(async () => {
    q = await RealQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, collections: COLLECTIONS });
  });
  afterAll(() => q?.stop());

  test('every JWT is 401 Invalid API key or JWT; the keys work as before', async () => {
    const credentials = withoutJwtRbac(probeCredentials(KEY, READ_ONLY_KEY, C));
    const probes = restProbes(C, OTHER);
    expect(await runRestMatrix(q, credentials, probes)).toEqual(expectedRestMatrix(credentials, probes, COLLECTIONS));
    expect(await runGrpcMatrix(q, credentials)).toEqual(expectedGrpcMatrix(credentials, COLLECTIONS, q.version));
  });
});

describeRealQdrant('real Qdrant: an open cluster (no key configured)', () => {
  let q: RealQdrant;
  beforeAll(async () => {
    q = await RealQdrant.start({ collections: COLLECTIONS });
  });
  afterAll(() => q?.stop());

  test('every credential, no key included, may manage', async () => {
    const credentials = onOpenServer(probeCredentials(KEY, READ_ONLY_KEY, C));
    const probes = restProbes(C, OTHER);
    expect(await runRestMatrix(q, credentials, probes)).toEqual(expectedRestMatrix(credentials, probes, COLLECTIONS));
    expect(await runGrpcMatrix(q, credentials)).toEqual(expectedGrpcMatrix(credentials, COLLECTIONS, q.version));
    expect(await q.snapshotState()).toEqual({ collections: COLLECTIONS, aliases: [], points: { [C]: 3, [OTHER]: 3 } });
  });
});
