/**
 * The CLI (assets/checker/cli.js) as a real child process: exit codes, the output line, --json,
 * usage errors. Every run is scanned for every key used in this file: none may ever be printed.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import type { CheckReport } from '../../assets/checker';
import { signJwt } from '../../tools/testing/jwt';
import { runNode } from '../../tools/testing/run-node';
import { canaryKey, carriesKey, closedPort, createTestCa, StandInQdrant } from '../../tools/testing/stand-in-qdrant';

const CLI = path.join(__dirname, '..', '..', 'assets', 'checker', 'cli.js');
const KEY = canaryKey();
/** The fix a key-rejected line ends with (the catalog's, in the CLI's words). */
const KEY_REJECTED_FIX = '; check the key\'s clusters in the console (setup guide, section 2), set the variable again (setup guide, section 3), or create a new key';
const WRONG_KEY = canaryKey('canary-wrong');
const EXPIRED_KEY = canaryKey('canary-expired');
const CANARIES = [KEY, WRONG_KEY, EXPIRED_KEY];

interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A watchdog for runs that must end by themselves: a child still running after this is killed (signal SIGKILL). */
const WATCHDOG_MS = 30_000;

/** Runs the CLI with a minimal environment (+ env) and checks that no canary key was printed. */
async function run(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  // Asynchronous on purpose: the stand-in server lives in this process and must keep answering.
  const { code, signal, stdout, stderr } = await runNode([CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, killAfterMs: WATCHDOG_MS });
  for (const canary of CANARIES) {
    expect(stdout).not.toContain(canary);
    expect(stderr).not.toContain(canary);
  }
  return { code, signal, stdout, stderr };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

let s: StandInQdrant;

beforeAll(async () => {
  s = await StandInQdrant.start({ apiKey: KEY, expiredApiKey: EXPIRED_KEY });
});
afterAll(() => s.stop());
beforeEach(() => {
  s.setMode('normal');
  s.requests.length = 0;
  s.otherOrigin.requests.length = 0;
});

/** `check --url <stand-in> --ca <its CA> ...extra` */
function checkArgs(...extra: string[]): string[] {
  return ['check', '--url', s.url, '--ca', s.caFile, ...extra];
}

describe('verdicts and exit codes', () => {
  test('good key: exit 0 and one ok line', async () => {
    const r = await run(checkArgs('--label', 'search-api → prod-eu'), { QDRANT_API_KEY: KEY });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^ok {3}search-api → prod-eu {2}qdrant 1\.16\.2 {2}key accepted, keys enforced {2}\d+ ms\n$/);
  });

  test('a name with "eyJ" inside a word is not taken for a JWT (honeyJar-search is shown whole)', async () => {
    const r = await run(checkArgs('--label', 'honeyJar-search → surveyJournals'), { QDRANT_API_KEY: KEY });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok {3}honeyJar-search → surveyJournals {2}qdrant/);
  });

  test('a checker that only GETs / would pass here: / answers 200 to a wrong key, the CLI exits 1', async () => {
    // What a root-only health check sees: 200 and the version, whatever the key.
    const root = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = https.get(`${s.url}/`, { ca: fs.readFileSync(s.caFile), headers: { 'api-key': WRONG_KEY } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      req.on('error', reject);
    });
    expect(root.status).toBe(200);
    expect(JSON.parse(root.body)).toMatchObject({ title: 'qdrant - vector search engine' });

    const r = await run(checkArgs('--label', 'search-api → prod-eu'), { QDRANT_API_KEY: WRONG_KEY });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL search-api → prod-eu {2}step key: key rejected \(401 Invalid API key or JWT\); check the key's clusters in the console \(setup guide, section 2\), set the variable again \(setup guide, section 3\), or create a new key {2}\d+ ms\n$/);
  });

  test('--guide: the failure line names the guide by its path, where it says which section to read', async () => {
    const r = await run(checkArgs('--label', 'search-api → prod-eu', '--guide', 'cdktf.out/stacks/search/qdrant-setup.md'), { QDRANT_API_KEY: WRONG_KEY });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('check the key\'s clusters in the console (cdktf.out/stacks/search/qdrant-setup.md, section 2), ' +
      'set the variable again (cdktf.out/stacks/search/qdrant-setup.md, section 3), or create a new key');
    // One line of text only: the path is printed.
    const bad = await run(checkArgs('--guide', 'a\nb'), { QDRANT_API_KEY: WRONG_KEY });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/guide must be the path of the setup guide, one line/);
  });

  test('expired key: exit 1, reported as expired', async () => {
    const r = await run(checkArgs(), { QDRANT_API_KEY: EXPIRED_KEY });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL 127\.0\.0\.1:\d+ {2}step key: key expired \(403 ExpiredSignature\); create a new key and rotate to it {2}\d+ ms\n$/);
  });

  test('without a label, the URL host is the label', async () => {
    const r = await run(checkArgs(), { QDRANT_API_KEY: KEY });
    expect(r.stdout).toMatch(/^ok {3}127\.0\.0\.1:\d+ {2}qdrant/);
  });

  test('--header bearer: only Authorization is sent', async () => {
    const r = await run(checkArgs('--header', 'bearer'), { QDRANT_API_KEY: KEY });
    expect(r.code).toBe(0);
    const keyed = s.requests.filter(carriesKey);
    expect(keyed.map((q) => q.path)).toEqual(['/collections']);
    expect(keyed.every((q) => q.headers['api-key'] === undefined && q.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  test('--key-env names another variable', async () => {
    const r = await run(checkArgs('--key-env', 'SEARCH_API_QDRANT_KEY'), { SEARCH_API_QDRANT_KEY: KEY, QDRANT_API_KEY: WRONG_KEY });
    expect(r.code).toBe(0);
  });

  test('open cluster: exit 1; with --allow-open: exit 0 and a note', async () => {
    s.setMode('open');
    const strict = await run(checkArgs(), { QDRANT_API_KEY: KEY });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/step enforced: cluster is open: .*--allow-open/);
    const allowed = await run(checkArgs('--allow-open'), { QDRANT_API_KEY: KEY });
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^ok {3}.*key not verified, cluster is open \(allowed\)/);
  });

  test('cloud edge: good key exit 0, bad key exit 1 at step root', async () => {
    s.setMode('cloud-edge');
    expect((await run(checkArgs(), { QDRANT_API_KEY: KEY })).code).toBe(0);
    const bad = await run(checkArgs(), { QDRANT_API_KEY: WRONG_KEY });
    expect(bad.code).toBe(1);
    // The note on the edge is not a fix: the line still ends with the key-rejected one.
    expect(bad.stdout).toMatch(/step root: key rejected \(403 forbidden\) from an endpoint that checks the key even on GET \/, as the Qdrant Cloud edge does; check the key's clusters in the console/);
  });

  test('without --ca the test CA is untrusted: exit 1 with a clear TLS message', async () => {
    const r = await run(['check', '--url', s.url], { QDRANT_API_KEY: KEY });
    expect(r.code).toBe(1);
    // The same line on every Node: 24 and later add a fix of their own to their words ("; if
    // the root CA is installed locally, try running Node.js with --use-system-ca"), left out.
    expect(r.stdout).toMatch(/step root: TLS certificate not trusted: unable to verify the first certificate \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\) — if the server uses a private CA, trust it \(healthCheck\.caFile, or --ca FILE\) {2}\d+ ms\n$/);
  });

  test('--ca adds to the roots Node uses: with NODE_OPTIONS=--use-openssl-ca the OS store stays trusted', async () => {
    // SSL_CERT_FILE plays the OS store, which OpenSSL reads when Node is told to; only it holds the stand-in's CA.
    const other = createTestCa();
    try {
      const args = ['check', '--url', s.url, '--ca', other.caFile];
      const asked = await run(args, { QDRANT_API_KEY: KEY, NODE_OPTIONS: '--use-openssl-ca', SSL_CERT_FILE: s.caFile });
      expect(asked.stdout).toMatch(/^ok {3}127\.0\.0\.1:\d+ {2}qdrant /);
      expect(asked.code).toBe(0);
      const notAsked = await run(args, { QDRANT_API_KEY: KEY, SSL_CERT_FILE: s.caFile });
      expect(notAsked.code).toBe(1);
      expect(notAsked.stdout).toContain('step root: TLS certificate not trusted');
    } finally {
      fs.rmSync(other.dir, { recursive: true, force: true });
    }
  });

  // docs/health-check.md says so, and the timeout, DNS and network fixes: the checks connect directly.
  test('HTTPS_PROXY and the other proxy variables are not used: the check connects to the cluster directly', async () => {
    const proxy = `http://127.0.0.1:${await closedPort()}`;
    const r = await run(checkArgs('--grpc-url', s.grpcUrl), {
      QDRANT_API_KEY: KEY, HTTPS_PROXY: proxy, https_proxy: proxy, HTTP_PROXY: proxy, http_proxy: proxy, ALL_PROXY: proxy, NO_PROXY: '', NODE_USE_ENV_PROXY: '1',
    });
    // Node 22 itself warns, told NODE_USE_ENV_PROXY, that the proxy agent of its fetch is experimental.
    const nodeWarning = /^\(node:\d+\) \[UNDICI-EHPA\] Warning: EnvHttpProxyAgent is experimental[^\n]*\n\(Use `node --trace-warnings \.\.\.`[^\n]*\n/;
    expect(r.stderr.replace(nodeWarning, '')).toBe('');
    expect(r.stdout).toMatch(/^ok {3}127\.0\.0\.1:\d+ {2}qdrant [\d.]+ {2}key accepted, keys enforced, gRPC ok /);
    expect(r.code).toBe(0);
  });

  test('redirect: exit 1, the other origin received no key', async () => {
    s.setMode('redirect');
    const r = await run(checkArgs(), { QDRANT_API_KEY: KEY });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`step root: redirected (302) to ${s.otherOrigin.url} — not followed`);
    expect(s.otherOrigin.requests.filter(carriesKey)).toEqual([]);
    expect(s.otherOrigin.requests).toEqual([]);
    expect(s.requests.filter((q) => q.mode === 'redirect' && carriesKey(q))).toEqual([]);
  });

  test('hang: --timeout and --deadline bound the run', async () => {
    s.setMode('hang');
    const r = await run(checkArgs('--timeout', '1', '--retries', '10', '--deadline', '2'), { QDRANT_API_KEY: KEY });
    // Ended by itself (the watchdog did not kill it), stopped by the deadline, not by the retries running out.
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 1, signal: null });
    expect(r.stdout).toMatch(/step root: overall deadline of 2 s reached after \d+ attempts/);
    const json = await run(checkArgs('--timeout', '1', '--retries', '10', '--deadline', '2', '--json'), { QDRANT_API_KEY: KEY });
    const report = JSON.parse(json.stdout) as CheckReport;
    expect(report).toMatchObject({ ok: false, failedStep: 'root', failureId: 'deadline' });
    expect(report.steps[0].attempts).toBeLessThan(11);
  });

  test('plain http to loopback is allowed', async () => {
    const plain = await StandInQdrant.start({ apiKey: KEY, protocol: 'http' });
    try {
      const r = await run(['check', '--url', plain.url], { QDRANT_API_KEY: KEY });
      expect(r.code).toBe(0);
    } finally {
      await plain.stop();
    }
  });
});

describe('key hygiene', () => {
  test('a key with a trailing newline: exit 1, copy-paste message, key not printed, nothing sent', async () => {
    const r = await run(checkArgs(), { QDRANT_API_KEY: `${KEY}\n` });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/step key: the key has whitespace or a newline at its start or end — likely a copy-paste error; remove it/);
    expect(s.requests).toEqual([]);
  });

  test.each([[[] as string[]], [['--json']], [['--header', 'bearer']], [['--header', 'bearer', '--json']]])(
    'a server that echoes the key %j: never printed', async (extra) => {
      s.setMode('echo-key');
      const r = await run(checkArgs(...extra), { QDRANT_API_KEY: KEY });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('[redacted]');
      expect(s.requests.some(carriesKey)).toBe(true); // the key was sent and echoed back
    });

  test.each([
    ['--header', (k: string) => k],
    ['--timeout', (k: string) => k],
    ['--retries', (k: string) => k],
    ['--url', (k: string) => `https://h.example:6333/${'x'.repeat(60)}${k}`],
  ])('the key pasted as the value of %s: exit 2, not even a clipped copy of it is printed', async (flag, value) => {
    const key = 'Zq8vR2mX9pL4tW7yB3nK6cF1hJ5dG0sA8eU2iO4rT6wY9'; // a plain key of 45 characters
    const r = await run(['check', ...(flag === '--url' ? [] : ['--url', 'https://h.example:6333']), flag, value(key)], { QDRANT_API_KEY: key });
    expect(r.code).toBe(2);
    // Redacted where it is quoted, or not quoted at all (a long value may be a key), or masked (a long part of a URL).
    expect(r.stderr).toMatch(/^qdrant-cluster-access: error: .*(\[redacted\]…|\(not shown: it may be a key\)|"\/\*\*\*")/);
    expect(r.stderr).not.toContain(key.slice(0, 6));
  });
});

describe('--key-sha256-env: the key checked is the one Terraform hands on', () => {
  const VAR_ENV = 'TF_VAR_qdrant_api_key_app';
  const hashArgs = () => checkArgs('--key-env', VAR_ENV, '--key-sha256-env', 'QCA_KEY_SHA256');

  test('the same key: the check runs and passes', async () => {
    const r = await run(hashArgs(), { [VAR_ENV]: KEY, QCA_KEY_SHA256: sha256(KEY) });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok {3}127\.0\.0\.1:\d+ {2}qdrant/);
  });

  test('another key (the variable is also set by a .tfvars file or -var): exit 2 before anything is sent, no key or hash shown', async () => {
    const r = await run(hashArgs(), { [VAR_ENV]: KEY, QCA_KEY_SHA256: sha256(WRONG_KEY) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`qdrant-cluster-access: error: ${VAR_ENV} in the environment is not the value Terraform uses for variable qdrant_api_key_app ` +
      '(it is also set by -var, a .tfvars or *.auto.tfvars file, or -var-file): give the key one way only, by exporting TF_VAR_qdrant_api_key_app\n');
    expect(s.requests).toEqual([]);
    for (const hash of [sha256(KEY), sha256(WRONG_KEY)]) expect(r.stderr).not.toContain(hash.slice(0, 8));
  });

  test('another key in a variable that is not TF_VAR_: exit 2, names both variables', async () => {
    const r = await run(checkArgs('--key-sha256-env', 'EXPECTED_SHA'), { QDRANT_API_KEY: KEY, EXPECTED_SHA: sha256(WRONG_KEY).toUpperCase() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^qdrant-cluster-access: error: the key in environment variable QDRANT_API_KEY is not the one whose sha256 is in environment variable EXPECTED_SHA \(--key-sha256-env\); [^\n]+\n$/);
    expect(s.requests).toEqual([]);
  });

  test.each([
    ['not set', undefined, 'is not set'],
    ['empty', '', 'is empty'],
    ['not a sha256', 'x'.repeat(64), 'does not hold a sha256 of 64 hex digits (value not shown)'],
  ])('the hash variable %s: exit 2, its value not shown', async (_name, value, message) => {
    const env: Record<string, string> = { [VAR_ENV]: KEY };
    if (value !== undefined) env.QCA_KEY_SHA256 = value;
    const r = await run(hashArgs(), env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^qdrant-cluster-access: error: [^\n]+\n$/);
    expect(r.stderr).toContain(`environment variable QCA_KEY_SHA256 (--key-sha256-env) ${message}`);
    expect(r.stderr).not.toContain('xxxxxxxx');
    expect(s.requests).toEqual([]);
  });

  test('--help documents it', async () => {
    expect((await run(['--help'])).stdout).toContain('--key-sha256-env NAME');
  });
});

describe('--json', () => {
  test('prints the report, which parses and matches', async () => {
    const r = await run(checkArgs('--json', '--label', 'prod'), { QDRANT_API_KEY: KEY });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as CheckReport;
    expect(report).toMatchObject({
      ok: true,
      url: s.url,
      label: 'prod',
      header: 'api-key',
      qdrantVersion: '1.16.2',
      keyStatus: 'accepted',
      enforcement: 'enforced',
      collectionCount: 2,
      notes: [],
    });
    expect(report.steps.map((x) => x.name)).toEqual(['root', 'key', 'enforced']);
    expect(report.steps.every((x) => x.ok && x.attempts === 1 && typeof x.durationMs === 'number')).toBe(true);
  });

  test('a failure in JSON: exit 1, failedStep and reason', async () => {
    const r = await run(checkArgs('--json'), { QDRANT_API_KEY: WRONG_KEY });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, failedStep: 'key', keyStatus: 'rejected', reason: `key rejected (401 Invalid API key or JWT)${KEY_REJECTED_FIX}` });
  });
});

describe('usage (exit 2, one line on stderr)', () => {
  const usageLine = /^qdrant-cluster-access: error: [^\n]+\n$/;

  test('--help exits 0 and documents steps, options and exit codes', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const word of ['root', 'key', 'enforced', '--url', '--key-env', '--header', '--ca', '--timeout', '--retries',
      '--deadline', '--allow-open', '--label', '--json', 'Exit codes']) {
      expect(r.stdout).toContain(word);
    }
    // What --ca adds to: Node's roots and NODE_EXTRA_CA_CERTS (check.js keeps them), not "the system roots".
    expect(r.stdout).toMatch(/--ca FILE +PEM CA certificate\(s\) to trust in addition to Node's bundled roots and NODE_EXTRA_CA_CERTS/);
    expect((await run(['check', '--help'])).code).toBe(0);
    expect((await run(['check', '-h'])).stdout).toBe(r.stdout);
  });

  test('missing env var: exit 2, names the variable', async () => {
    const r = await run(checkArgs());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(usageLine);
    expect(r.stderr).toContain('environment variable QDRANT_API_KEY is not set');
    const other = await run(checkArgs('--key-env', 'MY_QDRANT_KEY'), { QDRANT_API_KEY: KEY });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('environment variable MY_QDRANT_KEY is not set');
  });

  test('a TF_VAR_ key variable not set: the hint sets it with read -rs, never with the key on a command line', async () => {
    const r = await run(checkArgs('--key-env', 'TF_VAR_qdrant_api_key_app'));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('qdrant-cluster-access: error: environment variable TF_VAR_qdrant_api_key_app is not set: run read -rs TF_VAR_qdrant_api_key_app && ' +
      'export TF_VAR_qdrant_api_key_app, paste the key (it is neither shown nor kept in the shell\'s history), then cdktf deploy ' +
      '(a value given with -var or a .tfvars file does not reach the check)\n');
  });

  test('empty env var: exit 2', async () => {
    const r = await run(checkArgs(), { QDRANT_API_KEY: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('environment variable QDRANT_API_KEY is empty');
  });

  test('a key variable of only whitespace is a missing key too (exit 2, as docs/checker-cli.md says), not "remove the whitespace"', async () => {
    const r = await run(checkArgs(), { QDRANT_API_KEY: ' \n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^qdrant-cluster-access: error: environment variable QDRANT_API_KEY holds only whitespace: put the API key in QDRANT_API_KEY/);
    expect(s.requests).toEqual([]);
  });

  test('unknown flag: exit 2', async () => {
    const r = await run(checkArgs('--verbose'), { QDRANT_API_KEY: KEY });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('qdrant-cluster-access: error: unknown option "--verbose" (see --help)\n');
  });

  test.each(['--key KEY', '--api-key KEY', '--api-key=KEY', '--token KEY', '-k KEY'])(
    'a key flag (%s) is refused: keys come from the environment', async (flag) => {
      const args = flag.split(' ').map((a) => a.replace('KEY', KEY));
      const r = await run([...checkArgs(), ...args], { QDRANT_API_KEY: KEY });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(usageLine);
      expect(r.stderr).toMatch(/keys are never taken as arguments.*environment variable QDRANT_API_KEY/);
      expect(s.requests).toEqual([]);
    });

  test.each([
    ['a key of letters and digits', 'Sup3rS3cretKeyValue0123456789'],
    ['a hex key starting with a letter', `a${'3f9c'.repeat(15)}b0e`],
    ['an upper-case hex key', `F${'0A9C'.repeat(8)}`],
    ['a key with underscores', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'],
  ])('an unset --key-env that may be a key (%s) is not shown, not even in the hint', async (_name, value) => {
    const r = await run(checkArgs('--key-env', value), { QDRANT_API_KEY: KEY });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(usageLine);
    expect(r.stderr).toContain('environment variable named by --key-env (not shown: it may be a key) is not set');
    expect(r.stderr).not.toContain(value.slice(0, 6));
  });

  test('an empty --grpc-url is named as the gRPC address, with the gRPC port in the example', async () => {
    const r = await run(checkArgs('--grpc-url', ''), { QDRANT_API_KEY: KEY });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('qdrant-cluster-access: error: missing gRPC URL: give the cluster\'s base URL, e.g. https://xyz.eu-central.aws.cloud.qdrant.io:6334\n');
    expect(s.requests).toEqual([]);
  });

  test.each([['--key-env', 'MYK'], ['--key-env=MYK']])(
    'the key in the variable named by %s, pasted as another option\'s value, is redacted', async (...keyEnv) => {
      const short = 'hand-picked-key-0042'; // short enough to be quoted, were it not known as the key
      const r = await run(checkArgs(...keyEnv, '--access', short), { MYK: short });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(usageLine);
      expect(r.stderr).toMatch(/--access must be one of any, read-only, manage, collections; got "\[redacted\]"/);
      expect(r.stderr).not.toContain(short.slice(0, 8));
    });

  test.each([
    ['--url', (jwt: string) => jwt, /^qdrant-cluster-access: error: url "\[redacted\]…?" has no scheme/],
    ['--url', (jwt: string) => `https://h.example:6333/${jwt}`, /^qdrant-cluster-access: error: url "https:\/\/h\.example:6333\/\*\*\*" has a path "\/\*\*\*"/],
    ['--ca', (jwt: string) => `/nonexistent/${jwt}`, /^qdrant-cluster-access: error: cannot read CA file "\/nonexistent\/\[redacted\]/],
  ])('a JWT (a key) given as the value of %s is not echoed', async (flag, value, message) => {
    const jwt = signJwt('some-manage-key-of-the-cluster', { exp: 2000000000, access: 'r' });
    const r = await run(['check', ...(flag === '--url' ? [] : ['--url', 'https://h.example']), flag, value(jwt)], { QDRANT_API_KEY: KEY });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(usageLine);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain('eyJ');
  });

  test('a key passed as --key-env value is not echoed', async () => {
    const r = await run(checkArgs('--key-env', KEY), { QDRANT_API_KEY: KEY });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--key-env needs the NAME of an environment variable');
  });

  test('http:// to a non-loopback host: exit 2 before any network', async () => {
    const r = await run(['check', '--url', 'http://example.invalid'], { QDRANT_API_KEY: KEY });
    // A DNS lookup of .invalid would have failed the check (exit 1) instead.
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 2, signal: null });
    expect(r.stderr).toBe('qdrant-cluster-access: error: url "http://example.invalid" uses http:// to a host that is not loopback, ' +
      'so the API key would travel in clear; use https://\n');
  });

  test.each([
    [['--url', 'https://h.example/collections'], /url "https:\/\/h\.example\/collections" has a path "\/collections"/],
    [['--url', 'https://h.example', '--timeout', 'soon'], /--timeout needs a number of seconds in 1-300; got "soon"/],
    [['--url', 'https://h.example', '--timeout', '301'], /--timeout needs a number of seconds in 1-300; got "301"/],
    [['--url', 'https://h.example', '--retries', '-1'], /--retries needs a whole number in 0-10; got "-1"/],
    [['--url', 'https://h.example', '--retries', '11'], /--retries needs a whole number in 0-10; got "11"/],
    [['--url', 'https://h.example', '--deadline', '0'], /--deadline needs a number of seconds in 1-3600; got "0"/],
    [['--url', 'https://h.example', '--concurrency', '65'], /--concurrency needs a whole number in 1-64; got "65"/],
    [['--url', 'https://h.example', '--min-validity-days', '4000'], /--min-validity-days needs a whole number of days in 0-3650; got "4000"/],
    [['--url', 'https://h.example', '--header', 'x-api-key'], /--header must be one of api-key, bearer; got "x-api-key"/],
    [['--url', 'https://h.example', '--header', 'api-key;touch /x'], /--header must be one of api-key, bearer; got "api-key;touch \/x"/],
    [['--url', 'https://h.example', '--access', 'admin'], /--access must be one of any, read-only, manage, collections; got "admin"/],
    [['--url', 'https://h.example', '--ca', '/nonexistent.pem'], /cannot read CA file "\/nonexistent.pem"/],
    [['--url', 'https://h.example', '--ca', '/dev/zero'], /CA file "\/dev\/zero" is not a regular file/],
    [['--url'], /option --url needs a value/],
    [[], /give one of --url <base_url> \(one cluster\), --grants-env NAME or --grants-file FILE \(several\)/],
  ])('check %j: exit 2', async (args, message) => {
    const r = await run(['check', ...args], { QDRANT_API_KEY: KEY });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(usageLine);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  test('missing or unknown command, stray argument: exit 2; a stray argument is not echoed', async () => {
    expect((await run([])).stderr).toMatch(/missing command/);
    expect((await run(['probe'])).stderr).toMatch(/unknown command 'probe': the commands are 'check' and 'verify-key'/);
    const stray = await run([...checkArgs(), KEY], { QDRANT_API_KEY: KEY });
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/unexpected extra argument \(not shown/);
  });
});
