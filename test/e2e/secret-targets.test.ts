/**
 * End to end for the secret targets: examples/multi-cluster deployed with real Terraform into a
 * temp dir whose `.env` already holds the app's own lines. The official js-client-rest then
 * reads the written file through the `dotenv` parser and lists collections on every cluster.
 * Then a key rotation, a no-op deploy and a destroy, checking the file after each step.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TerraformStack } from 'cdktf';
import * as dotenv from 'dotenv';
import * as ts from 'typescript';
import { MultiClusterStack } from '../../examples/multi-cluster/main';
import { ClusterAccess, SecretTarget } from '../../src';
import { runNode } from '../../tools/testing/run-node';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, initAndApply, synthStack, terraform } from '../../tools/testing/terraform';
import { expectNoCanary } from '../ecosystem/support';
import { imports, readPage, readmeCompilerOptions } from '../support/docs';

jest.setTimeout(240_000);

// The app's own .env: comments, blank lines, `export`, every quoting style, a multi-line value.
const FOREIGN = [
  '# payments app',
  'export DATABASE_URL="postgres://app@db:5432/app" # primary',
  '',
  "GREETING='hello world'",
  'TEMPLATE=`{"a": 1}`',
  'CERT="-----BEGIN-----',
  'abc',
  '-----END-----"',
  'EMPTY=',
  '',
].join('\n');

const clientVersion = (JSON.parse(fs.readFileSync(
  path.join(path.dirname(require.resolve('@qdrant/js-client-rest')), '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

/**
 * What an app does: parse the .env with `dotenv`, then connect with the official client. Runs in
 * a child process that trusts the test CA (the client takes no CA option).
 */
const APP = `
  const fs = require('node:fs');
  const dotenv = require('dotenv');
  const { QdrantClient } = require('@qdrant/js-client-rest');
  const env = dotenv.parse(fs.readFileSync(process.argv[1]));
  (async () => {
    const out = {};
    for (const prefix of ['QDRANT_PROD_EU', 'QDRANT_PROD_US', 'QDRANT_STAGING', 'INGEST_QDRANT_PROD_EU']) {
      const client = new QdrantClient({ url: env[prefix + '_URL'], apiKey: env[prefix + '_API_KEY'] });
      out[prefix] = (await client.getCollections()).collections.map((c) => c.name);
    }
    console.log(JSON.stringify(out));
  })().catch((e) => { console.error('client failed: ' + e.message); process.exit(1); });`;

function runApp(envFile: string, caFile: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runNode(['-e', APP, envFile], {
    cwd: path.join(__dirname, '..', '..'),
    env: { PATH: process.env.PATH ?? '', NODE_EXTRA_CA_CERTS: caFile },
  });
}

describe('examples/multi-cluster writes the app .env with real terraform', () => {
  const search = canaryKey('canary-env-search');
  const rotated = canaryKey('canary-env-rotated');
  const ingest = canaryKey('canary-env-ingest');
  const clusters: Record<string, StandInQdrant> = {};
  const runs: TerraformRun[] = [];
  let dir: string;
  let envFile: string;
  let urls: Record<string, string>;
  let env: Record<string, string>;
  let out: string;

  const apply = async (vars: Record<string, string>) => {
    const run = await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color'], vars);
    runs.push(run);
    return run;
  };
  const lines = () => fs.readFileSync(envFile, 'utf8').split('\n');

  beforeAll(async () => {
    // Every cluster accepts search-api and its rotated successor; prod-eu also accepts ingest.
    const opts = { apiKey: search, moreApiKeys: [rotated], version: clientVersion };
    clusters['prod-eu'] = await StandInQdrant.start({ ...opts, moreApiKeys: [rotated, ingest] });
    clusters['prod-us'] = await StandInQdrant.start(opts);
    clusters.staging = await StandInQdrant.start(opts);
    urls = Object.fromEntries(Object.entries(clusters).map(([name, c]) => [name, c.url]));
    const grpcPorts = Object.fromEntries(Object.entries(clusters).map(([name, c]) => [name, Number(new URL(c.grpcUrl).port)]));
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-e2e-env-'));
    const appDir = path.join(out, 'app');
    fs.mkdirSync(appDir);
    envFile = path.join(appDir, '.env');
    fs.writeFileSync(envFile, FOREIGN);
    fs.chmodSync(envFile, 0o640); // whatever the umask: the mode checked below is this one
    dir = synthStack(out, 'multi', (app, id) => new MultiClusterStack(app, id, { urls, grpcPorts, caFile: clusters.staging.caFile, envFile }));
    env = { TF_VAR_qdrant_api_key_search_api: search, TF_VAR_ingest_key: ingest };
  });
  afterAll(async () => {
    if (dir) await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_search_api: rotated, TF_VAR_ingest_key: ingest });
    await Promise.all(Object.values(clusters).map((c) => c.stop()));
    if (out) fs.rmSync(out, { recursive: true, force: true });
  });

  test('deploy merges the entries: the app\'s lines stay byte for byte, ours are appended in a managed block', async () => {
    const run = await initAndApply(dir, env);
    runs.push(run);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    // Both keys come from TF_VAR_..., so the writer's line stays visible.
    expect(run.stdout).toContain(`wrote 12 entries to ${envFile} (0 updated, 12 added)`);

    const text = fs.readFileSync(envFile, 'utf8');
    expect(text.startsWith(FOREIGN)).toBe(true);
    expect(text.slice(FOREIGN.length).split('\n')[0]).toBe('# >>> managed by cdktf-qdrant-cluster-access (multi/Qdrant) — do not edit');
    expect(fs.statSync(envFile).mode % 0o1000).toBe(0o640); // an existing file keeps its mode

    const grpc = (url: string) => Object.values(clusters).find((c) => c.url === url)!.grpcUrl;
    expect(dotenv.parse(text)).toEqual({
      DATABASE_URL: 'postgres://app@db:5432/app',
      GREETING: 'hello world',
      TEMPLATE: '{"a": 1}',
      CERT: '-----BEGIN-----\nabc\n-----END-----',
      EMPTY: '',
      QDRANT_PROD_EU_URL: urls['prod-eu'],
      QDRANT_PROD_EU_GRPC_URL: grpc(urls['prod-eu']),
      QDRANT_PROD_EU_API_KEY: search,
      QDRANT_PROD_US_URL: urls['prod-us'],
      QDRANT_PROD_US_GRPC_URL: grpc(urls['prod-us']),
      QDRANT_PROD_US_API_KEY: search,
      QDRANT_STAGING_URL: urls.staging,
      QDRANT_STAGING_GRPC_URL: grpc(urls.staging),
      QDRANT_STAGING_API_KEY: search,
      INGEST_QDRANT_PROD_EU_URL: urls['prod-eu'],
      INGEST_QDRANT_PROD_EU_GRPC_URL: grpc(urls['prod-eu']),
      INGEST_QDRANT_PROD_EU_API_KEY: ingest,
    });
    // The stand-in URLs carry their port, like real clusters' https://host:6333.
    expect(urls['prod-eu']).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  test('the official js-client-rest, reading the written .env with dotenv, lists collections on every cluster', async () => {
    const r = await runApp(envFile, clusters.staging.caFile);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const names = ['products', 'support-tickets'];
    expect(JSON.parse(r.stdout)).toEqual({
      QDRANT_PROD_EU: names, QDRANT_PROD_US: names, QDRANT_STAGING: names, INGEST_QDRANT_PROD_EU: names,
    });
    expect(clusters['prod-eu'].requests.filter((q) => q.path === '/collections' && q.headers['api-key'] === ingest).length).toBeGreaterThanOrEqual(2);
  });

  test('the client program of docs/secret-targets.md, run as printed in the app\'s directory, lists prod-eu\'s collections', async () => {
    const [block] = readPage('docs/secret-targets.md').blocks.filter((b) => b.lang === 'ts' && imports(b.text).includes('@qdrant/js-client-rest'));
    expect(imports(block.text)).toEqual(['dotenv/config', '@qdrant/js-client-rest']);
    // Compiled with the README's tsconfig, as a user's app would be; dotenv reads the .env of its working directory.
    const file = path.join(out, 'client.js');
    fs.writeFileSync(file, ts.transpileModule(block.text, { compilerOptions: readmeCompilerOptions() }).outputText);
    const r = await runNode([file], {
      cwd: path.dirname(envFile),
      env: { PATH: process.env.PATH ?? '', NODE_EXTRA_CA_CERTS: clusters['prod-eu'].caFile, NODE_PATH: path.join(__dirname, '..', '..', 'node_modules') },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("[ 'products', 'support-tickets' ]\n");
  });

  test('ingest is also published as sensitive Terraform outputs', async () => {
    // (Not scanned for keys: printing the value is what `output -json` is for.)
    const run = await terraform(dir, ['output', '-json'], env);
    const outputs = JSON.parse(run.stdout);
    expect(outputs.INGEST_QDRANT_API_KEY).toEqual({ sensitive: true, type: 'string', value: ingest });
    expect(outputs.INGEST_QDRANT_URL).toEqual({ sensitive: true, type: 'string', value: urls['prod-eu'] });
    const plain = await terraform(dir, ['output', '-no-color'], env);
    runs.push(plain);
    expect(plain.stdout).toContain('INGEST_QDRANT_API_KEY = <sensitive>');
  });

  test('rotating search-api rewrites its three key lines in place and re-runs its health checks', async () => {
    const before = lines();
    const checks = clusters['prod-us'].requests.length;
    const run = await apply({ ...env, TF_VAR_qdrant_api_key_search_api: rotated });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(`wrote 12 entries to ${envFile} (3 updated, 0 added, 9 unchanged)`);
    // No destroy step on a rotation: nothing was removed and re-added.
    expect(run.stdout).not.toMatch(/removed \d+ entr/);

    const after = lines();
    expect(after).toHaveLength(before.length);
    const changed = after.map((l, i) => (l === before[i] ? -1 : i)).filter((i) => i >= 0);
    expect(changed.map((i) => after[i].split('=')[0])).toEqual(['QDRANT_PROD_EU_API_KEY', 'QDRANT_PROD_US_API_KEY', 'QDRANT_STAGING_API_KEY']);
    expect(dotenv.parse(after.join('\n')).QDRANT_PROD_US_API_KEY).toBe(rotated);
    expect(clusters['prod-us'].requests.slice(checks).some((q) => q.headers['api-key'] === rotated)).toBe(true);

    const app = await runApp(envFile, clusters.staging.caFile);
    expect(app.code).toBe(0);
  });

  test('a deploy with nothing changed writes nothing', async () => {
    const before = fs.readFileSync(envFile, 'utf8');
    const run = await apply({ ...env, TF_VAR_qdrant_api_key_search_api: rotated });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('No changes.');
    expect(fs.readFileSync(envFile, 'utf8')).toBe(before);
  });

  test('destroy removes only our entries: the file is the app\'s original, byte for byte', async () => {
    const run = await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], { ...env, TF_VAR_qdrant_api_key_search_api: rotated });
    runs.push(run);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(`removed 12 entries from ${envFile} (0 not present)`);
    expect(fs.readFileSync(envFile, 'utf8')).toBe(FOREIGN);
    expect(fs.statSync(envFile).mode % 0o1000).toBe(0o640);
  });

  test('no key in terraform\'s output or the stack; search-api\'s keys not even in the state', () => {
    expect(runs.length).toBeGreaterThanOrEqual(5);
    const stack = fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8');
    for (const key of [search, rotated, ingest]) {
      for (const run of runs) {
        expect(run.stdout.includes(key) || run.stderr.includes(key)).toBe(false);
      }
      expect(stack.includes(key)).toBe(false);
    }
    // The state holds what Terraform stores: outputs (ingest, by design of that target) and
    // hashes. The .env targets add no key to it.
    const states = ['terraform.tfstate', 'terraform.tfstate.backup'].map((f) => path.join(dir, f)).filter((f) => fs.existsSync(f));
    const texts = states.map((f) => fs.readFileSync(f, 'utf8'));
    // The scan must really read a state that held the writers (the backup, after the destroy).
    expect(texts.some((t) => t.includes('values_sha256'))).toBe(true);
    for (const state of texts) {
      expect(state.includes(search)).toBe(false);
      expect(state.includes(rotated)).toBe(false);
    }
  });
});

describe('file targets under real terraform: parallel writers and a file we must not touch', () => {
  const key = canaryKey('canary-env-parallel');
  let cluster: StandInQdrant;
  beforeAll(async () => {
    cluster = await StandInQdrant.start({ apiKey: key });
  });
  afterAll(() => cluster?.stop());

  /** Two ClusterAccess (two writers Terraform runs in parallel) on one .env, plus a JSON file. */
  function synth(out: string, envFile: string, jsonFile: string, prefix = (team: string) => `${team.toUpperCase()}_`): string {
    return synthStack(out, 'files', (app, id) => {
      const stack = new TerraformStack(app, id);
      for (const team of ['search', 'ingest']) {
        new ClusterAccess(stack, `Qdrant-${team}`, {
          clusters: [{ name: `${team}-eu`, url: cluster.url, grpcPort: Number(new URL(cluster.grpcUrl).port) }],
          apiKeys: [{
            name: `${team}-app`,
            clusters: [`${team}-eu`],
            secretTargets: [SecretTarget.dotenv({ path: envFile }), SecretTarget.json({ path: jsonFile })],
            secretNaming: { prefix: prefix(team) },
          }],
          healthCheck: { caFile: cluster.caFile },
          setupGuide: { enabled: false },
        });
      }
      return stack;
    });
  }

  const outs: string[] = [];
  afterAll(() => {
    for (const o of outs) fs.rmSync(o, { recursive: true, force: true });
  });

  /**
   * No key after a run: not in what terraform printed, the stack, the state, nor any file next to
   * the targets but the targets themselves (the JSON sidecar, a lock or temp file left behind).
   */
  function expectNoKeyAfter(run: TerraformRun, out: string, stackDir: string, targets: string[]): void {
    const beside = fs.readdirSync(out).map((n) => path.join(out, n)).filter((f) => !targets.includes(f) && fs.statSync(f).isFile());
    const stackFiles = ['cdk.tf.json', 'terraform.tfstate', 'terraform.tfstate.backup'].map((f) => path.join(stackDir, f));
    expectNoCanary([key], [run.stdout, run.stderr], [...stackFiles, ...beside]);
  }

  test('two writers on one .env and one JSON file lose no update; destroy restores both files', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-e2e-files-'));
    outs.push(out);
    const envFile = path.join(out, '.env');
    const jsonFile = path.join(out, 'secrets.json');
    fs.writeFileSync(envFile, FOREIGN, { mode: 0o600 });
    const json = '{\n  "feature_flags": {"beta": true},\n  "region": "eu"\n}\n';
    fs.writeFileSync(jsonFile, json, { mode: 0o600 });
    const dir = synth(out, envFile, jsonFile);
    const vars = { TF_VAR_qdrant_api_key_search_app: key, TF_VAR_qdrant_api_key_ingest_app: key };
    const run = await initAndApply(dir, vars);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    const parsed = dotenv.parse(fs.readFileSync(envFile, 'utf8'));
    for (const team of ['SEARCH', 'INGEST']) {
      expect(parsed[`${team}_QDRANT_URL`]).toBe(cluster.url);
      expect(parsed[`${team}_QDRANT_API_KEY`]).toBe(key);
    }
    expect(fs.readFileSync(envFile, 'utf8').startsWith(FOREIGN)).toBe(true);
    const obj = JSON.parse(fs.readFileSync(jsonFile, 'utf8'));
    expect(obj).toMatchObject({ feature_flags: { beta: true }, region: 'eu', SEARCH_QDRANT_API_KEY: key, INGEST_QDRANT_GRPC_URL: cluster.grpcUrl });
    // The scan below reads the JSON file's ownership record (names only) and the state.
    expect(fs.existsSync(path.join(out, '.secrets.json.qdrant-cluster-access'))).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'terraform.tfstate'), 'utf8')).toContain('values_sha256');
    expectNoKeyAfter(run, out, dir, [envFile, jsonFile]);

    // Renamed entries: the next deploy removes the old names and writes the new ones.
    synth(out, envFile, jsonFile, (team) => `${team.toUpperCase()}_V2_`);
    const renamed = await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color'], vars);
    expect(renamed.exitCode).toBe(0);
    expectNoKeyAfter(renamed, out, dir, [envFile, jsonFile]);
    const names = Object.keys(dotenv.parse(fs.readFileSync(envFile, 'utf8'))).filter((n) => n.includes('QDRANT'));
    expect(names.sort()).toEqual(['INGEST_V2_QDRANT_API_KEY', 'INGEST_V2_QDRANT_GRPC_URL', 'INGEST_V2_QDRANT_URL',
      'SEARCH_V2_QDRANT_API_KEY', 'SEARCH_V2_QDRANT_GRPC_URL', 'SEARCH_V2_QDRANT_URL']);
    expect(Object.keys(JSON.parse(fs.readFileSync(jsonFile, 'utf8'))).filter((n) => n.includes('QDRANT'))).toHaveLength(6);

    const destroy = await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], vars);
    expect(destroy.exitCode).toBe(0);
    expectNoKeyAfter(destroy, out, dir, [envFile, jsonFile]);
    expect(fs.readFileSync(envFile, 'utf8')).toBe(FOREIGN);
    expect(fs.readFileSync(jsonFile, 'utf8')).toBe(json);
  });

  test('an .env that is not valid is refused, naming the line, after the checks passed; it stays unchanged', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-e2e-bad-'));
    outs.push(out);
    const envFile = path.join(out, '.env');
    const bad = 'GOOD=1\nnot an assignment\n';
    fs.writeFileSync(envFile, bad, { mode: 0o600 });
    const jsonFile = path.join(out, 'secrets.json');
    const dir = synth(out, envFile, jsonFile);
    const before = cluster.requests.length;
    const vars = { TF_VAR_qdrant_api_key_search_app: key, TF_VAR_qdrant_api_key_ingest_app: key };
    const run = await initAndApply(dir, vars);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr.replace(/\s+/g, ' ')).toContain(`refusing to change ${envFile}: line 2:`);
    expect(fs.readFileSync(envFile, 'utf8')).toBe(bad);
    // The checks ran first (the writers wait for them), and passed.
    expect(cluster.requests.length).toBeGreaterThan(before);
    expect(run.stdout).toMatch(/ok +search-app → search-eu/);
    expectNoKeyAfter(run, out, dir, [envFile, jsonFile]);
    const destroy = await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], vars);
    expect(destroy.exitCode).toBe(0);
    expectNoKeyAfter(destroy, out, dir, [envFile, jsonFile]);
    expect(fs.readFileSync(envFile, 'utf8')).toBe(bad);
  });
});
