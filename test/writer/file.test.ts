/**
 * assets/writer/file.js and lock.js, in process: atomic replace, modes/owner, the sidecar, the
 * lock file (format, dead and stale holders, foreign locks, a lost lock), dead writers' temp
 * files, the verified read, and every refusal (message text asserted, file unchanged, nothing
 * left behind).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { planMerge, planRemove } = require('../../assets/writer/dotenv.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { updateFile, DELETE } = require('../../assets/writer/file.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { HOST, HOST_TAG } = require('../../assets/writer/lock.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { readVerified } = require('../../assets/writer/target.js');

// The new text of a merge or a removal (dotenv.ts planMerge, planRemove).
const mergeEntries = (t: string | null, e: Record<string, string>, o: { owner: string }) => planMerge(t, e, o).text;
const removeEntries = (t: string | null, n: string[], o: { owner: string }) => planRemove(t, n, o).text;

const SECRET = 'canary-secret-file-2b7e';
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

let dir: string;
let warnings: string[];
const opts = () => ({ warn: (m: string) => warnings.push(m), lockTimeoutMs: 300 });
const mergeT = (t: string | null) => mergeEntries(t, { QDRANT_API_KEY: SECRET }, { owner: 't' });

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-file-'));
  warnings = [];
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Directory listing: no temp or lock files may remain. */
const listing = () => fs.readdirSync(dir).sort();
const mode = (p: string) => fs.statSync(p).mode % 0o1000;

async function expectRefused(file: string, message: string, transform = mergeT, extra: Record<string, unknown> = {}) {
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  const before = st && st.isFile() ? fs.readFileSync(file) : null;
  const names = listing();
  let err: any;
  try {
    await updateFile(file, transform, { ...opts(), ...extra });
  } catch (e) {
    err = e;
  }
  expect(err).toBeDefined();
  expect(err.message).toBe(message);
  expect(err.message).not.toContain(SECRET);
  expect(err.message).not.toContain('\n');
  if (before) expect(fs.readFileSync(file).equals(before)).toBe(true);
  expect(listing()).toEqual(names);
}

/** The pid of a process that has exited (so process.kill(pid, 0) fails with ESRCH). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return r.pid!;
}
const lockLine = (pid: number, host = HOST, started = Date.now()) =>
  `qdrant-cluster-access-writer pid=${pid} host=${host} started=${started} token=0123456789abcdef0123\n`;
const age = (p: string, seconds: number) => {
  const t = (Date.now() - seconds * 1000) / 1000;
  fs.utimesSync(p, t, t);
};

test('creates a new file with mode 0600 and leaves no temp or lock file', async () => {
  const f = path.join(dir, '.env');
  const r = await updateFile(f, mergeT, opts());
  expect(r).toEqual({ existed: false, changed: true, deleted: false });
  expect(fs.readFileSync(f, 'utf8')).toContain(`QDRANT_API_KEY='${SECRET}'`);
  expect(mode(f)).toBe(0o600);
  expect(listing()).toEqual(['.env']);
  expect(warnings).toEqual([]);
});

test('keeps the mode of an existing file and does not rewrite an unchanged one', async () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  fs.chmodSync(f, 0o640);
  await updateFile(f, mergeT, opts());
  expect(mode(f)).toBe(0o640);
  const ino = fs.statSync(f).ino;
  expect(await updateFile(f, mergeT, opts())).toEqual({ existed: true, changed: false, deleted: false });
  expect(fs.statSync(f).ino).toBe(ino);
});

test('the temp file is 0600 from its creation until after the rename, even for a world-readable target', async () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  fs.chmodSync(f, 0o644);
  const seen: Array<{ name: string; mode: number; lock: string }> = [];
  const testHooks = {
    beforeRename: (tmp: string) => seen.push({
      name: path.basename(tmp), mode: mode(tmp), lock: fs.readFileSync(`${f}.lock`, 'utf8'),
    }),
  };
  await updateFile(f, mergeT, { ...opts(), testHooks });
  expect(seen).toHaveLength(1);
  expect(seen[0].mode).toBe(0o600);
  expect(seen[0].name).toMatch(new RegExp(`^\\.\\.env\\.qca-${HOST_TAG}-${process.pid}-[0-9a-f]{12}\\.tmp$`));
  // The lock names this writer: pid, host, start time and a random token.
  expect(seen[0].lock).toMatch(new RegExp(`^qdrant-cluster-access-writer pid=${process.pid} host=${HOST.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} started=\\d+ token=[0-9a-f]{24}\\n$`));
  expect(mode(f)).toBe(0o644);
  expect(listing()).toEqual(['.env']);
});

test('warns (without values) about a world-readable file', async () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  fs.chmodSync(f, 0o644);
  await updateFile(f, mergeT, opts());
  expect(mode(f)).toBe(0o644);
  expect(warnings).toEqual([`warning: ${f} is readable by all users (mode 0644) and holds API keys; consider chmod 600 ${f}`]);
});

test('no such warning when removing our entries: the file is left without our keys', async () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  fs.chmodSync(f, 0o644);
  await updateFile(f, mergeT, opts());
  warnings.length = 0;
  await updateFile(f, (t: string | null) => removeEntries(t, ['QDRANT_API_KEY'], { owner: 't' }), { ...opts(), removing: true });
  expect(fs.readFileSync(f, 'utf8')).toBe('A=1\n');
  expect(warnings).toEqual([]);
});

(isRoot ? test : test.skip)('as root, keeps the owner of an existing file', async () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  fs.chownSync(f, 4321, 4322);
  await updateFile(f, mergeT, opts());
  const st = fs.statSync(f);
  expect([st.uid, st.gid]).toEqual([4321, 4322]);
});

test('transform returning null leaves a missing file missing', async () => {
  const f = path.join(dir, '.env');
  expect(await updateFile(f, () => null, opts())).toEqual({ existed: false, changed: false, deleted: false });
  expect(listing()).toEqual([]);
});

test('transform returning DELETE removes the file (and a missing file stays missing)', async () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  expect(await updateFile(f, () => DELETE, opts())).toEqual({ existed: true, changed: true, deleted: true });
  expect(listing()).toEqual([]);
  expect(await updateFile(f, () => DELETE, opts())).toEqual({ existed: false, changed: false, deleted: false });
});

test('a sidecar is written 0600 in the order the transform asks, under the same lock', async () => {
  const f = path.join(dir, 'keys.json');
  const side = path.join(dir, '.keys.json.side');
  fs.writeFileSync(f, '{}\n');
  fs.chmodSync(f, 0o644);
  const order: string[] = [];
  const testHooks = { beforeRename: () => order.push(fs.existsSync(side) ? 'sidecar exists' : 'sidecar missing') };
  await updateFile(f, (t: string, s: string | null) => ({ text: t + ' ', sidecar: (s ?? '') + 'x', sidecarFirst: true }), { ...opts(), sidecar: side, testHooks });
  expect(order).toEqual(['sidecar exists']);
  expect(mode(side)).toBe(0o600);
  expect(fs.readFileSync(side, 'utf8')).toBe('x');
  await updateFile(f, () => ({ text: '{}\n', sidecar: DELETE, sidecarFirst: false }), { ...opts(), sidecar: side });
  expect(listing()).toEqual(['keys.json']);
});

test.each([
  ['an earlier sidecar', 'before'],
  ['no sidecar before', null],
])('the target failing after the sidecar was written first puts the sidecar back (%s)', async (_, before) => {
  const f = path.join(dir, 'keys.json');
  const side = path.join(dir, '.keys.json.side');
  fs.writeFileSync(f, '{}\n');
  if (before !== null) fs.writeFileSync(side, before, { mode: 0o600 });
  const renames: string[] = [];
  const testHooks = { beforeRename: (tmp: string) => { renames.push(tmp); throw Object.assign(new Error('disk full'), { code: 'ENOSPC' }); } };
  await expect(updateFile(f, () => ({ text: '{"A": "1"}\n', sidecar: 'records A', sidecarFirst: true }), { ...opts(), sidecar: side, testHooks }))
    .rejects.toThrow(`cannot write ${f}: ENOSPC; check the directory's permissions and free space`);
  // The hook ran once, for the target (the sidecar passes no hooks), after the sidecar was written.
  expect(renames).toHaveLength(1);
  expect(path.basename(renames[0])).toMatch(/^\.keys\.json\.qca-/);
  expect(fs.readFileSync(f, 'utf8')).toBe('{}\n');
  expect(fs.existsSync(side) ? fs.readFileSync(side, 'utf8') : null).toBe(before);
  expect(listing().filter((n) => n.includes('lock') || n.endsWith('.tmp'))).toEqual([]);
});

test('a failing transform leaves the file unchanged and removes the lock', async () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  await expectRefused(f, `refusing to change ${f}: boom; the file was not changed`, () => {
    throw new Error('boom');
  });
});

test('refuses a file that is not valid dotenv, naming the line', async () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, `A=1\nB="${SECRET}\n`);
  await expectRefused(f, `refusing to change ${f}: line 2: unterminated double-quoted value (the closing " is missing); the file was not changed`);
});

test('refuses a file that is not UTF-8', async () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, Buffer.from([0x41, 0x3d, 0xff, 0x0a]));
  await expectRefused(f, `refusing to change ${f}: it is not valid UTF-8 text; the file was not changed`);
});

test('refuses a file larger than the bound', async () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=' + 'x'.repeat(2 * 1024 * 1024) + '\n');
  await expectRefused(f, `refusing to change ${f}: it is 2 MiB, larger than the 1 MiB a file of keys can need; check the path`, mergeT, { maxBytes: 1024 * 1024 });
});

test('refuses a missing parent directory', async () => {
  const f = path.join(dir, 'nope', '.env');
  await expectRefused(f, `cannot write ${f}: directory ${path.join(dir, 'nope')} does not exist; create it first or fix the path`);
});

describe('a file whose directory does not exist (a destroy for a path on another machine or checkout)', () => {
  const missing = () => path.join(dir, 'gone', 'deeper');
  const sidecarWrites = [
    () => ({ text: null, sidecar: 'records A', sidecarFirst: true }),
    () => ({ text: null, sidecar: null, sidecarAfter: 'records', sidecarFirst: false }),
  ];
  test.each([
    ['returning null', () => null, false],
    ['returning DELETE', () => DELETE, false],
    ['with a sidecar, leaving both missing', () => ({ text: null, sidecar: null, sidecarFirst: false }), true],
    ['with a sidecar, deleting both', () => ({ text: DELETE, sidecar: DELETE, sidecarFirst: true }), true],
  ])('a transform %s has nothing to do: a note, no error, no lock, no directory created; one that writes still fails', async (_, result, withSidecar) => {
    const f = path.join(missing(), 'keys');
    const calls: unknown[][] = [];
    const sidecar = withSidecar ? { sidecar: path.join(missing(), '.keys.side') } : {};
    const r = await updateFile(f, (...args: unknown[]) => { calls.push(args); return result(); }, { ...opts(), ...sidecar, removing: true });
    expect(r).toEqual({ existed: false, changed: false, deleted: false });
    expect(calls).toEqual([withSidecar ? [null, null] : [null]]);
    expect(warnings).toEqual([`nothing to remove from ${f}: its directory ${missing()} does not exist`]);
    expect(listing()).toEqual([]);
    // Writing the file, or only its sidecar, needs the directory: the error names it.
    const message = `cannot write ${f}: directory ${missing()} does not exist; create it first or fix the path`;
    for (const write of withSidecar ? sidecarWrites : [mergeT]) await expectRefused(f, message, write as any, sidecar);
    expect(listing()).toEqual([]);
  });

  test('a path through a regular file is the same: the file cannot exist there', async () => {
    fs.writeFileSync(path.join(dir, 'plain'), 'x');
    const f = path.join(dir, 'plain', 'sub', '.env');
    expect(await updateFile(f, () => DELETE, { ...opts(), removing: true })).toEqual({ existed: false, changed: false, deleted: false });
    expect(warnings).toEqual([`nothing to remove from ${f}: its directory ${path.join(dir, 'plain', 'sub')} does not exist`]);
    await expect(updateFile(f, mergeT, opts())).rejects.toThrow(
      `cannot write ${f}: directory ${path.join(dir, 'plain', 'sub')} does not exist; create it first or fix the path`);
    expect(listing()).toEqual(['plain']);
  });

  test('a directory that is a link to nothing is the same', async () => {
    fs.symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'secrets'));
    const f = path.join(dir, 'secrets', '.env');
    expect(await updateFile(f, () => DELETE, { ...opts(), removing: true })).toEqual({ existed: false, changed: false, deleted: false });
    expect(warnings).toEqual([`nothing to remove from ${f}: its directory ${path.join(dir, 'secrets')} does not exist`]);
    await expect(updateFile(f, mergeT, opts())).rejects.toThrow(
      `cannot write ${f}: directory ${path.join(dir, 'secrets')} does not exist; create it first or fix the path`);
    expect(listing()).toEqual(['secrets']);
  });

  test('only a removal: a write that leaves the file missing still fails on the missing directory', async () => {
    const f = path.join(missing(), 'keys');
    await expect(updateFile(f, () => null, opts())).rejects.toThrow(
      `cannot write ${f}: directory ${missing()} does not exist; create it first or fix the path`);
    expect(warnings).toEqual([]);
  });
});

test('refuses a directory', async () => {
  const f = path.join(dir, 'sub');
  fs.mkdirSync(f);
  await expectRefused(f, `cannot write ${f}: it is a directory; give the path of a file inside it (e.g. ${path.join(f, '.env')})`);
});

test('refuses a FIFO without blocking', async () => {
  const f = path.join(dir, '.env');
  const r = spawnSync('mkfifo', [f]);
  expect(r.status).toBe(0);
  await expectRefused(f, `cannot write ${f}: it is not a regular file; give the path of a regular file`);
});

test('refuses a read-only file', async () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  fs.chmodSync(f, 0o444);
  await expectRefused(f, `cannot write ${f}: the file is not writable (mode 0444); make it writable (chmod u+w ${f}) or choose another file`);
});

test('refuses a symbolic link (to a file or dangling) and leaves the target alone', async () => {
  const target = path.join(dir, 'real.env');
  fs.writeFileSync(target, 'A=1\n');
  const link = path.join(dir, '.env');
  fs.symlinkSync(target, link);
  await expectRefused(link, `refusing to write ${link}: it is a symbolic link; point the path at the real file instead`);
  expect(fs.readFileSync(target, 'utf8')).toBe('A=1\n');
  const dangling = path.join(dir, 'dangling.env');
  fs.symlinkSync(path.join(dir, 'missing'), dangling);
  await expectRefused(dangling, `refusing to write ${dangling}: it is a symbolic link; point the path at the real file instead`);
  expect(fs.existsSync(path.join(dir, 'missing'))).toBe(false);
});

// The swaps (symbolic link, another file, FIFO) are in test/adversarial/writer-kill.test.ts.
describe('readVerified', () => {
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (e: any) {
      return e.message as string;
    }
    return 'no error';
  };

  test('reads a regular file through the descriptor', () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n');
    const r = readVerified(f, fs.lstatSync(f));
    expect(r.buf.toString()).toBe('A=1\n');
    expect(r.stat.ino).toBe(fs.lstatSync(f).ino);
  });

  test('a file that grew past the bound is refused', () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'x'.repeat(5000));
    expect(refusal(() => readVerified(f, fs.lstatSync(f), 4096)))
      .toBe(`refusing to change ${f}: it is 4.9 KiB, larger than the 4 KiB a file of keys can need; check the path`);
  });
});

describe('the lock', () => {
  test('waits for a lock held by a live writer, then fails naming the holder, and leaves that lock alone', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n');
    const held = lockLine(process.ppid);
    fs.writeFileSync(`${f}.lock`, held);
    await expectRefused(f, `timed out after 0.3 s waiting for the lock file ${f}.lock, held by writer pid ${process.ppid} on host ${HOST}; if that writer is no longer running, delete the lock file`);
    expect(fs.readFileSync(`${f}.lock`, 'utf8')).toBe(held);
  });

  test('a lock file not in our format is never deleted, even when old: the message says so', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n');
    for (const content of ['other tool\n', '', `qdrant-cluster-access-writer pid=${deadPid()}\n`]) {
      fs.writeFileSync(`${f}.lock`, content);
      age(`${f}.lock`, 3600);
      await expectRefused(f, `timed out after 0.3 s waiting for the lock file ${f}.lock: it was not made by this writer; delete it if no other tool uses it`);
      expect(fs.readFileSync(`${f}.lock`, 'utf8')).toBe(content);
    }
    fs.unlinkSync(`${f}.lock`);
    fs.symlinkSync(f, `${f}.lock`);
    await expectRefused(f, `timed out after 0.3 s waiting for the lock file ${f}.lock: it was not made by this writer; delete it if no other tool uses it`);
    expect(fs.lstatSync(`${f}.lock`).isSymbolicLink()).toBe(true);
  });

  test('a lock whose holder is dead (same host) is broken at once, with a warning', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n', { mode: 0o600 });
    const pid = deadPid();
    fs.writeFileSync(`${f}.lock`, lockLine(pid));
    // A lock timeout of 1 ms: the dead holder's lock is not waited for at all.
    await updateFile(f, mergeT, { ...opts(), lockTimeoutMs: 1 });
    expect(fs.readFileSync(f, 'utf8')).toContain('QDRANT_API_KEY=');
    expect(warnings).toEqual([`warning: removed lock file ${f}.lock left by writer pid ${pid}, which is no longer running`]);
    expect(listing()).toEqual(['.env']);
  });

  test('a lock from the same host name but another PID namespace (another container) is not judged by its pid', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n');
    expect(HOST).toBe(`${os.hostname()}/${fs.readlinkSync('/proc/self/ns/pid')}`);
    // Written by a writer whose pid namespace differs: that pid is not running here, which says
    // nothing about the writer there. It is waited for like a holder on another host.
    const pid = deadPid();
    const held = lockLine(pid, os.hostname());
    fs.writeFileSync(`${f}.lock`, held);
    await expectRefused(f, `timed out after 0.3 s waiting for the lock file ${f}.lock, held by writer pid ${pid} on host ${os.hostname()}; if that writer is no longer running, delete the lock file`);
    expect(fs.readFileSync(`${f}.lock`, 'utf8')).toBe(held);
  });

  test('a lock of ours on another host is only broken once stale (older than 30 s)', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n', { mode: 0o600 });
    fs.writeFileSync(`${f}.lock`, lockLine(process.ppid, 'build-agent-7'));
    await expectRefused(f, `timed out after 0.3 s waiting for the lock file ${f}.lock, held by writer pid ${process.ppid} on host build-agent-7; if that writer is no longer running, delete the lock file`);
    age(`${f}.lock`, 60);
    await updateFile(f, mergeT, opts());
    expect(warnings).toEqual([`warning: removed stale lock file ${f}.lock (held by pid ${process.ppid} on host build-agent-7 for more than 30 s)`]);
    expect(listing()).toEqual(['.env']);
  });

  test('a writer whose lock was broken meanwhile does not commit', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n');
    const other = lockLine(process.ppid);
    const testHooks = { beforeRename: () => fs.writeFileSync(`${f}.lock`, other) };
    await expect(updateFile(f, mergeT, { ...opts(), testHooks }))
      .rejects.toThrow(`lost the lock file ${f}.lock (another writer broke it as stale); ${f} was not changed; run again`);
    expect(fs.readFileSync(f, 'utf8')).toBe('A=1\n');
    // Its temp file is gone, and the other writer's lock is left alone.
    expect(listing()).toEqual(['.env', '.env.lock']);
    expect(fs.readFileSync(`${f}.lock`, 'utf8')).toBe(other);
  });

  test('parallel updates in one process serialise on the lock', async () => {
    const f = path.join(dir, '.env');
    // Each waits for the four others: a lock timeout that a busy machine cannot reach (this is about order, not time).
    const adds = Array.from({ length: 5 }, (_, i) => updateFile(f, (t: string | null) => mergeEntries(t, { [`K${i}`]: `v${i}` }, { owner: `o${i}` }), { ...opts(), lockTimeoutMs: 10_000 }));
    await Promise.all(adds);
    const text = fs.readFileSync(f, 'utf8');
    for (let i = 0; i < 5; i++) expect(text).toContain(`K${i}='v${i}'`);
    expect(listing()).toEqual(['.env']);
  });
});

describe('leftovers of dead writers', () => {
  test('temp files of a dead writer on this host are removed; anything else is kept', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n');
    const dead = deadPid();
    const removable = [
      `..env.qca-${HOST_TAG}-${dead}-0123456789ab.tmp`, // a temp copy of the target
      `..env.side.qca-${HOST_TAG}-${dead}-0123456789ab.tmp`, // of its sidecar
      `..env.lock.qca-${HOST_TAG}-${dead}-0123456789ab.tmp`, // a lock being created or moved aside
    ];
    const kept = [
      `..env.qca-${HOST_TAG}-${process.ppid}-0123456789ab.tmp`, // holder alive
      `..env.qca-00000000-${dead}-0123456789ab.tmp`, // another host
      `..other.qca-${HOST_TAG}-${dead}-0123456789ab.tmp`, // another file
      `.env.${dead}.0123456789ab.tmp`, // not our pattern
    ];
    for (const n of [...removable, ...kept]) fs.writeFileSync(path.join(dir, n), 'x', { mode: 0o600 });
    await updateFile(f, mergeT, { ...opts(), sidecar: path.join(dir, '.env.side') });
    expect(listing()).toEqual(['.env', ...kept].sort());
    expect(warnings).toEqual([`warning: removed 3 temp files in ${dir} left by a writer that is no longer running (${removable.slice().sort().join(', ')})`]);
  });
});

describe('found by running the CLI', () => {
  test('a write whose result would be over the size bound is refused, sizes in bytes, the file unchanged', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=' + 'x'.repeat(1000) + '\n');
    const grow = (t: string | null) => mergeEntries(t, { QDRANT_API_KEY: SECRET + 'y'.repeat(100) }, { owner: 't' });
    const after = Buffer.byteLength(grow(fs.readFileSync(f, 'utf8')));
    await expectRefused(f, `refusing to change ${f}: the new text would be ${after} bytes, over the bound of 1024 bytes for a file of keys ` +
      '(it is 1003 bytes now); move other content out of this file or write the keys to another file; the file was not changed', grow, { maxBytes: 1024 });
    // A new file too.
    const g = path.join(dir, 'new.env');
    await expectRefused(g, `refusing to change ${g}: the new text would be ${Buffer.byteLength(grow(null))} bytes, over the bound of 100 bytes for a file of keys ` +
      '(it does not exist yet); move other content out of this file or write the keys to another file; the file was not changed', grow, { maxBytes: 100 });
    expect(fs.existsSync(g)).toBe(false);
  });

  test('a change that makes a file smaller is not refused, even when it is still near the bound', async () => {
    const f = path.join(dir, '.env');
    const big = mergeEntries('A=' + 'x'.repeat(900) + '\n', { QDRANT_API_KEY: SECRET }, { owner: 't' });
    fs.writeFileSync(f, big);
    await updateFile(f, (t: string) => t.replace(`'${SECRET}'`, "'k'"), { ...opts(), maxBytes: Buffer.byteLength(big) });
    expect(fs.readFileSync(f, 'utf8').length).toBeLessThan(big.length);
  });

  test('refuses a file with more than one hard link, before anything changes (also a removal)', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n');
    fs.linkSync(f, path.join(dir, 'other-link.env'));
    const message = `refusing to write ${f}: it has 2 hard links, and replacing it by a rename would leave the other links with the old content; ` +
      'give the path of a file with one link';
    await expectRefused(f, message);
    await expectRefused(f, message, () => DELETE, { removing: true });
    expect(fs.readFileSync(path.join(dir, 'other-link.env'), 'utf8')).toBe('A=1\n');
  });

  test.each(['EBUSY', 'EXDEV'])('a rename that fails with %s (a bind-mounted file) names the mount point and the fix', async (code) => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const realFs = require('node:fs');
    const spy = jest.spyOn(realFs, 'renameSync').mockImplementation(() => {
      throw Object.assign(new Error(`${code}: rename`), { code });
    });
    try {
      await expectRefused(f, `cannot replace ${f}: it is a mount point (a file bind-mounted on its own, as with docker -v ./.env:/app/.env), ` +
        `which a rename cannot replace (${code}); give the path of the file on its own file system (the source of the mount) instead`);
    } finally {
      spy.mockRestore();
    }
  });

  test('an unlink that fails with EBUSY (a bind-mounted file) names the mount point too', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const realFs = require('node:fs');
    const unlink = realFs.unlinkSync;
    const spy = jest.spyOn(realFs, 'unlinkSync').mockImplementation((p: unknown) => {
      if (p === f) throw Object.assign(new Error('EBUSY: unlink'), { code: 'EBUSY' });
      return unlink(p);
    });
    try {
      await expectRefused(f, `cannot delete ${f}: it is a mount point (a file bind-mounted on its own, as with docker -v ./.env:/app/.env), ` +
        'which cannot be deleted (EBUSY); give the path of the file on its own file system (the source of the mount) instead', () => DELETE, { removing: true });
    } finally {
      spy.mockRestore();
    }
  });
});
