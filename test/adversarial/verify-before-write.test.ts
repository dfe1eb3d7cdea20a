/**
 * Class 3: verify first, then write. With real Terraform: a wrong key, or an address the checker
 * refuses (a token that resolves to http:// on a remote host), fails the deploy before anything
 * reaches the app's .env, JSON file or Terraform outputs; a failed deploy leaves the app's
 * configuration exactly as it was, including after a rotation to a wrong key; a refresh with another
 * key (which applies nothing, so checks nothing) shows it in no output. No run prints a key.
 * The remote host is a `.invalid` name (RFC 2606): were the refusal ever lost, the key could
 * not reach anyone.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TerraformStack, TerraformVariable } from 'cdktf';
import { ClusterAccess, SecretTarget } from '../../src';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, initAndApply, synthStack, terraform } from '../../tools/testing/terraform';
import { appFiles } from '../support/app-files';

jest.setTimeout(180_000);

const GOOD = canaryKey('canary-verify-good');
const WRONG = canaryKey('canary-verify-wrong');
const ENV_BEFORE = '# app\nDATABASE_URL=postgres://db/app\n';
const JSON_BEFORE = '{ "region": "eu" }\n';
const REMOTE_HTTP = 'http://qdrant.remote.invalid:6333';

let cluster: StandInQdrant;
let out: string;
beforeAll(async () => {
  cluster = await StandInQdrant.start({ apiKey: GOOD });
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-e2e-verify-'));
});
afterAll(async () => {
  await cluster?.stop();
  fs.rmSync(out, { recursive: true, force: true });
});

/** A stack writing one key to a .env, a JSON file and the outputs; `url` may be a token. */
function deploy(name: string, url?: (stack: TerraformStack) => string) {
  const { base, envFile, jsonFile } = appFiles(out, name, ENV_BEFORE, JSON_BEFORE);
  const dir = synthStack(base, 'verify', (app, id) => {
    const stack = new TerraformStack(app, id);
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: url ? url(stack) : cluster.url, grpcPort: Number(new URL(cluster.grpcUrl).port) }],
      apiKeys: [{
        name: 'app',
        clusters: ['prod-eu'],
        secretTargets: [SecretTarget.dotenv({ path: envFile }), SecretTarget.json({ path: jsonFile }), SecretTarget.terraformOutputs()],
      }],
      healthCheck: { caFile: cluster.caFile, retries: 0 },
    });
    return stack;
  });
  const unchanged = () => {
    expect(fs.readFileSync(envFile, 'utf8')).toBe(ENV_BEFORE);
    expect(fs.readFileSync(jsonFile, 'utf8')).toBe(JSON_BEFORE);
    expect(fs.readdirSync(base).sort()).toEqual(['.env', 'app.json', 'manifest.json', 'stacks']); // no sidecar, no lock, no temp file
  };
  return { dir, envFile, jsonFile, unchanged };
}

async function outputs(dir: string): Promise<Record<string, { value: string }>> {
  // (Not scanned for keys: printing the value is what `output -json` is for.)
  return JSON.parse((await terraform(dir, ['output', '-json'])).stdout || '{}');
}

/** `terraform destroy`, which must succeed. */
async function destroy(dir: string, env: Record<string, string> = {}): Promise<TerraformRun> {
  const run = await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], env);
  expect(run.exitCode).toBe(0);
  return run;
}

/** No key, good or wrong, in what terraform printed. */
function expectNoKey(...runs: TerraformRun[]): void {
  for (const run of runs) {
    for (const key of [GOOD, WRONG]) expect(run.stdout.includes(key) || run.stderr.includes(key)).toBe(false);
  }
}

test('a wrong key fails the deploy, and the .env, the JSON file and the outputs stay as they were', async () => {
  const d = deploy('wrong-key');
  const run = await initAndApply(d.dir, { TF_VAR_qdrant_api_key_app: WRONG });
  expect(run.exitCode).not.toBe(0);
  expect(run.stderr.replace(/\s+/g, ' ')).toMatch(/FAIL app → prod-eu step key: key rejected \(401 Invalid API key or JWT\)/);
  d.unchanged();
  expect(Object.keys(await outputs(d.dir)).filter((n) => n.startsWith('QDRANT_'))).toEqual([]);
  const gone = await destroy(d.dir);
  d.unchanged();
  expectNoKey(run, gone);
});

test('a token address that resolves to http:// on a remote host is refused by the check; nothing is written', async () => {
  const d = deploy('http-token', (stack) => new TerraformVariable(stack, 'cluster_url', { type: 'string' }).stringValue);
  const run = await initAndApply(d.dir, { TF_VAR_qdrant_api_key_app: GOOD, TF_VAR_cluster_url: REMOTE_HTTP });
  expect(run.exitCode).not.toBe(0);
  expect(run.stderr.replace(/\s+/g, ' ')).toContain('uses http:// to a host that is not loopback, so the API key would travel in clear');
  d.unchanged();
  const gone = await destroy(d.dir, { TF_VAR_cluster_url: REMOTE_HTTP });
  d.unchanged();
  expectNoKey(run, gone);
});

test('after a good deploy, a rotation to a wrong key changes nothing the app reads', async () => {
  const d = deploy('rotation');
  const ok = await initAndApply(d.dir, { TF_VAR_qdrant_api_key_app: GOOD });
  expect(ok.exitCode).toBe(0);
  const envAfter = fs.readFileSync(d.envFile, 'utf8');
  const jsonAfter = fs.readFileSync(d.jsonFile, 'utf8');
  expect(envAfter).toContain(`QDRANT_API_KEY='${GOOD}'`);
  expect((await outputs(d.dir)).QDRANT_API_KEY.value).toBe(GOOD);

  const bad = await terraform(d.dir, ['apply', '-auto-approve', '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_app: WRONG });
  expect(bad.exitCode).not.toBe(0);
  expect(fs.readFileSync(d.envFile, 'utf8')).toBe(envAfter);
  expect(fs.readFileSync(d.jsonFile, 'utf8')).toBe(jsonAfter);
  expect((await outputs(d.dir)).QDRANT_API_KEY.value).toBe(GOOD);
  // The failed check is the one error: the outputs' guard against a refresh does not add its own.
  expect(bad.stderr).not.toContain('did not check');
  const gone = await destroy(d.dir);
  d.unchanged();
  expectNoKey(ok, bad, gone);
});

test('after a good deploy, a refresh with another key (apply -refresh-only, which checks nothing) shows no unchecked value: the outputs are empty', async () => {
  const d = deploy('refresh');
  const ok = await initAndApply(d.dir, { TF_VAR_qdrant_api_key_app: GOOD });
  expect(ok.exitCode).toBe(0);
  const refresh = await terraform(d.dir, ['apply', '-refresh-only', '-auto-approve', '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_app: WRONG });
  expect(refresh.exitCode).not.toBe(0);
  expect(refresh.stderr.replace(/\s+/g, ' ')).toContain('this output would get a value the last deploy did not check (a key variable changed, ' +
    'and this run applies nothing: terraform apply -refresh-only, say), so it is empty; run cdktf deploy to check the key and write the outputs again');
  // Terraform writes outputs despite a failed precondition: empty, never the unchecked key.
  expect(Object.fromEntries(Object.entries(await outputs(d.dir)).filter(([n]) => n.startsWith('QDRANT_')).map(([n, o]) => [n, o.value])))
    .toEqual({ QDRANT_URL: '', QDRANT_GRPC_URL: '', QDRANT_API_KEY: '' });
  // With the key the deploy checked, a refresh passes and shows the values again.
  const same = await terraform(d.dir, ['apply', '-refresh-only', '-auto-approve', '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_app: GOOD });
  expect(same.exitCode).toBe(0);
  expect((await outputs(d.dir)).QDRANT_API_KEY.value).toBe(GOOD);
  const gone = await destroy(d.dir);
  d.unchanged();
  expectNoKey(ok, refresh, same, gone);
});
