/**
 * `qdrant-cluster-access verify-key` as a real child process: the key variable alone, which the
 * deploy runs ahead of an ephemeral key's check and writes (-var and .tfvars files win over the
 * TF_VAR_... that the check reads). It takes no URL: it cannot contact a cluster. No run may print
 * a key or its hash.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { runNode } from '../../tools/testing/run-node';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';

const CLI = path.join(__dirname, '..', '..', 'assets', 'checker', 'cli.js');
const KEY = canaryKey();
const WRONG_KEY = canaryKey('canary-wrong');

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Runs the CLI with a minimal environment (+ env); no run may print a key or its hash. */
async function run(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runNode([CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, killAfterMs: 30_000 });
  for (const secret of [KEY, WRONG_KEY, sha256(KEY), sha256(WRONG_KEY)]) expect(stdout + stderr).not.toContain(secret);
  return { code, stdout, stderr };
}

describe('verify-key', () => {
  const VAR_ENV = 'TF_VAR_qdrant_api_key_app';
  const verify = ['verify-key', '--key-env', VAR_ENV, '--key-sha256-env', 'QCA_KEY_SHA256'];

  test('the key whose sha256 is given: exit 0, nothing printed', async () => {
    const r = await run(verify, { [VAR_ENV]: KEY, QCA_KEY_SHA256: sha256(KEY) });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
  });

  test('another key (-var or a .tfvars file set the variable too): exit 2, one line, no key or hash', async () => {
    const r = await run([...verify, '--deploy-command', 'tofu apply'], { [VAR_ENV]: KEY, QCA_KEY_SHA256: sha256(WRONG_KEY) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`qdrant-cluster-access: error: ${VAR_ENV} in the environment is not the value Terraform uses for variable qdrant_api_key_app ` +
      '(it is also set by -var, a .tfvars or *.auto.tfvars file, or -var-file): give the key one way only, by exporting TF_VAR_qdrant_api_key_app\n');
    for (const hash of [sha256(KEY), sha256(WRONG_KEY)]) expect(r.stderr).not.toContain(hash.slice(0, 8));
  });

  test('the key variable not set: exit 2, the hint names the deploy command', async () => {
    const r = await run([...verify, '--deploy-command', 'tofu apply'], { QCA_KEY_SHA256: sha256(KEY) });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`qdrant-cluster-access: error: environment variable ${VAR_ENV} is not set: run read -rs ${VAR_ENV} && export ${VAR_ENV}, ` +
      'paste the key (it is neither shown nor kept in the shell\'s history), then tofu apply (a value given with -var or a .tfvars file does not reach the check)\n');
  });

  test('without --key-sha256-env, or with an argument too many: usage errors (exit 2), the argument not echoed', async () => {
    const bare = await run(['verify-key', '--key-env', VAR_ENV], { [VAR_ENV]: KEY });
    expect([bare.code, bare.stderr]).toEqual([2, 'qdrant-cluster-access: error: verify-key needs --key-sha256-env NAME: the variable holding the sha256 of the key\n']);
    const stray = await run([...verify, KEY], { [VAR_ENV]: KEY, QCA_KEY_SHA256: sha256(KEY) });
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/unexpected extra argument \(not shown/);
  });

  test('--help documents it', async () => {
    expect((await run(['--help'])).stdout).toContain('verify-key --key-env NAME --key-sha256-env NAME');
  });
});
