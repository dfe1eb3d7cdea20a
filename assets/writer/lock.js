'use strict';
/**
 * The lock file of the writer, its temp-file names, and the cleanup of what a dead writer left
 * (Node built-ins only). Used by file.js; see its header for how a run uses them.
 *
 * The lock: `<file>.lock`, mode 0600, holding exactly one line
 *     qdrant-cluster-access-writer pid=<pid> host=<HOST> started=<ms since epoch> token=<hex>
 * It appears atomically with that content (written to a temp file, fsynced, then hard-linked to
 * the lock path, which fails if it exists; O_EXCL create-and-write where hard links are not
 * supported). acquireLock waits for a held lock, up to opts.lockTimeoutMs, except:
 *   - a lock of ours whose holder is provably dead (same host and PID namespace: HOST below;
 *     process.kill(pid, 0) fails with ESRCH) is broken at once, with a one-line warning;
 *   - a lock of ours older than opts.staleLockMs (by its mtime) is broken, with a warning (a
 *     pid reused by another process, a holder on another host);
 *   - a lock file NOT in this format (or a link, a FIFO, unreadable) is never deleted: after the
 *     timeout the message names it, says it was not made by this writer and that it can be
 *     deleted if no other tool uses it.
 * Breaking renames the lock aside (a temp name, below) and deletes it only if it is still the
 * lock that was judged dead; otherwise it is put back. verifyLock, called before each commit,
 * refuses when the lock is no longer ours. releaseLock deletes only our own lock.
 *
 * Temp names: `.<basename>.qca-<hosttag>-<pid>-<12 hex>.tmp` in the file's directory, where
 * hosttag is 8 hex digits of sha256(HOST). cleanDeadTemps deletes, for the given files and
 * their locks, temp files in this pattern with this host's tag and the pid of a process that is
 * no longer running (nothing else), with a one-line warning.
 *
 * `live` lists our temp files not yet renamed and our locks; cleanupForExit (for a signal
 * handler) deletes and releases them.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const C = fs.constants;
const O_NOFOLLOW = C.O_NOFOLLOW || 0;
const O_NONBLOCK = C.O_NONBLOCK || 0;
/**
 * Where a pid means something: the host name and, on Linux, the PID namespace. Containers that
 * share a host name and a bind-mounted directory (docker --network host) do not share pids:
 * there, "pid N is not running" says nothing about the other container's writer.
 */
const HOST = (os.hostname() || 'unknown').replace(/\s+/g, '_') + pidNamespace();
const HOST_TAG = crypto.createHash('sha256').update(HOST).digest('hex').slice(0, 8);
const LOCK_RE = /^qdrant-cluster-access-writer pid=(\d+) host=(\S+) started=(\d+) token=([0-9a-f]{16,64})\n$/;
const TEMP_RE = /^\.(.+)\.qca-([0-9a-f]{8})-(\d+)-[0-9a-f]{12}\.tmp$/;
const MAX_LOCK_BYTES = 1024;

/** "/pid:[4026531836]" (the PID namespace, as /proc names it), or "" where there is none to read. */
function pidNamespace() {
  try {
    return `/${fs.readlinkSync('/proc/self/ns/pid').replace(/\s+/g, '_')}`;
  } catch {
    return '';
  }
}

/** What a signal handler must undo: temp files not yet renamed, locks held. */
const live = { temps: new Set(), locks: new Set() };

/** A lock that cannot be taken or was lost: one line, with the lock's path. */
class LockError extends Error {
  constructor(message, code, cause) {
    super(message);
    this.name = 'LockError';
    this.code = code;
    if (cause) this.cause = cause;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function unlinkQuiet(p) {
  try {
    fs.unlinkSync(p);
    return true;
  } catch {
    return false;
  }
}

function closeQuiet(fd) {
  try {
    fs.closeSync(fd);
  } catch { /* already closed */ }
}

/** A temp path next to `file`, in the pattern the next run recognises as ours. */
function tempPath(file) {
  const dir = path.dirname(path.resolve(file));
  return path.join(dir, `.${path.basename(file)}.qca-${HOST_TAG}-${process.pid}-${crypto.randomBytes(6).toString('hex')}.tmp`);
}

/** True only when `pid` is provably not running on this host. */
function isDead(pid) {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return err.code === 'ESRCH';
  }
}

function lockLine(token) {
  return `qdrant-cluster-access-writer pid=${process.pid} host=${HOST} started=${Date.now()} token=${token}\n`;
}

/**
 * What is at the lock path: { state: 'gone' } | { state: 'foreign' } |
 * { state: 'ours', pid, host, started, raw, mtimeMs }. Never follows a link, never blocks.
 */
function readLock(lockPath) {
  let fd;
  try {
    fd = fs.openSync(lockPath, C.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    return { state: err.code === 'ENOENT' ? 'gone' : 'foreign' };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > MAX_LOCK_BYTES) return { state: 'foreign' };
    const buf = Buffer.alloc(MAX_LOCK_BYTES + 1);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    const raw = buf.subarray(0, n).toString('utf8');
    const m = LOCK_RE.exec(raw);
    if (!m) return { state: 'foreign' };
    return { state: 'ours', pid: Number(m[1]), host: m[2], started: Number(m[3]), raw, mtimeMs: st.mtimeMs };
  } catch {
    return { state: 'foreign' };
  } finally {
    closeQuiet(fd);
  }
}

let hardLinks = true;

/** Creates the lock with its full content in one step. Returns true when we hold it. */
function tryCreateLock(lockPath, content) {
  if (hardLinks) {
    const tmp = tempPath(lockPath);
    live.temps.add(tmp);
    try {
      const fd = fs.openSync(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, 0o600);
      try {
        fs.writeSync(fd, content);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.linkSync(tmp, lockPath);
      return true;
    } catch (err) {
      if (err.code === 'EEXIST') return false;
      if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK'].includes(err.code) || err.syscall !== 'link') throw err;
      hardLinks = false; // e.g. some network or FUSE file systems: fall back to O_EXCL
    } finally {
      unlinkQuiet(tmp);
      live.temps.delete(tmp);
    }
  }
  let fd;
  try {
    fd = fs.openSync(lockPath, C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, 0o600);
  } catch (err) {
    if (err.code === 'EEXIST') return false;
    throw err;
  }
  try {
    fs.writeSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/**
 * Breaks the lock described by `seen` (from readLock): moves it aside, and deletes it only if
 * it is still that lock; a newer lock moved by mistake is put back. Returns true when broken.
 */
function breakLock(lockPath, seen) {
  const aside = tempPath(lockPath);
  try {
    fs.renameSync(lockPath, aside);
  } catch {
    return false; // someone else broke it first
  }
  live.temps.add(aside);
  try {
    const now = readLock(aside);
    if (now.state === 'ours' && now.raw === seen.raw) return true;
    try {
      fs.linkSync(aside, lockPath);
    } catch { /* an even newer lock exists; its holder and the one we moved check before committing */ }
    return false;
  } finally {
    unlinkQuiet(aside);
    live.temps.delete(aside);
  }
}

async function acquireLock(file, opts, warn) {
  const lockPath = `${file}.lock`;
  const content = lockLine(crypto.randomBytes(12).toString('hex'));
  const deadline = Date.now() + opts.lockTimeoutMs;
  for (;;) {
    let created;
    try {
      created = tryCreateLock(lockPath, content);
    } catch (err) {
      throw new LockError(`cannot create the lock file ${lockPath}: ${err.code || err.message}; the directory must be writable`, err.code, err);
    }
    if (created) {
      const lock = { lockPath, content };
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
      if (seen.state === 'foreign') {
        throw new LockError(`timed out after ${secs} s waiting for the lock file ${lockPath}: it was not made by this writer; delete it if no other tool uses it`, 'ELOCKED');
      }
      throw new LockError(`timed out after ${secs} s waiting for the lock file ${lockPath}, held by writer pid ${seen.pid} on host ${seen.host}; if that writer is no longer running, delete the lock file`, 'ELOCKED');
    }
    await sleep(10 + Math.floor(Math.random() * 40));
  }
}

/** Throws unless `lock` is still ours (another run may have broken it as stale). */
function verifyLock(lock, file) {
  const now = readLock(lock.lockPath);
  if (now.state !== 'ours' || now.raw !== lock.content) {
    throw new LockError(`lost the lock file ${lock.lockPath} (another writer broke it as stale); ${file} was not changed; run again`, 'ELOCKLOST');
  }
}

function releaseLock(lock) {
  live.locks.delete(lock);
  const now = readLock(lock.lockPath);
  if (now.state === 'ours' && now.raw === lock.content) unlinkQuiet(lock.lockPath);
}

/** Deletes what a dead writer on this host left for these files (temp files, moved-aside locks). */
function cleanDeadTemps(files, warn) {
  const dir = path.dirname(path.resolve(files[0]));
  const bases = new Set(files.flatMap((f) => [path.basename(f), `${path.basename(f)}.lock`]));
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  const removed = [];
  for (const name of names) {
    const m = TEMP_RE.exec(name);
    if (!m || !bases.has(m[1]) || m[2] !== HOST_TAG) continue;
    const pid = Number(m[3]);
    if (pid === process.pid || !isDead(pid)) continue;
    const p = path.join(dir, name);
    let st = null;
    try {
      st = fs.lstatSync(p);
    } catch { /* gone */ }
    if (st && st.isFile() && unlinkQuiet(p)) removed.push(name);
  }
  if (removed.length) {
    warn(`warning: removed ${removed.length} temp file${removed.length === 1 ? '' : 's'} in ${dir} left by a writer that is no longer running (${removed.sort().join(', ')})`);
  }
}

/** For a signal handler: deletes our temp files and releases our locks. Synchronous. */
function cleanupForExit() {
  for (const t of live.temps) unlinkQuiet(t);
  live.temps.clear();
  for (const l of [...live.locks]) releaseLock(l);
}

module.exports = {
  unlinkQuiet,
  closeQuiet,
  HOST,
  HOST_TAG,
  LockError,
  live,
  tempPath,
  isDead,
  acquireLock,
  verifyLock,
  releaseLock,
  cleanDeadTemps,
  cleanupForExit,
};
