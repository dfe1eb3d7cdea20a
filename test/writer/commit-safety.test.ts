/**
 * What the writer does around the commit (the rename), through its real CLI:
 * - as a user who is not root, an existing file keeps its group when the user may give it that
 *   group (a member of it); otherwise the write is refused when the mode lets the group read the
 *   file (the keys would go to another group), and goes ahead with a one-line warning naming the
 *   file and both groups when the group has no access. Needs root to set up users and groups. The
 *   test user runs a copy of the runtime in the run's temp dir: the checkout may sit in a directory
 *   that user cannot enter (mode 0700, as `mktemp -d` makes).
 * - once the new file is in place, a failing fsync of its directory is only a warning: the run
 *   succeeds (exit 0), so Terraform records the write.
 */
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';

// The real module object (not an import wrapper), so that a spy on it is what the writer calls.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs: typeof import('node:fs') = require('node:fs');

const ASSETS = path.join(__dirname, '..', '..', 'assets');
const CLI = path.join(ASSETS, 'writer', 'cli.js');
const SECRET = 'canary-secret-commit-5d1e9a';
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

// A user and two groups that need no entry in /etc/passwd or /etc/group.
const UID = 47311;
const PRIMARY = 47311;
const SECRETS = 47312;

// Under the run's own temp root (TMPDIR, see tools/testing/jest-temp-root.ts), like every test.
let dir: string;
const outputs: string[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-commit-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});
afterAll(() => {
  for (const o of outputs) expect(o).not.toContain(SECRET);
});

interface Result { code: number; stdout: string; stderr: string }

/**
 * The first directory on the way to `p` (itself included when it is a directory) that a user who
 * is neither its owner nor in its group cannot enter (no o+x); undefined when there is none.
 */
function closedToOthers(p: string): string | undefined {
  const chain: string[] = [];
  for (let d = path.resolve(p); ; d = path.dirname(d)) {
    chain.unshift(d);
    if (d === path.dirname(d)) break;
  }
  // o+x is the mode's lowest bit: an odd mode lets others enter.
  return chain.find((d) => fs.statSync(d).isDirectory() && fs.statSync(d).mode % 2 === 0);
}

/**
 * Why the test user cannot run here, or undefined. It runs `node` (this one) and a copy of the
 * runtime made in the run's temp root, which the tests open to it (o+x) while they run.
 */
function whyTheTestUserCannotRun(): string | undefined {
  if (!isRoot) return 'needs root (to run the writer as another user, in groups of its own)';
  const node = closedToOthers(path.dirname(process.execPath));
  if (node) return `the test user (uid ${UID}) cannot enter ${node}, on the way to ${process.execPath}: install Node where every user can run it`;
  const tmp = closedToOthers(path.dirname(os.tmpdir()));
  if (tmp) return `the test user (uid ${UID}) cannot enter ${tmp}, which holds the run's temp dir ${os.tmpdir()}: set TMPDIR to a directory every user can enter (e.g. /tmp)`;
  return undefined;
}

/** Where the test user's copy of the runtime is (set in the suite's beforeAll). */
let runtimeCopy: string;

/** Runs the writer CLI (the copy) in a child process as UID with the given groups (the first is the primary one). */
function writeAs(groups: number[], file: string): Result {
  const cli = path.join(runtimeCopy, path.relative(ASSETS, CLI));
  const script = `
    process.setgroups(${JSON.stringify(groups)});
    process.setgid(${groups[0]});
    process.setuid(${UID});
    require(${JSON.stringify(cli)}).run(['write', '--file', ${JSON.stringify(file)}, '--owner', 'o'], process.env)
      .then((r) => process.stdout.write(JSON.stringify(r)));`;
  const r = spawnSync(process.execPath, ['-e', script], {
    env: { PATH: process.env.PATH ?? '', QCA_ENTRIES: JSON.stringify({ QDRANT_API_KEY: SECRET }) },
    encoding: 'utf8',
  });
  outputs.push(r.stdout, r.stderr);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
}

/** An app directory and .env owned by UID, the file in group `gid` with `mode`. */
function userFile(gid: number, mode: number): string {
  fs.chownSync(dir, UID, PRIMARY);
  fs.chmodSync(dir, 0o700);
  const file = path.join(dir, '.env');
  fs.writeFileSync(file, 'A=1\n');
  fs.chownSync(file, UID, gid);
  fs.chmodSync(file, mode);
  return file;
}

const groupOf = (f: string) => fs.statSync(f).gid;
const modeOf = (f: string) => fs.statSync(f).mode % 0o1000;

const cannotRun = whyTheTestUserCannotRun();
if (cannotRun) process.stderr.write(`skipping the tests as a user who is not root: ${cannotRun}\n`);

(cannotRun ? describe.skip : describe)('an existing file\'s group, as a user who is not root', () => {
  // The test user must reach the directory, and the run's temp root is private to root: open it
  // to search (o+x: no listing) while these tests run, then give it its mode back. What the user
  // runs is copied there, readable by all: the checkout itself may be closed to that user.
  const root = process.env.QCA_JEST_TEMP_ROOT;
  let rootMode: number | undefined;
  beforeAll(() => {
    if (root) {
      rootMode = fs.statSync(root).mode % 0o10000;
      fs.chmodSync(root, rootMode % 2 === 1 ? rootMode : rootMode + 0o001); // + o+x
    }
    runtimeCopy = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-runtime-'));
    // Files and directories only (no socket a checker may have left in assets/).
    fs.cpSync(ASSETS, runtimeCopy, { recursive: true, filter: (src) => fs.lstatSync(src).isFile() || fs.lstatSync(src).isDirectory() });
    for (const entry of [runtimeCopy, ...fs.readdirSync(runtimeCopy, { recursive: true, encoding: 'utf8' }).map((e) => path.join(runtimeCopy, e))]) {
      fs.chmodSync(entry, fs.statSync(entry).isDirectory() ? 0o755 : 0o644);
    }
  });
  afterAll(() => {
    if (runtimeCopy) fs.rmSync(runtimeCopy, { recursive: true, force: true });
    if (root && rootMode !== undefined) fs.chmodSync(root, rootMode);
  });

  test('the test user can run the copy of the writer, and cannot enter this checkout when it is closed to others', () => {
    const copy = path.join(runtimeCopy, path.relative(ASSETS, CLI));
    const probe = spawnSync(process.execPath, ['-e', [
      `process.setgid(${PRIMARY});`,
      `process.setuid(${UID});`,
      'const fs = require(\'node:fs\');',
      'const can = (p) => { try { fs.accessSync(p, fs.constants.R_OK); return true; } catch { return false; } };',
      `process.stdout.write(JSON.stringify([can(${JSON.stringify(copy)}), can(${JSON.stringify(CLI)})]));`,
    ].join(' ')], { encoding: 'utf8' });
    expect(probe.stderr).toBe('');
    // The copy is readable; the checkout's own file is readable exactly when nothing on its way is closed to others.
    expect(JSON.parse(probe.stdout)).toEqual([true, closedToOthers(path.dirname(CLI)) === undefined]);
  });

  test('a member of the file\'s group keeps it: 0640 uid:secrets stays 0640 uid:secrets', () => {
    const file = userFile(SECRETS, 0o640);
    const r = writeAs([PRIMARY, SECRETS], file);
    expect(r).toEqual({ code: 0, stdout: `wrote 1 entry to ${file} (0 updated, 1 added)`, stderr: '' });
    expect([groupOf(file), modeOf(file)]).toEqual([SECRETS, 0o640]);
    expect(fs.readFileSync(file, 'utf8')).toContain(`QDRANT_API_KEY='${SECRET}'`);
  });

  test('not a member, and the group may read the file: refused, naming the file and both groups; the file is unchanged', () => {
    const file = userFile(SECRETS, 0o640);
    const r = writeAs([PRIMARY], file);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`qdrant-cluster-access-writer: error: refusing to change ${file}: it belongs to group gid ${SECRETS} and `
      + `mode 0640 gives that group access, but this user is not a member of group gid ${SECRETS}, so the rewritten file would `
      + `belong to group gid ${PRIMARY} instead; run as a member of group gid ${SECRETS} or as root, or remove the group's access `
      + `first (chmod g-rwx ${file}); the file was not changed`);
    expect(fs.readFileSync(file, 'utf8')).toBe('A=1\n');
    expect([groupOf(file), modeOf(file)]).toEqual([SECRETS, 0o640]);
    expect(fs.readdirSync(dir)).toEqual(['.env']);
  });

  test('not a member, and the group has no access: written, with a one-line warning naming the file and both groups', () => {
    const file = userFile(SECRETS, 0o600);
    const r = writeAs([PRIMARY], file);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`warning: ${file} belonged to group gid ${SECRETS}; the rewritten file belongs to group gid ${PRIMARY} `
      + `(this user is not a member of group gid ${SECRETS}; mode 0600 gives no group access); run chgrp ${SECRETS} ${file} as root to restore it`);
    expect([groupOf(file), modeOf(file)]).toEqual([PRIMARY, 0o600]);
  });
});

describe('after the rename, the file is committed', () => {
  afterEach(() => jest.restoreAllMocks());

  /** Makes fsync of a directory fail with EIO (the file's own fsync still works). */
  function failDirectoryFsync(): void {
    const real = fs.fsyncSync;
    jest.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
      if (fs.fstatSync(fd).isDirectory()) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      return real(fd);
    });
  }

  test('a directory fsync error after the rename is a warning; write and remove succeed', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const cli = require('../../assets/writer/cli.js');
    const file = path.join(dir, '.env');
    fs.writeFileSync(file, 'A=1\n', { mode: 0o600 });
    failDirectoryFsync();
    const env = { QCA_ENTRIES: JSON.stringify({ QDRANT_API_KEY: SECRET }) };
    const w = await cli.run(['write', '--file', file, '--owner', 'o'], env);
    outputs.push(w.stdout, w.stderr);
    expect(w).toEqual({
      code: 0,
      stdout: `wrote 1 entry to ${file} (0 updated, 1 added)`,
      stderr: `warning: ${file} was replaced, but its directory could not be synced (EIO); a crash of the machine soon could still bring back the previous file`,
    });
    expect(fs.readFileSync(file, 'utf8')).toContain(SECRET);

    const r = await cli.run(['remove', '--file', file, '--owner', 'o'], { QCA_ENTRIES: '["QDRANT_API_KEY"]' });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: ${file} was replaced, but its directory could not be synced (EIO)`);
    expect(fs.readFileSync(file, 'utf8')).toBe('A=1\n');
  });
});
