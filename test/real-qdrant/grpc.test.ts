/**
 * The checker's low-level gRPC client (assets/checker/grpc.js) against each real Qdrant version on
 * its own gRPC port over TLS: the health check that needs no key, Collections/List with each kind of
 * credential, and TLS verification. The timeout and fault cases run against the stand-in
 * (test/checker/grpc.test.ts): a real server always answers.
 */
import * as fs from 'node:fs';
import * as tls from 'node:tls';
import type { GrpcClient } from '../../assets/checker/grpc';
import { decodeHealthCheckReply, decodeListCollections, encodeEmpty, GrpcStatus, openGrpc } from '../../assets/checker/grpc';
import { collectionJwt, manageJwt, readJwt } from '../../tools/testing/jwt';
import { describeRealQdrant, RealQdrant } from '../../tools/testing/real-qdrant';
import { canaryKey, createTestCa } from '../../tools/testing/stand-in-qdrant';

// Bounds, not expectations: starting real servers and running the matrices takes a few seconds on a busy machine.
jest.setTimeout(120_000);

const KEY = canaryKey();
const READ_ONLY_KEY = canaryKey('canary-ro');
const LIST = '/qdrant.Collections/List';
const HEALTH = '/qdrant.Qdrant/HealthCheck';
const BOTH = ['products', 'support-tickets'];

describeRealQdrant('gRPC client against real Qdrant', () => {
  let q: RealQdrant;
  let c: GrpcClient;
  beforeAll(async () => {
    q = await RealQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, jwtRbac: true, collections: BOTH });
    c = openGrpc(q.grpcUrl, { secureContext: tls.createSecureContext({ ca: fs.readFileSync(q.caFile!) }), timeoutMs: 10_000 });
  });
  afterAll(async () => {
    await c?.close();
    await q?.stop();
  });

  test('HealthCheck without a key, or with a wrong one: status 0, title and version (no commit in this build)', async () => {
    for (const metadata of [{}, { 'api-key': 'wrong' }] as Record<string, string>[]) {
      const r = await c.call(HEALTH, { metadata, message: encodeEmpty() });
      expect(r).toMatchObject({ grpcStatus: 0, grpcMessage: '', httpStatus: 200, contentType: 'application/grpc', trailersOnly: false });
      expect(decodeHealthCheckReply(r.messages[0])).toEqual({ title: 'qdrant - vector search engine', version: q.version });
    }
  });

  test.each([
    ['manage key', () => ({ 'api-key': KEY }), BOTH],
    ['read-only key', () => ({ 'api-key': READ_ONLY_KEY }), BOTH],
    ['manage key as Bearer', () => ({ authorization: `Bearer ${KEY}` }), BOTH],
    ['JWT r', () => ({ 'api-key': readJwt(KEY) }), BOTH],
    ['JWT m', () => ({ 'api-key': manageJwt(KEY) }), BOTH],
    ['JWT products r', () => ({ 'api-key': collectionJwt(KEY, [{ collection: 'products', access: 'r' }]) }), ['products']],
    ['JWT products rw', () => ({ 'api-key': collectionJwt(KEY, [{ collection: 'products', access: 'rw' }]) }), ['products']],
  ])('List with %s: status 0 and the collections it may see', async (_name, metadata, names) => {
    const r = await c.call(LIST, { metadata: metadata(), message: encodeEmpty() });
    expect(r).toMatchObject({ grpcStatus: GrpcStatus.OK, grpcMessage: '', trailersOnly: false });
    expect(decodeListCollections(r.messages[0]).sort()).toEqual(names);
  });

  test.each([
    ['no key', () => ({}), GrpcStatus.UNAUTHENTICATED, 'Must provide an API key or an Authorization bearer token'],
    ['a wrong key', () => ({ 'api-key': 'wrong' }), GrpcStatus.UNAUTHENTICATED, 'Invalid API key or JWT'],
    ['an empty api-key next to a valid Bearer', () => ({ 'api-key': '', 'authorization': `Bearer ${KEY}` }), GrpcStatus.UNAUTHENTICATED, 'Invalid API key or JWT'],
    ['an expired JWT', () => ({ 'api-key': readJwt(KEY, -3600) }), GrpcStatus.PERMISSION_DENIED, 'ExpiredSignature'],
    ['a JWT with a bad signature', () => ({ 'api-key': readJwt(`not-${KEY}`) }), GrpcStatus.PERMISSION_DENIED, 'InvalidSignature'],
  ])('List with %s: a trailers-only answer', async (_name, metadata, status, message) => {
    expect(await c.call(LIST, { metadata: metadata(), message: encodeEmpty() })).toEqual({
      grpcStatus: status, grpcMessage: message, statusFromHttp: false, trailersOnly: true, httpStatus: 200, contentType: 'application/grpc', messages: [],
    });
  });

  test('an unknown method with a valid key: trailers-only 12 UNIMPLEMENTED', async () => {
    expect(await c.call('/qdrant.Nope/Nothing', { metadata: { 'api-key': KEY } })).toMatchObject({ grpcStatus: 12, grpcMessage: '', trailersOnly: true });
  });

  test('TLS: without the CA, or trusting another CA, the call fails with the verify error', async () => {
    const other = createTestCa();
    const untrusting = [
      openGrpc(q.grpcUrl, { timeoutMs: 10_000 }),
      openGrpc(q.grpcUrl, { secureContext: tls.createSecureContext({ ca: fs.readFileSync(other.caFile) }), timeoutMs: 10_000 }),
    ];
    try {
      for (const u of untrusting) {
        await expect(u.call(HEALTH)).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
      }
    } finally {
      await Promise.all(untrusting.map((u) => u.close()));
      fs.rmSync(other.dir, { recursive: true, force: true });
    }
  });
});
