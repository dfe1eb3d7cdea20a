/**
 * The writer's lock `<file>.lock` (0600): exactly one line
 *     qdrant-cluster-access-writer pid=<pid> host=<HOST> started=<ms since epoch> token=<hex>
 * made whole at once (a fsynced temp file hard-linked to the path; O_EXCL where links fail). A lock
 * of ours whose holder is provably dead on this HOST, or older than staleLockMs, is broken with a
 * warning (moved aside, deleted only if still the one judged dead); any other lock never is.
 * Temp files: `.<basename>.qca-<8 hex of sha256(HOST)>-<pid>-<12 hex>.tmp`; cleanDeadTemps deletes
 * only this host's, of dead pids.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants as C, fstatSync, linkSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, renameSync, unlinkSync, writeSync, fsyncSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { RuntimeError, codeOf, messageOf } from '../runtime/errors';

export const O_NOFOLLOW = C.O_NOFOLLOW || 0;
export const O_NONBLOCK = C.O_NONBLOCK || 0;
/** Where a pid means something: the host name and the PID namespace (docker --network host shares the name, not the pids). */
export const HOST = (hostname() || 'unknown').replace(/\s+/g, '_') + pidNamespace();
export const HOST_TAG = createHash('sha256').update(HOST).digest('hex').slice(0, 8);
const LOCK_RE = /^qdrant-cluster-access-writer pid=(\d+) host=(\S+) started=(\d+) token=([0-9a-f]{16,64})\n$/;
const TEMP_RE = /^\.(.+)\.qca-([0-9a-f]{8})-(\d+)-[0-9a-f]{12}\.tmp$/;
const MAX_LOCK_BYTES = 1024;

/** "/pid:[4026531836]" (as /proc names it), or "" where there is none. */
function pidNamespace(): string {
  try {
    return `/${readlinkSync('/proc/self/ns/pid').replace(/\s+/g, '_')}`;
  } catch {
    return '';
  }
}

/** A held lock: its path and the exact line written to it. */
export type Lock = Awaited<ReturnType<typeof acquireLock>>;

/** What a signal handler must undo: temp files not yet renamed, locks held. */
export const live = { temps: new Set<string>(), locks: new Set<Lock>() };

/** unlink(2) ignoring every error: whether the file was removed. */
export function unlinkQuiet(p: string): boolean {
  try {
    unlinkSync(p);
    return true;
  } catch {
    return false;
  }
}

export function closeQuiet(fd: number): void {
  try {
    closeSync(fd);
  } catch { /* already closed */ }
}

export function lockPathOf(file: string): string {
  return `${file}.lock`;
}

function tempName(name: string, pid: string, random: string): string {
  return `.${name}.qca-${HOST_TAG}-${pid}-${random}.tmp`;
}

/** A temp path next to `file`, in the pattern the next run recognises as ours. */
export function tempPath(file: string): string {
  return join(dirname(resolve(file)), tempName(basename(file), String(process.pid), randomBytes(6).toString('hex')));
}

/** The longest name tempPath gives a temp file of a file named `name` (a pid of 7 digits, Linux's largest). */
export function longestTempName(name: string): string {
  return tempName(name, '9'.repeat(7), '0'.repeat(12));
}

/** True only when `pid` is provably not running on this host. */
function isDead(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return codeOf(err) === 'ESRCH';
  }
}

/** What is at the lock path: gone, not ours (foreign), or ours with its holder. Never follows a link, never blocks. */
type LockState = { state: 'gone' | 'foreign' } | { state: 'ours'; pid: number; host: string; raw: string; mtimeMs: number };

function readLock(lockPath: string): LockState {
  let fd;
  try {
    fd = openSync(lockPath, C.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    return { state: codeOf(err) === 'ENOENT' ? 'gone' : 'foreign' };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_LOCK_BYTES) return { state: 'foreign' };
    const buf = Buffer.alloc(MAX_LOCK_BYTES + 1);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const raw = buf.subarray(0, n).toString('utf8');
    const m = LOCK_RE.exec(raw);
    return m ? { state: 'ours', pid: Number(m[1]), host: m[2], raw, mtimeMs: st.mtimeMs } : { state: 'foreign' };
  } catch {
    return { state: 'foreign' };
  } finally {
    closeQuiet(fd);
  }
}

let hardLinks = true;

/** Creates `path` (0600, O_EXCL) holding `content`; fsynced when `sync`. */
function createWith(path: string, content: string, sync: boolean): void {
  const fd = openSync(path, C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, content);
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Creates the lock with its full content in one step (hard-linked from a temp file while links work). Returns true when we hold it. */
function tryCreateLock(lockPath: string, content: string): boolean {
  const linking = hardLinks;
  const tmp = linking ? tempPath(lockPath) : lockPath;
  if (linking) live.temps.add(tmp);
  try {
    createWith(tmp, content, linking);
    if (linking) linkSync(tmp, lockPath);
    return true;
  } catch (err) {
    if (codeOf(err) === 'EEXIST') return false;
    const linkUnsupported = ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK'].includes(codeOf(err)) && (err as { syscall?: string }).syscall === 'link';
    if (!linking || !linkUnsupported) throw err;
    hardLinks = false; // e.g. some network or FUSE file systems: fall back to O_EXCL
  } finally {
    // Only a temp file is removed here: without links, tmp is the lock itself.
    if (linking) {
      unlinkQuiet(tmp);
      live.temps.delete(tmp);
    }
  }
  return tryCreateLock(lockPath, content);
}

/** Whether the lock at `lockPath` is ours and holds exactly `raw`. */
function holds(lockPath: string, raw: string): boolean {
  const now = readLock(lockPath);
  return now.state === 'ours' && now.raw === raw;
}

/** Breaks the lock `seen` (see the header); true when broken. */
function breakLock(lockPath: string, seen: { raw: string }): boolean {
  const aside = tempPath(lockPath);
  try {
    renameSync(lockPath, aside);
  } catch {
    return false; // someone else broke it first
  }
  live.temps.add(aside);
  try {
    if (holds(aside, seen.raw)) return true;
    try {
      linkSync(aside, lockPath);
    } catch { /* an even newer lock exists; its holder and the one we moved check before committing */ }
    return false;
  } finally {
    unlinkQuiet(aside);
    live.temps.delete(aside);
  }
}

export async function acquireLock(file: string, opts: { lockTimeoutMs: number; staleLockMs: number }, warn: (message: string) => void) {
  const lockPath = lockPathOf(file);
  const content = `qdrant-cluster-access-writer pid=${process.pid} host=${HOST} started=${Date.now()} token=${randomBytes(12).toString('hex')}\n`;
  const deadline = Date.now() + opts.lockTimeoutMs;
  for (;;) {
    let created;
    try {
      created = tryCreateLock(lockPath, content);
    } catch (err) {
      throw new RuntimeError(`cannot create the lock file ${lockPath}: ${codeOf(err) || messageOf(err)}; the directory must be writable`, codeOf(err), { cause: err });
    }
    if (created) {
      const lock = { lockPath, content } as const;
      live.locks.add(lock);
      return lock;
    }
    const seen = readLock(lockPath);
    if (seen.state === 'gone') continue;
    if (seen.state === 'ours') {
      const mine = [...live.locks].some((l) => l.lockPath === lockPath && l.content === seen.raw);
      const dead = !mine && seen.host === HOST && (seen.pid === process.pid || isDead(seen.pid));
      const age = Date.now() - seen.mtimeMs;
      if (dead || age > opts.staleLockMs) {
        if (breakLock(lockPath, seen)) {
          warn(dead
            ? `warning: removed lock file ${lockPath} left by writer pid ${seen.pid}, which is no longer running`
            : `warning: removed stale lock file ${lockPath} (held by pid ${seen.pid} on host ${seen.host} for more than ${Math.round(opts.staleLockMs / 1000)} s)`);
        }
        continue;
      }
    }
    if (Date.now() >= deadline) {
      const secs = Number((opts.lockTimeoutMs / 1000).toFixed(1));
      const holder = seen.state !== 'ours'
        ? ': it was not made by this writer; delete it if no other tool uses it'
        : `, held by writer pid ${seen.pid} on host ${seen.host}; if that writer is no longer running, delete the lock file`;
      throw new RuntimeError(`timed out after ${secs} s waiting for the lock file ${lockPath}${holder}`, 'ELOCKED');
    }
    await new Promise((done) => setTimeout(done, 10 + Math.floor(Math.random() * 40)));
  }
}

/** Throws unless `lock` is still ours (another run may have broken it as stale). */
export function verifyLock(lock: Lock, file: string): void {
  if (!holds(lock.lockPath, lock.content)) {
    throw new RuntimeError(`lost the lock file ${lock.lockPath} (another writer broke it as stale); ${file} was not changed; run again`, 'ELOCKLOST');
  }
}

export function releaseLock(lock: Lock): void {
  live.locks.delete(lock);
  if (holds(lock.lockPath, lock.content)) unlinkQuiet(lock.lockPath);
}

/** Deletes what a dead writer on this host left for these files (temp files, moved-aside locks). */
export function cleanDeadTemps(files: string[], warn: (message: string) => void): void {
  const dir = dirname(resolve(files[0]));
  const bases = new Set(files.flatMap((f) => [basename(f), basename(lockPathOf(f))]));
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const removed = [];
  for (const name of names) {
    const m = TEMP_RE.exec(name);
    if (!m || !bases.has(m[1]) || m[2] !== HOST_TAG) continue;
    const pid = Number(m[3]);
    if (pid === process.pid || !isDead(pid)) continue;
    const p = join(dir, name);
    try {
      if (lstatSync(p).isFile() && unlinkQuiet(p)) removed.push(name);
    } catch { /* gone */ }
  }
  if (removed.length) {
    warn(`warning: removed ${removed.length} temp file${removed.length === 1 ? '' : 's'} in ${dir} left by a writer that is no longer running (${removed.sort().join(', ')})`);
  }
}

/** For a signal handler: deletes our temp files and releases our locks. Synchronous. */
export function cleanupForExit(): void {
  for (const t of live.temps) unlinkQuiet(t);
  live.temps.clear();
  for (const l of [...live.locks]) releaseLock(l);
}
