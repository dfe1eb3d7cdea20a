/**
 * Real Terraform (or OpenTofu) for the end-to-end tests and the demo: offline, with the real
 * hashicorp/null and hashicorp/http providers from a filesystem mirror (scripts/offline-terraform.sh,
 * which gets them from ../shared/terraform-providers/build.sh).
 *
 * Which binary runs: the `binary` argument of {@link terraform} / {@link initAndApply}, else the
 * environment variable `QCA_TF_BINARY` (`terraform`, `tofu`, or a path), else cdktf's
 * `TERRAFORM_BINARY_NAME`, else `terraform` when it is on PATH, else the `tofu` that
 * scripts/offline-terraform.sh builds when terraform is missing (scripts/terraform-binary.sh
 * makes the same choice for shell scripts).
 *
 * A run sees the developer's environment minus what would change Terraform's behaviour or
 * output under the tests (TF_LOG*, TF_CLI_ARGS*, TF_VAR_*, TF_INPUT, TF_WORKSPACE, TF_DATA_DIR):
 * only what a test passes reaches it. A run never outlives its test file: it is killed after
 * its deadline and, inside jest, when the test file that started it ends.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { atTestFileEnd, killAtDeadline } from './file-end';
import type { Variant } from './variants';

const REPO = path.join(__dirname, '..', '..');
const ENV_FILE = path.join(REPO, '.offline-tf', 'env');

/** `terraform`, `tofu`, or the path of a binary of either. */
export type TerraformBinary = 'terraform' | 'tofu' | (string & {});

let offline: Record<string, string> | undefined;

/** `.offline-tf/env`: KEY=VALUE lines written by scripts/offline-terraform.sh. */
function readEnvFile(): Record<string, string> {
  if (!fs.existsSync(ENV_FILE)) return {};
  const entries = fs.readFileSync(ENV_FILE, 'utf8').split('\n')
    .map((l) => l.trim()).filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const);
  return Object.fromEntries(entries);
}

/** Runs scripts/offline-terraform.sh (cached; `--tofu` also builds OpenTofu) and re-reads its env file. */
function runSetup(withTofu: boolean): Record<string, string> {
  execFileSync('bash', [path.join(REPO, 'scripts', 'offline-terraform.sh'), ...(withTofu ? ['--tofu'] : [])],
    { stdio: ['ignore', 'ignore', 'inherit'] });
  const env = readEnvFile();
  if (!env.TF_CLI_CONFIG_FILE) throw new Error('scripts/offline-terraform.sh did not write .offline-tf/env; run it by hand to see why');
  return env;
}

function offlineSetup(withTofu = false): Record<string, string> {
  if (!offline) {
    const env = readEnvFile();
    // Stale when the config or the mirror is gone, or when the config is not the one for that mirror.
    const current = env.TF_CLI_CONFIG_FILE && env.QCA_PROVIDER_MIRROR && fs.existsSync(env.TF_CLI_CONFIG_FILE)
      && fs.existsSync(env.QCA_PROVIDER_MIRROR) && fs.readFileSync(env.TF_CLI_CONFIG_FILE, 'utf8').includes(`path    = "${env.QCA_PROVIDER_MIRROR}"`);
    offline = current ? env : runSetup(false);
  }
  if (withTofu && !(offline.QCA_TOFU && fs.existsSync(offline.QCA_TOFU) && offline.QCA_TOFU_VERSION === tofuVersion())) offline = runSetup(true);
  return offline;
}

/** The OpenTofu version scripts/offline-tofu.sh builds (QCA_TOFU_VERSION, else its default). */
function tofuVersion(): string {
  return execFileSync('bash', [path.join(REPO, 'scripts', 'offline-tofu.sh'), '--version'], { encoding: 'utf8' }).trim();
}

/**
 * The environment that makes Terraform and OpenTofu use the offline mirror. Runs the (cached)
 * setup script once per process when `.offline-tf/env` is missing or stale.
 */
export function offlineTerraformEnv(): Record<string, string> {
  return { TF_CLI_CONFIG_FILE: offlineSetup().TF_CLI_CONFIG_FILE, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
}

/**
 * The releases of `hashicorp/<type>` that the offline mirror holds (for Terraform's origin), in
 * version order. Runs the (cached) setup script once per process when needed.
 */
export function mirroredProviderVersions(type: string): string[] {
  const dir = path.join(offlineSetup().QCA_PROVIDER_MIRROR, 'registry.terraform.io', 'hashicorp', type);
  if (!fs.existsSync(dir)) return [];
  const parts = (v: string) => v.split('.').map(Number);
  return fs.readdirSync(dir).filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort((a, b) => {
    const [x, y] = [parts(a), parts(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
}

/**
 * The Terraform engines of this machine, one variant each, for a matrix (tools/testing/variants.ts):
 * `terraform` when it is on PATH, and the OpenTofu that scripts/offline-tofu.sh builds, once built
 * (.ci/run builds it first; elsewhere it is skipped until `bash scripts/offline-tofu.sh` ran). The
 * value is the binary; the label, the first line of its `version`, e.g. `OpenTofu v1.12.6`.
 */
export function engineVariants(): Variant<string>[] {
  const env = { ...process.env, ...offlineTerraformEnv() };
  const labelOf = (bin: string) => execFileSync(bin, ['version'], { env, encoding: 'utf8' }).split('\n')[0].trim();
  const engines: Variant<string>[] = onPath('terraform') ? [{ label: labelOf('terraform'), value: 'terraform' }] : [];
  const tofu = execFileSync('bash', [path.join(REPO, 'scripts', 'offline-tofu.sh'), '--cached'], { encoding: 'utf8' }).trim();
  engines.push(tofu
    ? { label: labelOf(tofu), value: tofu }
    : { label: `OpenTofu v${tofuVersion()}`, unavailable: 'not built yet: run bash scripts/offline-tofu.sh (about 6 min once)' });
  return engines;
}

function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The binary to run: `which`, else `QCA_TF_BINARY`, else `TERRAFORM_BINARY_NAME`, else
 * `terraform` when on PATH, else `tofu`. `tofu` is the one built by scripts/offline-tofu.sh
 * unless `tofu` is on PATH; it is built on first use (about 6 min cold, then cached).
 */
export function terraformBinary(which?: TerraformBinary): string {
  const wanted = which || process.env.QCA_TF_BINARY || process.env.TERRAFORM_BINARY_NAME || (onPath('terraform') ? 'terraform' : 'tofu');
  if (wanted === 'tofu' && !onPath('tofu')) return offlineSetup(true).QCA_TOFU;
  return wanted;
}

export interface TerraformRun {
  readonly exitCode: number;
  /** The signal that ended the run (e.g. SIGKILL at its deadline), else null. */
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall-clock time of the run. */
  readonly ms: number;
}

export interface TerraformOptions {
  /**
   * The run's stdin: `ignore` (default, as in CI) or `pipe`, a pipe that is never written to (a
   * terminal no one types into).
   */
  readonly stdin?: 'ignore' | 'pipe';
  /**
   * A bound, not a measurement: SIGKILL this many ms after the spawn (default 10 minutes), so a
   * hung run cannot outlive its test. A run ended so has `signal: 'SIGKILL'`.
   */
  readonly deadlineMs?: number;
  /** Called with the process id of terraform (or tofu) once it is spawned. */
  readonly onSpawn?: (pid: number) => void;
}

/** The default of {@link TerraformOptions.deadlineMs}. */
const DEFAULT_DEADLINE_MS = 10 * 60_000;

/** Inherited variables that change Terraform's behaviour or output: a run gets them only from its `env`. */
const INHERITED_NOT_PASSED = /^(TF_LOG|TF_CLI_ARGS|TF_VAR_)|^(TF_INPUT|TF_WORKSPACE|TF_DATA_DIR)$/;

/**
 * Run terraform (or tofu, see {@link terraformBinary}) in a stack directory, without blocking the
 * event loop (the stand-in cluster lives in the same process). `env` adds to the current
 * environment, from which TF_LOG*, TF_CLI_ARGS*, TF_VAR_*, TF_INPUT, TF_WORKSPACE and TF_DATA_DIR
 * are removed first; keys set to undefined are removed (e.g. a TF_VAR_ left over from a previous step).
 */
export function terraform(
  cwd: string, args: string[], env: Record<string, string | undefined> = {}, binary?: TerraformBinary, options: TerraformOptions = {},
): Promise<TerraformRun> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !INHERITED_NOT_PASSED.test(k)));
  const merged: Record<string, string | undefined> = { ...inherited, ...offlineTerraformEnv(), ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  const bin = terraformBinary(binary);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, env: merged as NodeJS.ProcessEnv, stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'] });
    const done = killAtDeadline(child, options.deadlineMs ?? DEFAULT_DEADLINE_MS);
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => { stdout += d; });
    child.stderr?.on('data', (d) => { stderr += d; });
    child.on('error', (e) => {
      done();
      reject(new Error(`cannot run ${bin} ${args.join(' ')} in ${cwd}: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      done();
      resolve({ exitCode: code ?? -1, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** `terraform init` then `apply`, failing loudly when init fails. */
export async function initAndApply(cwd: string, env: Record<string, string | undefined>, binary?: TerraformBinary): Promise<TerraformRun> {
  const init = await terraform(cwd, ['init', '-input=false', '-no-color'], env, binary);
  if (init.exitCode !== 0) throw new Error(`${terraformBinary(binary)} init failed in ${cwd}:\n${init.stdout}\n${init.stderr}`);
  return terraform(cwd, ['apply', '-auto-approve', '-input=false', '-no-color'], env, binary);
}

const tempDirs: string[] = [];
atTestFileEnd(() => {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * A new directory under the OS temp dir, removed when the current jest test file ends or, outside
 * jest, when the process exits. The removal is a root-level afterAll registered when the file
 * imports this module, so it runs after every `describe`'s afterAll but before the file's own
 * root-level ones: destroy what was deployed into the directory inside a `describe`.
 */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/**
 * Synthesize one stack into `outdir` exactly as `cdktf synth` would (assets included) and
 * return the stack's directory. An `outdir` in the OS temp dir is scratch: it is removed, with
 * everything in it, when the current jest test file ends (see {@link tempDir}), so destroy
 * what was deployed from it in a `describe`'s `afterAll` or in the test itself.
 */
export function synthStack(outdir: string, id: string, build: (app: App, id: string) => TerraformStack): string {
  const tmp = fs.realpathSync(os.tmpdir()) + path.sep;
  const real = fs.existsSync(outdir) ? fs.realpathSync(outdir) : path.resolve(outdir);
  if (real.startsWith(tmp) && !tempDirs.includes(outdir)) tempDirs.push(outdir);
  const app = new App({ outdir });
  const stack = build(app, id);
  // cdktf's default local backend puts the state in the current directory (the repo when
  // testing); keep it in the stack directory, where the canary scan reads it.
  new LocalBackend(stack, { path: 'terraform.tfstate' });
  app.synth();
  return path.join(outdir, 'stacks', id);
}
