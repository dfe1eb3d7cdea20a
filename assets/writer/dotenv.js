'use strict';
/**
 * Line-preserving dotenv editing (pure functions, Node built-ins only).
 *
 * Line model: the text is split into physical lines (terminators \r\n, \n or \r, the same
 * three that the dotenv npm parser and python-dotenv accept). Physical lines are grouped into
 * items: 'blank', 'comment' or 'assign' (an assignment, which spans several physical lines when
 * its quoted value does). Every item keeps its exact original text in `raw`, so joining all
 * `raw` values (after an optional UTF-8 BOM) gives back the input byte for byte.
 *
 * Accepted grammar (stricter than either parser, so that both parsers agree on where every
 * assignment starts and ends):
 *   blank     [ \t]*
 *   comment   [ \t]*#...
 *   assign    [ \t]*(export[ \t]+)?NAME[ \t]*=[ \t]*VALUE[ \t]*(#...)?   NAME = [A-Za-z0-9_.-]+
 *   VALUE     '...' or "..." (may span lines; the closing quote follows an even number of
 *             backslashes: none, or escaped ones; after two or more, no quote of its kind may
 *             follow anywhere, since python-dotenv would read on to it),
 *             `...` (closed on the same line, no \), or unquoted text up to the end of line.
 * Anything else is refused with an error that names the line (never a value).
 *
 * Ownership: our entries live only inside the owner's managed block, delimited by two comment
 * lines (exact text, compared after the line terminator is removed; OWNER as checkOwner allows,
 * so it never holds a space or a parenthesis; \u2014 is the em dash):
 *   start   # >>> managed by cdktf-qdrant-cluster-access (OWNER) \u2014 do not edit[CREATED]
 *   CREATED  \u2014 created this file        (the same start line, followed by this tag)
 *   end     # <<< managed by cdktf-qdrant-cluster-access (OWNER)
 * CREATED records that this tool created the file (planMerge was given null: no file). At most
 * one block per owner; blocks do not nest. The record line (written directly after the start
 * marker; the first line of this form in the block counts)
 *   record  # cdktf-qdrant-cluster-access entries: NAME NAME ...
 *           (the names owner last wrote, sorted, one space apart; the tool's name keeps a user's
 *           note such as "# entries: see README" from reading as one)
 * says which names in the block are owner's. Blocks written before the record existed have none.
 * Everything outside owner's block, and every line inside it that is neither the record nor one
 * of the names written, recorded or removed, belongs to someone else (a user's note or variable
 * inside the block stays, whatever happens).
 *   - planMerge sets owner's entries to exactly the given ones. It refuses when one of its names
 *     is defined outside owner's block (by the user or in another owner's block), naming the
 *     first such line and the fix. Inside the block it changes only the value of lines it
 *     writes, appends new names before the end marker, drops the lines of recorded names that
 *     are no longer given (`dropped`; without a record nothing is dropped) and rewrites the
 *     record. Without a block it appends one at the end of the file (keeping a missing final
 *     newline).
 *   - planRemove removes the named definitions inside owner's block only; with opts.all, also
 *     every recorded name. The names removed leave the record. The markers and the record line
 *     go when nothing else is left between them (a user's line keeps them, the record perhaps
 *     empty, so that a later run does not take the block for one whose record was deleted by
 *     hand); if the start marker
 *     carried CREATED, the tag moves to the next block of another owner, or, when no block is
 *     left and the rest of the file is blank lines only, deleteFile tells the caller to delete
 *     the file.
 *   - merge then remove on a file nobody else touched gives it back byte for byte (BOM, line
 *     endings, a missing final newline), or deletes it when this tool had created it.
 *
 * Values written by this module: see formatValue.
 */

const { checkName, checkOwner, otherWorkspace, anotherWorkspace } = require('./entries.js');

const TOOL = 'cdktf-qdrant-cluster-access';
const CREATED_TAG = ' \u2014 created this file';

class DotenvError extends Error {
  constructor(message, line) {
    super(message);
    this.name = 'DotenvError';
    this.line = line;
  }
}

// python-dotenv expands ${NAME} and ${NAME:-default} in every value, quoted or not.
const PY_VARIABLE_RE = /\$\{[^}:]*(?::-[^}]*)?\}/;
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Characters that some parser treats as a line break, or that one parser trims and the other not.
const LINE_BREAK_RE = /[\r\n]/;
const UNQUOTED_FORBIDDEN_RE = /[#\r\n\u0085\u2028\u2029]/;
// JavaScript's trim() set plus the extra characters Python's str.isspace() accepts.
const EDGE_SPACE_RE = /[\s\u001c-\u001f\u0085]/;

function startMarker(owner, created) {
  return `# >>> managed by ${TOOL} (${owner}) \u2014 do not edit${created ? CREATED_TAG : ''}`;
}
function endMarker(owner) {
  return `# <<< managed by ${TOOL} (${owner})`;
}

/** The record line of the names owner wrote (sorted, so the order of the entries never shows). */
function recordLine(names) {
  return `# ${TOOL} entries:${[...names].sort().map((n) => ` ${n}`).join('')}`;
}
const RECORD_RE = /^# cdktf-qdrant-cluster-access entries:((?: [A-Za-z_][A-Za-z0-9_]*)*)$/;

// Any owner's markers, for reading a file that holds several blocks.
const START_RE = /^# >>> managed by cdktf-qdrant-cluster-access \(([^()\s]+)\) \u2014 do not edit( \u2014 created this file)?$/;
const END_RE = /^# <<< managed by cdktf-qdrant-cluster-access \(([^()\s]+)\)$/;


/** Splits text into physical lines: [{ content, eol }], eol one of '\r\n', '\n', '\r', ''. */
function splitLines(text) {
  const lines = [];
  let i = 0;
  while (i < text.length) {
    let j = i;
    while (j < text.length && text[j] !== '\n' && text[j] !== '\r') j++;
    let eol = '';
    if (j < text.length) eol = text[j] === '\r' && text[j + 1] === '\n' ? '\r\n' : text[j];
    lines.push({ content: text.slice(i, j), eol });
    i = j + eol.length;
  }
  return lines;
}

const ASSIGN_RE = /^([ \t]*)(export[ \t]+(?=[\w.-]+[ \t]*=))?([\w.-]+)([ \t]*=[ \t]*)/;

/**
 * Parses dotenv text into { bom, eol, items }. items: { kind, raw, line, endLine, eol, ... };
 * assignments also carry key, exported, prefix (text before the value), valueRaw, suffix
 * (spaces and comment after the value), quote ('', "'", '"' or '`').
 * Throws DotenvError naming the line for text outside the accepted grammar. opts.written: the text
 * is what planMerge would write (the message then blames the entries of this write).
 */
function parseDotenv(text, opts) {
  if (typeof text !== 'string') throw new TypeError('parseDotenv expects a string');
  let bom = '';
  if (text.charCodeAt(0) === 0xfeff) {
    bom = '\ufeff';
    text = text.slice(1);
  }
  const phys = splitLines(text);
  const firstEol = phys.find((p) => p.eol !== '');
  // The index of the last physical line holding a quote character, found once per kind.
  const lastLines = {};
  const lastLineWith = (q) => {
    if (!(q in lastLines)) {
      let t = phys.length - 1;
      while (t >= 0 && !phys[t].content.includes(q)) t--;
      lastLines[q] = t;
    }
    return lastLines[q];
  };
  const items = [];
  for (let i = 0; i < phys.length; i++) {
    const line = i + 1;
    const { content, eol } = phys[i];
    if (/^[ \t]*$/.test(content)) {
      items.push({ kind: 'blank', raw: content + eol, content, eol, line, endLine: line });
      continue;
    }
    if (/^[ \t]*#/.test(content)) {
      items.push({ kind: 'comment', raw: content + eol, content, eol, line, endLine: line });
      continue;
    }
    const m = ASSIGN_RE.exec(content);
    if (!m) {
      throw new DotenvError(`line ${line}: expected NAME=value, a comment (#) or a blank line`, line);
    }
    if (m[3] === 'export' && /^[ \t]/.test(m[4])) {
      throw new DotenvError(`line ${line}: "export" is not followed by a variable name`, line);
    }
    const prefix = m[0];
    const rest = content.slice(prefix.length);
    const q = rest[0];
    const item = {
      kind: 'assign', key: m[3], exported: Boolean(m[2]), prefix, line, quote: '',
    };
    if (q === "'" || q === '"') {
      // Find the closing quote: the first quote character after an even number of backslashes
      // (none, or escaped backslashes: "C:\\temp\\" ends at its last quote).
      let j = i;
      let s = content;
      let k = prefix.length + 1;
      let close = -1;
      let slashes = 0;
      for (;;) {
        for (; k < s.length; k++) {
          if (s[k] === q && slashes % 2 === 0) {
            close = k;
            break;
          }
          slashes = s[k] === '\\' ? slashes + 1 : 0;
        }
        if (close >= 0) break;
        slashes = 0;
        j++;
        if (j >= phys.length) {
          const kind = q === "'" ? 'single' : 'double';
          throw new DotenvError(`line ${line}: unterminated ${kind}-quoted value (the closing ${q} is missing)`, line);
        }
        s = phys[j].content;
        k = 0;
      }
      const tail = s.slice(close + 1);
      if (!/^[ \t]*(#.*)?$/.test(tail)) {
        throw new DotenvError(`line ${j + 1}: unexpected text after the closing quote (only spaces and a # comment may follow)`, j + 1);
      }
      // Both parsers read a backslash before a quote as an escape when they can: python-dotenv
      // then reads on to the next quote of this kind anywhere after it (the dotenv npm parser
      // stops here). Only with no such quote later do both close the value where we do.
      if (slashes > 0 && (tail.includes(q) || lastLineWith(q) > j)) {
        const kind = q === "'" ? 'single' : 'double';
        const later = opts && opts.written ? `an entry of this write would put a ${q} after it` : `a ${q} follows later in the file`;
        const fix = opts && opts.written ? '' : `, or remove the later ${q}`;
        throw new DotenvError(`line ${line}: the ${kind}-quoted value ends in a backslash and ${later}, so python-dotenv would read on past its closing ${q}; write this value without quotes (each \\\\ as one \\)${fix}`, line);
      }
      let valueRaw = '';
      if (j === i) {
        valueRaw = content.slice(prefix.length, close + 1);
      } else {
        valueRaw = content.slice(prefix.length) + phys[i].eol;
        for (let t = i + 1; t < j; t++) valueRaw += phys[t].content + phys[t].eol;
        valueRaw += s.slice(0, close + 1);
      }
      let raw = '';
      for (let t = i; t <= j; t++) raw += phys[t].content + phys[t].eol;
      Object.assign(item, { quote: q, valueRaw, suffix: tail, eol: phys[j].eol, raw, endLine: j + 1 });
      i = j;
    } else if (q === '`') {
      const bm = /^(`[^`\\]*`)([ \t]*(?:#.*)?)$/.exec(rest);
      if (!bm) {
        throw new DotenvError(`line ${line}: a backtick-quoted value must be closed on the same line and contain no backslash`, line);
      }
      Object.assign(item, { quote: '`', valueRaw: bm[1], suffix: bm[2], eol, raw: content + eol, endLine: line });
    } else {
      // python-dotenv skips any whitespace after "=" (the dotenv npm parser too, most of it), so a
      // quote after a no-break space or the like opens a quoted value for them, which may run
      // over many lines, ours included: refused, as this grammar reads it as unquoted.
      const odd = /^([^\S\r\n]|[\x1c-\x1f\x85])+(?=['"`])/.exec(rest);
      if (odd) {
        const code = `U+${odd[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
        throw new DotenvError(`line ${line}: the value starts with whitespace other than spaces and tabs (${code}) before a quote, where parsers disagree on whether it is quoted; remove that character`, line);
      }
      // Unquoted: the value ends where a comment starts (python-dotenv: whitespace then #). A
      // match starts only where a run of spaces does: the same index as /[ \t]+#/, without
      // trying every position inside a long run (quadratic time).
      const cm = /(?<![ \t])[ \t]+#/.exec(rest);
      let valueRaw = cm ? rest.slice(0, cm.index) : rest;
      let suffix = cm ? rest.slice(cm.index) : '';
      const trail = /(?<![ \t])[ \t]+$/.exec(valueRaw);
      if (trail) {
        suffix = trail[0] + suffix;
        valueRaw = valueRaw.slice(0, trail.index);
      }
      Object.assign(item, { valueRaw, suffix, eol, raw: content + eol, endLine: line });
    }
    items.push(item);
  }
  // The file's line ending: the first one that ends an item (not one inside a quoted value,
  // where a stray \r would make every line written in a new block end with it).
  const firstItemEol = items.find((it) => it.eol !== '');
  return { bom, eol: (firstItemEol || firstEol || { eol: '\n' }).eol, items };
}

/**
 * Returns the text to write after NAME= so that both the dotenv npm parser (v16) and
 * python-dotenv read back exactly `value`:
 *   - single quotes when the value has no ', no \\ and does not end with \ (neither parser
 *     changes anything else inside single quotes);
 *   - else double quotes when it has no " and no \ (no escape sequences can occur);
 *   - else unquoted when it has no #, no leading/trailing whitespace and does not start with
 *     a quote or backtick;
 *   - else refused.
 * Always refused: line breaks (\r, \n: the two parsers do not agree on escapes for every
 * value, and key references never contain them), ${NAME} / ${NAME:-x} (python-dotenv would
 * expand it and neither parser can escape it) and lone UTF-16 surrogates (not writable as
 * UTF-8). Error messages never contain the value.
 */
function formatValue(value) {
  if (typeof value !== 'string') throw new DotenvError('value must be a string');
  if (LINE_BREAK_RE.test(value)) {
    throw new DotenvError('value contains a line break; only single-line values can be written');
  }
  if (LONE_SURROGATE_RE.test(value)) {
    throw new DotenvError('value is not valid Unicode text (lone surrogate)');
  }
  if (PY_VARIABLE_RE.test(value)) {
    throw new DotenvError('value contains ${...}, which python-dotenv would expand as a variable reference');
  }
  if (!value.includes("'") && !value.includes('\\\\') && !value.endsWith('\\')) return `'${value}'`;
  if (!value.includes('"') && !value.includes('\\')) return `"${value}"`;
  if (
    value.length > 0
    && !UNQUOTED_FORBIDDEN_RE.test(value)
    && !/^['"`]/.test(value)
    && !EDGE_SPACE_RE.test(value[0])
    && !EDGE_SPACE_RE.test(value[value.length - 1])
  ) {
    return value;
  }
  throw new DotenvError('value cannot be quoted so that both dotenv and python-dotenv read it back unchanged (it mixes \' with " or a backslash, and also #, a leading quote or leading/trailing spaces)');
}

function entryError(name, err) {
  return new DotenvError(`entry ${name}: ${err.message}`);
}

const SECRET_NAMING_FIX = "give our entry another name with the secretNaming of the key that writes it (e.g. secretNaming: { prefix: \"APP_\" })";

/**
 * Reads the block structure. Returns { block, blocks, ownerAt }:
 *   block   owner's block { start, end, created } (item indexes of its markers) or null;
 *   blocks  every well-formed block of any owner, in file order: { owner, start, end, created };
 *   ownerAt(idx) the owner of the block holding item idx, or null (outside every block).
 * Refuses (DotenvError naming the line) when any owner's start marker has no end marker after
 * it, and when owner's own block is damaged: an end without a start, a second block, or another
 * owner's marker inside it. Other damage in other owners' blocks is not ours to judge; it only
 * makes their lines count as outside.
 */
function readBlocks(items, owner) {
  const blocks = [];
  const ownerAt = new Array(items.length).fill(null);
  let open = null;
  items.forEach((it, idx) => {
    if (it.kind !== 'comment') {
      if (open) ownerAt[idx] = open.owner;
      return;
    }
    const s = START_RE.exec(it.content);
    const e = s ? null : END_RE.exec(it.content);
    if (s && !open) {
      open = { owner: s[1], start: idx, created: Boolean(s[2]) };
    } else if (e && open && e[1] === open.owner) {
      blocks.push({ ...open, end: idx });
      open = null;
    } else if (open) {
      ownerAt[idx] = open.owner;
    }
  });
  if (open) {
    // A start marker without its end marker (any owner's: every line after it would count as
    // that block's, and a block appended after it would start inside it).
    const it = items[open.start];
    throw new DotenvError(`line ${it.line}: managed block for owner ${open.owner} has no end marker; restore the line "${endMarker(open.owner)}" after its entries, or delete this line`, it.line);
  }
  const S = startMarker(owner);
  const E = endMarker(owner);
  const isStart = (it) => it.kind === 'comment' && (it.content === S || it.content === S + CREATED_TAG);
  const isEnd = (it) => it.kind === 'comment' && it.content === E;
  const starts = [];
  const ends = [];
  items.forEach((it, idx) => {
    if (isStart(it)) starts.push(idx);
    else if (isEnd(it)) ends.push(idx);
  });
  if (starts.length === 0 && ends.length === 0) return { block: null, blocks, ownerAt };
  if (starts.length === 0 || ends[0] < starts[0]) {
    const it = items[ends[0]];
    throw new DotenvError(`line ${it.line}: end marker of the managed block for owner ${owner} has no start marker before it; restore the line "${S}" above it, or delete this line`, it.line);
  }
  const end = ends.find((idx) => idx > starts[0]);
  if (end === undefined) {
    const it = items[starts[0]];
    throw new DotenvError(`line ${it.line}: managed block for owner ${owner} has no end marker; restore the line "${E}" after its entries, or delete this line`, it.line);
  }
  const extra = [...starts.slice(1), ...ends.filter((idx) => idx !== end)][0];
  if (extra !== undefined) {
    const it = items[extra];
    throw new DotenvError(`line ${it.line}: a second marker of the managed block for owner ${owner} (the block starts on line ${items[starts[0]].line}); merge the two blocks into one, or delete this line`, it.line);
  }
  for (let idx = starts[0] + 1; idx < end; idx++) {
    const it = items[idx];
    if (it.kind === 'comment' && (START_RE.test(it.content) || END_RE.test(it.content))) {
      throw new DotenvError(`line ${it.line}: a marker of another managed block inside the block for owner ${owner} (lines ${items[starts[0]].line}-${items[end].line}); move that block out of it`, it.line);
    }
  }
  if (ownerAt[starts[0]] !== null) {
    const it = items[starts[0]];
    throw new DotenvError(`line ${it.line}: the managed block for owner ${owner} starts inside the block of owner ${ownerAt[starts[0]]}; move it out of that block`, it.line);
  }
  const created = items[starts[0]].content !== S;
  // The record: the first comment in the block that has its form (written right after the start
  // marker, but a line the user inserted above it does not hide it).
  let record = null;
  for (let idx = starts[0] + 1; idx < end && !record; idx++) {
    const m = items[idx].kind === 'comment' ? RECORD_RE.exec(items[idx].content) : null;
    if (m) record = { idx, names: m[1].split(' ').filter(Boolean) };
  }
  return { block: { start: starts[0], end, created, record }, blocks, ownerAt };
}

function inBlock(block, idx) {
  return Boolean(block) && idx > block.start && idx < block.end;
}

function joinItems(bom, items) {
  return bom + items.map((it) => it.raw).join('');
}

function checkEntries(entries) {
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries)) {
    throw new DotenvError('entries must be an object of NAME: value');
  }
  const formatted = new Map();
  for (const name of Object.keys(entries)) {
    checkName(name);
    try {
      formatted.set(name, formatValue(entries[name]));
    } catch (err) {
      throw entryError(name, err);
    }
  }
  return formatted;
}

/**
 * Sets owner's entries to exactly `entries`. Returns { text, added, updated, unchanged, dropped }
 * (name lists). `text` null means the file does not exist yet: the block's start marker then
 * records that this tool created the file.
 *   - Refuses (DotenvError, first offending line) when one of the names is defined anywhere
 *     outside owner's block: by the user, or in another owner's block.
 *   - Inside the block, each definition of a name gets its value token replaced in place (the
 *     rest of the line: indentation, export, spacing, comment, line ending, is kept); other
 *     names are appended at the end of the block; the definitions of recorded names that are no
 *     longer given are dropped; the record line is rewritten (or added after the start marker).
 *     Nothing else in the file changes.
 *   - Without a block, one is appended at the end of the file (keeping a missing final newline).
 */
function planMerge(text, entries, opts) {
  const owner = checkOwner(opts && opts.owner);
  const formatted = checkEntries(entries);
  const names = [...formatted.keys()];
  const creating = text == null;
  const model = parseDotenv(creating ? '' : text);
  const items = model.items.slice();
  const { block, ownerAt } = readBlocks(items, owner);
  // Nothing to write and no block: nothing to change (no file is created, no empty block added).
  if (names.length === 0 && !block) return { text: creating ? null : text, added: [], updated: [], unchanged: [], dropped: [] };
  items.forEach((it, idx) => {
    if (it.kind !== 'assign' || !formatted.has(it.key) || inBlock(block, idx)) return;
    const where = ownerAt[idx] ? `in the managed block of owner ${ownerAt[idx]}` : `outside the managed block of owner ${owner}`;
    if (ownerAt[idx] && otherWorkspace(ownerAt[idx], owner)) {
      throw new DotenvError(`line ${it.line}: ${it.key} is already defined in the managed block of owner ${ownerAt[idx]}${anotherWorkspace(owner)}`, it.line);
    }
    throw new DotenvError(`line ${it.line}: ${it.key} is already defined ${where}; remove that line, or ${SECRET_NAMING_FIX}`, it.line);
  });
  const seen = new Set();
  const changed = new Set();
  for (let idx = block ? block.start + 1 : 0; block && idx < block.end; idx++) {
    const it = items[idx];
    if (it.kind !== 'assign' || !formatted.has(it.key)) continue;
    seen.add(it.key);
    const f = formatted.get(it.key);
    let suffix = it.suffix;
    // An unquoted value needs whitespace before a comment, or python-dotenv keeps the comment.
    if (suffix !== '' && !/^[ \t]/.test(suffix)) suffix = ' ' + suffix;
    const raw = it.prefix + f + suffix + it.eol;
    if (raw !== it.raw) {
      changed.add(it.key);
      items[idx] = { ...it, raw, valueRaw: f, suffix, quote: /^['"]/.test(f) ? f[0] : '' };
    }
  }
  const eol = model.eol;
  const added = names.filter((n) => !seen.has(n));
  const lines = added.map((n) => `${n}=${formatted.get(n)}`);
  const dropped = new Set();
  let out = items;
  if (block) {
    const recorded = new Set(block.record ? block.record.names : []);
    const record = (lineEol) => ({ kind: 'comment', content: recordLine(names), raw: recordLine(names) + lineEol, eol: lineEol });
    out = [];
    items.forEach((it, idx) => {
      if (idx === block.end) lines.forEach((l) => out.push({ kind: 'assign', raw: l + eol }));
      if (block.record && idx === block.record.idx) {
        // Kept when empty too: a block without a record line would read as one whose record was deleted by hand.
        out.push(it.content === recordLine(names) ? it : record(it.eol));
        return;
      }
      if (inBlock(block, idx) && it.kind === 'assign' && recorded.has(it.key) && !formatted.has(it.key)) {
        dropped.add(it.key);
        return;
      }
      out.push(it);
      if (idx === block.start && !block.record && names.length > 0) out.push(record(it.eol));
    });
  } else {
    const all = [startMarker(owner, creating), recordLine(names), ...lines, endMarker(owner)];
    const last = items[items.length - 1];
    if (last && last.eol === '') {
      // The file has no final newline: keep it that way (removal undoes this exactly).
      items[items.length - 1] = { ...last, raw: last.raw + eol, eol };
      all.forEach((l, n) => items.push({ kind: 'comment', raw: l + (n === all.length - 1 ? '' : eol) }));
    } else {
      all.forEach((l) => items.push({ kind: 'comment', raw: l + eol }));
    }
  }
  const result = joinItems(model.bom, out);
  // Our lines may hold a quote that a value ending in a backslash must not have after it.
  parseDotenv(result, { written: true });
  return {
    text: result,
    added,
    updated: names.filter((n) => changed.has(n)),
    unchanged: names.filter((n) => seen.has(n) && !changed.has(n)),
    dropped: block && block.record ? block.record.names.filter((n) => dropped.has(n)) : [],
  };
}

/**
 * Removes the given names from owner's managed block, and nothing else; with opts.all, also
 * every name the block's record lists. Returns { text, removed, absent, notOurs, noBlock,
 * deleteFile }, the name lists covering the given names and (with all) the recorded ones:
 *   removed  names whose definitions were removed from the block;
 *   notOurs  names not in the block but defined elsewhere in the file (left in place);
 *   absent   the other names;
 *   noBlock  true when the file has no block of owner (the text is then returned unchanged);
 *   unrecorded  with all and no names given, when the block has no record line: the names
 *            the block defines, all left (ours or the user's: nothing says which);
 *   deleteFile true when this tool created the file (see the module header) and nothing but
 *            blank lines is left: the caller deletes the file instead of writing `text`;
 *   keptLines, keptNames  when no recorded name is left but the block is (a record line, and
 *            lines the record does not name: a user's): how many such lines, and the names
 *            they define.
 * The removed names leave the record. The markers and the record line go when nothing else is
 * left between them; a "created this file" record then moves to the next remaining block of
 * any owner.
 */
function planRemove(text, names, opts) {
  const owner = checkOwner(opts && opts.owner);
  const given = Array.isArray(names) ? names : Object.keys(names || {});
  given.forEach(checkName);
  const source = text == null ? '' : text;
  const model = parseDotenv(source);
  const { block } = readBlocks(model.items, owner);
  const recorded = block && block.record ? block.record.names : [];
  const list = opts && opts.all ? [...new Set([...given, ...recorded])] : given;
  const wanted = new Set(list);
  const removed = new Set();
  const elsewhere = new Set();
  model.items.forEach((it, idx) => {
    if (it.kind !== 'assign' || !wanted.has(it.key)) return;
    if (inBlock(block, idx)) removed.add(it.key);
    else elsewhere.add(it.key);
  });
  // With all, no names given and no record (removed by hand): the block's definitions may be
  // ours, but nothing says so. They stay, and are named for the caller to report.
  const unrecorded = new Set();
  if (block && !block.record && opts && opts.all && given.length === 0) {
    model.items.forEach((it, idx) => {
      if (it.kind === 'assign' && inBlock(block, idx) && !wanted.has(it.key)) unrecorded.add(it.key);
    });
  }
  const result = (out, deleteFile, kept = []) => ({
    text: out,
    removed: list.filter((n) => removed.has(n)),
    notOurs: list.filter((n) => !removed.has(n) && elsewhere.has(n)),
    absent: list.filter((n) => !removed.has(n) && !elsewhere.has(n)),
    noBlock: !block,
    unrecorded: [...unrecorded],
    deleteFile,
    keptLines: kept.length,
    keptNames: kept.filter((it) => it.kind === 'assign').map((it) => it.key),
  });
  if (!block) return result(text, false);

  const left = recorded.filter((n) => !wanted.has(n));
  let items = [];
  let record;
  model.items.forEach((it, idx) => {
    if (it.kind === 'assign' && wanted.has(it.key) && inBlock(block, idx)) return;
    if (block.record && idx === block.record.idx) {
      record = left.length === recorded.length ? it : { ...it, content: recordLine(left), raw: recordLine(left) + it.eol };
      items.push(record);
      return;
    }
    items.push(it);
  });
  const start = items.indexOf(model.items[block.start]);
  const end = items.indexOf(model.items[block.end]);
  // What is left between the markers besides the record line.
  const inner = items.slice(start + 1, end).filter((it) => it !== record);
  let deleteFile = false;
  if (inner.length === 0) {
    items = items.filter((_, idx) => idx < start || idx > end);
    if (block.created) {
      const next = readBlocks(items, owner).blocks[0];
      if (next) {
        const it = items[next.start];
        items[next.start] = { ...it, content: startMarker(next.owner, true), raw: startMarker(next.owner, true) + it.eol };
      } else {
        deleteFile = items.every((it) => it.kind === 'blank');
      }
    }
  }
  const origLast = model.items[model.items.length - 1];
  const newLast = items[items.length - 1];
  if (origLast && origLast.eol === '' && newLast && newLast !== origLast && newLast.eol !== '') {
    // The original had no final newline and its last line is gone: keep "no final newline".
    items[items.length - 1] = { ...newLast, raw: newLast.raw.slice(0, -newLast.eol.length), eol: '' };
  }
  // No recorded name is left, but lines the record does not name are (a user's): they stay, and
  // so do the markers and the (empty) record line. Said in the summary line. (Without a record
  // line, nothing tells ours from the user's: `unrecorded` names them instead.)
  const kept = block.record && left.length === 0 ? inner : [];
  return result(joinItems(model.bom, items), deleteFile, kept);
}

function mergeEntries(text, entries, opts) {
  return planMerge(text, entries, opts).text;
}

function removeEntries(text, names, opts) {
  return planRemove(text, names, opts).text;
}

module.exports = {
  DotenvError,
  TOOL,
  parseDotenv,
  formatValue,
  mergeEntries,
  removeEntries,
  planMerge,
  planRemove,
  startMarker,
  endMarker,
  recordLine,
};
