/**
 * Shared by the ecosystem tests: the library used the way its users use it (the npm tarball in a
 * cdktf CLI app, the wheel in a Python app, OpenTofu), outside the repository's own wiring.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO = path.join(__dirname, '..', '..');

/** The pass line of a key's check, as Terraform prints it (the gRPC part only when checked). */
export const OK_LINE = (label: string) => new RegExp(`ok +${label} +qdrant \\S+ +key accepted, keys enforced[^\\n]* \\d+ ms`);

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

export interface RunOptions {
  readonly cwd: string;
  readonly env?: Record<string, string | undefined>;
  readonly replaceEnv?: boolean;
  readonly timeoutMs?: number;
}

/**
 * Runs a command without blocking the event loop (the stand-in clusters live in this process, and
 * the command may be talking to them). `env` replaces the environment when `replaceEnv` is set,
 * else adds to it; undefined values are removed.
 */
export function run(cmd: string, args: string[], opts: RunOptions): Promise<Run> {
  const merged: Record<string, string | undefined> = { ...(opts.replaceEnv ? {} : process.env), ...opts.env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: merged as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'], timeout: opts.timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : -1), stdout, stderr, ms: Date.now() - started }));
  });
}

/** Throws with the command's output when it failed. */
export function expectOk(r: Run, what: string): Run {
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** The last line a setup script printed on stdout (its result), with its progress on stderr kept out of jest's output. */
export function scriptResult(script: string, args: string[] = []): string {
  const out = execFileSync('bash', [path.join(REPO, 'scripts', script), ...args], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return out.trim().split('\n').pop() ?? '';
}

let packaged = false;

function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((d) => fs.existsSync(path.join(d, name)));
}

/**
 * The artifacts that ship, as `npx projen package` builds them (compiling first when needed;
 * make-like, so it costs ~3 s when they are current, as in `projen build`, which packages
 * before it tests). Returns the npm tarball and the wheel.
 */
export function packages(): { tarball: string; wheel: string } {
  if (!packaged) {
    // One packaging at a time (test files in parallel workers, or a build next to a test run).
    const lock = path.join(REPO, 'node_modules', '.cache', 'qca-package.lock');
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    const [cmd, ...args] = [...(onPath('flock') ? ['flock', lock] : []), 'npx', 'projen', 'package'];
    try {
      execFileSync(cmd, args, { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string };
      throw new Error(`npx projen package failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
    }
    packaged = true;
  }
  const one = (dir: string, ext: string) => {
    const files = fs.readdirSync(path.join(REPO, dir)).filter((f) => f.endsWith(ext));
    if (files.length !== 1) throw new Error(`expected one ${ext} in ${dir}, found ${files.join(', ') || 'none'}`);
    return path.join(REPO, dir, files[0]);
  };
  return { tarball: one('dist/js', '.tgz'), wheel: one('dist/python', '.whl') };
}

/** Every text and file that must never hold a key. */
export function expectNoCanary(canaries: string[], texts: string[], files: string[]): void {
  const contents = files.filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f, 'utf8'));
  expect(contents.length).toBeGreaterThan(0);
  for (const canary of canaries) {
    for (const text of [...texts, ...contents]) expect(text.includes(canary)).toBe(false);
  }
}

/** What a TypeScript user installs next to the library (cdktf's own `cdktf init` template pins alike). */
export const CLI_APP_DEPS = ['cdktf@^0.21.0', 'cdktf-cli@^0.21.0', 'constructs@^10.4.2', 'ts-node@^10.9.2', 'typescript@~5.9.0', '@types/node@^20'];

/**
 * A directory outside the repository where `npm install <tarball> cdktf cdktf-cli constructs
 * ts-node typescript @types/node` was run, as a user does. The heavy part (cdktf-cli: ~450
 * packages, ~420 MB) is kept between runs in <cache>/cdktf-cli-app/<hash of the dependency list
 * and the Node version>; the library's tarball is installed into it on every run (copied under
 * a name with its hash, so that npm never reuses an older one). Returns that directory.
 */
export function cdktfCliApp(tarball: string): { dir: string; installMs: number } {
  const cacheRoot = process.env.CDKTF_QDRANT_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'cdktf-qdrant-cluster-access');
  const key = createHash('sha256').update(JSON.stringify([CLI_APP_DEPS, process.version])).digest('hex').slice(0, 16);
  const dir = path.join(cacheRoot, 'cdktf-cli-app', key);
  fs.mkdirSync(dir, { recursive: true });
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'qdrant-cdktf-app', version: '1.0.0', private: true }, null, 2));
  }
  const sha = createHash('sha256').update(fs.readFileSync(tarball)).digest('hex').slice(0, 16);
  for (const old of fs.readdirSync(dir).filter((f) => f.endsWith('.tgz'))) fs.rmSync(path.join(dir, old));
  const local = `cdktf-qdrant-cluster-access-${sha}.tgz`;
  fs.copyFileSync(tarball, path.join(dir, local));
  const started = Date.now();
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `./${local}`, ...CLI_APP_DEPS],
      { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    throw new Error(`npm install in ${dir} failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
  }
  return { dir, installMs: Date.now() - started };
}
