/**
 * Class B of the writer's security review: the writer survives being killed at any moment.
 *
 * The real CLI writes into a large file (so that a write takes measurable time) and is killed
 * with SIGKILL or SIGTERM after a random delay spread over a whole run. After every kill:
 *   - the target holds exactly its old or its new content, never a mix;
 *   - no other file in the directory (temp copy, lock, sidecar) is readable by group or
 *     others, although the target itself is 0644: a temp copy is 0600 until after the rename;
 *   - a SIGTERM that the writer handled (exit 143) left no temp and no lock behind;
 *   - the next normal run succeeds without waiting for a dead writer's lock (its lock
 *     timeout is set far below the 30 s stale bound) and leaves no temp or lock file.
 * Then the lock rules through the CLI (a foreign lock is never deleted; a dead holder's lock is
 * broken at once; SIGTERM/SIGINT while waiting), and the verified open (a symbolic link, another
 * file or a FIFO swapped in between the check and the open is refused).
 * The random delays come from a seeded generator (seed printed on failure); nothing asserts
 * how long anything took.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as dotenvW from '../../assets/writer/dotenv';
import * as jsonW from '../../assets/writer/json';
import { HOST } from '../../assets/writer/lock';
import { readVerified } from '../../assets/writer/target';
import { runNode } from '../../tools/testing/run-node';
import { CLI, CliRun, leftovers, runCli, tempDir } from '../writer/run-cli';

jest.setTimeout(300_000);

const CANARY = ['canary-secret-kill-a-3f09c1', 'canary-secret-kill-b-8e27d4'];
const VALUES = CANARY.map((key, i) => ({ QDRANT_KILL_URL: `https://v${i}:6333`, QDRANT_KILL_API_KEY: key }));
const OWNER = 'kill/test';
const outputs: string[] = [];
const SEED = Number(process.env.QCA_KILL_SEED ?? Date.now() % 2 ** 31);

afterAll(() => {
  for (const o of outputs) for (const c of CANARY) expect(o).not.toContain(c);
});

/** Park-Miller minimal standard generator: seeded, so a failing sequence of delays can be replayed. */
function prng(seed: number): () => number {
  let a = (seed % 2147483646) + 1;
  return () => {
    a = (a * 48271) % 2147483647;
    return (a - 1) / 2147483646;
  };
}

/** About 3 MB of the app's own lines: a write then takes a good share of a run. */
function bigDotenv(): string {
  const lines = ['# a large app file'];
  for (let i = 0; lines.length < 33_000; i++) lines.push(`F_${String(i).padStart(6, '0')}='${'x'.repeat(80)}'`);
  return lines.join('\n') + '\n';
}
function bigJson(): string {
  const lines: string[] = [];
  for (let i = 0; i < 33_000; i++) lines.push(`  "f_${i}": "${'x'.repeat(80)}"`);
  return `{\n${lines.join(',\n')}\n}\n`;
}

/** What happened over the runs: outcomes, exit codes, what the kills left for the next run. */
interface Stats {
  runs: number;
  old: number;
  new: number;
  exit0: number;
  exit143: number;
  bySignal: number;
  leftTemps: number;
  leftLocks: number;
  modeAfterRename: number;
  ms: number[];
}

async function killLoop(format: 'dotenv' | 'json', runs: number) {
  const tmp = tempDir(`qca-kill-${format}-`);
  const rand = prng(SEED + (format === 'json' ? 1 : 0));
  const stats: Stats = { runs, old: 0, new: 0, exit0: 0, exit143: 0, bySignal: 0, leftTemps: 0, leftLocks: 0, modeAfterRename: 0, ms: [] };
  try {
    const dir = tmp.path;
    const f = path.join(dir, format === 'json' ? 'keys.json' : '.env');
    const side = jsonW.sidecarPath(f);
    fs.writeFileSync(f, format === 'json' ? bigJson() : bigDotenv());
    fs.chmodSync(f, 0o644); // readable by others: a temp copy must still never be
    const args = ['write', '--file', f, '--format', format, '--owner', OWNER];
    const sideText = () => (fs.existsSync(side) ? fs.readFileSync(side, 'utf8') : null);
    const plan = (text: string, entries: Record<string, string>): string => (format === 'json'
      ? jsonW.planMerge(text, jsonW.parseSidecar(sideText(), side), entries, { owner: OWNER }).text ?? text
      : dotenvW.planMerge(text, entries, { owner: OWNER }).text ?? text);

    // Calibrate: how long does one uninterrupted write take here?
    let current = 0;
    for (const i of [0, 1, 0]) {
      const t0 = Date.now();
      const r = await runCli(args, VALUES[i], {}, outputs);
      stats.ms.push(Date.now() - t0);
      expect([r.code, r.stdout]).toEqual([0, expect.stringMatching(/^wrote 2 entries/)]);
      current = i;
    }
    const span = Math.max(...stats.ms) * 1.2;

    for (let run = 0; run < runs; run++) {
      const signal: NodeJS.Signals = run % 2 === 0 ? 'SIGKILL' : 'SIGTERM';
      const next = 1 - current;
      const before = fs.readFileSync(f, 'utf8');
      const after = plan(before, VALUES[next]);
      expect(after).not.toBe(before);
      const delay = Math.floor(rand() * span);
      const ctx = `seed ${SEED}, ${format} run ${run}, ${signal} after ${delay} ms`;

      const r: CliRun = await runCli(args, VALUES[next], { killAfterMs: delay, signal }, outputs);
      const now = fs.readFileSync(f, 'utf8');
      expect([ctx, now === before || now === after]).toEqual([ctx, true]);
      if (now === before) {
        stats.old++;
      } else {
        stats.new++;
      }
      if (r.code === 0) {
        stats.exit0++;
      } else if (r.code === 143) {
        stats.exit143++;
      } else {
        expect([ctx, r.code, r.signal]).toEqual([ctx, null, signal]);
        stats.bySignal++;
      }
      if (r.code === 143) {
        const stopped = 'qdrant-cluster-access-writer: error: stopped by SIGTERM; the file keeps its previous or its new content, never a mix; run the command again\n';
        expect([ctx, r.stderr]).toEqual([ctx, expect.stringContaining(stopped)]);
        expect([ctx, leftovers(dir)]).toEqual([ctx, []]); // the handler removed our temp file and lock
      }
      for (const name of fs.readdirSync(dir)) {
        const p = path.join(dir, name);
        if (p === f) continue;
        if (name.endsWith('.tmp')) {
          stats.leftTemps++;
        } else if (name.endsWith('.lock')) {
          stats.leftLocks++;
        }
        expect([ctx, name, (fs.lstatSync(p).mode % 0o100).toString(8)]).toEqual([ctx, name, '0']);
      }
      const mode = fs.statSync(f).mode % 0o1000;
      expect([ctx, [0o644, 0o600].includes(mode)]).toEqual([ctx, true]);

      // The next normal run: no waiting for a dead writer (lock timeout far below the 30 s stale
      // bound), nothing left behind, the new content.
      const follow = await runCli(args, VALUES[next], { env: { QCA_LOCK_TIMEOUT_MS: '5000' } }, outputs);
      expect([ctx, follow.code, follow.stderr.split('\n').filter((l) => l && !l.startsWith('warning: '))]).toEqual([ctx, 0, []]);
      expect([ctx, leftovers(dir)]).toEqual([ctx, []]);
      expect([ctx, fs.readFileSync(f, 'utf8') === after]).toEqual([ctx, true]);
      if (format === 'json') expect(JSON.parse(sideText()!).owners[OWNER]).toEqual(Object.keys(VALUES[0]));
      if (mode === 0o600) {
        stats.modeAfterRename++; // killed between the rename and the fchmod: put the mode back for the next round
        fs.chmodSync(f, 0o644);
      }
      current = next;
    }
    return stats;
  } finally {
    tmp.remove();
  }
}

describe('killed at random moments', () => {
  test('.env: 40 runs killed with SIGKILL or SIGTERM: old or new content, nothing readable left, the next run succeeds', async () => {
    const stats = await killLoop('dotenv', 40);
    expect(stats.old + stats.new).toBe(40);
    // The delays really hit running writers: some were killed holding the lock, or stopped by
    // a handled SIGTERM (with ~20 SIGKILLs spread over the run, missing them all is ~1e-7).
    expect(stats.leftLocks + stats.exit143).toBeGreaterThan(0);
    // eslint-disable-next-line no-console
    console.info(`writer-kill .env (seed ${SEED}): ${JSON.stringify(stats)}`);
  });

  test('JSON with its sidecar: 20 runs killed with SIGKILL or SIGTERM', async () => {
    const stats = await killLoop('json', 20);
    expect(stats.old + stats.new).toBe(20);
    // eslint-disable-next-line no-console
    console.info(`writer-kill JSON (seed ${SEED}): ${JSON.stringify(stats)}`);
  });
});

describe('the lock, through the CLI', () => {
  let tmp: ReturnType<typeof tempDir>;
  let f: string;
  beforeEach(() => {
    tmp = tempDir('qca-kill-lock-');
    f = path.join(tmp.path, '.env');
    fs.writeFileSync(f, 'A=1\n', { mode: 0o600 });
  });
  afterEach(() => tmp.remove());
  const args = () => ['write', '--file', f, '--owner', OWNER];

  test('a lock file not made by this writer is never deleted: the run fails naming it', async () => {
    fs.writeFileSync(`${f}.lock`, '12345\n');
    const old = (Date.now() - 3600_000) / 1000;
    fs.utimesSync(`${f}.lock`, old, old); // an hour old: still not ours to judge
    const r = await runCli(args(), VALUES[0], { env: { QCA_LOCK_TIMEOUT_MS: '300' } }, outputs);
    expect(r).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `qdrant-cluster-access-writer: error: timed out after 0.3 s waiting for the lock file ${f}.lock: it was not made by this writer; delete it if no other tool uses it\n`,
    });
    expect(fs.readFileSync(`${f}.lock`, 'utf8')).toBe('12345\n');
    expect(fs.readFileSync(f, 'utf8')).toBe('A=1\n');
  });

  test('a lock whose holder is dead is broken at once (a lock timeout of 1 ms is enough)', async () => {
    const dead = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid!;
    fs.writeFileSync(`${f}.lock`, `qdrant-cluster-access-writer pid=${dead} host=${HOST} started=${Date.now()} token=00112233445566778899aabb\n`);
    const r = await runCli(args(), VALUES[0], { env: { QCA_LOCK_TIMEOUT_MS: '1' } }, outputs);
    expect(r).toMatchObject({
      code: 0,
      stdout: `wrote 2 entries to ${f} (0 updated, 2 added)\n`,
      stderr: `warning: removed lock file ${f}.lock left by writer pid ${dead}, which is no longer running\n`,
    });
    expect(leftovers(tmp.path)).toEqual([]);
  });

  /**
   * Resolves when the writer tries to take the lock: the temp file it links to `<file>.lock`
   * appears next to it (tryCreateLock in assets/writer/lock.js). By then its signal handlers are set
   * and, with the lock held, it is waiting.
   */
  function lockAttempt(): { seen: Promise<void>; close(): void } {
    const prefix = `.${path.basename(f)}.lock.qca-`;
    let watcher: fs.FSWatcher | undefined;
    const seen = new Promise<void>((resolve) => {
      watcher = fs.watch(tmp.path, (_event, name) => {
        if (name?.startsWith(prefix)) resolve();
      });
    });
    return { seen, close: () => watcher?.close() };
  }

  test.each([['SIGTERM', 143], ['SIGINT', 130]] as const)('%s while waiting for a live holder: exits %d, takes nothing, leaves the holder\'s lock', async (signal, code) => {
    const held = `qdrant-cluster-access-writer pid=${process.pid} host=${HOST} started=${Date.now()} token=00112233445566778899aabb\n`;
    fs.writeFileSync(`${f}.lock`, held);
    // As runCli, but the signal goes out once the writer is waiting for the lock, not after a guessed delay.
    const env: NodeJS.ProcessEnv = { ...process.env, QCA_LOCK_TIMEOUT_MS: '60000', QCA_ENTRIES: JSON.stringify(VALUES[0]) };
    delete env.QCA_ENTRIES_FROM_ENV;
    const attempt = lockAttempt();
    let r: CliRun;
    try {
      r = await runNode([CLI, ...args()], { env, signalWhen: attempt.seen, signal, outputs });
    } finally {
      attempt.close();
    }
    expect(r).toMatchObject({
      code,
      stdout: '',
      stderr: `qdrant-cluster-access-writer: error: stopped by ${signal}; the file keeps its previous or its new content, never a mix; run the command again\n`,
    });
    expect(fs.readFileSync(`${f}.lock`, 'utf8')).toBe(held);
    expect(fs.readdirSync(tmp.path).sort()).toEqual(['.env', '.env.lock']);
    expect(fs.readFileSync(f, 'utf8')).toBe('A=1\n');
  });
});

describe('the verified open: what is read is what was checked', () => {
  let tmp: ReturnType<typeof tempDir>;
  let f: string;
  beforeEach(() => {
    tmp = tempDir('qca-kill-open-');
    f = path.join(tmp.path, '.env');
    fs.writeFileSync(f, 'A=1\n');
  });
  afterEach(() => tmp.remove());
  const message = (fn: () => unknown): string => {
    try {
      fn();
      return 'no error';
    } catch (e: any) {
      return e.message;
    }
  };

  test('a symbolic link swapped in between the check and the open is refused, not followed', () => {
    const checked = fs.lstatSync(f);
    const elsewhere = path.join(tmp.path, 'other-secrets');
    fs.writeFileSync(elsewhere, 'OTHER=1\n');
    fs.unlinkSync(f);
    fs.symlinkSync(elsewhere, f);
    expect(message(() => readVerified(f, checked))).toBe(`refusing to write ${f}: it is a symbolic link; point the path at the real file instead`);
  });

  test('another file swapped in is refused (dev/ino differ from the check)', () => {
    const checked = fs.lstatSync(f);
    fs.writeFileSync(`${f}.new`, 'A=2\n');
    fs.renameSync(`${f}.new`, f);
    expect(message(() => readVerified(f, checked)))
      .toBe(`refusing to change ${f}: it was replaced by another file while being opened (a symbolic link or a copy was swapped in); run again, and check what else writes it`);
  });

  test('a FIFO swapped in is refused without blocking (nothing ever writes to it)', () => {
    const checked = fs.lstatSync(f);
    fs.unlinkSync(f);
    expect(spawnSync('mkfifo', [f]).status).toBe(0);
    expect(message(() => readVerified(f, checked))).toBe(`cannot write ${f}: it is not a regular file; give the path of a regular file`);
  });
});
