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

/** Why the writer cannot keep `file` in `format` (a name it makes next to it too long), or undefined. */
export function fileNameProblem(file: string, format: 'dotenv' | 'json'): string | undefined {
  const name = basename(file);
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
  // The lock and the temp files of the file and of the lock; for JSON, the sidecar and its temp file (under the same lock).
  const lock = basename(lockPathOf(file));
  const sidecar = basename(sidecarPath(file));
  const beside = [lock, longestTempName(name), longestTempName(lock), ...(format === 'json' ? [sidecar, longestTempName(sidecar)] : [])];
  const extra = Math.max(...beside.map((n) => bytes(n) - bytes(name)));
  const what = format === 'json' ? 'its lock, temporary and ownership-record files' : 'its lock and temporary files';
  for (const [label, short, value, max] of [['file name', 'name', name, MAX_NAME_BYTES], ['path', 'path', resolve(file), MAX_PATH_BYTES]] as const) {
    if (bytes(value) + extra > max) {
      return `the ${label} ${value} is ${bytes(value)} bytes, and the writer makes files next to it with names up to ${extra} bytes longer (${what}); ` +
        `a ${label} may have at most ${max} bytes: give the file a ${short} of at most ${max - extra} bytes`;
    }
  }
  return undefined;
}
