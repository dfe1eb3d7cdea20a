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
/** The record line of a block: the names its owner wrote, sorted. */
const REC = (...names: string[]) => `# cdktf-qdrant-cluster-access entries: ${names.sort().join(' ')}`;
const SECRET = 'canary-secret-7f3a9c';

const merge = (t: string, e: Record<string, string>, owner = OWNER): string => w.planMerge(t, e, { owner }).text;
const remove = (t: string, n: string[], owner = OWNER): string => w.planRemove(t, n, { owner }).text;

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

  test('the line ending of a new block is the file\'s, not a stray \\r inside a quoted value on the first line', () => {
    expect(merge("X='a\rb'\nY=1\n", { Q: 'v' })).toBe(`X='a\rb'\nY=1\n${START}\n${REC('Q')}\nQ='v'\n${END}\n`);
    // In a file of lone CRs, our lines end in \r\n: Node's --env-file deletes a lone \r, and would read them as one line.
    expect(merge('X=1\rY=1\r', { Q: 'v' })).toBe(`X=1\rY=1\r${START}\r\n${REC('Q')}\r\nQ='v'\r\n${END}\r\n`);
    expect(remove(merge('X=1\rY=1', { Q: 'v' }), ['Q'])).toBe('X=1\rY=1');
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
    expect(out).toBe(`A=1\n# keep me\n${START}\n${REC('QDRANT_URL', 'QDRANT_API_KEY')}\nQDRANT_URL='https://h:6333'\nQDRANT_API_KEY='${SECRET}'\n${END}\n`);
    expect(merge(out, { QDRANT_URL: 'https://h:6333', QDRANT_API_KEY: SECRET })).toBe(out);
  });

  test('a name added to an existing block of a CRLF file gets CRLF, like the lines around it (found by a mutation audit)', () => {
    const first = merge('A=1\r\n', { QDRANT_URL: 'u' });
    expect(first).toBe(`A=1\r\n${START}\r\n${REC('QDRANT_URL')}\r\nQDRANT_URL='u'\r\n${END}\r\n`);
    const second = merge(first, { QDRANT_URL: 'u', QDRANT_API_KEY: 'k' });
    expect(second).toBe(`A=1\r\n${START}\r\n${REC('QDRANT_URL', 'QDRANT_API_KEY')}\r\nQDRANT_URL='u'\r\nQDRANT_API_KEY='k'\r\n${END}\r\n`);
  });

  test('updates in place inside our block, keeping export, spacing, comment and line ending', () => {
    const text = `A=1\r\n${START}\r\nexport  QDRANT_URL = old # the url\r\n${END}\r\nB=2`;
    const out = merge(text, { QDRANT_URL: 'new' });
    // A block written before the record existed gets one, with the line ending of its start marker.
    expect(out).toBe(`A=1\r\n${START}\r\n${REC('QDRANT_URL')}\r\nexport  QDRANT_URL = 'new' # the url\r\n${END}\r\nB=2`);
    expect(merge(out, { QDRANT_URL: 'new' })).toBe(out);
  });

  test('replaces a multi-line value in place and leaves the lines around it alone', () => {
    const text = `A=1\n${START}\n# note\nQDRANT_URL="line1\nline2"\nB=2\n${END}\n`;
    expect(merge(text, { QDRANT_URL: 'x' })).toBe(`A=1\n${START}\n${REC('QDRANT_URL')}\n# note\nQDRANT_URL='x'\nB=2\n${END}\n`);
  });

  test('updates every definition of a duplicated key inside the block; only changed lines change', () => {
    const text = `${START}\nK=1\nA=2\nK=3\nL='same'\n${END}\n`;
    expect(merge(text, { K: 'v', L: 'same' })).toBe(`${START}\n${REC('K', 'L')}\nK='v'\nA=2\nK='v'\nL='same'\n${END}\n`);
  });

  test('an unquoted value written before a comment without a space gets a space', () => {
    expect(merge(`${START}\n${REC('K')}\nK="x"#c\n${END}\n`, { K: 'it\'s "q"' })).toBe(`${START}\n${REC('K')}\nK=it's "q" #c\n${END}\n`);
  });

  test('reports what changed', () => {
    const r = w.planMerge(`A=1\n${START}\nK='same'\nL=old\n${END}\n`, { K: 'same', L: 'new', M: 'm' }, { owner: OWNER });
    expect([r.updated, r.added, r.unchanged]).toEqual([['L'], ['M'], ['K']]);
    expect(r.text).toBe(`A=1\n${START}\n${REC('K', 'L', 'M')}\nK='same'\nL='new'\nM='m'\n${END}\n`);
    expect(r.dropped).toEqual([]);
  });

  test('adds new keys inside the existing block; other owners get their own blocks', () => {
    const one = merge('A=1\n', { K1: 'a' });
    const two = merge(one, { K1: 'a', K2: 'b' });
    expect(two).toBe(`A=1\n${START}\n${REC('K1', 'K2')}\nK1='a'\nK2='b'\n${END}\n`);
    const other = merge(two, { K3: 'c' }, 'other');
    expect(other).toContain(`# >>> managed by cdktf-qdrant-cluster-access (other) \u2014 do not edit\n${REC('K3')}\nK3='c'\n`);
    expect(remove(other, ['K3'], 'other')).toBe(two);
  });

  test('sets the owner\'s entries to exactly the given ones: recorded names no longer given are dropped, nothing else', () => {
    const one = merge('A=1\n', { K1: 'a', K2: 'b' });
    // The user's own lines inside our block (a note, a variable) are not in the record.
    const edited = one.replace(`${REC('K1', 'K2')}\n`, `${REC('K1', 'K2')}\n# ops note\nMY_FLAG=on\n`);
    const r = w.planMerge(edited, { K2: 'b2', K3: 'c' }, { owner: OWNER });
    expect(r.text).toBe(`A=1\n${START}\n${REC('K2', 'K3')}\n# ops note\nMY_FLAG=on\nK2='b2'\nK3='c'\n${END}\n`);
    expect([r.added, r.updated, r.unchanged, r.dropped]).toEqual([['K3'], ['K2'], [], ['K1']]);
    // The order of the entries does not show: the same entries in another order change nothing.
    expect(merge(r.text, { K3: 'c', K2: 'b2' })).toBe(r.text);
    // A block written before the record existed: nothing is dropped (nothing is known to be ours).
    const legacy = `A=1\n${START}\nK1='a'\nMY_FLAG=on\n${END}\n`;
    const l = w.planMerge(legacy, { K2: 'b' }, { owner: OWNER });
    expect(l.text).toBe(`A=1\n${START}\n${REC('K2')}\nK1='a'\nMY_FLAG=on\nK2='b'\n${END}\n`);
    expect(l.dropped).toEqual([]);
  });

  test('a note of the user\'s that looks like a record ("# entries: ...") is not read as one, wherever it is in the block', () => {
    // A block written before the record existed, with such a note among the user's lines.
    const legacy = `A=1\n${START}\nK1='a'\n# entries: DEBUG\nDEBUG=1\n${END}\n`;
    const l = w.planMerge(legacy, { K1: 'a2' }, { owner: OWNER });
    expect(l.text).toBe(`A=1\n${START}\n${REC('K1')}\nK1='a2'\n# entries: DEBUG\nDEBUG=1\n${END}\n`);
    expect(l.dropped).toEqual([]);
    expect(w.planRemove(l.text, [], { owner: OWNER, all: true }).text).toBe(`A=1\n${START}\n${w.recordLine([])}\n# entries: DEBUG\nDEBUG=1\n${END}\n`);
    // Right after the start marker, above our record.
    const noted = merge('A=1\n', { K1: 'a' }).replace(`${START}\n`, `${START}\n# entries: MY_FLAG\nMY_FLAG=on\n`);
    const r = w.planMerge(noted, { K2: 'b' }, { owner: OWNER });
    expect([r.added, r.dropped]).toEqual([['K2'], ['K1']]);
    expect(r.text).toContain('# entries: MY_FLAG\nMY_FLAG=on\n');
  });

  test('uses the file\'s line ending and keeps a missing final newline', () => {
    const crlf = merge('A=1\r\n', { K: 'v' });
    expect(crlf).toBe(`A=1\r\n${START}\r\n${REC('K')}\r\nK='v'\r\n${END}\r\n`);
    const noEol = merge('A=1', { K: 'v' });
    expect(noEol).toBe(`A=1\n${START}\n${REC('K')}\nK='v'\n${END}`);
    expect(remove(noEol, ['K'])).toBe('A=1');
    expect(merge('', { K: 'v' })).toBe(`${START}\n${REC('K')}\nK='v'\n${END}\n`);
    expect(remove(merge('', { K: 'v' }), ['K'])).toBe('');
  });

  test('refuses a damaged managed block', () => {
    expect(() => merge(`A=1\n${START}\nK=1\n`, { Z: 'z' }))
      .toThrow(`line 2: managed block for owner ${OWNER} has no end marker; restore the line "${END}" after its entries, or delete this line`);
    expect(() => merge(`A=1\n${END}\n`, { Z: 'z' }))
      .toThrow(`line 2: end marker of the managed block for owner ${OWNER} has no start marker before it`);
    expect(() => remove(`A=1\n${END}\n`, ['Z'])).toThrow('line 2: end marker of the managed block');
  });

  test('refuses a second block of the same owner, and a block inside another block', () => {
    const twice = `${START}\nK='1'\n${END}\n${START}\nL='2'\n${END}\n`;
    const msg = `line 4: a second marker of the managed block for owner ${OWNER} (the block starts on line 1); merge the two blocks into one, or delete this line`;
    expect(() => merge(twice, { K: 'v' })).toThrow(msg);
    expect(() => remove(twice, ['K'])).toThrow(msg);
    const other = w.startMarker('other');
    const otherEnd = w.endMarker('other');
    expect(() => merge(`${START}\n${other}\nK='1'\n${otherEnd}\n${END}\n`, { K: 'v' }))
      .toThrow(`line 2: a marker of another managed block inside the block for owner ${OWNER} (lines 1-5); move that block out of it`);
    expect(() => merge(`${other}\n${START}\nK='1'\n${END}\n${otherEnd}\n`, { K: 'v' }))
      .toThrow(`line 2: the managed block for owner ${OWNER} starts inside the block of owner other; move it out of that block`);
  });

  test('refuses a name defined outside our block, naming the line and the fix; also in another owner\'s block', () => {
    const fix = 'remove that line, or give our entry another name with the secretNaming of the key that writes it (e.g. secretNaming: { prefix: "APP_" })';
    expect(() => merge('A=1\n  export QDRANT_URL = mine\n', { QDRANT_URL: 'u' }))
      .toThrow(`line 2: QDRANT_URL is already defined outside the managed block of owner ${OWNER}; ${fix}`);
    const withBlock = merge('A=1\n', { QDRANT_URL: 'u' });
    expect(() => merge(withBlock + 'QDRANT_URL=user\n', { QDRANT_URL: 'u2' }))
      .toThrow(`line 6: QDRANT_URL is already defined outside the managed block of owner ${OWNER}; ${fix}`);
    const others = merge('A=1\n', { QDRANT_API_KEY: SECRET }, 'other');
    let err: any;
    try { merge(others, { QDRANT_URL: 'u', QDRANT_API_KEY: 'k' }); } catch (e) { err = e; }
    expect(err.message).toBe(`line 4: QDRANT_API_KEY is already defined in the managed block of owner other; ${fix}`);
    expect(err.message).not.toContain(SECRET);
    expect(err.line).toBe(4);
  });

  test('a line end that only some readers take is a line end: what follows it meets every rule, named by the line an editor shows', () => {
    const m = w.parseDotenv('A=1\n# c\u2028B=2\r\nC="x\u2029y"\rD=4');
    expect(m.items.map((i: any) => [i.kind, i.key, i.line, i.after])).toEqual([
      ['assign', 'A', 1, undefined], ['comment', undefined, 2, undefined], ['assign', 'B', 2, '\u2028'],
      ['assign', 'C', 3, undefined], ['assign', 'D', 4, undefined],
    ]);
    const fix = 'remove that line, or give our entry another name with the secretNaming of the key that writes it (e.g. secretNaming: { prefix: "APP_" })';
    const withBlock = merge('A=1\n', { QDRANT_URL: 'u' });
    expect(() => merge(withBlock + '# moved\u2028QDRANT_URL=elsewhere\n', { QDRANT_URL: 'u' }))
      .toThrow(`line 6, after a U+2028 (a line end to the npm dotenv parser only): QDRANT_URL is already defined outside the managed block of owner ${OWNER}; ${fix}`);
    expect(() => merge(withBlock + 'X=1 # c\u2029QDRANT_URL: elsewhere\n', { QDRANT_URL: 'u' }))
      .toThrow('line 6, after a U+2029 (a line end to the npm dotenv parser only): expected NAME=value, a comment (#) or a blank line');
    // NEL, \v and \f end a line for no reader: a comment that holds one is one comment.
    expect(merge(withBlock + '# a\u0085QDRANT_URL=x\v\f\n', { QDRANT_URL: 'u' })).toBe(withBlock + '# a\u0085QDRANT_URL=x\v\f\n');
  });

  test('refuses a line inside a quoted value that defines one of our names for Node (which ends the value at the first quote)', () => {
    expect(() => merge('X="say \\"hi\r\n  QDRANT_URL=elsewhere\n"\n', { QDRANT_URL: 'u' }))
      .toThrow('line 2: QDRANT_URL= starts a line inside the quoted value of X (line 1), which Node\'s --env-file reads as a definition if it ends that value sooner (at the first ", backslash or not); remove that line, or give our entry another name');
    // Node deletes every \r, and ends a line at \n only.
    expect(() => merge("X='a\nQDRANT\r_URL=b'\n", { QDRANT_URL: 'u' })).toThrow('line 2: QDRANT_URL= starts a line inside');
    expect(merge("X='a\rQDRANT_URL=b'\n", { QDRANT_URL: 'u' })).toContain("QDRANT_URL='u'");
  });

  test('refuses a line of our block that not every reader starts as a line', () => {
    const block = merge('A=1\n', { QDRANT_URL: 'u' });
    const at = (line: string) => block.replace('# <<<', `${line}# <<<`);
    const partial = (what: string) => `a line of the managed block of owner ${OWNER} starts after ${what}, so not every reader reads it as a line; replace that character with a newline`;
    expect(() => merge(at('# c\u2028'), { QDRANT_URL: 'u', B: 'b' })).toThrow(`line 5: ${partial('a U+2028 (a line end to the npm dotenv parser only)')}`);
    expect(() => merge(at('# c\r'), { QDRANT_URL: 'u' })).toThrow(`line 6: ${partial("a lone CR (a line end to the npm dotenv parser and python-dotenv, not to Node's --env-file)")}`);
    expect(() => merge(at('X= \n'), { QDRANT_URL: 'u' }))
      .toThrow(`line 5: inside the managed block of owner ${OWNER}, X= has only spaces after it, so Node's --env-file (22 and later) reads the next line as its value; remove those spaces`);
    expect(() => merge(at('\t# c\n'), { QDRANT_URL: 'u' }))
      .toThrow(`line 5: inside the managed block of owner ${OWNER}, this line starts with a space or a tab, so Node 20's --env-file reads the next line as part of it; remove those spaces`);
    // The same lines outside our block are the user's to keep.
    expect(merge('# c\u2028\nX= \n\t# c\n' + block, { QDRANT_URL: 'u' })).toBe('# c\u2028\nX= \n\t# c\n' + block);
  });

  test('refuses bad names, owners and values without echoing the value', () => {
    expect(() => merge('', { '1BAD': 'v' })).toThrow('entry name "1BAD" is not a valid variable name');
    expect(() => merge('', { 'A-B': 'v' })).toThrow('is not a valid variable name');
    expect(() => merge('', { K: 'v' }, 'has space')).toThrow('owner is not valid');
    expect(() => merge('', { K: 'v' }, 'x)\n#')).toThrow('owner is not valid');
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

  test('removes our names only inside our block; keeps a block that still has lines', () => {
    const text = `A=1\nK=old\n${START}\nL='x'\n# user note\nM=user\n${END}\n`;
    const r = w.planRemove(text, ['K', 'L', 'Z'], { owner: OWNER });
    expect(r.text).toBe(`A=1\nK=old\n${START}\n# user note\nM=user\n${END}\n`);
    expect([r.removed, r.notOurs, r.absent, r.noBlock, r.deleteFile]).toEqual([['L'], ['K'], ['Z'], false, false]);
  });

  test('without a block of ours, changes nothing and says so', () => {
    const text = 'K=user\n';
    const r = w.planRemove(text, ['K', 'L'], { owner: OWNER });
    expect(r).toEqual({ text, removed: [], notOurs: ['K'], absent: ['L'], noBlock: true, unrecorded: [], deleteFile: false, keptLines: 0, keptNames: [] });
    expect(w.planRemove(null, ['K'], { owner: OWNER })).toMatchObject({ text: null, noBlock: true, deleteFile: false });
  });

  test('leaves other owners\' blocks and foreign lines alone', () => {
    const text = merge(merge('A=1\n', { K: 'a' }), { L: 'b' }, 'other');
    const out = remove(text, ['K']);
    expect(out).toBe(`A=1\n# >>> managed by cdktf-qdrant-cluster-access (other) \u2014 do not edit\n${REC('L')}\nL='b'\n# <<< managed by cdktf-qdrant-cluster-access (other)\n`);
    const r = w.planRemove(text, ['K', 'NOPE'], { owner: OWNER });
    expect([r.removed, r.absent]).toEqual([['K'], ['NOPE']]);
  });

  test('with all, removes every recorded name (and the names given) and the record; a user\'s lines in the block stay', () => {
    const text = `A=1\n${START}\n${REC('K', 'L')}\nK='k'\n# ops note\nMY_FLAG=on\nL='l'\n${END}\nB=2\n`;
    const r = w.planRemove(text, [], { owner: OWNER, all: true });
    // The record stays, empty: nothing left in the block is ours (a block without a record line would not say so).
    expect(r.text).toBe(`A=1\n${START}\n${w.recordLine([])}\n# ops note\nMY_FLAG=on\n${END}\nB=2\n`);
    expect([r.keptLines, r.keptNames]).toEqual([2, ['MY_FLAG']]);
    expect(w.planRemove(r.text, [], { owner: OWNER, all: true })).toMatchObject({ text: r.text, unrecorded: [], keptLines: 2, keptNames: ['MY_FLAG'] });
    // Some recorded names left: nothing is reported as kept (the block is still ours).
    expect(w.planRemove(text, ['K'], { owner: OWNER })).toMatchObject({ keptLines: 0, keptNames: [] });
    // A write of no entries keeps the record line too, empty.
    const emptied = w.planMerge(text, {}, { owner: OWNER });
    expect(emptied.text).toBe(r.text);
    expect(emptied.dropped).toEqual(['K', 'L']);
    expect([r.removed, r.absent, r.notOurs]).toEqual([['K', 'L'], [], []]);
    // Nothing but ours in the block: it goes, and the file is the original again.
    expect(remove(merge('A=1', { K: 'k', L: 'l' }), [])).toBe(merge('A=1', { K: 'k', L: 'l' }));
    expect(w.planRemove(merge('A=1', { K: 'k', L: 'l' }), [], { owner: OWNER, all: true }).text).toBe('A=1');
    // A block written before the record existed: only the names given.
    const legacy = `${START}\nK='k'\nMY_FLAG=on\n${END}\n`;
    expect(w.planRemove(legacy, ['K'], { owner: OWNER, all: true })).toMatchObject({ text: `${START}\nMY_FLAG=on\n${END}\n`, removed: ['K'] });
    // Legacy, names given: nothing is unknown. Record removed by hand, no names given: every
    // definition in the block stays, and is named (ours or the user's: nothing says which).
    expect(w.planRemove(legacy, ['K'], { owner: OWNER, all: true }).unrecorded).toEqual([]);
    expect(w.planRemove(legacy, [], { owner: OWNER, all: true })).toMatchObject({ text: legacy, removed: [], unrecorded: ['K', 'MY_FLAG'] });
    // Without all, the removed names leave the record, the others stay in it.
    expect(remove(text, ['K'])).toBe(`A=1\n${START}\n${REC('L')}\n# ops note\nMY_FLAG=on\nL='l'\n${END}\nB=2\n`);
  });

  test('is a no-op on a file without our keys', () => {
    const text = '# c\nA=1\n  B = 2  \n';
    expect(remove(text, ['K'])).toBe(text);
  });
});

describe('a file this tool created', () => {
  const CREATED = `${START} \u2014 created this file`;

  test('the start marker records it; remove deletes the file when nothing else is left', () => {
    const made = merge(null as any, { K: 'v' });
    expect(made).toBe(`${CREATED}\n${REC('K')}\nK='v'\n${END}\n`);
    expect(merge(made, { K: 'v2', L: 'w' })).toBe(`${CREATED}\n${REC('K', 'L')}\nK='v2'\nL='w'\n${END}\n`);
    expect(w.planRemove(made, ['K'], { owner: OWNER })).toMatchObject({ text: '', deleteFile: true, removed: ['K'] });
    // Blank lines are nothing; anything else keeps the file.
    expect(w.planRemove(`\n${made}  \n`, ['K'], { owner: OWNER })).toMatchObject({ deleteFile: true });
    expect(w.planRemove(`# mine\n${made}`, ['K'], { owner: OWNER })).toMatchObject({ text: '# mine\n', deleteFile: false });
    // A user line inside the block keeps the block, its record and the file.
    const inside = made.replace('K=\'v\'\n', 'K=\'v\'\nUSER=1\n');
    expect(w.planRemove(inside, ['K'], { owner: OWNER })).toMatchObject({ text: `${CREATED}\n${w.recordLine([])}\nUSER=1\n${END}\n`, deleteFile: false });
  });

  test('an existing empty file is not recorded as created and stays', () => {
    const made = merge('', { K: 'v' });
    expect(made).toBe(`${START}\n${REC('K')}\nK='v'\n${END}\n`);
    expect(w.planRemove(made, ['K'], { owner: OWNER })).toMatchObject({ text: '', deleteFile: false });
  });

  test('with two owners, removing the creator keeps the file and moves the record; removing the last deletes it', () => {
    const a = merge(null as any, { K: 'a' });
    const ab = merge(a, { L: 'b' }, 'other');
    const r1 = w.planRemove(ab, ['K'], { owner: OWNER });
    expect(r1.deleteFile).toBe(false);
    expect(r1.text).toBe(`${w.startMarker('other')} \u2014 created this file\n${REC('L')}\nL='b'\n${w.endMarker('other')}\n`);
    expect(w.planRemove(r1.text, ['L'], { owner: 'other' })).toMatchObject({ text: '', deleteFile: true });
    // The other order: removing the non-creator first leaves the creator's record alone.
    const r2 = w.planRemove(ab, ['L'], { owner: 'other' });
    expect(r2).toMatchObject({ text: a, deleteFile: false });
  });

  test('a created file with nothing to write is not created', () => {
    expect(w.planMerge(null, {}, { owner: OWNER })).toEqual({ text: null, added: [], updated: [], unchanged: [], dropped: [] });
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
    ['a\u2028b', 'value contains a line break'],
    ['a\u2029b', 'value contains a line break'],
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

describe('an unquoted value followed by a long run of spaces', () => {
  // The split of an unquoted value as the two regexes found it before they were made linear
  // (/[ \t]+#/ and /[ \t]+$/ are quadratic on a long run of spaces that is not followed by #).
  const oldSplit = (rest: string) => {
    const cm = /[ \t]+#/.exec(rest.slice(0, 64));
    let valueRaw = cm ? rest.slice(0, cm.index) : rest;
    let suffix = cm ? rest.slice(cm.index) : '';
    const trail = /[ \t]+$/.exec(valueRaw);
    if (trail) {
      suffix = trail[0] + suffix;
      valueRaw = valueRaw.slice(0, trail.index);
    }
    return { valueRaw, suffix };
  };

  test('200,000 spaces before the end of the value, before a comment or at the end of the line are parsed (in linear time)', () => {
    const run = ' '.repeat(200_000);
    const text = `A=a${run}x\nB=b${run}# note\nC=c${run}\n`;
    const m = w.parseDotenv(text);
    expect(m.items.map((i: any) => [i.key, i.valueRaw, i.suffix])).toEqual([
      ['A', `a${run}x`, ''],
      ['B', 'b', `${run}# note`],
      ['C', 'c', run],
    ]);
    expect(remove(merge(text, { Q: 'v' }), ['Q'])).toBe(text);
  });

  test('every short unquoted value splits into value and comment exactly as before', () => {
    const chars = ['a', ' ', '\t', '#'];
    const values: string[] = [];
    const grow = (s: string) => {
      if (s.length > 0 && s[0] !== ' ' && s[0] !== '\t') values.push(s);
      if (s.length < 7) for (const c of chars) grow(s + c);
    };
    grow('');
    expect(values.length).toBeGreaterThan(10_000);
    for (const v of values) {
      const item = w.parseDotenv(`A=${v}\n`).items[0];
      expect({ valueRaw: item.valueRaw, suffix: item.suffix }).toEqual(oldSplit(v));
    }
  });
});

describe('a quoted value that ends in an escaped backslash', () => {
  test('an even run of backslashes before the quote closes the value; an odd run escapes it', () => {
    const text = 'DIR="C:\\\\temp\\\\"\nB=1\n';
    expect(w.parseDotenv(text).items.map((i: any) => [i.key, i.valueRaw])).toEqual([['DIR', '"C:\\\\temp\\\\"'], ['B', '1']]);
    expect(w.parseDotenv("P='x\\\\\\\\' # c\n").items.map((i: any) => [i.key, i.valueRaw, i.suffix])).toEqual([['P', "'x\\\\\\\\'", ' # c']]);
    expect(w.parseDotenv('A="a\\\\\\"b" # c\n').items.map((i: any) => [i.key, i.valueRaw])).toEqual([['A', '"a\\\\\\"b"']]);
    expect(() => w.parseDotenv('A="a\\\\\\"\nB=1\n')).toThrow('line 1: unterminated double-quoted value (the closing " is missing)');
    expect(() => w.parseDotenv("A='a\\'\n")).toThrow("line 1: unterminated single-quoted value (the closing ' is missing)");
  });

  test('merge then remove gives the file back byte for byte', () => {
    for (const text of ['DIR="C:\\\\temp\\\\"\n', 'DIR="C:\\\\temp\\\\"', 'X=1\r\nDIR="C:\\\\temp\\\\" # windows\r\n']) {
      const merged = merge(text, { Q: 'v' });
      expect(merged.startsWith(text.endsWith('\n') ? text : '')).toBe(true);
      expect(remove(merged, ['Q'])).toBe(text);
    }
  });

  test('refused when a quote of its kind follows anywhere (python-dotenv would read on past the closing quote), also when the write would add one', () => {
    expect(() => w.parseDotenv('DIR="C:\\\\temp\\\\"\nB="x"\n')).toThrow(
      'line 1: the double-quoted value ends in a backslash and a " follows later in the file, so python-dotenv would read on past its closing "; ' +
      'write this value without quotes (each \\\\ as one \\), or remove the later "');
    expect(() => merge('DIR="C:\\\\temp\\\\"\n', { Q: "it's" })).toThrow(
      'line 1: the double-quoted value ends in a backslash and an entry of this write would put a " after it, so python-dotenv would read on past its closing "; ' +
      'write this value without quotes (each \\\\ as one \\)');
    expect(() => merge("P='x\\\\'\n", { Q: 'v' })).toThrow(
      "line 1: the single-quoted value ends in a backslash and an entry of this write would put a ' after it");
  });
});

describe('another owner\'s block without an end marker', () => {
  const other = w.startMarker('other');
  const otherEnd = w.endMarker('other');
  const damaged = `A=1\n${other}\nK='1'\n`;
  const message = `line 2: managed block for owner other has no end marker; restore the line "${otherEnd}" after its entries, or delete this line`;

  test('a write or remove by any owner is refused, naming the owner, the line and the end marker to restore', () => {
    expect(() => merge(damaged, { Z: 'z' })).toThrow(message);
    expect(() => remove(damaged, ['Z'])).toThrow(message);
    const ours = merge('A=1\n', { Z: 'z' });
    expect(() => merge(`${ours}${other}\nK='1'\n`, { Z: 'y' })).toThrow(message.replace('line 2', 'line 6'));
    expect(() => remove(`${ours}${other}\nK='1'\n`, ['Z'])).toThrow(message.replace('line 2', 'line 6'));
    expect(() => merge(`${other}\n${ours}`, { Z: 'y' })).toThrow(message.replace('line 2', 'line 1'));
  });

  test('the same message as for the owner\'s own block', () => {
    expect(() => merge(damaged, { Z: 'z' }, 'other')).toThrow(message);
  });

  test('with the end marker restored, the write goes after the other block', () => {
    expect(merge(`${damaged}${otherEnd}\n`, { Z: 'z' })).toBe(`${damaged}${otherEnd}\n${START}\n${REC('Z')}\nZ='z'\n${END}\n`);
  });
});
