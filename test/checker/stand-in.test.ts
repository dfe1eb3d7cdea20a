/**
 * The stand-in behaves like Qdrant where the checker depends on it (raw HTTPS requests), answers
 * the access probes and JWTs as measured on a real Qdrant 1.18.3 (the same table the real-server
 * tests assert; test/real-qdrant/parity.test.ts compares the two directly), and the official
 * @qdrant/js-client-rest client talks to it with the same URL and key.
 */
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import { expIn, signJwt } from '../../tools/testing/jwt';
import {
  expectedGrpcMatrix,
  expectedRestMatrix,
  onOpenServer,
  probeCredentials,
  restProbes,
  runGrpcMatrix,
  runRestMatrix,
  withoutJwtRbac,
} from '../../tools/testing/real-qdrant';
import { runNode } from '../../tools/testing/run-node';
import { canaryKey, StandInQdrant } from '../../tools/testing/stand-in-qdrant';

const KEY = canaryKey();
const READ_ONLY_KEY = canaryKey('canary-ro');

interface Answer {
  readonly status: number;
  readonly type: string | undefined;
  readonly body: string;
}

let s: StandInQdrant;
let ca: Buffer;

beforeAll(async () => {
  s = await StandInQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY });
  ca = fs.readFileSync(s.caFile);
});
afterAll(() => s.stop());
beforeEach(() => s.setMode('normal'));

function request(method: string, p: string, headers: Record<string, string> = {}, json?: unknown, server: StandInQdrant = s): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = json === undefined ? undefined : JSON.stringify(json);
    const all = body === undefined ? headers : { ...headers, 'content-type': 'application/json' };
    const req = https.request(`${server.url}${p}`, { method, ca, headers: all, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('stand-in fidelity (Qdrant >= 1.9 auth)', () => {
  test('whitelisted paths need no key', async () => {
    const root = await request('GET', '/');
    expect(root.status).toBe(200);
    expect(JSON.parse(root.body)).toEqual({ title: 'qdrant - vector search engine', version: '1.16.2', commit: expect.any(String) });
    expect(await request('GET', '/healthz')).toMatchObject({ status: 200, body: 'healthz check passed' });
    expect(await request('GET', '/readyz')).toMatchObject({ status: 200, body: 'all shards are ready' });
    expect(await request('GET', '/livez')).toMatchObject({ status: 200 });
  });

  test('missing and wrong keys: 401 plain text without content-type', async () => {
    expect(await request('GET', '/collections')).toEqual({ status: 401, type: undefined, body: 'Must provide an API key or an Authorization bearer token' });
    expect(await request('GET', '/collections', { 'api-key': 'nope' })).toEqual({ status: 401, type: undefined, body: 'Invalid API key or JWT' });
  });

  test('a good key lists collections in the ApiResponse envelope', async () => {
    const r = await request('GET', '/collections', { 'api-key': KEY });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ result: { collections: [{ name: 'products' }, { name: 'support-tickets' }] }, status: 'ok', time: expect.any(Number) });
  });

  test('api-key wins over Authorization, even when empty; the Bearer prefix is case-sensitive', async () => {
    expect((await request('GET', '/collections', { authorization: `Bearer ${KEY}` })).status).toBe(200);
    expect(await request('GET', '/collections', { 'api-key': '', 'authorization': `Bearer ${KEY}` })).toMatchObject({ status: 401, body: 'Invalid API key or JWT' });
    expect(await request('GET', '/collections', { 'api-key': 'nope', 'authorization': `Bearer ${KEY}` })).toMatchObject({ status: 401 });
    expect(await request('GET', '/collections', { authorization: `bearer ${KEY}` })).toMatchObject({ status: 401, body: 'Must provide an API key or an Authorization bearer token' });
  });

  test('a read-only key may read but not write: 403 JSON', async () => {
    expect((await request('GET', '/collections', { 'api-key': READ_ONLY_KEY })).status).toBe(200);
    const put = await request('PUT', '/collections/new-one', { 'api-key': READ_ONLY_KEY });
    expect(put.status).toBe(403);
    expect(put.type).toBe('application/json');
    expect(JSON.parse(put.body)).toEqual({ status: { error: 'Forbidden: Global manage access is required' }, time: expect.any(Number) });
    expect((await request('PUT', '/collections/new-one', { 'api-key': KEY })).status).toBe(200);
    expect((await request('DELETE', '/collections/new-one', { 'api-key': KEY })).status).toBe(200);
  });

  test('cloud-edge mode: 403 {"error":"forbidden"} on every path without a valid key', async () => {
    s.setMode('cloud-edge');
    for (const p of ['/', '/healthz', '/collections']) {
      expect(await request('GET', p)).toEqual({ status: 403, type: 'application/json; charset=utf-8', body: '{"error":"forbidden"}' });
    }
    expect((await request('GET', '/', { 'api-key': 'nope' })).status).toBe(403);
    expect((await request('GET', '/', { 'api-key': KEY })).status).toBe(200);
    expect((await request('GET', '/healthz', { authorization: `Bearer ${KEY}` })).status).toBe(200);
  });

  test('the request log records method, path and headers', async () => {
    s.requests.length = 0;
    await request('GET', '/collections?x=1', { 'api-key': KEY });
    expect(s.requests).toEqual([expect.objectContaining({ method: 'GET', path: '/collections?x=1', mode: 'normal', headers: expect.objectContaining({ 'api-key': KEY }) })]);
  });
});

describe('JWT RBAC and the side-effect-free access probes (as measured on Qdrant 1.18.3)', () => {
  const COLLECTIONS = ['products', 'support-tickets'];
  const ALT_KEY = canaryKey('canary-alt');
  let rbac: StandInQdrant;
  beforeAll(async () => {
    rbac = await StandInQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, moreApiKeys: [ALT_KEY], jwtRbac: true, collections: COLLECTIONS });
  });
  afterAll(() => rbac.stop());
  beforeEach(() => rbac.setMode('normal'));

  test.each([['products', 'support-tickets'], ['support-tickets', 'products']])('REST: every probe about %s with every credential', async (c, other) => {
    const credentials = probeCredentials(KEY, READ_ONLY_KEY, c);
    const probes = restProbes(c, other);
    expect(await runRestMatrix(rbac, credentials, probes)).toEqual(expectedRestMatrix(credentials, probes, COLLECTIONS));
  });

  test('gRPC: HealthCheck and Collections/List with every credential', async () => {
    const credentials = probeCredentials(KEY, READ_ONLY_KEY, 'products');
    expect(await runGrpcMatrix(rbac, credentials)).toEqual(expectedGrpcMatrix(credentials, COLLECTIONS, '1.16.2'));
  });

  test('jwt_rbac off: every JWT is 401 Invalid API key or JWT, REST and gRPC', async () => {
    const credentials = withoutJwtRbac(probeCredentials(KEY, READ_ONLY_KEY, 'products'));
    const probes = restProbes('products', 'support-tickets');
    expect(await runRestMatrix(s, credentials, probes)).toEqual(expectedRestMatrix(credentials, probes, COLLECTIONS));
    expect(await runGrpcMatrix(s, credentials)).toEqual(expectedGrpcMatrix(credentials, COLLECTIONS, '1.16.2'));
  });

  test('open mode: everything may manage, REST and gRPC', async () => {
    rbac.setMode('open');
    const credentials = onOpenServer(probeCredentials(KEY, READ_ONLY_KEY, 'products'));
    const probes = restProbes('products', 'support-tickets');
    expect(await runRestMatrix(rbac, credentials, probes)).toEqual(expectedRestMatrix(credentials, probes, COLLECTIONS));
    expect(await runGrpcMatrix(rbac, credentials)).toEqual(expectedGrpcMatrix(credentials, COLLECTIONS, '1.16.2'));
  });

  test('exp has 30 s of leeway; a token signed with another manage key (like alt_api_key) is accepted', async () => {
    const list = (token: string) => request('GET', '/collections', { 'api-key': token }, undefined, rbac);
    expect((await list(signJwt(KEY, { access: 'r', exp: expIn(-20) }))).status).toBe(200);
    expect(await list(signJwt(KEY, { access: 'r', exp: expIn(-3600) }))).toEqual({ status: 403, type: undefined, body: 'ExpiredSignature' });
    expect((await list(signJwt(ALT_KEY, { access: 'r' }))).status).toBe(200);
    expect(await list(signJwt(READ_ONLY_KEY, { access: 'r' }))).toEqual({ status: 403, type: undefined, body: 'InvalidSignature' });
    expect(await list(signJwt(KEY, { access: 'x' }))).toEqual({ status: 401, type: undefined, body: 'Invalid API key or JWT' });
  });

  test('the probes change nothing; a real alias batch does, and is seen by exists and GET /aliases', async () => {
    const state = async () => [
      JSON.parse((await request('GET', '/collections', { 'api-key': KEY }, undefined, rbac)).body).result,
      JSON.parse((await request('GET', '/aliases', { 'api-key': KEY }, undefined, rbac)).body).result,
    ];
    const before = await state();
    expect(before).toEqual([{ collections: [{ name: 'products' }, { name: 'support-tickets' }] }, { aliases: [] }]);
    await runRestMatrix(rbac, probeCredentials(KEY, READ_ONLY_KEY, 'products'), restProbes('products', 'support-tickets'));
    expect(await state()).toEqual(before);

    const alias = (actions: unknown[]) => request('POST', '/collections/aliases', { 'api-key': KEY }, { actions }, rbac);
    expect((await alias([{ create_alias: { collection_name: 'products', alias_name: 'live' } }])).status).toBe(200);
    expect(JSON.parse((await request('GET', '/collections/live/exists', { 'api-key': KEY }, undefined, rbac)).body).result).toEqual({ exists: true });
    expect((await state())[1]).toEqual({ aliases: [{ alias_name: 'live', collection_name: 'products' }] });
    expect((await alias([{ delete_alias: { alias_name: 'live' } }])).status).toBe(200);
    expect(await state()).toEqual(before);
  });

  test('a body that does not parse: 400 Format error in JSON body', async () => {
    expect(await request('POST', '/collections/aliases', { 'api-key': KEY }, undefined, rbac)).toEqual({
      status: 400, type: 'application/json', body: expect.stringContaining('"error":"Format error in JSON body: EOF while parsing a value at line 1 column 0"'),
    });
  });
});

describe('the official @qdrant/js-client-rest client', () => {
  // The client uses undici with its own Agent and has no option for a CA or a dispatcher, so it
  // runs in a child process that trusts the test CA through NODE_EXTRA_CA_CERTS.
  const script = `
    const { QdrantClient } = require('@qdrant/js-client-rest');
    const client = new QdrantClient({ url: process.env.QDRANT_URL, apiKey: process.env.QDRANT_API_KEY });
    (async () => {
      const version = await client.versionInfo();
      let collections;
      try { collections = await client.getCollections(); } catch (e) { collections = { error: e.message, status: e.status }; }
      console.log(JSON.stringify({ version, collections }));
    })().catch((e) => { console.error(e.message); process.exit(1); });`;

  const clientVersion = (JSON.parse(fs.readFileSync(
    path.join(path.dirname(require.resolve('@qdrant/js-client-rest')), '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

  function runClient(url: string, apiKey: string, caFile: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return runNode(['-e', script], {
      cwd: path.join(__dirname, '..', '..'),
      env: { PATH: process.env.PATH ?? '', NODE_EXTRA_CA_CERTS: caFile, QDRANT_URL: url, QDRANT_API_KEY: apiKey },
    });
  }

  let served: StandInQdrant;
  beforeAll(async () => {
    // The same major.minor as the client, so its compatibility check does not warn.
    served = await StandInQdrant.start({ apiKey: KEY, version: clientVersion });
  });
  afterAll(() => served.stop());

  test('connects with the same URL and key, lists collections', async () => {
    const r = await runClient(served.url, KEY, served.caFile);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      version: { title: 'qdrant - vector search engine', version: clientVersion, commit: expect.any(String) },
      collections: { collections: [{ name: 'products' }, { name: 'support-tickets' }] },
    });
    const keyed = served.requests.filter((q) => q.headers['api-key'] === KEY);
    expect(keyed.map((q) => q.path).sort()).toEqual(['/', '/', '/collections']); // compat check + versionInfo + list
  });

  test('with a wrong key versionInfo() still works (GET / is whitelisted), getCollections() gets 401', async () => {
    const r = await runClient(served.url, 'wrong-key', served.caFile);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { version: { version: string }; collections: { error: string; status: number } };
    expect(out.version.version).toBe(clientVersion);
    expect(out.collections).toEqual({ error: 'Unauthorized', status: 401 });
  });
});
