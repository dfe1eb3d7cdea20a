/**
 * Class 4: destroy removes only what the library wrote. With real Terraform:
 * - after a failed first deploy, destroy leaves the app's files byte for byte, even when they
 *   define QDRANT_URL and QDRANT_API_KEY of their own;
 * - after a successful deploy, destroy restores the files byte for byte: a file the deploy
 *   created is deleted again, and a JSON file keeps its original spelling (`{ }` stays `{ }`).
 * The writer's own tests (writer-ownership.test.ts) cover the same rules without Terraform.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TerraformStack } from 'cdktf';
import { ClusterAccess, SecretTarget } from '../../src';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, initAndApply, synthStack, terraform } from '../../tools/testing/terraform';

jest.setTimeout(180_000);

const KEY = canaryKey('canary-ours');
const WRONG = canaryKey('canary-ours-wrong');

let cluster: StandInQdrant;
let out: string;
beforeAll(async () => {
  cluster = await StandInQdrant.start({ apiKey: KEY });
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-e2e-ours-'));
});
afterAll(async () => {
  await cluster?.stop();
  fs.rmSync(out, { recursive: true, force: true });
});

function stackWriting(name: string, files: { dotenv?: string; json?: string }, prefix?: string): string {
  const base = path.join(out, name);
  fs.mkdirSync(base, { recursive: true });
  return synthStack(base, 'ours', (app, id) => {
    const stack = new TerraformStack(app, id);
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: cluster.url, grpcPort: Number(new URL(cluster.grpcUrl).port) }],
      apiKeys: [{
        name: 'app',
        clusters: ['prod-eu'],
        secretTargets: [
          ...(files.dotenv ? [SecretTarget.dotenv({ path: files.dotenv })] : []),
          ...(files.json ? [SecretTarget.json({ path: files.json })] : []),
        ],
        secretNaming: prefix ? { prefix } : undefined,
      }],
      healthCheck: { caFile: cluster.caFile, retries: 0 },
    });
    return stack;
  });
}

const destroy = (dir: string) => terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color']);

/** No key, right or wrong, in what terraform printed. */
function expectNoKey(...runs: TerraformRun[]): void {
  for (const run of runs) {
    for (const key of [KEY, WRONG]) expect(run.stdout.includes(key) || run.stderr.includes(key)).toBe(false);
  }
}

test('after a failed first deploy, destroy leaves the user\'s own QDRANT_URL and QDRANT_API_KEY byte for byte', async () => {
  const envFile = path.join(out, 'failed', '.env');
  const jsonFile = path.join(out, 'failed', 'app.json');
  fs.mkdirSync(path.dirname(envFile), { recursive: true });
  const env = '# local development\nQDRANT_URL=http://localhost:6333\nQDRANT_API_KEY=dev-key\n';
  const json = '{"QDRANT_URL": "http://localhost:6333", "QDRANT_API_KEY": "dev-key"}';
  fs.writeFileSync(envFile, env);
  fs.writeFileSync(jsonFile, json);
  const dir = stackWriting('failed', { dotenv: envFile, json: jsonFile });
  const run = await initAndApply(dir, { TF_VAR_qdrant_api_key_app: WRONG });
  expect(run.exitCode).not.toBe(0);
  const gone = await destroy(dir);
  expect(gone.exitCode).toBe(0);
  expect(fs.readFileSync(envFile, 'utf8')).toBe(env);
  expect(fs.readFileSync(jsonFile, 'utf8')).toBe(json);
  expectNoKey(run, gone);
});

test('the user\'s own names are refused, not overwritten, by a deploy that passes its checks', async () => {
  const envFile = path.join(out, 'refused', '.env');
  fs.mkdirSync(path.dirname(envFile), { recursive: true });
  const env = 'QDRANT_URL=http://localhost:6333\n';
  fs.writeFileSync(envFile, env);
  const dir = stackWriting('refused', { dotenv: envFile });
  const run = await initAndApply(dir, { TF_VAR_qdrant_api_key_app: KEY });
  expect(run.exitCode).not.toBe(0);
  expect(run.stderr.replace(/\s+/g, ' ')).toContain(`refusing to change ${envFile}: line 1: QDRANT_URL is already defined outside the managed block of owner ours/Qdrant`);
  expect(fs.readFileSync(envFile, 'utf8')).toBe(env);
  const gone = await destroy(dir);
  expect(gone.exitCode).toBe(0);
  expect(fs.readFileSync(envFile, 'utf8')).toBe(env);
  expectNoKey(run, gone);
});

test('a file the deploy created is deleted again by destroy; a JSON file keeps its spelling', async () => {
  const created = path.join(out, 'restore', 'created.env');
  const spaced = path.join(out, 'restore', 'spaced.json');
  fs.mkdirSync(path.dirname(created), { recursive: true });
  fs.writeFileSync(spaced, '{ }');
  const dir = stackWriting('restore', { dotenv: created, json: spaced });
  const run = await initAndApply(dir, { TF_VAR_qdrant_api_key_app: KEY });
  expect(run.exitCode).toBe(0);
  expect(fs.existsSync(created)).toBe(true);
  expect(fs.statSync(created).mode % 0o1000).toBe(0o600);
  expect(JSON.parse(fs.readFileSync(spaced, 'utf8')).QDRANT_API_KEY).toBe(KEY);
  const gone = await destroy(dir);
  expect(gone.exitCode).toBe(0);
  expect(fs.existsSync(created)).toBe(false);
  expect(fs.readFileSync(spaced, 'utf8')).toBe('{ }');
  // No ownership record left behind either.
  expect(fs.readdirSync(path.dirname(created)).sort()).toEqual(['manifest.json', 'spaced.json', 'stacks']);
  expectNoKey(run, gone);
});
