/**
 * Class 5, with real Terraform: a writer killed in the middle of `terraform apply` (SIGKILL, as
 * the OOM killer or a CI runner's timeout would) fails that apply, leaves the app's `.env`
 * with exactly its old or its new content, and the next apply recovers by itself: it breaks the
 * dead writer's lock at once (no wait for the stale bound), deletes the dead writer's temp file,
 * writes the new key and keeps every line of the app.
 *
 * The kill is real: while the rotation's apply runs, the test polls the writer's lock file
 * (`<file>.lock`, written by assets/writer/lock.js), reads the writer's pid from it, makes sure
 * that process descends from the terraform it started, and sends SIGKILL to it. The app's
 * `.env` is large (about 3 MB of its own lines) so that the writer holds the lock for a while;
 * a kill that comes too late (the lock already gone) is retried with the next key.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { TerraformStack } from 'cdktf';
import { ClusterAccess, SecretTarget } from '../../src';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { initAndApply, synthStack, tempDir, terraform } from '../../tools/testing/terraform';

jest.setTimeout(300_000);

const KEYS = Array.from({ length: 8 }, (_, i) => canaryKey(`canary-recovery-${i}`));
const APP_LINES = ['# the app', ...Array.from({ length: 33_000 }, (_, i) => `APP_${i}='${'x'.repeat(80)}'`)];
const APP_ENV = APP_LINES.join('\n') + '\n';

let cluster: StandInQdrant;
beforeAll(async () => {
  cluster = await StandInQdrant.start({ apiKey: KEYS[0], moreApiKeys: KEYS.slice(1) });
});
afterAll(async () => {
  await cluster?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The parent of `pid` (from /proc where there is one, else ps), or undefined when it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); // "pid (comm) state ppid ...", comm may hold spaces
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    if (fs.existsSync('/proc/self/stat')) return undefined; // /proc is there: the process is gone
  }
  try {
    return Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()) || undefined;
  } catch {
    return undefined;
  }
}

/** True when `pid` is a descendant of `ancestor` (the writer runs under terraform's shell). */
function descendsFrom(pid: number, ancestor: number): boolean {
  for (let p: number | undefined = parentOf(pid), hops = 0; p !== undefined && p > 1 && hops < 16; p = parentOf(p), hops++) {
    if (p === ancestor) return true;
  }
  return false;
}

/**
 * Polls for the writer's lock, reads its pid and, once that pid is a process under `terraformPid()`,
 * kills it; resolves with the pid, or null when `done` came first. Each poll awaits, so the run's
 * pipes keep flowing; a lock not (yet) fully written or not of our run is polled again.
 */
async function killWriterOnLock(lockFile: string, done: () => boolean, terraformPid: () => number | undefined): Promise<number | null> {
  for (; !done(); await sleep(2)) {
    let text: string;
    try {
      text = fs.readFileSync(lockFile, 'utf8');
    } catch {
      continue;
    }
    const pid = Number(/^qdrant-cluster-access-writer pid=(\d+) /.exec(text)?.[1]);
    const tf = terraformPid();
    if (!pid || tf === undefined || !descendsFrom(pid, tf)) continue;
    try {
      process.kill(pid, 'SIGKILL');
      return pid;
    } catch {
      return null; // it ended between the read and the kill
    }
  }
  return null;
}

/** The lines of `text` that are not ours (the writer's block is marked; see assets/writer/dotenv.js). */
function appLines(text: string): string[] {
  return text.split('\n').filter((l) => l.startsWith('APP_') || l === '# the app');
}

test('a writer killed during apply leaves the old or the new .env; the next apply breaks its lock, removes its temp file and writes', async () => {
  const base = tempDir('qca-e2e-recovery-');
  try {
    const envFile = path.join(base, '.env');
    fs.writeFileSync(envFile, APP_ENV, { mode: 0o600 });
    const dir = synthStack(base, 'recovery', (app, id) => {
      const stack = new TerraformStack(app, id);
      new ClusterAccess(stack, 'Qdrant', {
        clusters: [{ name: 'prod-eu', url: cluster.url }],
        apiKeys: [{ name: 'app', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: envFile })] }],
        healthCheck: { caFile: cluster.caFile, retries: 0, grpc: false },
      });
      return stack;
    });
    const runs: string[] = [];
    const first = await initAndApply(dir, { TF_VAR_qdrant_api_key_app: KEYS[0] });
    runs.push(first.stdout, first.stderr);
    expect(first.exitCode).toBe(0);

    // Rotate until a kill lands while the writer holds its lock.
    let killed: number | null = null;
    let current = KEYS[0];
    let k = 1;
    for (; k < KEYS.length && killed === null; k++) {
      const before = fs.readFileSync(envFile, 'utf8');
      let finished = false;
      let tfPid: number | undefined;
      const apply = terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_app: KEYS[k] }, undefined,
        { onSpawn: (pid) => { tfPid = pid; } })
        .finally(() => { finished = true; });
      killed = await killWriterOnLock(`${envFile}.lock`, () => finished, () => tfPid);
      const run = await apply;
      runs.push(run.stdout, run.stderr);
      const after = fs.readFileSync(envFile, 'utf8');
      if (killed === null) {
        expect(run.exitCode).toBe(0);
        current = KEYS[k];
        expect(after).toContain(`QDRANT_API_KEY='${current}'`);
        continue;
      }
      // The killed apply failed; the .env is exactly the old or exactly the new file.
      expect(run.exitCode).not.toBe(0);
      expect(run.stderr.replace(/\s+/g, ' ')).toMatch(/local-exec provisioner error|Error running command/);
      if (after !== before) {
        expect(after).toContain(`QDRANT_API_KEY='${KEYS[k]}'`);
        expect(after.replace(`'${KEYS[k]}'`, `'${current}'`)).toBe(before);
      }
    }
    if (killed === null) throw new Error(`no kill landed while the writer held its lock in ${KEYS.length - 1} rotations`);

    // What the dead writer left: its lock (pid of a dead process) and maybe a temp file, both ours.
    await sleep(50);
    const left = fs.readdirSync(base).filter((n) => n !== 'manifest.json' && n !== 'stacks').sort();
    expect(left).toContain('.env.lock');
    expect(left.filter((n) => n !== '.env' && n !== '.env.lock').every((n) => /^\.\.env\.qca-[0-9a-f]{8}-\d+-[0-9a-f]{12}\.tmp$/.test(n))).toBe(true);
    for (const n of left.filter((x) => x !== '.env')) expect((fs.statSync(path.join(base, n)).mode % 0o1000).toString(8)).toBe('600');

    // The next apply, with the key of the killed run, recovers without waiting for the stale bound.
    const next = await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_app: KEYS[k - 1] });
    runs.push(next.stdout, next.stderr);
    expect(next.exitCode).toBe(0);
    expect((next.stdout + next.stderr).replace(/\s+/g, ' ')).toContain(`warning: removed lock file ${envFile}.lock left by writer pid ${killed}, which is no longer running`);
    const text = fs.readFileSync(envFile, 'utf8');
    expect(text).toContain(`QDRANT_API_KEY='${KEYS[k - 1]}'`);
    expect(appLines(text)).toEqual(APP_LINES);
    expect(fs.readdirSync(base).sort()).toEqual(['.env', 'manifest.json', 'stacks']);

    // Destroy gives the app its file back, byte for byte.
    const destroy = await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], { TF_VAR_qdrant_api_key_app: KEYS[k - 1] });
    runs.push(destroy.stdout, destroy.stderr);
    expect(destroy.exitCode).toBe(0);
    expect(fs.readFileSync(envFile, 'utf8')).toBe(APP_ENV);
    for (const t of runs) for (const key of KEYS) expect(t).not.toContain(key);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});
