/**
 * A file target's absolute path is part of its identity (the triggers of Write and Registration).
 * With state shared between checkouts or machines, a deploy from elsewhere replaces both, and the
 * old Registration's destroy step runs `remove` for the PREVIOUS path, which may not exist here.
 * That must be "nothing to remove", never an error: else every later apply fails the same way
 * until `terraform state rm`.
 * - the writer: `remove` of a file whose directory is missing exits 0 with a one-line note, for
 *   .env and JSON (sidecar) files alike, and creates nothing (no directory, no lock); `write`
 *   there is still an error;
 * - real Terraform: apply from checkout A, delete A, apply from checkout B with A's state: it
 *   succeeds, B's files hold the entries, the next plan has nothing to do, and destroy from B
 *   gives B's files back byte for byte.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as dotenv from 'dotenv';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, initAndApply, tempDir, terraform } from '../../tools/testing/terraform';
import { appFiles, synthAppStack } from '../support/app-files';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const writer = require('../../assets/writer/cli.js');

jest.setTimeout(300_000);

const KEY = canaryKey('canary-moved');
const runs: { stdout: string; stderr: string }[] = [];
afterAll(() => {
  for (const run of runs) expect(run.stdout.includes(KEY) || run.stderr.includes(KEY)).toBe(false);
});

describe('the writer: remove for a file whose directory does not exist', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('qca-moved-cli-');
  });

  test.each([['dotenv', '.env'], ['json', 'app.json']])('%s: exit 0, a note, nothing created; write there is still an error', async (format, name) => {
    const gone = path.join(dir, 'other-checkout');
    const file = path.join(gone, name);
    const args = ['--file', file, '--format', format, '--owner', 'moved/Qdrant'];
    // As Registration's destroy step runs it: the names come from the file's record (none given).
    const removed = await writer.run(['remove', ...args], { QCA_ENTRIES: '[]' });
    runs.push(removed);
    expect(removed).toEqual({
      code: 0,
      stdout: `removed 0 entries from ${file} (0 not present, file does not exist)`,
      stderr: `nothing to remove from ${file}: its directory ${gone} does not exist`,
    });
    expect(fs.readdirSync(dir)).toEqual([]);

    const written = await writer.run(['write', ...args], { QCA_ENTRIES: JSON.stringify({ QDRANT_URL: 'https://h:6333' }), QCA_ENTRIES_FROM_ENV: '{"QDRANT_API_KEY":"K"}', K: KEY });
    runs.push(written);
    expect(written.code).toBe(1);
    expect(written.stderr).toContain(`cannot write ${file}: directory ${gone} does not exist; create it first or fix the path`);
    // A write of no entries too: only a removal finds nothing to do there.
    const empty = await writer.run(['write', ...args], { QCA_ENTRIES: '{}' });
    runs.push(empty);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain(`cannot write ${file}: directory ${gone} does not exist; create it first or fix the path`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('real Terraform: a deploy from another checkout with the same state', () => {
  const USER_ENV = '# app\nDATABASE_URL=postgres://db/app\n';
  const USER_JSON = '{\n  "region": "eu"\n}\n';
  const VARS = { TF_VAR_qdrant_api_key_app: KEY };

  const checkout = (out: string, name: string) => appFiles(out, name, USER_ENV, USER_JSON);

  /**
   * The stack as `cdktf synth` makes it in one checkout: the same relative paths (so the same
   * construct ids), resolved against that checkout's directory.
   */
  const synth = (base: string): string => synthAppStack(base, 'moved');

  async function tf(dir: string, args: string[]): Promise<TerraformRun> {
    const run = await terraform(dir, [...args, '-input=false', '-no-color'], VARS);
    runs.push(run);
    return run;
  }

  const ours = (envFile: string) => Object.keys(dotenv.parse(fs.readFileSync(envFile, 'utf8'))).filter((k) => k.startsWith('QDRANT_')).sort();

  test('apply from A, delete A, apply from B with A\'s state: it succeeds and B holds the entries', async () => {
    const out = tempDir('qca-moved-');
    const a = checkout(out, 'checkout-a');
    const dirA = synth(a.base);
    const first = await initAndApply(dirA, VARS);
    runs.push(first);
    expect(first.exitCode).toBe(0);
    expect(ours(a.envFile)).toEqual(['QDRANT_API_KEY', 'QDRANT_GRPC_URL', 'QDRANT_URL']);

    // Checkout A is gone (another machine, a CI workspace); B deploys with the same state.
    const state = fs.readFileSync(path.join(dirA, 'terraform.tfstate'));
    fs.rmSync(a.base, { recursive: true, force: true });
    const b = checkout(out, 'checkout-b');
    const dirB = synth(b.base);
    fs.writeFileSync(path.join(dirB, 'terraform.tfstate'), state);
    const moved = await initAndApply(dirB, VARS);
    runs.push(moved);
    expect(moved.stderr).toBe('');
    expect(moved.exitCode).toBe(0);
    for (const f of [a.envFile, a.jsonFile]) {
      expect(moved.stdout).toContain(`nothing to remove from ${f}: its directory ${a.base} does not exist`);
    }
    expect(fs.existsSync(a.base)).toBe(false);
    expect(ours(b.envFile)).toEqual(['QDRANT_API_KEY', 'QDRANT_GRPC_URL', 'QDRANT_URL']);
    expect(dotenv.parse(fs.readFileSync(b.envFile, 'utf8')).QDRANT_API_KEY).toBe(KEY);
    expect(JSON.parse(fs.readFileSync(b.jsonFile, 'utf8'))).toMatchObject({ region: 'eu', QDRANT_API_KEY: KEY });
    expect(fs.readFileSync(b.envFile, 'utf8').startsWith(USER_ENV)).toBe(true);

    const plan = await tf(dirB, ['plan', '-detailed-exitcode']);
    expect(plan.exitCode).toBe(0); // 0: no changes

    const destroy = await tf(dirB, ['destroy', '-auto-approve']);
    expect(destroy.exitCode).toBe(0);
    expect(fs.readFileSync(b.envFile, 'utf8')).toBe(USER_ENV);
    expect(fs.readFileSync(b.jsonFile, 'utf8')).toBe(USER_JSON);
  });

  test('apply from A, copy A to B, apply from B with A\'s state: A\'s files are the user\'s again, once, with no warning', async () => {
    const out = tempDir('qca-copied-');
    const a = checkout(out, 'checkout-a');
    const dirA = synth(a.base);
    const first = await initAndApply(dirA, VARS);
    runs.push(first);
    expect(first.exitCode).toBe(0);

    // A copy of the checkout (a new release directory, say) deploys with the same state.
    const b = checkout(out, 'checkout-b');
    const dirB = synth(b.base);
    fs.copyFileSync(path.join(dirA, 'terraform.tfstate'), path.join(dirB, 'terraform.tfstate'));
    const copied = await initAndApply(dirB, VARS);
    runs.push(copied);
    expect([copied.exitCode, copied.stderr]).toEqual([0, '']);
    // Each file of A is cleaned by its target's own (replaced) registration, and only by it: the
    // record of the files leaves them to it, so no second removal finds the JSON record gone.
    for (const f of [a.envFile, a.jsonFile]) {
      expect(copied.stdout).toContain(`${f}: left to moved/Qdrant/SecretTargets/`);
    }
    expect(copied.stdout).not.toContain('is missing');
    expect(copied.stdout).not.toContain('warning');
    expect(fs.readFileSync(a.envFile, 'utf8')).toBe(USER_ENV);
    expect(fs.readFileSync(a.jsonFile, 'utf8')).toBe(USER_JSON);
    expect(fs.existsSync(path.join(a.base, '.app.json.qdrant-cluster-access'))).toBe(false);
    expect(ours(b.envFile)).toEqual(['QDRANT_API_KEY', 'QDRANT_GRPC_URL', 'QDRANT_URL']);

    const destroy = await tf(dirB, ['destroy', '-auto-approve']);
    expect(destroy.exitCode).toBe(0);
    expect(fs.readFileSync(b.envFile, 'utf8')).toBe(USER_ENV);
    expect(fs.readFileSync(b.jsonFile, 'utf8')).toBe(USER_JSON);
  });
});
