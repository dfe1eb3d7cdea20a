'use strict';
/**
 * Editing the top-level object of a JSON file in place, with ownership kept in a sidecar file
 * (pure functions, Node built-ins only). Every byte that is not one of our members is kept.
 *
 * Accepted input: text that JSON.parse accepts (after an optional UTF-8 BOM) and whose top level
 * is an object; or a missing file (null); or an existing file holding only a BOM and JSON
 * whitespace (space, tab, CR, LF). Anything else is refused, naming the line.
 *
 * Writing: a member with one of our names is updated in place (only its value token changes).
 * New members are appended after the last member as `,<EOL><indent>"NAME": "value"` (EOL: \r\n
 * if the file has one, else \n; indent: that of the first member, else two spaces), or, in an
 * object without members, as `{<EOL><members joined by ,<EOL>><EOL>}`. A missing or blank file
 * becomes `{<EOL>  "NAME": "value",...<EOL>}<EOL>`.
 *
 * Ownership: JSON has no comments, so the sidecar file `.<basename>.qdrant-cluster-access`
 * next to the target records it (see sidecarPath). It holds NO values, only:
 *
 *   {
 *     "writer": "cdktf-qdrant-cluster-access",
 *     "version": 1,
 *     "created": false,            this tool created the target file (it did not exist)
 *     "originalWhenEmpty": "{ }\n", the target's exact text before the first write, kept only
 *                                  when it had no member (so it is a BOM, whitespace and at most
 *                                  an empty object: no values); otherwise null
 *     "owners": { "<owner>": ["NAME", ...] }   the members each owner wrote
 *   }
 *
 * "created" and "originalWhenEmpty" describe the file, not an owner: they stay while any owner
 * is recorded, so whichever owner is removed last restores the file.
 *
 *   - planMerge sets owner's members to exactly the given ones: it refuses when the object
 *     already has a member with one of our names that the sidecar does not record for this
 *     owner (no sidecar at all: every existing member counts as not ours). That includes files
 *     written by versions of this tool before the sidecar existed: their members are refused
 *     like the user's, with a message saying how to proceed. Members recorded for owner that
 *     are no longer given are removed (`dropped`) and leave the record.
 *   - planRemove removes only members recorded for this owner and named in the request (with
 *     opts.all: every member recorded for owner). When no owner is left it deletes the sidecar
 *     and, if the object has no members left, deletes the target (when "created") or writes
 *     "originalWhenEmpty" back. Removing what one write added from an otherwise untouched file
 *     gives back the original bytes exactly.
 *   - The caller writes the sidecar BEFORE the target on write, and AFTER the target on remove,
 *     so a crash can only leave the sidecar recording a member that is not there (harmless),
 *     never one of our members unrecorded. A write that drops members therefore writes the
 *     sidecar twice: first recording the old and the new names (`sidecar`), then, after the
 *     target, only the new ones (`sidecarAfter`).
 * Error messages name lines and members, never values.
 */
const path = require('node:path');
const { TOOL } = require('./dotenv.js');
const { checkName, checkOwner, otherWorkspace, anotherWorkspace } = require('./entries.js');

const SIDECAR_SUFFIX = '.qdrant-cluster-access';
const SIDECAR_VERSION = 1;
const BLANK_RE = /^\ufeff?[ \t\r\n]*$/;
const EMPTY_OBJECT_RE = /^\ufeff?[ \t\r\n]*(\{[ \t\r\n]*\}[ \t\r\n]*)?$/;
const SECRET_NAMING_FIX = "give our entry another name with the secretNaming of the key that writes it (e.g. secretNaming: { prefix: \"APP_\" })";

class JsonError extends Error {
  constructor(message, line) {
    super(message);
    this.name = 'JsonError';
    if (line !== undefined) this.line = line;
  }
}

/** The sidecar of `file`: `.<basename>.qdrant-cluster-access` in the same directory. */
function sidecarPath(file) {
  return path.join(path.dirname(file), `.${path.basename(file)}${SIDECAR_SUFFIX}`);
}

function lineAt(text, offset) {
  return (text.slice(0, offset).match(/\r\n|\r|\n/g) || []).length + 1;
}

/** Whether `prefix` can still start valid JSON: it parses, or fails only where it ends. */
function viablePrefix(prefix) {
  try {
    JSON.parse(prefix);
    return true;
  } catch (err) {
    const m = /position (\d+)/.exec(err.message);
    return /Unexpected end of JSON input/.test(err.message) || (m !== null && Number(m[1]) === prefix.length);
  }
}

/**
 * " (line N)" of the first character that makes `text` invalid JSON. V8 names the position for
 * most errors, but not for an unexpected token (it quotes the text instead, which is never
 * shown): then the shortest prefix that cannot start valid JSON is searched for.
 */
function jsonLineOf(text, err) {
  const m = /position (\d+)/.exec(err && err.message ? err.message : '');
  const end = text.trimEnd().length;
  const endsEarly = ` (it ends early, at line ${lineAt(text, end)})`;
  if (m) return Number(m[1]) >= end ? endsEarly : ` (line ${lineAt(text, Number(m[1]))})`;
  let lo = 0; // viable
  let hi = text.length; // not viable
  if (viablePrefix(text)) return endsEarly;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (viablePrefix(text.slice(0, mid))) lo = mid;
    else hi = mid;
  }
  return ` (line ${lineAt(text, hi - 1)})`;
}

function skipWs(text, i) {
  while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
  return i;
}

function skipString(text, i) {
  i++; // opening quote
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

function skipValue(text, i) {
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    do {
      const d = text[i];
      if (d === '"') {
        i = skipString(text, i);
        continue;
      }
      if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') depth--;
      i++;
    } while (depth > 0);
    return i;
  }
  while (i < text.length && !',}] \t\r\n'.includes(text[i])) i++;
  return i;
}

/**
 * Scans JSON text holding an object: { open, close, members: [{ key, start, valStart, valEnd }] }
 * (offsets into text). Throws JsonError for text that is not valid JSON or not an object.
 */
function scanJsonObject(text) {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let parsed;
  try {
    parsed = JSON.parse(text.slice(bom));
  } catch (err) {
    // A .env file with our block: the target was switched from SecretTarget.dotenv() to json() on
    // the same path (a new Terraform address, so the old target's removal never ran).
    const block = new RegExp(`^# >>> managed by ${TOOL} \\(([^)\\n]*)\\)`, 'm').exec(text);
    if (block) {
      throw new JsonError(`not valid JSON: it is a .env file holding a block managed by ${TOOL} (owner ${block[1].slice(0, 200)}), with keys; ` +
        'give the JSON target another file, or remove that block by hand (or switch the target back to SecretTarget.dotenv())');
    }
    throw new JsonError(`not valid JSON${jsonLineOf(text.slice(bom), err)}; fix it or choose another file`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new JsonError('the JSON file does not hold an object at the top level; give the path of a file holding an object ({ ... })');
  }
  const open = skipWs(text, bom);
  const members = [];
  let i = skipWs(text, open + 1);
  if (text[i] === '}') return { open, close: i, members };
  for (;;) {
    const start = i;
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(start, keyEnd));
    i = skipWs(text, keyEnd) + 1; // ':'
    const valStart = skipWs(text, i);
    const valEnd = skipValue(text, valStart);
    members.push({ key, start, valStart, valEnd });
    i = skipWs(text, valEnd);
    if (text[i] === ',') {
      i = skipWs(text, i + 1);
      continue;
    }
    return { open, close: i, members };
  }
}

function emptySidecar() {
  return { created: false, originalWhenEmpty: null, owners: {} };
}

/**
 * Parses sidecar text (null: no sidecar) into { created, originalWhenEmpty, owners } or null.
 * Throws JsonError when the text is not a sidecar of this tool, naming it (`name`).
 */
function parseSidecar(text, name) {
  if (text == null) return null;
  const damaged = (what) => new JsonError(
    `the ownership record ${name} ${what}; restore it, or delete it and remove the members it listed from the file by hand`);
  let obj;
  try {
    obj = JSON.parse(text);
  } catch {
    throw damaged('is not valid JSON');
  }
  if (!obj || typeof obj !== 'object' || obj.writer !== TOOL) throw damaged(`was not written by ${TOOL}`);
  if (obj.version !== SIDECAR_VERSION) throw damaged(`has version ${JSON.stringify(obj.version)}, expected ${SIDECAR_VERSION} (written by another version of this tool)`);
  if (typeof obj.created !== 'boolean') throw damaged('has no boolean "created"');
  const orig = obj.originalWhenEmpty;
  if (orig !== null && (typeof orig !== 'string' || !EMPTY_OBJECT_RE.test(orig))) {
    throw damaged('has an "originalWhenEmpty" that is not null or an empty object');
  }
  if (!obj.owners || typeof obj.owners !== 'object' || Array.isArray(obj.owners)) throw damaged('has no "owners" object');
  const owners = {};
  for (const [owner, names] of Object.entries(obj.owners)) {
    try {
      checkOwner(owner);
      if (!Array.isArray(names)) throw new Error();
      names.forEach(checkName);
    } catch {
      throw damaged(`has an invalid entry for owner ${JSON.stringify(owner.slice(0, 64))}`);
    }
    owners[owner] = [...names];
  }
  return { created: obj.created, originalWhenEmpty: orig, owners };
}

/** Sidecar text: stable key order, two-space indent, final newline. */
function renderSidecar(side) {
  return JSON.stringify({
    writer: TOOL,
    version: SIDECAR_VERSION,
    created: side.created,
    originalWhenEmpty: side.originalWhenEmpty,
    owners: side.owners,
  }, null, 2) + '\n';
}

function recordedOwnerOf(side, name) {
  if (!side) return null;
  return Object.keys(side.owners).find((o) => side.owners[o].includes(name)) || null;
}

function foreignMemberError(text, m, owner, side, sidecarName, others = []) {
  const who = recordedOwnerOf(side, m.key);
  const key = JSON.stringify(m.key);
  const line = lineAt(text, m.start);
  // The others that the same fix clears: all of them in one message, not one a deploy.
  // (A member given twice in the file is named once, at its first line.)
  const same = others.filter((o, i) => o.key !== m.key && others.findIndex((x) => x.key === o.key) === i && recordedOwnerOf(side, o.key) === who);
  const also = same.length === 0 ? '' : ` (so ${same.length === 1 ? 'does' : 'do'} ${same.map((o) => `${JSON.stringify(o.key)} on line ${lineAt(text, o.start)}`).join(', ')})`;
  const those = same.length === 0 ? 'that member' : 'those members';
  if (who && otherWorkspace(who, owner)) {
    return new JsonError(`line ${line}: member ${key}${also} was written for owner ${who} (recorded in ${sidecarName})${anotherWorkspace(owner)}`, line);
  }
  if (who) {
    return new JsonError(`line ${line}: member ${key}${also} was written for owner ${who} (recorded in ${sidecarName}); ${SECRET_NAMING_FIX}, or remove owner ${who}'s entries first`, line);
  }
  const why = side
    ? `and ${sidecarName} does not record it as written for owner ${owner}`
    : `and there is no ownership record ${sidecarName} saying this tool wrote it (if an earlier version of this tool wrote it, deleting it is safe: the next deploy writes it again)`;
  return new JsonError(`line ${line}: member ${key}${also} already exists ${why}; remove ${those}, or ${SECRET_NAMING_FIX}`, line);
}

function options(opts) {
  return { owner: checkOwner(opts && opts.owner), sidecarName: (opts && opts.sidecarName) || 'the sidecar file' };
}

/**
 * Sets owner's members to exactly `entries` (NAME: string). text: the target (null when
 * missing); side: the parsed sidecar (null when missing). Returns { text, sidecar, sidecarAfter,
 * added, updated, unchanged, dropped }: `sidecar` is committed before the target and records the
 * names of before and after; `sidecarAfter` (null when the same) is committed after the target.
 */
function planMerge(text, side, entries, opts) {
  const { owner, sidecarName } = options(opts);
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries)) {
    throw new JsonError('entries must be an object of NAME: value');
  }
  const names = Object.keys(entries);
  for (const n of names) {
    checkName(n);
    if (typeof entries[n] !== 'string') throw new JsonError(`entry ${n}: value must be a string`);
  }
  const blank = text == null || BLANK_RE.test(text);
  const mine = new Set(side && side.owners[owner] ? side.owners[owner] : []);
  // Nothing to write and nothing of ours in the file: nothing to change (no file is created).
  if (names.length === 0 && (mine.size === 0 || blank)) return { text: null, sidecar: side, sidecarAfter: null, added: [], updated: [], unchanged: [], dropped: [] };
  let scan = blank ? null : scanJsonObject(text);
  const foreign = (scan ? scan.members : []).filter((m) => Object.prototype.hasOwnProperty.call(entries, m.key) && !mine.has(m.key));
  if (foreign.length > 0) throw foreignMemberError(text, foreign[0], owner, side, sidecarName, foreign.slice(1));
  for (const n of names) {
    // Recorded for another owner but not in the file (removed by hand, or a crash): still theirs.
    const who = recordedOwnerOf(side, n);
    if (who && otherWorkspace(who, owner)) {
      throw new JsonError(`member ${JSON.stringify(n)} is recorded in ${sidecarName} as written for owner ${who}${anotherWorkspace(owner)}`);
    }
    if (who && who !== owner) {
      throw new JsonError(`member ${JSON.stringify(n)} is recorded in ${sidecarName} as written for owner ${who}; ${SECRET_NAMING_FIX}, or remove owner ${who}'s entries first`);
    }
  }
  const next = side ? { ...side, owners: { ...side.owners } } : emptySidecar();
  next.owners[owner] = [...mine, ...names.filter((n) => !mine.has(n))];
  const fresh = !side || Object.keys(side.owners).length === 0;
  // Recorded names no longer given: they leave the file and then the record.
  const gone = [...mine].filter((n) => !Object.prototype.hasOwnProperty.call(entries, n));
  const after = () => (gone.length ? { ...next, owners: { ...next.owners, [owner]: next.owners[owner].filter((n) => !gone.includes(n)) } } : null);

  if (blank) {
    if (text == null) Object.assign(next, { created: true, originalWhenEmpty: null });
    else if (fresh) Object.assign(next, { created: false, originalWhenEmpty: text });
    const body = names.map((n) => `  ${JSON.stringify(n)}: ${JSON.stringify(entries[n])}`).join(',\n');
    return { text: `{\n${body}\n}\n`, sidecar: next, sidecarAfter: after(), added: names, updated: [], unchanged: [], dropped: [] };
  }

  if (fresh) Object.assign(next, { created: false, originalWhenEmpty: scan.members.length === 0 ? text : null });

  let out = text;
  const dropped = new Set(scan.members.filter((m) => gone.includes(m.key)).map((m) => m.key));
  if (dropped.size) {
    out = removeMembers(text, scan, dropped).text;
    scan = scanJsonObject(out);
  }
  const seen = new Set();
  const changed = new Set();
  // Replace existing values from the end so earlier offsets stay valid.
  for (const m of [...scan.members].reverse()) {
    if (!Object.prototype.hasOwnProperty.call(entries, m.key)) continue;
    seen.add(m.key);
    const v = JSON.stringify(entries[m.key]);
    if (out.slice(m.valStart, m.valEnd) !== v) {
      changed.add(m.key);
      out = out.slice(0, m.valStart) + v + out.slice(m.valEnd);
    }
  }
  const added = names.filter((n) => !seen.has(n));
  if (added.length) {
    const s2 = scanJsonObject(out);
    const nl = out.includes('\r\n') ? '\r\n' : '\n';
    let indent = '  ';
    if (s2.members.length) {
      const im = /\n([ \t]*)$/.exec(out.slice(0, s2.members[0].start));
      if (im) indent = im[1];
    }
    const lines = added.map((n) => `${indent}${JSON.stringify(n)}: ${JSON.stringify(entries[n])}`);
    if (s2.members.length) {
      const at = s2.members[s2.members.length - 1].valEnd;
      out = out.slice(0, at) + lines.map((l) => ',' + nl + l).join('') + out.slice(at);
    } else {
      out = out.slice(0, s2.open + 1) + nl + lines.join(',' + nl) + nl + out.slice(s2.close);
    }
  }
  return {
    text: out,
    sidecar: next,
    sidecarAfter: after(),
    added,
    updated: names.filter((n) => changed.has(n)),
    unchanged: names.filter((n) => seen.has(n) && !changed.has(n)),
    dropped: gone.filter((n) => dropped.has(n)),
  };
}

/**
 * Removes the members whose key is in `names` (all occurrences), keeping every other byte.
 * `scan` is scanJsonObject(text). Returns { text, members: how many members are left }.
 * A member after the first goes with the separator before it (`,<ws>"k": v`), which undoes
 * exactly what planMerge appended; the first member goes with the separator after it.
 */
function removeMembers(text, scan, names) {
  const doomed = scan.members.map((m, idx) => (names.has(m.key) ? idx : -1)).filter((idx) => idx >= 0);
  let out = text;
  // From the last to the second member: each cut lies after all earlier offsets, so the
  // original offsets stay valid.
  for (const idx of doomed.filter((i) => i > 0).reverse()) {
    out = out.slice(0, scan.members[idx - 1].valEnd) + out.slice(scan.members[idx].valEnd);
  }
  const left = scan.members.length - doomed.length;
  if (doomed[0] === 0) {
    const s2 = scanJsonObject(out);
    const [m, next] = s2.members;
    out = next ? out.slice(0, m.start) + out.slice(next.start) : out.slice(0, s2.open + 1) + out.slice(s2.close);
  }
  return { text: out, members: left };
}

/**
 * Removes owner's recorded members named in `names` (with opts.all, also every other recorded
 * one). Returns { text, sidecar, removed, absent, notOurs, noRecord, noSidecar, deleteFile }:
 * text null = leave the target alone; sidecar null = delete it; deleteFile = delete the target.
 * noRecord: the sidecar records nothing for owner, so nothing changes (notOurs then lists the
 * names that exist as members anyway). noSidecar: there is no sidecar at all while the object
 * has members, so members this tool wrote may be among them (a deleted sidecar), unnamed.
 */
function planRemove(text, side, names, opts) {
  const { owner } = options(opts);
  const given = Array.isArray(names) ? names : Object.keys(names || {});
  given.forEach(checkName);
  const recorded = side && side.owners[owner] ? side.owners[owner] : [];
  const list = opts && opts.all ? [...new Set([...given, ...recorded])] : given;
  const scan = text != null && !BLANK_RE.test(text) ? scanJsonObject(text) : null;
  const present = new Set(scan ? scan.members.map((m) => m.key) : []);
  const mine = new Set(recorded);
  const result = (extra) => ({
    text: null,
    sidecar: side,
    removed: [],
    absent: list.filter((n) => !present.has(n)),
    notOurs: list.filter((n) => present.has(n) && !mine.has(n)),
    noRecord: false,
    noSidecar: false,
    deleteFile: false,
    ...extra,
  });
  if (!side || !side.owners[owner]) return result({ noRecord: true, noSidecar: !side && present.size > 0 });

  const next = { ...side, owners: { ...side.owners } };
  const left = side.owners[owner].filter((n) => !list.includes(n));
  if (left.length) next.owners[owner] = left;
  else delete next.owners[owner];
  const last = Object.keys(next.owners).length === 0;
  const sidecar = last ? null : next;
  if (text == null) return result({ sidecar });

  const targets = new Set(list.filter((n) => mine.has(n) && present.has(n)));
  let out = text;
  let members = 0;
  if (scan) ({ text: out, members } = removeMembers(text, scan, targets));
  let deleteFile = false;
  if (last && members === 0) {
    if (side.created) deleteFile = true;
    else if (side.originalWhenEmpty !== null) out = side.originalWhenEmpty;
  }
  return result({
    text: out === text ? null : out,
    sidecar,
    removed: list.filter((n) => targets.has(n)),
    absent: list.filter((n) => !targets.has(n) && !(present.has(n) && !mine.has(n))),
    deleteFile,
  });
}

module.exports = {
  JsonError,
  SIDECAR_SUFFIX,
  sidecarPath,
  scanJsonObject,
  parseSidecar,
  renderSidecar,
  planMerge,
  planRemove,
};
