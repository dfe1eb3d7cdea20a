'use strict';
/**
 * Safe read-modify-write of one small text file, plus an optional sidecar file, under one lock
 * (Node built-ins only). It survives being killed at any moment: the target is always either
 * the old or the new file, and no copy of it is ever readable by anyone but its owner.
 *
 * updateFile(file, transform, opts) → Promise<{ existed, changed, deleted }>:
 *   - refuses symbolic links, directories, non-regular files (FIFOs, devices), files with more
 *     than one hard link (the rename would split them), read-only files, files over
 *     opts.maxBytes (default 4 MiB), a new text over opts.maxBytes that is larger than the file
 *     (a later run could not read it back to remove our entries) and a missing parent
 *     directory, with a one-line message (what, the path, how to fix); a rename that fails with
 *     EBUSY or EXDEV is a mount point (a bind-mounted file) and says so;
 *   - when removing (opts.removing), without its parent directory (missing, a dangling link, or
 *     not a directory) the file cannot exist: a transform that leaves it missing (null or DELETE,
 *     and the same for a sidecar in that directory) has nothing to do, so updateFile returns
 *     { existed: false, changed: false } with a one-line note to opts.warn, and takes no lock
 *     (its file would need the directory). A write (even of nothing) still gets the error.
 *     This is the destroy step run for a file on another machine or checkout (a deploy from
 *     elsewhere with shared state). A transform that would write still gets the error above;
 *   - takes the lock (lock.js), then removes temp files that a dead writer left for this target
 *     and its sidecar (lock.js), then checks the target again;
 *   - reads the target through one descriptor: open(O_RDONLY|O_NOFOLLOW|O_NONBLOCK), fstat,
 *     compare dev/ino with the lstat just made (refuse on mismatch: a symbolic link or another
 *     file was swapped in), refuse anything but a regular file without blocking, read at most
 *     maxBytes through that descriptor, decode as strict UTF-8;
 *   - calls transform(text | null) (null = the file does not exist). Without opts.sidecar it
 *     returns the new text, null (leave the file alone) or DELETE (remove the file). With
 *     opts.sidecar (a path) it is called as transform(text, sidecarText) and returns
 *     { text, sidecar, sidecarFirst, sidecarAfter }, each of text/sidecar being a string, null
 *     or DELETE; sidecarFirst says which of the two files is committed first (when the target
 *     then fails, the sidecar is put back as it was, unless the lock was lost); sidecarAfter (a
 *     string, optional) is committed to the sidecar last, after both. If transform throws,
 *     nothing is touched and the error becomes "refusing to change <file>: <message>; the file
 *     was not changed";
 *   - commits a new text with a temp file in the same directory, named
 *     `.<basename>.qca-<hosttag>-<pid>-<12 hex>.tmp` (hosttag: 8 hex of sha256 of lock.js's HOST, the host name and PID namespace),
 *     opened O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW with mode 0600, written, fsynced, renamed over
 *     the target; only then does it get the target's mode, through the same descriptor
 *     (fchmod). The directory is fsynced. Readers and crashes see the old or the new file.
 *     Once the rename is done the file is committed: a later error (fchmod, the directory's
 *     fsync) is a warning, never a failure.
 *   - a program that does not take the lock (an editor, `echo >> .env`) may write the target
 *     between its read and the commit: just before the rename (or the unlink), after the lock
 *     is verified, a bigint lstat of the target is compared with the fstat made when it was read
 *     (dev, ino, size, mtimeNs, ctimeNs; or "did not exist"). On any difference the temp file is
 *     dropped and the work starts over from reading the target (a sidecar already committed is
 *     put back first), up to CHANGE_ATTEMPTS reads in all; then the write fails with "refusing to
 *     change <file>: it kept changing while being written ...; the file was not changed". (The
 *     check and the rename are not one step: a write in the microseconds between them, or one
 *     that changes neither the size nor the timestamps, is still not seen.)
 *   - new files get mode 0600; existing files keep their mode and (when running as root) their
 *     owner; a world-readable existing file gets a warning. The sidecar is always 0600 and, as
 *     root, gets the target's owner.
 *   - not running as root, an existing file keeps its group: the temp file gets it (fchown with
 *     uid -1) before anything is written to it, which the system allows when this user is a
 *     member of that group. When it is not, and the file's mode gives its group any access, the
 *     write is refused (the rewritten file would hand that access to this user's group, and the
 *     keys with it); when the group has no access, it goes ahead with a warning naming the file
 *     and both groups. Another owner (a file this user may write but does not own) gets a
 *     warning: only root can give the file back to its owner.
 * Messages never contain file contents.
 *
 * The lock, the temp-file names and the cleanup of a dead writer's leftovers: lock.js. Before
 * each commit the holder checks that the lock is still its own (refusing, with the target
 * unchanged, if another run broke it).
 *
 * Signals: the work runs in steps with a yield to the event loop between them (after taking the
 * lock, before and after every rename), so a SIGTERM/SIGINT handler installed by the caller runs
 * at a step boundary and can call cleanupForExit(): it deletes our temp files and releases our
 * lock. A SIGKILL leaves at most a temp file (mode 0600) and a lock, both cleaned by the next run.
 */
const fs = require('node:fs');
const path = require('node:path');
const {
  HOST, HOST_TAG, LockError, live, tempPath, acquireLock, verifyLock, releaseLock, cleanDeadTemps, cleanupForExit,
  unlinkQuiet,
  closeQuiet,
} = require('./lock.js');

const DEFAULTS = { lockTimeoutMs: 15000, staleLockMs: 30000, maxBytes: 4 * 1024 * 1024 };
const C = fs.constants;
const O_NOFOLLOW = C.O_NOFOLLOW || 0;
const O_NONBLOCK = C.O_NONBLOCK || 0;
const DELETE = Symbol.for('cdktf-qdrant-cluster-access.writer.delete');
/** How many times the target is read and planned when another program keeps changing it. */
const CHANGE_ATTEMPTS = 4;

class FileError extends Error {
  constructor(message, code, cause) {
    super(message);
    this.name = 'FileError';
    this.code = code;
    if (cause) this.cause = cause;
  }
}

/** Yields to the event loop (not just the microtask queue), so signal handlers can run. */
const checkpoint = () => new Promise((resolve) => setImmediate(resolve));

function lstatOrNull(p, bigint = false) {
  try {
    return fs.lstatSync(p, { bigint });
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw err;
  }
}

function modeString(mode) {
  return '0' + (mode & 0o777).toString(8).padStart(3, '0');
}

function size(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1048576) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${Number((bytes / 1048576).toFixed(1))} MiB`;
}


/** Why the directory of `file` cannot hold it (a FileError), or null when it can. */
function directoryProblem(file) {
  const dir = path.dirname(path.resolve(file));
  let dst;
  try {
    dst = lstatOrNull(dir);
  } catch (err) {
    if (err.code !== 'ENOTDIR') throw err; // a file where a directory of the path should be
  }
  const missing = () => new FileError(`cannot write ${file}: directory ${dir} does not exist; create it first or fix the path`, 'ENODIR');
  if (!dst) return missing();
  let st;
  try {
    st = fs.statSync(dir);
  } catch (err) {
    // A symbolic link to nothing (or a loop): no directory is there.
    if (err.code === 'ENOENT' || err.code === 'ELOOP' || err.code === 'ENOTDIR') return missing();
    throw err;
  }
  if (!st.isDirectory()) {
    return new FileError(`cannot write ${file}: ${dir} is not a directory; fix the path`, 'ENODIR');
  }
  return null;
}

/** Checks the target path; returns its lstat (or null when it does not exist yet). */
function checkTarget(file) {
  const problem = directoryProblem(file);
  if (problem) throw problem;
  const st = lstatOrNull(file);
  if (!st) return null;
  checkKind(file, st);
  let writable = (st.mode & 0o222) !== 0;
  if (writable) {
    try {
      fs.accessSync(file, fs.constants.W_OK);
    } catch {
      writable = false;
    }
  }
  if (!writable) {
    throw new FileError(`cannot write ${file}: the file is not writable (mode ${modeString(st.mode)}); make it writable (chmod u+w ${shellWord(file)}) or choose another file`, 'EREADONLY');
  }
  return st;
}

function checkKind(file, st) {
  if (st.isSymbolicLink()) {
    throw new FileError(`refusing to write ${file}: it is a symbolic link; point the path at the real file instead`, 'ESYMLINK');
  }
  if (st.isDirectory()) {
    throw new FileError(`cannot write ${file}: it is a directory; give the path of a file inside it (e.g. ${path.join(file, '.env')})`, 'EISDIR');
  }
  if (!st.isFile()) {
    throw new FileError(`cannot write ${file}: it is not a regular file; give the path of a regular file`, 'ENOTFILE');
  }
  if (st.nlink > 1) {
    throw new FileError(`refusing to write ${file}: it has ${st.nlink} hard links, and replacing it by a rename would leave the other links with the old content; give the path of a file with one link`, 'EHARDLINK');
  }
}

/** What says a file is still the one that was read: a bigint stat cut down, or null (no file). */
function snapshot(st) {
  return st ? { dev: st.dev, ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs } : null;
}

function sameSnapshot(a, b) {
  if (!a || !b) return a === b;
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/**
 * Just before a commit over `file` (a rename or an unlink): throws FileError ECHANGED when the
 * file is no longer the one read (`read`: its snapshot, or null when it did not exist).
 */
function checkUnchanged(file, read) {
  if (!sameSnapshot(snapshot(lstatOrNull(file, true)), read)) {
    throw new FileError(changedMessage(file, 1), 'ECHANGED');
  }
}

function changedMessage(file, times, removing) {
  const how = times > 1 ? `it was read ${times} times and another program wrote it each time` : 'another program wrote it after it was read';
  return `refusing to change ${file}: it kept changing while being written (${how}); the file was not changed; run the ${removing ? 'destroy' : 'deploy'} again once nothing else is writing it`;
}

/**
 * Reads `file` through one descriptor that cannot follow a symbolic link or block on a FIFO,
 * and checks that it is the file `expected` (an lstat made before) described. Returns
 * { buf, stat, snap } (snap: dev, ino, size, mtimeNs, ctimeNs as bigints, taken before the
 * read, for checkUnchanged). Throws FileError (one line) on a symbolic link, another file
 * swapped in, a file that is not regular, or one larger than maxBytes.
 */
function readVerified(file, expected, maxBytes = DEFAULTS.maxBytes) {
  let fd;
  try {
    fd = fs.openSync(file, C.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    if (err.code === 'ELOOP' || err.code === 'EMLINK') {
      throw new FileError(`refusing to write ${file}: it is a symbolic link; point the path at the real file instead`, 'ESYMLINK', err);
    }
    if (err.code === 'ENOENT') {
      throw new FileError(`refusing to change ${file}: it was deleted or moved while being opened; run again, and check what else writes it`, 'ESWAPPED', err);
    }
    throw new FileError(`cannot read ${file}: ${err.code}; check its permissions`, err.code, err);
  }
  try {
    const snap = snapshot(fs.fstatSync(fd, { bigint: true }));
    const st = fs.fstatSync(fd);
    checkKind(file, st);
    if (expected && (st.dev !== expected.dev || st.ino !== expected.ino)) {
      throw new FileError(`refusing to change ${file}: it was replaced by another file while being opened (a symbolic link or a copy was swapped in); run again, and check what else writes it`, 'ESWAPPED');
    }
    if (st.size > maxBytes) {
      throw new FileError(`refusing to change ${file}: it is ${size(st.size)}, larger than the ${size(maxBytes)} a file of keys can need; check the path`, 'ETOOBIG');
    }
    const chunks = [];
    let total = 0;
    const chunk = Buffer.allocUnsafe(Math.min(Math.max(st.size, 0) + 1, maxBytes + 1, 1 << 20) || 1);
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) {
        throw new FileError(`refusing to change ${file}: it is larger than the ${size(maxBytes)} a file of keys can need; check the path`, 'ETOOBIG');
      }
      chunks.push(Buffer.from(chunk.subarray(0, n)));
    }
    return { buf: Buffer.concat(chunks, total), stat: st, snap };
  } catch (err) {
    if (err instanceof FileError) throw err;
    throw new FileError(`cannot read ${file}: ${err.code || err.message}; check its permissions`, err.code, err);
  } finally {
    closeQuiet(fd);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function readText(file, expected, maxBytes) {
  const { buf, stat, snap } = readVerified(file, expected, maxBytes);
  try {
    return { text: UTF8.decode(buf), stat, snap };
  } catch {
    throw new FileError(`refusing to change ${file}: it is not valid UTF-8 text; the file was not changed`, 'EENCODING');
  }
}


// ---------- commits ----------

function fsyncDir(dir) {
  let fd;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch (err) {
    if (!['EINVAL', 'EISDIR', 'EPERM', 'EACCES', 'EBADF'].includes(err.code)) throw err;
  } finally {
    if (fd !== undefined) closeQuiet(fd);
  }
}

/** A path as one word of a shell command in a message (single-quoted unless it is plain). */
function shellWord(p) {
  const word = p.startsWith('-') ? `./${p}` : p; // not read as an option
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * Syncs the directory of `file` after a commit (a rename or an unlink): the change is made by
 * then, so an error only warns (failing would make the caller believe nothing changed).
 */
function syncAfterCommit(file, what, warn) {
  try {
    fsyncDir(path.dirname(path.resolve(file)));
  } catch (err) {
    const back = what === 'deleted' ? 'bring the file back' : 'bring back the previous file';
    warn(`warning: ${file} was ${what}, but its directory could not be synced (${err.code || err.message}); a crash of the machine soon could still ${back}`);
  }
}

/** "name (gid N)" from /etc/group when it is there, else "gid N". */
function groupLabel(gid) {
  try {
    for (const line of fs.readFileSync('/etc/group', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (name && Number(id) === gid) return `${name} (gid ${gid})`;
    }
  } catch { /* no group database to read */ }
  return `gid ${gid}`;
}

/**
 * Gives the temp file (descriptor fd, still empty, mode 0600) the group `gid` of the file it
 * replaces. See the module header for what happens when this user may not.
 */
function keepGroup(file, fd, gid, mode, warn) {
  const have = fs.fstatSync(fd).gid;
  if (have === gid) return;
  try {
    fs.fchownSync(fd, -1, gid);
    return;
  } catch (err) {
    if (err.code !== 'EPERM' && err.code !== 'EINVAL') throw err;
  }
  const was = groupLabel(gid);
  const now = groupLabel(have);
  const m = modeString(mode);
  if (mode & 0o070) {
    throw new FileError(`refusing to change ${file}: it belongs to group ${was} and mode ${m} gives that group access, but this user is not a member of group ${was}, so the rewritten file would belong to group ${now} instead; run as a member of group ${was} or as root, or remove the group's access first (chmod g-rwx ${shellWord(file)}); the file was not changed`, 'EGROUP');
  }
  warn(`warning: ${file} belonged to group ${was}; the rewritten file belongs to group ${now} (this user is not a member of group ${was}; mode ${m} gives no group access); run chgrp ${gid} ${shellWord(file)} as root to restore it`);
}

/**
 * A rename over (or an unlink of) a mount point fails with EBUSY or EXDEV: a single file bind-
 * mounted on its own (docker -v ./.env:/app/.env) cannot be replaced, only written in place.
 */
function mountPointError(file, what, err) {
  const cannot = what === 'replace' ? 'a rename cannot replace' : 'cannot be deleted';
  return new FileError(`cannot ${what} ${file}: it is a mount point (a file bind-mounted on its own, as with docker -v ./.env:/app/.env), which ${cannot} (${err.code}); give the path of the file on its own file system (the source of the mount) instead`, 'EMOUNTPOINT', err);
}

/**
 * Replaces `file` with `text` atomically. c: { mode, chown: { uid, gid } | null, group: gid |
 * undefined (keep this group, not running as root), lock, label, hooks, read }. The temp file is
 * 0600 from its creation and gets `mode` only after the rename. c.read (the snapshot of what was
 * read, null: no file; undefined: not checked) is compared with the file just before the rename.
 */
async function replaceFile(file, text, c, warn) {
  const tmp = tempPath(file);
  let fd;
  let renaming = false;
  let renamed = false;
  live.temps.add(tmp);
  try {
    fd = fs.openSync(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, 0o600);
    if (c.chown) fs.fchownSync(fd, c.chown.uid, c.chown.gid);
    else if (c.group !== undefined) keepGroup(file, fd, c.group, c.mode, warn);
    fs.writeFileSync(fd, text, 'utf8');
    fs.fsyncSync(fd);
    if (c.hooks && c.hooks.beforeRename) c.hooks.beforeRename(tmp);
    await checkpoint();
    verifyLock(c.lock, c.label);
    if (c.read !== undefined) checkUnchanged(file, c.read);
    renaming = true;
    fs.renameSync(tmp, file);
    renamed = true;
    live.temps.delete(tmp);
  } catch (err) {
    if (fd !== undefined) closeQuiet(fd);
    if (!renamed) unlinkQuiet(tmp);
    live.temps.delete(tmp);
    if (err instanceof FileError || err instanceof LockError) throw err;
    if (renaming && (err.code === 'EBUSY' || err.code === 'EXDEV')) throw mountPointError(file, 'replace', err);
    throw new FileError(`cannot write ${file}: ${err.code || err.message}; check the directory's permissions and free space`, err.code, err);
  }
  try {
    if ((fs.fstatSync(fd).mode & 0o7777) !== c.mode) fs.fchmodSync(fd, c.mode);
  } catch (err) {
    warn(`warning: ${file} was written but its mode could not be set to ${modeString(c.mode)} (${err.code}); run chmod ${modeString(c.mode).slice(1)} ${shellWord(file)}`);
  } finally {
    closeQuiet(fd);
  }
  syncAfterCommit(file, 'replaced', warn);
  await checkpoint();
}

/**
 * Deletes `file`, the file `expected` (an lstat) describes. `read` (optional): the snapshot of
 * what was read, compared with the file just before the unlink (see checkUnchanged).
 */
async function removeFile(file, expected, lock, label, warn, read) {
  await checkpoint();
  verifyLock(lock, label);
  const now = lstatOrNull(file);
  if (!now) return;
  if (read !== undefined) checkUnchanged(file, read);
  if (now.dev !== expected.dev || now.ino !== expected.ino) {
    throw new FileError(`refusing to delete ${file}: it was replaced by another file meanwhile; run again, and check what else writes it`, 'ESWAPPED');
  }
  try {
    fs.unlinkSync(file);
  } catch (err) {
    if (err.code === 'EBUSY') throw mountPointError(file, 'delete', err);
    throw new FileError(`cannot delete ${file}: ${err.code}; check the directory's permissions`, err.code, err);
  }
  syncAfterCommit(file, 'deleted', warn);
  await checkpoint();
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** How the temp file of an existing file gets that file's owner and group: { chown, group }. */
function ownerChange(file, st, warn) {
  if (!st || typeof process.getuid !== 'function') return { chown: null, group: undefined };
  const uid = process.getuid();
  if (uid === 0) return { chown: st.uid !== 0 || st.gid !== 0 ? { uid: st.uid, gid: st.gid } : null, group: undefined };
  if (st.uid !== uid) warn(`warning: ${file} is owned by uid ${st.uid}; the rewritten file will be owned by uid ${uid}`);
  return { chown: null, group: st.gid };
}

function checkSidecar(file) {
  const st = lstatOrNull(file);
  if (st) checkKind(file, st);
  return st;
}

/**
 * See the module header. Throws FileError or LockError (one line, no contents); then the target
 * is unchanged.
 */
async function updateFile(file, transform, options) {
  const opts = { ...DEFAULTS, ...(options || {}) };
  const warn = onceEach(opts.warn || ((msg) => process.stderr.write(msg + '\n')));
  const side = opts.sidecar || null;
  const noDirectory = directoryProblem(file);
  if (noDirectory && opts.removing) return withoutDirectory(file, transform, side, noDirectory, warn);
  checkTarget(file);
  const lock = await acquireLock(file, opts, warn);
  try {
    cleanDeadTemps(side ? [file, side] : [file], warn);
    await checkpoint();
    // Another program changed the target between its read and the commit: read and plan again.
    for (let attempt = 1; ; attempt++) {
      try {
        return await updateOnce(file, transform, opts, side, lock, warn);
      } catch (err) {
        if (!(err instanceof FileError) || err.code !== 'ECHANGED') throw err;
        if (err.final || attempt >= CHANGE_ATTEMPTS) throw new FileError(changedMessage(file, attempt, opts.removing), 'ECHANGED', err);
        await new Promise((resolve) => setTimeout(resolve, 10 * attempt));
      }
    }
  } finally {
    releaseLock(lock);
  }
}

/** `warn`, called at most once with each message (a re-read must not repeat its warnings). */
function onceEach(warn) {
  const said = new Set();
  return (msg) => {
    if (said.has(msg)) return;
    said.add(msg);
    warn(msg);
  };
}

/**
 * One read, plan and commit of updateFile, under its lock. Throws FileError ECHANGED, with the
 * target as it was before, when another program changed the target after the read (err.final:
 * a sidecar committed before could not be put back, so no new plan may be made on it).
 */
async function updateOnce(file, transform, opts, side, lock, warn) {
  const st = checkTarget(file); // again, under the lock
  const cur = st ? readText(file, st, opts.maxBytes) : null;
  const text = cur ? cur.text : null;
  let sideCur = null;
  if (side) {
    const sst = checkSidecar(side);
    sideCur = sst ? readText(side, sst, opts.maxBytes) : null;
  }
  let plan;
  try {
    plan = side ? transform(text, sideCur ? sideCur.text : null) : { text: transform(text) };
  } catch (err) {
    throw new FileError(`refusing to change ${file}: ${err.message}; the file was not changed`, 'EINVALID', err);
  }
  // A write may not make a file larger than a read accepts (a later run could not read it back,
  // not even to remove our entries); a change that makes it smaller passes.
  for (const [p, next, before] of [[file, plan.text, cur], [side, plan.sidecar, sideCur], [side, plan.sidecarAfter, sideCur]]) {
    if (typeof next !== 'string') continue;
    const bytes = Buffer.byteLength(next, 'utf8');
    const now = before ? before.stat.size : 0;
    if (bytes > opts.maxBytes && bytes > now) {
      const was = before ? `it is ${now} bytes now` : 'it does not exist yet';
      throw new FileError(`refusing to change ${p}: the new text would be ${bytes} bytes, over the bound of ${opts.maxBytes} bytes for a file of keys (${was}); move other content out of this file or write the keys to another file; the file was not changed`, 'ETOOBIG');
    }
  }
  // `read`: the snapshot the target must still match at its commit (undefined: the sidecar,
  // which only this writer writes, under the lock).
  const step = (p, cur0, next, config, read) => {
    if (next == null) return null;
    if (next === DELETE) return cur0 ? () => removeFile(p, cur0.stat, lock, file, warn, read) : null;
    if (cur0 && next === cur0.text) return null;
    return () => replaceFile(p, next, { ...config(), lock, label: file, read }, warn);
  };
  const targetStep = step(file, cur, plan.text, () => ({
    mode: cur ? cur.stat.mode & 0o7777 : 0o600,
    ...ownerChange(file, cur && cur.stat, warn),
    hooks: opts.testHooks,
  }), cur ? cur.snap : null);
  // The sidecar belongs with the target: 0600 always, and (as root) the target's owner.
  const sideConfig = () => ({
    mode: 0o600,
    chown: isRoot() && cur && (cur.stat.uid !== 0 || cur.stat.gid !== 0) ? { uid: cur.stat.uid, gid: cur.stat.gid } : null,
  });
  const sideStep = side ? step(side, sideCur, plan.sidecar, sideConfig) : null;
  // A second sidecar text, committed last (a write that drops names: see json.js).
  const sideBefore = plan.sidecar == null ? (sideCur ? sideCur.text : null) : plan.sidecar;
  const afterStep = side && typeof plan.sidecarAfter === 'string' && plan.sidecarAfter !== sideBefore
    ? () => replaceFile(side, plan.sidecarAfter, { ...sideConfig(), lock, label: file }, warn)
    : null;
  // Not when removing: the file is left without our keys.
  if (targetStep && !opts.removing && plan.text !== DELETE && cur && (cur.stat.mode & 0o004)) {
    warn(`warning: ${file} is readable by all users (mode ${modeString(cur.stat.mode)}) and holds API keys; consider chmod 600 ${shellWord(file)}`);
  }
  if (plan.sidecarFirst && sideStep && targetStep) {
    await sideStep();
    try {
      await targetStep();
    } catch (err) {
      // The target was not replaced (replaceFile fails only before its rename): put the sidecar
      // back, so that it records no name the target does not hold (a member the user added
      // later under such a name would count as ours). Not after a lost lock: the sidecar may
      // be another writer's by now. A new plan needs the sidecar as it was: without it, none.
      if (!(err instanceof LockError)) {
        const restored = await restoreSidecar(side, sideCur, { ...sideConfig(), lock, label: file }, warn);
        if (!restored && err instanceof FileError && err.code === 'ECHANGED') err.final = true;
      }
      throw err;
    }
    if (afterStep) await afterStep();
  } else {
    const steps = plan.sidecarFirst ? [sideStep, targetStep, afterStep] : [targetStep, sideStep, afterStep];
    for (const s of steps) if (s) await s();
  }
  return { existed: Boolean(st), changed: Boolean(targetStep), deleted: Boolean(targetStep) && plan.text === DELETE };
}

/**
 * The file's directory is missing (see the module header): the file and a sidecar next to it
 * cannot exist. Nothing to do when the transform leaves them missing; else `problem` is thrown.
 */
function withoutDirectory(file, transform, side, problem, warn) {
  const dir = path.dirname(path.resolve(file));
  // A sidecar elsewhere may exist: not judged here.
  if (side && path.dirname(path.resolve(side)) !== dir) throw problem;
  let plan;
  try {
    plan = side ? transform(null, null) : { text: transform(null) };
  } catch (err) {
    throw new FileError(`refusing to change ${file}: ${err.message}; the file was not changed`, 'EINVALID', err);
  }
  const none = (x) => x == null || x === DELETE;
  if (!none(plan.text) || (side && (!none(plan.sidecar) || typeof plan.sidecarAfter === 'string'))) throw problem;
  warn(`nothing to remove from ${file}: its directory ${dir} does not exist`);
  return { existed: false, changed: false, deleted: false };
}

/**
 * Puts the sidecar back as it was before this run (its text, or no file). Returns true when it
 * did; a failure only warns (and returns false).
 */
async function restoreSidecar(side, before, config, warn) {
  try {
    const now = before ? null : lstatOrNull(side);
    if (before) await replaceFile(side, before.text, config, warn);
    else if (now) await removeFile(side, now, config.lock, config.label, warn);
    return true;
  } catch (err) {
    warn(`warning: could not put ${side} back as it was (${err.code || err.message}); it may record names that ${config.label} does not hold`);
    return false;
  }
}

module.exports = {
  updateFile,
  readVerified,
  cleanupForExit,
  FileError,
  LockError,
  DEFAULTS,
  DELETE,
  HOST,
  HOST_TAG,
};
