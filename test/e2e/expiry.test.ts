/**
 * End to end for key expiry (issue #14): examples/basic planned and applied with real Terraform
 * against each real Qdrant version (TLS, jwt_rbac on), first with a JWT key, then with a plain key.
 * The output `qdrant_api_key_search_api_expires_at` is decoded by Terraform from the key's `exp`:
 * the ISO date, not sensitive; "" for a plain key. No part of the token (its header, payload and
 * signature segments, each made unique here) may appear in terraform's output, the plan, the state
 * or cdk.tf.json. Then two keys sharing a .env: a good rotation of one whose file is not written
 * (the other key fails its check) leaves the output at the date of the key in the file.
 */
import { createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TerraformStack } from 'cdktf';
import { BasicStack } from '../../examples/basic/main';
import { ClusterAccess, SecretTarget } from '../../src';
import { base64url, expIn, readJwt } from '../../tools/testing/jwt';
import { describeRealQdrant, RealQdrant } from '../../tools/testing/real-qdrant';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, synthStack, tempDir, terraform } from '../../tools/testing/terraform';

// Bounds, not expectations: terraform init, plan and two applies, and a real server.
jest.setTimeout(240_000);

const MANAGE_KEY = canaryKey('canary-manage');
const EXP = expIn(120 * 24 * 60 * 60 + 3600);
// Every segment carries a canary, so each one can be searched for on its own.
const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: canaryKey('canary-kid') }));
const PAYLOAD = base64url(JSON.stringify({ access: 'r', exp: EXP, sub: canaryKey('canary-sub') }));
const SIGNATURE = base64url(createHmac('sha256', MANAGE_KEY).update(`${HEADER}.${PAYLOAD}`).digest());
const TOKEN = `${HEADER}.${PAYLOAD}.${SIGNATURE}`;
// A rotation to a key that fails its check (signed with another secret), expiring in 5 days.
const BAD_PAYLOAD = base64url(JSON.stringify({ access: 'r', exp: expIn(5 * 24 * 60 * 60), sub: canaryKey('canary-bad-sub') }));
const BAD_TOKEN = `${HEADER}.${BAD_PAYLOAD}.${base64url(createHmac('sha256', canaryKey('canary-other-secret')).update(`${HEADER}.${BAD_PAYLOAD}`).digest())}`;
const OUTPUT = 'qdrant_api_key_search_api_expires_at';
/** What Terraform's formatdate("YYYY-MM-DD'T'hh:mm:ssZ") gives: ISO 8601 without milliseconds. */
const EXPIRES_AT = new Date(EXP * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

describeRealQdrant('examples/basic with a JWT key: the expires_at output (real terraform, real Qdrant)', () => {
  const runs: TerraformRun[] = [];
  let q: RealQdrant;
  let out: string;
  let dir: string;
  const tf = async (args: string[], key: string) => {
    const run = await terraform(dir, [...args, '-no-color'], { TF_VAR_qdrant_api_key_search_api: key });
    runs.push(run);
    return run;
  };
  const outputs = async (key: string) => JSON.parse((await tf(['output', '-json'], key)).stdout) as Record<string, { sensitive: boolean; type: string; value: string }>;

  beforeAll(async () => {
    q = await RealQdrant.start({ apiKey: MANAGE_KEY, jwtRbac: true, collections: ['products'] });
    // Removed with everything in it when this file ends (the harness's tempDir).
    out = tempDir('qca-e2e-expiry-');
    dir = synthStack(out, 'basic', (app, id) => new BasicStack(app, id, { url: q.restUrl, caFile: q.caFile, grpcPort: q.grpcPort }));
    const init = await tf(['init', '-input=false'], TOKEN);
    if (init.exitCode !== 0) throw new Error(`terraform init failed:\n${init.stdout}\n${init.stderr}`);
  });
  afterAll(() => q?.stop());

  test('the token is valid on the server (the test is about the output, not a rejection)', async () => {
    expect((await q.request('GET', '/collections', { key: TOKEN })).status).toBe(200);
  });

  test('plan and apply with a JWT key: the check shows the expiry; the output is its ISO date, not sensitive', async () => {
    const plan = await tf(['plan', '-input=false'], TOKEN);
    expect(plan.exitCode).toBe(0);
    const apply = await tf(['apply', '-auto-approve', '-input=false'], TOKEN);
    expect(apply.stderr).toBe('');
    expect(apply.exitCode).toBe(0);
    expect(apply.stdout).toMatch(new RegExp(`ok +search-api → prod-eu +qdrant ${q.version.replace(/\./g, '\\.')} +key accepted, keys enforced, gRPC ok +expires ${EXPIRES_AT.slice(0, 10)} \\(in 120 days\\) +\\d+ ms`));
    expect((await outputs(TOKEN))[OUTPUT]).toEqual({ sensitive: false, type: 'string', value: EXPIRES_AT });
    // In the state too, as a plain output.
    const state = JSON.parse(fs.readFileSync(path.join(dir, 'terraform.tfstate'), 'utf8')) as { outputs: Record<string, { value: string; sensitive?: boolean }> };
    expect(state.outputs[OUTPUT]).toEqual({ value: EXPIRES_AT, type: 'string' });
  });

  test('a rotation to a key that fails its check leaves the output at the checked key\'s date', async () => {
    const apply = await tf(['apply', '-auto-approve', '-input=false'], BAD_TOKEN);
    expect(apply.exitCode).toBe(1);
    expect(apply.stderr.replace(/\s+/g, ' ')).toMatch(/FAIL search-api → prod-eu step key: key rejected \(403 /);
    // Not the failed key's date (in 5 days): the apps still hold the checked key.
    expect((await outputs(BAD_TOKEN))[OUTPUT]).toEqual({ sensitive: false, type: 'string', value: EXPIRES_AT });
  });

  test('a refresh with another key (apply -refresh-only applies no gate) leaves the output at the checked key\'s date', async () => {
    const refresh = await tf(['apply', '-refresh-only', '-auto-approve', '-input=false'], BAD_TOKEN);
    expect(refresh.exitCode).toBe(0);
    expect((await outputs(BAD_TOKEN))[OUTPUT]).toEqual({ sensitive: false, type: 'string', value: EXPIRES_AT });
  });

  test('with a plain key the output is ""', async () => {
    const apply = await tf(['apply', '-auto-approve', '-input=false'], MANAGE_KEY);
    expect(apply.exitCode).toBe(0);
    expect(apply.stdout).toMatch(new RegExp(`ok +search-api → prod-eu +qdrant ${q.version.replace(/\./g, '\\.')} +key accepted, keys enforced, gRPC ok +\\d+ ms`));
    expect((await outputs(MANAGE_KEY))[OUTPUT]).toEqual({ sensitive: false, type: 'string', value: '' });
  });

  test('no part of the token, nor the plain key, in terraform\'s output, the plan, the state or cdk.tf.json', () => {
    expect(runs.length).toBeGreaterThanOrEqual(8);
    const files = ['cdk.tf.json', 'terraform.tfstate', 'terraform.tfstate.backup']
      .map((f) => path.join(dir, f)).filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f, 'utf8'));
    // The scan reads a state that held the JWT's expiry (the backup, before the plain key's apply).
    expect(files.some((t) => t.includes(EXPIRES_AT) && t.includes('key_sha256'))).toBe(true);
    const texts = [...runs.flatMap((r) => [r.stdout, r.stderr]), ...files];
    const needles = {
      token: TOKEN, header: HEADER, payload: PAYLOAD, signature: SIGNATURE, plainKey: MANAGE_KEY, badToken: BAD_TOKEN, badPayload: BAD_PAYLOAD,
    };
    const found = Object.entries(needles).filter(([, n]) => texts.some((t) => t.includes(n))).map(([name]) => name);
    expect(found).toEqual([]);
  });
});

describeRealQdrant('two keys in one .env: the expires_at output waits for the file (real terraform, real Qdrant)', () => {
  const runs: TerraformRun[] = [];
  let q: RealQdrant;
  let dir: string;
  let envFile: string;
  const FIRST = readJwt(MANAGE_KEY, 120 * 24 * 60 * 60); // what the apps hold first
  const SECOND = readJwt(MANAGE_KEY, 60 * 24 * 60 * 60); // a good rotation
  const WRONG = canaryKey('canary-wrong-b');
  const dateOf = (days: number) => new Date((expIn(days * 24 * 60 * 60)) * 1000).toISOString().slice(0, 10);
  const tf = async (args: string[], a: string, b: string) => {
    const flags = args[0] === 'output' ? ['-no-color'] : ['-no-color', '-input=false'];
    const run = await terraform(dir, [...args, ...flags], { TF_VAR_qdrant_api_key_a: a, TF_VAR_qdrant_api_key_b: b });
    runs.push(run);
    return run;
  };
  const expiresAt = async () => (JSON.parse((await tf(['output', '-json'], FIRST, MANAGE_KEY)).stdout) as Record<string, { value: string }>).qdrant_api_key_a_expires_at.value;
  const inEnv = () => fs.readFileSync(envFile, 'utf8').includes(FIRST) ? 'first' : fs.readFileSync(envFile, 'utf8').includes(SECOND) ? 'second' : 'neither';

  beforeAll(async () => {
    q = await RealQdrant.start({ apiKey: MANAGE_KEY, jwtRbac: true, collections: ['products'] });
    const out = tempDir('qca-e2e-expiry-shared-');
    envFile = path.join(out, '.env');
    dir = synthStack(out, 'shared', (app, id) => {
      const stack = new TerraformStack(app, id);
      const env = SecretTarget.dotenv({ path: envFile });
      new ClusterAccess(stack, 'Qdrant', {
        clusters: [{ name: 'eu', url: q.restUrl, grpcPort: q.grpcPort }],
        apiKeys: [
          { name: 'a', clusters: ['eu'], secretTargets: [env], secretNaming: { prefix: 'A_' } },
          { name: 'b', clusters: ['eu'], secretTargets: [env], secretNaming: { prefix: 'B_' } },
        ],
        healthCheck: { caFile: q.caFile, retries: 0 },
        setupGuide: { enabled: false },
      });
      return stack;
    });
    const init = await tf(['init'], FIRST, MANAGE_KEY);
    if (init.exitCode !== 0) throw new Error(`terraform init failed:\n${init.stdout}\n${init.stderr}`);
  });
  afterAll(() => q?.stop());

  test('a rotation of key a whose file is not written (key b fails its check) leaves the date of the key in the file', async () => {
    expect((await tf(['apply', '-auto-approve'], FIRST, MANAGE_KEY)).exitCode).toBe(0);
    expect([inEnv(), (await expiresAt()).slice(0, 10)]).toEqual(['first', dateOf(120)]);

    // Key a's check passes, key b's fails: the shared .env is not written, so the apps hold FIRST.
    const failed = await tf(['apply', '-auto-approve'], SECOND, WRONG);
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toMatch(/ok +a → eu .*expires/);
    expect([inEnv(), (await expiresAt()).slice(0, 10)]).toEqual(['first', dateOf(120)]);

    // Key b fixed: the file gets SECOND, and the output its date (key a's check does not run again).
    const fixed = await tf(['apply', '-auto-approve'], SECOND, MANAGE_KEY);
    expect(fixed.exitCode).toBe(0);
    expect(fixed.stdout).not.toMatch(/ok +a → eu/);
    expect([inEnv(), (await expiresAt()).slice(0, 10)]).toEqual(['second', dateOf(60)]);
    expect((await tf(['plan', '-detailed-exitcode'], SECOND, MANAGE_KEY)).exitCode).toBe(0);
  });

  test('no key in terraform\'s output', () => {
    const texts = runs.flatMap((r) => [r.stdout, r.stderr]);
    expect([FIRST, SECOND, WRONG, MANAGE_KEY].filter((k) => texts.some((t) => t.includes(k)))).toEqual([]);
  });
});
