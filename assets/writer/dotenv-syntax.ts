/**
 * The dotenv syntax the writer accepts and writes (pure functions, Node built-ins only).
 *
 * Line model: the text is split into physical lines at every character that some reader takes as
 * a line end (from their sources; test/adversarial/readers-line-ends.test.ts runs them): \n and
 * \r\n (all); a lone \r (the npm dotenv parser, which turns \r\n? into \n, and python-dotenv; Node's
 * parser, src/node_dotenv.cc behind --env-file, loadEnvFile and parseEnv, deletes every \r); U+2028
 * and U+2029 (the npm dotenv parser only: its LINE regex has the m flag). None ends one at NEL,
 * \v, \f or U+001C-U+001E. A definition that one reader finds behind such a character is thus a
 * line here, under every rule. Line numbers count \r\n, \n and \r, as editors and python-dotenv do
 * (lineOf names a U+2028 inside an editor's line). Physical lines are grouped into
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
 * Values written by this module: see formatValue.
 */
import { REFUSED } from './entries';
import { RuntimeError } from '../runtime/errors';

/**
 * One item of a dotenv file: a blank line, a comment or an assignment, with its exact text (`raw`,
 * line terminator included); an assignment's name, whether it is exported, the text before its
 * value, the value as written and what follows it.
 */
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

/**
 * Splits text into physical lines: [{ content, eol, line, after }], eol '\r\n', '\n', '\r',
 * '\u2028', '\u2029' or ''; line the number an editor shows; after the eol before, if U+2028/9.
 */
function splitLines(text: string): { content: string; eol: string; line: number; after?: string }[] {
  const lines = [];
  let line = 1;
  let after: string | undefined;
  for (let i = 0; i < text.length;) {
    let j = i;
    while (j < text.length && !LINE_BREAK_RE.test(text[j])) j++;
    let eol = '';
    if (j < text.length) eol = text[j] === '\r' && text[j + 1] === '\n' ? '\r\n' : text[j];
    lines.push({ content: text.slice(i, j), eol, line, after });
    after = /[\u2028\u2029]/.test(eol) ? eol : undefined;
    if (eol && !after) line++;
    i = j + eol.length;
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
 * The names that lines inside a quoted value, after its first, define for Node's parser, with
 * their line numbers: Node ends a quoted value at the first quote of its kind, backslash or not
 * (Node 20 also reads a value after a tab as unquoted), and then reads each following line (as it
 * splits them: at \n, every \r deleted) as a line of its own.
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
 * Parses dotenv text into { bom, eol, items }. items: { kind, raw, line, endLine, eol, ... };
 * assignments also carry key, exported, prefix (text before the value), valueRaw, suffix
 * (spaces and comment after the value), quote ('', "'", '"' or '`').
 * Throws (naming the line) for text outside the accepted grammar. opts.written: the text
 * is what planMerge would write (the message then blames the entries of this write).
 */
export function parseDotenv(text: string, opts?: { written?: boolean }): { bom: string; eol: string; items: DotenvItem[] } {
  if (typeof text !== 'string') throw new TypeError('parseDotenv expects a string');
  let bom = '';
  if (text.charCodeAt(0) === 0xfeff) {
    bom = '\ufeff';
    text = text.slice(1);
  }
  const phys = splitLines(text);
  // The index of the last physical line holding a quote character, found once per kind.
  const lastLines: Record<string, number> = {};
  const lastLineWith = (q: string) => {
    if (!(q in lastLines)) {
      let t = phys.length - 1;
      while (t >= 0 && !phys[t].content.includes(q)) t--;
      lastLines[q] = t;
    }
    return lastLines[q];
  };
  const items: DotenvItem[] = [];
  for (let i = 0; i < phys.length; i++) {
    const { content, eol, line, after } = phys[i];
    const at = lineOf(phys[i]);
    if (/^[ \t]*$/.test(content)) {
      items.push({ kind: 'blank', raw: content + eol, content, eol, line, endLine: line, after });
      continue;
    }
    if (/^[ \t]*#/.test(content)) {
      items.push({ kind: 'comment', raw: content + eol, content, eol, line, endLine: line, after });
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
          throw new RuntimeError(`${at}: unterminated ${kind}-quoted value (the closing ${q} is missing)`, REFUSED, { line });
        }
        s = phys[j].content;
        k = 0;
      }
      const tail = s.slice(close + 1);
      if (!/^[ \t]*(#.*)?$/.test(tail)) {
        throw new RuntimeError(`${lineOf(phys[j])}: unexpected text after the closing quote (only spaces and a # comment may follow)`, REFUSED, { line: phys[j].line });
      }
      // Both parsers read a backslash before a quote as an escape when they can: python-dotenv
      // then reads on to the next quote of this kind anywhere after it (the dotenv npm parser
      // stops here). Only with no such quote later do both close the value where we do.
      if (slashes > 0 && (tail.includes(q) || lastLineWith(q) > j)) {
        const kind = q === "'" ? 'single' : 'double';
        const later = opts && opts.written ? `an entry of this write would put a ${q} after it` : `a ${q} follows later in the file`;
        const fix = opts && opts.written ? '' : `, or remove the later ${q}`;
        throw new RuntimeError(`${at}: the ${kind}-quoted value ends in a backslash and ${later}, so python-dotenv would read on past its closing ${q}; write this value without quotes (each \\\\ as one \\)${fix}`, REFUSED, { line });
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
      items.push({ ...item, quote: q, valueRaw, suffix: tail, eol: phys[j].eol, raw, endLine: phys[j].line, inner: nodeLines(valueRaw, line) });
      i = j;
    } else if (q === '`') {
      const bm = /^(`[^`\\]*`)([ \t]*(?:#.*)?)$/.exec(rest);
      if (!bm) {
        throw new RuntimeError(`${at}: a backtick-quoted value must be closed on the same line and contain no backslash`, REFUSED, { line });
      }
      items.push({ ...item, quote: '`', valueRaw: bm[1], suffix: bm[2], eol, raw: content + eol, endLine: line });
    } else {
      // python-dotenv skips any whitespace after "=" (the dotenv npm parser too, most of it), so a
      // quote after a no-break space or the like opens a quoted value for them, which may run
      // over many lines, ours included: refused, as this grammar reads it as unquoted.
      const odd = /^([^\S\r\n]|[\x1c-\x1f\x85])+(?=['"`])/.exec(rest);
      if (odd) {
        const code = `U+${(odd[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
        throw new RuntimeError(`${at}: the value starts with whitespace other than spaces and tabs (${code}) before a quote, where parsers disagree on whether it is quoted; remove that character`, REFUSED, { line });
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
      items.push({ ...item, quote: '', valueRaw, suffix, eol, raw: content + eol, endLine: line });
    }
  }
  // The line ending of the lines written: the file's first that ends an item (not one inside a
  // quoted value, where a stray \r would make every line written end with it), of those that every
  // reader takes; in a file of lone CRs \r\n, since Node's parser would read our lines as one.
  const first = items.find((it) => it.eol === '\n' || it.eol === '\r\n');
  return { bom, eol: first ? first.eol as string : text.includes('\r') ? '\r\n' : '\n', items };
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
 * Always refused: line breaks (any of the header's: the two parsers do not agree on escapes for
 * every value, and key references never contain them), ${NAME} / ${NAME:-x} (python-dotenv would
 * expand it and neither parser can escape it) and lone UTF-16 surrogates (not writable as
 * UTF-8). Error messages never contain the value.
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
