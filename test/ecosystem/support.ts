/**
 * Shared by the ecosystem tests: the library used the way its users use it (the npm tarball in a
 * cdktf CLI app, the wheel in a Python app, OpenTofu), outside the repository's own wiring.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cacheRoot, cachedDir } from '../../tools/testing/cache';
import { blocksUnder } from '../support/docs';

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

export interface ReadmeApp {
  /** The app the install lines made: its package.json, cdktf.json, tsconfig.json and node_modules. */
  readonly dir: string;
  /** Milliseconds the install took on this run (0: cached). */
  readonly installMs: number;
  /** What the install lines printed (kept from when they ran). */
  readonly log: string;
}

/**
 * The app that README.md's install lines make, run exactly as printed (`bash -e`, the fenced block
 * under "Install" that starts the app) in a directory outside the repository, beside a
 * `cdktf-qdrant-cluster-access/dist/js/` that holds the tarball under the name `npx projen
 * package:js` gives it, as after the README's build lines. The npm cache serves what it holds. The
 * app is kept in <cache>/readme-app/<hash of the lines, the tarball and the Node version>: new
 * lines, a new tarball or another Node install it again, and the older app is removed.
 */
export function readmeApp(tarball: string): ReadmeApp {
  const lines = readmeInstallLines();
  const bytes = fs.readFileSync(tarball);
  const key = createHash('sha256').update(JSON.stringify([lines, createHash('sha256').update(bytes).digest('hex'), process.version])).digest('hex').slice(0, 16);
  const { dir, ms } = cachedDir(path.join(cacheRoot(), 'readme-app'), key, (tmp) => {
    const dist = path.join(tmp, 'cdktf-qdrant-cluster-access', 'dist', 'js');
    fs.mkdirSync(dist, { recursive: true });
    fs.writeFileSync(path.join(dist, path.basename(tarball)), bytes);
    const r = spawnSync('bash', ['-e', '-c', lines], {
      cwd: tmp, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    const log = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    if (r.status !== 0) throw new Error(`README.md's install lines failed (exit ${r.status}) in ${tmp}:\n${lines}\n${log}`);
    fs.writeFileSync(path.join(tmp, 'install.log'), log);
  });
  const apps = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'cdktf-qdrant-cluster-access');
  if (apps.length !== 1) throw new Error(`README.md's install lines made ${apps.length} directories in ${dir}, expected one app`);
  return { dir: path.join(dir, apps[0].name), installMs: ms, log: fs.readFileSync(path.join(dir, 'install.log'), 'utf8') };
}

/** The README's install lines: the shell block under "Install" that makes the app. */
export function readmeInstallLines(): string {
  const [app] = blocksUnder('README.md', 'Install', 'sh').filter((b) => /^npm install /m.test(b.text));
  if (!app) throw new Error('README.md has no shell block under "Install" with an npm install line');
  return app.text;
}
