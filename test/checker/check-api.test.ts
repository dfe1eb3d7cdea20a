/**
 * The checker's Node API (assets/checker/index.ts) against the stand-in Qdrant.
 * CLI behaviour (exit codes, output line) is in cli.test.ts.
 */
import { constants as http2Constants, type Http2ServerRequest, type ServerHttp2Stream } from 'node:http2';
import * as checker from '../../assets/checker';
import { isQdrantRefusal } from '../../assets/checker/answers';
import { checkMany } from '../../assets/checker/batch';
import { canaryKey, carriesKey, forwardTo, LoopbackServer, StandInQdrant } from '../../tools/testing/stand-in-qdrant';

const { checkClusterAccess, formatReport, parseBaseUrl, RuntimeError } = checker;
const USAGE = { name: 'RuntimeError', code: 'ERR_QDRANT_USAGE' };

const KEY = canaryKey();
/** The fix a key-rejected line ends with (the catalog's, in the CLI's words). */
const KEY_REJECTED_FIX = '; check the key\'s clusters in the console (setup guide, section 2), set the variable again (setup guide, section 3), or create a new key';
const TIMEOUT_FIX = '; check that this machine may reach the cluster directly (the check does not use HTTPS_PROXY); raise healthCheck.timeoutSeconds (--timeout) for slow links';
const DEADLINE_FIX = '; check the network and the cluster\'s status; raise healthCheck.timeoutSeconds (--timeout; the deadline grows with it, unless --deadline is given)';
const UNEXPECTED_FIX = '; check the cluster\'s status in the console and the address; run the check again';
const READ_ONLY_KEY = canaryKey('canary-ro');
const EXPIRED_KEY = canaryKey('canary-expired');
const WRONG_KEY = canaryKey('canary-wrong');
const ALL_KEYS = [KEY, READ_ONLY_KEY, EXPIRED_KEY, WRONG_KEY];

// Fast retries for tests; each test overrides what it needs.
const FAST = { retries: 3, backoffBaseMs: 10, backoffCapMs: 50, timeoutSeconds: 2, deadlineSeconds: 4 };

let s: StandInQdrant;

beforeAll(async () => {
  s = await StandInQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, expiredApiKey: EXPIRED_KEY });
});
afterAll(() => s.stop());
beforeEach(() => {
  s.setMode('normal');
  s.requests.length = 0;
  s.otherOrigin.requests.length = 0;
});

async function check(options: Partial<checker.CheckOptions> = {}): Promise<checker.CheckReport> {
  const report = await checkClusterAccess({ url: s.url, apiKey: KEY, caFile: s.caFile, ...FAST, ...options });
  // Whatever happened, no key may be in the report.
  const text = JSON.stringify(report) + formatReport(report);
  for (const k of ALL_KEYS) expect(text).not.toContain(k);
  return report;
}

function stepOf(report: checker.CheckReport, name: checker.StepName): checker.StepResult {
  const step = report.steps.find((x) => x.name === name);
  if (!step) throw new Error(`no step ${name} in ${JSON.stringify(report)}`);
  return step;
}

describe('verdicts', () => {
  test('good key passes all three steps and records the version', async () => {
    const r = await check({ label: 'search-api → prod-eu' });
    expect(r).toMatchObject({
      ok: true,
      label: 'search-api → prod-eu',
      url: s.url,
      header: 'api-key',
      qdrantVersion: '1.16.2',
      keyStatus: 'accepted',
      enforcement: 'enforced',
      collectionCount: 2,
      notes: [],
    });
    expect(r.failedStep).toBeUndefined();
    expect(r.steps.map((x) => [x.name, x.ok, x.status, x.attempts])).toEqual([
      ['root', true, 200, 1],
      ['key', true, 200, 1],
      ['enforced', true, 401, 1],
    ]);
    expect(formatReport(r)).toMatch(/^ok {3}search-api → prod-eu {2}qdrant 1\.16\.2 {2}key accepted, keys enforced {2}\d+ ms$/);
    // What was sent: / and /collections with no credential at all, together; then, once / proved
    // the address is Qdrant, /collections with the key. The key goes nowhere before that.
    const sent = s.requests.map((q) => [q.method, q.path, q.headers['api-key'], q.headers.authorization]);
    expect(sent.slice(0, 2)).toEqual(expect.arrayContaining([['GET', '/', undefined, undefined], ['GET', '/collections', undefined, undefined]]));
    expect(sent[2]).toEqual(['GET', '/collections', KEY, undefined]);
    expect(sent).toHaveLength(3);
  });

  test('the trap: GET / answers 200 with a wrong key, the key step catches it', async () => {
    const r = await check({ apiKey: WRONG_KEY });
    expect(stepOf(r, 'root')).toMatchObject({ ok: true, status: 200 });
    expect(r).toMatchObject({ ok: false, failedStep: 'key', keyStatus: 'rejected', reason: `key rejected (401 Invalid API key or JWT)${KEY_REJECTED_FIX}` });
    // After root, key and enforced go out together; the first failing step in step order is reported.
    expect(r.steps.map((x) => x.name)).toEqual(['root', 'key', 'enforced']);
  });

  test('wrong key: 401 is never retried', async () => {
    const r = await check({ apiKey: WRONG_KEY, retries: 5 });
    expect(stepOf(r, 'key')).toMatchObject({ ok: false, status: 401, attempts: 1 });
    // One request with the key (the key step), one without (the enforced step): no retry.
    expect(s.requests.filter((q) => q.path === '/collections' && carriesKey(q))).toHaveLength(1);
  });

  test('missing key (a proxy drops the api-key header): not "rejected", but that the key did not arrive, and what to send instead', async () => {
    s.setMode('strip-api-key');
    const r = await check();
    expect(r).toMatchObject({
      ok: false,
      failedStep: 'key',
      failureId: 'key-not-received',
      keyStatus: 'rejected',
      reason: 'key did not arrive (401 Must provide an API key or an Authorization bearer token, although it was sent in the api-key header); ' +
        'send it in the other header (healthCheck.header: ApiKeyHeader.BEARER or API_KEY; --header bearer or api-key), or let the proxy pass the header',
    });
    // The same key as a Bearer token gets through that proxy.
    expect((await check({ header: 'bearer' })).ok).toBe(true);
    // Over gRPC too: the metadata is dropped the same way.
    const grpc = stepOf(await check({ grpcUrl: s.grpcUrl }), 'grpc');
    expect(grpc).toMatchObject({ ok: false });
    expect(grpc.message).toBe('key did not arrive over gRPC (16 Must provide an API key or an Authorization bearer token from /qdrant.Collections/List, ' +
      'although it was sent in the api-key metadata); send it in the other header (healthCheck.header: ApiKeyHeader.BEARER or API_KEY; --header bearer or api-key), ' +
      'or let the proxy pass the header');
  });

  test('expired key: 403 ExpiredSignature is reported as expired', async () => {
    const r = await check({ apiKey: EXPIRED_KEY });
    expect(r).toMatchObject({ ok: false, failedStep: 'key', keyStatus: 'expired', reason: 'key expired (403 ExpiredSignature); create a new key and rotate to it' });
    expect(stepOf(r, 'key').attempts).toBe(1);
  });

  test('read-only key passes (GET /collections is a read)', async () => {
    const r = await check({ apiKey: READ_ONLY_KEY });
    expect(r).toMatchObject({ ok: true, keyStatus: 'accepted', enforcement: 'enforced' });
  });

  test('bearer mode sends only Authorization: Bearer, never an api-key header', async () => {
    const r = await check({ header: 'bearer' });
    expect(r).toMatchObject({ ok: true, header: 'bearer' });
    const keyed = s.requests.filter(carriesKey);
    expect(keyed.map((q) => q.path)).toEqual(['/collections']);
    for (const q of keyed) {
      expect(q.headers['api-key']).toBeUndefined();
      expect(q.headers.authorization).toBe(`Bearer ${KEY}`);
    }
  });

  test('api-key mode never sends Authorization', async () => {
    await check();
    expect(s.requests.some((q) => q.headers.authorization !== undefined)).toBe(false);
  });
});

describe('Qdrant Cloud edge (a key is needed on every path, even /)', () => {
  beforeEach(() => s.setMode('cloud-edge'));

  test('good key passes', async () => {
    const r = await check();
    expect(r).toMatchObject({ ok: true, qdrantVersion: '1.16.2', keyStatus: 'accepted', enforcement: 'enforced' });
    expect(stepOf(r, 'enforced')).toMatchObject({ status: 403, message: 'keys enforced (403 without a key)' });
  });

  test('bad key fails at root as a rejected key, not as "not Qdrant"', async () => {
    const r = await check({ apiKey: WRONG_KEY });
    expect(r).toMatchObject({ ok: false, failedStep: 'root', keyStatus: 'rejected' });
    expect(r.reason).toMatch(/^key rejected \(403 forbidden\)/);
    expect(r.reason).not.toMatch(/not a Qdrant/);
    // GET / without the key (403 {"error":"forbidden"}: the edge wants one), then with it; nothing
    // else keyed. The step's attempts are those of the keyed request.
    expect(stepOf(r, 'root').attempts).toBe(1);
    const roots = s.requests.filter((q) => q.path === '/');
    expect(roots.map((q) => carriesKey(q))).toEqual([false, true]);
    expect(s.requests.filter(carriesKey).map((q) => q.path)).toEqual(['/']);
  });
});

describe('Qdrant Cloud edge over gRPC (HealthCheck too needs a key: not confirmed for the real edge)', () => {
  beforeEach(() => s.setMode('cloud-edge'));

  test('HealthCheck refused without the key is asked again with it: a good key passes', async () => {
    const r = await check({ grpcUrl: s.grpcUrl });
    expect(r).toMatchObject({ ok: true });
    expect(stepOf(r, 'grpc')).toMatchObject({ ok: true, message: 'gRPC ok (qdrant 1.16.2, key accepted, keys enforced)' });
  });

  test('a gRPC server that refuses HealthCheck otherwise than Qdrant does: not Qdrant, and the key is never sent', async () => {
    const keyed: boolean[] = [];
    const other = await LoopbackServer.startGrpcAnswering((stream, _method, headers) => {
      keyed.push(headers['api-key'] !== undefined || headers.authorization !== undefined);
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'unauthenticated: missing session cookie' }, { endStream: true });
    });
    try {
      s.setMode('normal');
      const r = await check({ grpcUrl: other.url });
      expect(stepOf(r, 'grpc')).toMatchObject({ ok: false });
      expect(stepOf(r, 'grpc').message).toMatch(/without a key answered 16 unauthenticated: missing session cookie, which is neither Qdrant's answer nor its refusal; the key was not sent there/);
      expect(keyed.length).toBeGreaterThan(0);
      expect(keyed.every((k) => !k)).toBe(true);
    } finally {
      await other.stop();
    }
  });

  test('a wrong key: refused at HealthCheck, as gRPC refusing the key and not as "not Qdrant"', async () => {
    const r = await check({ apiKey: WRONG_KEY, grpcUrl: s.grpcUrl });
    expect(r).toMatchObject({ ok: false, failedStep: 'root' });
    expect(stepOf(r, 'grpc')).toMatchObject({ ok: false });
    expect(stepOf(r, 'grpc').message).toMatch(/^gRPC refused the key \(16 .* from \/qdrant\.Qdrant\/HealthCheck, which the endpoint checks the key on\)/);
  });
});

describe('gRPC Collections/List: every answer but the two expected ones fails the step (from a mutation audit)', () => {
  /** A protobuf string field (lengths under 128). */
  const pbString = (field: number, text: string) => Buffer.concat([Buffer.from([field * 8 + 2, Buffer.byteLength(text)]), Buffer.from(text)]);
  const reply = (stream: ServerHttp2Stream, message: Buffer) => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    const frame = Buffer.alloc(5);
    frame.writeUInt32BE(message.length, 1);
    stream.end(Buffer.concat([frame, message]));
  };
  const status = (stream: ServerHttp2Stream, code: number) =>
    stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(code), 'grpc-message': 'odd' }, { endStream: true });

  /** A gRPC endpoint that is Qdrant's on HealthCheck, and answers List with `withKey` / `withoutKey` (a status, or 0 for a reply). */
  async function grpcWith(withKey: number, withoutKey: number): Promise<checker.StepResult> {
    const server = await LoopbackServer.startGrpcAnswering((stream, method, headers) => {
      if (method === '/qdrant.Qdrant/HealthCheck') return reply(stream, Buffer.concat([pbString(1, 'qdrant - vector search engine'), pbString(2, '1.16.2')]));
      const code = headers['api-key'] === undefined ? withoutKey : withKey;
      return code === 0 ? reply(stream, Buffer.alloc(0)) : status(stream, code);
    });
    try {
      const r = await check({ grpcUrl: server.url, retries: 0 });
      return stepOf(r, 'grpc');
    } finally {
      await server.stop();
    }
  }

  test('with the key, neither OK nor a refusal (13 INTERNAL): not "key accepted"', async () => {
    const step = await grpcWith(13, 16);
    expect(step.ok).toBe(false);
    expect(step.message).toMatch(/^unexpected gRPC answer to \/qdrant\.Collections\/List with the key: 13 odd/);
  });

  test('without the key, neither OK nor a refusal (13 INTERNAL): not "keys enforced"', async () => {
    const step = await grpcWith(0, 13);
    expect(step.ok).toBe(false);
    expect(step.message).toMatch(/^unexpected gRPC answer to \/qdrant\.Collections\/List without a key: 13 odd/);
  });

  test('without the key, OK (gRPC open while REST is not): fails unless open clusters are allowed', async () => {
    const step = await grpcWith(0, 0);
    expect(step.ok).toBe(false);
    expect(step.message).toMatch(/^gRPC is open: \/qdrant\.Collections\/List without a key answered status 0/);
  });
});

describe('the key goes only to an address proven to be Qdrant', () => {
  // Found by a mutation review: only the report's final redaction hid a key pasted into the host,
  // and the DNS lookup of that host had already carried it to a resolver.
  // Found by a docs review: gRPC ran alongside REST, and sent the key to Collections/List as soon
  // as its own HealthCheck passed, whatever root said of the cluster's address.
  // Found by a docs review: a refusal counted as Qdrant's when it only started with Qdrant's text.
  test('a gateway whose 401 text only starts with Qdrant\'s ("Invalid API key or JWT (sign in…)"): not Qdrant, and the key is never sent', async () => {
    const keyed: boolean[] = [];
    const gateway = await LoopbackServer.start('https', (req, res) => {
      keyed.push(req.headers['api-key'] !== undefined || req.headers.authorization !== undefined);
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end('Invalid API key or JWT (ACME gateway: sign in at /login)');
    });
    try {
      const r = await checkClusterAccess({ url: gateway.url, apiKey: KEY, caFile: s.caFile, ...FAST, retries: 0 });
      expect(r).toMatchObject({ ok: false, failedStep: 'root', failureId: 'not-qdrant' });
      expect(keyed.length).toBeGreaterThan(0);
      expect(keyed.every((k) => !k)).toBe(true);
    } finally {
      await gateway.stop();
    }
  });

  test('a REST address that is not Qdrant: the gRPC port gets no keyed call either', async () => {
    s.setMode('not-qdrant');
    const g = await StandInQdrant.start({ apiKey: KEY }); // the same test CA as s
    try {
      const r = await check({ grpcUrl: g.grpcUrl });
      expect(r).toMatchObject({ ok: false, failedStep: 'root', failureId: 'not-qdrant' });
      expect(r.steps.map((x) => x.name)).toEqual(['root', 'enforced']);
      expect(g.grpcRequests.map((x) => x.path)).toEqual(['/qdrant.Qdrant/HealthCheck']); // keyless
      expect(g.grpcRequests.filter(carriesKey)).toEqual([]);
      expect(s.requests.filter(carriesKey)).toEqual([]);
    } finally {
      await g.stop();
    }
  });

  test('the same with a gRPC port that refuses the keyless HealthCheck as an edge does: its retry with the key waits for root too', async () => {
    s.setMode('not-qdrant');
    const g = await StandInQdrant.start({ apiKey: KEY, mode: 'cloud-edge' });
    try {
      const r = await check({ grpcUrl: g.grpcUrl });
      expect(r).toMatchObject({ ok: false, failedStep: 'root', failureId: 'not-qdrant' });
      expect(r.steps.map((x) => x.name)).toEqual(['root', 'enforced']);
      expect(r).not.toHaveProperty('grpcVersion');
      expect(g.grpcRequests.map((x) => [x.path, carriesKey(x)])).toEqual([['/qdrant.Qdrant/HealthCheck', false]]);
    } finally {
      await g.stop();
    }
  });

  test('a URL whose host holds the key, or part of it, is refused before any lookup, naming neither', async () => {
    const key = 'canarykey0123456789abcdef';
    for (const url of [`https://${key}.invalid`, 'https://x-canarykey0123.invalid:6333', 'https://c.invalid/']) {
      const grpcUrl = url === 'https://c.invalid/' ? `https://${key.toUpperCase()}.invalid:6334` : undefined;
      const err = await checkClusterAccess({ url, grpcUrl, apiKey: key, ...FAST }).then(() => undefined, (e: Error) => e);
      expect(err).toBeInstanceOf(RuntimeError);
      expect(err).toMatchObject(USAGE);
      // The gRPC address says so (its own flag), the others are the REST URL.
      expect(err?.message).toBe(`${grpcUrl ? 'gRPC URL' : 'url'}: its host holds part of the API key (not shown; a copy-paste error?), so nothing was sent to it; give the cluster's URL`);
    }
    // Many grants: every address is checked before anything is sent to any of them.
    const many = await checkMany({ apiKey: key, ...FAST }, [{ url: s.url }, { label: 'b', url: `https://${key}.invalid` }]).then(() => undefined, (e: Error) => e);
    expect(many).toBeInstanceOf(RuntimeError);
    expect(many).toMatchObject(USAGE);
    expect((many as Error).message).toBe('grant 2 ("b"): url: its host holds part of the API key (not shown; a copy-paste error?), so nothing was sent to it; give the cluster\'s URL');
    expect(s.requests).toEqual([]);
    expect(() => parseBaseUrl(`https://${key}.invalid`, 6333, [key])).toThrow(RuntimeError);
    expect(parseBaseUrl(`https://${key}.invalid`).hostname).toBe(`${key}.invalid`); // without the key, nothing to compare
  });

  test('the Qdrant Cloud host rule: *.cloud.qdrant.io and nothing that only contains it', () => {
    expect(isQdrantRefusal('abc-123.eu-central-1-0.aws.cloud.qdrant.io', '{"error":"forbidden"}')).toBe(true);
    expect(isQdrantRefusal('ABC.Cloud.Qdrant.IO', '')).toBe(true);
    for (const host of ['abc.cloud.qdrant.io.evil.example', 'xcloud.qdrant.io', 'cloud.qdrant.io', 'abc.cloud-qdrant.io', 'abc.cloud.qdrant.io.']) {
      expect({ host, edge: isQdrantRefusal(host, '<html>denied</html>') }).toEqual({ host, edge: false });
    }
    // Qdrant's own texts, from any host.
    expect(isQdrantRefusal('127.0.0.1', 'Must provide an API key or an Authorization bearer token')).toBe(true);
    expect(isQdrantRefusal('127.0.0.1', 'Invalid API key or JWT')).toBe(true);
    expect(isQdrantRefusal('127.0.0.1', 'Invalid API key or JWT token')).toBe(true); // Qdrant 1.8.2-1.8.4
    expect(isQdrantRefusal('127.0.0.1', ' Invalid API key or JWT\n')).toBe(true); // around it: whitespace only
    expect(isQdrantRefusal('127.0.0.1', 'Invalid API key or JWT (sign in at /login)')).toBe(false);
    expect(isQdrantRefusal('127.0.0.1', 'Unauthorized')).toBe(false);
  });

  // Found by a review: root was sent with the key, so a web page at a mistyped address with a
  // valid certificate received the key before the check said "not a Qdrant endpoint".
  test.each([
    ['a web page', 200, 'text/html', '<html><title>Welcome</title></html>', 'not-qdrant'],
    ['a JSON API that is not Qdrant', 200, 'application/json', '{"ok":true}', 'not-qdrant'],
    ['a 404', 404, 'text/plain', 'not found', 'unexpected-answer'],
    // 401/403 from servers that are not Qdrant's edge (found by a review: any 401/403 got the key).
    ['an object store\'s 403', 403, 'application/xml', '<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>', 'not-qdrant'],
    ['an API gateway\'s 403', 403, 'application/json', '{"message":"Missing Authentication Token"}', 'not-qdrant'],
    ['a 401 with a JSON error and more', 401, 'application/json', '{"error":"unauthorized","login":"https://sso.example/"}', 'not-qdrant'],
    // A one-member {"error":…} is only the Cloud edge's when it says what the edge says (found by a review).
    ['a 401 {"error":"Unauthorized"}', 401, 'application/json', '{"error":"Unauthorized"}', 'not-qdrant'],
    ['a 403 {"error":"access denied"}', 403, 'application/json', '{"error":"access denied"}', 'not-qdrant'],
  ])('%s at the address: fails, and the key was never sent', async (_, status, type, body, failureId) => {
    const seen: boolean[] = [];
    const site = await LoopbackServer.start('https', (req, res) => {
      seen.push(req.headers['api-key'] !== undefined || req.headers.authorization !== undefined);
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    });
    try {
      const r = await check({ url: site.url });
      expect(r).toMatchObject({ ok: false, failedStep: 'root', failureId });
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((keyed) => !keyed)).toBe(true);
    } finally {
      await site.stop();
    }
  });

  test('a server\'s words with "; " or " — " in them are not taken for our fix: the line still ends with the catalog\'s', async () => {
    const site = await LoopbackServer.start('https', (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here; try the other door — or call us');
    });
    try {
      const r = await check({ url: site.url });
      expect(r).toMatchObject({ ok: false, failedStep: 'root', failureId: 'unexpected-answer' });
      expect(r.reason).toBe(`unexpected answer to GET /: 404 not here; try the other door — or call us${UNEXPECTED_FIX}`);
    } finally {
      await site.stop();
    }
  });
});

describe('open clusters and non-Qdrant endpoints', () => {
  test('an open cluster fails', async () => {
    s.setMode('open');
    const r = await check();
    expect(r).toMatchObject({ ok: false, failedStep: 'enforced', enforcement: 'open' });
    expect(r.reason).toMatch(/^cluster is open: GET \/collections without a key answered 200/);
  });

  test('an open cluster passes with requireAuth: false, with a note', async () => {
    s.setMode('open');
    const r = await check({ requireAuth: false });
    expect(r).toMatchObject({ ok: true, enforcement: 'open', notes: ['cluster is open (allowed)'] });
    expect(formatReport(r)).toMatch(/key not verified, cluster is open \(allowed\)/);
  });

  test('a 200 HTML page on / is "not a Qdrant endpoint"', async () => {
    s.setMode('not-qdrant');
    const r = await check();
    expect(r).toMatchObject({ ok: false, failedStep: 'root' });
    expect(r.reason).toMatch(/^not a Qdrant endpoint: GET \/ answered 200 \(text\/html\)/);
  });

  test('a redirect fails and the other origin receives nothing', async () => {
    s.setMode('redirect');
    const r = await check();
    expect(r).toMatchObject({ ok: false, failedStep: 'root' });
    expect(r.reason).toBe(`redirected (302) to ${s.otherOrigin.url} — not followed so the key is not sent elsewhere; use the final URL`);
    expect(s.otherOrigin.requests).toEqual([]);
    // Nor does the redirecting address: root goes without the key, and a redirect is no edge's refusal.
    expect(s.requests.filter((q) => q.mode === 'redirect' && carriesKey(q))).toEqual([]);
    expect(stepOf(r, 'root').attempts).toBe(1);
  });
});

describe('transport', () => {
  test('without the CA file the test CA is untrusted: a clear TLS failure, not retried', async () => {
    const r = await check({ caFile: undefined });
    expect(r).toMatchObject({ ok: false, failedStep: 'root' });
    expect(r.reason).toMatch(/^TLS certificate not trusted: .*\(UNABLE_TO_VERIFY_LEAF_SIGNATURE\) — .*--ca FILE/);
    expect(stepOf(r, 'root').attempts).toBe(1);
    expect(s.requests).toEqual([]); // the handshake failed before any request
  });

  test('plain http is allowed to a loopback host', async () => {
    const plain = await StandInQdrant.start({ apiKey: KEY, protocol: 'http' });
    try {
      const r = await checkClusterAccess({ url: plain.url, apiKey: KEY, ...FAST });
      expect(r).toMatchObject({ ok: true, url: plain.url });
      expect(plain.requests).toHaveLength(3);
    } finally {
      await plain.stop();
    }
  });

  test('REST over HTTP/2 (as Qdrant offers it): one connection per check, access probes included', async () => {
    const before = s.restConnections;
    const r = await check({ access: 'collections', readCollections: ['products'], writeCollections: ['support-tickets'], allowExcessAccess: true });
    expect(r.ok).toBe(true);
    expect(s.restConnections - before).toBe(1);
    expect(s.requests.length).toBeGreaterThan(4); // root, enforced, key and the probes: streams of that one connection
    expect(new Set(s.requests.map((q) => q.httpVersion))).toEqual(new Set(['2.0']));
  });

  test('a server that speaks only HTTP/1.1: the same verdict, over keep-alive connections', async () => {
    const h1 = await LoopbackServer.start('https', (req, res) => forwardTo(s, req, res));
    try {
      const r = await check({ url: h1.url });
      expect(r).toMatchObject({ ok: true, keyStatus: 'accepted', enforcement: 'enforced' });
      expect(r.steps.map((x) => [x.name, x.status])).toEqual([['root', 200], ['key', 200], ['enforced', 401]]);
      // root's connection (the one that asked for h2 and got HTTP/1.1) and enforced's, sent alongside; key reuses one.
      expect(h1.connections).toBe(2);
    } finally {
      await h1.stop();
    }
  });

  test.each([
    ['the connection drops: the retry makes a new one', (q: Http2ServerRequest) => q.stream.session!.destroy(), 2],
    ['the server resets one stream (REFUSED_STREAM): the retry is a new stream', (q: Http2ServerRequest) => q.stream.close(http2Constants.NGHTTP2_REFUSED_STREAM), 1],
  ])('HTTP/2, %s', async (_what, drop, connections) => {
    let drops = 0;
    const h2 = await LoopbackServer.start('https', (req, res) => {
      if (drops++ === 0) return drop(req as unknown as Http2ServerRequest);
      forwardTo(s, req, res);
    }, { http2: true });
    try {
      const r = await check({ url: h2.url });
      expect(r).toMatchObject({ ok: true, keyStatus: 'accepted', enforcement: 'enforced' });
      expect(r.steps.reduce((n, x) => n + x.attempts, 0)).toBeGreaterThan(3); // what was dropped was sent again
      expect(h2.connections).toBe(connections);
    } finally {
      await h2.stop();
    }
  });

  test('connection refused: retried, then a network message', async () => {
    s.setMode('refused');
    const r = await check({ retries: 2 });
    expect(r).toMatchObject({ ok: false, failedStep: 'root' });
    expect(stepOf(r, 'root')).toMatchObject({ attempts: 3 });
    expect(stepOf(r, 'root').status).toBeUndefined();
    expect(r.reason).toMatch(/^connection refused by 127\.0\.0\.1:\d+ \(ECONNREFUSED\) after 3 attempts — is the port right\? Qdrant REST is 6333$/);
  });

  test('hang: the per-request timeout ends each request', async () => {
    s.setMode('hang');
    const r = await check({ timeoutSeconds: 1, retries: 1, deadlineSeconds: 10 });
    // Ended by the timeout of each attempt (both attempts made), not by the 10 s deadline.
    expect(r).toMatchObject({ ok: false, failedStep: 'root', failureId: 'timeout' });
    expect(r.reason).toBe(`no answer within 1 s (request timeout) after 2 attempts${TIMEOUT_FIX}`);
    expect(stepOf(r, 'root').attempts).toBe(2);
    // root twice, and enforced (sent with root) twice, all without the key: root never answered.
    expect(s.requests.filter((q) => q.path === '/')).toHaveLength(2);
    expect(s.requests.filter(carriesKey)).toEqual([]);
  });

  test('hang: the overall deadline is respected whatever the retries', async () => {
    s.setMode('hang');
    const r = await check({ timeoutSeconds: 1, retries: 10, deadlineSeconds: 2 });
    expect(r).toMatchObject({ ok: false, failedStep: 'root', failureId: 'deadline' });
    const attempts = stepOf(r, 'root').attempts;
    expect(r.reason).toBe(`overall deadline of 2 s reached after ${attempts} attempt${attempts === 1 ? '' : 's'}${DEADLINE_FIX}`);
    // The deadline stopped the retries, not their number (11 attempts); each was sent.
    expect(attempts).toBeGreaterThanOrEqual(1);
    expect(attempts).toBeLessThan(11);
    expect(s.requests.filter((q) => q.path === '/')).toHaveLength(attempts);
  });

  test('slow answers within the timeout pass', async () => {
    s.setMode('slow', { slowMs: 200 });
    const r = await check({ timeoutSeconds: 2 });
    expect(r.ok).toBe(true);
    expect(r.steps.every((x) => x.attempts === 1)).toBe(true);
    // root, key and enforced, each once: nothing was given up on and sent again.
    expect(s.requests).toHaveLength(3);
  });

  test('flaky 5xx: retried, then passes; the attempts are recorded', async () => {
    s.setMode('flaky-5xx', { failFirst: 2 });
    const r = await check();
    expect(r.ok).toBe(true);
    // root and enforced go out together, so the two 503s fall on either: two retries in all.
    expect(r.steps.reduce((n, x) => n + x.attempts, 0)).toBe(5);
    expect(r.steps.reduce((n, x) => n + x.attempts, 0)).toBe(s.requests.length);
    expect(stepOf(r, 'key').attempts).toBe(1);
  });

  test('5xx that never ends: fails with the status after all attempts', async () => {
    s.setMode('flaky-5xx', { failFirst: 100 });
    const r = await check({ retries: 2 });
    expect(r).toMatchObject({ ok: false, failedStep: 'root' });
    expect(r.reason).toBe(`unexpected answer to GET /: 503 Service Unavailable after 3 attempts${UNEXPECTED_FIX}`);
  });

  test('429: Retry-After is honoured, then passes', async () => {
    // A rate limiter that holds to its Retry-After: GET / first gets 429 "wait 1 s";
    // a retry that comes before the second is up gets 429 "wait 30 s", which fails the check
    // (more than the deadline). So the check passes only if it waited as asked.
    let limitedAt: number | undefined;
    let early = 0;
    const limiter = await LoopbackServer.start('https', (req, res) => {
      if (req.url === '/' && (limitedAt === undefined || Date.now() - limitedAt < 900)) {
        if (limitedAt === undefined) limitedAt = Date.now();
        else early += 1;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': early ? '30' : '1' });
        res.end(JSON.stringify({ status: { error: 'Too many requests: rate limit exceeded' }, time: 0.000001 }));
      } else {
        forwardTo(s, req, res);
      }
    });
    try {
      const r = await check({ url: limiter.url });
      expect({ early, reason: r.reason }).toEqual({ early: 0, reason: undefined });
      expect(r.ok).toBe(true);
      expect(r.steps.map((x) => [x.name, x.attempts])).toEqual([['root', 2], ['key', 1], ['enforced', 1]]);
    } finally {
      await limiter.stop();
    }
  });

  test('429 with a Retry-After beyond the deadline: stops at once', async () => {
    s.setMode('rate-limited', { failFirst: 1, retryAfter: 30 });
    const r = await check({ deadlineSeconds: 2 });
    // The 429 falls on root or on enforced (sent together); that step stops at once.
    expect(r).toMatchObject({ ok: false, failureId: 'deadline' });
    expect(['root', 'enforced']).toContain(r.failedStep);
    expect(r.reason).toMatch(/^overall deadline of 2 s: the server asked to wait 30 s \(Retry-After\) before the next attempt, more than the \d+(\.\d+)? s left, after 1 attempt; last answer: 429 Too many requests/);
    // It stopped without a second attempt (it did not wait for the deadline either: that would say "reached").
    expect(stepOf(r, r.failedStep!).attempts).toBe(1);
  });
});

describe('key hygiene', () => {
  test('a key with a trailing newline is reported as a copy-paste error and never sent', async () => {
    const r = await check({ apiKey: `${KEY}\n` });
    expect(r).toMatchObject({
      ok: false,
      failedStep: 'key',
      reason: 'the key has whitespace or a newline at its start or end — likely a copy-paste error; remove it',
    });
    expect(r.steps).toEqual([expect.objectContaining({ name: 'key', attempts: 0 })]);
    expect(s.requests).toEqual([]);
  });

  test('a key with leading spaces is reported the same way', async () => {
    const r = await check({ apiKey: `  ${KEY}` });
    expect(r.reason).toMatch(/copy-paste/);
  });

  test.each(['api-key', 'bearer'] as const)('a server that echoes the key (%s): it is redacted everywhere', async (header) => {
    s.setMode('echo-key');
    const r = await check({ header });
    expect(r).toMatchObject({ ok: false, failedStep: 'key', keyStatus: 'rejected' });
    expect(r.reason).toContain('[redacted]');
    // the server did get the key, and said it back
    expect(s.requests.some(carriesKey)).toBe(true);
  });

  test('server messages are one line and truncated', async () => {
    s.setMode('echo-key');
    const r = await check({ apiKey: `${KEY}${'x'.repeat(400)}` });
    expect(r.reason!.length).toBeLessThanOrEqual(260);
    expect(r.reason).not.toMatch(/\n/);
  });
});

describe('usage errors (thrown, no network)', () => {
  test.each([
    ['http://example.invalid', /^url "http:\/\/example\.invalid" uses http:\/\/ to a host that is not loopback, so the API key would travel in clear; use https:\/\/$/],
    ['https://example.invalid:6333/collections', /has a path "\/collections"; give only the cluster address/],
    ['https://example.invalid?x=1', /has a query \(not shown: it may hold a key\)/],
    ['https://example.invalid#f', /has a fragment/],
    ['https://user:secret@example.invalid', /holds credentials \(user:pass@\)/],
    ['ftp://example.invalid', /has scheme "ftp"; expected https:\/\/<host>/],
    ['not a url', /holds whitespace or a control character/],
    ['https://example.invalid:0', /has port "0"; a port is a number in 1-65535/],
    ['https:example.invalid:7443', /is not written as https:\/\/<host>\[:<port>\]/],
    ['https://x$(touch).example', /is not a DNS name/],
  ])('%s', async (url, message) => {
    await expect(checkClusterAccess({ url, apiKey: KEY })).rejects.toThrow(message);
    await expect(checkClusterAccess({ url, apiKey: KEY })).rejects.toBeInstanceOf(RuntimeError);
    await expect(checkClusterAccess({ url, apiKey: KEY })).rejects.toMatchObject(USAGE);
  });

  test('the password of a URL is not echoed', async () => {
    await expect(checkClusterAccess({ url: 'https://user:hunter2@example.invalid', apiKey: KEY })).rejects.toThrow(/"https:\/\/\*\*\*@example\.invalid"/);
  });

  test('an empty key, a bad header and bad numbers are usage errors', async () => {
    const base = { url: 'https://example.invalid', apiKey: KEY };
    await expect(checkClusterAccess({ ...base, apiKey: '' })).rejects.toThrow(/key is empty/);
    await expect(checkClusterAccess({ ...base, header: 'x' as never })).rejects.toThrow(/header must be one of api-key, bearer; got "x"/);
    await expect(checkClusterAccess({ ...base, timeoutSeconds: 0 })).rejects.toThrow(/timeoutSeconds must be a number in 1-300; got 0/);
    await expect(checkClusterAccess({ ...base, retries: 1.5 })).rejects.toThrow(/retries must be a whole number in 0-10/);
    await expect(checkClusterAccess({ ...base, caFile: '/nonexistent/ca.pem' })).rejects.toThrow(/cannot read CA file "\/nonexistent\/ca.pem" \(ENOENT\)/);
  });

  test('a URL without a port means 6333; an explicit :443 is kept', () => {
    expect(parseBaseUrl('https://xyz.cloud.example')).toMatchObject({ url: 'https://xyz.cloud.example:6333', port: 6333, host: 'xyz.cloud.example' });
    expect(parseBaseUrl('https://xyz.cloud.example/')).toMatchObject({ port: 6333 });
    expect(parseBaseUrl('https://xyz.cloud.example:443')).toMatchObject({ url: 'https://xyz.cloud.example:443', port: 443, host: 'xyz.cloud.example:443' });
    expect(parseBaseUrl('http://localhost:6333')).toMatchObject({ protocol: 'http:', hostname: 'localhost' });
    expect(parseBaseUrl('http://127.8.9.10')).toMatchObject({ port: 6333 });
    expect(parseBaseUrl('http://[::1]:7000')).toMatchObject({ hostname: '::1', url: 'http://[::1]:7000' });
  });
});
