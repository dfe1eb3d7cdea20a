/**
 * OpenTofu: the deploy / rotate / destroy flow of examples/basic (as in test/e2e/deploy.test.ts
 * with Terraform) run with `tofu`, built from its Go module by scripts/offline-tofu.sh (cached;
 * about 6 min cold) and fed the same offline mirror of the real hashicorp/null through the same CLI config.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OK_LINE, expectNoCanary, scriptResult } from './support';
import { BasicStack } from '../../examples/basic/main';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { initAndApply, mirroredProviderVersions, synthStack, tempDir, terraform, terraformBinary } from '../../tools/testing/terraform';

jest.setTimeout(600_000);

describe('examples/basic deployed with OpenTofu', () => {
  const key = canaryKey('canary-tofu');
  const rotated = canaryKey('canary-tofu-rotated');
  const wrong = canaryKey('canary-tofu-wrong');
  const seen: string[] = [];
  let cluster: StandInQdrant;
  let dir: string;
  const tofu = (args: string[], k: string) => terraform(dir, [...args, '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_search_api: k }, 'tofu');

  beforeAll(async () => {
    terraformBinary('tofu'); // builds it on first use, before any test's clock starts
    cluster = await StandInQdrant.start({ apiKey: key, readOnlyApiKey: rotated });
    dir = synthStack(tempDir('qca-tofu-basic-'), 'basic', (app, id) => new BasicStack(app, id, {
      url: cluster.url, caFile: cluster.caFile, grpcPort: Number(new URL(cluster.grpcUrl).port),
    }));
  });
  afterAll(async () => {
    if (dir) await tofu(['destroy', '-auto-approve'], rotated);
    await cluster?.stop();
  });

  test('the binary is the OpenTofu that scripts/offline-tofu.sh builds, one with ephemeral variables (>= 1.11)', async () => {
    const version = await terraform(dir, ['version'], {}, 'tofu');
    const built = scriptResult('offline-tofu.sh', ['--version']);
    expect({ stderr: version.stderr, first: version.stdout.split('\n')[0] }).toEqual({ stderr: '', first: `OpenTofu v${built}` });
    const [major, minor] = built.split('.').map(Number);
    expect(major > 1 || (major === 1 && minor >= 11)).toBe(true);
  });

  test('init installs hashicorp/null from the mirror under OpenTofu\'s origin; apply shows the pass line', async () => {
    const run1 = await initAndApply(dir, { TF_VAR_qdrant_api_key_search_api: key }, 'tofu');
    seen.push(run1.stdout, run1.stderr);
    expect(run1.stderr).toBe('');
    expect(run1.exitCode).toBe(0);
    expect(run1.stdout).toMatch(OK_LINE('search-api → prod-eu'));
    // The newest release in the mirror that meets the stack's ~> 3.2.
    const newest = mirroredProviderVersions('null').filter((v) => v.startsWith('3.')).pop()!;
    expect(fs.readFileSync(path.join(dir, '.terraform.lock.hcl'), 'utf8'))
      .toMatch(new RegExp(`provider "registry\\.opentofu\\.org/hashicorp/null" \\{\\s+version\\s+= "${newest.replace(/\./g, '\\.')}"`));
    const paths = cluster.requests.map((r) => `${r.path} ${r.headers['api-key'] ? 'key' : 'none'}`);
    expect([...paths].sort()).toEqual(['/ none', '/collections key', '/collections none']);
  });

  test('an unchanged key does not re-run the check', async () => {
    const before = cluster.requests.length;
    const r = await tofu(['apply', '-auto-approve'], key);
    seen.push(r.stdout, r.stderr);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('No changes.');
    expect(cluster.requests.length).toBe(before);
  });

  test('a wrong key fails the apply, naming the key, the cluster, the step and the answer', async () => {
    const r = await tofu(['apply', '-auto-approve'], wrong);
    seen.push(r.stdout, r.stderr);
    expect(r.exitCode).not.toBe(0);
    const failure = r.stderr.replace(/\s+/g, ' ');
    expect(failure).toContain('search-api → prod-eu');
    expect(failure).toMatch(/step key: key rejected \(401 Invalid API key or JWT\)/);
  });

  test('rotating the key re-runs the check', async () => {
    const r = await tofu(['apply', '-auto-approve'], rotated);
    seen.push(r.stdout, r.stderr);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(OK_LINE('search-api → prod-eu'));
    expect(cluster.requests.filter((q) => q.headers['api-key']).pop()?.headers['api-key']).toBe(rotated);
    seen.push(fs.readFileSync(path.join(dir, 'terraform.tfstate'), 'utf8'));
  });

  test('destroy, and no key in any output, the stack or the state', async () => {
    const r = await tofu(['destroy', '-auto-approve'], rotated);
    seen.push(r.stdout, r.stderr);
    expect(r.exitCode).toBe(0);
    // The scan must really read a state that held the check (its triggers hold the key's hash).
    expect(seen.some((t) => t.includes('key_sha256'))).toBe(true);
    expectNoCanary([key, rotated, wrong], seen, ['cdk.tf.json', 'terraform.tfstate', 'terraform.tfstate.backup'].map((f) => path.join(dir, f)));
  });
});
