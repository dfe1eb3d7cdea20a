/**
 * The limit that the names the writer makes next to a file set on the file's name: checked by the
 * writer before it makes anything, and by the constructs at synth (src/private/file-writer.ts).
 */
import { basename, resolve } from 'node:path';
import { sidecarPath } from './json';
import { lockPathOf, longestTempName } from './lock';

/** The most bytes a file system gives one name in a directory (Linux's NAME_MAX; macOS's too). */
export const MAX_NAME_BYTES = 255;
/** The most bytes of a path the system calls take (Linux's PATH_MAX, less its terminating NUL). */
export const MAX_PATH_BYTES = 4095;

/**
 * Why the writer cannot keep `file` in `format`, or undefined: the names it makes next to it must
 * fit in a directory entry, and their paths in a system call.
 */
export function fileNameProblem(file: string, format: 'dotenv' | 'json'): string | undefined {
  const name = basename(file);
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
  // The lock and the temp files of the file and of the lock; for JSON, the sidecar and its temp file (under the same lock).
  const lock = basename(lockPathOf(file));
  const sidecar = basename(sidecarPath(file));
  const beside = [lock, longestTempName(name), longestTempName(lock), ...(format === 'json' ? [sidecar, longestTempName(sidecar)] : [])];
  const extra = Math.max(...beside.map((n) => bytes(n) - bytes(name)));
  const what = format === 'json' ? 'its lock, temporary and ownership-record files' : 'its lock and temporary files';
  if (bytes(name) + extra > MAX_NAME_BYTES) {
    return `the file name ${name} is ${bytes(name)} bytes, and the writer makes files next to it with names up to ${extra} bytes longer (${what}); ` +
      `a file name may have at most ${MAX_NAME_BYTES} bytes: give the file a name of at most ${MAX_NAME_BYTES - extra} bytes`;
  }
  const full = resolve(file);
  if (bytes(full) + extra > MAX_PATH_BYTES) {
    return `the path ${full} is ${bytes(full)} bytes, and the writer makes files next to it with names up to ${extra} bytes longer (${what}); ` +
      `a path may have at most ${MAX_PATH_BYTES} bytes: give the file a path of at most ${MAX_PATH_BYTES - extra} bytes`;
  }
  return undefined;
}
