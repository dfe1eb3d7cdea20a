/**
 * Answers built to hurt the checker (assets/checker/rest.ts, grpc.ts, grpc-step.ts): a body that
 * makes a regular expression backtrack, a gzip-compressed gRPC answer, answers larger than the read limit,
 * a Location header that echoes the key, a Retry-After beyond the deadline, HTTP/2 stream resets on
 * gRPC, and key values pasted into options that a message clips. Real servers on 127.0.0.1 only.
 */
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as http2 from 'node:http2';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { checkClusterAccess, checkMany } from '../../assets/checker';
import type * as Checker from '../../assets/checker';
import { answer } from '../../assets/checker/answers';
import { frame } from '../../assets/checker/grpc-messages';
import { runNode } from '../../tools/testing/run-node';
import { LoopbackServer, StandInQdrant } from '../../tools/testing/stand-in-qdrant';


/** Mixed case on purpose: a copy that changed case (a URL parser's host) must not show either. */
const KEY = `Canary-MixedCase-${randomBytes(18).toString('base64url')}`;
const FAST = { retries: 3, backoffBaseMs: 10, backoffCapMs: 50, timeoutSeconds: 2, deadlineSeconds: 10 };
const HEALTH = '/qdrant.Qdrant/HealthCheck';
const CLI = path.join(__dirname, '..', '..', 'assets', 'checker', 'cli.js');

/** True when `text` holds any 8 characters in a row of `key`, in any case. */
function showsKey(text: string, key = KEY): boolean {
  const t = text.toLowerCase();
  const k = key.toLowerCase();
  for (let i = 0; i + 8 <= k.length; i++) if (t.includes(k.slice(i, i + 8))) return true;
  return false;
}

async function check(options: Partial<Checker.CheckOptions>): Promise<Checker.CheckReport> {
  const report = await checkClusterAccess({ url: '', apiKey: KEY, ...FAST, ...options });
  expect(showsKey(JSON.stringify(report))).toBe(false);
  return report;
}

/** A REST server on 127.0.0.1 (plain HTTP, or HTTPS with HTTP/2) that answers GET / with `root`, and 401 elsewhere. */
async function restServer(root: http.RequestListener, kind: 'http' | 'h2' = 'http'): Promise<LoopbackServer> {
  return LoopbackServer.start(kind === 'http' ? 'http' : 'https', (req, res) => {
    if (req.url === '/') return root(req, res);
    res.writeHead(401);
    res.end('Must provide an API key or an Authorization bearer token');
  }, { http2: kind === 'h2' });
}

/** One gRPC message, gzip-compressed (flag 1). */
function gzipFrame(payload: Buffer): Buffer {
  const gz = zlib.gzipSync(payload);
  const head = Buffer.alloc(5);
  head[0] = 1;
  head.writeUInt32BE(gz.length, 1);
  return Buffer.concat([head, gz]);
}

/** A HealthCheckReply{version} message. */
function healthReply(version = '1.18.3'): Buffer {
  return Buffer.from([0x12, version.length, ...Buffer.from(version)]);
}

/** A plain-HTTP stand-in for the REST steps of the gRPC checks; its CA file is the test CA, which the h2 servers use too. */
let standIn: StandInQdrant;
beforeAll(async () => {
  standIn = await StandInQdrant.start({ apiKey: KEY, protocol: 'http' });
});
afterAll(() => standIn.stop());

describe('REST answers', () => {
  const servers: LoopbackServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((x) => x.stop()));
  });
  async function serve(root: http.RequestListener, kind: 'http' | 'h2' = 'http'): Promise<LoopbackServer> {
    const server = await restServer(root, kind);
    servers.push(server);
    return server;
  }

  // Work on the event loop cannot be watched from inside: the CLI runs as a child process, and a
  // watchdog kills it if it is still running after 30 s (the fixed check needs a fraction of a
  // second; the old regex needed over a minute for this page, and no timer of the check could fire).
  test('an HTML page of 1 MiB built to make a title regex backtrack is read in one pass', async () => {
    const body = `<${'<title'.repeat(174762)}`; // 1 MiB less 3 bytes: all of it is read
    const server = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end(body);
    });
    const r = await runNode([CLI, 'check', '--url', server.url, '--retries', '0'], {
      env: { PATH: process.env.PATH ?? '', QDRANT_API_KEY: KEY }, killAfterMs: 30000,
    });
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 1, signal: null });
    expect(r.stdout).toMatch(/^FAIL 127\.0\.0\.1:\d+ {2}step root: unexpected answer to GET \/: 404 HTML page; check the cluster's status in the console and the address; run the check again {2}\d+ ms\n$/);
  }, 60000);

  test('an HTML title is looked for at the top of the page only', () => {
    const top = '<!doctype html><html><head><TITLE lang="en">502 Bad Gateway</TITLE></head>';
    expect(answer({ status: 502, body: top }, [KEY])).toBe('502 HTML page "502 Bad Gateway"');
    const late = `<html><body>${'<p>filler</p>'.repeat(1000)}<title>far down</title></body></html>`;
    expect(answer({ status: 502, body: late }, [KEY])).toBe('502 HTML page');
    expect(answer({ status: 404, body: '<<title x="<title">Not <b>found</b></title><title>Gone</title>' }, [KEY])).toBe('404 HTML page "Gone"');
  });

  test.each(['http', 'h2'] as const)('%s: an answer larger than 1 MiB is cut off at the limit, not read until the timeout, and not retried', async (kind) => {
    let requests = 0;
    const server = await serve((_req, res) => {
      requests += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = (): void => {
        while (!res.destroyed && !res.writableEnded && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    }, kind);
    const r = await check({ url: server.url, caFile: kind === 'h2' ? standIn.caFile : undefined, retries: 1 });
    expect(r).toMatchObject({ ok: false, failedStep: 'root', failureId: 'unexpected-answer' });
    expect(r.reason).toBe('unexpected answer to GET /: answer larger than 1 MiB (1048576 bytes); stopped reading — '
      + "Qdrant's answers to the check are a few KB: check that the URL is the cluster's REST address");
    expect(r.steps.find((x) => x.name === 'root')!.attempts).toBe(1);
    expect(requests).toBe(1);
  });

  test.each([
    ['the key as the host', (k: string) => `https://${k}.evil.example/`],
    ['the key percent-encoded as the host', (k: string) => `https://${[...k].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}.evil.example/`],
  ])('a Location header that echoes the key (%s) shows no form of it', async (_what, location) => {
    const server = await serve((req, res) => {
      res.writeHead(302, { location: location(String(req.headers['api-key'])) });
      res.end();
    });
    const r = await check({ url: server.url, retries: 0 });
    expect(r).toMatchObject({ ok: false, failedStep: 'root', failureId: 'redirect' });
    expect(r.reason).toMatch(/^redirected \(302\) to .* — not followed so the key is not sent elsewhere; use the final URL$/);
    expect(showsKey(r.reason!)).toBe(false);
  });

  test('a redirect status without a Location header says so', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(301);
      res.end();
    });
    const r = await check({ url: server.url, retries: 0 });
    expect(r).toMatchObject({ ok: false, failedStep: 'root', failureId: 'redirect' });
    expect(r.reason).toBe('redirected (301) without a Location header — nothing was followed; use the cluster\'s final URL (from the console)');
  });

  test('a Retry-After longer than the time left: the wait asked for is reported, with the answer', async () => {
    let requests = 0;
    const server = await serve((_req, res) => {
      requests += 1;
      res.writeHead(429, { 'retry-after': '120' });
      res.end('slow down');
    });
    const r = await check({ url: server.url, deadlineSeconds: 60 });
    expect(r).toMatchObject({ ok: false, failedStep: 'root', failureId: 'deadline' });
    expect(r.reason).toMatch(/^overall deadline of 60 s: the server asked to wait 120 s \(Retry-After\) before the next attempt, more than the \d+(\.\d+)? s left, after 1 attempt; last answer: 429 slow down — run the check again later$/);
    expect(requests).toBe(1);
  });
});

describe('gRPC answers', () => {
  const servers: LoopbackServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((x) => x.stop()));
  });
  async function grpcServer(
    handler: (stream: http2.ServerHttp2Stream, method: string, headers: http2.IncomingHttpHeaders) => void,
  ): Promise<LoopbackServer> {
    const server = await LoopbackServer.startGrpcAnswering(handler);
    servers.push(server);
    return server;
  }
  /** Answers Collections/List as Qdrant does: 0 with the key, 16 without. */
  function answerList(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    const ok = headers['api-key'] === KEY;
    stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': ok ? '0' : '16', ...(ok ? {} : { 'grpc-message': 'Invalid API key or JWT' }) }, { endStream: true });
  }
  function answerHealth(stream: http2.ServerHttp2Stream, body: Buffer, headers: http2.OutgoingHttpHeaders = {}): void {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc', ...headers }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(body);
  }

  test('a compressed answer the client did not accept (it sends grpc-accept-encoding: identity) fails the gRPC step', async () => {
    const server = await grpcServer((stream, method, headers) => {
      if (method === HEALTH) return answerHealth(stream, gzipFrame(healthReply()), { 'grpc-encoding': 'gzip' });
      answerList(stream, headers);
    });
    const r = await check({ url: standIn.url, grpcUrl: server.url });
    expect(r).toMatchObject({ ok: false, failedStep: 'grpc', failureId: 'grpc-unexpected' });
    expect(r.reason).toBe(`unexpected gRPC answer to ${HEALTH}: a message compressed with "gzip" (grpc-encoding), but the checker accepts only `
      + 'uncompressed ones (grpc-accept-encoding: identity) — a server may compress only with an encoding the client accepts; check the gRPC address');
  });

  test('HTTP/2 stream resets (REFUSED_STREAM) are retried on gRPC as on REST', async () => {
    let lists = 0;
    const server = await grpcServer((stream, method, headers) => {
      if (method === HEALTH) return answerHealth(stream, frame(healthReply()));
      lists += 1;
      if (lists <= 2) return stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      answerList(stream, headers);
    });
    const r = await check({ url: standIn.url, grpcUrl: server.url, retries: 3 });
    expect(r).toMatchObject({ ok: true, grpcVersion: '1.18.3' });
    expect(lists).toBe(4); // with and without the key, two of them refused once
  });
});

describe('key values pasted into options are not shown, not even clipped', () => {
  test('an API option that gets the key as its value', async () => {
    const err = await checkClusterAccess({ url: standIn.url, apiKey: KEY, header: KEY as never }).then(() => undefined, (e: Error) => e);
    expect(err?.message).toMatch(/^header must be one of api-key, bearer; got /);
    expect(showsKey(err!.message)).toBe(false);
  });

  test('a grant label and URL that hold the key', async () => {
    const err = await checkMany({ apiKey: KEY }, [{ label: `${KEY} prod`, url: `https://h.example/${'x'.repeat(60)}${KEY}` }]).then(() => undefined, (e: Error) => e);
    expect(err?.message).toMatch(/^grant 1 \(.*\): url .* has a path/);
    expect(showsKey(err!.message)).toBe(false);
  });
});
