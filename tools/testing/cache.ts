/**
 * The project's cache of installs that tests reuse between runs (the cdktf and cdktn apps, the
 * cdktn CLI, Python venvs): <cache>/<kind>/<key>, where the key hashes everything the install
 * depends on, so that a change installs again.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The project's cache dir, as the scripts name it (scripts/offline-terraform.sh). */
export function cacheRoot(): string {
  return process.env.CDKTF_QDRANT_CACHE
    ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'cdktf-qdrant-cluster-access');
}

/**
 * Makes `<parent>/<key>` with `fill(tmpDir)` unless it exists: filled in a temp sibling, then
 * renamed into place, so that a test file never sees half an install. One worker fills at a time
 * (a lock directory beside it; a lock older than 30 min is left from a killed run): test files in
 * parallel workers that need the same install wait for it instead of installing it twice. The
 * other entries of `parent` (older keys) are removed, so the cache holds one install. Returns the
 * dir and the milliseconds the fill took (0 when cached, or filled by another worker).
 */
export function cachedDir(parent: string, key: string, fill: (dir: string) => void): { dir: string; ms: number } {
  const dir = path.join(parent, key);
  const complete = () => fs.existsSync(path.join(dir, '.complete'));
  if (complete()) return { dir, ms: 0 };
  fs.mkdirSync(parent, { recursive: true });
  const lock = path.join(parent, `.${key}.lock`);
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (complete()) return { dir, ms: 0 };
    const age = (() => {
      try {
        return Date.now() - fs.statSync(lock).mtimeMs;
      } catch {
        return 0; // just released: try again
      }
    })();
    if (age > 1_800_000) fs.rmSync(lock, { recursive: true, force: true });
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
  }
  try {
    if (complete()) return { dir, ms: 0 };
    const tmp = fs.mkdtempSync(path.join(parent, `.${key}-`));
    const started = Date.now();
    try {
      fill(tmp);
      fs.writeFileSync(path.join(tmp, '.complete'), new Date().toISOString() + '\n');
      fs.renameSync(tmp, dir);
    } catch (e) {
      fs.rmSync(tmp, { recursive: true, force: true });
      throw e;
    }
    for (const old of fs.readdirSync(parent)) {
      // Older installs; a temp dir or lock of another key that is still in use is younger than 30 min.
      const p = path.join(parent, old);
      if (old !== key && old !== path.basename(lock) && (!old.startsWith('.') || Date.now() - fs.statSync(p).mtimeMs > 1_800_000)) {
        fs.rmSync(p, { recursive: true, force: true });
      }
    }
    return { dir, ms: Date.now() - started };
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
