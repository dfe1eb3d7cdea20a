/**
 * The checker's low-level gRPC client (assets/checker/grpc.ts, grpc-messages.ts) against the stand-in's gRPC port:
 * answers and statuses, TLS that NODE_TLS_REJECT_UNAUTHORIZED=0 cannot switch off, timeouts,
 * no retries, bounded reads, and the protobuf reader on bytes captured from a real Qdrant 1.18.3.
 */
import * as fs from 'node:fs';
import * as http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import * as net from 'node:net';
import * as tls from 'node:tls';
import * as zlib from 'node:zlib';
import { GrpcAnswer, GrpcClient, openGrpc, parseGrpcUrl } from '../../assets/checker/grpc';
import {
  decodeFrames,
  decodeGrpcMessage,
  decodeHealthCheckReply,
  decodeListCollections,
  encodeEmpty,
  frame,
  GrpcStatus,
  MAX_RESPONSE_BYTES,
} from '../../assets/checker/grpc-messages';
import { collectionJwt, readJwt, signJwt } from '../../tools/testing/jwt';
import { runNode } from '../../tools/testing/run-node';
import { canaryKey, createTestCa, getTestCa, StandInQdrant } from '../../tools/testing/stand-in-qdrant';

const KEY = canaryKey();
const READ_ONLY_KEY = canaryKey('canary-ro');
const MISSING = 'Must provide an API key or an Authorization bearer token';
const INVALID = 'Invalid API key or JWT';
const LIST = '/qdrant.Collections/List';
const HEALTH = '/qdrant.Qdrant/HealthCheck';

let s: StandInQdrant;
let trusted: tls.SecureContext;
const clients: GrpcClient[] = [];

/** A client that trusts the test CA; closed after each test. */
function client(url = s.grpcUrl, timeoutMs = 5000): GrpcClient {
  const c = openGrpc(url, { secureContext: trusted, timeoutMs });
  clients.push(c);
  return c;
}

function list(metadata: Record<string, string> = {}): Promise<GrpcAnswer> {
  return client().call(LIST, { metadata, message: encodeEmpty() });
}

beforeAll(async () => {
  s = await StandInQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, jwtRbac: true });
  trusted = tls.createSecureContext({ ca: fs.readFileSync(s.caFile) });
});
afterAll(() => s.stop());
beforeEach(() => s.setMode('normal'));
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

describe('answers of the stand-in (as measured on Qdrant 1.18.3)', () => {
  test('HealthCheck needs no key: status 0, a HealthCheckReply with title and version', async () => {
    for (const metadata of [{}, { 'api-key': 'wrong' }] as Record<string, string>[]) {
      const r = await client().call(HEALTH, { metadata, message: encodeEmpty() });
      expect(r).toMatchObject({ grpcStatus: 0, grpcMessage: '', httpStatus: 200, contentType: 'application/grpc', trailersOnly: false, statusFromHttp: false });
      expect(r.messages).toHaveLength(1);
      expect(decodeHealthCheckReply(r.messages[0])).toEqual({ title: 'qdrant - vector search engine', version: '1.16.2', commit: expect.any(String) });
    }
  });

  test.each([
    ['manage key', { 'api-key': KEY }, ['products', 'support-tickets']],
    ['read-only key', { 'api-key': READ_ONLY_KEY }, ['products', 'support-tickets']],
    ['manage key as Bearer', { authorization: `Bearer ${KEY}` }, ['products', 'support-tickets']],
    ['JWT r', { 'api-key': readJwt(KEY) }, ['products', 'support-tickets']],
    ['JWT products r', { 'api-key': collectionJwt(KEY, [{ collection: 'products', access: 'r' }]) }, ['products']],
  ])('List with %s: status 0 and the collections it may see', async (_name, metadata, names) => {
    const r = await list(metadata);
    expect(r).toMatchObject({ grpcStatus: GrpcStatus.OK, grpcMessage: '', trailersOnly: false });
    expect(decodeListCollections(r.messages[0])).toEqual(names);
  });

  test.each([
    ['no key', {}, GrpcStatus.UNAUTHENTICATED, MISSING],
    ['a wrong key', { 'api-key': 'wrong' }, GrpcStatus.UNAUTHENTICATED, INVALID],
    ['an empty api-key next to a valid Bearer', { 'api-key': '', 'authorization': `Bearer ${KEY}` }, GrpcStatus.UNAUTHENTICATED, INVALID],
    ['a lower-case bearer', { authorization: `bearer ${KEY}` }, GrpcStatus.UNAUTHENTICATED, MISSING],
    ['an expired JWT', { 'api-key': readJwt(KEY, -3600) }, GrpcStatus.PERMISSION_DENIED, 'ExpiredSignature'],
    ['a JWT with a bad signature', { 'api-key': readJwt(`not-${KEY}`) }, GrpcStatus.PERMISSION_DENIED, 'InvalidSignature'],
  ])('List with %s: a trailers-only answer', async (_name, metadata, status, message) => {
    const r = await list(metadata);
    expect(r).toEqual({
      grpcStatus: status, grpcMessage: message, statusFromHttp: false, trailersOnly: true, httpStatus: 200, contentType: 'application/grpc', messages: [],
    });
  });

  test('a JWT while jwt_rbac is off: 16 Invalid API key or JWT', async () => {
    const off = await StandInQdrant.start({ apiKey: KEY });
    try {
      const c = client(off.grpcUrl);
      expect(await c.call(LIST, { metadata: { 'api-key': signJwt(KEY, { access: 'm' }) } })).toMatchObject({ grpcStatus: 16, grpcMessage: INVALID });
    } finally {
      await off.stop();
    }
  });

  test('an unknown method with a valid key: 12 UNIMPLEMENTED', async () => {
    expect(await client().call('/qdrant.Nope/Nothing', { metadata: { 'api-key': KEY } })).toMatchObject({ grpcStatus: 12, trailersOnly: true });
  });

  test('the key travels only in the metadata it was given', async () => {
    s.grpcRequests.length = 0;
    await list({ 'api-key': KEY });
    expect(s.grpcRequests).toHaveLength(1);
    const [q] = s.grpcRequests;
    expect(q.path).toBe(LIST);
    expect(q.headers).toMatchObject({ 'api-key': KEY, 'content-type': 'application/grpc', 'te': 'trailers' });
    expect(q.rawHeaders.filter((v) => v.includes(KEY))).toEqual([KEY]);
    expect(q.headers.authorization).toBeUndefined();
  });

  test('open mode: no key needed', async () => {
    s.setMode('open');
    expect(decodeListCollections((await list()).messages[0])).toEqual(['products', 'support-tickets']);
  });
});

describe('the stand-in\'s modes over gRPC', () => {
  test('cloud-edge: even the health check needs a valid key', async () => {
    s.setMode('cloud-edge');
    expect(await client().call(HEALTH)).toMatchObject({ grpcStatus: 16, trailersOnly: true });
    expect((await client().call(HEALTH, { metadata: { 'api-key': KEY } })).grpcStatus).toBe(0);
  });

  test('strip-api-key: the api-key metadata is dropped on the way, Bearer gets through', async () => {
    s.setMode('strip-api-key');
    expect(await list({ 'api-key': KEY })).toMatchObject({ grpcStatus: 16, grpcMessage: MISSING });
    expect((await list({ authorization: `Bearer ${KEY}` })).grpcStatus).toBe(0);
  });

  test('echo-key: grpc-message is untrusted text that can carry what was sent', async () => {
    s.setMode('echo-key');
    const r = await list({ 'api-key': 'not-a-secret' });
    expect(r).toMatchObject({ grpcStatus: 16, trailersOnly: true });
    expect(r.grpcMessage).toBe(`${INVALID}: got api-key=not-a-secret authorization=undefined`);
  });

  test('slow: the answer still comes', async () => {
    s.setMode('slow', { slowMs: 50 });
    expect((await list({ 'api-key': KEY })).grpcStatus).toBe(0);
  });
});

describe('no retries, nothing followed, HTTP errors mapped', () => {
  test('a proxy 503 without grpc-status maps to 14; one request, no retry', async () => {
    s.setMode('flaky-5xx', { failFirst: 1 });
    s.grpcRequests.length = 0;
    expect(await list({ 'api-key': KEY })).toMatchObject({ grpcStatus: GrpcStatus.UNAVAILABLE, statusFromHttp: true, httpStatus: 503, messages: [] });
    expect(s.grpcRequests).toHaveLength(1);
    expect((await list({ 'api-key': KEY })).grpcStatus).toBe(0); // the caller retries
  });

  test('429 maps to 14', async () => {
    s.setMode('rate-limited', { failFirst: 1 });
    expect(await list({ 'api-key': KEY })).toMatchObject({ grpcStatus: GrpcStatus.UNAVAILABLE, statusFromHttp: true, httpStatus: 429 });
  });

  test('a redirect is returned, not followed', async () => {
    s.setMode('redirect');
    s.otherOrigin.requests.length = 0;
    expect(await list({ 'api-key': KEY })).toMatchObject({ grpcStatus: GrpcStatus.UNKNOWN, statusFromHttp: true, httpStatus: 302 });
    expect(s.otherOrigin.requests).toHaveLength(0);
  });

  test('an HTML page over HTTP/2 (not gRPC) is 13 INTERNAL', async () => {
    s.setMode('not-qdrant');
    expect(await list({ 'api-key': KEY })).toMatchObject({ grpcStatus: GrpcStatus.INTERNAL, statusFromHttp: true, httpStatus: 200, contentType: 'text/html; charset=utf-8' });
  });
});

describe('TLS is always verified', () => {
  test('without the CA (Node roots only) the call fails with the verify error', async () => {
    const c = openGrpc(s.grpcUrl, { timeoutMs: 5000 });
    clients.push(c);
    s.grpcRequests.length = 0;
    await expect(c.call(HEALTH)).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(s.grpcRequests).toHaveLength(0);
  });

  test('trusting another CA fails the same way', async () => {
    const other = createTestCa();
    try {
      const c = openGrpc(s.grpcUrl, { secureContext: tls.createSecureContext({ ca: fs.readFileSync(other.caFile) }), timeoutMs: 5000 });
      clients.push(c);
      await expect(c.call(HEALTH)).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    } finally {
      fs.rmSync(other.dir, { recursive: true, force: true });
    }
  });

  test('NODE_TLS_REJECT_UNAUTHORIZED=0 does not switch verification off (a plain http2 client, the control, is fooled)', async () => {
    // Node's TLS reads the variable from the real process environment, which jest's sandboxed
    // process.env does not reach; so the client runs in a child process that inherits process.env.
    const script = `
      const http2 = require('node:http2');
      const { openGrpc } = require(${JSON.stringify(require.resolve('../../assets/checker/grpc.js'))});
      const url = process.env.GRPC_URL;
      (async () => {
        const control = await new Promise((resolve) => {
          const session = http2.connect(url);
          session.once('connect', () => { session.destroy(); resolve('connected'); });
          session.once('error', (e) => resolve(e.code));
        });
        const client = openGrpc(url, { timeoutMs: 5000 });
        const checker = await client.call('/qdrant.Qdrant/HealthCheck').then((a) => 'answered ' + a.grpcStatus, (e) => e.code);
        await client.close();
        console.log(JSON.stringify({ control, checker }));
      })();`;
    const saved = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    try {
      const { code, stdout } = await runNode(['-e', script], { env: { ...process.env, GRPC_URL: s.grpcUrl } }); // stderr: Node's warning about the variable
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ control: 'connected', checker: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    } finally {
      if (saved === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = saved;
    }
  });

  test('localhost matches the certificate as well as 127.0.0.1 (names are checked, SNI sent)', async () => {
    const port = parseGrpcUrl(s.grpcUrl).port;
    expect((await client(`https://localhost:${port}`).call(HEALTH)).grpcStatus).toBe(0);
  });
});

describe('failures reject with a code', () => {
  test('nothing listens: ECONNREFUSED', async () => {
    s.setMode('refused');
    await expect(client().call(HEALTH)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  test('a server that never answers: CHECK_TIMEOUT, without the key in the message', async () => {
    s.setMode('hang');
    const err = await client(s.grpcUrl, 300).call(LIST, { metadata: { 'api-key': KEY } }).catch((e: Error & { code?: string }) => e);
    expect(err).toMatchObject({ code: 'CHECK_TIMEOUT' });
    expect((err as Error).message).not.toContain(KEY);
  });

  test('a server that accepts TCP and never speaks TLS: CHECK_TIMEOUT', async () => {
    const sockets = new Set<Socket>();
    const silent = net.createServer((sock) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (silent.address() as AddressInfo).port;
      await expect(client(`https://127.0.0.1:${port}`, 300).call(HEALTH)).rejects.toMatchObject({ code: 'CHECK_TIMEOUT' });
    } finally {
      for (const sock of sockets) sock.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  test('close() rejects a pending call with ERR_GRPC_CLOSED', async () => {
    s.setMode('hang');
    const c = openGrpc(s.grpcUrl, { secureContext: trusted, timeoutMs: 5000 });
    const pending = expect(c.call(HEALTH)).rejects.toMatchObject({ code: 'ERR_GRPC_CLOSED' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await c.close();
    await pending;
    await expect(c.call(HEALTH)).rejects.toMatchObject({ code: 'ERR_GRPC_CLOSED' });
  });

  test('an answer larger than MAX_RESPONSE_BYTES: ERR_GRPC_TOO_LARGE', async () => {
    const ca = getTestCa();
    const big = http2.createSecureServer({ cert: ca.serverCert, key: ca.serverKey });
    big.on('stream', (stream: http2.ServerHttp2Stream) => {
      stream.on('error', () => undefined);
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
      stream.end(frame(Buffer.alloc(MAX_RESPONSE_BYTES + 10)));
    });
    const sessions = new Set<http2.ServerHttp2Session>();
    big.on('session', (session) => sessions.add(session));
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (big.address() as AddressInfo).port;
      await expect(client(`https://127.0.0.1:${port}`).call(HEALTH)).rejects.toMatchObject({ code: 'ERR_GRPC_TOO_LARGE' });
    } finally {
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => big.close(() => resolve()));
    }
  });
});

describe('arguments', () => {
  test.each([
    ['http://qdrant.example:6334', /https/],
    ['ftp://127.0.0.1:6334', /https/],
    ['https://127.0.0.1:6334/path', /has a path/],
    ['https://user:pw@127.0.0.1:6334', /\*\*\*@/],
    ['not a url', /holds whitespace/],
  ])('openGrpc(%s) throws ERR_GRPC_USAGE', (url, message) => {
    expect(() => openGrpc(url, { timeoutMs: 1000 })).toThrow(message);
    expect(() => openGrpc(url, { timeoutMs: 1000 })).toThrow(expect.objectContaining({ code: 'ERR_GRPC_USAGE' }));
  });

  test.each(['https://user:pa/ss-w0rd-part@127.0.0.1:6334', 'https://user:pa#ss-w0rd-part@127.0.0.1:6334'])(
    'a password holding "/" or "#" is masked whole: %s', (url) => {
      expect(() => openGrpc(url, { timeoutMs: 1000 })).toThrow(/gRPC URL "https:\/\/\*\*\*"/);
      expect(() => openGrpc(url, { timeoutMs: 1000 })).not.toThrow(/w0rd/);
    });

  test('https without a port means 6334; http is allowed for loopback', () => {
    expect(parseGrpcUrl('https://xyz.cloud.qdrant.io')).toMatchObject({ port: 6334, origin: 'https://xyz.cloud.qdrant.io:6334' });
    expect(parseGrpcUrl('https://h:443').port).toBe(443);
    expect(parseGrpcUrl('http://localhost:1234').protocol).toBe('http:');
    expect(parseGrpcUrl('https://[::1]:6334').authority).toBe('[::1]:6334');
  });
});

describe('messages and protobuf', () => {
  // Bytes of real Qdrant 1.18.3 answers (built without a git commit id).
  const realHealth = Buffer.from('0a1d716472616e74202d20766563746f722073656172636820656e67696e651206312e31382e33', 'hex');
  const realList = Buffer.from('0a030a01630a070a056f7468657211864e65d71115173f', 'hex');

  test('decodeHealthCheckReply and decodeListCollections read real answers', () => {
    expect(decodeHealthCheckReply(realHealth)).toEqual({ title: 'qdrant - vector search engine', version: '1.18.3' });
    expect(decodeListCollections(realList)).toEqual(['c', 'other']);
    expect(decodeListCollections(Buffer.alloc(0))).toEqual([]);
  });

  test('malformed protobuf throws ERR_PROTOBUF', () => {
    expect(() => decodeHealthCheckReply(Buffer.from([0x0a, 0x05, 0x61]))).toThrow(expect.objectContaining({ code: 'ERR_PROTOBUF' }));
    expect(() => decodeHealthCheckReply(Buffer.from([0x0b]))).toThrow(expect.objectContaining({ code: 'ERR_PROTOBUF' }));
  });

  test('frames: the empty message, several messages, a compressed one refused, truncation', () => {
    expect(encodeEmpty()).toEqual(Buffer.from([0, 0, 0, 0, 0]));
    expect(frame(realList).subarray(0, 5)).toEqual(Buffer.from([0, 0, 0, 0, realList.length]));
    expect(decodeFrames(Buffer.concat([frame(realHealth), encodeEmpty()]))).toEqual([realHealth, Buffer.alloc(0)]);
    const gz = zlib.gzipSync(realList);
    const compressed = Buffer.concat([Buffer.from([1, 0, 0, 0, gz.length]), gz]);
    expect(() => decodeFrames(compressed)).toThrow(expect.objectContaining({ code: 'ERR_GRPC_FRAME' }));
    expect(() => decodeFrames(Buffer.from([0, 0, 0, 0, 9, 1]))).toThrow(expect.objectContaining({ code: 'ERR_GRPC_FRAME' }));
  });

  test('grpc-message is percent-decoded; malformed escapes stay', () => {
    expect(decodeGrpcMessage('Must%20provide%20an%20API%20key')).toBe('Must provide an API key');
    expect(decodeGrpcMessage('caf%C3%A9 100%')).toBe('café 100%');
    expect(decodeGrpcMessage('%zz%4')).toBe('%zz%4');
    expect(decodeGrpcMessage(undefined)).toBe('');
  });
});
