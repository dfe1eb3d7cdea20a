/**
 * Jest global setup and teardown (wired in .projenrc.ts): every test run gets its own temp root,
 * made the OS temp dir of the whole run (TMPDIR, inherited by the workers and every process the
 * tests start), and removed at the end. Tests still remove what they create (see `tempDir` in
 * ./terraform.ts and `atTestFileEnd` in ./file-end.ts); this is the safety net for what
 * they miss, such as cdktf's `Testing.app()`, which makes a `cdktf.outdir.*` per call and never
 * removes it. What was left behind is listed, so that a leak stays visible.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = 'QCA_JEST_TEMP_ROOT';
const PREVIOUS = 'QCA_JEST_PREVIOUS_TMPDIR';

export function setup(): void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-jest-'));
  process.env[PREVIOUS] = process.env.TMPDIR ?? '';
  process.env[ROOT] = root;
  process.env.TMPDIR = root;
}

export function teardown(): void {
  const root = process.env[ROOT];
  if (!root) return;
  const left = fs.existsSync(root) ? fs.readdirSync(root) : [];
  if (left.length > 0) {
    // Grouped by name without mkdtemp's random suffix: "914 × cdktf.outdir.*".
    const groups = new Map<string, number>();
    for (const name of left) {
      const stem = name.replace(/[-.][A-Za-z0-9]{6}$/, '.*');
      groups.set(stem, (groups.get(stem) ?? 0) + 1);
    }
    const list = [...groups].sort((a, b) => b[1] - a[1]).map(([stem, n]) => `${n} × ${stem}`).join(', ');
    process.stderr.write(`\ntemp files the tests left behind (removed now): ${list}\n`);
  }
  fs.rmSync(root, { recursive: true, force: true });
  if (process.env[PREVIOUS]) process.env.TMPDIR = process.env[PREVIOUS];
  else delete process.env.TMPDIR;
  delete process.env[ROOT];
  delete process.env[PREVIOUS];
}
