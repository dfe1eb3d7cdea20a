/**
 * Class 4 of issue #29: no size passes synth and then fails every deploy. All grants of a key
 * travelled in one environment string (QCA_GRANTS), all entries of a file in another
 * (QCA_ENTRIES), and Linux refuses one string over 128 KiB: about 840 clusters on one key, or
 * about 780 clusters' entries in one file, synthesized fine, then every apply failed with
 * "fork/exec /bin/sh: argument list too long", which names no prop. Now:
 * - with real Terraform and a real Qdrant, 2,000 clusters on one key and one file deploy, every
 *   cluster checked, every entry written to the .env and the JSON file, and destroy takes them
 *   out again; the same with 2,000 clusters whose url is a token (known only at deploy);
 * - what still cannot fit is refused at synth, naming the key or the file, the count, the limit
 *   and the fix: more values known only at deploy than a process's environment holds, and a list
 *   of collections longer than one environment string;
 * - the checker and the writer read their input file only when its sha256 is the one synth wrote.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TerraformStack, TerraformVariable } from 'cdktf';
import { ClusterAccess, KeyAccess, SecretTarget } from '../../src';
import { RealQdrant, qdrantVariants } from '../../tools/testing/real-qdrant';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, initAndApply, synthStack, tempDir, terraform } from '../../tools/testing/terraform';
import { describeVariants } from '../../tools/testing/variants';
import { appFiles, ourEntries } from '../support/app-files';
import { newStack, synthErrors } from '../support/synth';

jest.setTimeout(900_000);

const KEY = canaryKey('canary-sizes');
const CLUSTERS = 2000;
const USER_ENV = '# app\nDATABASE_URL=postgres://db/app\n';
const USER_JSON = '{\n  "region": "eu"\n}\n';
const names = Array.from({ length: CLUSTERS }, (_, i) => `c${String(i).padStart(4, '0')}`);

/** What no run may print. */
function expectNoKey(...runs: TerraformRun[]): void {
  for (const run of runs) expect(run.stdout.includes(KEY) || run.stderr.includes(KEY)).toBe(false);
}

// One server version: sizes are the configuration's, not the server's, and each deploy takes minutes.
describeVariants('real-Qdrant', qdrantVariants().slice(-1), '2,000 clusters on one key and one file', (binary) => {
  let q: RealQdrant;
  beforeAll(async () => {
    q = await RealQdrant.start({ binary, apiKey: KEY });
  }, 120_000);
  afterAll(async () => {
    await q?.stop();
  });

  /**
   * One key on 2,000 clusters (all the one server, under 2,000 names), written to a .env and a
   * JSON file; `url` gives each cluster's address (a token, or text).
   */
  async function deployAndDestroy(url: (stack: TerraformStack) => string, env: Record<string, string> = {}) {
    const files = appFiles(tempDir('qca-sizes-'), 'app', USER_ENV, USER_JSON);
    const dir = synthStack(path.join(files.base, 'cdktf.out'), 'sizes', (app, id) => {
      const stack = new TerraformStack(app, id);
      const address = url(stack);
      new ClusterAccess(stack, 'Qdrant', {
        clusters: names.map((name) => ({ name, url: address, grpcPort: q.grpcPort })),
        apiKeys: [{ name: 'app', clusters: names, secretTargets: [SecretTarget.dotenv({ path: files.envFile }), SecretTarget.json({ path: files.jsonFile })] }],
        healthCheck: { caFile: q.caFile, retries: 0, timeoutSeconds: 60 },
        setupGuide: { enabled: false },
      });
      return stack;
    });
    const variables = { TF_VAR_qdrant_api_key_app: KEY, ...env };
    const apply = await initAndApply(dir, variables);
    expect(apply.stderr).toBe('');
    expect(apply.exitCode).toBe(0);
    // Every cluster checked (the key comes from its variable, so the check's lines show).
    expect(apply.stdout.match(/\(local-exec\): ok +app → c\d{4} /g)).toHaveLength(CLUSTERS);
    const written = ourEntries(files.envFile);
    expect(Object.keys(written)).toHaveLength(3 * CLUSTERS);
    for (const name of [names[0], names[CLUSTERS - 1]]) {
      const prefix = `QDRANT_${name.toUpperCase()}`;
      expect(written[`${prefix}_URL`]).toBe(`${q.restUrl}`);
      expect(written[`${prefix}_GRPC_URL`]).toBe(`${q.grpcUrl}`);
      expect(written[`${prefix}_API_KEY`]).toBe(KEY);
    }
    const json = JSON.parse(fs.readFileSync(files.jsonFile, 'utf8'));
    expect(Object.keys(json).filter((k) => k.startsWith('QDRANT_'))).toHaveLength(3 * CLUSTERS);
    expect(json.region).toBe('eu');

    const destroy = await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], variables);
    expect(destroy.exitCode).toBe(0);
    expect(fs.readFileSync(files.envFile, 'utf8')).toBe(USER_ENV);
    expect(JSON.parse(fs.readFileSync(files.jsonFile, 'utf8'))).toEqual(JSON.parse(USER_JSON));
    expectNoKey(apply, destroy);
    return dir;
  }

  test('with their url as text: the deploy checks every cluster and writes every entry, the destroy removes them', async () => {
    const dir = await deployAndDestroy(() => q.restUrl);
    // The grants and the entries are in files of the stack, not in the environment.
    const tf = JSON.parse(fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8'));
    for (const r of Object.values<any>(tf.resource.null_resource)) {
      for (const p of r.provisioner ?? []) {
        for (const [name, value] of Object.entries<string>(p['local-exec'].environment ?? {})) expect(`${name}=${value}`.length).toBeLessThan(4096);
      }
    }
  });

  test('with their url from a variable (known only at deploy): the same', async () => {
    await deployAndDestroy((stack) => new TerraformVariable(stack, 'cluster_url', { type: 'string' }).stringValue, { TF_VAR_cluster_url: q.restUrl });
  });
});

describe('what cannot fit is refused at synth, naming the key or the file, the count, the limit and the fix', () => {
  test('more values known only at deploy than a process can receive', () => {
    const stack = newStack();
    const url = new TerraformVariable(stack, 'cluster_url', { type: 'string' }).stringValue;
    const many = Array.from({ length: 2100 }, (_, i) => `t${i}`);
    new ClusterAccess(stack, 'Qdrant', {
      clusters: many.map((name) => ({ name, url })),
      apiKeys: [{ name: 'app', clusters: many, secretTargets: [SecretTarget.dotenv({ path: '/tmp/qca-sizes-refused/.env' })] }],
      setupGuide: { enabled: false },
    });
    const errors = synthErrors(stack);
    expect(errors).toContainEqual(expect.stringContaining('key "app": its health check would receive 4,201 values known only at deploy ' +
      '(the REST and gRPC endpoints of its 2,100 clusters whose url is a token, and the key), each in an environment variable of its own, ' +
      'and Linux bounds a process\'s environment (ARG_MAX): at most 4,096 fit; give some of these clusters their url as text, or grant them to several keys'));
    expect(errors).toContainEqual(expect.stringContaining('secret target .env file "/tmp/qca-sizes-refused/.env": its writer would receive 4,201 values ' +
      'known only at deploy (4,200 endpoints of clusters whose url is a token, and 1 key or its hash), each in an environment variable of its own, ' +
      'and Linux bounds a process\'s environment (ARG_MAX): at most 4,096 fit; give some of these clusters their url as text, or split the keys across several files'));
  });

  test('a list of collections longer than one environment string', () => {
    const stack = newStack();
    const collections = Array.from({ length: 5000 }, (_, i) => `tenant-collection-number-${String(i).padStart(5, '0')}`);
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod', url: 'https://prod.example.com' }],
      apiKeys: [{ name: 'app', clusters: ['prod'], access: KeyAccess.collections({ read: collections }) }],
      healthCheck: { allowExcessAccess: true },
      setupGuide: { enabled: false },
    });
    expect(synthErrors(stack)).toContainEqual(expect.stringContaining('key "app": its 5,000 read collections make one environment string of 155,021 bytes ' +
      'for its health check, more than the 131,072 Linux accepts (MAX_ARG_STRLEN), so every deploy would fail; ' +
      'declare fewer collections (KeyAccess.readOnly() or manage() cover them all), or split them across keys'));
  });
});

describe('the input files', () => {
  test('a grants file or an entries file that changed after synth is refused, naming it', () => {
    const dir = tempDir('qca-sizes-input-');
    const file = 'inputs.json';
    fs.writeFileSync(path.join(dir, file), JSON.stringify([{ label: 'a', url: 'https://a.example.com:6333' }]));
    const run = (cli: string, args: string[], env: Record<string, string>) => {
      try {
        execFileSync(process.execPath, [path.join(__dirname, '..', '..', 'assets', cli), ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', stdio: 'pipe' });
        return { code: 0, stderr: '' };
      } catch (e) {
        return { code: (e as { status: number }).status, stderr: String((e as { stderr: string }).stderr) };
      }
    };
    const wrong = '0'.repeat(64);
    const check = run('checker/cli.js', ['check', '--grants-file', file, '--grants-sha256', wrong], { QDRANT_API_KEY: KEY });
    expect(check).toEqual({ code: 2, stderr: expect.stringContaining('grants file "inputs.json" is not the file synth wrote for this configuration (its sha256 differs: it changed after synth); synthesize again') });
    const write = run('writer/cli.js', ['write', '--file', '.env', '--owner', 'a/b'], { QCA_ENTRIES_FILE: file, QCA_ENTRIES_FILE_SHA256: wrong });
    expect(write).toEqual({ code: 2, stderr: expect.stringContaining('entries file "inputs.json" is not the file synth wrote for this configuration') });
    expect(fs.existsSync(path.join(dir, '.env'))).toBe(false);
  });
});
