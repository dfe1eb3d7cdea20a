/**
 * End to end: synthesize the examples, then real `terraform init` + `apply` + `destroy` run the
 * health checks against stand-in Qdrant clusters (real HTTPS on 127.0.0.1).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TerraformLocal, TerraformStack, TerraformVariable } from 'cdktf';
import { BasicStack } from '../../examples/basic/main';
import { MultiClusterStack } from '../../examples/multi-cluster/main';
import { ApiKeySource, ClusterAccess } from '../../src';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { initAndApply, synthStack, terraform } from '../../tools/testing/terraform';

jest.setTimeout(180_000);

/** Temp dirs of this file, removed at its end. */
const outs: string[] = [];
afterAll(() => {
  for (const o of outs) fs.rmSync(o, { recursive: true, force: true });
});
function tempOut(prefix: string): string {
  const o = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  outs.push(o);
  return o;
}

const OK_LINE = (label: string) => new RegExp(`ok +${label} +qdrant 1\\.16\\.2 +key accepted, keys enforced, gRPC ok +\\d+ ms`);

/** Everything that must never hold a key: terraform's output, the stack JSON and the state. */
function expectNoCanary(canaries: string[], texts: string[], stackDir: string) {
  const files = ['cdk.tf.json', 'terraform.tfstate', 'terraform.tfstate.backup']
    .map((f) => path.join(stackDir, f))
    .filter((f) => fs.existsSync(f))
    .map((f) => fs.readFileSync(f, 'utf8'));
  for (const canary of canaries) {
    for (const text of [...texts, ...files]) expect(text.includes(canary)).toBe(false);
  }
}

describe('examples/basic deployed with real terraform', () => {
  const key = canaryKey('canary-basic');
  const rotated = canaryKey('canary-rotated');
  const wrong = canaryKey('canary-wrong');
  const seen: string[] = [];
  let cluster: StandInQdrant;
  let dir: string;

  beforeAll(async () => {
    // The second key is accepted too, so that a rotation can be shown with one server.
    cluster = await StandInQdrant.start({ apiKey: key, readOnlyApiKey: rotated });
    const out = tempOut('qca-e2e-basic-');
    dir = synthStack(out, 'basic', (app, id) => new BasicStack(app, id, { url: cluster.url, caFile: cluster.caFile, grpcPort: Number(new URL(cluster.grpcUrl).port) }));
  });
  afterAll(async () => {
    try {
      // Only when synth made the stack directory: never a destroy in the current directory.
      if (dir) {
        const destroy = await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_search_api: rotated });
        expect(destroy.exitCode).toBe(0);
        expectNoCanary([key, rotated, wrong], [destroy.stdout, destroy.stderr], dir);
      }
    } finally {
      await cluster?.stop();
    }
  });

  test('apply runs the check and shows its pass line', async () => {
    const run = await initAndApply(dir, { TF_VAR_qdrant_api_key_search_api: key });
    seen.push(run.stdout, run.stderr);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(OK_LINE('search-api → prod-eu'));
    // All three steps reached the server: the root without the key, /collections with and without it.
    const paths = cluster.requests.map((r) => `${r.path} ${r.headers['api-key'] ? 'key' : 'none'}`);
    expect([...paths].sort()).toEqual(['/ none', '/collections key', '/collections none']);
  });

  test('an unchanged key does not re-run the check', async () => {
    const before = cluster.requests.length;
    const run = await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_search_api: key });
    seen.push(run.stdout, run.stderr);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('No changes.');
    expect(cluster.requests.length).toBe(before);
  });

  test('a wrong key fails the apply, naming the key, the cluster, the step and the answer', async () => {
    const run = await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_search_api: wrong });
    seen.push(run.stdout, run.stderr);
    expect(run.exitCode).not.toBe(0);
    const failure = run.stderr.replace(/\s+/g, ' ');
    expect(failure).toContain('search-api → prod-eu');
    expect(failure).toMatch(/step key: key rejected \(401 Invalid API key or JWT\)/);
    // The fix names the stack's setup guide (just its file name: this app's outdir is a temp dir).
    expect(failure).toContain('check the key\'s clusters in the console (qdrant-setup.md, section 2)');
  });

  test('rotating the key re-runs the check', async () => {
    const run = await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_search_api: rotated });
    seen.push(run.stdout, run.stderr);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(OK_LINE('search-api → prod-eu'));
    const last = cluster.requests.filter((r) => r.headers['api-key']).pop();
    expect(last?.headers['api-key']).toBe(rotated);
  });

  test('no key, in any form, in the output, the stack or the state', () => {
    expect(seen.length).toBeGreaterThanOrEqual(8);
    // The scan must really read the state (it holds the key's hash in the triggers).
    expect(fs.readFileSync(path.join(dir, 'terraform.tfstate'), 'utf8')).toContain('key_sha256');
    expectNoCanary([key, rotated, wrong], seen, dir);
  });
});

describe('examples/multi-cluster deployed with real terraform', () => {
  const search = canaryKey('canary-search');
  const ingest = canaryKey('canary-ingest');
  const clusters: Record<string, StandInQdrant> = {};

  afterAll(async () => {
    await Promise.all(Object.values(clusters).map((c) => c.stop()));
  });

  test('every key is proven on every granted cluster, in one apply', async () => {
    // prod-eu knows both keys; the other clusters know only search-api.
    clusters['prod-eu'] = await StandInQdrant.start({ apiKey: search, readOnlyApiKey: ingest });
    clusters['prod-us'] = await StandInQdrant.start({ apiKey: search });
    clusters.staging = await StandInQdrant.start({ apiKey: search });
    const urls = Object.fromEntries(Object.entries(clusters).map(([name, c]) => [name, c.url]));
    const grpcPorts = Object.fromEntries(Object.entries(clusters).map(([name, c]) => [name, Number(new URL(c.grpcUrl).port)]));
    const out = tempOut('qca-e2e-multi-');
    const envFile = path.join(out, '.env');
    const dir = synthStack(out, 'multi', (app, id) => new MultiClusterStack(app, id, { urls, grpcPorts, caFile: clusters.staging.caFile, envFile }));
    const env = { TF_VAR_qdrant_api_key_search_api: search, TF_VAR_ingest_key: ingest };

    const run = await initAndApply(dir, env);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    for (const label of ['search-api → prod-eu', 'search-api → prod-us', 'search-api → staging', 'ingest → prod-eu']) {
      expect(run.stdout).toMatch(OK_LINE(label));
    }
    const outputs = await terraform(dir, ['output', '-json'], env);
    expect(JSON.parse(outputs.stdout).qdrant_prod_us_rest_endpoint.value).toBe(`${urls['prod-us']}`);

    const destroy = await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], env);
    expect(destroy.exitCode).toBe(0);
    expectNoCanary([search], [run.stdout, run.stderr, outputs.stdout, destroy.stdout, destroy.stderr], dir);
    // ingest is also a secret target of kind terraformOutputs: its value is, by design, in the
    // state and in `output -json`. Nowhere else.
    for (const [what, text] of Object.entries({ applyOut: run.stdout, applyErr: run.stderr, destroyOut: destroy.stdout, destroyErr: destroy.stderr, json: fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8') })) {
      expect({ what, leaked: text.includes(ingest) }).toEqual({ what, leaked: false });
    }
  });
});

describe('a key from another resource (fromToken)', () => {
  test('the failure reason is visible even though Terraform hides the success output', async () => {
    const good = canaryKey('canary-token');
    const wrong = canaryKey('canary-token-wrong');
    const cluster = await StandInQdrant.start({ apiKey: good });
    try {
      const out = tempOut('qca-e2e-token-');
      const dir = synthStack(out, 'token', (app, id) => {
        const stack = new TerraformStack(app, id);
        // Stands in for a secret manager's data source: any expression that is not a variable.
        const secret = new TerraformVariable(stack, 'vault_secret', { type: 'string', sensitive: true });
        const fromVault = new TerraformLocal(stack, 'from_vault', secret.stringValue);
        new ClusterAccess(stack, 'Qdrant', {
          clusters: [{ name: 'prod-eu', url: cluster.url, grpcPort: Number(new URL(cluster.grpcUrl).port) }],
          apiKeys: [{ name: 'ingest', clusters: ['prod-eu'], source: ApiKeySource.fromToken(fromVault.asString) }],
          healthCheck: { caFile: cluster.caFile },
        });
        return stack;
      });

      const ok = await initAndApply(dir, { TF_VAR_vault_secret: good });
      expect(ok.exitCode).toBe(0);
      expect(ok.stdout).toContain('(output suppressed due to sensitive value in config)');

      const bad = await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color'], { TF_VAR_vault_secret: wrong });
      expect(bad.exitCode).not.toBe(0);
      expect(bad.stderr.replace(/\s+/g, ' ')).toMatch(/ingest → prod-eu .*step key: key rejected \(401 Invalid API key or JWT\)/);
      const destroy = await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], { TF_VAR_vault_secret: good });
      expect(destroy.exitCode).toBe(0);
      expectNoCanary([good, wrong], [ok.stdout, ok.stderr, bad.stdout, bad.stderr, destroy.stdout, destroy.stderr], dir);
    } finally {
      await cluster.stop();
    }
  });
});
