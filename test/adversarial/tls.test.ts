/**
 * Class 2: TLS verification can't be switched off from outside. NODE_TLS_REJECT_UNAUTHORIZED=0
 * in the deploy environment makes Node accept any certificate, unless a client asks for
 * verification explicitly; the checker does, for REST and for gRPC. The extra-CA option stays.
 * (The gRPC client on its own is tested the same way in test/checker/grpc.test.ts.)
 */
import * as fs from 'fs';
import * as http2 from 'http2';
import type { AddressInfo } from 'net';
import * as path from 'path';
import * as tls from 'tls';
import { runNode } from '../../tools/testing/run-node';
import { StandInQdrant, canaryKey, carriesKey, createTestCa } from '../../tools/testing/stand-in-qdrant';

const CLI = path.join(__dirname, '..', '..', 'assets', 'checker', 'cli.js');
const KEY = canaryKey('canary-tls');

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await runNode([CLI, 'check', ...args], { env: { PATH: process.env.PATH ?? '', QDRANT_API_KEY: KEY, ...env } });
  // Whatever happened, the key was not printed.
  expect(r.stdout + r.stderr).not.toContain(KEY);
  return r;
}

let s: StandInQdrant;
beforeAll(async () => {
  s = await StandInQdrant.start({ apiKey: KEY });
});
afterAll(() => s.stop());
beforeEach(() => {
  s.requests.length = 0;
});

test('REST: an untrusted certificate fails although NODE_TLS_REJECT_UNAUTHORIZED=0, and no key is sent', async () => {
  const r = await cli(['--url', s.url, '--retries', '0'], { NODE_TLS_REJECT_UNAUTHORIZED: '0' });
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/step root: TLS certificate not trusted/);
  expect(s.requests.filter(carriesKey)).toEqual([]);
});

test('gRPC: the same, on the gRPC endpoint', async () => {
  // REST trusted (its CA given), gRPC served with the same certificate: both verified with the CA...
  const ok = await cli(['--url', s.url, '--grpc-url', s.grpcUrl, '--ca', s.caFile, '--retries', '0'], { NODE_TLS_REJECT_UNAUTHORIZED: '0' });
  expect(ok.code).toBe(0);
  // ...while a gRPC port whose certificate comes from another CA fails, whatever the environment
  // says, with REST still trusted: the failure is gRPC's own, and no gRPC call (no key) was sent.
  const other = createTestCa();
  const calls: http2.IncomingHttpHeaders[] = [];
  const grpc = http2.createSecureServer({ cert: other.serverCert, key: other.serverKey });
  grpc.on('stream', (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => {
    calls.push(headers);
    stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '14' }, { endStream: true });
  });
  grpc.on('session', (session) => session.on('error', () => undefined));
  await new Promise<void>((resolve) => grpc.listen(0, '127.0.0.1', () => resolve()));
  try {
    const grpcUrl = `https://127.0.0.1:${(grpc.address() as AddressInfo).port}`;
    const bad = await cli(['--url', s.url, '--grpc-url', grpcUrl, '--ca', s.caFile, '--retries', '0', '--json'], { NODE_TLS_REJECT_UNAUTHORIZED: '0' });
    expect(bad.code).toBe(1);
    const report = JSON.parse(bad.stdout);
    expect(report).toMatchObject({ ok: false, failedStep: 'grpc', failureId: 'tls-untrusted' });
    expect(report.steps.filter((x: { ok: boolean }) => !x.ok).map((x: { name: string }) => x.name)).toEqual(['grpc']);
    expect(calls).toEqual([]);
  } finally {
    await new Promise<void>((resolve) => grpc.close(() => resolve()));
    fs.rmSync(other.dir, { recursive: true, force: true });
  }
});

test('--ca adds to the trusted roots: a CA from NODE_EXTRA_CA_CERTS is still trusted with --ca of another CA', async () => {
  const other = createTestCa();
  try {
    // The cluster's CA only through NODE_EXTRA_CA_CERTS, and --ca names an unrelated CA: passes.
    const both = await cli(['--url', s.url, '--grpc-url', s.grpcUrl, '--ca', other.caFile, '--retries', '0'], { NODE_EXTRA_CA_CERTS: s.caFile });
    expect(both.stdout).toMatch(/^ok /);
    expect(both.code).toBe(0);
    // Neither source holds the cluster's CA: refused.
    const none = await cli(['--url', s.url, '--grpc-url', s.grpcUrl, '--ca', other.caFile, '--retries', '0'], { NODE_EXTRA_CA_CERTS: other.caFile });
    expect(none.code).toBe(1);
    expect(none.stdout).toMatch(/step root: TLS certificate not trusted/);
  } finally {
    fs.rmSync(other.dir, { recursive: true, force: true });
  }
});

test('--ca with NODE_EXTRA_CA_CERTS naming a whole bundle (Node\'s own roots and the cluster\'s CA): still trusted', async () => {
  const other = createTestCa();
  try {
    // As a system bundle is: mostly the roots Node already has, the cluster's CA in the middle (in CRLF lines).
    const bundle = path.join(other.dir, 'bundle.pem');
    const roots = tls.rootCertificates.slice(0, 20);
    fs.writeFileSync(bundle, [...roots.slice(0, 10), fs.readFileSync(s.caFile, 'utf8').trim().replace(/\n/g, '\r\n'), ...roots.slice(10)].join('\n'));
    const r = await cli(['--url', s.url, '--grpc-url', s.grpcUrl, '--ca', other.caFile, '--retries', '0'], { NODE_EXTRA_CA_CERTS: bundle });
    expect(r.stdout).toMatch(/^ok /);
    expect(r.code).toBe(0);
  } finally {
    fs.rmSync(other.dir, { recursive: true, force: true });
  }
});

test('a --ca file whose PEM block holds no certificate is a usage error, not a silent fallback to the default roots', async () => {
  const other = createTestCa();
  try {
    const bad = path.join(other.dir, 'bad.pem');
    fs.writeFileSync(bad, '-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n');
    const r = await cli(['--url', s.url, '--ca', bad, '--retries', '0'], { NODE_EXTRA_CA_CERTS: s.caFile });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/CA file ".*bad\.pem" holds no usable certificate/);
    expect(s.requests).toEqual([]);
  } finally {
    fs.rmSync(other.dir, { recursive: true, force: true });
  }
});
