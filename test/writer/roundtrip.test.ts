/**
 * What we write must read back exactly in BOTH real parsers: the dotenv npm package (v16) and
 * python-dotenv. Python runs once per batch of files (pyParse: readers.ts). If python-dotenv is not
 * importable these tests FAIL (CI installs it with `pip install python-dotenv`).
 */
import * as dotenv from 'dotenv';
import fc from 'fast-check';
import { Env, pythonDotenv as pyParse } from './readers';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const w = require('../../assets/writer/dotenv.js');
// The new text of a merge or a removal (dotenv.ts planMerge, planRemove).
const mergeEntries = (t: string | null, e: Record<string, string>, o: { owner: string }): string => w.planMerge(t, e, o).text;
const removeEntries = (t: string, n: string[], o: { owner: string }): string => w.planRemove(t, n, o).text;

const OWNER = 'prop';

function without(obj: Env, names: string[]): Env {
  const out = { ...obj };
  for (const n of names) delete out[n];
  return out;
}

test('python-dotenv is installed (pip install python-dotenv)', () => {
  expect(pyParse(['A=1\n'])).toEqual([{ A: '1' }]);
});

test('every short combination of tricky characters: written values read back exactly in both parsers, or are refused', () => {
  const alphabet = [' ', '#', "'", '"', '\\', '$', '{', '}', '=', 'a', '`', '\t', 'é'];
  const values: string[] = [''];
  let layer = [''];
  for (let len = 1; len <= 3; len++) {
    layer = layer.flatMap((p) => alphabet.map((c) => p + c));
    values.push(...layer);
  }
  values.push('https://xyz-example.eu-central.aws.cloud.qdrant.io:6333', 'eyJhbGciOi.J9-_x/+=', '🔑 ünï ✓ \u0085 \u00a0x\u00a0', 'a\u0000b');
  const entries: Record<string, string> = {};
  let refused = 0;
  values.forEach((v, i) => {
    try {
      w.formatValue(v);
      entries[`V${i}`] = v;
    } catch {
      refused++;
    }
  });
  const text = mergeEntries('FOREIGN=keep\n', entries, { owner: OWNER });
  const [py] = pyParse([text]);
  const js = dotenv.parse(text);
  for (const [k, v] of Object.entries(entries)) {
    expect([k, js[k]]).toEqual([k, v]);
    expect([k, py[k]]).toEqual([k, v]);
  }
  expect(js.FOREIGN).toBe('keep');
  expect(py.FOREIGN).toBe('keep');
  // Refusals are the exception: only values that no quoting style can carry for both parsers.
  expect(refused / values.length).toBeLessThan(0.2);
});

// ---------- property: random foreign files, random values ----------

const EOL = fc.constantFrom('\n', '\r\n');
const fchar = (extra: string[]) => fc.constantFrom('a', 'Z', '0', ' ', '=', ':', '/', '.', '-', 'é', '🔑', '\t', ...extra);
const foreignKey = fc.stringMatching(/^F_[A-Z0-9_]{1,5}$/);

type Piece = (eol: string) => string;
const assignLine: fc.Arbitrary<Piece> = fc.record({
  indent: fc.constantFrom('', '  '),
  exp: fc.constantFrom('', 'export '),
  key: foreignKey,
  eq: fc.constantFrom('=', ' = ', '= '),
  kind: fc.constantFrom('unquoted', 'single', 'double', 'backtick', 'empty'),
  body: fc.string({ unit: fchar(['#', '"', "'", 'x']), maxLength: 12 }),
  multi: fc.boolean(),
  comment: fc.constantFrom('', ' # note', '  #x'),
}).map((r) => (eol: string) => {
  let value: string;
  switch (r.kind) {
    case 'single': value = `'${r.body.replace(/'/g, '"')}${r.multi ? eol + 'more' : ''}'`; break;
    case 'double': value = `"${r.body.replace(/"/g, "'")}${r.multi ? eol + 'more' : ''}"`; break;
    case 'backtick': value = '`' + r.body + '`'; break;
    case 'empty': value = ''; break;
    default: value = r.body.replace(/["']/g, 'q').trim(); break;
  }
  const comment = r.kind === 'unquoted' && value === '' ? '' : r.comment;
  return `${r.indent}${r.exp}${r.key}${r.eq}${value}${comment}`;
});
const commentLine: fc.Arbitrary<Piece> = fc.string({ unit: fchar(['#', '"', "'"]), maxLength: 15 }).map((s) => () => `# ${s}`);
const blankLine: fc.Arbitrary<Piece> = fc.constantFrom('', '  ').map((s) => () => s);
const otherBlock: fc.Arbitrary<Piece> = fc.constant((eol: string) => [
  '# >>> managed by cdktf-qdrant-cluster-access (other) \u2014 do not edit', "O_KEY='o'", '# <<< managed by cdktf-qdrant-cluster-access (other)',
].join(eol));

const foreignFile = fc.record({
  eol: EOL,
  pieces: fc.array(fc.oneof({ arbitrary: assignLine, weight: 4 }, commentLine, blankLine, { arbitrary: otherBlock, weight: 1 }), { maxLength: 8 }),
  finalEol: fc.boolean(),
}).map(({ eol, pieces, finalEol }) => {
  const body = pieces.map((p) => p(eol)).join(eol);
  return body + (finalEol && body !== '' ? eol : '');
});

const value = fc.oneof(
  fc.string({ unit: fc.constantFrom(' ', '#', "'", '"', '\\', '$', '{', '}', '=', 'a', 'b', '`', '\t', 'é', '🔑'), maxLength: 16 }),
  fc.string({ unit: 'grapheme', maxLength: 16 }),
  fc.string({ unit: 'binary', maxLength: 16 }),
  fc.stringMatching(/^[A-Za-z0-9_.\-:/+=]{8,40}$/),
);
const entries = fc.array(value, { minLength: 1, maxLength: 3 })
  .map((vs) => Object.fromEntries(vs.map((v, i) => [`QDRANT_P${i}_KEY`, v])) as Record<string, string>);

test('property: merge -> both parsers read our values and the foreign ones unchanged -> remove -> original text', () => {
  const cases: Array<{ original: string; merged: string; entries: Record<string, string> }> = [];
  let accepted = 0;
  let total = 0;
  fc.assert(fc.property(foreignFile, entries, (original, all) => {
    const ok: Record<string, string> = {};
    for (const [k, v] of Object.entries(all)) {
      total++;
      try {
        w.formatValue(v);
        ok[k] = v;
        accepted++;
      } catch (e: any) {
        expect(e.message).not.toContain(v.length >= 3 ? v : '\u0000never');
      }
    }
    const names = Object.keys(ok);
    const merged = mergeEntries(original, ok, { owner: OWNER });
    expect(mergeEntries(merged, ok, { owner: OWNER })).toBe(merged);
    const before = dotenv.parse(original);
    const after = dotenv.parse(merged);
    for (const n of names) expect(after[n]).toBe(ok[n]);
    expect(without(after, names)).toEqual(before);
    expect(removeEntries(merged, Object.keys(all), { owner: OWNER })).toBe(original);
    cases.push({ original, merged, entries: ok });
  }), { numRuns: 200 });

  const parsed = pyParse(cases.flatMap((c) => [c.original, c.merged]));
  cases.forEach((c, i) => {
    const before = parsed[2 * i];
    const after = parsed[2 * i + 1];
    const names = Object.keys(c.entries);
    const ctx = JSON.stringify({ original: c.original, entries: c.entries });
    for (const n of names) expect([ctx, after[n]]).toEqual([ctx, c.entries[n]]);
    expect([ctx, without(after, names)]).toEqual([ctx, before]);
  });
  expect(accepted / total).toBeGreaterThan(0.5);
});

// ---------- property: ownership (what is ours is our block, and only our block) ----------

const OTHER = 'other/owner';
const injectLine: fc.Arbitrary<string> = fc.oneof(
  commentLine.map((p) => p('\n')),
  blankLine.map((p) => p('\n')),
  fc.record({ key: foreignKey, v: fc.stringMatching(/^[a-z0-9]{0,6}$/) }).map(({ key, v }) => `${key}=${v}`),
);

test('property: write refuses our names outside our block; remove takes only our lines; two owners and a created file', () => {
  const checks: Array<{ text: string; original: string; injected: string; ctx: string }> = [];
  fc.assert(fc.property(
    foreignFile, entries, fc.array(fc.tuple(fc.nat(), injectLine), { maxLength: 4 }), fc.nat(), fc.constantFrom('user', 'other-block', 'none'),
    (original, all, injections, where, collision) => {
      const ok: Record<string, string> = {};
      for (const [k, v] of Object.entries(all)) {
        try {
          w.formatValue(v);
          ok[k] = v;
        } catch { /* covered above */ }
      }
      const names = Object.keys(ok);
      if (names.length === 0) return;
      const eol = w.parseDotenv(original).eol;

      // 1. One of our names defined outside our block (by the user or another owner): refused,
      //    naming the first such line.
      if (collision !== 'none') {
        const name = names[where % names.length];
        const line = collision === 'user' ? `${name}=user` : [w.startMarker(OTHER), `${name}='o'`, w.endMarker(OTHER)].join(eol);
        const sep = original === '' || /[\r\n]$/.test(original) ? '' : eol;
        const colliding = `${original}${sep}${line}${eol}`;
        const first = w.parseDotenv(colliding).items.find((it: any) => it.kind === 'assign' && it.key in ok);
        const whose = collision === 'user' ? `outside the managed block of owner ${OWNER}` : `in the managed block of owner ${OTHER}`;
        expect(() => mergeEntries(colliding, ok, { owner: OWNER }))
          .toThrow(`line ${first.line}: ${first.key} is already defined ${first.key === name ? whose : `outside the managed block of owner ${OWNER}`}; remove that line`);
        // remove leaves a definition that is not ours alone (here: no block of ours, nothing changes)
        expect(w.planRemove(colliding, names, { owner: OWNER })).toMatchObject({ text: colliding, removed: [], noBlock: true });
        return;
      }

      // 2. Lines the user added inside our block after the write survive remove; only our
      //    entries go (and the markers with the record line, when nothing else is between them:
      //    else the record line stays, empty, saying that nothing left in the block is ours).
      const merged = mergeEntries(original, ok, { owner: OWNER });
      const items = w.parseDotenv(merged).items.map((it: any) => it.raw);
      const start = items.indexOf(w.startMarker(OWNER) + eol);
      // The record line directly follows the start marker, then our entry lines, one per name.
      expect(items[start + 1]).toBe(w.recordLine(names) + eol);
      const edited: Array<{ raw: string; ours: boolean; record?: boolean; injected?: boolean }> = items.map(
        (raw: string, i: number) => ({ raw, ours: i > start && i <= start + 1 + names.length, record: i === start + 1 }));
      for (const [pos, line] of injections) {
        const at = start + 1 + (pos % (names.length + 2));
        edited.splice(at, 0, { raw: line.replace(/\n$/, '') + eol, ours: false, injected: true });
      }
      const bom = merged.startsWith('\ufeff') ? '\ufeff' : '';
      const text = bom + edited.map((e) => e.raw).join('');
      const r = w.planRemove(text, names, { owner: OWNER });
      expect(r.removed).toEqual(names);
      expect(r.deleteFile).toBe(false);
      if (injections.length === 0) {
        expect(r.text).toBe(original);
      } else {
        expect(r.text).toBe(bom + edited.filter((e) => !e.ours || e.record).map((e) => (e.record ? w.recordLine([]) + eol : e.raw)).join(''));
        // The injected lines in the order they stand in the file (a later insertion at the same
        // place goes above an earlier one): the user's last definition of a name wins.
        const injectedInFile = edited.filter((e) => e.injected).map((e) => e.raw).join('');
        const expected = { ...dotenv.parse(original), ...dotenv.parse(injectedInFile) };
        expect(dotenv.parse(r.text)).toEqual(expected);
        checks.push({ text: r.text, original, injected: injectedInFile, ctx: JSON.stringify({ original, ok, injections }) });
      }

      // 3. Two owners: each removes only its own block, in either order.
      const theirs = Object.fromEntries(names.map((n) => [n.replace('QDRANT_P', 'QDRANT_Q'), 'q']));
      const both = mergeEntries(merged, theirs, { owner: OTHER });
      expect(removeEntries(both, names, { owner: OWNER })).toBe(mergeEntries(original, theirs, { owner: OTHER }));
      expect(removeEntries(both, Object.keys(theirs), { owner: OTHER })).toBe(merged);

      // 4. A created file: deleted only by the last owner's remove, in either order.
      const created = mergeEntries(mergeEntries(null, ok, { owner: OWNER }), theirs, { owner: OTHER });
      for (const [first, second] of [[OWNER, OTHER], [OTHER, OWNER]]) {
        const namesOf = (o: string) => (o === OWNER ? names : Object.keys(theirs));
        const r1 = w.planRemove(created, namesOf(first), { owner: first });
        expect(r1.deleteFile).toBe(false);
        expect(r1.text).toContain('\u2014 created this file');
        const r2 = w.planRemove(r1.text, namesOf(second), { owner: second });
        expect([r2.deleteFile, r2.text]).toEqual([true, '']);
      }
    },
  ), { numRuns: 200 });

  // python-dotenv reads what is left as the original plus the user's added lines.
  const parsed = pyParse(checks.flatMap((c) => [c.text, c.original, c.injected]));
  checks.forEach((c, i) => {
    const [after, before, injected] = parsed.slice(3 * i, 3 * i + 3);
    expect([c.ctx, after]).toEqual([c.ctx, { ...before, ...injected }]);
  });
  expect(checks.length).toBeGreaterThan(20);
});

test('a quoted value ending in escaped backslashes: wherever we accept it, both parsers see the same assignments we do', () => {
  const lines = ['A="C:\\\\temp\\\\"', "B='x\\\\'", 'C="q" # "c"', "D='it' # x", 'E=1', 'F="a\\"b"', '# a "note"', 'G="x\\\\" # y'];
  const texts: string[] = [];
  for (const a of lines) for (const b of lines) for (const c of lines) texts.push(`${a}\n${b}\n${c}\n`);
  const accepted = texts.filter((t) => {
    try {
      w.parseDotenv(t);
      return true;
    } catch {
      return false;
    }
  });
  expect(accepted.length).toBeGreaterThan(50);
  expect(accepted).toContain('E=1\nC="q" # "c"\nA="C:\\\\temp\\\\"\n');
  const py = pyParse(accepted);
  accepted.forEach((t, n) => {
    const ours = [...new Set(w.parseDotenv(t).items.filter((i: any) => i.kind === 'assign').map((i: any) => i.key))].sort();
    expect([t, Object.keys(py[n]).sort()]).toEqual([t, ours]);
    expect([t, Object.keys(dotenv.parse(t)).sort()]).toEqual([t, ours]);
  });
  expect(py[accepted.indexOf('E=1\nC="q" # "c"\nA="C:\\\\temp\\\\"\n')].A).toBe('C:\\temp\\');
  // Our entries after it, quoted with single quotes, leave it alone.
  const merged = mergeEntries('A="C:\\\\temp\\\\"\n', { QDRANT_URL: 'https://h:6333' }, { owner: OWNER });
  expect(pyParse([merged])[0]).toEqual({ A: 'C:\\temp\\', QDRANT_URL: 'https://h:6333' });
});

test('whitespace other than spaces and tabs before a quote: refused; wherever we accept such whitespace, both parsers see the same assignments we do', () => {
  // (U+2028 and U+2029 end a line for the npm parser: test/adversarial/readers-line-ends.test.ts.)
  const spaces = ['\u00a0', '\v', '\f', '\u001c', '\u001f', '\u0085', '\u2003', '\u3000', '\ufeff', '\u200b', ' \u00a0', '\u00a0 '];
  const texts: string[] = [];
  for (const s of spaces) for (const q of ["'", '"', '`', 'x']) texts.push(`A=${s}${q}open\nB=1\nC='c'\nD="d"\nE=\`e\`\n`);
  const accepted = texts.filter((t) => {
    try {
      w.parseDotenv(t);
      return true;
    } catch (e) {
      expect((e as Error).message).toMatch(/^line 1: the value starts with whitespace other than spaces and tabs \(U\+[0-9A-F]{4}\) before a quote/);
      return false;
    }
  });
  expect(accepted.length).toBe(spaces.length + 3); // every unquoted value, and a zero-width space (not whitespace) before each quote
  const py = pyParse(accepted);
  accepted.forEach((t, n) => {
    const ours = w.parseDotenv(t).items.filter((i: any) => i.kind === 'assign').map((i: any) => i.key).sort();
    expect([t, Object.keys(py[n]).sort()]).toEqual([t, ours]);
    expect([t, Object.keys(dotenv.parse(t)).sort()]).toEqual([t, ours]);
  });
});
