/**
 * Servers that echo part of the API key, or the key re-encoded (assets/runtime/secrets.ts holdsPart,
 * through safeLine and holdsSecret): a cut, masked, lower-cased, split, escaped or encoded copy,
 * a JWT's signature alone, a short key. None of it may reach the FAIL line; ordinary answers must
 * still show. Real servers on 127.0.0.1 only (the CLI runs as a child process).
 */
import { randomBytes } from 'node:crypto';
import type * as http from 'node:http';
import * as http2 from 'node:http2';
import * as path from 'node:path';
import { checkClusterAccess } from '../../assets/checker';
import type * as Checker from '../../assets/checker';
import { manageJwt } from '../../tools/testing/jwt';
import { runNode } from '../../tools/testing/run-node';
import { LoopbackServer, StandInQdrant } from '../../tools/testing/stand-in-qdrant';


const HIDDEN = '(answer not shown: it holds part of the API key)';
/** The fix a key-rejected line ends with (the catalog's, in the CLI's words). */
const KEY_REJECTED_FIX = '; check the key\'s clusters in the console (setup guide, section 2), set the variable again (setup guide, section 3), or create a new key';
/** Mixed case, with a "/" (PHP's json_encode writes it "\/"); 45 characters. */
const KEY = `Canary/Mixed-${randomBytes(24).toString('base64').replace(/[+=]/g, 'x')}`;
const JWT_KEY = manageJwt(`jwt-secret-${randomBytes(16).toString('hex')}`);
const SIGNATURE = JWT_KEY.split('.')[2];
const FAST = { retries: 0, timeoutSeconds: 2, deadlineSeconds: 10 };
const CLI = path.join(__dirname, '..', '..', 'assets', 'checker', 'cli.js');

/** True when `text` holds any 8 characters in a row of `key` (or of its signature), in any case, once rid of whitespace. */
function showsPart(text: string, key: string): boolean {
  const t = text.toLowerCase().replace(/\s+/g, '');
  const k = key.toLowerCase();
  for (let i = 0; i + 8 <= k.length; i++) if (t.includes(k.slice(i, i + 8))) return true;
  return false;
}

/** Every character of `s` as `%xx` (lower-case hex). */
function percentAll(s: string, upper = false): string {
  const hex = [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  return upper ? hex.toUpperCase() : hex;
}

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((x) => x.stop()));
});

/** A plain-HTTP server on 127.0.0.1 that answers every request with `handler`. */
async function serve(handler: http.RequestListener): Promise<LoopbackServer> {
  const server = await LoopbackServer.start('http', handler);
  servers.push(server);
  return server;
}

/**
 * A server that answers GET / without a key as Qdrant does (so that the key is sent on), and
 * every other request 401 with `body` (computed from the credential it got).
 */
async function rejecting(body: (key: string) => string, type = 'text/plain'): Promise<LoopbackServer> {
  return serve((req, res) => {
    const key = String(req.headers['api-key'] ?? String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (req.url === '/' && key === '') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ title: 'qdrant - vector search engine', version: '1.18.3' }));
      return;
    }
    res.writeHead(401, { 'content-type': type });
    res.end(body(key));
  });
}

async function check(url: string, apiKey: string): Promise<Checker.CheckReport> {
  return checkClusterAccess({ url, apiKey, ...FAST });
}

describe('a 401 body with part of the key: the answer is not shown', () => {
  const mime = (k: string): string => Buffer.from(`{"error":"invalid","api-key":"${k}","tries":3}`).toString('base64').replace(/.{1,76}/g, '$&\r\n');
  test.each<[string, (k: string) => string, string]>([
    ['its first 24 characters and "..."', (k) => `Invalid API key ${k.slice(0, 24)}...`, 'text/plain'],
    ['prefix****suffix (4 + 4)', (k) => `Invalid API key ${k.slice(0, 4)}****${k.slice(-4)}`, 'text/plain'],
    ['prefix****suffix (8 + 8)', (k) => `Invalid API key ${k.slice(0, 8)}****${k.slice(-8)}`, 'text/plain'],
    ['its last 20 characters', (k) => `Invalid API key ending in ${k.slice(-20)}`, 'text/plain'],
    ['the key lower-cased', (k) => `Invalid API key ${k.toLowerCase()}`, 'text/plain'],
    ['the key upper-cased, in a longer word', (k) => `Invalid API key X${k.toUpperCase()}X`, 'text/plain'],
    ['the key split by a space', (k) => `Invalid API key ${k.slice(0, 20)} ${k.slice(20)}`, 'text/plain'],
    ['the key split by zero-width spaces', (k) => `Invalid API key ${[...k].join('\u200b')}`, 'text/plain'],
    ['MIME-wrapped base64 of it', (k) => `Invalid credentials:\r\n${mime(k)}`, 'text/plain'],
    ['\\uXXXX escapes in JSON with no known field', (k) => JSON.stringify({ detail: 'x' }).replace('x', [...k].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')), 'application/json'],
    ['&#NN; entities', (k) => `Invalid API key ${[...k].map((c) => `&#${c.charCodeAt(0)};`).join('')}`, 'text/plain'],
    ['an HTML <title> with entities', (k) => `<html><head><title>Bad key ${[...k].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join('')}</title></head></html>`, 'text/html'],
    ['an HTML <title> with named entities', (k) => `<html><head><title>Bad key ${k.replace(/\//g, '&sol;').replace(/-/g, '&hyphen;')}</title></head></html>`, 'text/html'],
    ['fully percent-encoded, lower-case hex', (k) => `Invalid API key ${percentAll(k)}`, 'text/plain'],
    ['fully percent-encoded, upper-case hex', (k) => `Invalid API key ${percentAll(k, true)}`, 'text/plain'],
    ['percent-encoded twice', (k) => `Invalid API key ${percentAll(k).replace(/%/g, '%25')}`, 'text/plain'],
    ['encodeURIComponent lower-cased', (k) => `Invalid API key ${encodeURIComponent(k).toLowerCase()}`, 'text/plain'],
    ['PHP-style \\/ inside {"detail":…}', (k) => `{"detail":"Invalid API key ${k.replace(/\//g, '\\/')}"}`, 'application/json'],
  ])('%s', async (_what, body, type) => {
    const server = await rejecting(body, type);
    const r = await check(server.url, KEY);
    expect(r).toMatchObject({ ok: false, failedStep: 'key', failureId: 'key-rejected' });
    expect(r.reason).toBe(`key rejected (401 ${HIDDEN})${KEY_REJECTED_FIX}`);
    expect(showsPart(JSON.stringify(r), KEY)).toBe(false);
  });

  test('a JWT key: a 401 body "InvalidSignature: <signature>" shows nothing of the signature', async () => {
    const server = await rejecting(() => `InvalidSignature: ${SIGNATURE}`);
    const r = await check(server.url, JWT_KEY);
    expect(r.reason).toBe(`key rejected (401 ${HIDDEN})${KEY_REJECTED_FIX}`);
    expect(showsPart(JSON.stringify(r), SIGNATURE)).toBe(false);
  });

  test('a key shorter than 6 characters is not shown either (as a word)', async () => {
    const server = await rejecting((k) => `Invalid API key ${k}`);
    const r = await check(server.url, 's3kr1');
    expect(r.reason).toBe(`key rejected (401 ${HIDDEN})${KEY_REJECTED_FIX}`);
    expect(JSON.stringify(r)).not.toContain('s3kr1');
  });
});

describe('a Location header with part of the key is not shown', () => {
  test.each<[string, string, (k: string) => string]>([
    ['a JWT signature\'s first 30 characters, lower-cased, as the host', JWT_KEY, () => `https://${SIGNATURE.slice(0, 30).toLowerCase()}.example.invalid/`],
    ['20 characters of the key, percent-encoded, as the host', KEY, (k) => `https://${percentAll(k.slice(-20))}.example.invalid/`],
  ])('%s', async (_what, apiKey, location) => {
    const server = await serve((_req, res) => {
      res.writeHead(302, { location: location(apiKey) });
      res.end();
    });
    const r = await check(server.url, apiKey);
    expect(r).toMatchObject({ ok: false, failedStep: 'root', failureId: 'redirect' });
    expect(r.reason).toBe(`redirected (302) to ${HIDDEN} — not followed so the key is not sent elsewhere; use the final URL`);
    expect(showsPart(JSON.stringify(r), apiKey === JWT_KEY ? SIGNATURE : apiKey)).toBe(false);
  });

  test('a Location without any of the key still shows its origin', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(302, { location: 'https://login.example.invalid/sso?x=1' });
      res.end();
    });
    const r = await check(server.url, KEY);
    expect(r.reason).toBe('redirected (302) to https://login.example.invalid — not followed so the key is not sent elsewhere; use the final URL');
  });
});

describe('gRPC: a grpc-message or content-type with part of the key is not shown', () => {
  let standIn: StandInQdrant;
  beforeAll(async () => {
    standIn = await StandInQdrant.start({ apiKey: KEY, protocol: 'http' });
  });
  afterAll(() => standIn.stop());

  async function grpcServer(
    handler: (stream: http2.ServerHttp2Stream, method: string, headers: http2.IncomingHttpHeaders) => void,
  ): Promise<LoopbackServer> {
    const server = await LoopbackServer.startGrpcAnswering(handler);
    servers.push(server);
    return server;
  }

  test('a grpc-message with the key lower-cased', async () => {
    const server = await grpcServer((stream, method) => {
      if (method === '/qdrant.Qdrant/HealthCheck') {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(Buffer.from([0, 0, 0, 0, 8, 0x12, 6, ...Buffer.from('1.18.3')]));
        return;
      }
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': encodeURIComponent(`Invalid API key ${KEY.toLowerCase()}`) }, { endStream: true });
    });
    const r = await checkClusterAccess({ url: standIn.url, grpcUrl: server.url, apiKey: KEY, ...FAST });
    expect(r).toMatchObject({ ok: false, failedStep: 'grpc', failureId: 'grpc-rejected' });
    expect(r.reason).toContain(`(16 ${HIDDEN} from /qdrant.Collections/List)`);
    expect(showsPart(JSON.stringify(r), KEY)).toBe(false);
  });

  test('an HTTP answer whose content-type holds the key\'s last 20 characters', async () => {
    const server = await grpcServer((stream) => {
      stream.respond({ ':status': 404, 'content-type': `text/${KEY.slice(-20)}` }, { endStream: true });
    });
    const r = await checkClusterAccess({ url: standIn.url, grpcUrl: server.url, apiKey: KEY, ...FAST });
    expect(r).toMatchObject({ ok: false, failedStep: 'grpc', failureId: 'grpc-not-qdrant' });
    expect(r.reason).toContain(`answered HTTP 404 (${HIDDEN})`);
    expect(showsPart(JSON.stringify(r), KEY)).toBe(false);
  });
});

describe('ordinary answers still show', () => {
  test('a 401 "Invalid API key or JWT", with a JWT key and with a short key', async () => {
    const server = await rejecting(() => 'Invalid API key or JWT');
    for (const apiKey of [JWT_KEY, KEY, 'key42', 'jwt-key', 's3kr1-api']) {
      const r = await check(server.url, apiKey);
      expect(r.reason).toBe(`key rejected (401 Invalid API key or JWT)${KEY_REJECTED_FIX}`);
    }
  });

  test('a collection name that shares 5 characters with the key', async () => {
    const shared = KEY.slice(0, 5).toLowerCase();
    const server = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: { error: `Not found: Collection \`${shared}-logs\` doesn't exist!` }, time: 0.0001 }));
    });
    const r = await check(server.url, KEY);
    expect(r.reason).toBe(`unexpected answer to GET /: 404 Not found: Collection \`${shared}-logs\` doesn't exist!; check the cluster's status in the console and the address; run the check again`);
  });

  test('Qdrant\'s version JSON (a full check against the stand-in passes)', async () => {
    const standIn = await StandInQdrant.start({ apiKey: KEY, protocol: 'http' });
    try {
      const r = await check(standIn.url, KEY);
      expect(r).toMatchObject({ ok: true, keyStatus: 'accepted' });
      expect(r.qdrantVersion).toMatch(/^\d+\.\d+\.\d+$/);
    } finally {
      await standIn.stop();
    }
  });
});

describe('the CLI\'s FAIL line', () => {
  test.each<[string, string, (k: string) => string]>([
    ['a JWT signature in a 401 body', JWT_KEY, () => `InvalidSignature: ${SIGNATURE}`],
    ['a key shorter than 6 characters', 's3kr1', (k) => `Invalid API key ${k}`],
    ['a lower-cased copy of the key', KEY, (k) => `Invalid API key ${k.toLowerCase()}`],
  ])('%s', async (_what, apiKey, body) => {
    const server = await rejecting(body);
    const r = await runNode([CLI, 'check', '--url', server.url, '--retries', '0'], {
      env: { PATH: process.env.PATH ?? '', QDRANT_API_KEY: apiKey }, killAfterMs: 30000,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL 127\.0\.0\.1:\d+ {2}step key: key rejected \(401 \(answer not shown: it holds part of the API key\)\); check the key's clusters in the console \(setup guide, section 2\), set the variable again \(setup guide, section 3\), or create a new key {2}\d+ ms\n$/);
    const secret = apiKey === JWT_KEY ? SIGNATURE : apiKey;
    expect(showsPart(r.stdout + r.stderr, secret)).toBe(false);
    expect((r.stdout + r.stderr).toLowerCase()).not.toContain(secret.toLowerCase());
  }, 60000);
});
