/**
 * assets/writer/file.js: a program that does not take the writer's lock (an editor, `echo >> .env`)
 * writes the target between the writer's read and its commit. The writer notices just before the
 * rename or unlink, reads and plans again (so what the other program wrote is kept), and when the
 * file keeps changing fails with one line, leaving the other program's version, no temp file and
 * no lock.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { planMerge, planRemove } = require('../../assets/writer/dotenv.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { updateFile, DELETE } = require('../../assets/writer/file.js');

// The new text of a merge or a removal (dotenv.ts planMerge, planRemove).
const mergeEntries = (t: string | null, e: Record<string, string>, o: { owner: string }) => planMerge(t, e, o).text;

const SECRET = 'canary-secret-change-5c1d';
const KEY_LINE = `QDRANT_API_KEY='${SECRET}'`;

let dir: string;
let f: string;
let warnings: string[];
const opts = (extra: Record<string, unknown> = {}) => ({ warn: (m: string) => warnings.push(m), lockTimeoutMs: 300, ...extra });
const mergeT = (t: string | null) => mergeEntries(t, { QDRANT_API_KEY: SECRET }, { owner: 't' });
/** What the writer CLI does on destroy: remove our entries, delete the file when we created it. */
const removeT = (t: string | null) => {
  const p = planRemove(t, ['QDRANT_API_KEY'], { owner: 't', all: true });
  return p.deleteFile ? DELETE : p.text;
};
const listing = () => fs.readdirSync(dir).sort();
const read = () => fs.readFileSync(f, 'utf8');

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-change-'));
  f = path.join(dir, '.env');
  warnings = [];
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected the update to fail');
}

describe('a write', () => {
  test('a line appended once between the read and the rename is kept: the writer reads and merges again', async () => {
    fs.writeFileSync(f, 'A=1\n');
    fs.chmodSync(f, 0o644);
    const temps: string[] = [];
    const testHooks = {
      beforeRename: (tmp: string) => {
        temps.push(tmp);
        if (temps.length === 1) fs.appendFileSync(f, 'ADDED_BY_EDITOR=1\n');
      },
    };
    expect(await updateFile(f, mergeT, opts({ testHooks }))).toEqual({ existed: true, changed: true, deleted: false });
    expect(temps).toHaveLength(2);
    const text = read();
    expect(text.startsWith('A=1\nADDED_BY_EDITOR=1\n')).toBe(true);
    expect(text).toContain(KEY_LINE);
    // The dropped temp file is gone, the mode kept; the warning of the read is not repeated.
    expect(listing()).toEqual(['.env']);
    expect(fs.statSync(f).mode % 0o1000).toBe(0o644);
    expect(warnings).toEqual([`warning: ${f} is readable by all users (mode 0644) and holds API keys; consider chmod 600 ${f}`]);
  });

  test('an in-place rewrite of the same size is seen (timestamps), and an editor that saves by rename (another inode) too', async () => {
    fs.writeFileSync(f, 'A=1\n');
    let calls = 0;
    const testHooks = {
      beforeRename: () => {
        calls++;
        if (calls === 1) {
          // Same size: only mtime/ctime say it changed. Force a later mtime, as a clock tick would.
          fs.writeFileSync(f, 'A=2\n');
          const later = new Date(Date.now() + 5000);
          fs.utimesSync(f, later, later);
        } else if (calls === 2) {
          const saved = path.join(dir, '.env.editor-swap');
          fs.writeFileSync(saved, 'A=3\nB=3\n');
          fs.renameSync(saved, f);
        }
      },
    };
    await updateFile(f, mergeT, opts({ testHooks }));
    expect(calls).toBe(3);
    expect(read().startsWith('A=3\nB=3\n')).toBe(true);
    expect(read()).toContain(KEY_LINE);
    expect(listing()).toEqual(['.env']);
  });

  test('a file created by another program where there was none is merged, not overwritten', async () => {
    let calls = 0;
    const testHooks = { beforeRename: () => { if (++calls === 1) fs.writeFileSync(f, 'MINE=1\n'); } };
    expect(await updateFile(f, mergeT, opts({ testHooks }))).toEqual({ existed: true, changed: true, deleted: false });
    expect(calls).toBe(2);
    expect(read().startsWith('MINE=1\n')).toBe(true);
    expect(read()).toContain(KEY_LINE);
    expect(listing()).toEqual(['.env']);
  });

  test('a file that changes on every attempt: one-line error, the other program\'s last version, no temp file, no lock', async () => {
    fs.writeFileSync(f, 'A=1\n');
    let calls = 0;
    const testHooks = { beforeRename: () => fs.appendFileSync(f, `EDIT_${++calls}=x\n`) };
    const err = await failure(updateFile(f, mergeT, opts({ testHooks })));
    expect(err.message).toBe(`refusing to change ${f}: it kept changing while being written (it was read 4 times and another program wrote it each time); the file was not changed; run the deploy again once nothing else is writing it`);
    expect((err as any).code).toBe('ECHANGED');
    expect(err.message).not.toContain(SECRET);
    expect(calls).toBe(4);
    expect(read()).toBe('A=1\nEDIT_1=x\nEDIT_2=x\nEDIT_3=x\nEDIT_4=x\n');
    expect(listing()).toEqual(['.env']);
  });

  test('with a sidecar written first: it is put back before the new read, so the new plan starts from it as it was', async () => {
    const target = path.join(dir, 'keys.json');
    const side = path.join(dir, '.keys.json.side');
    fs.writeFileSync(target, '{}\n');
    const seen: Array<[string, string | null]> = [];
    let calls = 0;
    const testHooks = { beforeRename: () => { if (++calls === 1) fs.writeFileSync(target, '{"USER": 1}\n'); } };
    const transform = (t: string, s: string | null) => {
      seen.push([t, s]);
      return { text: t.replace('}', ' '), sidecar: (s ?? '') + 'x', sidecarFirst: true };
    };
    await updateFile(target, transform, opts({ sidecar: side, testHooks }));
    expect(seen).toEqual([['{}\n', null], ['{"USER": 1}\n', null]]);
    expect(fs.readFileSync(target, 'utf8')).toBe('{"USER": 1 \n');
    expect(fs.readFileSync(side, 'utf8')).toBe('x');
    expect(listing()).toEqual(['.keys.json.side', 'keys.json']);
  });
});

describe('a removal (destroy)', () => {
  test('a line appended to a file the tool created, between the read and the unlink, keeps the file and the line', async () => {
    await updateFile(f, mergeT, opts());
    let calls = 0;
    const appendOnce = (t: string | null) => {
      if (++calls === 1) fs.appendFileSync(f, 'USER_LINE=1\n');
      return removeT(t);
    };
    expect(await updateFile(f, appendOnce, opts({ removing: true }))).toEqual({ existed: true, changed: true, deleted: false });
    expect(calls).toBe(2);
    expect(read()).not.toContain(SECRET);
    expect(read()).toContain('USER_LINE=1\n');
    expect(listing()).toEqual(['.env']);
  });

  test('without another program the same file is deleted', async () => {
    await updateFile(f, mergeT, opts());
    expect(await updateFile(f, removeT, opts({ removing: true }))).toEqual({ existed: true, changed: true, deleted: true });
    expect(listing()).toEqual([]);
  });

  test('a file that changes on every attempt is not deleted: one-line error naming the destroy', async () => {
    await updateFile(f, mergeT, opts());
    const created = read();
    let calls = 0;
    const appendEach = (t: string | null) => {
      fs.appendFileSync(f, `# edit ${++calls}\n`);
      // Plans on what it read; the first read held only our entries, so the file goes.
      return calls === 1 ? removeT(t) : DELETE;
    };
    const err = await failure(updateFile(f, appendEach, opts({ removing: true })));
    expect(err.message).toBe(`refusing to change ${f}: it kept changing while being written (it was read 4 times and another program wrote it each time); the file was not changed; run the destroy again once nothing else is writing it`);
    expect(calls).toBe(4);
    expect(read()).toBe(`${created}# edit 1\n# edit 2\n# edit 3\n# edit 4\n`);
    expect(listing()).toEqual(['.env']);
  });
});
