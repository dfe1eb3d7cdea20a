'use strict';
/**
 * Safe read-modify-write of one small text file (Node built-ins only).
 *
 * updateFile(path, transform, opts):
 *   - refuses symbolic links, directories, non-regular files, read-only files and a missing
 *     parent directory, with a one-line message (what, the path, how to fix);
 *   - takes an exclusive lock file `<path>.lock` (O_EXCL) so parallel writers serialise; waits
 *     up to opts.lockTimeoutMs (default 15 s), removes a lock older than opts.staleLockMs
 *     (default 30 s) as stale; always removes its own lock in `finally`;
 *   - calls transform(currentText | null) under the lock (null = file does not exist); the
 *     transform returns the new text, or null to leave the file alone. If it throws, the file
 *     is not touched;
 *   - writes a temp file in the same directory, fsyncs it, renames it over the target and
 *     fsyncs the directory: readers and crashes see the old or the new file, never a mix;
 *   - new files get mode 0600; existing files keep their mode and (when running as root)
 *     their owner; a world-readable existing file gets a warning on stderr.
 * Messages never contain file contents.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const DEFAULTS = { lockTimeoutMs: 15000, staleLockMs: 30000 };

class FileError extends Error {
  constructor(message, code, cause) {
    super(message);
    this.name = 'FileError';
    this.code = code;
    if (cause) this.cause = cause;
  }
}

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function lstatOrNull(p) {
  try {
    return fs.lstatSync(p);
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw err;
  }
}

function modeString(mode) {
  return '0' + (mode & 0o777).toString(8).padStart(3, '0');
}

/** Checks the target path; returns its lstat (or null when it does not exist yet). */
function checkTarget(file) {
  const dir = path.dirname(path.resolve(file));
  const dst = lstatOrNull(dir);
  if (!dst) {
    throw new FileError(`cannot write ${file}: directory ${dir} does not exist; create it first or fix the path`, 'ENODIR');
  }
  if (!fs.statSync(dir).isDirectory()) {
    throw new FileError(`cannot write ${file}: ${dir} is not a directory; fix the path`, 'ENODIR');
  }
  const st = lstatOrNull(file);
  if (!st) return null;
  if (st.isSymbolicLink()) {
    throw new FileError(`refusing to write ${file}: it is a symbolic link; point the path at the real file instead`, 'ESYMLINK');
  }
  if (st.isDirectory()) {
    throw new FileError(`cannot write ${file}: it is a directory; give the path of a file inside it (e.g. ${path.join(file, '.env')})`, 'EISDIR');
  }
  if (!st.isFile()) {
    throw new FileError(`cannot write ${file}: it is not a regular file; give the path of a regular file`, 'ENOTFILE');
  }
  let writable = (st.mode & 0o222) !== 0;
  if (writable) {
    try {
      fs.accessSync(file, fs.constants.W_OK);
    } catch {
      writable = false;
    }
  }
  if (!writable) {
    throw new FileError(`cannot write ${file}: the file is not writable (mode ${modeString(st.mode)}); make it writable (chmod u+w ${file}) or choose another file`, 'EREADONLY');
  }
  return st;
}

function acquireLock(file, opts, warn) {
  const lockPath = `${file}.lock`;
  const token = `${process.pid} ${Date.now()} ${crypto.randomBytes(6).toString('hex')}\n`;
  const deadline = Date.now() + opts.lockTimeoutMs;
  for (;;) {
    try {
      const fd = fs.openSync(lockPath, 'wx', 0o600);
      try {
        fs.writeSync(fd, token);
      } finally {
        fs.closeSync(fd);
      }
      return { lockPath, token };
    } catch (err) {
      if (err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS') {
        throw new FileError(`cannot create the lock file ${lockPath}: ${err.code}; the directory must be writable`, err.code);
      }
      if (err.code !== 'EEXIST') throw err;
    }
    const st = lstatOrNull(lockPath);
    if (st && Date.now() - st.mtimeMs > opts.staleLockMs) {
      // Stale: move it aside first, so that two writers breaking it at once cannot both win.
      const aside = `${lockPath}.stale-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
      try {
        fs.renameSync(lockPath, aside);
        const ast = fs.statSync(aside);
        if (Date.now() - ast.mtimeMs > opts.staleLockMs) {
          warn(`warning: removed stale lock file ${lockPath} (older than ${Math.round(opts.staleLockMs / 1000)} s)`);
        } else {
          // Someone else's fresh lock: put it back unless a new one already exists.
          try { fs.linkSync(aside, lockPath); } catch { /* a newer lock exists */ }
        }
        fs.unlinkSync(aside);
      } catch { /* another writer handled it */ }
      continue;
    }
    if (Date.now() >= deadline) {
      throw new FileError(`timed out after ${Number((opts.lockTimeoutMs / 1000).toFixed(1))} s waiting for the lock file ${lockPath}; another writer holds it (if none is running, delete that file)`, 'ELOCKED');
    }
    sleepSync(10 + Math.floor(Math.random() * 40));
  }
}

function releaseLock(lock) {
  try {
    if (fs.readFileSync(lock.lockPath, 'utf8') === lock.token) fs.unlinkSync(lock.lockPath);
  } catch { /* already gone */ }
}

function fsyncDir(dir) {
  let fd;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch (err) {
    if (!['EINVAL', 'EISDIR', 'EPERM', 'EACCES', 'EBADF'].includes(err.code)) throw err;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function writeAtomic(file, text, st, warn) {
  const dir = path.dirname(path.resolve(file));
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`);
  let fd;
  try {
    fd = fs.openSync(tmp, 'wx', 0o600);
    fs.fchmodSync(fd, st ? st.mode & 0o7777 : 0o600);
    if (st && typeof process.getuid === 'function') {
      const uid = process.getuid();
      if (uid === 0 && (st.uid !== 0 || st.gid !== 0)) {
        fs.fchownSync(fd, st.uid, st.gid);
      } else if (uid !== 0 && st.uid !== uid) {
        warn(`warning: ${file} is owned by uid ${st.uid}; the rewritten file will be owned by uid ${uid}`);
      }
    }
    fs.writeFileSync(fd, text, 'utf8');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, file);
  } catch (err) {
    if (fd !== undefined) {
      try { fs.closeSync(fd); } catch { /* ignore */ }
    }
    try { fs.unlinkSync(tmp); } catch { /* ignore */ }
    if (err instanceof FileError) throw err;
    throw new FileError(`cannot write ${file}: ${err.code || err.message}; check the directory's permissions and free space`, err.code, err);
  }
  fsyncDir(dir);
}

/**
 * Returns { existed, changed }. Throws FileError (one line, no contents) on failure; the
 * file is unchanged whenever it throws.
 */
function updateFile(file, transform, options) {
  const opts = { ...DEFAULTS, ...(options || {}) };
  const warn = opts.warn || ((msg) => process.stderr.write(msg + '\n'));
  checkTarget(file);
  const lock = acquireLock(file, opts, warn);
  try {
    const st = checkTarget(file); // again, under the lock
    let text = null;
    if (st) {
      let buf;
      try {
        buf = fs.readFileSync(file);
      } catch (err) {
        throw new FileError(`cannot read ${file}: ${err.code}; check its permissions`, err.code, err);
      }
      try {
        text = UTF8.decode(buf);
      } catch {
        throw new FileError(`refusing to change ${file}: it is not valid UTF-8 text; the file was not changed`, 'EENCODING');
      }
    }
    let next;
    try {
      next = transform(text);
    } catch (err) {
      throw new FileError(`refusing to change ${file}: ${err.message}; the file was not changed`, 'EINVALID', err);
    }
    if (next == null || next === text) return { existed: Boolean(st), changed: false };
    if (st && (st.mode & 0o004)) {
      warn(`warning: ${file} is readable by all users (mode ${modeString(st.mode)}) and holds API keys; consider chmod 600 ${file}`);
    }
    writeAtomic(file, next, st, warn);
    return { existed: Boolean(st), changed: true };
  } finally {
    releaseLock(lock);
  }
}

module.exports = { updateFile, FileError, DEFAULTS };
