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
 * renamed into place, so that parallel test files never see half an install. The other entries of
 * `parent` (older keys) are removed, so the cache holds one install. Returns the dir and the
 * milliseconds the fill took (0 when cached).
 */
export function cachedDir(parent: string, key: string, fill: (dir: string) => void): { dir: string; ms: number } {
  const dir = path.join(parent, key);
  if (fs.existsSync(path.join(dir, '.complete'))) return { dir, ms: 0 };
  fs.mkdirSync(parent, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(parent, `.${key}-`));
  const started = Date.now();
  try {
    fill(tmp);
    fs.writeFileSync(path.join(tmp, '.complete'), new Date().toISOString() + '\n');
    // Fails when another worker renamed its own first: it is complete (only complete ones are
    // renamed), and may be in use, so ours goes.
    fs.renameSync(tmp, dir);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!fs.existsSync(path.join(dir, '.complete'))) throw e;
  }
  for (const old of fs.readdirSync(parent)) {
    // Older installs; a temp dir of another worker that is still filling is younger than 30 min.
    const p = path.join(parent, old);
    if (old !== key && (!old.startsWith('.') || Date.now() - fs.statSync(p).mtimeMs > 1_800_000)) fs.rmSync(p, { recursive: true, force: true });
  }
  return { dir, ms: Date.now() - started };
}
