/**
 * What must not outlive the current jest test file: cleanups, and child processes a test started.
 * They run in a root-level afterAll of the test file that first loads this module (jest gives each
 * test file its own module registry, and 'exit' listeners do not run for one), registered at
 * import time: after every `describe`'s afterAll, before the file's own root-level ones. Outside
 * jest, or when first loaded from inside a test or hook (no hook can be added there), they run at
 * process exit. A safety net: suites still stop what they start.
 */
import type { ChildProcess } from 'node:child_process';

const cleanups: (() => void)[] = [];
const children = new Set<ChildProcess>();

/** Kills the children still running (a test that timed out), then runs the cleanups, last first. */
function atEnd(): void {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      cleanup();
    } catch {
      // one failed cleanup must not keep the others from running
    }
  }
}
if (typeof afterAll === 'function') {
  try {
    afterAll(atEnd);
  } catch {
    process.once('exit', atEnd);
  }
} else {
  process.once('exit', atEnd);
}

/** Runs `cleanup` when the current test file ends (or, outside jest, at process exit). */
export function atTestFileEnd(cleanup: () => void): void {
  cleanups.push(cleanup);
}

/**
 * Kills `child` (SIGKILL) after `deadlineMs`, or when the test file ends: a bound, not a
 * measurement. Call the returned function once the child has ended.
 */
export function killAtDeadline(child: ChildProcess, deadlineMs: number): () => void {
  children.add(child);
  const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
  return () => {
    children.delete(child);
    clearTimeout(timer);
  };
}
