/**
 * How the writer commits a file: a kill leaves the old or the new file, no copy readable but by its
 * owner (a fsynced 0600 temp file renamed over it, then given its mode). After the rename, errors warn.
 */
import { constants as C, fchmodSync, fchownSync, fstatSync, fsyncSync, openSync, readFileSync, renameSync, Stats, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Lock, O_NOFOLLOW, closeQuiet, live, tempPath, unlinkQuiet, verifyLock } from './lock';
import { Snapshot, checkUnchanged, lstatOrNull, modeString, shellWord } from './target';
import { RuntimeError, codeOf, messageOf } from '../runtime/errors';

/** Yields to the event loop (not just the microtask queue), so signal handlers can run. */
export const checkpoint = () => new Promise((done) => setImmediate(done));

/** A commit's mode, owner and group to give (as root) or group to keep, lock, and path for messages (`label`). */
export interface CommitConfig {
  readonly mode: number;
  readonly chown: { uid: number; gid: number } | null;
  readonly group?: number;
  readonly lock: Lock;
  readonly label: string;
  /** For tests: run with the temp file written, before its rename. */
  readonly hooks?: { readonly beforeRename?: (tempPath: string) => void };
  /** The snapshot of what was read (null: no file; undefined: not checked), compared with the file just before the rename. */
  readonly read?: Snapshot | null;
}

/** Syncs the directory after a commit: the change is made by then, so an error only warns. */
function syncAfterCommit(file: string, what: 'replaced' | 'deleted', warn: (message: string) => void): void {
  let fd;
  try {
    fd = openSync(dirname(resolve(file)), 'r');
    fsyncSync(fd);
  } catch (err) {
    if (['EINVAL', 'EISDIR', 'EPERM', 'EACCES', 'EBADF'].includes(codeOf(err))) return; // no directory sync here
    const back = what === 'deleted' ? 'bring the file back' : 'bring back the previous file';
    warn(`warning: ${file} was ${what}, but its directory could not be synced (${codeOf(err) || messageOf(err)}); a crash of the machine soon could still ${back}`);
  } finally {
    if (fd !== undefined) closeQuiet(fd);
  }
}

/** "name (gid N)" from /etc/group when it is there, else "gid N". */
function groupLabel(gid: number): string {
  try {
    for (const line of readFileSync('/etc/group', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (name && Number(id) === gid) return `${name} (gid ${gid})`;
    }
  } catch { /* no group database to read */ }
  return `gid ${gid}`;
}

/**
 * Not root: gives the temp file `fd` the replaced file's group `gid` (allowed to a member). Not a member:
 * refused when `mode` gives that group access (the keys would go to this user's group), else a warning.
 */
function keepGroup(file: string, fd: number, gid: number, mode: number, warn: (message: string) => void): void {
  const have = fstatSync(fd).gid;
  if (have === gid) return;
  try {
    fchownSync(fd, -1, gid);
    return;
  } catch (err) {
    if (codeOf(err) !== 'EPERM' && codeOf(err) !== 'EINVAL') throw err;
  }
  const was = groupLabel(gid);
  const now = groupLabel(have);
  const m = modeString(mode);
  if (mode & 0o070) {
    throw new RuntimeError(`refusing to change ${file}: it belongs to group ${was} and mode ${m} gives that group access, but this user is not a member of group ${was}, so the rewritten file would belong to group ${now} instead; run as a member of group ${was} or as root, or remove the group's access first (chmod g-rwx ${shellWord(file)}); the file was not changed`, 'EGROUP');
  }
  warn(`warning: ${file} belonged to group ${was}; the rewritten file belongs to group ${now} (this user is not a member of group ${was}; mode ${m} gives no group access); run chgrp ${gid} ${shellWord(file)} as root to restore it`);
}

/** A rename over (or an unlink of) a file bind-mounted on its own fails with EBUSY or EXDEV. */
function mountPointError(file: string, what: 'replace' | 'delete', err: unknown): RuntimeError {
  const cannot = what === 'replace' ? 'a rename cannot replace' : 'cannot be deleted';
  return new RuntimeError(`cannot ${what} ${file}: it is a mount point (a file bind-mounted on its own, as with docker -v ./.env:/app/.env), which ${cannot} (${codeOf(err)}); give the path of the file on its own file system (the source of the mount) instead`, 'EMOUNTPOINT', { cause: err });
}

/** Replaces `file` with `text` atomically. */
export async function replaceFile(file: string, text: string, c: CommitConfig, warn: (message: string) => void): Promise<void> {
  const tmp = tempPath(file);
  let fd: number | undefined;
  let renaming = false;
  live.temps.add(tmp);
  try {
    fd = openSync(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, 0o600);
    if (c.chown) fchownSync(fd, c.chown.uid, c.chown.gid);
    else if (c.group !== undefined) keepGroup(file, fd, c.group, c.mode, warn);
    writeFileSync(fd, text, 'utf8');
    fsyncSync(fd);
    c.hooks?.beforeRename?.(tmp);
    await checkpoint();
    verifyLock(c.lock, c.label);
    if (c.read !== undefined) checkUnchanged(file, c.read);
    renaming = true;
    renameSync(tmp, file);
  } catch (err) {
    // Nothing was renamed: the temp file goes.
    if (fd !== undefined) closeQuiet(fd);
    unlinkQuiet(tmp);
    if (err instanceof RuntimeError) throw err;
    if (renaming && (codeOf(err) === 'EBUSY' || codeOf(err) === 'EXDEV')) throw mountPointError(file, 'replace', err);
    throw new RuntimeError(`cannot write ${file}: ${codeOf(err) || messageOf(err)}; check the directory's permissions and free space`, codeOf(err), { cause: err });
  } finally {
    live.temps.delete(tmp);
  }
  try {
    if ((fstatSync(fd as number).mode & 0o7777) !== c.mode) fchmodSync(fd as number, c.mode);
  } catch (err) {
    warn(`warning: ${file} was written but its mode could not be set to ${modeString(c.mode)} (${codeOf(err)}); run chmod ${modeString(c.mode).slice(1)} ${shellWord(file)}`);
  } finally {
    closeQuiet(fd as number);
  }
  syncAfterCommit(file, 'replaced', warn);
  await checkpoint();
}

/** Deletes `file`, the file `expected` (an lstat) describes and `read` (if given) snapshots. */
export async function removeFile(file: string, expected: Stats, lock: Lock, label: string, warn: (message: string) => void, read?: Snapshot | null) {
  await checkpoint();
  verifyLock(lock, label);
  const now = lstatOrNull(file);
  if (!now) return;
  if (read !== undefined) checkUnchanged(file, read);
  if (now.dev !== expected.dev || now.ino !== expected.ino) {
    throw new RuntimeError(`refusing to delete ${file}: it was replaced by another file meanwhile; run again, and check what else writes it`, 'ESWAPPED');
  }
  try {
    unlinkSync(file);
  } catch (err) {
    if (codeOf(err) === 'EBUSY') throw mountPointError(file, 'delete', err);
    throw new RuntimeError(`cannot delete ${file}: ${codeOf(err)}; check the directory's permissions`, codeOf(err), { cause: err });
  }
  syncAfterCommit(file, 'deleted', warn);
  await checkpoint();
}

/** As root, the owner and group that a file replacing `st` is given (none when they are root's, or not root). */
export function rootChown(st: Stats | null): CommitConfig['chown'] {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return root && st && (st.uid !== 0 || st.gid !== 0) ? { uid: st.uid, gid: st.gid } : null;
}

/** How the temp file gets the existing file's owner and group; not root, another owner only warns. */
export function ownerChange(file: string, st: Stats | null, warn: (message: string) => void): Pick<CommitConfig, 'chown' | 'group'> {
  if (!st || typeof process.getuid !== 'function') return { chown: null, group: undefined };
  const uid = process.getuid();
  if (uid === 0) return { chown: rootChown(st), group: undefined };
  if (st.uid !== uid) warn(`warning: ${file} is owned by uid ${st.uid}; the rewritten file will be owned by uid ${uid}`);
  return { chown: null, group: st.gid };
}
