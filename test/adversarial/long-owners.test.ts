/**
 * Issue #29, class 2: ownership never collapses, and no rule quietly degrades a promise, because a
 * string is long.
 *
 * - The owner of a ClusterAccess's entries in a shared file, as real Terraform evaluates it: each
 *   (construct path, workspace) pair gets an owner of its own at any length; owners that fitted
 *   before stay what they were (no deploy's owner changes); long ones keep the path's start and
 *   the workspace's name readable.
 * - Two workspaces of one stack whose ClusterAccess path is long (120 characters: before, the
 *   `@<workspace>` suffix was dropped from 112 on) write one .env and one JSON file: the second
 *   workspace's same-name write is refused naming the first's block, and its destroy takes out
 *   only its own entries (before, it overwrote the first's key, and its destroy removed the
 *   first's entries while the first's plan showed no changes).
 * - A path longer than an owner may be (150 characters: refused at synth before) works in both
 *   workspaces, each with its own block.
 * - The other limits: a construct path holding another's owner in a workspace (`Q@staging`),
 *   entry names longer than the writers accept, file names too long for the writer's lock, temp
 *   and sidecar files, targets whose descriptions share their first 60 characters, and check
 *   labels longer than a report line showed: each is refused at synth (or, at deploy, before
 *   anything is written) with the limit, or works.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkMany } from '../../assets/checker';
import { isOwner } from '../../assets/runtime/names';
import { ClusterAccess, SecretTarget } from '../../src';
import { canaryKey, closedPort } from '../../tools/testing/stand-in-qdrant';
import { initAndApply, tempDir, terraform } from '../../tools/testing/terraform';
import { appFiles, appTerraform, ourEntries, scannedRuns, synthAppStack } from '../support/app-files';
import { newStack, stateOwner, synthErrors, synthJson } from '../support/synth';
import { runCli } from '../writer/run-cli';

jest.setTimeout(300_000);

const KEY = canaryKey('canary-long-default');
const STAGING_KEY = canaryKey('canary-long-staging');
const runs = scannedRuns(KEY, STAGING_KEY);

const sha16 = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

/** A construct path of exactly `length` characters: `<stack>/<one long id>/Qdrant`. */
function longPath(stackId: string, length: number): { path: string; middle: string } {
  const middle = 'Nested-'.padEnd(length - stackId.length - '//Qdrant'.length, 'n');
  return { path: `${stackId}/${middle}/Qdrant`, middle };
}

describe('the owner, as real Terraform evaluates it in each workspace', () => {
  const LENGTHS = [9, 100, 111, 112, 120, 127, 128, 129, 150, 400];
  const WORKSPACES = ['default', 'staging', 'feat~1', 'w'.repeat(16), 'w'.repeat(31), 'x'.repeat(40), `pr-${'y'.repeat(130)}`];
  const paths = LENGTHS.map((n) => longPath('app', n).path);

  /** The owner before issue #29 (the rule then, for the pairs it gave an owner of their own). */
  function ownerBefore(p: string, workspace: string): string {
    if (workspace === 'default') return p;
    const room = 127 - p.length;
    return `${p}@${new RegExp(`^[A-Za-z0-9_.:+-]{1,${room}}$`).test(workspace) ? workspace : sha16(workspace)}`;
  }

  let owners: Map<string, string[]>;
  beforeAll(async () => {
    const dir = tempDir('qca-owners-');
    const outputs = Object.fromEntries(paths.map((p, i) => [`o${i}`, { value: stateOwner(p) }]));
    fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify({ output: outputs }));
    expect((await terraform(dir, ['init', '-input=false', '-no-color'])).exitCode).toBe(0);
    owners = new Map();
    for (const ws of WORKSPACES) {
      if (ws !== 'default') expect((await terraform(dir, ['workspace', 'new', '-no-color', ws])).exitCode).toBe(0);
      expect((await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color'])).exitCode).toBe(0);
      const out = await terraform(dir, ['output', '-json', '-no-color']);
      const values = JSON.parse(out.stdout) as Record<string, { value: string }>;
      owners.set(ws, paths.map((_, i) => values[`o${i}`].value));
    }
  });

  test('every path in every workspace has an owner of its own, valid for the writer', () => {
    const all = WORKSPACES.flatMap((ws) => owners.get(ws)!);
    expect(all.filter((o) => !isOwner(o))).toEqual([]);
    expect(new Set(all).size).toBe(paths.length * WORKSPACES.length);
  });

  test('owners that fitted before are unchanged: every path up to 128 characters in the default workspace, and up to 111 in any', () => {
    paths.forEach((p, i) => {
      for (const ws of WORKSPACES) {
        if (p.length <= 111 || (ws === 'default' && p.length <= 128)) expect([p.length, ws, owners.get(ws)![i]]).toEqual([p.length, ws, ownerBefore(p, ws)]);
      }
    });
  });

  test('a long path keeps its first 80 characters and the workspace\'s name where it fits; the rest is a hash', () => {
    paths.forEach((p, i) => {
      if (p.length <= 111) return;
      expect(owners.get('staging')![i]).toBe(`${p.slice(0, 80)}+${sha16(p)}@staging`);
      expect(owners.get('w'.repeat(31))![i]).toBe(`${p.slice(0, 80)}+${sha16(p)}@${sha16('w'.repeat(31))}`);
      if (p.length > 128) expect(owners.get('default')![i]).toBe(`${p.slice(0, 80)}+${sha16(p)}`);
    });
  });
});

describe('two workspaces of one stack whose ClusterAccess path is long, with real Terraform', () => {
  const USER_ENV = '# app\nDATABASE_URL=postgres://db/app\n';
  const USER_JSON = '{\n  "region": "eu"\n}\n';

  /** The app's stack, its ClusterAccess at a path of `length` characters; `prefix` names the entries. */
  function synth(base: string, length: number, prefix?: string): string {
    return synthAppStack(base, 'ws', prefix, longPath('ws', length).middle);
  }

  const tf = appTerraform(runs);

  test('a path of 120 characters: the second workspace\'s same-name write is refused naming the first\'s block; its destroy leaves the first\'s entries', async () => {
    const files = appFiles(tempDir('qca-long-ws-'), 'app', USER_ENV, USER_JSON);
    const owner = longPath('ws', 120).path;
    const dir = synth(files.base, 120);
    const first = await initAndApply(dir, { TF_VAR_qdrant_api_key_app: KEY });
    runs.push(first);
    expect([first.exitCode, first.stderr]).toEqual([0, '']);
    expect(fs.readFileSync(files.envFile, 'utf8')).toContain(`(${owner}) — do not edit`);
    const envAfterDefault = fs.readFileSync(files.envFile, 'utf8');
    const jsonAfterDefault = fs.readFileSync(files.jsonFile, 'utf8');

    expect((await tf(dir, ['workspace', 'new', 'staging'], STAGING_KEY)).exitCode).toBe(0);
    const staging = await tf(dir, ['apply', '-auto-approve', '-input=false'], STAGING_KEY);
    expect(staging.exitCode).not.toBe(0);
    const said = staging.stderr.replace(/\s+/g, ' ');
    const stagingOwner = `${owner.slice(0, 80)}+${sha16(owner)}@staging`;
    const another = `the same access in another Terraform workspace (this one writes as ${stagingOwner})`;
    expect(said).toContain(`refusing to change ${files.envFile}: line 5: QDRANT_URL is already defined in the managed block of owner ${owner}, ${another}`);
    expect(said).toContain(`was written for owner ${owner} (recorded in ${path.join(files.base, '.app.json.qdrant-cluster-access')}), ${another}`);
    expect(fs.readFileSync(files.envFile, 'utf8')).toBe(envAfterDefault);
    expect(fs.readFileSync(files.jsonFile, 'utf8')).toBe(jsonAfterDefault);

    expect((await tf(dir, ['destroy', '-auto-approve', '-input=false'], STAGING_KEY)).exitCode).toBe(0);
    expect(fs.readFileSync(files.envFile, 'utf8')).toBe(envAfterDefault);
    expect(fs.readFileSync(files.jsonFile, 'utf8')).toBe(jsonAfterDefault);
    expect(ourEntries(files.envFile).QDRANT_API_KEY).toBe(KEY);

    expect((await tf(dir, ['workspace', 'select', 'default'], KEY)).exitCode).toBe(0);
    expect((await tf(dir, ['plan', '-detailed-exitcode', '-input=false'], KEY)).exitCode).toBe(0);
    expect((await tf(dir, ['destroy', '-auto-approve', '-input=false'], KEY)).exitCode).toBe(0);
    expect(fs.readFileSync(files.envFile, 'utf8')).toBe(USER_ENV);
    expect(fs.readFileSync(files.jsonFile, 'utf8')).toBe(USER_JSON);
  });

  test('a path of 150 characters (longer than an owner may be) deploys; with names of their own, each workspace keeps its own block and each destroy takes out only its own', async () => {
    const files = appFiles(tempDir('qca-long-ws-'), 'app', USER_ENV, USER_JSON);
    const p = longPath('ws', 150).path;
    const short = `${p.slice(0, 80)}+${sha16(p)}`;
    const dir = synth(files.base, 150);
    const first = await initAndApply(dir, { TF_VAR_qdrant_api_key_app: KEY });
    runs.push(first);
    expect([first.exitCode, first.stderr]).toEqual([0, '']);
    expect(synth(files.base, 150, 'STAGING_')).toBe(dir);
    expect((await tf(dir, ['workspace', 'new', 'staging'], STAGING_KEY)).exitCode).toBe(0);
    const staging = await tf(dir, ['apply', '-auto-approve', '-input=false'], STAGING_KEY);
    expect([staging.exitCode, staging.stderr]).toEqual([0, '']);
    const text = fs.readFileSync(files.envFile, 'utf8');
    expect(text).toContain(`(${short}) — do not edit`);
    expect(text).toContain(`(${short}@staging) — do not edit`);
    expect(ourEntries(files.envFile)).toMatchObject({ QDRANT_API_KEY: KEY, STAGING_QDRANT_API_KEY: STAGING_KEY });
    expect(JSON.parse(fs.readFileSync(files.jsonFile, 'utf8'))).toMatchObject({ QDRANT_API_KEY: KEY, STAGING_QDRANT_API_KEY: STAGING_KEY });

    expect((await tf(dir, ['destroy', '-auto-approve', '-input=false'], STAGING_KEY)).exitCode).toBe(0);
    expect(Object.keys(ourEntries(files.envFile)).sort()).toEqual(['QDRANT_API_KEY', 'QDRANT_GRPC_URL', 'QDRANT_URL']);
    expect(Object.keys(JSON.parse(fs.readFileSync(files.jsonFile, 'utf8'))).sort()).toEqual(['QDRANT_API_KEY', 'QDRANT_GRPC_URL', 'QDRANT_URL', 'region']);
    expect((await tf(dir, ['workspace', 'select', 'default'], KEY)).exitCode).toBe(0);
    expect((await tf(dir, ['destroy', '-auto-approve', '-input=false'], KEY)).exitCode).toBe(0);
    expect(fs.readFileSync(files.envFile, 'utf8')).toBe(USER_ENV);
    expect(fs.readFileSync(files.jsonFile, 'utf8')).toBe(USER_JSON);
  });
});

describe('the other limits: refused at synth with the limit, or they work', () => {
  const CLUSTER = { name: 'prod-eu', url: 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io' };
  const OFF = { healthCheck: { enabled: false }, setupGuide: { enabled: false } };

  test('a ClusterAccess whose path is another\'s followed by "@<name>" would share that one\'s owner in workspace <name>: refused at synth', () => {
    const stack = newStack('app');
    for (const [id, name] of [['Qdrant', 'a'], ['Qdrant@staging', 'b']]) {
      new ClusterAccess(stack, id, {
        clusters: [{ ...CLUSTER, name }],
        apiKeys: [{ name, clusters: [name], secretTargets: [SecretTarget.dotenv({ path: '.env' })], secretNaming: { prefix: `${name.toUpperCase()}_` } }],
        ...OFF,
      });
    }
    const errors = synthErrors(stack).join('\n');
    expect(errors).toContain('app/Qdrant@staging');
    expect(errors).toMatch(/in Terraform workspace "staging", app\/Qdrant writes as app\/Qdrant@staging, the owner of app\/Qdrant@staging in the default workspace/);
  });

  test('an entry name longer than the writers accept (a long prefix) is refused at synth, naming the key, the entry and the limit', () => {
    const stack = newStack('app');
    const prefix = `P${'_'.repeat(241)}`;
    new ClusterAccess(stack, 'Qdrant', { clusters: [CLUSTER], apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })], secretNaming: { prefix } }], ...OFF });
    const errors = synthErrors(stack).join('\n');
    // QDRANT_URL and QDRANT_API_KEY fit (252 and 256 characters); QDRANT_GRPC_URL does not.
    expect(errors).toContain('key "k": its entry QDRANT_GRPC_URL with the prefix is 257 characters, longer than a variable name may be: ');
    expect(errors).toContain('at most 256 characters');
    expect(errors).not.toMatch(/entry QDRANT_(URL|API_KEY) with the prefix/);
  });

  test('a file name too long for the files the writer makes next to it is refused at synth with the limit, and by the writer before it takes a lock', async () => {
    const dir = tempDir('qca-long-name-');
    const stack = newStack('app');
    const envName = `${'e'.repeat(212)}.env`;
    const jsonName = `${'j'.repeat(190)}.json`;
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [CLUSTER],
      apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: path.join(dir, envName) }), SecretTarget.json({ path: path.join(dir, jsonName) })] }],
      ...OFF,
    });
    const errors = synthErrors(stack).join('\n');
    expect(errors).toContain(`the file name ${envName} is 216 bytes, and the writer makes files next to it with names up to 44 bytes longer (its lock and temporary files); a file name may have at most 255 bytes: give the file a name of at most 211 bytes`);
    expect(errors).toContain(`the file name ${jsonName} is 195 bytes, and the writer makes files next to it with names up to 62 bytes longer (its lock, temporary and ownership-record files); a file name may have at most 255 bytes: give the file a name of at most 193 bytes`);

    const file = path.join(dir, envName);
    const run = await runCli(['write', '--file', file, '--owner', 'app/Qdrant'], { QDRANT_URL: 'https://x' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('a file name may have at most 255 bytes: give the file a name of at most 211 bytes');
    expect(fs.readdirSync(dir)).toEqual([]);
    // At the limit, both work.
    const fine = path.join(dir, `${'e'.repeat(207)}.env`);
    expect((await runCli(['write', '--file', fine, '--owner', 'app/Qdrant'], { QDRANT_URL: 'https://x' })).code).toBe(0);
    const fineJson = path.join(dir, `${'j'.repeat(188)}.json`);
    expect((await runCli(['write', '--file', fineJson, '--format', 'json', '--owner', 'app/Qdrant'], { QDRANT_URL: 'https://x' })).code).toBe(0);
  });

  test('targets whose descriptions share their first 60 characters keep their Terraform addresses when the keys are reordered', () => {
    const dir = 'config/environments/production/services/search/frontend/app-';
    const addresses = (order: string[]) => {
      const stack = newStack('app');
      new ClusterAccess(stack, 'Qdrant', {
        clusters: [CLUSTER],
        apiKeys: order.map((k) => ({ name: k, clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: `${dir}${k}/.env` })] })),
        ...OFF,
      });
      // Resource address → the directory of the file it writes.
      const resources = synthJson(stack).resource.null_resource as Record<string, { triggers?: { file?: string } }>;
      return Object.fromEntries(Object.entries(resources).filter(([id, r]) => r.triggers?.file && /_Write_/.test(id))
        .map(([id, r]) => [path.basename(path.dirname(r.triggers!.file!)), id]));
    };
    const before = addresses(['one', 'two']);
    expect(Object.keys(before).sort()).toEqual(['app-one', 'app-two']);
    expect(addresses(['two', 'one'])).toEqual(before);
  });

  test('a failed check names each grant in full, however long its key and cluster names', async () => {
    const key = `k${'e'.repeat(62)}`;
    const clusters = [`c${'l'.repeat(58)}-eu1`, `c${'l'.repeat(58)}-us1`];
    const url = `http://127.0.0.1:${await closedPort()}`;
    const result = await checkMany({ apiKey: canaryKey(), retries: 0, timeoutSeconds: 2 }, clusters.map((c) => ({ label: `${key} → ${c}`, url })));
    expect(result.grants.map((g) => g.label)).toEqual(clusters.map((c) => `${key} → ${c}`));
  });
});
