/**
 * README.md's install steps work as written. Its install lines run exactly as printed, taken from
 * the README (support.ts `readmeApp`), in a directory outside the repository beside the tarball
 * that its build lines make; then `npx cdktf synth` synthesizes the README's app, as main.ts
 * beside the cdktf.json and tsconfig.json those lines wrote (ts-node type-checks it against the
 * installed package). The checker CLI of docs/checker-cli.md runs from the installed package with
 * `npx -p`, against a stand-in cluster. The same app serves test/ecosystem/cdktf-cli.test.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ReadmeApp, packages, readmeApp, readmeInstallLines, run } from './support';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { offlineTerraformEnv, tempDir, terraformBinary } from '../../tools/testing/terraform';
import { blocksUnder, readPage } from '../support/docs';

jest.setTimeout(900_000);

describe("README.md's install steps, as printed, in an app outside the repository", () => {
  let tarball: string;
  let app: ReadmeApp;

  beforeAll(() => {
    ({ tarball } = packages());
    app = readmeApp(tarball);
    console.log(`README.md's install lines: ${app.installMs ? `ran in ${app.installMs} ms` : 'ran before (cached)'} in ${app.dir}`);
  });

  const installed = (name: string) => JSON.parse(fs.readFileSync(path.join(app.dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };

  test('the build lines make the tarball that the install lines install', () => {
    const build = blocksUnder('README.md', 'Install', 'sh').find((b) => b.text.includes('npx projen package:js'));
    expect(build).toBeDefined();
    const named = /^npm install \.\.\/cdktf-qdrant-cluster-access\/dist\/js\/(\S+\.tgz) /m.exec(readmeInstallLines())?.[1];
    expect(named).toBe(path.basename(tarball));
    expect(tarball).toBe(path.join(path.dirname(tarball), named!));
    expect(path.relative(path.join(__dirname, '..', '..'), path.dirname(tarball))).toBe(path.join('dist', 'js'));
  });

  test('they install what they pin: TypeScript 5.9 (7 cannot run ts-node), ts-node 10.9, cdktf and its CLI 0.21, and the package', () => {
    expect(installed('typescript').version).toMatch(/^5\.9\./);
    expect(installed('ts-node').version).toMatch(/^10\.9\./);
    expect(installed('cdktf').version).toBe('0.21.0');
    expect(installed('cdktf-cli').version).toMatch(/^0\.21\./);
    const ours = path.join(app.dir, 'node_modules', 'cdktf-qdrant-cluster-access');
    expect(fs.readFileSync(path.join(ours, 'lib', 'index.js'), 'utf8')).toBe(fs.readFileSync(path.join(__dirname, '..', '..', 'lib', 'index.js'), 'utf8'));
    expect(JSON.parse(fs.readFileSync(path.join(app.dir, 'cdktf.json'), 'utf8'))).toEqual({ language: 'typescript', app: 'npx ts-node main.ts' });
    expect(JSON.parse(fs.readFileSync(path.join(app.dir, 'tsconfig.json'), 'utf8')).compilerOptions.module).toBe('commonjs');
  });

  test("npx cdktf synth synthesizes the README's app", async () => {
    const [main] = blocksUnder('README.md', 'Install', 'ts');
    const dir = tempDir('qca-readme-app-');
    fs.symlinkSync(path.join(app.dir, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    for (const f of ['package.json', 'cdktf.json', 'tsconfig.json']) fs.copyFileSync(path.join(app.dir, f), path.join(dir, f));
    fs.writeFileSync(path.join(dir, 'main.ts'), main.text);
    const synth = await run('npx', ['cdktf', 'synth', '--no-color'], {
      cwd: dir,
      env: {
        ...offlineTerraformEnv(),
        TERRAFORM_BINARY_NAME: terraformBinary(),
        CDKTF_HOME: path.join(dir, '.cdktf-home'),
        CDKTF_DISABLE_PLUGIN_CACHE_ENV: 'true',
        JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION: '1',
      },
      timeoutMs: 300_000,
    });
    if (synth.code !== 0) throw new Error(`npx cdktf synth failed (exit ${synth.code}):\n${synth.stdout}\n${synth.stderr}`);
    expect(synth.stdout).toContain('Generated Terraform code for the stacks: search');
    const stack = path.join(dir, 'cdktf.out', 'stacks', 'search');
    const json = JSON.parse(fs.readFileSync(path.join(stack, 'cdk.tf.json'), 'utf8'));
    expect(Object.keys(json.variable)).toEqual(['qdrant_api_key_search_api']);
    expect(Object.keys(json.resource.null_resource).filter((id) => id.includes('_HealthCheck_'))).toHaveLength(1);
    expect(Object.keys(json.terraform.required_providers)).toEqual(['null']);
    // The README sends the reader to the guide that synth wrote.
    expect(fs.readFileSync(path.join(stack, 'qdrant-setup.md'), 'utf8')).toContain('read -rs TF_VAR_qdrant_api_key_search_api && export TF_VAR_qdrant_api_key_search_api');
  });

  test('the checker CLI of docs/checker-cli.md runs from the installed package with npx -p (a stand-in cluster for the Cloud one)', async () => {
    const [block] = readPage('docs/checker-cli.md').blocks.filter((b) => b.lang === 'sh' && b.text.includes('npx -p'));
    const command = block.text.replace(/\\\n\s*/g, '').split('\n').find((l) => l.startsWith('npx -p'))!;
    const key = canaryKey('canary-readme-cli');
    const cluster = await StandInQdrant.start({ apiKey: canaryKey('canary-readme-manage'), readOnlyApiKey: key });
    try {
      const [cmd, ...args] = command.trim().split(/\s+/);
      const swapped = args.map((a) => a
        .replace(/^https:\/\/[^/]+:6334$/, cluster.grpcUrl)
        .replace(/^https:\/\/[^/:]+$/, cluster.url));
      expect(swapped.filter((a, i) => a !== args[i])).toHaveLength(2); // --url and --grpc-url
      const r = await run(cmd, [...swapped, '--ca', cluster.caFile], { cwd: app.dir, env: { QDRANT_API_KEY: key, npm_config_update_notifier: 'false' }, timeoutMs: 120_000 });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^ok +\S+ +qdrant \S+ +key accepted, keys enforced, read-only as declared, gRPC ok/m);
      expect(`${r.stdout}${r.stderr}`).not.toContain(key);
    } finally {
      await cluster.stop();
    }
  });
});
