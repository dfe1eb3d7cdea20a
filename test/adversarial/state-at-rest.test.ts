/**
 * Class 6 of issue #29: a key at rest where the user does not look. With
 * `SecretTarget.terraformOutputs()` and the default local backend, the key sits in
 * `terraform.<stack>.tfstate` and its `.backup`, both created with the umask's mode (0644), and the
 * backup still holds it after a destroy; nothing said so. Now synth warns, once per stack, naming
 * the state files where they are, saying that the backup outlives a destroy and that the files'
 * modes follow the umask; also for CheckEngine.TERRAFORM, whose data sources keep the keys in the
 * state; not with a remote backend, nor without outputs. The real-Terraform
 * test measures what the warning says.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, LocalBackend, S3Backend, TerraformStack, Testing } from 'cdktf';
import { CheckEngine, ClusterAccess, SecretTarget } from '../../src';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, initAndApply, tempDir, terraform } from '../../tools/testing/terraform';

jest.setTimeout(180_000);

const URL = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';

/** One ClusterAccess whose key goes to `targets`; no checks (no cluster here). */
function access(stack: TerraformStack, id: string, targets: () => ReturnType<typeof SecretTarget.terraformOutputs>[]): ClusterAccess {
  return new ClusterAccess(stack, id, {
    clusters: [{ name: `${id.toLowerCase()}-eu`, url: URL }],
    apiKeys: [{
      name: `${id.toLowerCase()}-app`,
      clusters: [`${id.toLowerCase()}-eu`],
      secretTargets: targets(),
      secretNaming: id === 'Qdrant' ? undefined : { prefix: `${id.toUpperCase()}_` },
    }],
    healthCheck: { enabled: false },
    setupGuide: { enabled: false },
  });
}

/** The library's warnings about the state, by construct path. */
function stateWarnings(stack: TerraformStack): [string, string][] {
  return stack.node.findAll().flatMap((c) => c.node.metadata.filter((m) => m.type === '@cdktf/warn' && String(m.data).includes('tfstate'))
    .map((m) => [c.node.path, String(m.data)] as [string, string]));
}

const OUTPUTS = 'SecretTarget.terraformOutputs() puts API keys into this stack\'s outputs';

/** The warning for a state file (and the other workspaces' directory); `why`: what puts the keys there. */
const warning = (state: string, workspaces: string, why = OUTPUTS) =>
  `${why}, which its local backend keeps in clear in ${state} and its backup ` +
  `${state}.backup (in a workspace other than "default": ${workspaces}/<workspace>/terraform.tfstate and its .backup); ` +
  'both files get the mode your umask gives when Terraform creates them (0644 under umask 022: any local user can read them), ' +
  'and the backup outlives a destroy: after cdktf destroy it still holds the last key; keep the state in a remote backend with ' +
  'encryption and access control, or restrict the files (chmod 600, which Terraform keeps) and delete the backup after a destroy, ' +
  'or write the keys to a .env or JSON file instead (SecretTarget.dotenv(), SecretTarget.json(): mode 0600)';

describe('synth warns once per stack when keys go into outputs kept by a local backend', () => {
  test('the default backend (none configured): the state cdktf puts in the working directory, as cdktf synth reports it', () => {
    const outdir = tempDir('qca-state-');
    const app = new App({ outdir });
    const stack = new TerraformStack(app, 'search');
    access(stack, 'Qdrant', () => [SecretTarget.terraformOutputs()]);
    app.synth();
    const expected = warning(path.join(process.cwd(), 'terraform.search.tfstate'), path.join(outdir, 'stacks', 'search', 'terraform.tfstate.d'));
    expect(stateWarnings(stack)).toEqual([['search/Qdrant/SecretTargets/Terraform-outputs', expected]]);
    // What the CLI prints after synth.
    const manifest = JSON.parse(fs.readFileSync(path.join(outdir, 'manifest.json'), 'utf8'));
    expect(manifest.stacks.search.annotations.filter((a: { message: string }) => a.message.includes('tfstate')))
      .toEqual([expect.objectContaining({ level: '@cdktf/warn', constructPath: 'search/Qdrant/SecretTargets/Terraform-outputs', message: expected })]);
  });

  test('an explicit LocalBackend: its path, from the stack\'s directory when relative; once for two accesses with outputs', () => {
    const outdir = tempDir('qca-state-');
    const app = new App({ outdir });
    const stack = new TerraformStack(app, 'search');
    new LocalBackend(stack, { path: 'state/search.tfstate', workspaceDir: 'ws' });
    access(stack, 'Qdrant', () => [SecretTarget.terraformOutputs()]);
    access(stack, 'Other', () => [SecretTarget.terraformOutputs(), SecretTarget.dotenv({ path: path.join(outdir, '.env') })]);
    app.synth();
    const stackDir = path.join(outdir, 'stacks', 'search');
    expect(stateWarnings(stack)).toEqual([['search/Qdrant/SecretTargets/Terraform-outputs', warning(path.join(stackDir, 'state', 'search.tfstate'), path.join(stackDir, 'ws'))]]);
  });

  test('CheckEngine.TERRAFORM: its checks\' headers put the keys into the state, so it warns too (once, also with outputs)', () => {
    const outdir = tempDir('qca-state-');
    const app = new App({ outdir });
    const stack = new TerraformStack(app, 'search');
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'eu', url: URL }],
      apiKeys: [{ name: 'app', clusters: ['eu'], secretTargets: [SecretTarget.terraformOutputs()] }],
      healthCheck: { engine: CheckEngine.TERRAFORM, grpc: false },
      setupGuide: { enabled: false },
    });
    app.synth();
    const why = 'CheckEngine.TERRAFORM puts API keys into this stack\'s state (the request headers of its data "http" checks)';
    expect(stateWarnings(stack)).toEqual([['search/Qdrant/TerraformChecks',
      warning(path.join(process.cwd(), 'terraform.search.tfstate'), path.join(outdir, 'stacks', 'search', 'terraform.tfstate.d'), why)]]);
  });

  test('no warning with a remote backend, nor without outputs', () => {
    const remote = new TerraformStack(Testing.app(), 'remote');
    new S3Backend(remote, { bucket: 'state', key: 'search.tfstate', region: 'eu-central-1', encrypt: true });
    access(remote, 'Qdrant', () => [SecretTarget.terraformOutputs()]);
    Testing.synth(remote, true);
    expect(stateWarnings(remote)).toEqual([]);

    const files = new TerraformStack(Testing.app(), 'files');
    access(files, 'Qdrant', () => [SecretTarget.dotenv({ path: path.join(tempDir('qca-state-'), '.env') })]);
    Testing.synth(files, true);
    expect(stateWarnings(files)).toEqual([]);
  });
});

describe('what the warning says, measured with real Terraform and the default local backend', () => {
  const FIRST = canaryKey('canary-state-first');
  const SECOND = canaryKey('canary-state-second');
  const runs: TerraformRun[] = [];
  let umask: number;
  beforeAll(() => {
    umask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(umask);
    for (const run of runs) for (const k of [FIRST, SECOND]) expect(run.stdout.includes(k) || run.stderr.includes(k)).toBe(false);
  });

  test('state and backup are created 0644 under umask 022 and hold the key; the backup keeps the last key after destroy; a mode set later stays', async () => {
    // As a new user's project: synth in the project directory, the state where cdktf puts it.
    const project = fs.realpathSync(tempDir('qca-state-project-'));
    const cwd = process.cwd();
    process.chdir(project);
    let stack: TerraformStack;
    try {
      const app = new App({ outdir: path.join(project, 'cdktf.out') });
      stack = new TerraformStack(app, 'search');
      access(stack, 'Qdrant', () => [SecretTarget.terraformOutputs()]);
      app.synth();
    } finally {
      process.chdir(cwd);
    }
    const state = path.join(project, 'terraform.search.tfstate');
    const backup = `${state}.backup`;
    // The warning names the files Terraform writes.
    expect(stateWarnings(stack)[0][1]).toContain(` in ${state} and its backup ${backup} `);
    const dir = path.join(project, 'cdktf.out', 'stacks', 'search');
    const tf = async (args: string[], key: string) => {
      const run = await terraform(dir, [...args, '-auto-approve', '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_qdrant_app: key });
      runs.push(run);
      expect(run.exitCode).toBe(0);
    };
    const mode = (f: string) => (fs.statSync(f).mode % 0o1000).toString(8);
    const holds = (f: string, key: string) => fs.readFileSync(f, 'utf8').includes(key);

    const first = await initAndApply(dir, { TF_VAR_qdrant_api_key_qdrant_app: FIRST });
    runs.push(first);
    expect(first.exitCode).toBe(0);
    expect([mode(state), holds(state, FIRST), fs.existsSync(backup)]).toEqual(['644', true, false]);

    // From the second write on, the backup holds the state before it: the key before a rotation.
    await tf(['apply'], SECOND);
    expect([mode(state), holds(state, SECOND), holds(state, FIRST)]).toEqual(['644', true, false]);
    expect([mode(backup), holds(backup, FIRST)]).toEqual(['644', true]);

    // A destroy empties the state; the backup keeps the last key.
    await tf(['destroy'], SECOND);
    expect([holds(state, SECOND), holds(state, FIRST)]).toEqual([false, false]);
    expect(holds(backup, SECOND)).toBe(true);

    // chmod 600 holds: Terraform keeps the modes of files that exist.
    fs.chmodSync(state, 0o600);
    fs.chmodSync(backup, 0o600);
    await tf(['apply'], FIRST);
    await tf(['apply'], SECOND);
    expect([mode(state), mode(backup)]).toEqual(['600', '600']);
    await tf(['destroy'], SECOND);
  });
});
