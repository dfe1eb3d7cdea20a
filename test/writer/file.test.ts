/**
 * assets/writer/file.js: atomic replace, modes/owner, the lock file, and every refusal
 * (message text asserted, file unchanged, nothing left behind).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { mergeEntries } = require('../../assets/writer/dotenv.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { updateFile } = require('../../assets/writer/file.js');

const SECRET = 'canary-secret-file-2b7e';
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

let dir: string;
let warnings: string[];
const opts = () => ({ warn: (m: string) => warnings.push(m), lockTimeoutMs: 300 });
const mergeT = (t: string | null) => mergeEntries(t, { QDRANT_API_KEY: SECRET }, { owner: 't' });

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-file-'));
  warnings = [];
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Directory listing: no temp or lock files may remain. */
const listing = () => fs.readdirSync(dir).sort();
const mode = (p: string) => fs.statSync(p).mode % 0o1000;

function expectRefused(file: string, message: string, transform = mergeT) {
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  const before = st && st.isFile() ? fs.readFileSync(file) : null;
  const names = listing();
  let err: any;
  try {
    updateFile(file, transform, opts());
  } catch (e) {
    err = e;
  }
  expect(err).toBeDefined();
  expect(err.message).toBe(message);
  expect(err.message).not.toContain(SECRET);
  expect(err.message).not.toContain('\n');
  if (before) expect(fs.readFileSync(file).equals(before)).toBe(true);
  expect(listing()).toEqual(names);
}

test('creates a new file with mode 0600 and leaves no temp or lock file', () => {
  const f = path.join(dir, '.env');
  const r = updateFile(f, mergeT, opts());
  expect(r).toEqual({ existed: false, changed: true });
  expect(fs.readFileSync(f, 'utf8')).toContain(`QDRANT_API_KEY='${SECRET}'`);
  expect(mode(f)).toBe(0o600);
  expect(listing()).toEqual(['.env']);
  expect(warnings).toEqual([]);
});

test('keeps the mode of an existing file and does not rewrite an unchanged one', () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  fs.chmodSync(f, 0o640);
  updateFile(f, mergeT, opts());
  expect(mode(f)).toBe(0o640);
  const ino = fs.statSync(f).ino;
  expect(updateFile(f, mergeT, opts())).toEqual({ existed: true, changed: false });
  expect(fs.statSync(f).ino).toBe(ino);
});

test('warns (without values) about a world-readable file', () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  fs.chmodSync(f, 0o644);
  updateFile(f, mergeT, opts());
  expect(mode(f)).toBe(0o644);
  expect(warnings).toEqual([`warning: ${f} is readable by all users (mode 0644) and holds API keys; consider chmod 600 ${f}`]);
});

(isRoot ? test : test.skip)('as root, keeps the owner of an existing file', () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  fs.chownSync(f, 4321, 4322);
  updateFile(f, mergeT, opts());
  const st = fs.statSync(f);
  expect([st.uid, st.gid]).toEqual([4321, 4322]);
});

test('transform returning null leaves a missing file missing', () => {
  const f = path.join(dir, '.env');
  expect(updateFile(f, () => null, opts())).toEqual({ existed: false, changed: false });
  expect(listing()).toEqual([]);
});

test('a failing transform leaves the file unchanged and removes the lock', () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  expectRefused(f, `refusing to change ${f}: boom; the file was not changed`, () => {
    throw new Error('boom');
  });
});

test('refuses a file that is not valid dotenv, naming the line', () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, `A=1\nB="${SECRET}\n`);
  expectRefused(f, `refusing to change ${f}: line 2: unterminated double-quoted value (the closing " is missing); the file was not changed`);
});

test('refuses a file that is not UTF-8', () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, Buffer.from([0x41, 0x3d, 0xff, 0x0a]));
  expectRefused(f, `refusing to change ${f}: it is not valid UTF-8 text; the file was not changed`);
});

test('refuses a missing parent directory', () => {
  const f = path.join(dir, 'nope', '.env');
  expectRefused(f, `cannot write ${f}: directory ${path.join(dir, 'nope')} does not exist; create it first or fix the path`);
});

test('refuses a directory', () => {
  const f = path.join(dir, 'sub');
  fs.mkdirSync(f);
  expectRefused(f, `cannot write ${f}: it is a directory; give the path of a file inside it (e.g. ${path.join(f, '.env')})`);
});

test('refuses a read-only file', () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  fs.chmodSync(f, 0o444);
  expectRefused(f, `cannot write ${f}: the file is not writable (mode 0444); make it writable (chmod u+w ${f}) or choose another file`);
});

test('refuses a symbolic link (to a file or dangling) and leaves the target alone', () => {
  const target = path.join(dir, 'real.env');
  fs.writeFileSync(target, 'A=1\n');
  const link = path.join(dir, '.env');
  fs.symlinkSync(target, link);
  expectRefused(link, `refusing to write ${link}: it is a symbolic link; point the path at the real file instead`);
  expect(fs.readFileSync(target, 'utf8')).toBe('A=1\n');
  const dangling = path.join(dir, 'dangling.env');
  fs.symlinkSync(path.join(dir, 'missing'), dangling);
  expectRefused(dangling, `refusing to write ${dangling}: it is a symbolic link; point the path at the real file instead`);
  expect(fs.existsSync(path.join(dir, 'missing'))).toBe(false);
});

test('waits for a held lock, then times out with a clear message and leaves the other lock alone', () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  fs.writeFileSync(`${f}.lock`, 'other writer\n');
  const t0 = Date.now();
  expectRefused(f, `timed out after 0.3 s waiting for the lock file ${f}.lock; another writer holds it (if none is running, delete that file)`);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
  expect(fs.readFileSync(`${f}.lock`, 'utf8')).toBe('other writer\n');
});

test('breaks a stale lock (older than 30 s) with a warning', () => {
  const f = path.join(dir, '.env');
  fs.writeFileSync(f, 'A=1\n');
  fs.chmodSync(f, 0o600);
  fs.writeFileSync(`${f}.lock`, 'crashed writer\n');
  const old = (Date.now() - 60_000) / 1000;
  fs.utimesSync(`${f}.lock`, old, old);
  updateFile(f, mergeT, opts());
  expect(fs.readFileSync(f, 'utf8')).toContain('QDRANT_API_KEY=');
  expect(warnings).toEqual([`warning: removed stale lock file ${f}.lock (older than 30 s)`]);
  expect(listing()).toEqual(['.env']);
});
