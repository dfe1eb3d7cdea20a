/**
 * Test helpers for assets/writer/cli.js run as a real child process (used by test/writer and
 * test/adversarial/writer-*). Not a test file itself.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeRun, runNode } from '../../tools/testing/run-node';

export const CLI = path.join(__dirname, '..', '..', 'assets', 'writer', 'cli.js');

export type CliRun = NodeRun;

export interface CliOptions {
  /** Extra environment variables. */
  readonly env?: Record<string, string>;
  /** Send `signal` this many ms after the spawn. */
  readonly killAfterMs?: number;
  readonly signal?: NodeJS.Signals;
}

/**
 * Runs `node cli.js ...args` with QCA_ENTRIES set from `entries` (a string is passed as is;
 * undefined leaves it unset). Every run's output is collected in `outputs`, so a test file can
 * check that no canary value was ever printed.
 */
export function runCli(args: string[], entries?: unknown, options: CliOptions = {}, outputs?: string[]): Promise<CliRun> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.QCA_ENTRIES;
  delete env.QCA_ENTRIES_FROM_ENV;
  delete env.QCA_LOCK_TIMEOUT_MS;
  Object.assign(env, options.env ?? {});
  if (entries !== undefined) env.QCA_ENTRIES = typeof entries === 'string' ? entries : JSON.stringify(entries);
  return runNode([CLI, ...args], { env, killAfterMs: options.killAfterMs, signal: options.signal, outputs });
}

/** A fresh temp dir; `remove()` deletes it (call it in afterEach/afterAll or a finally). */
export function tempDir(prefix: string): { readonly path: string; remove(): void } {
  const p = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    path: p,
    remove: () => {
      // A test may leave a read-only file or dir behind: make it removable first.
      try {
        fs.chmodSync(p, 0o700);
      } catch { /* gone */ }
      fs.rmSync(p, { recursive: true, force: true });
    },
  };
}

/** Names in `dir` that are temp or lock files of the writer (none may be left by a finished run). */
export function leftovers(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => /\.tmp$|\.lock$/.test(n)).sort();
}
