/**
 * Python on cdktn: the cdktn package's wheel (jsii-pacmak python of the cdktn build,
 * scripts/build-cdktn.sh --python) in a venv with cdktn 0.24.0 from PyPI. A Python app imports
 * `cdktn` and `cdktn_qdrant_cluster_access` and synthesizes a stack that must be what cdktf
 * synthesizes from the same construct here, but for what names the framework (see
 * normalizeStack). Synth only: deploys are covered by the cdktn CLI test and by examples/python.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { buildCdktn, cdktnPythonVenv, deployHints, normalizeStack } from './support';
import { ClusterAccess, SecretTarget } from '../../src';
import { tempDir } from '../../tools/testing/terraform';
import { expectOk, run } from '../ecosystem/support';

jest.setTimeout(300_000);

const TODAY = { 'cdktf-qdrant-cluster-access:today': '2026-11-22' };
const URL_ = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';

const MAIN_PY = `import sys
from cdktn import App, TerraformStack
from cdktn_qdrant_cluster_access import ApiKeyOptions, ClusterAccess, ClusterOptions, SecretTarget

outdir, env_file = sys.argv[1:3]
app = App(outdir=outdir, context=${JSON.stringify(TODAY)})
stack = TerraformStack(app, "python")
ClusterAccess(stack, "Qdrant",
    clusters=[ClusterOptions(name="prod-eu", url=${JSON.stringify(URL_)}, grpc_port=7334)],
    api_keys=[ApiKeyOptions(name="search-api", clusters=["prod-eu"], secret_targets=[SecretTarget.dotenv(path=env_file)])],
)
app.synth()
`;

describe('the cdktn package in a Python cdktn app', () => {
  let cdktnDir: string;
  let cdktfDir: string;

  beforeAll(async () => {
    const { wheel } = buildCdktn(true);
    const venv = cdktnPythonVenv(wheel);
    console.log(`cdktn venv: ${venv.installMs ? `created in ${venv.installMs} ms` : 'cached'}`);
    const appDir = tempDir('qca-cdktn-python-');
    const envFile = path.join(appDir, '.env');
    fs.writeFileSync(path.join(appDir, 'main.py'), MAIN_PY);
    expectOk(await run(venv.python, ['main.py', path.join(appDir, 'cdktf.out'), envFile], {
      cwd: appDir,
      env: { PYTHONDONTWRITEBYTECODE: '1', JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION: '1' },
      timeoutMs: 120_000,
    }), 'python main.py');
    cdktnDir = path.join(appDir, 'cdktf.out', 'stacks', 'python');

    const outdir = tempDir('qca-cdktf-python-twin-');
    const app = new App({ outdir, context: TODAY });
    new ClusterAccess(new TerraformStack(app, 'python'), 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_, grpcPort: 7334 }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: envFile })] }],
    });
    app.synth();
    cdktfDir = path.join(outdir, 'stacks', 'python');
  });

  test('cdk.tf.json equals the cdktf synth of the same construct, but for the deploy command', () => {
    const text = fs.readFileSync(path.join(cdktnDir, 'cdk.tf.json'), 'utf8');
    const cdktn = JSON.parse(text);
    const cdktf = JSON.parse(fs.readFileSync(path.join(cdktfDir, 'cdk.tf.json'), 'utf8'));
    expect(cdktn['//'].metadata.version).toBe('0.24.0');
    expect(normalizeStack(cdktn)).toEqual(normalizeStack(cdktf));
    expect(new Set(deployHints(text))).toEqual(new Set(['cdktn deploy']));
  });

  test('the setup guide says `cdktn deploy python`', () => {
    const guide = fs.readFileSync(path.join(cdktnDir, 'qdrant-setup.md'), 'utf8');
    expect(guide).toContain('cdktn deploy python');
    expect(guide).not.toMatch(/cdktf (deploy|destroy)/);
  });
});
