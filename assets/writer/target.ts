/**
 * The file the writer changes: what it may be (one-line refusals, never contents), and its read through
 * one descriptor, with a snapshot that must still match at the commit (`echo >> .env` takes no lock).
 */
import { accessSync, BigIntStats, constants as C, fstatSync, lstatSync, openSync, readSync, Stats, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { O_NOFOLLOW, O_NONBLOCK, closeQuiet } from './lock';
import { RuntimeError, codeOf, messageOf } from '../runtime/errors';

/** The largest file of keys the writer reads (and writes). */
export const MAX_BYTES = 4 * 1024 * 1024;

/** What says a file is still the one that was read: its device, inode, size and times. */
export type Snapshot = NonNullable<ReturnType<typeof snapshot>>;
/** A file as read: its text, its stat, and its snapshot taken before the read. */
export type ReadFile = ReturnType<typeof readText>;

export const lstatOrNull = (p: string): Stats | null => lstatSync(p, { throwIfNoEntry: false }) ?? null;

export function modeString(mode: number): string {
  return '0' + (mode & 0o777).toString(8).padStart(3, '0');
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1048576) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${Number((bytes / 1048576).toFixed(1))} MiB`;
}

/** A path as one word of a shell command in a message (single-quoted unless it is plain). */
export function shellWord(p: string): string {
  const word = p.startsWith('-') ? `./${p}` : p; // not read as an option
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** Why the directory of `file` cannot hold it, or null when it can. */
export function directoryProblem(file: string): RuntimeError | null {
  const dir = dirname(resolve(file));
  let dst;
  try {
    dst = lstatOrNull(dir);
  } catch (err) {
    if (codeOf(err) !== 'ENOTDIR') throw err; // a file where a directory of the path should be
  }
  const missing = () => new RuntimeError(`cannot write ${file}: directory ${dir} does not exist; create it first or fix the path`, 'ENODIR');
  if (!dst) return missing();
  let st;
  try {
    st = statSync(dir);
  } catch (err) {
    // A symbolic link to nothing (or a loop): no directory is there.
    if (['ENOENT', 'ELOOP', 'ENOTDIR'].includes(codeOf(err))) return missing();
    throw err;
  }
  return st.isDirectory() ? null : new RuntimeError(`cannot write ${file}: ${dir} is not a directory; fix the path`, 'ENODIR');
}

function writable(file: string, st: Stats): boolean {
  try {
    accessSync(file, C.W_OK);
    return (st.mode & 0o222) !== 0;
  } catch {
    return false;
  }
}

/** Checks the target path; returns its lstat (or null when it does not exist yet). */
export function checkTarget(file: string): Stats | null {
  const problem = directoryProblem(file);
  if (problem) throw problem;
  const st = lstatOrNull(file);
  if (!st) return null;
  checkKind(file, st);
  if (!writable(file, st)) {
    throw new RuntimeError(`cannot write ${file}: the file is not writable (mode ${modeString(st.mode)}); make it writable (chmod u+w ${shellWord(file)}) or choose another file`, 'EREADONLY');
  }
  return st;
}

const symlinkError = (file: string, cause?: unknown) =>
  new RuntimeError(`refusing to write ${file}: it is a symbolic link; point the path at the real file instead`, 'ESYMLINK', { cause });

export function checkKind(file: string, st: Stats): void {
  if (st.isSymbolicLink()) throw symlinkError(file);
  if (st.isDirectory()) {
    throw new RuntimeError(`cannot write ${file}: it is a directory; give the path of a file inside it (e.g. ${join(file, '.env')})`, 'EISDIR');
  }
  if (!st.isFile()) {
    throw new RuntimeError(`cannot write ${file}: it is not a regular file; give the path of a regular file`, 'ENOTFILE');
  }
  if (st.nlink > 1) {
    throw new RuntimeError(`refusing to write ${file}: it has ${st.nlink} hard links, and replacing it by a rename would leave the other links with the old content; give the path of a file with one link`, 'EHARDLINK');
  }
}

function snapshot(st: BigIntStats | null): string | null {
  return st && [st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs].join(':');
}

/** The message of a target that other programs kept writing while this one was changing it. */
export function changedMessage(file: string, times: number, removing?: boolean): string {
  const how = times > 1 ? `it was read ${times} times and another program wrote it each time` : 'another program wrote it after it was read';
  return `refusing to change ${file}: it kept changing while being written (${how}); the file was not changed; run the ${removing ? 'destroy' : 'deploy'} again once nothing else is writing it`;
}

/** Just before a commit: throws ECHANGED when `file` no longer matches `read` (null: no file). */
export function checkUnchanged(file: string, read: Snapshot | null): void {
  const now = lstatSync(file, { bigint: true, throwIfNoEntry: false }) ?? null;
  if (snapshot(now) !== read) throw new RuntimeError(changedMessage(file, 1), 'ECHANGED');
}

/** Reads `file` through one descriptor (no link followed, no FIFO blocking) if it is still `expected` (an lstat). */
export function readVerified(file: string, expected: Stats | null, maxBytes = MAX_BYTES) {
  let fd: number | undefined;
  try {
    fd = openSync(file, C.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    const snap = snapshot(fstatSync(fd, { bigint: true })) as string;
    const st = fstatSync(fd);
    checkKind(file, st);
    if (expected && (st.dev !== expected.dev || st.ino !== expected.ino)) {
      throw new RuntimeError(`refusing to change ${file}: it was replaced by another file while being opened (a symbolic link or a copy was swapped in); run again, and check what else writes it`, 'ESWAPPED');
    }
    const tooBig = (stated = '') =>
      new RuntimeError(`refusing to change ${file}: it is ${stated}larger than the ${size(maxBytes)} a file of keys can need; check the path`, 'ETOOBIG');
    if (st.size > maxBytes) throw tooBig(`${size(st.size)}, `);
    const chunks = [];
    let total = 0;
    const chunk = Buffer.allocUnsafe(Math.min(Math.max(st.size, 0) + 1, maxBytes + 1, 1 << 20) || 1);
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw tooBig();
      chunks.push(Buffer.from(chunk.subarray(0, n)));
    }
    return { buf: Buffer.concat(chunks, total), stat: st, snap };
  } catch (err) {
    const code = codeOf(err);
    if (err instanceof RuntimeError) throw err;
    if (fd === undefined && (code === 'ELOOP' || code === 'EMLINK')) throw symlinkError(file, err);
    if (fd === undefined && code === 'ENOENT') {
      throw new RuntimeError(`refusing to change ${file}: it was deleted or moved while being opened; run again, and check what else writes it`, 'ESWAPPED', { cause: err });
    }
    throw new RuntimeError(`cannot read ${file}: ${code || messageOf(err)}; check its permissions`, code, { cause: err });
  } finally {
    if (fd !== undefined) closeQuiet(fd);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function readText(file: string, expected: Stats | null, maxBytes: number) {
  const { buf, stat, snap } = readVerified(file, expected, maxBytes);
  try {
    return { text: UTF8.decode(buf), stat, snap };
  } catch {
    throw new RuntimeError(`refusing to change ${file}: it is not valid UTF-8 text; the file was not changed`, 'EENCODING');
  }
}
