/**
 * Real Terraform for the end-to-end tests and the demo: offline, with the hashicorp/null
 * provider from the project's filesystem mirror (scripts/offline-terraform.sh).
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';

const REPO = path.join(__dirname, '..', '..');

let cliConfig: string | undefined;

/**
 * The environment that makes Terraform use the offline mirror. Runs the (cached) setup
 * script once per process when `.offline-tf/env` is missing or stale.
 */
export function offlineTerraformEnv(): Record<string, string> {
  if (!cliConfig) {
    const envFile = path.join(REPO, '.offline-tf', 'env');
    const read = () => fs.existsSync(envFile)
      ? fs.readFileSync(envFile, 'utf8').trim().replace(/^TF_CLI_CONFIG_FILE=/, '')
      : undefined;
    let file = read();
    if (!file || !fs.existsSync(file)) {
      execFileSync('bash', [path.join(REPO, 'scripts', 'offline-terraform.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
      file = read();
    }
    if (!file) throw new Error('scripts/offline-terraform.sh did not write .offline-tf/env; run it by hand to see why');
    cliConfig = file;
  }
  return { TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
}

export interface TerraformRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall-clock time of the run. */
  readonly ms: number;
}

/**
 * Run terraform in a stack directory, without blocking the event loop (the stand-in cluster
 * lives in the same process). `env` adds to the current environment; keys set to undefined
 * are removed (e.g. a TF_VAR_ left over from a previous step).
 */
export function terraform(cwd: string, args: string[], env: Record<string, string | undefined> = {}): Promise<TerraformRun> {
  const merged: Record<string, string | undefined> = { ...process.env, ...offlineTerraformEnv(), ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('terraform', args, { cwd, env: merged as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ exitCode: code ?? -1, stdout, stderr, ms: Date.now() - started }));
  });
}

/** `terraform init` then `apply`, failing loudly when init fails. */
export async function initAndApply(cwd: string, env: Record<string, string | undefined>): Promise<TerraformRun> {
  const init = await terraform(cwd, ['init', '-input=false', '-no-color'], env);
  if (init.exitCode !== 0) throw new Error(`terraform init failed in ${cwd}:\n${init.stdout}\n${init.stderr}`);
  return terraform(cwd, ['apply', '-auto-approve', '-input=false', '-no-color'], env);
}

/**
 * Synthesize one stack into `outdir` exactly as `cdktf synth` would (assets included) and
 * return the stack's directory.
 */
export function synthStack(outdir: string, id: string, build: (app: App, id: string) => TerraformStack): string {
  const app = new App({ outdir });
  const stack = build(app, id);
  // cdktf's default local backend puts the state in the current directory (the repo when
  // testing); keep it in the stack directory, where the canary scan reads it.
  new LocalBackend(stack, { path: 'terraform.tfstate' });
  app.synth();
  return path.join(outdir, 'stacks', id);
}
