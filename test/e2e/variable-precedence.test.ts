/**
 * End to end: a key from a Terraform variable that is also set another way. The check reads the
 * key from TF_VAR_<name>, the targets get var.<name>, and a *.auto.tfvars file or -var wins over
 * TF_VAR_: the two could differ, and a store would receive a key that was never checked. Real
 * terraform and a stand-in cluster: the deploy must stop before any target is written, say why in
 * one line, and show neither key nor its hash; with TF_VAR_ alone the check's lines stay visible.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TerraformStack } from 'cdktf';
import { ClusterAccess, SecretTarget } from '../../src';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, initAndApply, synthStack, tempDir, terraform } from '../../tools/testing/terraform';

jest.setTimeout(240_000);

const VARIABLE = 'qdrant_api_key_app';
const MISMATCH = `TF_VAR_${VARIABLE} in the environment is not the value Terraform uses for variable ${VARIABLE} ` +
  `(it is also set by -var, a .tfvars or *.auto.tfvars file, or -var-file): give the key one way only, by exporting TF_VAR_${VARIABLE}`;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

describe('a key variable set by TF_VAR_ and also by a .tfvars file or -var', () => {
  const checked = canaryKey('canary-tf-var');
  const other = canaryKey('canary-tfvars');
  let cluster: StandInQdrant;
  let dir: string;
  let envFile: string;

  const apply = async (args: string[] = []) => {
    const run = await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color', ...args], { [`TF_VAR_${VARIABLE}`]: checked });
    expectNoSecret(run);
    return run;
  };
  /** Neither key nor its sha256 in what terraform printed, or in the stack. */
  const expectNoSecret = (run: TerraformRun) => {
    const texts = { stdout: run.stdout, stderr: run.stderr, stack: fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8') };
    for (const secret of [checked, other, sha256(checked), sha256(other)]) {
      for (const [where, text] of Object.entries(texts)) expect({ where, leaked: text.includes(secret) }).toEqual({ where, leaked: false });
    }
  };
  const outputs = async () => JSON.parse((await terraform(dir, ['output', '-json'], { [`TF_VAR_${VARIABLE}`]: checked })).stdout) as Record<string, { value: string }>;
  const expectRefused = async (run: TerraformRun) => {
    expect(run.exitCode).not.toBe(0);
    const failure = run.stderr.replace(/\s+/g, ' ');
    expect(failure).toContain(`qdrant-cluster-access: error: ${MISMATCH}`);
    // Refused before anything was sent, and before any target got a key.
    expect(cluster.requests).toEqual([]);
    expect(fs.existsSync(envFile)).toBe(false);
    expect((await outputs()).QDRANT_API_KEY).toBeUndefined();
  };

  beforeAll(async () => {
    cluster = await StandInQdrant.start({ apiKey: checked });
    const out = tempDir('qca-e2e-precedence-');
    envFile = path.join(out, 'app.env');
    dir = synthStack(out, 'precedence', (app, id) => {
      const stack = new TerraformStack(app, id);
      new ClusterAccess(stack, 'Qdrant', {
        clusters: [{ name: 'prod-eu', url: cluster.url, grpcPort: Number(new URL(cluster.grpcUrl).port) }],
        // No source: the key comes from the sensitive variable qdrant_api_key_app.
        apiKeys: [{ name: 'app', clusters: ['prod-eu'], secretTargets: [SecretTarget.terraformOutputs(), SecretTarget.dotenv({ path: envFile })] }],
        healthCheck: { caFile: cluster.caFile },
      });
      return stack;
    });
  });
  afterAll(async () => {
    if (dir) await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], { [`TF_VAR_${VARIABLE}`]: checked });
    await cluster?.stop();
  });

  test('an override.auto.tfvars file: the apply fails with one line before any target is written', async () => {
    const tfvars = path.join(dir, 'override.auto.tfvars');
    fs.writeFileSync(tfvars, `${VARIABLE} = "${other}"\n`);
    try {
      const run = await initAndApply(dir, { [`TF_VAR_${VARIABLE}`]: checked });
      expectNoSecret(run);
      await expectRefused(run);
    } finally {
      fs.rmSync(tfvars);
    }
  });

  test('-var: the same', async () => {
    await expectRefused(await apply(['-var', `${VARIABLE}=${other}`]));
  });

  test('TF_VAR_ alone: the check passes, its line visible, and the targets get the key that was checked', async () => {
    const run = await apply();
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/ok +app → prod-eu +qdrant 1\.16\.2 +key accepted, keys enforced, gRPC ok +\d+ ms/);
    expect(run.stdout).not.toContain('output suppressed');
    expect((await outputs()).QDRANT_API_KEY.value).toBe(checked);
    expect(fs.readFileSync(envFile, 'utf8')).toContain(checked);
  });

  test('a writer that runs without the check (-replace, the key unchanged for Terraform) refuses a TF_VAR_ that differs', async () => {
    const write = Object.keys(JSON.parse(fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8')).resource.null_resource).find((id) => id.includes('_Write_'));
    // Terraform's value is the checked key (-var), so the check does not run again; TF_VAR_ holds another.
    const run = await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color', '-var', `${VARIABLE}=${checked}`, `-replace=null_resource.${write}`],
      { [`TF_VAR_${VARIABLE}`]: other });
    expectNoSecret(run);
    expect(run.exitCode).not.toBe(0);
    expect(run.stdout).not.toMatch(/ok +app → prod-eu/);
    expect(run.stderr.replace(/\s+/g, ' ')).toContain(`qdrant-cluster-access-writer: error: entry QDRANT_API_KEY: ${MISMATCH}`);
    // The file keeps the key that was checked.
    expect(fs.readFileSync(envFile, 'utf8')).toContain(checked);
    expect(fs.readFileSync(envFile, 'utf8')).not.toContain(other);
  });
});
