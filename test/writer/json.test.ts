/**
 * Unit tests for assets/writer/json.ts and json-text.ts: scanning, merge/remove with the sidecar's ownership
 * record, the refusals (exact text), the sidecar format, and a property: random objects in
 * random spellings come back byte for byte after write then remove, and no sidecar ever holds
 * a value.
 */
import fc from 'fast-check';
import * as j from '../../assets/writer/json';
import { scanJsonObject } from '../../assets/writer/json-text';


// What json.d.ts does not declare yet: planMerge's `sidecarAfter` and `dropped`, planRemove's `all`.
const jx = j as unknown as { planMerge(...args: unknown[]): any; planRemove(...args: unknown[]): any };

const SECRET = 'canary-secret-json-6a1f';
const SIDE = '/app/.keys.json.qdrant-cluster-access';
const O = { owner: 'o', sidecarName: SIDE };
const FIX = 'give our entry another name with the secretNaming of the key that writes it (e.g. secretNaming: { prefix: "APP_" })';
const E = { QDRANT_URL: 'https://h:6333', QDRANT_API_KEY: SECRET };
const NAMES = Object.keys(E);

const msg = (fn: () => unknown): string => {
  try {
    fn();
    return 'no error';
  } catch (e: any) {
    return e.message;
  }
};

describe('scanJsonObject', () => {
  test('finds the members of the top-level object only, past strings holding braces', () => {
    const text = '\ufeff { "a" : {"}": [1, "]"]}, "b\\"c": "x" , "n": -1.5e3 }';
    const s = scanJsonObject(text);
    expect(s.members.map((m) => [m.key, text.slice(m.valStart, m.valEnd)])).toEqual([['a', '{"}": [1, "]"]}'], ['b"c', '"x"'], ['n', '-1.5e3']]);
    expect([text[s.open], text[s.close]]).toEqual(['{', '}']);
  });

  test.each([
    ['{\n  "a": 1,\n}\n', 'not valid JSON (line 3); fix it or choose another file'],
    // V8 names no position for an unexpected token (found by a docs review): the line is found anyway.
    ['{\n  "a": 1,\n  "b": tru\n}\n', 'not valid JSON (line 3); fix it or choose another file'],
    ['{\n\n  "a": [1, 2,, 3]}', 'not valid JSON (line 3); fix it or choose another file'],
    ['{"a": 1} x', 'not valid JSON (line 1); fix it or choose another file'],
    ['{\n  "a": [1,\n', 'not valid JSON (it ends early, at line 2); fix it or choose another file'],
    ['{\n  "a": 1,\n  "last": 1\n\n', 'not valid JSON (it ends early, at line 3); fix it or choose another file'],
    ['[1]', 'the JSON file does not hold an object at the top level; give the path of a file holding an object ({ ... })'],
    ['"str"', 'the JSON file does not hold an object at the top level'],
    // A target switched from dotenv() to json() on the same path (found by a lifecycle review): say what the file is.
    ['A=1\n# >>> managed by cdktf-qdrant-cluster-access (app/Qdrant) \u2014 do not edit\nK=\'v\'\n# <<< managed by cdktf-qdrant-cluster-access (app/Qdrant)\n',
      'not valid JSON: it is a .env file holding a block managed by cdktf-qdrant-cluster-access (owner app/Qdrant), with keys; ' +
      'give the JSON target another file, or remove that block by hand (or switch the target back to SecretTarget.dotenv())'],
  ])('refuses %j', (text, message) => {
    expect(msg(() => scanJsonObject(text))).toContain(message);
  });
});

describe('planMerge', () => {
  test('a missing file is created and recorded as created', () => {
    const r = j.planMerge(null, null, E, O);
    expect(r.text).toBe(`{\n  "QDRANT_URL": "https://h:6333",\n  "QDRANT_API_KEY": "${SECRET}"\n}\n`);
    expect(r.sidecar).toEqual({ created: true, originalWhenEmpty: null, owners: { o: NAMES } });
    expect(r.added).toEqual(NAMES);
  });

  test('an empty object or a blank file is recorded in its exact spelling', () => {
    for (const t of ['{ }', '{\r\n}\r\n', '', '\ufeff\n']) {
      expect(j.planMerge(t, null, E, O).sidecar).toEqual({ created: false, originalWhenEmpty: t, owners: { o: NAMES } });
    }
    expect(j.planMerge('{"a":1}', null, E, O).sidecar).toEqual({ created: false, originalWhenEmpty: null, owners: { o: NAMES } });
  });

  test('appends after the last member in its indentation and line ending; updates recorded members in place', () => {
    const t = '{\r\n\t"a": 1\r\n}';
    const r = j.planMerge(t, null, { QDRANT_URL: 'u' }, O);
    expect(r.text).toBe('{\r\n\t"a": 1,\r\n\t"QDRANT_URL": "u"\r\n}');
    const r2 = j.planMerge(r.text, r.sidecar, { QDRANT_URL: 'v', QDRANT_API_KEY: 'k' }, O);
    expect(r2.text).toBe('{\r\n\t"a": 1,\r\n\t"QDRANT_URL": "v",\r\n\t"QDRANT_API_KEY": "k"\r\n}');
    expect([r2.updated, r2.added, r2.unchanged]).toEqual([['QDRANT_URL'], ['QDRANT_API_KEY'], []]);
    expect(r2.sidecar!.owners.o).toEqual(['QDRANT_URL', 'QDRANT_API_KEY']);
  });

  test('nothing to write changes nothing', () => {
    expect(j.planMerge(null, null, {}, O))
      .toEqual({ text: null, sidecar: null, sidecarAfter: null, added: [], updated: [], unchanged: [], dropped: [] });
  });

  test('refuses members that are not recorded as ours, naming line and member, never the value', () => {
    const t = '{\n  "a": 1,\n  "QDRANT_API_KEY": "theirs"\n}';
    expect(msg(() => j.planMerge(t, null, E, O))).toBe(
      `line 3: member "QDRANT_API_KEY" already exists and there is no ownership record ${SIDE} saying this tool wrote it ` +
      `(if an earlier version of this tool wrote it, deleting it is safe: the next deploy writes it again); remove that member, or ${FIX}`);
    const side = { created: false, originalWhenEmpty: null, owners: { o: ['QDRANT_URL'] } };
    expect(msg(() => j.planMerge(t, side, E, O))).toBe(
      `line 3: member "QDRANT_API_KEY" already exists and ${SIDE} does not record it as written for owner o; remove that member, or ${FIX}`);
    const theirs = { created: false, originalWhenEmpty: null, owners: { p: ['QDRANT_API_KEY'] } };
    expect(msg(() => j.planMerge(t, theirs, E, O))).toBe(
      `line 3: member "QDRANT_API_KEY" was written for owner p (recorded in ${SIDE}); ${FIX}, or remove owner p's entries first`);
    expect(msg(() => j.planMerge('{}', theirs, E, O))).toBe(
      `member "QDRANT_API_KEY" is recorded in ${SIDE} as written for owner p; ${FIX}, or remove owner p's entries first`);
    expect(msg(() => j.planMerge('{}', null, { QDRANT_URL: 1 } as any, O))).toBe('entry QDRANT_URL: value must be a string');
  });

  test('several members in the way are named in one message, so that one fix clears them all', () => {
    // Each named by the line of its name (a value may start on the next line).
    const three = '{\n  "QDRANT_URL": "u",\n  "QDRANT_GRPC_URL":\n    "g",\n  "QDRANT_API_KEY": "k"\n}';
    expect(msg(() => j.planMerge(three, null, { ...E, QDRANT_GRPC_URL: 'https://h:6334' }, O)))
      .toMatch(/^line 2: member "QDRANT_URL" \(so do "QDRANT_GRPC_URL" on line 3, "QDRANT_API_KEY" on line 5\) already exists /);
    const t = '{\n  "QDRANT_URL": "u",\n  "a": 1,\n  "QDRANT_API_KEY": "theirs"\n}';
    expect(msg(() => j.planMerge(t, null, E, O))).toBe(
      `line 2: member "QDRANT_URL" (so does "QDRANT_API_KEY" on line 4) already exists and there is no ownership record ${SIDE} saying this tool wrote it ` +
      `(if an earlier version of this tool wrote it, deleting it is safe: the next deploy writes it again); remove those members, or ${FIX}`);
    // The same access in another Terraform workspace (owner <path>@<workspace>): the fix is a file or prefix per workspace.
    const ws = { created: false, originalWhenEmpty: null, owners: { o: ['QDRANT_API_KEY'] } };
    const another = 'the same access in another Terraform workspace (this one writes as o@staging); ' +
      'give each workspace its own file, or a secretNaming prefix chosen per environment in your code';
    expect(msg(() => j.planMerge('{}', ws, E, { ...O, owner: 'o@staging' })))
      .toBe(`member "QDRANT_API_KEY" is recorded in ${SIDE} as written for owner o, ${another}`);
    expect(msg(() => j.planMerge('{\n  "QDRANT_API_KEY": "k"\n}', ws, E, { ...O, owner: 'o@staging' })))
      .toBe(`line 2: member "QDRANT_API_KEY" was written for owner o (recorded in ${SIDE}), ${another}`);
    // A member given twice is named once.
    expect(msg(() => j.planMerge('{"QDRANT_URL": 1, "QDRANT_URL": 2, "QDRANT_API_KEY": 3, "QDRANT_API_KEY": 4}', null, E, O)))
      .toMatch(/^line 1: member "QDRANT_URL" \(so does "QDRANT_API_KEY" on line 1\) already exists /);
    // Another owner's member needs another fix: it is not listed with them.
    const side = { created: false, originalWhenEmpty: null, owners: { p: ['QDRANT_API_KEY'] } };
    expect(msg(() => j.planMerge(t, side, E, O))).toBe(
      `line 2: member "QDRANT_URL" already exists and ${SIDE} does not record it as written for owner o; remove that member, or ${FIX}`);
  });
});

describe('planMerge sets the owner\'s members to exactly the given ones', () => {
  test('a recorded member no longer given is dropped; the record shrinks only after the target is written', () => {
    const w = jx.planMerge('{"a": 1}', null, E, O);
    const r = jx.planMerge(w.text, w.sidecar, { QDRANT_API_KEY: SECRET, QDRANT_B: 'b' }, O);
    expect(r.text).toBe(`{"a": 1,\n  "QDRANT_API_KEY": "${SECRET}",\n  "QDRANT_B": "b"}`);
    expect([r.added, r.updated, r.unchanged, r.dropped]).toEqual([['QDRANT_B'], [], ['QDRANT_API_KEY'], ['QDRANT_URL']]);
    // Written before the target: old and new names (a crash then leaves nothing of ours unrecorded).
    expect(r.sidecar.owners).toEqual({ o: ['QDRANT_URL', 'QDRANT_API_KEY', 'QDRANT_B'] });
    // Written after it: the new names only.
    expect(r.sidecarAfter.owners).toEqual({ o: ['QDRANT_API_KEY', 'QDRANT_B'] });
    // Nothing dropped: one sidecar write, as before.
    expect(jx.planMerge(r.text, r.sidecarAfter, { QDRANT_B: 'b', QDRANT_API_KEY: SECRET }, O)).toMatchObject({ sidecarAfter: null, dropped: [] });
    // The user's members are never dropped, recorded or not.
    expect(jx.planMerge(r.text, r.sidecarAfter, { QDRANT_B: 'b' }, O).text).toBe('{"a": 1,\n  "QDRANT_B": "b"}');
  });

  test('no entries at all drops every recorded member, as the .env writer does; a blank file stays as it is', () => {
    const w = jx.planMerge('{"a": 1}', null, E, O);
    const r = jx.planMerge(w.text, w.sidecar, {}, O);
    expect(r.text).toBe('{"a": 1}');
    expect([r.added, r.updated, r.unchanged, r.dropped]).toEqual([[], [], [], NAMES]);
    expect(r.sidecarAfter.owners).toEqual({ o: [] });
    expect(jx.planMerge('', w.sidecar, {}, O)).toMatchObject({ text: null, dropped: [] });
    // Nothing of ours recorded: nothing is read or changed, not even a file that is not JSON.
    expect(jx.planMerge('{"a":1}', null, {}, O)).toMatchObject({ text: null, sidecar: null, sidecarAfter: null });
    expect(jx.planMerge('not json', { ...w.sidecar, owners: {} }, {}, O)).toMatchObject({ text: null, dropped: [] });
  });
});

describe('planRemove', () => {
  test('without a record of ours: nothing changes, and members with our names are reported as not ours', () => {
    expect(j.planRemove('{"QDRANT_URL": 1}', null, NAMES, O)).toEqual({
      text: null, sidecar: null, removed: [], absent: ['QDRANT_API_KEY'], notOurs: ['QDRANT_URL'], noRecord: true, noSidecar: true, deleteFile: false,
    });
  });

  test('removes only recorded names; the owner stays while it has names left', () => {
    const w = j.planMerge('{"a": 1}', null, E, O);
    const r = j.planRemove(w.text, w.sidecar, ['QDRANT_URL', 'a'], O);
    expect(r.text).toBe(`{"a": 1,\n  "QDRANT_API_KEY": "${SECRET}"}`);
    expect(r.sidecar).toEqual({ created: false, originalWhenEmpty: null, owners: { o: ['QDRANT_API_KEY'] } });
    expect([r.removed, r.notOurs, r.absent]).toEqual([['QDRANT_URL'], ['a'], []]);
  });

  test('the last owner restores the empty spelling, or deletes a created file; other owners keep both', () => {
    const a = j.planMerge('{ }', null, E, O);
    const b = j.planMerge(a.text, a.sidecar, { QDRANT_B: 'b' }, { ...O, owner: 'p' });
    const r1 = j.planRemove(b.text, b.sidecar, NAMES, O);
    expect(r1.sidecar).toEqual({ created: false, originalWhenEmpty: '{ }', owners: { p: ['QDRANT_B'] } });
    const r2 = j.planRemove(r1.text, r1.sidecar, ['QDRANT_B'], { ...O, owner: 'p' });
    expect([r2.text, r2.sidecar, r2.deleteFile]).toEqual(['{ }', null, false]);

    const c = j.planMerge(null, null, E, O);
    expect(j.planRemove(c.text, c.sidecar, NAMES, O)).toMatchObject({ sidecar: null, deleteFile: true, removed: NAMES });
  });

  test('with all, every member recorded for the owner goes, and the names given', () => {
    const w = j.planMerge('{"a": 1}', null, E, O);
    const r = jx.planRemove(w.text, w.sidecar, [], { ...O, all: true });
    expect(r).toMatchObject({ text: '{"a": 1}', sidecar: null, removed: NAMES, absent: [], notOurs: [] });
  });

  test('a missing target only drops the names from the record', () => {
    const side = { created: true, originalWhenEmpty: null, owners: { o: NAMES, p: ['X'] } };
    expect(j.planRemove(null, side, NAMES, O)).toMatchObject({ text: null, sidecar: { owners: { p: ['X'] } }, removed: [], absent: NAMES });
    expect(j.planRemove(null, { ...side, owners: { o: NAMES } }, NAMES, O)).toMatchObject({ text: null, sidecar: null });
  });
});

describe('the sidecar', () => {
  test('renders and parses back', () => {
    const side = { created: true, originalWhenEmpty: null, owners: { 'a/b': ['X', 'Y'] } };
    expect(j.parseSidecar(j.renderSidecar(side), SIDE)).toEqual(side);
    expect(j.parseSidecar(null, SIDE)).toBeNull();
    expect(j.sidecarPath('/app/keys.json')).toBe(SIDE);
  });

  test.each([
    ['not json', 'is not valid JSON'],
    ['{"writer": "x"}', 'was not written by cdktf-qdrant-cluster-access'],
    ['{"writer": "cdktf-qdrant-cluster-access", "version": 2}', 'has version 2, expected 1 (written by another version of this tool)'],
    ['{"writer": "cdktf-qdrant-cluster-access", "version": 1, "created": "yes"}', 'has no boolean "created"'],
    [`{"writer": "cdktf-qdrant-cluster-access", "version": 1, "created": false, "originalWhenEmpty": "{\\"k\\": \\"${SECRET}\\"}"}`,
      'has an "originalWhenEmpty" that is not null or an empty object'],
    ['{"writer": "cdktf-qdrant-cluster-access", "version": 1, "created": false, "originalWhenEmpty": null}', 'has no "owners" object'],
    ['{"writer": "cdktf-qdrant-cluster-access", "version": 1, "created": false, "originalWhenEmpty": null, "owners": {"o": ["1x"]}}',
      'has an invalid entry for owner "o"'],
  ])('refuses %s', (text, what) => {
    const m = msg(() => j.parseSidecar(text, SIDE));
    expect(m).toBe(`the ownership record ${SIDE} ${what}; restore it, or delete it and remove the members it listed from the file by hand`);
    expect(m).not.toContain(SECRET);
  });
});

// ---------- property ----------

const ws = fc.stringMatching(/^[ \t\r\n]{0,3}$/);
const scalar = fc.oneof(
  fc.integer(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 8 }), fc.double({ noNaN: true, noDefaultInfinity: true }));
const jsonValue = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 4 }), scalar, { maxKeys: 3 }));
/** A random object spelled with random whitespace (or compact, or JSON.stringify's indents). */
const objectText = fc.record({
  members: fc.array(fc.tuple(fc.string({ maxLength: 6 }).filter((k) => !k.startsWith('QDRANT_')), jsonValue), { maxLength: 4 }),
  style: fc.constantFrom('random', 'indent2', 'tab'),
  gaps: fc.array(ws, { minLength: 12, maxLength: 12 }),
  bom: fc.boolean(),
  crlf: fc.boolean(),
}).map(({ members, style, gaps, bom, crlf }) => {
  let text: string;
  if (style === 'random') {
    const gap = (i: number) => gaps[i % 12];
    const body = members.map(([k, v], i) => `${gap(i)}${JSON.stringify(k)}${gap(i + 3)}:${gap(i + 5)}${JSON.stringify(v)}${gap(i + 7)}`);
    text = `${gaps[10]}{${members.length ? body.join(',') : gaps[9]}}${gaps[11]}`;
  } else {
    const obj: Record<string, unknown> = {};
    for (const [k, v] of members) obj[k] = v;
    text = JSON.stringify(obj, null, style === 'tab' ? '\t' : 2) + '\n';
    if (crlf) text = text.replace(/\n/g, '\r\n');
  }
  return (bom ? '\ufeff' : '') + text;
});
const entries = fc.dictionary(fc.stringMatching(/^QDRANT_[A-Z0-9_]{1,6}$/), fc.string({ unit: 'binary', maxLength: 12 }), { minKeys: 1, maxKeys: 3 });

test('property: write then remove gives back the exact bytes; values only in the target; the parse is the original plus ours', () => {
  fc.assert(fc.property(fc.oneof(objectText, ws, fc.constant(null)), entries, entries, (original, mine, theirs) => {
    const a = j.planMerge(original, null, mine, O);
    const parsedOriginal = original == null || /^\ufeff?[ \t\r\n]*$/.test(original) ? {} : JSON.parse(original.replace(/^\ufeff/, ''));
    expect(JSON.parse(a.text!.replace(/^\ufeff/, ''))).toEqual({ ...parsedOriginal, ...mine });
    const sideText = j.renderSidecar(a.sidecar!);
    for (const v of Object.values(mine)) if (v.length >= 3) expect(sideText).not.toContain(JSON.stringify(v).slice(1, -1));
    expect(j.planMerge(a.text, j.parseSidecar(sideText, SIDE), mine, O).text).toBe(a.text);

    // A second owner with other names, removed in either order.
    const other = Object.fromEntries(Object.entries(theirs).filter(([k]) => !(k in mine)));
    const b = Object.keys(other).length ? j.planMerge(a.text, a.sidecar, other, { ...O, owner: 'p' }) : a;
    const orders = [['o', 'p'], ['p', 'o']];
    for (const [first, second] of orders) {
      let text = b.text;
      let side = b.sidecar;
      let deleted = false;
      for (const owner of [first, second]) {
        const r = j.planRemove(text, side, Object.keys(owner === 'o' ? mine : other), { ...O, owner });
        if (r.text !== null) text = r.text;
        side = r.sidecar;
        deleted = deleted || r.deleteFile;
      }
      expect(side).toBeNull();
      if (original === null) expect(deleted).toBe(true);
      else expect([deleted, text]).toEqual([false, original]);
    }
  }), { numRuns: 300 });
});

describe('planRemove without the sidecar', () => {
  test('noSidecar only when there is no sidecar at all and the object has members (ours may be among them)', () => {
    expect(jx.planRemove('{"a": 1}', null, [], { ...O, all: true })).toMatchObject({ noRecord: true, noSidecar: true, text: null });
    expect(jx.planRemove('{}', null, [], { ...O, all: true })).toMatchObject({ noRecord: true, noSidecar: false });
    expect(jx.planRemove(null, null, [], { ...O, all: true })).toMatchObject({ noRecord: true, noSidecar: false });
    const side = { created: false, originalWhenEmpty: null, owners: { other: ['X'] } };
    expect(jx.planRemove('{"a": 1}', side, [], { ...O, all: true })).toMatchObject({ noRecord: true, noSidecar: false });
  });
});
