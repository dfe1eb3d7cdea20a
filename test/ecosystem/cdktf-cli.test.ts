/**
 * The library as a TypeScript user gets it: the npm tarball that `npx projen package` builds,
 * installed by README.md's install lines (cdktf, constructs, cdktf-cli 0.21, ts-node, TypeScript,
 * and the app's cdktf.json and tsconfig.json) in an app outside the repository, then
 * `cdktf synth`, `cdktf deploy --auto-approve` and `cdktf destroy --auto-approve` with real
 * Terraform (offline provider mirror) against a stand-in cluster, with the key in
 * TF_VAR_qdrant_api_key_search_api as the README exports it.
 *
 * Offline provider locking: the first `cdktf deploy` of a stack runs `terraform providers lock`,
 * which always asks the provider's origin registry and ignores the CLI config's mirror, so it
 * fails without one. `--skip-provider-lock` (or CDKTF_SKIP_PROVIDER_LOCK=true) is cdktf's own
 * switch for that; `terraform init` still writes the lock file, from the mirror.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OK_LINE, Run, expectNoCanary, packages, readmeApp, run } from './support';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { offlineTerraformEnv, tempDir, terraformBinary } from '../../tools/testing/terraform';

jest.setTimeout(900_000);

const MAIN_TS = `import { App, TerraformStack } from 'cdktf';
import { ClusterAccess, SecretTarget } from 'cdktf-qdrant-cluster-access';

const app = new App();
const stack = new TerraformStack(app, 'search');
new ClusterAccess(stack, 'Qdrant', {
  clusters: [{ name: 'prod-eu', url: process.env.QDRANT_URL!, grpcPort: Number(process.env.QDRANT_GRPC_PORT) }],
  apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }],
  healthCheck: { caFile: process.env.QDRANT_CA_FILE },
});
app.synth();
`;

const FOREIGN = '# search app\nLOG_LEVEL=info\n';

/** Every file under `dir` but node_modules (and the .env, which holds the key by design). */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.name === 'node_modules' || e.name === '.env') return [];
    if (e.isDirectory()) return filesUnder(p);
    return e.isFile() && fs.statSync(p).size < 5_000_000 ? [p] : [];
  });
}

describe('the npm tarball in a cdktf CLI app', () => {
  const key = canaryKey('canary-cli');
  const texts: string[] = [];
  let cluster: StandInQdrant;
  let appDir: string;
  let cdktf: (args: string[]) => Promise<Run>;
  let deployed = false;

  beforeAll(async () => {
    const { tarball } = packages();
    const installed = readmeApp(tarball);
    console.log(`cdktf CLI app: README.md's install lines ${installed.installMs ? `ran in ${installed.installMs} ms` : 'ran before (cached)'}`);
    cluster = await StandInQdrant.start({ apiKey: key });
    appDir = tempDir('qca-cdktf-cli-app-');
    fs.symlinkSync(path.join(installed.dir, 'node_modules'), path.join(appDir, 'node_modules'), 'dir');
    for (const f of ['package.json', 'cdktf.json', 'tsconfig.json']) fs.copyFileSync(path.join(installed.dir, f), path.join(appDir, f));
    fs.writeFileSync(path.join(appDir, 'main.ts'), MAIN_TS);
    fs.writeFileSync(path.join(appDir, '.env'), FOREIGN, { mode: 0o600 });
    const bin = path.join(appDir, 'node_modules', '.bin', 'cdktf');
    cdktf = (args) => run(bin, [...args, '--no-color'], {
      cwd: appDir,
      env: {
        ...offlineTerraformEnv(),
        // terraform, or the OpenTofu that the offline setup builds when terraform is missing.
        TERRAFORM_BINARY_NAME: terraformBinary(),
        QDRANT_URL: cluster.url,
        QDRANT_GRPC_PORT: new URL(cluster.grpcUrl).port,
        QDRANT_CA_FILE: cluster.caFile,
        TF_VAR_qdrant_api_key_search_api: key,
        // A missing variable fails at once instead of waiting at terraform's prompt (cdktf runs
        // terraform in a pseudo-terminal, so no stdin does not stop it).
        TF_INPUT: '0',
        // Keep cdktf's state and terraform's plugin cache out of the home directory.
        CDKTF_HOME: path.join(appDir, '.cdktf-home'),
        CDKTF_DISABLE_PLUGIN_CACHE_ENV: 'true',
        CHECKPOINT_DISABLE: '1',
        JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION: '1',
      },
      timeoutMs: 300_000,
    });
  });
  afterAll(async () => {
    if (deployed) await cdktf(['destroy', '--auto-approve', '--skip-provider-lock']);
    await cluster?.stop();
  });

  test('cdktf synth', async () => {
    const synth = await cdktf(['synth']);
    texts.push(synth.stdout, synth.stderr);
    expect(synth.code).toBe(0);
    expect(synth.stdout).toContain('Generated Terraform code for the stacks: search');
    expect(fs.existsSync(path.join(appDir, 'cdktf.out', 'stacks', 'search', 'cdk.tf.json'))).toBe(true);
  });

  test('cdktf deploy --auto-approve --skip-provider-lock: the check passes, then the .env is written', async () => {
    const deploy = await cdktf(['deploy', '--auto-approve', '--skip-provider-lock']);
    texts.push(deploy.stdout, deploy.stderr);
    deployed = true; // even a failed deploy may have created something: afterAll destroys
    if (deploy.code !== 0) throw new Error(`cdktf deploy failed:\n${deploy.stdout}\n${deploy.stderr}`);
    console.log(`cdktf deploy (synth, init, apply) in ${deploy.ms} ms`);
    expect(deploy.stdout).toMatch(OK_LINE('search-api → prod-eu'));
    const env = fs.readFileSync(path.join(appDir, '.env'), 'utf8');
    expect(env.startsWith(FOREIGN)).toBe(true);
    expect(env).toContain(`QDRANT_API_KEY='${key}'`);
    expect(cluster.requests.some((r) => r.path === '/collections' && r.headers['api-key'] === key)).toBe(true);
    texts.push(...fs.readdirSync(appDir).filter((f) => f.endsWith('.tfstate')).map((f) => fs.readFileSync(path.join(appDir, f), 'utf8')));
  });

  test('cdktf destroy --auto-approve: the .env is back to what it was', async () => {
    const destroy = await cdktf(['destroy', '--auto-approve', '--skip-provider-lock']);
    texts.push(destroy.stdout, destroy.stderr);
    expect(destroy.code).toBe(0);
    deployed = false;
    expect(fs.readFileSync(path.join(appDir, '.env'), 'utf8')).toBe(FOREIGN);
  });

  test('no key in the CLI output, the synthesized stack, the state or any other file of the app', () => {
    expect(texts.some((t) => t.includes('key_sha256'))).toBe(true); // the state was scanned
    expectNoCanary([key], texts, filesUnder(appDir));
  });
});
