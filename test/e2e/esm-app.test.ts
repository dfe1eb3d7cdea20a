/**
 * An app whose package.json says `"type": "module"`, deployed with real Terraform. The stack's
 * copy of the runtime (cdktf.out/stacks/<stack>/assets/…) has no package.json of the app's own
 * above it but the app's, so Node would load the checker and the writer as ES modules and stop at
 * their first `require`: every apply and every destroy failed. assets/package.json keeps them
 * CommonJS. The checks (REST and gRPC), the .env write and the destroy all run here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TerraformStack } from 'cdktf';
import { ClusterAccess, SecretTarget } from '../../src';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, initAndApply, synthStack, tempDir, terraform } from '../../tools/testing/terraform';

jest.setTimeout(240_000);

const KEY = canaryKey('canary-esm');
const APP_ENV = '# the app\'s own\nLOG_LEVEL=debug\n';

describe('an app with "type": "module" in its package.json', () => {
  const runs: TerraformRun[] = [];
  let cluster: StandInQdrant;
  let stackDir: string;
  let envFile: string;

  beforeAll(async () => {
    cluster = await StandInQdrant.start({ apiKey: KEY });
    const app = path.join(tempDir('qca-esm-'), 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'esm-app', type: 'module' }));
    envFile = path.join(app, '.env');
    fs.writeFileSync(envFile, APP_ENV, { mode: 0o600 });
    const cwd = process.cwd();
    process.chdir(app); // as `cdktf synth` runs: the .env path resolves in the app
    try {
      stackDir = synthStack(path.join(app, 'cdktf.out'), 'esm', (a, id) => {
        const stack = new TerraformStack(a, id);
        new ClusterAccess(stack, 'Qdrant', {
          clusters: [{ name: 'prod-eu', url: cluster.url, grpcPort: Number(new URL(cluster.grpcUrl).port) }],
          apiKeys: [{ name: 'app', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }],
          healthCheck: { caFile: cluster.caFile },
          setupGuide: { enabled: false },
        });
        return stack;
      });
    } finally {
      process.chdir(cwd);
    }
  });

  afterAll(async () => {
    await cluster.stop();
    for (const run of runs) expect(run.stdout.includes(KEY) || run.stderr.includes(KEY)).toBe(false);
  });

  test('apply checks the key and writes the .env; destroy gives the file back', async () => {
    const applied = await initAndApply(stackDir, { TF_VAR_qdrant_api_key_app: KEY });
    runs.push(applied);
    expect(applied.stderr).not.toContain('ES module');
    expect(applied.exitCode).toBe(0);
    expect(applied.stdout).toMatch(/\(local-exec\): ok {3}app → prod-eu {2}qdrant [\d.]+ {2}key accepted, keys enforced, gRPC ok/);
    const written = fs.readFileSync(envFile, 'utf8');
    expect(written.startsWith(APP_ENV)).toBe(true);
    expect(written).toContain(`QDRANT_API_KEY='${KEY}'`);

    const destroyed = await terraform(stackDir, ['destroy', '-auto-approve', '-input=false', '-no-color']);
    runs.push(destroyed);
    expect(destroyed.exitCode).toBe(0);
    expect(fs.readFileSync(envFile, 'utf8')).toBe(APP_ENV);
  });
});
