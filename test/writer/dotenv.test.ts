/**
 * Unit tests for assets/writer/dotenv.js: the line model, merge/remove rules and formatValue's
 * refusals. Round trips through the real parsers are in roundtrip.test.ts.
 */
// dotenv.js is plain CommonJS without a .d.ts.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const w = require('../../assets/writer/dotenv.js');

const OWNER = 'prod-eu';
const START = `# >>> managed by cdktf-qdrant-cluster-access (${OWNER}) \u2014 do not edit`;
const END = `# <<< managed by cdktf-qdrant-cluster-access (${OWNER})`;
const SECRET = 'canary-secret-7f3a9c';

const merge = (t: string, e: Record<string, string>, owner = OWNER): string => w.mergeEntries(t, e, { owner });
const remove = (t: string, n: string[], owner = OWNER): string => w.removeEntries(t, n, { owner });

describe('parseDotenv', () => {
  test('keeps every byte and knows which lines define which key', () => {
    const text = [
      '# comment\r\n',
      '\r\n',
      'export A=1\r\n',
      "  B = 'two words' # note\r\n",
      'C="multi\r\nline\nvalue"\r\n',
      'D=`tick`\r\n',
      'E=\r\n',
      'F=x#y # z',
    ].join('');
    const m = w.parseDotenv(text);
    expect(m.items.map((i: any) => i.raw).join('')).toBe(text);
    const assigns = m.items.filter((i: any) => i.kind === 'assign');
    expect(assigns.map((i: any) => [i.key, i.line, i.endLine])).toEqual([
      ['A', 3, 3], ['B', 4, 4], ['C', 5, 7], ['D', 8, 8], ['E', 9, 9], ['F', 10, 10],
    ]);
    expect(assigns[0].exported).toBe(true);
    expect(assigns[1].suffix).toBe(' # note');
    expect(assigns[5].valueRaw).toBe('x#y');
    expect(m.eol).toBe('\r\n');
    expect(m.items[m.items.length - 1].eol).toBe('');
  });

  test('keeps a UTF-8 byte order mark', () => {
    const text = '\ufeffA=1\n';
    expect(merge(text, { Q: 'v' }).startsWith('\ufeffA=1\n')).toBe(true);
    expect(remove(merge(text, { Q: 'v' }), ['Q'])).toBe(text);
  });

  test('a quote preceded by a backslash does not close a quoted value', () => {
    const m = w.parseDotenv('A="say \\"hi\\"" # c\nB=1\n');
    expect(m.items.map((i: any) => i.key)).toEqual(['A', 'B']);
  });

  test.each([
    ['A="open\nB=1\n', 'line 1: unterminated double-quoted value (the closing " is missing)'],
    ["X=1\nA='open\n", "line 2: unterminated single-quoted value (the closing ' is missing)"],
    ['A="x" y\n', 'line 1: unexpected text after the closing quote (only spaces and a # comment may follow)'],
    ['A=1\nnot an assignment\n', 'line 2: expected NAME=value, a comment (#) or a blank line'],
    ['A=1\n"B"=2\n', 'line 2: expected NAME=value, a comment (#) or a blank line'],
    ['KEY: value\n', 'line 1: expected NAME=value, a comment (#) or a blank line'],
    ['export =1\n', 'line 1: "export" is not followed by a variable name'],
    ['A=`x\ny`\n', 'line 1: a backtick-quoted value must be closed on the same line and contain no backslash'],
    [`A=1\n# ok\nA2="${SECRET}\n`, 'line 3: unterminated double-quoted value (the closing " is missing)'],
  ])('refuses invalid dotenv %j naming the line', (text, message) => {
    expect(() => w.parseDotenv(text)).toThrow(message);
    let err: any;
    try { w.parseDotenv(text); } catch (e) { err = e; }
    expect(err.message).not.toContain(SECRET);
    expect(() => merge(text, { Q: 'v' })).toThrow(message);
    expect(() => remove(text, ['Q'])).toThrow(message);
  });
});

describe('mergeEntries', () => {
  test('appends a managed block to a file without our keys, and is idempotent', () => {
    const text = 'A=1\n# keep me\n';
    const out = merge(text, { QDRANT_URL: 'https://h:6333', QDRANT_API_KEY: SECRET });
    expect(out).toBe(`A=1\n# keep me\n${START}\nQDRANT_URL='https://h:6333'\nQDRANT_API_KEY='${SECRET}'\n${END}\n`);
    expect(merge(out, { QDRANT_URL: 'https://h:6333', QDRANT_API_KEY: SECRET })).toBe(out);
  });

  test('updates in place, keeping export, spacing, comment and line ending', () => {
    const text = 'A=1\r\nexport  QDRANT_URL = old # the url\r\nB=2';
    const out = merge(text, { QDRANT_URL: 'new' });
    expect(out).toBe("A=1\r\nexport  QDRANT_URL = 'new' # the url\r\nB=2");
    expect(merge(out, { QDRANT_URL: 'new' })).toBe(out);
  });

  test('replaces a multi-line value in place and leaves the lines around it alone', () => {
    const text = 'A=1\nQDRANT_URL="line1\nline2"\nB=2\n';
    expect(merge(text, { QDRANT_URL: 'x' })).toBe("A=1\nQDRANT_URL='x'\nB=2\n");
  });

  test('updates every definition of a duplicated key', () => {
    expect(merge('K=1\nA=2\nK=3\n', { K: 'v' })).toBe("K='v'\nA=2\nK='v'\n");
  });

  test('an unquoted value written before a comment without a space gets a space', () => {
    expect(merge('K="x"#c\n', { K: 'it\'s "q"' })).toBe('K=it\'s "q" #c\n');
  });

  test('adds new keys inside the existing block; other owners get their own blocks', () => {
    const one = merge('A=1\n', { K1: 'a' });
    const two = merge(one, { K2: 'b' });
    expect(two).toBe(`A=1\n${START}\nK1='a'\nK2='b'\n${END}\n`);
    const other = merge(two, { K3: 'c' }, 'other');
    expect(other).toContain("# >>> managed by cdktf-qdrant-cluster-access (other) \u2014 do not edit\nK3='c'\n");
    expect(remove(other, ['K3'], 'other')).toBe(two);
  });

  test('uses the file\'s line ending and keeps a missing final newline', () => {
    const crlf = merge('A=1\r\n', { K: 'v' });
    expect(crlf).toBe(`A=1\r\n${START}\r\nK='v'\r\n${END}\r\n`);
    const noEol = merge('A=1', { K: 'v' });
    expect(noEol).toBe(`A=1\n${START}\nK='v'\n${END}`);
    expect(remove(noEol, ['K'])).toBe('A=1');
    expect(merge('', { K: 'v' })).toBe(`${START}\nK='v'\n${END}\n`);
    expect(remove(merge('', { K: 'v' }), ['K'])).toBe('');
  });

  test('reports what changed', () => {
    const r = w.planMerge("A=1\nK='same'\nL=old\n", { K: 'same', L: 'new', M: 'm' }, { owner: OWNER });
    expect([r.updated, r.added, r.unchanged]).toEqual([['L'], ['M'], ['K']]);
  });

  test('refuses a damaged managed block', () => {
    expect(() => merge(`A=1\n${START}\nK=1\n`, { Z: 'z' }))
      .toThrow(`line 2: managed block for owner ${OWNER} has no end marker; restore the line "${END}" after its entries, or delete this line`);
    expect(() => merge(`A=1\n${END}\n`, { Z: 'z' }))
      .toThrow(`line 2: end marker of the managed block for owner ${OWNER} has no start marker before it`);
  });

  test('refuses bad names, owners and values without echoing the value', () => {
    expect(() => merge('', { '1BAD': 'v' })).toThrow('entry name "1BAD" is not a valid variable name');
    expect(() => merge('', { 'A-B': 'v' })).toThrow('is not a valid variable name');
    expect(() => merge('', { K: 'v' }, 'has space')).toThrow('owner must be');
    expect(() => merge('', { K: 'v' }, 'x)\n#')).toThrow('owner must be');
    const bad = `${SECRET}\nsecond line`;
    expect(() => merge('', { K: bad })).toThrow('entry K: value contains a line break; only single-line values can be written');
    try { merge('', { K: bad }); } catch (e: any) { expect(e.message).not.toContain(SECRET); }
  });
});

describe('removeEntries', () => {
  test('merge then remove gives back the original exactly', () => {
    for (const text of ['', 'A=1', 'A=1\n', 'A=1\r\n\r\n# c\r\n', '# only a comment', 'B="x\ny"', '\n\n']) {
      const merged = merge(text, { QDRANT_URL: 'u', QDRANT_API_KEY: SECRET });
      expect(remove(merged, ['QDRANT_URL', 'QDRANT_API_KEY'])).toBe(text);
    }
  });

  test('removes our keys outside the block too, and keeps a block that still has lines', () => {
    const text = `A=1\nK=old\n${START}\nL='x'\n# user note\n${END}\n`;
    expect(remove(text, ['K', 'L'])).toBe(`A=1\n${START}\n# user note\n${END}\n`);
  });

  test('leaves other owners\' blocks and foreign lines alone', () => {
    const text = merge(merge('A=1\n', { K: 'a' }), { L: 'b' }, 'other');
    const out = remove(text, ['K']);
    expect(out).toBe("A=1\n# >>> managed by cdktf-qdrant-cluster-access (other) \u2014 do not edit\nL='b'\n# <<< managed by cdktf-qdrant-cluster-access (other)\n");
    const r = w.planRemove(text, ['K', 'NOPE'], { owner: OWNER });
    expect([r.removed, r.absent]).toEqual([['K'], ['NOPE']]);
  });

  test('is a no-op on a file without our keys', () => {
    const text = '# c\nA=1\n  B = 2  \n';
    expect(remove(text, ['K'])).toBe(text);
  });
});

describe('formatValue', () => {
  test.each([
    ['plain', "'plain'"],
    ['', "''"],
    ['with space # and hash', "'with space # and hash'"],
    ['$HOME $ {x}', "'$HOME $ {x}'"],
    ['back\\slash', "'back\\slash'"],
    ['a=b=c', "'a=b=c'"],
    ['dqu"ote', "'dqu\"ote'"],
    ["it's", '"it\'s"'],
    ["it's #1", '"it\'s #1"'],
    ['ünï ✓ 🔑', "'ünï ✓ 🔑'"],
    ['it\'s "q"', 'it\'s "q"'],
    // single quotes cannot end in a backslash and double quotes cannot hold one: unquoted.
    ['ends\\', 'ends\\'],
  ])('%j is written as %s', (value, expected) => {
    expect(w.formatValue(value)).toBe(expected);
  });

  test.each([
    ['a\nb', 'value contains a line break'],
    ['a\rb', 'value contains a line break'],
    ['${HOME}', 'value contains ${...}, which python-dotenv would expand'],
    ['x${A:-b}y', 'value contains ${...}'],
    ['\ud800', 'value is not valid Unicode text'],
    ["' #\\\\", 'value cannot be quoted so that both dotenv and python-dotenv read it back unchanged'],
    ['it\'s "q" # c', 'value cannot be quoted'],
    [' it\'s "q"', 'value cannot be quoted'],
  ])('refuses %j', (value, message) => {
    expect(() => w.formatValue(value)).toThrow(message);
  });
});
