/**
 * Two Terraform workspaces of one stack are two states that write the same files. Each
 * workspace's entries belong to an owner of their own (`<path>@<workspace>`; the default
 * workspace keeps `<path>`), so with real Terraform:
 * - a second workspace writing the same names to the same file is refused, naming the first
 *   one's block, and the file is left as it was (before, it overwrote the block without a word);
 * - a destroy in the second workspace leaves the first one's entries alone (before, it removed
 *   them, and the first workspace's plan still showed no changes);
 * - with names of its own (a prefix), each workspace keeps a block of its own in the file.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';
import { initAndApply, tempDir, terraform } from '../../tools/testing/terraform';
import { appFiles, appTerraform, ourEntries, scannedRuns, synthAppStack } from '../support/app-files';

jest.setTimeout(300_000);

const KEY = canaryKey('canary-ws-default');
const STAGING_KEY = canaryKey('canary-ws-staging');
const runs = scannedRuns(KEY, STAGING_KEY);

const USER_ENV = '# app\nDATABASE_URL=postgres://db/app\n';
const USER_JSON = '{\n  "region": "eu"\n}\n';

/** The stack, synthesized in `base`; `prefix` names the entries. */
const synth = (base: string, prefix?: string): string => synthAppStack(base, 'ws', prefix);

const tf = appTerraform(runs);


test('a second workspace writing the same names is refused and changes nothing; its destroy leaves the first one\'s entries', async () => {
  const files = appFiles(tempDir('qca-ws-'), 'app', USER_ENV, USER_JSON);
  const dir = synth(files.base);
  const first = await initAndApply(dir, { TF_VAR_qdrant_api_key_app: KEY });
  runs.push(first);
  expect(first.exitCode).toBe(0);
  expect(fs.readFileSync(files.envFile, 'utf8')).toContain('(ws/Qdrant) — do not edit');
  const envAfterDefault = fs.readFileSync(files.envFile, 'utf8');
  const jsonAfterDefault = fs.readFileSync(files.jsonFile, 'utf8');

  expect((await tf(dir, ['workspace', 'new', 'staging'], STAGING_KEY)).exitCode).toBe(0);
  const staging = await tf(dir, ['apply', '-auto-approve', '-input=false'], STAGING_KEY);
  expect(staging.exitCode).not.toBe(0);
  // Terraform wraps the writer's lines.
  const said = staging.stderr.replace(/\s+/g, ' ');
  const another = 'the same access in another Terraform workspace (this one writes as ws/Qdrant@staging); ' +
    'give each workspace its own file, or a secretNaming prefix chosen per environment in your code';
  expect(said).toContain(`refusing to change ${files.envFile}: line 5: QDRANT_URL is already defined in the managed block of owner ws/Qdrant, ${another}`);
  expect(said).toContain(`refusing to change ${files.jsonFile}: line 3: member "QDRANT_URL" (so do "QDRANT_GRPC_URL" on line 4, "QDRANT_API_KEY" on line 5) ` +
    `was written for owner ws/Qdrant (recorded in ${path.join(files.base, '.app.json.qdrant-cluster-access')}), ${another}`);
  expect(fs.readFileSync(files.envFile, 'utf8')).toBe(envAfterDefault);
  expect(fs.readFileSync(files.jsonFile, 'utf8')).toBe(jsonAfterDefault);

  const stagingDestroy = await tf(dir, ['destroy', '-auto-approve', '-input=false'], STAGING_KEY);
  expect(stagingDestroy.exitCode).toBe(0);
  expect(fs.readFileSync(files.envFile, 'utf8')).toBe(envAfterDefault);
  expect(ourEntries(files.envFile).QDRANT_API_KEY).toBe(KEY);

  expect((await tf(dir, ['workspace', 'select', 'default'], KEY)).exitCode).toBe(0);
  expect((await tf(dir, ['plan', '-detailed-exitcode', '-input=false'], KEY)).exitCode).toBe(0); // no changes, and none needed
  expect((await tf(dir, ['destroy', '-auto-approve', '-input=false'], KEY)).exitCode).toBe(0);
  expect(fs.readFileSync(files.envFile, 'utf8')).toBe(USER_ENV);
  expect(fs.readFileSync(files.jsonFile, 'utf8')).toBe(USER_JSON);
});

test('with names of its own, each workspace keeps its own block in the file, and each destroy takes out only its own', async () => {
  const files = appFiles(tempDir('qca-ws-'), 'app', USER_ENV, USER_JSON);
  // One checkout: the prefix comes from the environment at synth, as a per-environment choice would.
  const dir = synth(files.base);
  expect((await initAndApply(dir, { TF_VAR_qdrant_api_key_app: KEY })).exitCode).toBe(0);
  const stagingDir = synth(files.base, 'STAGING_');
  expect(stagingDir).toBe(dir);
  expect((await tf(dir, ['workspace', 'new', 'staging'], STAGING_KEY)).exitCode).toBe(0);
  const staging = await tf(dir, ['apply', '-auto-approve', '-input=false'], STAGING_KEY);
  expect([staging.exitCode, staging.stderr]).toEqual([0, '']);
  expect(fs.readFileSync(files.envFile, 'utf8')).toContain('(ws/Qdrant@staging) — do not edit');
  expect(ourEntries(files.envFile)).toMatchObject({ QDRANT_API_KEY: KEY, STAGING_QDRANT_API_KEY: STAGING_KEY });
  expect(JSON.parse(fs.readFileSync(files.jsonFile, 'utf8'))).toMatchObject({ QDRANT_API_KEY: KEY, STAGING_QDRANT_API_KEY: STAGING_KEY });

  expect((await tf(dir, ['destroy', '-auto-approve', '-input=false'], STAGING_KEY)).exitCode).toBe(0);
  expect(Object.keys(ourEntries(files.envFile)).sort()).toEqual(['QDRANT_API_KEY', 'QDRANT_GRPC_URL', 'QDRANT_URL']);
  expect(Object.keys(JSON.parse(fs.readFileSync(files.jsonFile, 'utf8'))).sort()).toEqual(['QDRANT_API_KEY', 'QDRANT_GRPC_URL', 'QDRANT_URL', 'region']);
});

test('a workspace name that an owner cannot hold (a "~", or too long) is written as 16 hex digits of its SHA-256; destroy takes it out', async () => {
  const files = appFiles(tempDir('qca-ws-'), 'app', USER_ENV, USER_JSON);
  const dir = synth(files.base, 'ODD_');
  await terraform(dir, ['init', '-input=false', '-no-color'], {});
  for (const name of ['feat~1', `pr-${'x'.repeat(130)}`]) {
    expect((await tf(dir, ['workspace', 'new', name], STAGING_KEY)).exitCode).toBe(0);
    const apply = await tf(dir, ['apply', '-auto-approve', '-input=false'], STAGING_KEY);
    expect([apply.exitCode, apply.stderr]).toEqual([0, '']);
    const hash = createHash('sha256').update(name).digest('hex').slice(0, 16);
    expect(fs.readFileSync(files.envFile, 'utf8')).toContain(`(ws/Qdrant@${hash}) — do not edit`);
    expect((await tf(dir, ['destroy', '-auto-approve', '-input=false'], STAGING_KEY)).exitCode).toBe(0);
    expect(fs.readFileSync(files.envFile, 'utf8')).toBe(USER_ENV);
    expect(fs.readFileSync(files.jsonFile, 'utf8')).toBe(USER_JSON);
  }
});
