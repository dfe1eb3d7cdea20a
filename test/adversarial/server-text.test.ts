/**
 * Class 9: server text is shown safely. A hostile endpoint answers with control characters, bidi
 * overrides, and the key echoed back in other forms; the report and the printed lines hold none of
 * them.
 */
import * as https from 'https';
import type { AddressInfo } from 'net';
import * as path from 'path';
import { checkClusterAccess, formatReport } from '../../assets/checker';
import { runNode } from '../../tools/testing/run-node';
import { canaryKey, getTestCa } from '../../tools/testing/stand-in-qdrant';


const KEY = canaryKey('canary-echo');
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Every form a server could send the key back in. */
function echoes(key: string): string[] {
  const b = Buffer.from(key);
  return [
    key, encodeURIComponent(key), b.toString('hex'), b.toString('hex').toUpperCase(), b.toString('base64'), b.toString('base64url'),
    Buffer.from(`api-key: ${key}`).toString('base64'), Buffer.from(`x${key}`).toString('base64'), Buffer.from(`xy${key}`).toString('base64url'),
  ];
}

/** The forms a redaction must catch: 8 characters of each encoding that only the key determines. */
function fingerprints(key: string): string[] {
  const b = Buffer.from(key);
  return [key, b.toString('hex').slice(0, 16), b.toString('base64').slice(0, 12), b.toString('base64url').slice(0, 12)];
}

/** A hostile HTTPS endpoint: GET / is Qdrant's, everything else is 401 with `body(key)`. */
async function hostile(body: (credential: string) => string, headers: Record<string, string> = {}) {
  const ca = getTestCa();
  const server = https.createServer({ cert: ca.serverCert, key: ca.serverKey }, (req, res) => {
    const credential = String(req.headers['api-key'] ?? req.headers.authorization ?? '');
    if (req.url === '/') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ title: 'qdrant - vector search engine', version: `1.18.3\u202e\u0007${credential}` }));
      return;
    }
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.statusCode = 401;
    res.end(body(credential));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caFile: ca.caFile,
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

test.each([
  ['C0, C1 and bidi controls', () => 'Invalid \u001b[31mAPI\u001b[0m key\u0000 or \u009b2J JWT \u202egnirts desrever\u202c \u2066iso\u2069\r\nX-Injected: 1'],
  ['the key in every encoding', (k: string) => `Invalid API key or JWT: ${echoes(k).join(' | ')}`],
  ['the key inside JSON', (k: string) => JSON.stringify({ status: { error: `Forbidden: ${k} / ${Buffer.from(k).toString('base64')}` } })],
])('%s: the report and the line hold no control character and no form of the key', async (_, body) => {
  const server = await hostile(body);
  try {
    const report = await checkClusterAccess({ url: server.url, apiKey: KEY, caFile: server.caFile, retries: 0 });
    const text = JSON.stringify(report) + formatReport(report);
    expect(report).toMatchObject({ ok: false, failedStep: 'key', failureId: 'key-rejected' });
    for (const f of fingerprints(KEY)) expect(text).not.toContain(f);
    const shown = [formatReport(report), report.reason!, report.qdrantVersion!, ...report.steps.map((x) => x.message)];
    for (const s of shown) expect(s).not.toMatch(CONTROL);
  } finally {
    await server.stop();
  }
});

test('the CLI prints the same hostile answer safely (stdout, --json and stderr)', async () => {
  const server = await hostile((k) => `bad \u001b]0;pwned\u0007 ${echoes(k).join(' ')}`);
  try {
    for (const extra of [[], ['--json']]) {
      const out = await runNode([path.join(__dirname, '..', '..', 'assets', 'checker', 'cli.js'), 'check', '--url', server.url, '--ca', server.caFile, '--retries', '0', ...extra],
        { env: { PATH: process.env.PATH ?? '', QDRANT_API_KEY: KEY } });
      for (const f of fingerprints(KEY)) expect(out.stdout + out.stderr).not.toContain(f);
      expect(out.stdout.replace(/\n/g, '')).not.toMatch(CONTROL);
    }
  } finally {
    await server.stop();
  }
});
