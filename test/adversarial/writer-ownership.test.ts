/**
 * Class A of the writer's security review: never delete or overwrite what is not ours.
 * Each test runs the real CLI (node assets/writer/cli.js) on real files and checks bytes:
 *   - destroy (remove) takes only what write put there, in .env and JSON files;
 *   - a refused write followed by a remove leaves the file byte for byte;
 *   - a file that write created is deleted again, also when two owners share it;
 *   - JSON keeps the original spelling of an empty object ({ }, {\n}, BOM, blank file);
 *   - a name defined by someone else is refused with the exact one-line message.
 * No output, error or sidecar may ever contain a key value.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as dotenv from 'dotenv';
import { leftovers, runCli, tempDir } from '../writer/run-cli';

// A bound, not a measurement: some tests start the writer a dozen times, which takes seconds on a busy machine.
jest.setTimeout(60_000);

const SECRET = 'canary-secret-ownership-51c2e7';
const SECRET2 = 'canary-secret-ownership-second-0d9b';
const outputs: string[] = [];
const FIX = 'give our entry another name with the secretNaming of the key that writes it (e.g. secretNaming: { prefix: "APP_" })';
const START = (o: string) => `# >>> managed by cdktf-qdrant-cluster-access (${o}) \u2014 do not edit`;
const END = (o: string) => `# <<< managed by cdktf-qdrant-cluster-access (${o})`;
const ENTRIES = { QDRANT_URL: 'https://h:6333', QDRANT_API_KEY: SECRET };

let tmp: ReturnType<typeof tempDir>;
let dir: string;
beforeEach(() => {
  tmp = tempDir('qca-own-');
  dir = tmp.path;
});
afterEach(() => {
  try {
    expect(leftovers(dir)).toEqual([]);
  } finally {
    tmp.remove();
  }
});
afterAll(() => {
  expect(outputs.length).toBeGreaterThan(0);
  for (const o of outputs) {
    expect(o).not.toContain(SECRET);
    expect(o).not.toContain(SECRET2);
  }
  // Every message is one line (plus its newline): `outputs` holds each run's stdout, then its
  // stderr. A stderr is nothing, or exactly one line; an error is the writer's one-line error
  // (its prefix, lower case, no trailing period).
  expect(outputs.length % 2).toBe(0);
  for (let i = 0; i < outputs.length; i += 2) {
    const [stdout, stderr] = [outputs[i], outputs[i + 1]];
    expect({ stdout, oneLine: /^([^\n]+\n)?$/.test(stdout) }).toEqual({ stdout, oneLine: true });
    expect({ stderr, oneLine: /^([^\n]+\n)?$/.test(stderr) }).toEqual({ stderr, oneLine: true });
    if (stderr.includes('error:')) expect(stderr).toMatch(/^qdrant-cluster-access-writer: error: [a-z][^\n]*[^.\n]\n$/);
  }
});

const write = (f: string, entries: unknown, owner = 'o', format = 'dotenv') =>
  runCli(['write', '--file', f, '--format', format, '--owner', owner], entries, {}, outputs);
const remove = (f: string, names: string[], owner = 'o', format = 'dotenv') =>
  runCli(['remove', '--file', f, '--format', format, '--owner', owner], names, {}, outputs);
const bytes = (f: string) => fs.readFileSync(f);
const sidecarOf = (f: string) => path.join(path.dirname(f), `.${path.basename(f)}.qdrant-cluster-access`);

describe('.env: destroy removes only what was written', () => {
  test('lines the user added inside and outside our block, and another owner\'s block, all survive remove', async () => {
    const f = path.join(dir, '.env');
    const original = '\ufeff# app\r\nexport DB="postgres://x" # keep\r\nMULTI="a\r\nb"\r\nLAST=1';
    fs.writeFileSync(f, original, { mode: 0o600 });
    expect((await write(f, ENTRIES)).code).toBe(0);
    expect((await write(f, { QDRANT_OTHER_URL: 'https://o:6333' }, 'other')).code).toBe(0);
    // The user edits: a note and an own variable inside our block; after everything, a line
    // and their own definition of one of our names (which wins in both parsers: the last one).
    let text = fs.readFileSync(f, 'utf8');
    text = text.replace(`${START('o')}\r\n`, `${START('o')}\r\n# pinned by ops\r\nMY_FLAG=on\r\n`) + '\r\nAFTER=2\r\nQDRANT_URL=https://users-own:6333';
    fs.writeFileSync(f, text);

    const r = await remove(f, Object.keys(ENTRIES));
    expect(r).toMatchObject({
      code: 0,
      stdout: `removed 2 entries from ${f} (0 not present; 2 lines inside the managed block of owner o that its record does not name were kept, ` +
        'and so were the block\'s markers (defining MY_FLAG))\n',
      stderr: '',
    });
    const after = fs.readFileSync(f, 'utf8');
    // Exactly our two entry lines are gone, and the record is empty (nothing left in the block is
    // ours); every other byte is where it was.
    expect(after).toBe(text.replace('QDRANT_URL=\'https://h:6333\'\r\n', '').replace(`QDRANT_API_KEY='${SECRET}'\r\n`, '')
      .replace('# cdktf-qdrant-cluster-access entries: QDRANT_API_KEY QDRANT_URL\r\n', '# cdktf-qdrant-cluster-access entries:\r\n'));
    expect(dotenv.parse(after)).toEqual({
      DB: 'postgres://x',
      MULTI: 'a\nb',
      LAST: '1',
      MY_FLAG: 'on',
      QDRANT_OTHER_URL: 'https://o:6333',
      AFTER: '2',
      QDRANT_URL: 'https://users-own:6333',
    });
  });

  test('write then remove on an untouched file gives back its exact bytes, or no file when there was none', async () => {
    for (const original of [null, '', 'A=1', 'A=1\n', '\ufeffA=1\r\n# c\r\n', '\n\n', 'X="q\ny"']) {
      const f = path.join(dir, '.env');
      if (original !== null) fs.writeFileSync(f, original);
      expect((await write(f, ENTRIES)).code).toBe(0);
      expect((await write(f, { ...ENTRIES, QDRANT_API_KEY: SECRET2 })).stdout).toContain('(1 updated, 0 added, 1 unchanged)');
      expect((await remove(f, Object.keys(ENTRIES))).code).toBe(0);
      const now = fs.existsSync(f) ? bytes(f).toString('utf8') : null;
      expect([original, now]).toEqual([original, original]);
      if (now !== null) fs.unlinkSync(f);
    }
  });
});

describe('a refused write followed by remove leaves the file byte for byte', () => {
  test('.env: the user already defines one of our names', async () => {
    const f = path.join(dir, '.env');
    const original = 'A=1\n  export QDRANT_API_KEY = "users-own-key" # theirs\n';
    fs.writeFileSync(f, original);
    const w = await write(f, ENTRIES);
    expect(w).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `qdrant-cluster-access-writer: error: refusing to change ${f}: line 2: QDRANT_API_KEY is already defined outside the managed block of owner o; remove that line, or ${FIX}; the file was not changed\n`,
    });
    const r = await remove(f, Object.keys(ENTRIES));
    expect(r).toMatchObject({
      code: 0,
      stdout: `removed 0 entries from ${f} (1 not present, 1 not ours left in place; no managed block of owner o in it, nothing changed)\n`,
    });
    expect(bytes(f).toString()).toBe(original);
  });

  test('JSON: the object already has a member with our name and no sidecar records it', async () => {
    const f = path.join(dir, 'keys.json');
    const original = '{\n  "QDRANT_URL": "https://mine:6333"\n}\n';
    fs.writeFileSync(f, original);
    const w = await write(f, ENTRIES, 'o', 'json');
    expect(w).toMatchObject({
      code: 1,
      stderr: `qdrant-cluster-access-writer: error: refusing to change ${f}: line 2: member "QDRANT_URL" already exists and there is no ownership record ${sidecarOf(f)} saying this tool wrote it ` +
        `(if an earlier version of this tool wrote it, deleting it is safe: the next deploy writes it again); remove that member, or ${FIX}; the file was not changed\n`,
    });
    expect(fs.existsSync(sidecarOf(f))).toBe(false);
    const r = await remove(f, Object.keys(ENTRIES), 'o', 'json');
    expect(r).toMatchObject({
      code: 0,
      // No sidecar at all: nothing says whether this tool wrote a member, so the note and a warning say it may have.
      stdout: `removed 0 entries from ${f} (1 not present, 1 not ours left in place; ${sidecarOf(f)} is missing, so nothing records which members owner o wrote: nothing changed, and members this tool wrote may still be in the file; delete them by hand)\n`,
    });
    expect(bytes(f).toString()).toBe(original);
    expect(fs.readdirSync(dir)).toEqual(['keys.json']);
  });
});

describe('a file that write created is deleted again', () => {
  test('.env: one owner', async () => {
    const f = path.join(dir, '.env');
    expect((await write(f, ENTRIES)).stdout).toBe(`wrote 2 entries to ${f} (0 updated, 2 added, file created)\n`);
    expect(fs.readFileSync(f, 'utf8').split('\n')[0]).toBe(`${START('o')} \u2014 created this file`);
    expect((await remove(f, Object.keys(ENTRIES))).stdout).toBe(`removed 2 entries from ${f} (0 not present, file deleted: this tool had created it)\n`);
    expect(fs.readdirSync(dir)).toEqual([]);
    // A line the user added meanwhile keeps the file.
    await write(f, ENTRIES);
    fs.appendFileSync(f, 'USER_LINE=1\n');
    expect((await remove(f, Object.keys(ENTRIES))).stdout).toBe(`removed 2 entries from ${f} (0 not present)\n`);
    expect(fs.readFileSync(f, 'utf8')).toBe('USER_LINE=1\n');
  });

  test('.env: two owners; removing the creator keeps the file and the record; removing the last deletes it', async () => {
    const f = path.join(dir, '.env');
    await write(f, ENTRIES, 'first');
    await write(f, { QDRANT_B_URL: 'https://b:6333' }, 'second');
    const r1 = await remove(f, Object.keys(ENTRIES), 'first');
    expect(r1.stdout).toBe(`removed 2 entries from ${f} (0 not present)\n`);
    expect(fs.readFileSync(f, 'utf8')).toBe(`${START('second')} \u2014 created this file\n# cdktf-qdrant-cluster-access entries: QDRANT_B_URL\nQDRANT_B_URL='https://b:6333'\n${END('second')}\n`);
    const r2 = await remove(f, ['QDRANT_B_URL'], 'second');
    expect(r2.stdout).toBe(`removed 1 entry from ${f} (0 not present, file deleted: this tool had created it)\n`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  test('JSON: two owners, either order; the sidecar goes with the last owner', async () => {
    for (const order of [['first', 'second'], ['second', 'first']]) {
      const f = path.join(dir, 'keys.json');
      const names: Record<string, string[]> = { first: ['QDRANT_URL', 'QDRANT_API_KEY'], second: ['QDRANT_B_URL'] };
      await write(f, ENTRIES, 'first', 'json');
      await write(f, { QDRANT_B_URL: 'https://b:6333' }, 'second', 'json');
      expect(JSON.parse(fs.readFileSync(sidecarOf(f), 'utf8'))).toMatchObject({ created: true, owners: names });
      const r1 = await remove(f, names[order[0]], order[0], 'json');
      expect(r1.stdout).not.toContain('file deleted');
      expect(fs.readdirSync(dir).sort()).toEqual(['.keys.json.qdrant-cluster-access', 'keys.json']);
      const r2 = await remove(f, names[order[1]], order[1], 'json');
      expect(r2.stdout).toContain('file deleted: this tool had created it');
      expect(fs.readdirSync(dir)).toEqual([]);
    }
  });

  test('JSON: one owner; a member the user added keeps the file', async () => {
    const f = path.join(dir, 'keys.json');
    await write(f, ENTRIES, 'o', 'json');
    expect((await remove(f, Object.keys(ENTRIES), 'o', 'json')).stdout).toContain('file deleted: this tool had created it');
    expect(fs.readdirSync(dir)).toEqual([]);
    await write(f, ENTRIES, 'o', 'json');
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('{\n', '{\n  "mine": 1,\n'));
    expect((await remove(f, Object.keys(ENTRIES), 'o', 'json')).stdout).toBe(`removed 2 entries from ${f} (0 not present)\n`);
    expect(fs.readFileSync(f, 'utf8')).toBe('{\n  "mine": 1\n}\n');
    expect(fs.readdirSync(dir)).toEqual(['keys.json']);
  });
});

describe('JSON keeps the original spelling exactly', () => {
  test.each([
    ['{}', '{}'], ['{ }', '{ }'], ['{\\n}', '{\n}'], ['{ }\\n', '{ }\n'], ['CRLF', '{\r\n}\r\n'], ['BOM', '\ufeff{ }\n'],
    ['empty file', ''], ['blank file', ' \n'], ['members', '{"a": [1, {"b": "}"}],\n   "c":null }'], ['CRLF members', '{\r\n\t"a": 1\r\n}'],
  ])('%s', async (_name, original) => {
    const f = path.join(dir, 'keys.json');
    fs.writeFileSync(f, original);
    expect((await write(f, ENTRIES, 'o', 'json')).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(f, 'utf8').replace(/^\ufeff/, ''))).toMatchObject(ENTRIES);
    // A second owner joins (and may not take o's name); the last one out restores the spelling.
    expect((await write(f, { QDRANT_B_URL: 'https://b:6333' }, 'second', 'json')).code).toBe(0);
    expect((await write(f, { QDRANT_URL: 'https://b:6333' }, 'second', 'json')).code).toBe(1);
    expect((await remove(f, Object.keys(ENTRIES), 'o', 'json')).stdout).toBe(`removed 2 entries from ${f} (0 not present)\n`);
    expect(JSON.parse(fs.readFileSync(f, 'utf8').replace(/^\ufeff/, ''))).toEqual({ ...JSON.parse(original.trim() || '{}'), QDRANT_B_URL: 'https://b:6333' });
    expect((await remove(f, ['QDRANT_B_URL'], 'second', 'json')).stdout).toBe(`removed 1 entry from ${f} (0 not present)\n`);
    expect([original, bytes(f).toString('utf8')]).toEqual([original, original]);
    expect(fs.readdirSync(dir)).toEqual(['keys.json']);
  });

  test('the sidecar holds names and spelling only, mode 0600, in the documented format', async () => {
    const f = path.join(dir, 'keys.json');
    fs.writeFileSync(f, '{ }\n', { mode: 0o644 });
    await write(f, ENTRIES, 'team/a', 'json');
    const side = fs.readFileSync(sidecarOf(f), 'utf8');
    expect(side).toBe([
      '{',
      '  "writer": "cdktf-qdrant-cluster-access",',
      '  "version": 1,',
      '  "created": false,',
      '  "originalWhenEmpty": "{ }\\n",',
      '  "owners": {',
      '    "team/a": [',
      '      "QDRANT_URL",',
      '      "QDRANT_API_KEY"',
      '    ]',
      '  }',
      '}',
      '',
    ].join('\n'));
    expect(side).not.toContain(SECRET);
    expect(fs.statSync(sidecarOf(f)).mode % 0o1000).toBe(0o600);
  });
});

describe('refusing what is not ours: the exact one-line messages', () => {
  test('.env: a name in another owner\'s block', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n');
    await write(f, { QDRANT_API_KEY: SECRET2 }, 'other');
    const before = bytes(f);
    const r = await write(f, ENTRIES);
    expect(r).toMatchObject({
      code: 1,
      stderr: `qdrant-cluster-access-writer: error: refusing to change ${f}: line 4: QDRANT_API_KEY is already defined in the managed block of owner other; remove that line, or ${FIX}; the file was not changed\n`,
    });
    expect(bytes(f).equals(before)).toBe(true);
    // And the other owner's entry is not ours to remove.
    expect((await remove(f, ['QDRANT_API_KEY'])).stdout).toContain('1 not ours left in place; no managed block of owner o in it, nothing changed');
    expect(bytes(f).equals(before)).toBe(true);
  });

  test('.env: a name the user added after our write (outside the block)', async () => {
    const f = path.join(dir, '.env');
    await write(f, ENTRIES);
    fs.appendFileSync(f, 'QDRANT_URL=https://users-choice:6333\n');
    const before = bytes(f);
    const r = await write(f, ENTRIES);
    expect(r.stderr).toBe(`qdrant-cluster-access-writer: error: refusing to change ${f}: line 6: QDRANT_URL is already defined outside the managed block of owner o; remove that line, or ${FIX}; the file was not changed\n`);
    expect(bytes(f).equals(before)).toBe(true);
    // remove takes our block and leaves the user's line.
    expect((await remove(f, Object.keys(ENTRIES))).stdout).toBe(`removed 2 entries from ${f} (0 not present)\n`);
    expect(fs.readFileSync(f, 'utf8')).toBe('QDRANT_URL=https://users-choice:6333\n');
  });

  test('JSON: a member the user added next to a sidecar of ours', async () => {
    const f = path.join(dir, 'keys.json');
    fs.writeFileSync(f, '{\r\n  "x": 1\r\n}\r\n');
    await write(f, { QDRANT_URL: 'https://h:6333' }, 'o', 'json');
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('"x": 1', '"x": 1,\r\n  "QDRANT_API_KEY": "users"'));
    const before = bytes(f);
    const r = await write(f, ENTRIES, 'o', 'json');
    expect(r.stderr).toBe(`qdrant-cluster-access-writer: error: refusing to change ${f}: line 3: member "QDRANT_API_KEY" already exists and ${sidecarOf(f)} does not record it as written for owner o; remove that member, or ${FIX}; the file was not changed\n`);
    expect(bytes(f).equals(before)).toBe(true);
  });

  test('JSON: a member written for another owner', async () => {
    const f = path.join(dir, 'keys.json');
    await write(f, { QDRANT_API_KEY: SECRET2 }, 'other', 'json');
    const before = bytes(f);
    const r = await write(f, ENTRIES, 'o', 'json');
    expect(r.stderr).toBe(`qdrant-cluster-access-writer: error: refusing to change ${f}: line 2: member "QDRANT_API_KEY" was written for owner other (recorded in ${sidecarOf(f)}); ${FIX}, or remove owner other's entries first; the file was not changed\n`);
    expect(bytes(f).equals(before)).toBe(true);
    // Even when the member was deleted by hand, the record keeps it the other owner's.
    fs.writeFileSync(f, '{}\n');
    const r2 = await write(f, ENTRIES, 'o', 'json');
    expect(r2.stderr).toBe(`qdrant-cluster-access-writer: error: refusing to change ${f}: member "QDRANT_API_KEY" is recorded in ${sidecarOf(f)} as written for owner other; ${FIX}, or remove owner other's entries first; the file was not changed\n`);
  });

  test('JSON: a damaged sidecar is refused, never overwritten', async () => {
    const f = path.join(dir, 'keys.json');
    fs.writeFileSync(f, '{}\n');
    fs.writeFileSync(sidecarOf(f), '{"writer": "someone else"}\n');
    for (const r of [await write(f, ENTRIES, 'o', 'json'), await remove(f, Object.keys(ENTRIES), 'o', 'json')]) {
      expect(r).toMatchObject({
        code: 1,
        stderr: `qdrant-cluster-access-writer: error: refusing to change ${f}: the ownership record ${sidecarOf(f)} was not written by cdktf-qdrant-cluster-access; ` +
          'restore it, or delete it and remove the members it listed from the file by hand; the file was not changed\n',
      });
    }
    expect(fs.readFileSync(sidecarOf(f), 'utf8')).toBe('{"writer": "someone else"}\n');
    expect(fs.readFileSync(f, 'utf8')).toBe('{}\n');
  });
});

describe('remove with nothing of ours changes nothing and exits 0 saying so', () => {
  test('missing files, an .env without our block, a JSON file without our record', async () => {
    for (const format of ['dotenv', 'json']) {
      const f = path.join(dir, 'missing');
      const r = await remove(f, ['QDRANT_URL'], 'o', format);
      expect(r).toMatchObject({ code: 0, stdout: `removed 0 entries from ${f} (1 not present, file does not exist)\n`, stderr: '' });
      expect(fs.readdirSync(dir)).toEqual([]);
    }
    const env = path.join(dir, '.env');
    fs.writeFileSync(env, 'A=1');
    expect(await remove(env, ['QDRANT_URL'])).toMatchObject({
      code: 0,
      stdout: `removed 0 entries from ${env} (1 not present; no managed block of owner o in it, nothing changed)\n`,
    });
    const f = path.join(dir, 'keys.json');
    fs.writeFileSync(f, '{"a": 1}');
    expect(await remove(f, ['QDRANT_URL'], 'o', 'json')).toMatchObject({
      code: 0,
      stdout: `removed 0 entries from ${f} (1 not present; ${sidecarOf(f)} is missing, so nothing records which members owner o wrote: nothing changed, and members this tool wrote may still be in the file; delete them by hand)\n`,
      stderr: expect.stringMatching(/^warning: .* is missing: nothing was removed for owner o, .*; delete them by hand\n$/),
    });
    expect(fs.readdirSync(dir).sort()).toEqual(['.env', 'keys.json']);
    expect(fs.readFileSync(env, 'utf8')).toBe('A=1');
    expect(fs.readFileSync(f, 'utf8')).toBe('{"a": 1}');
  });
});
