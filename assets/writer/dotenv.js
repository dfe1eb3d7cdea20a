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
 *   VALUE     '...' or "..." (may span lines; a quote preceded by \ does not close them),
 *             `...` (closed on the same line, no \), or unquoted text up to the end of line.
 * Anything else is refused with an error that names the line (never a value).
 *
 * Values written by this module: see formatValue.
 */

const TOOL = 'cdktf-qdrant-cluster-access';

class DotenvError extends Error {
  constructor(message, line) {
    super(message);
    this.name = 'DotenvError';
    this.line = line;
  }
}

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const OWNER_RE = /^[A-Za-z0-9_][A-Za-z0-9_.:@/+-]{0,127}$/;
// python-dotenv expands ${NAME} and ${NAME:-default} in every value, quoted or not.
const PY_VARIABLE_RE = /\$\{[^}:]*(?::-[^}]*)?\}/;
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Characters that some parser treats as a line break, or that one parser trims and the other not.
const LINE_BREAK_RE = /[\r\n]/;
const UNQUOTED_FORBIDDEN_RE = /[#\r\n\u0085\u2028\u2029]/;
// JavaScript's trim() set plus the extra characters Python's str.isspace() accepts.
const EDGE_SPACE_RE = /[\s\u001c-\u001f\u0085]/;

function startMarker(owner) {
  return `# >>> managed by ${TOOL} (${owner}) \u2014 do not edit`;
}
function endMarker(owner) {
  return `# <<< managed by ${TOOL} (${owner})`;
}

function checkOwner(owner) {
  if (typeof owner !== 'string' || !OWNER_RE.test(owner)) {
    throw new DotenvError('owner must be 1-128 characters from A-Z a-z 0-9 _ . : @ / + - (starting with a letter, digit or _)');
  }
  return owner;
}

function checkName(name) {
  if (!NAME_RE.test(name)) {
    throw new DotenvError(`entry name "${String(name).slice(0, 64)}" is not a valid variable name (letters, digits and _, not starting with a digit)`);
  }
  return name;
}

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
 * Throws DotenvError naming the line for text outside the accepted grammar.
 */
function parseDotenv(text) {
  if (typeof text !== 'string') throw new TypeError('parseDotenv expects a string');
  let bom = '';
  if (text.charCodeAt(0) === 0xfeff) {
    bom = '\ufeff';
    text = text.slice(1);
  }
  const phys = splitLines(text);
  const firstEol = phys.find((p) => p.eol !== '');
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
      // Find the closing quote: the first quote character not directly preceded by a backslash.
      let j = i;
      let s = content;
      let k = prefix.length + 1;
      let close = -1;
      for (;;) {
        for (; k < s.length; k++) {
          if (s[k] === q && !(k > 0 && s[k - 1] === '\\')) {
            close = k;
            break;
          }
        }
        if (close >= 0) break;
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
      // Unquoted: the value ends where a comment starts (python-dotenv: whitespace then #).
      const cm = /[ \t]+#/.exec(rest);
      let valueRaw = cm ? rest.slice(0, cm.index) : rest;
      let suffix = cm ? rest.slice(cm.index) : '';
      const trail = /[ \t]+$/.exec(valueRaw);
      if (trail) {
        suffix = trail[0] + suffix;
        valueRaw = valueRaw.slice(0, trail.index);
      }
      Object.assign(item, { valueRaw, suffix, eol, raw: content + eol, endLine: line });
    }
    items.push(item);
  }
  return { bom, eol: firstEol ? firstEol.eol : '\n', items };
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

/** Finds owner's managed block: { start, end } item indexes, or null. Throws if half-present. */
function findBlock(items, owner) {
  const s = startMarker(owner);
  const e = endMarker(owner);
  const start = items.findIndex((it) => it.kind === 'comment' && it.content === s);
  const endAny = items.findIndex((it) => it.kind === 'comment' && it.content === e);
  if (start < 0 && endAny < 0) return null;
  if (start < 0 || (endAny >= 0 && endAny < start)) {
    const it = items[endAny];
    throw new DotenvError(`line ${it.line}: end marker of the managed block for owner ${owner} has no start marker before it; restore the line "${s}" above it, or delete this line`, it.line);
  }
  const end = items.findIndex((it, idx) => idx > start && it.kind === 'comment' && it.content === e);
  if (end < 0) {
    const it = items[start];
    throw new DotenvError(`line ${it.line}: managed block for owner ${owner} has no end marker; restore the line "${e}" after its entries, or delete this line`, it.line);
  }
  return { start, end };
}

function joinItems(bom, items) {
  return bom + items.map((it) => it.raw).join('');
}

/**
 * Merges entries into dotenv text. Returns { text, added, updated, unchanged } (name lists).
 * Existing definitions (anywhere in the file) get their value token replaced in place; the
 * rest of such lines (indentation, export, spacing, comment, line ending) is kept. Other
 * names are appended inside owner's managed block (created at the end of the file if absent).
 */
function planMerge(text, entries, opts) {
  const owner = checkOwner(opts && opts.owner);
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries)) {
    throw new DotenvError('entries must be an object of NAME: value');
  }
  const names = Object.keys(entries);
  const formatted = new Map();
  for (const name of names) {
    checkName(name);
    try {
      formatted.set(name, formatValue(entries[name]));
    } catch (err) {
      throw entryError(name, err);
    }
  }
  const model = parseDotenv(text == null ? '' : text);
  const items = model.items.slice();
  const seen = new Set();
  const changed = new Set();
  for (let idx = 0; idx < items.length; idx++) {
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
  const added = names.filter((n) => !seen.has(n));
  if (added.length > 0) {
    const eol = model.eol;
    const block = findBlock(items, owner);
    const lines = added.map((n) => `${n}=${formatted.get(n)}`);
    if (block) {
      items.splice(block.end, 0, ...lines.map((l) => ({ kind: 'assign', raw: l + eol })));
    } else {
      const all = [startMarker(owner), ...lines, endMarker(owner)];
      const last = items[items.length - 1];
      if (last && last.eol === '') {
        // The file has no final newline: keep it that way (removal undoes this exactly).
        items[items.length - 1] = { ...last, raw: last.raw + eol, eol };
        all.forEach((l, n) => items.push({ kind: 'comment', raw: l + (n === all.length - 1 ? '' : eol) }));
      } else {
        all.forEach((l) => items.push({ kind: 'comment', raw: l + eol }));
      }
    }
  }
  return {
    text: joinItems(model.bom, items),
    added,
    updated: names.filter((n) => changed.has(n)),
    unchanged: names.filter((n) => seen.has(n) && !changed.has(n)),
  };
}

/**
 * Removes every definition of the given names (inside or outside the managed block), then
 * owner's block markers if nothing is left between them. Returns { text, removed, absent }.
 */
function planRemove(text, names, opts) {
  const owner = checkOwner(opts && opts.owner);
  const list = Array.isArray(names) ? names : Object.keys(names || {});
  list.forEach(checkName);
  const wanted = new Set(list);
  const model = parseDotenv(text == null ? '' : text);
  const removed = new Set();
  let items = model.items.filter((it) => {
    if (it.kind === 'assign' && wanted.has(it.key)) {
      removed.add(it.key);
      return false;
    }
    return true;
  });
  const block = findBlock(items, owner);
  if (block && block.end === block.start + 1) {
    items = items.filter((_, idx) => idx !== block.start && idx !== block.end);
  }
  const origLast = model.items[model.items.length - 1];
  const newLast = items[items.length - 1];
  if (origLast && origLast.eol === '' && newLast && newLast !== origLast && newLast.eol !== '') {
    // The original had no final newline and its last line is gone: keep "no final newline".
    items[items.length - 1] = { ...newLast, raw: newLast.raw.slice(0, -newLast.eol.length), eol: '' };
  }
  return {
    text: joinItems(model.bom, items),
    removed: list.filter((n) => removed.has(n)),
    absent: list.filter((n) => !removed.has(n)),
  };
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
  checkName,
  checkOwner,
};
