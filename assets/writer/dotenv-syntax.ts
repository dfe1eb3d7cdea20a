/**
 * The dotenv syntax the writer accepts and writes (pure functions). The text splits into lines at
 * every character some reader ends one at (test/adversarial/readers-line-ends.test.ts runs them):
 * \n and \r\n (all), a lone \r (npm dotenv and python-dotenv; Node's --env-file deletes it), U+2028
 * and U+2029 (npm dotenv only); none at NEL, \v, \f or U+001C-U+001E. Line numbers count \r\n, \n
 * and \r, as editors do. Lines group into items ('blank', 'comment', 'assign', which spans lines with
 * its quoted value); the BOM and every item's `raw` joined give back the input exactly.
 *
 * Grammar, stricter than any reader so that all agree where every assignment starts and ends:
 *   blank     [ \t]*
 *   comment   [ \t]*#...
 *   assign    [ \t]*(export[ \t]+)?NAME[ \t]*=[ \t]*VALUE[ \t]*(#...)?   NAME = [A-Za-z0-9_.-]+
 *   VALUE     '...' or "..." (may span lines; closed by a quote after an even number of
 *             backslashes; after two or more, no quote of its kind may follow anywhere, since
 *             python-dotenv would read on to it), `...` (one line, no \), or unquoted to the end.
 * Anything else is refused with an error naming the line (never a value).
 */
import { REFUSED } from './entries';
import { RuntimeError } from '../runtime/errors';

/** One item: its exact text (`raw`, line end included); for an assignment, its parts as written. */
export interface DotenvItem {
  readonly kind: 'blank' | 'comment' | 'assign';
  readonly raw: string;
  readonly content?: string;
  readonly eol?: string;
  readonly line?: number;
  readonly endLine?: number;
  /** The U+2028 or U+2029 that the item follows on its line, if any. */
  readonly after?: string;
  /** The names that lines inside a quoted value define for Node's parser (see nodeLines). */
  readonly inner?: { key: string; line: number }[];
  readonly key?: string;
  readonly exported?: boolean;
  readonly prefix?: string;
  readonly valueRaw?: string;
  readonly suffix?: string;
  readonly quote?: string;
}

// python-dotenv expands ${NAME} and ${NAME:-default} in every value, quoted or not.
const PY_VARIABLE_RE = /\$\{[^}:]*(?::-[^}]*)?\}/;
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// The line ends that only some readers take (see the header), as messages name them.
export const PARTIAL_LINE_ENDS: Record<string, string> = {
  '\r': "a lone CR (a line end to the npm dotenv parser and python-dotenv, not to Node's --env-file)",
  '\u2028': 'a U+2028 (a line end to the npm dotenv parser only)',
  '\u2029': 'a U+2029 (a line end to the npm dotenv parser only)',
};
const LINE_BREAK_RE = /[\r\n\u2028\u2029]/;
// Characters that one parser trims and the other not.
const UNQUOTED_FORBIDDEN_RE = /[#\r\n\u0085\u2028\u2029]/;
// JavaScript's trim() set plus the extra characters Python's str.isspace() accepts.
const EDGE_SPACE_RE = /[\s\u001c-\u001f\u0085]/;

/** Splits text into physical lines; `line` is the number an editor shows, `after` a U+2028/9 before. */
function splitLines(text: string): { content: string; eol: string; line: number; after?: string }[] {
  const lines = [];
  let line = 1;
  let after: string | undefined;
  for (const [, content, eol] of text.matchAll(/([^\r\n\u2028\u2029]*)(\r\n|[\r\n\u2028\u2029]|$)/g)) {
    if (content === '' && eol === '') break; // the end
    lines.push({ content, eol, line, after });
    after = /[\u2028\u2029]/.test(eol) ? eol : undefined;
    if (eol && !after) line++;
  }
  return lines;
}

/** "line N", and the U+2028 or U+2029 that the item follows on that line. */
export function lineOf(it: Pick<DotenvItem, 'line' | 'after'>): string {
  return `line ${it.line}${it.after ? `, after ${PARTIAL_LINE_ENDS[it.after]}` : ''}`;
}

// A definition as Node's parser reads one at the start of its line (a superset: Node 20 trims
// spaces only, later lines spaces and tabs).
const NODE_DEFINITION_RE = /^[ \t]*(?:export[ \t]+)?([\w.-]+)[ \t]*=/;

/**
 * The names (and line numbers) that lines inside a quoted value define for Node's parser: it ends the
 * value at the first quote of its kind, backslash or not, then reads each next line (split at \n, \r
 * deleted) as its own (Node 20 also reads a value after a tab as unquoted).
 */
function nodeLines(valueRaw: string, line: number): { key: string; line: number }[] {
  const found = [];
  for (let k = valueRaw.indexOf('\n'); k >= 0; k = valueRaw.indexOf('\n', k + 1)) {
    const end = valueRaw.indexOf('\n', k + 1);
    const m = NODE_DEFINITION_RE.exec(valueRaw.slice(k + 1, end < 0 ? undefined : end).replace(/\r/g, ''));
    if (m) found.push({ key: m[1], line: line + (valueRaw.slice(0, k + 1).match(/\r\n|\r|\n/g) as string[]).length });
  }
  return found;
}

const ASSIGN_RE = /^([ \t]*)(export[ \t]+(?=[\w.-]+[ \t]*=))?([\w.-]+)([ \t]*=[ \t]*)/;

/**
 * Parses dotenv text into { bom, eol, items }; throws, naming the line, outside the grammar.
 * opts.written: the text is what planMerge would write (the message then blames this write).
 */
export function parseDotenv(text: string, opts?: { written?: boolean }): { bom: string; eol: string; items: DotenvItem[] } {
  if (typeof text !== 'string') throw new TypeError('parseDotenv expects a string');
  const bom = text.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  text = text.slice(bom.length);
  const phys = splitLines(text);
  // The index of the last physical line holding a quote character, found once per kind.
  const lastLines: Record<string, number> = {};
  const lastLineWith = (q: string) => (lastLines[q] ??= phys.map((p) => p.content.includes(q)).lastIndexOf(true));
  const items: DotenvItem[] = [];
  for (let i = 0; i < phys.length; i++) {
    const { content, eol, line, after } = phys[i];
    const at = lineOf(phys[i]);
    const plain = /^[ \t]*$/.test(content) ? 'blank' : /^[ \t]*#/.test(content) ? 'comment' : null;
    if (plain) {
      items.push({ kind: plain, raw: content + eol, content, eol, line, endLine: line, after });
      continue;
    }
    const m = ASSIGN_RE.exec(content);
    if (!m) {
      throw new RuntimeError(`${at}: expected NAME=value, a comment (#) or a blank line`, REFUSED, { line });
    }
    if (m[3] === 'export' && /^[ \t]/.test(m[4])) {
      throw new RuntimeError(`${at}: "export" is not followed by a variable name`, REFUSED, { line });
    }
    const prefix = m[0];
    const rest = content.slice(prefix.length);
    const q = rest[0];
    const item = { kind: 'assign' as const, key: m[3], exported: Boolean(m[2]), prefix, line, after };
    if (q === "'" || q === '"') {
      const kind = q === "'" ? 'single' : 'double';
      // The closing quote follows an even number of backslashes ("C:\\temp\\" ends at its last), counted from the line's start.
      const closing = q === "'" ? /^[^\\']*(?:\\[\s\S][^\\']*)*'/ : /^[^\\"]*(?:\\[\s\S][^\\"]*)*"/;
      let j = i;
      let head = closing.exec(content.slice(prefix.length + 1));
      while (!head) {
        if (++j >= phys.length) throw new RuntimeError(`${at}: unterminated ${kind}-quoted value (the closing ${q} is missing)`, REFUSED, { line });
        head = closing.exec(phys[j].content);
      }
      const s = phys[j].content;
      const close = (j === i ? prefix.length + 1 : 0) + head[0].length - 1;
      const tail = s.slice(close + 1);
      if (!/^[ \t]*(#.*)?$/.test(tail)) {
        throw new RuntimeError(`${lineOf(phys[j])}: unexpected text after the closing quote (only spaces and a # comment may follow)`, REFUSED, { line: phys[j].line });
      }
      // Closed after backslashes: python-dotenv reads on to the next such quote anywhere (the npm
      // parser stops here), so both close the value where we do only when none follows.
      if (s[close - 1] === '\\' && (tail.includes(q) || lastLineWith(q) > j)) {
        const later = opts && opts.written ? `an entry of this write would put a ${q} after it` : `a ${q} follows later in the file`;
        const fix = opts && opts.written ? '' : `, or remove the later ${q}`;
        throw new RuntimeError(`${at}: the ${kind}-quoted value ends in a backslash and ${later}, so python-dotenv would read on past its closing ${q}; write this value without quotes (each \\\\ as one \\)${fix}`, REFUSED, { line });
      }
      let raw = '';
      for (let t = i; t <= j; t++) raw += phys[t].content + phys[t].eol;
      const valueRaw = raw.slice(prefix.length, raw.length - phys[j].eol.length - tail.length);
      items.push({ ...item, quote: q, valueRaw, suffix: tail, eol: phys[j].eol, raw, endLine: phys[j].line, inner: nodeLines(valueRaw, line) });
      i = j;
    } else if (q === '`') {
      const bm = /^(`[^`\\]*`)([ \t]*(?:#.*)?)$/.exec(rest);
      if (!bm) {
        throw new RuntimeError(`${at}: a backtick-quoted value must be closed on the same line and contain no backslash`, REFUSED, { line });
      }
      items.push({ ...item, quote: '`', valueRaw: bm[1], suffix: bm[2], eol, raw: content + eol, endLine: line });
    } else {
      // python-dotenv (and mostly npm dotenv) skips any whitespace after "=": a quote after a
      // no-break space opens a quoted value for them, maybe over many lines, ours included.
      const odd = /^([^\S\r\n]|[\x1c-\x1f\x85])+(?=['"`])/.exec(rest);
      if (odd) {
        const code = `U+${(odd[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
        throw new RuntimeError(`${at}: the value starts with whitespace other than spaces and tabs (${code}) before a quote, where parsers disagree on whether it is quoted; remove that character`, REFUSED, { line });
      }
      // Unquoted: the value ends at whitespace then # (python-dotenv). The lookbehind finds what
      // /[ \t]+#/ does without trying every position inside a long run (quadratic time).
      const cm = /(?<![ \t])[ \t]+#/.exec(rest);
      let valueRaw = cm ? rest.slice(0, cm.index) : rest;
      let suffix = cm ? rest.slice(cm.index) : '';
      const trail = /(?<![ \t])[ \t]+$/.exec(valueRaw);
      if (trail) {
        suffix = trail[0] + suffix;
        valueRaw = valueRaw.slice(0, trail.index);
      }
      items.push({ ...item, quote: '', valueRaw, suffix, eol, raw: content + eol, endLine: line });
    }
  }
  // Our lines end like the file's first item that ends in \n or \r\n (not a stray \r inside a
  // quoted value); in a file of lone CRs, \r\n, since Node's parser would read our lines as one.
  const first = items.find((it) => it.eol === '\n' || it.eol === '\r\n');
  return { bom, eol: first ? first.eol as string : text.includes('\r') ? '\r\n' : '\n', items };
}

/**
 * The text after NAME= that npm dotenv (v16) and python-dotenv both read back as exactly `value`:
 * single-quoted if it has no ', no \\ and no final \; else double-quoted if it has no " and no \;
 * else unquoted if it has no #, edge whitespace or leading quote. Always refused: line breaks (the
 * parsers' escapes differ), ${NAME} (python-dotenv expands it) and lone surrogates (not UTF-8).
 */
export function formatValue(value: unknown): string {
  if (typeof value !== 'string') throw new RuntimeError('value must be a string', REFUSED);
  if (LINE_BREAK_RE.test(value)) {
    throw new RuntimeError('value contains a line break; only single-line values can be written', REFUSED);
  }
  if (LONE_SURROGATE_RE.test(value)) {
    throw new RuntimeError('value is not valid Unicode text (lone surrogate)', REFUSED);
  }
  if (PY_VARIABLE_RE.test(value)) {
    throw new RuntimeError('value contains ${...}, which python-dotenv would expand as a variable reference', REFUSED);
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
  throw new RuntimeError('value cannot be quoted so that both dotenv and python-dotenv read it back unchanged (it mixes \' with " or a backslash, and also #, a leading quote or leading/trailing spaces)', REFUSED);
}
