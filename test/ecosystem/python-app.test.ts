/**
 * examples/python, as a Python user runs it: a venv with the built wheel (dist/python) and
 * cdktf, constructs, qdrant-client and python-dotenv from PyPI (scripts/python-venv.sh, cached);
 * the app synthesized by Python against a stand-in cluster, deployed with real Terraform (offline
 * provider mirror), the .env read by python-dotenv and used by the official `qdrant-client`, then
 * destroyed: the .env is back to its original bytes and the Python target's JSON file is gone.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OK_LINE, REPO, expectNoCanary, expectOk, packages, run, scriptResult } from './support';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, initAndApply, tempDir, terraform } from '../../tools/testing/terraform';
import { pythonPrograms } from '../support/docs';

jest.setTimeout(600_000);

// The app's own .env, with lines that must stay byte for byte.
const FOREIGN = '# search app\nexport DATABASE_URL="postgres://app@db:5432/app"\n\nGREETING=\'hello world\'\n';

describe('examples/python: a cdktf app in Python, with a secret target written in Python', () => {
  const key = canaryKey('canary-python');
  const rotated = canaryKey('canary-python-rotated');
  const texts: string[] = [];
  let cluster: StandInQdrant;
  let venv: string;
  let appDir: string;
  let stackDir: string;
  let envFile: string;
  let jsonFile: string;
  let deployed = false;

  const python = (script: string, args: string[], env: Record<string, string> = {}) => run(
    path.join(venv, 'bin', 'python'), [script, ...args], {
      cwd: appDir,
      env: { ...env, JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION: '1', PYTHONDONTWRITEBYTECODE: '1' },
    });
  const tf = (args: string[], k: string) => terraform(stackDir, [...args, '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_search_api: k });

  beforeAll(async () => {
    const { wheel } = packages();
    venv = scriptResult('python-venv.sh', [wheel]);
    cluster = await StandInQdrant.start({ apiKey: key, readOnlyApiKey: rotated });
    // A user's project: the example's files in a directory of its own, outside the repository.
    appDir = tempDir('qca-python-app-');
    for (const f of ['main.py', 'app.py', 'cdktf.json', 'requirements.txt']) {
      fs.copyFileSync(path.join(REPO, 'examples', 'python', f), path.join(appDir, f));
    }
    envFile = path.join(appDir, '.env');
    jsonFile = path.join(appDir, 'qdrant.json');
    fs.writeFileSync(envFile, FOREIGN, { mode: 0o600 });
    stackDir = path.join(appDir, 'cdktf.out', 'stacks', 'python-app');
  });
  afterAll(async () => {
    if (deployed) await tf(['destroy', '-auto-approve'], rotated);
    await cluster?.stop();
  });

  test('python main.py synthesizes the stack (cdktf from PyPI, the library from the wheel)', async () => {
    const synth = expectOk(await python('main.py', [], {
      QDRANT_URL: cluster.url,
      QDRANT_GRPC_PORT: new URL(cluster.grpcUrl).port,
      QDRANT_CA_FILE: cluster.caFile,
      CDKTF_OUTDIR: path.join(appDir, 'cdktf.out'),
    }), 'python main.py');
    texts.push(synth.stdout, synth.stderr);
    const stack = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8'));
    const resources = stack.resource.null_resource as Record<string, { 'depends_on'?: string[]; '//': { metadata: { path: string } } }>;
    const [jsonStore] = Object.values(resources).filter((r) => r['//'].metadata.path.endsWith('/JsonFile'));
    const [check] = Object.entries(resources).filter(([, r]) => r['//'].metadata.path.endsWith('/HealthCheck/Resource'));
    // The Python target's store waits for the key's check (options.depends_on).
    expect(jsonStore.depends_on).toContain(`null_resource.${check[0]}`);
  });

  test('terraform apply runs the check, then writes the .env and the JSON file', async () => {
    const apply: TerraformRun = await initAndApply(stackDir, { TF_VAR_qdrant_api_key_search_api: key });
    texts.push(apply.stdout, apply.stderr);
    deployed = true;
    expect(apply.exitCode).toBe(0);
    expect(apply.stdout).toMatch(OK_LINE('search-api → prod-eu'));
    console.log(`python app: terraform init + apply in ${apply.ms} ms`);
    const written = fs.readFileSync(envFile, 'utf8');
    expect(written.startsWith(FOREIGN)).toBe(true);
    expect(JSON.parse(fs.readFileSync(jsonFile, 'utf8'))).toEqual({
      QDRANT_URL: cluster.url.replace(/\/$/, ''),
      QDRANT_GRPC_URL: cluster.grpcUrl.replace(/\/$/, ''),
      QDRANT_API_KEY: key,
    });
    expect(fs.statSync(jsonFile).mode.toString(8).slice(-3)).toBe('600');
  });

  test('the official qdrant-client reads the .env (python-dotenv) and lists the collections', async () => {
    const app = expectOk(await python('app.py', [envFile], { QDRANT_CA_FILE: cluster.caFile }), 'python app.py');
    texts.push(app.stdout, app.stderr);
    expect(app.stdout.trim()).toBe('collections: products, support-tickets');
    const listed = cluster.requests.filter((r) => r.path === '/collections' && r.headers['user-agent']?.includes('python'));
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((r) => r.headers['api-key'] === key)).toBe(true);
  });

  test('the Python program of docs/python.md synthesizes its stack with the wheel', async () => {
    const programs = pythonPrograms();
    expect(programs.map((b) => b.page)).toEqual(['docs/python.md']);
    const dir = tempDir('qca-python-doc-');
    fs.writeFileSync(path.join(dir, 'main.py'), programs[0].text);
    const synth = expectOk(await run(path.join(venv, 'bin', 'python'), ['main.py'], {
      cwd: dir,
      env: { CDKTF_OUTDIR: path.join(dir, 'cdktf.out'), JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION: '1', PYTHONDONTWRITEBYTECODE: '1' },
    }), 'python main.py (docs/python.md)');
    texts.push(synth.stdout, synth.stderr);
    const stack = JSON.parse(fs.readFileSync(path.join(dir, 'cdktf.out', 'stacks', 'search', 'cdk.tf.json'), 'utf8'));
    expect(Object.keys(stack.variable)).toEqual(['qdrant_api_key_search_api']);
    expect(Object.keys(stack.resource.null_resource).filter((id) => id.includes('_HealthCheck_'))).toHaveLength(1);
    expect(fs.existsSync(path.join(dir, 'cdktf.out', 'stacks', 'search', 'qdrant-setup.md'))).toBe(true);
  });

  test('a rotated key is proven again and rewritten in both stores', async () => {
    const apply = await tf(['apply', '-auto-approve'], rotated);
    texts.push(apply.stdout, apply.stderr);
    expect(apply.exitCode).toBe(0);
    expect(apply.stdout).toMatch(OK_LINE('search-api → prod-eu'));
    expect(JSON.parse(fs.readFileSync(jsonFile, 'utf8')).QDRANT_API_KEY).toBe(rotated);
    // The state holds the store's hash of the values, never the values (scanned below).
    const state = fs.readFileSync(path.join(appDir, 'terraform.python-app.tfstate'), 'utf8');
    expect(state).toContain('values_sha256');
    texts.push(state);
    const app = expectOk(await python('app.py', [envFile], { QDRANT_CA_FILE: cluster.caFile }), 'python app.py');
    expect(app.stdout.trim()).toBe('collections: products, support-tickets');
  });

  test('terraform destroy: the .env is back to its original bytes, the JSON file is gone', async () => {
    const destroy = await tf(['destroy', '-auto-approve'], rotated);
    texts.push(destroy.stdout, destroy.stderr);
    expect(destroy.exitCode).toBe(0);
    deployed = false;
    expect(fs.readFileSync(envFile, 'utf8')).toBe(FOREIGN);
    expect(fs.existsSync(jsonFile)).toBe(false);
  });

  test('no key in any output, the synthesized stack or the state', () => {
    const state = path.join(appDir, 'terraform.python-app.tfstate');
    expectNoCanary([key, rotated], texts, [path.join(stackDir, 'cdk.tf.json'), state, `${state}.backup`]);
  });
});
