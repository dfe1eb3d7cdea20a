/**
 * The cdktn flavour (`cdktn-qdrant-cluster-access`, built from the same source by
 * scripts/build-cdktn.sh), installed into a cdktn project with the one `npm install` line the
 * README gives, then examples/basic and examples/multi-cluster, their imports pointed at cdktn
 * and the cdktn package, synthesized by cdktn 0.24 in a child process (ts-node, so the example
 * also type-checks against the package's .d.ts and cdktn's). The result must be what cdktf
 * synthesizes from the same examples here, but for what names the framework: cdktn's version in
 * the metadata and `cdktn deploy` in the hints (which the checker is told with
 * `--deploy-command`, so the checks' options hash differs too).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { CDKTN_VERSION, REPO, buildCdktn, cdktnApp, deployHints, exampleForCdktn, normalizeStack } from './support';
import { BasicStack } from '../../examples/basic/main';
import { MultiClusterStack } from '../../examples/multi-cluster/main';
import { ClusterAccess, ClusterAccessProps } from '../../src';
import { tempDir } from '../../tools/testing/terraform';
import { Run, run } from '../ecosystem/support';
import { programsImporting } from '../support/docs';

jest.setTimeout(300_000);

const TODAY = { 'cdktf-qdrant-cluster-access:today': '2026-11-22' };
const BASIC_URL = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';
/** A mistake that validation reports at synth: a grant to a cluster that is not declared. */
const INVALID: ClusterAccessProps = {
  clusters: [{ name: 'prod-eu', url: BASIC_URL }],
  apiKeys: [{ name: 'search-api', clusters: ['prod-us'] }],
};

/** The cdktn app: the same stacks as the cdktf side below, plus the invalid one. */
const SYNTH_TS = `import { App, TerraformStack } from 'cdktn';
import { ClusterAccess } from 'cdktn-qdrant-cluster-access';
import { BasicStack } from './basic';
import { MultiClusterStack } from './multi-cluster';

const [outdir, envFile] = process.argv.slice(2);
const context = ${JSON.stringify(TODAY)};
const app = new App({ outdir, context });
new BasicStack(app, 'basic', { url: ${JSON.stringify(BASIC_URL)} });
new MultiClusterStack(app, 'multi-cluster', { envFile });
app.synth();

const invalid = new App({ outdir: outdir + '-invalid', context });
new ClusterAccess(new TerraformStack(invalid, 'invalid'), 'Qdrant', ${JSON.stringify(INVALID)});
try {
  invalid.synth();
  console.log(JSON.stringify({ error: null }));
} catch (e) {
  console.log(JSON.stringify({ error: (e as Error).message }));
}
`;

const TSCONFIG = {
  compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true, esModuleInterop: true, skipLibCheck: true, types: ['node'] },
  include: ['*.ts'],
};

function readStack(outdir: string, stack: string): { json: any; text: string; guide: string } {
  const dir = path.join(outdir, 'stacks', stack);
  const text = fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8');
  return { json: JSON.parse(text), text, guide: fs.readFileSync(path.join(dir, 'qdrant-setup.md'), 'utf8') };
}

describe('cdktn-qdrant-cluster-access in a cdktn app', () => {
  let tarball: string;
  let installLog: string;
  let appDir: string;
  let synth: Run;
  let cdktnOut: string;
  let cdktfOut: string;
  let cdktfError: string;

  beforeAll(async () => {
    tarball = buildCdktn();
    const app = cdktnApp(tarball);
    installLog = app.installLog;
    console.log(`cdktn app: ${app.installMs ? `installed in ${app.installMs} ms` : 'cached'} (${app.dir})`);

    // A user's project outside the repository, with the examples written against cdktn.
    appDir = tempDir('qca-cdktn-synth-');
    fs.symlinkSync(path.join(app.dir, 'node_modules'), path.join(appDir, 'node_modules'), 'dir');
    fs.writeFileSync(path.join(appDir, 'basic.ts'), exampleForCdktn('basic'));
    fs.writeFileSync(path.join(appDir, 'multi-cluster.ts'), exampleForCdktn('multi-cluster'));
    fs.writeFileSync(path.join(appDir, 'synth.ts'), SYNTH_TS);
    fs.writeFileSync(path.join(appDir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    const envFile = path.join(appDir, '.env');
    cdktnOut = path.join(appDir, 'cdktf.out');
    // ts-node type-checks the app against the package's and cdktn's .d.ts; no v8 compile cache in TMPDIR.
    synth = await run(path.join(appDir, 'node_modules', '.bin', 'ts-node'), ['synth.ts', cdktnOut, envFile], { cwd: appDir, env: { DISABLE_V8_COMPILE_CACHE: '1' }, timeoutMs: 120_000 });
    if (synth.code !== 0) throw new Error(`the cdktn app failed (exit ${synth.code}):\n${synth.stdout}\n${synth.stderr}`);

    // The same stacks with cdktf and the source, here.
    cdktfOut = tempDir('qca-cdktf-synth-');
    const app2 = new App({ outdir: cdktfOut, context: TODAY });
    new BasicStack(app2, 'basic', { url: BASIC_URL });
    new MultiClusterStack(app2, 'multi-cluster', { envFile });
    app2.synth();
    const invalid = new App({ outdir: tempDir('qca-cdktf-invalid-'), context: TODAY });
    new ClusterAccess(new TerraformStack(invalid, 'invalid'), 'Qdrant', INVALID);
    try {
      invalid.synth();
      cdktfError = '(no error)';
    } catch (e) {
      cdktfError = (e as Error).message;
    }
  });

  test('the package: cdktn and constructs as peers, no cdktf and no provider package', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(appDir, 'node_modules', 'cdktn-qdrant-cluster-access', 'package.json'), 'utf8'));
    const own = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('cdktn-qdrant-cluster-access');
    expect(pkg.peerDependencies).toEqual({ cdktn: '^0.24.0', constructs: '>=10.6.0 <10.8.0' });
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.bin).toEqual(own.bin);
    expect(pkg.version).toBe(own.version);
    const nm = path.join(appDir, 'node_modules');
    expect(fs.existsSync(path.join(nm, 'cdktf'))).toBe(false);
    expect(fs.existsSync(path.join(nm, '@cdktf'))).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(nm, 'cdktn', 'package.json'), 'utf8')).version).toBe(CDKTN_VERSION);
  });

  test('the package holds what the cdktf one holds: the compiled library, the runtime, the assembly', () => {
    const root = path.join(appDir, 'node_modules', 'cdktn-qdrant-cluster-access');
    const walk = (dir: string): string[] => fs.readdirSync(path.join(root, dir), { withFileTypes: true })
      .flatMap((e) => e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]);
    const files = walk('');
    const allowed = [/^(package\.json|README\.md|LICENSE|\.jsii|assets\/package\.json)$/, /^(lib|assets)\/(?:[\w-]+\/)*[\w-]+\.(?:js|d\.ts)$/];
    expect(files.filter((f) => !allowed.some((re) => re.test(f)) || /\.test\.|__tests__/.test(f))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['.jsii', 'lib/index.js', 'lib/index.d.ts', 'lib/private/framework.js', 'assets/checker/cli.js', 'assets/writer/cli.js', 'assets/package.json']));
    // Every file of the runtime ships, as it is in the repository.
    const runtime = walk('assets').length;
    expect(runtime).toBe(fs.readdirSync(path.join(REPO, 'assets'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.(?:js|d\.ts)$|^package\.json$/.test(e.name) && !/\.test\./.test(e.name)).length);
  });

  test('the documented `npm install cdktn-qdrant-cluster-access` needs no flag: no peer conflict', () => {
    expect(installLog).toMatch(/added 1 package/);
    expect(installLog).not.toMatch(/ERESOLVE|peer dep|legacy-peer-deps|conflicting peer|EBADENGINE/i);
    // npm ls exits non-zero on an invalid or missing peer.
    const ls = spawnSync('npm', ['ls', '--all', '--json'], { cwd: path.dirname(fs.realpathSync(path.join(appDir, 'node_modules'))), encoding: 'utf8' });
    expect(ls.status).toBe(0);
    expect(JSON.parse(ls.stdout).problems ?? []).toEqual([]);
  });

  test.each(['basic', 'multi-cluster'])('examples/%s: cdk.tf.json equals the cdktf synth, but for the deploy command', (stack) => {
    const cdktn = readStack(cdktnOut, stack);
    const cdktf = readStack(cdktfOut, stack);
    expect(cdktn.json['//'].metadata.version).toBe(CDKTN_VERSION);
    expect(normalizeStack(cdktn.json)).toEqual(normalizeStack(cdktf.json));
    // What differs: every hint names cdktn's command, none cdktf's.
    expect(cdktn.text).not.toMatch(/cdktf (deploy|destroy)/);
    const hints = deployHints(cdktn.text);
    expect(hints.length).toBeGreaterThan(0);
    expect(new Set(hints)).toEqual(new Set(['cdktn deploy']));
    // The same assets (the runtime is framework-independent): same paths, same hashes.
    const assets = (dir: string) => fs.readdirSync(path.join(dir, 'stacks', stack, 'assets')).sort();
    expect(assets(cdktnOut)).toEqual(assets(cdktfOut));
  });

  test('the missing-key message says `cdktn deploy` where the cdktf one says `cdktf deploy`', () => {
    const message = (json: any) => Object.values<any>(json.resource.null_resource)
      .flatMap((r) => r.lifecycle?.precondition ?? []).map((p: any) => p.error_message as string);
    const cdktn = message(readStack(cdktnOut, 'basic').json);
    const cdktf = message(readStack(cdktfOut, 'basic').json);
    expect(cdktf).toEqual([expect.stringContaining('read -rs TF_VAR_qdrant_api_key_search_api && export TF_VAR_qdrant_api_key_search_api, paste the key (it is neither shown nor kept in the shell\'s history), then cdktf deploy')]);
    // Each names the guide from where its app synthesized (the cdktn app from its own directory).
    expect(cdktn[0]).toMatch(/ \(see (cdktf\.out\/stacks\/basic\/)?qdrant-setup\.md, section 3\)$/);
    const unplaced = (m: string) => m.replace(/\(see [^()]*qdrant-setup\.md, section 3\)$/, '(see qdrant-setup.md, section 3)');
    expect(cdktn.map(unplaced)).toEqual([unplaced(cdktf[0]).replace('then cdktf deploy', 'then cdktn deploy')]);
  });

  test('the setup guide says `cdktn deploy`, `cdktn destroy` and `cdktn synth`, and is otherwise the cdktf one', () => {
    for (const stack of ['basic', 'multi-cluster']) {
      const cdktn = readStack(cdktnOut, stack).guide;
      const cdktf = readStack(cdktfOut, stack).guide;
      expect(cdktn).toContain(`cdktn deploy ${stack}`);
      expect(cdktn).toContain('`cdktn destroy`');
      expect(cdktn).toContain('Generated by cdktn-qdrant-cluster-access at synth');
      expect(cdktn).not.toMatch(/cdktf (deploy|destroy|synth)|cdktf-qdrant-cluster-access/);
      const back = cdktn.replace(/\bcdktn (deploy|destroy|synth)\b/g, 'cdktf $1').replace(/\bcdktn-qdrant-cluster-access\b/g, 'cdktf-qdrant-cluster-access');
      expect(back).toBe(cdktf);
    }
  });

  test('validation runs under cdktn and reports what cdktf reports', () => {
    const { error } = JSON.parse(synth.stdout.trim().split('\n').pop()!);
    expect(cdktfError).toMatch(/prod-us/);
    expect(error).toBe(cdktfError);
  });

  test('the cdktn program of docs/cdktn.md synthesizes in the cdktn app, and its guide says `cdktn deploy`', async () => {
    const programs = programsImporting('cdktn');
    expect(programs.map((b) => b.page)).toEqual(['docs/cdktn.md']);
    for (const b of programs) {
      // The app's directory holds its tsconfig and node_modules; cdktf.out goes where it runs.
      const script = path.join(appDir, `docs-cdktn-${b.line}.ts`);
      fs.writeFileSync(script, b.text);
      const cwd = tempDir('qca-cdktn-doc-');
      const r = await run(path.join(appDir, 'node_modules', '.bin', 'ts-node'), [script], { cwd, env: { DISABLE_V8_COMPILE_CACHE: '1' }, timeoutMs: 120_000 });
      if (r.code !== 0) throw new Error(`${b.page}:${b.line} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
      const stack = path.join(cwd, 'cdktf.out', 'stacks', 'search');
      expect(Object.keys(JSON.parse(fs.readFileSync(path.join(stack, 'cdk.tf.json'), 'utf8')).variable)).toEqual(['qdrant_api_key_search_api']);
      expect(fs.readFileSync(path.join(stack, 'qdrant-setup.md'), 'utf8')).toContain('cdktn deploy');
    }
  });
});
