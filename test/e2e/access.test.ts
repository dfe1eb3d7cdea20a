/**
 * End to end for declared access (issue #12): examples/access deployed with real Terraform against
 * each real Qdrant version (TLS, jwt_rbac on). Two apps share one cluster and one .env: `ingest` with a
 * JWT limited to read-write on `orders`, `search` with one limited to read on `products`. The deploy
 * proves each key's access over REST and gRPC before the .env is written; the official js client
 * then does with each key exactly what its access allows. A manage key in place of the search key
 * fails the deploy (more access than declared) and leaves the .env as it was. No key, in any run's
 * output, in the stack or in the state.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as dotenv from 'dotenv';
import { AccessStack } from '../../examples/access/main';
import { collectionJwt, manageJwt } from '../../tools/testing/jwt';
import { describeRealQdrant, RealQdrant } from '../../tools/testing/real-qdrant';
import { runNode } from '../../tools/testing/run-node';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, initAndApply, synthStack, tempDir, terraform } from '../../tools/testing/terraform';

// Bounds, not expectations: terraform init and apply, and a real server.
jest.setTimeout(240_000);

const MANAGE_KEY = canaryKey('canary-manage');
const DAY = 24 * 60 * 60;
const INGEST = collectionJwt(MANAGE_KEY, [{ collection: 'orders', access: 'rw' }], 90 * DAY);
const SEARCH = collectionJwt(MANAGE_KEY, [{ collection: 'products', access: 'r' }], 90 * DAY);
const SEARCH_AS_MANAGE = manageJwt(MANAGE_KEY, 90 * DAY);
const KEYS = [MANAGE_KEY, INGEST, SEARCH, SEARCH_AS_MANAGE];

/**
 * What the apps do: parse the .env with `dotenv`, connect with the official client, and try one
 * upsert with each key (and a read with the search key). Runs in a child process that trusts the
 * test CA through NODE_EXTRA_CA_CERTS (the client takes no CA option).
 */
const APPS = `
  const fs = require('node:fs');
  const dotenv = require('dotenv');
  const { QdrantClient } = require('@qdrant/js-client-rest');
  const env = dotenv.parse(fs.readFileSync(process.argv[1]));
  const client = (app) => new QdrantClient({ url: env[app + '_QDRANT_URL'], apiKey: env[app + '_QDRANT_API_KEY'] });
  const outcome = async (run) => {
    try {
      return { ok: true, result: await run() };
    } catch (e) {
      return { ok: false, status: e.status, error: String(e.data && e.data.status && e.data.status.error || e.message) };
    }
  };
  const point = (id) => ({ wait: true, points: [{ id, vector: [0.1, 0.2, 0.3, 0.4], payload: { from: 'e2e' } }] });
  (async () => {
    const out = {};
    out['ingest upserts into orders'] = await outcome(async () => (await client('INGEST').upsert('orders', point(100))).status);
    out['search upserts into products'] = await outcome(async () => (await client('SEARCH').upsert('products', point(100))).status);
    out['search counts products'] = await outcome(async () => (await client('SEARCH').count('products', { exact: true })).count);
    out['ingest upserts into products'] = await outcome(async () => (await client('INGEST').upsert('products', point(101))).status);
    console.log(JSON.stringify(out));
  })().catch((e) => { console.error('apps failed: ' + e.message); process.exit(1); });`;

function runApps(envFile: string, caFile: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runNode(['-e', APPS, envFile], {
    cwd: path.join(__dirname, '..', '..'),
    env: { PATH: process.env.PATH ?? '', NODE_EXTRA_CA_CERTS: caFile },
  });
}

const oneLine = (run: TerraformRun) => `${run.stdout}\n${run.stderr}`.replace(/\s+/g, ' ');

describeRealQdrant('examples/access deployed with real terraform against real Qdrant (TLS, jwt_rbac)', () => {
  const runs: TerraformRun[] = [];
  let q: RealQdrant;
  let out: string;
  let dir: string;
  let envFile: string;

  beforeAll(async () => {
    q = await RealQdrant.start({ apiKey: MANAGE_KEY, jwtRbac: true, collections: ['orders', 'products'] });
    // Removed with everything in it when this file ends (the harness's tempDir).
    out = tempDir('qca-e2e-access-');
    envFile = path.join(out, 'app', '.env');
    fs.mkdirSync(path.dirname(envFile));
    fs.writeFileSync(envFile, '# the apps\' own settings\nLOG_LEVEL=info\n', { mode: 0o600 });
    dir = synthStack(out, 'access', (app, id) => new AccessStack(app, id, { url: q.restUrl, grpcPort: q.grpcPort, caFile: q.caFile, envFile }));
  });
  afterAll(() => q?.stop());

  test('deploy: both keys proven with their declared access, REST and gRPC, then written to the .env', async () => {
    const run = await initAndApply(dir, { TF_VAR_qdrant_api_key_ingest: INGEST, TF_VAR_qdrant_api_key_search: SEARCH });
    runs.push(run);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    for (const label of ['ingest → prod', 'search → prod']) {
      expect(run.stdout).toMatch(new RegExp(
        `ok +${label} +qdrant ${q.version.replace(/\./g, '\\.')} +key accepted, keys enforced, access to 1 collection as declared, gRPC ok +expires \\d{4}-\\d\\d-\\d\\d \\(in (89|90) days\\) +\\d+ ms`));
    }
    expect(dotenv.parse(fs.readFileSync(envFile, 'utf8'))).toEqual({
      LOG_LEVEL: 'info',
      INGEST_QDRANT_URL: q.restUrl,
      INGEST_QDRANT_GRPC_URL: q.grpcUrl,
      INGEST_QDRANT_API_KEY: INGEST,
      SEARCH_QDRANT_URL: q.restUrl,
      SEARCH_QDRANT_GRPC_URL: q.grpcUrl,
      SEARCH_QDRANT_API_KEY: SEARCH,
    });
    // The probes changed nothing.
    expect(await q.snapshotState()).toEqual({ collections: ['orders', 'products'], aliases: [], points: { orders: 3, products: 3 } });
  });

  test('the official js client, reading the .env, may do exactly what each key was declared for', async () => {
    const r = await runApps(envFile, q.caFile!);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      'ingest upserts into orders': { ok: true, result: 'completed' },
      'search upserts into products': { ok: false, status: 403, error: 'Forbidden: Write access to collection products is required' },
      'search counts products': { ok: true, result: 3 },
      'ingest upserts into products': { ok: false, status: 403, error: 'Forbidden: Access to collection products is required' },
    });
    expect((await q.snapshotState()).points).toEqual({ orders: 4, products: 3 });
  });

  test('a manage key in place of the search key: the deploy fails with excess access, naming the grant; the .env is unchanged', async () => {
    const before = fs.readFileSync(envFile);
    const run = await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color'],
      { TF_VAR_qdrant_api_key_ingest: INGEST, TF_VAR_qdrant_api_key_search: SEARCH_AS_MANAGE });
    runs.push(run);
    expect(run.exitCode).not.toBe(0);
    // The excess-manage failure (its catalog phrase), on the search grant, in step access.
    expect(oneLine(run)).toMatch(/FAIL search → prod step access: key has manage access but is declared for some collections \(200 ok to the empty alias batch\); create a key with only that access/);
    // The ingest key did not change: its check did not run again.
    expect(run.stdout).not.toMatch(/ingest → prod/);
    expect(fs.readFileSync(envFile).equals(before)).toBe(true);
    expect(dotenv.parse(before).SEARCH_QDRANT_API_KEY).toBe(SEARCH);
  });

  test('no key, in any form, in terraform\'s output, the stack or the state', () => {
    expect(runs.length).toBe(2);
    const files = ['cdk.tf.json', 'terraform.tfstate', 'terraform.tfstate.backup']
      .map((f) => path.join(dir, f)).filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f, 'utf8'));
    // The scan must really read the state: it holds the checks' key hashes and the written names.
    expect(files.some((t) => t.includes('key_sha256') && t.includes('SEARCH_QDRANT_API_KEY'))).toBe(true);
    const texts = [...runs.flatMap((r) => [r.stdout, r.stderr]), ...files];
    // Whole tokens, and each token's signature segment (the part no other token shares).
    const needles = [...KEYS, ...[INGEST, SEARCH, SEARCH_AS_MANAGE].map((t) => t.split('.')[2])];
    const found = needles.filter((n) => texts.some((t) => t.includes(n)));
    expect(found.length).toBe(0);
  });
});
