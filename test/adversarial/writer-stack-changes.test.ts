/**
 * Changes to a deployed stack must never leave the app without its entries. With real Terraform:
 * - reordering the keys of a ClusterAccess, or the clusters of a key, keeps every entry (and every
 *   line of the user's) in the .env and the JSON file, and the next plan has nothing to do;
 * - a change of entry names together with a key whose check fails leaves both files byte for byte
 *   as they were (the failed check runs before anything is removed); the next good deploy swaps
 *   the names, keeping a line the user put inside our block;
 * - the same files under another spelling of their paths (which moves the targets' Terraform
 *   addresses) keep their entries: the old Registration's destroy step does not run;
 * - a file that no target writes to any more loses our entries (the Files record's replacement),
 *   also with checks disabled and every key removed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TerraformStack } from 'cdktf';
import * as dotenv from 'dotenv';
import { ClusterAccess, SecretTarget } from '../../src';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, initAndApply, synthStack, terraform } from '../../tools/testing/terraform';
import { appFiles } from '../support/app-files';

jest.setTimeout(300_000);

const KEY_A = canaryKey('canary-changes-a');
const KEY_B = canaryKey('canary-changes-b');
const WRONG = canaryKey('canary-changes-wrong');
const USER_ENV = '# app\nDATABASE_URL=postgres://db/app\n\nexport FLAG="on" # keep\n';
const USER_JSON = '{\n  "region": "eu",\n  "nested": {"a": [1, 2]}\n}\n';

interface KeySpec {
  readonly name: string;
  readonly clusters: string[];
  readonly prefix?: string;
}

const clusters: Record<string, StandInQdrant> = {};
const runs: TerraformRun[] = [];
let out: string;
beforeAll(async () => {
  for (const name of ['eu', 'us']) clusters[name] = await StandInQdrant.start({ apiKey: KEY_A, moreApiKeys: [KEY_B] });
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-e2e-changes-'));
});
afterAll(async () => {
  await Promise.all(Object.values(clusters).map((c) => c.stop()));
  if (out) fs.rmSync(out, { recursive: true, force: true });
});
afterAll(() => {
  // No key in any output of any run (the canaries are what this scans for).
  for (const run of runs) {
    for (const key of [KEY_A, KEY_B, WRONG]) expect(run.stdout.includes(key) || run.stderr.includes(key)).toBe(false);
  }
});

function synth(base: string, keys: KeySpec[], envFile: string, jsonFile: string): string {
  return synthStack(base, 'changes', (app, id) => {
    const stack = new TerraformStack(app, id);
    // One target per file, shared by the keys (two targets on one file are a synth error).
    const targets = [SecretTarget.dotenv({ path: envFile }), SecretTarget.json({ path: jsonFile })];
    new ClusterAccess(stack, 'Qdrant', {
      clusters: Object.entries(clusters).map(([name, c]) => ({ name, url: c.url, grpcPort: Number(new URL(c.grpcUrl).port) })),
      apiKeys: keys.map((k) => ({
        name: k.name,
        clusters: k.clusters,
        secretTargets: targets,
        secretNaming: k.prefix ? { prefix: k.prefix } : undefined,
      })),
      healthCheck: { caFile: clusters.eu.caFile, retries: 0 },
      setupGuide: { enabled: false },
    });
    return stack;
  });
}

async function tf(dir: string, args: string[], env: Record<string, string>): Promise<TerraformRun> {
  const run = await terraform(dir, [...args, '-input=false', '-no-color'], env);
  runs.push(run);
  return run;
}
const apply = (dir: string, env: Record<string, string>) => tf(dir, ['apply', '-auto-approve'], env);

/** A fresh app directory holding the user's .env and JSON file. */
const appDir = (name: string) => appFiles(out, name, USER_ENV, USER_JSON);

const OURS = /QDRANT/;
function ourEnv(envFile: string): Record<string, string> {
  return Object.fromEntries(Object.entries(dotenv.parse(fs.readFileSync(envFile, 'utf8'))).filter(([k]) => OURS.test(k)));
}
function ourJson(jsonFile: string): Record<string, string> {
  return Object.fromEntries(Object.entries<string>(JSON.parse(fs.readFileSync(jsonFile, 'utf8'))).filter(([k]) => OURS.test(k)));
}
function expectUserLinesKept(envFile: string, jsonFile: string): void {
  expect(fs.readFileSync(envFile, 'utf8').startsWith(USER_ENV)).toBe(true);
  expect(JSON.parse(fs.readFileSync(jsonFile, 'utf8'))).toMatchObject({ region: 'eu', nested: { a: [1, 2] } });
}

const VARS = { TF_VAR_qdrant_api_key_a: KEY_A, TF_VAR_qdrant_api_key_b: KEY_B };
const ORDERED: KeySpec[] = [{ name: 'a', clusters: ['eu', 'us'], prefix: 'A_' }, { name: 'b', clusters: ['eu'], prefix: 'B_' }];
const REORDERED: KeySpec[] = [{ name: 'b', clusters: ['eu'], prefix: 'B_' }, { name: 'a', clusters: ['us', 'eu'], prefix: 'A_' }];

/** A fresh app directory with ORDERED deployed: the directories, and our entries in each file. */
async function deployOrdered(name: string) {
  const { base, envFile, jsonFile } = appDir(name);
  const dir = synth(base, ORDERED, envFile, jsonFile);
  const first = await initAndApply(dir, VARS);
  runs.push(first);
  expect(first.exitCode).toBe(0);
  return { base, envFile, jsonFile, dir, env: ourEnv(envFile), json: ourJson(jsonFile) };
}

test('reordering the keys and a key\'s clusters keeps every entry and every user line; the next plan has nothing to do', async () => {
  const { base, envFile, jsonFile, dir, env, json } = await deployOrdered('reorder');
  expect(Object.keys(env).sort()).toEqual([
    'A_QDRANT_EU_API_KEY', 'A_QDRANT_EU_GRPC_URL', 'A_QDRANT_EU_URL', 'A_QDRANT_US_API_KEY', 'A_QDRANT_US_GRPC_URL', 'A_QDRANT_US_URL',
    'B_QDRANT_EU_API_KEY', 'B_QDRANT_EU_GRPC_URL', 'B_QDRANT_EU_URL',
  ]);
  expect(json).toEqual(env);

  synth(base, REORDERED, envFile, jsonFile);
  const reordered = await apply(dir, VARS);
  expect(reordered.exitCode).toBe(0);
  expect(ourEnv(envFile)).toEqual(env);
  expect(ourJson(jsonFile)).toEqual(json);
  expectUserLinesKept(envFile, jsonFile);
  expect(reordered.stdout).not.toMatch(/removed \d+ entr/);

  const plan = await tf(dir, ['plan', '-detailed-exitcode'], VARS);
  expect(plan.exitCode).toBe(0); // 0: no changes
  expect(ourEnv(envFile)).toEqual(env);

  const destroy = await tf(dir, ['destroy', '-auto-approve'], VARS);
  expect(destroy.exitCode).toBe(0);
  expect(fs.readFileSync(envFile, 'utf8')).toBe(USER_ENV);
  expect(fs.readFileSync(jsonFile, 'utf8')).toBe(USER_JSON);
});

test('new entry names with a key that fails its check leave both files byte for byte; the next good deploy swaps the names', async () => {
  const { base, envFile, jsonFile } = appDir('names');
  const dir = synth(base, [{ name: 'a', clusters: ['eu'] }], envFile, jsonFile);
  const first = await initAndApply(dir, VARS);
  runs.push(first);
  expect(first.exitCode).toBe(0);
  expect(Object.keys(ourEnv(envFile)).sort()).toEqual(['QDRANT_API_KEY', 'QDRANT_GRPC_URL', 'QDRANT_URL']);
  // The user adds a line of their own inside our block: it is theirs, whatever happens.
  const START = '# >>> managed by cdktf-qdrant-cluster-access (changes/Qdrant) \u2014 do not edit\n';
  fs.writeFileSync(envFile, fs.readFileSync(envFile, 'utf8').replace(/(# >>> managed by [^\n]*\n(?:# cdktf-qdrant-cluster-access entries:[^\n]*\n)?)/, '$1MY_FLAG=mine\n'));
  expect(fs.readFileSync(envFile, 'utf8')).toContain(START);
  const envBefore = fs.readFileSync(envFile);
  const jsonBefore = fs.readFileSync(jsonFile);

  // A second cluster renames every entry (QDRANT_URL -> QDRANT_EU_URL, ...), and the key is wrong.
  synth(base, [{ name: 'a', clusters: ['eu', 'us'] }], envFile, jsonFile);
  const failed = await apply(dir, { ...VARS, TF_VAR_qdrant_api_key_a: WRONG });
  expect(failed.exitCode).not.toBe(0);
  expect(failed.stderr.replace(/\s+/g, ' ')).toMatch(/FAIL a → eu step key: key rejected \(401/);
  expect(fs.readFileSync(envFile).equals(envBefore)).toBe(true);
  expect(fs.readFileSync(jsonFile).equals(jsonBefore)).toBe(true);

  const good = await apply(dir, VARS);
  expect(good.exitCode).toBe(0);
  expect(Object.keys(ourEnv(envFile)).sort()).toEqual([
    'QDRANT_EU_API_KEY', 'QDRANT_EU_GRPC_URL', 'QDRANT_EU_URL', 'QDRANT_US_API_KEY', 'QDRANT_US_GRPC_URL', 'QDRANT_US_URL',
  ]);
  expect(Object.keys(ourJson(jsonFile)).sort()).toEqual(Object.keys(ourEnv(envFile)).sort());
  expect(dotenv.parse(fs.readFileSync(envFile, 'utf8')).MY_FLAG).toBe('mine');
  expectUserLinesKept(envFile, jsonFile);

  const destroy = await tf(dir, ['destroy', '-auto-approve'], VARS);
  expect(destroy.exitCode).toBe(0);
  // Only the user's line is left of our block; the JSON file is the original.
  expect(dotenv.parse(fs.readFileSync(envFile, 'utf8'))).toEqual({ DATABASE_URL: 'postgres://db/app', FLAG: 'on', MY_FLAG: 'mine' });
  expect(fs.readFileSync(envFile, 'utf8').startsWith(USER_ENV)).toBe(true);
  expect(fs.readFileSync(jsonFile, 'utf8')).toBe(USER_JSON);
});

test('the same files under another spelling of their paths (a new Terraform address) keep every entry, there and back', async () => {
  const { base, envFile, jsonFile, dir, env, json } = await deployOrdered('respelled');
  expect(Object.keys(env)).toHaveLength(9);
  // Two spellings of each path (absolute, and relative to the working directory): the target's
  // description, and so its address, differ; the file does not.
  const spellings = [[envFile, jsonFile], [path.relative(process.cwd(), envFile), path.relative(process.cwd(), jsonFile)]];
  // The old address's Registration leaves the configuration, so its destroy step does not run
  // (Terraform runs one only while the resource is configured), and the new address's Write finds
  // the entries in place. There and back.
  for (let i = 1; i <= 2; i++) {
    const [e, j] = spellings[i % 2];
    synth(base, ORDERED, e, j);
    const moved = await apply(dir, VARS);
    expect(moved.exitCode).toBe(0);
    expect(moved.stdout).toMatch(/Registration[^\n]*: Destroying/);
    expect(moved.stdout).not.toMatch(/removed \d+ entr/);
    expect({ i, env: ourEnv(envFile), json: ourJson(jsonFile) }).toEqual({ i, env, json });
    expectUserLinesKept(envFile, jsonFile);
  }
  const plan = await tf(dir, ['plan', '-detailed-exitcode'], VARS);
  expect(plan.exitCode).toBe(0);

  const destroy = await tf(dir, ['destroy', '-auto-approve'], VARS);
  expect(destroy.exitCode).toBe(0);
  expect(fs.readFileSync(envFile, 'utf8')).toBe(USER_ENV);
  expect(fs.readFileSync(jsonFile, 'utf8')).toBe(USER_JSON);
});

test('a file that no key writes to any more loses our entries, and the user\'s file is as it was', async () => {
  const { base, envFile, jsonFile } = appDir('dropped');
  const otherFile = path.join(base, 'other.env');
  const OTHER = '# other app\nOTHER=1\n';
  fs.writeFileSync(otherFile, OTHER, { mode: 0o600 });
  // Key a writes to the .env; key b to the .env and to other.env, or (withOther false) to the .env only.
  const synthDropped = (withOther: boolean) => synthStack(base, 'dropped', (app, id) => {
    const stack = new TerraformStack(app, id);
    const env = SecretTarget.dotenv({ path: envFile });
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'eu', url: clusters.eu.url, grpcPort: Number(new URL(clusters.eu.grpcUrl).port) }],
      apiKeys: [
        { name: 'a', clusters: ['eu'], secretTargets: [env] },
        { name: 'b', clusters: ['eu'], secretNaming: { prefix: 'B_' }, secretTargets: withOther ? [env, SecretTarget.dotenv({ path: otherFile })] : [env] },
      ],
      healthCheck: { caFile: clusters.eu.caFile, retries: 0 },
      setupGuide: { enabled: false },
    });
    return stack;
  });
  const dir = synthDropped(true);
  const first = await initAndApply(dir, VARS);
  runs.push(first);
  expect(first.exitCode).toBe(0);
  expect(Object.keys(ourEnv(otherFile)).sort()).toEqual(['B_QDRANT_API_KEY', 'B_QDRANT_GRPC_URL', 'B_QDRANT_URL']);
  const env = ourEnv(envFile);
  expect(fs.readFileSync(otherFile).equals(Buffer.from(OTHER))).toBe(false);

  // other.env drops out, in a deploy where key a fails its check: other.env, which no target
  // writes to any more, is cleaned up at the start (a destroy step cannot wait for the checks);
  // the .env, still a target, is left as it was.
  synthDropped(false);
  const failed = await apply(dir, { ...VARS, TF_VAR_qdrant_api_key_a: WRONG });
  expect(failed.exitCode).not.toBe(0);
  expect(failed.stdout).toContain(`removed 3 entries from ${otherFile}`);
  expect(fs.readFileSync(otherFile, 'utf8')).toBe(OTHER);
  expect(ourEnv(envFile)).toEqual(env);

  // The checks pass: nothing more to clean up; the .env keeps every entry.
  const good = await apply(dir, VARS);
  expect(good.exitCode).toBe(0);
  expect(good.stdout).not.toMatch(/removed \d+ entr/);
  expect(fs.readFileSync(otherFile, 'utf8')).toBe(OTHER);
  expect(ourEnv(envFile)).toEqual(env);
  const plan = await tf(dir, ['plan', '-detailed-exitcode'], VARS);
  expect(plan.exitCode).toBe(0);

  const destroy = await tf(dir, ['destroy', '-auto-approve'], VARS);
  expect(destroy.exitCode).toBe(0);
  expect(fs.readFileSync(envFile, 'utf8')).toBe(USER_ENV);
  expect(fs.readFileSync(otherFile, 'utf8')).toBe(OTHER);
  expect(fs.readFileSync(jsonFile, 'utf8')).toBe(USER_JSON);
});

test('with checks disabled, removing every key takes our entries out of the file they wrote to', async () => {
  const { base, envFile } = appDir('all-keys-removed');
  // No check and, at the end, no key and no file target: the Files record is still there to clean up.
  const synthKeys = (keys: string[]) => synthStack(base, 'unchecked', (app, id) => {
    const stack = new TerraformStack(app, id);
    const env = SecretTarget.dotenv({ path: envFile });
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'eu', url: clusters.eu.url }],
      apiKeys: keys.map((name) => ({ name, clusters: ['eu'], secretTargets: [env] })),
      healthCheck: { enabled: false },
      setupGuide: { enabled: false },
    });
    return stack;
  });
  const dir = synthKeys(['a']);
  const first = await initAndApply(dir, VARS);
  runs.push(first);
  expect(first.exitCode).toBe(0);
  expect(Object.keys(ourEnv(envFile)).sort()).toEqual(['QDRANT_API_KEY', 'QDRANT_GRPC_URL', 'QDRANT_URL']);

  synthKeys([]);
  const removed = await apply(dir, VARS);
  expect(removed.exitCode).toBe(0);
  expect(removed.stdout).toContain(`removed 3 entries from ${envFile}`);
  expect(fs.readFileSync(envFile, 'utf8')).toBe(USER_ENV);
  const plan = await tf(dir, ['plan', '-detailed-exitcode'], VARS);
  expect(plan.exitCode).toBe(0);
});
