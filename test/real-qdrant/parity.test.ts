/**
 * Parity: the stand-in answers the access probes exactly as each real Qdrant version does, over REST
 * and gRPC (status, content-type, error text, result; the `time` field and the HealthCheck's commit
 * are left out). The stand-in exists for the fault modes a real server cannot produce; everywhere
 * else it must be indistinguishable.
 */
import { createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import * as tls from 'node:tls';
import { base64url, signJwt } from '../../tools/testing/jwt';
import type { MatrixRow, ProbeCredential, ProbeTarget, RestProbe, RestProbeAnswer } from '../../tools/testing/real-qdrant';
import {
  describeRealQdrant,
  onOpenServer,
  probeCredentials,
  RealQdrant,
  restProbes,
  runGrpcMatrix,
  runRestMatrix,
  withoutJwtRbac,
} from '../../tools/testing/real-qdrant';
import { canaryKey, StandInQdrant } from '../../tools/testing/stand-in-qdrant';

// Bounds, not expectations: starting real servers and running the matrices takes a few seconds on a busy machine.
jest.setTimeout(120_000);

const KEY = canaryKey();
const READ_ONLY_KEY = canaryKey('canary-ro');
const COLLECTIONS = ['products', 'support-tickets'];
const [C, OTHER] = COLLECTIONS;

/** Tokens and headers at the edges of the auth layer (their `grant` is not used here: only parity counts). */
function edgeCredentials(): ProbeCredential[] {
  const hs512 = (() => {
    const input = `${base64url(JSON.stringify({ alg: 'HS512', typ: 'JWT' }))}.${base64url(JSON.stringify({ access: 'r' }))}`;
    return `${input}.${base64url(createHmac('sha512', KEY).update(input).digest())}`;
  })();
  const now = Math.floor(Date.now() / 1000);
  const edge: [string, Record<string, string>][] = [
    ['empty api-key next to a valid Bearer', { 'api-key': '', 'authorization': `Bearer ${KEY}` }],
    ['wrong api-key next to a valid Bearer', { 'api-key': 'wrong', 'authorization': `Bearer ${KEY}` }],
    ['lower-case bearer', { authorization: `bearer ${KEY}` }],
    ['read-only key as Bearer', { authorization: `Bearer ${READ_ONLY_KEY}` }],
    ['JWT without claims (full access)', { 'api-key': signJwt(KEY, {}) }],
    ['JWT with an unknown claim', { 'api-key': signJwt(KEY, { access: 'r', foo: 1 }) }],
    ['JWT expired 40 s ago', { 'api-key': signJwt(KEY, { access: 'r', exp: now - 40 }) }],
    ['JWT with exp as a string', { 'api-key': signJwt(KEY, { access: 'r', exp: 'soon' }) }],
    ['JWT with a fractional exp', { 'api-key': signJwt(KEY, { access: 'r', exp: now + 3600.5 }) }],
    ['JWT with access "x"', { 'api-key': signJwt(KEY, { access: 'x' }) }],
    ['JWT with access "x", expired', { 'api-key': signJwt(KEY, { access: 'x', exp: now - 3600 }) }],
    ['JWT expired and badly signed', { 'api-key': signJwt('other', { access: 'r', exp: now - 3600 }) }],
    ['JWT with a payload constraint', { 'api-key': signJwt(KEY, { access: [{ collection: C, access: 'r', payload: { a: 1 } }] }) }],
    ['JWT with prw on a collection', { 'api-key': signJwt(KEY, { access: [{ collection: C, access: 'prw' }] }) }],
    ['JWT rw on a missing collection', { 'api-key': signJwt(KEY, { access: [{ collection: 'missing-collection', access: 'rw' }] }) }],
    ['JWT signed with the read-only key', { 'api-key': signJwt(READ_ONLY_KEY, { access: 'r' }) }],
    ['JWT signed with HS512', { 'api-key': hs512 }],
    ['JWT with alg none', { 'api-key': `${base64url('{"alg":"none","typ":"JWT"}')}.${base64url('{"access":"r"}')}.` }],
    ['three dotted parts that are no JWT', { 'api-key': 'aaa.bbb.ccc' }],
  ];
  return edge.map(([name, headers]) => ({ name, headers, grant: 'manage' }));
}

/**
 * More REST probes, beyond the §9.2 set: bodies that do not parse, and paths around them. (Not
 * `GET /collections/<existing>`: its collection info is more than the stand-in models.)
 */
function moreProbes(): RestProbe[] {
  return [
    { name: 'POST /collections/aliases, no body', method: 'POST', path: '/collections/aliases', kind: 'aliases' },
    { name: 'POST points/delete, no body', method: 'POST', path: `/collections/${C}/points/delete`, kind: 'delete', collection: C },
    { name: 'GET /collections/products/exists/ (trailing slash)', method: 'GET', path: `/collections/${C}/exists/`, kind: 'exists', collection: C },
    { name: 'GET /collections/missing-collection', method: 'GET', path: '/collections/missing-collection', kind: 'exists' },
    { name: 'GET /aliases', method: 'GET', path: '/aliases', kind: 'list' },
    { name: 'GET /nope (unknown path)', method: 'GET', path: '/nope', kind: 'list' },
    { name: 'GET /healthz', method: 'GET', path: '/healthz', kind: 'list' },
    // The checker's root step: Qdrant's version JSON with any key or none (GET / is not checked).
    { name: 'GET / (the root step)', method: 'GET', path: '/', kind: 'list' },
  ];
}

/**
 * runRestMatrix (same rows, same order) with the credentials minted afresh for each probe. Some
 * tokens depend on the clock: "JWT r expired 10 s ago (leeway)" must reach each server inside
 * Qdrant's 30 s leeway, and a whole matrix is hundreds of sequential TLS requests, run once per
 * server; minted once, the token could age out of the leeway on a busy machine. Per probe, it is
 * at most one probe's round of requests older than minted.
 */
async function restMatrix(
  target: ProbeTarget, credentials: () => ProbeCredential[], probes: readonly RestProbe[],
): Promise<MatrixRow<RestProbeAnswer>[]> {
  const rows: MatrixRow<RestProbeAnswer>[] = [];
  for (const probe of probes) rows.push(...await runRestMatrix(target, credentials(), [probe]));
  return rows;
}

/** The protocol a TLS server picks from `ALPNProtocols` (false: none). */
function alpnOf(url: string, caFile: string, ALPNProtocols: string[] | undefined): Promise<string | false> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const options = { host: u.hostname, port: Number(u.port), ca: fs.readFileSync(caFile), ...(ALPNProtocols ? { ALPNProtocols } : {}) };
    const socket = tls.connect(options, () => {
      resolve(socket.alpnProtocol ?? false);
      socket.destroy();
    });
    socket.on('error', reject);
  });
}

describeRealQdrant('parity: stand-in vs real Qdrant', () => {
  let real: RealQdrant;
  let standIn: StandInQdrant;
  beforeAll(async () => {
    real = await RealQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, jwtRbac: true, collections: COLLECTIONS });
    standIn = await StandInQdrant.start({
      apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, jwtRbac: true, collections: COLLECTIONS, version: real.version,
    });
  });
  afterAll(async () => {
    await standIn?.stop();
    await real?.stop();
  });

  test('REST: the §9.2 probes with every credential', async () => {
    const credentials = () => probeCredentials(KEY, READ_ONLY_KEY, C);
    const probes = restProbes(C, OTHER);
    expect(await restMatrix(standIn, credentials, probes)).toEqual(await restMatrix(real, credentials, probes));
  });

  test('REST: the same probes about the other collection (scoped tokens out of reach)', async () => {
    const credentials = () => probeCredentials(KEY, READ_ONLY_KEY, C);
    const probes = restProbes(OTHER, C);
    expect(await restMatrix(standIn, credentials, probes)).toEqual(await restMatrix(real, credentials, probes));
  });

  test('REST: edge credentials and more probes', async () => {
    const credentials = () => [...edgeCredentials(), ...probeCredentials(KEY, READ_ONLY_KEY, C)];
    const probes = [...restProbes(C, OTHER), ...moreProbes()];
    expect(await restMatrix(standIn, credentials, probes)).toEqual(await restMatrix(real, credentials, probes));
  });

  test('REST: the same protocols by ALPN (HTTP/2 and HTTP/1.1; the checker sends a check over one HTTP/2 connection)', async () => {
    const offers = [['h2', 'http/1.1'], ['http/1.1', 'h2'], ['http/1.1'], ['h2'], undefined];
    const negotiate = async (url: string, caFile: string) => {
      const picked: (string | false)[] = [];
      for (const ALPNProtocols of offers) picked.push(await alpnOf(url, caFile, ALPNProtocols));
      return picked;
    };
    const onReal = await negotiate(real.restUrl, real.caFile!);
    expect(onReal[0]).toBe('h2');
    expect(await negotiate(standIn.url, standIn.caFile)).toEqual(onReal);
  });

  test('gRPC: HealthCheck and Collections/List with every credential', async () => {
    // Minted per server, as restMatrix does per probe: a run is a few dozen calls on one connection.
    const credentials = () => [...probeCredentials(KEY, READ_ONLY_KEY, C), ...edgeCredentials()];
    expect(await runGrpcMatrix(standIn, credentials())).toEqual(await runGrpcMatrix(real, credentials()));
  });
});

describeRealQdrant('parity without jwt_rbac, and on an open cluster', () => {
  let keyed: RealQdrant;
  let open: RealQdrant;
  let standIn: StandInQdrant;
  beforeAll(async () => {
    [keyed, open] = await Promise.all([
      RealQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, collections: COLLECTIONS }),
      RealQdrant.start({ collections: COLLECTIONS }),
    ]);
    standIn = await StandInQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, collections: COLLECTIONS, version: keyed.version });
  });
  afterAll(async () => {
    await standIn?.stop();
    await Promise.all([keyed?.stop(), open?.stop()]);
  });
  beforeEach(() => standIn.setMode('normal'));

  test('jwt_rbac off: every JWT is refused the same way, REST and gRPC', async () => {
    const credentials = withoutJwtRbac([...probeCredentials(KEY, READ_ONLY_KEY, C), ...edgeCredentials()]);
    const probes = restProbes(C, OTHER);
    expect(await runRestMatrix(standIn, credentials, probes)).toEqual(await runRestMatrix(keyed, credentials, probes));
    expect(await runGrpcMatrix(standIn, credentials)).toEqual(await runGrpcMatrix(keyed, credentials));
  });

  test('open mode answers like a server without keys', async () => {
    standIn.setMode('open');
    const credentials = onOpenServer(probeCredentials(KEY, READ_ONLY_KEY, C));
    const probes = restProbes(C, OTHER);
    expect(await runRestMatrix(standIn, credentials, probes)).toEqual(await runRestMatrix(open, credentials, probes));
    expect(await runGrpcMatrix(standIn, credentials)).toEqual(await runGrpcMatrix(open, credentials));
  });
});
