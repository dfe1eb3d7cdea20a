/** Every value in the guide goes through one of these, escaped for where it lands. */

export const GUIDE_FILE_NAME = 'qdrant-setup.md';

/** A heading at `depth` below the guide's own level: ['', '## text', '']. */
export type Heading = (depth: number, text: string) => string[];

/** One blank line between blocks, one newline at the end. */
export function finish(lines: string[]): string {
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').replace(/\n*$/, '\n');
}

/** An inline code span that holds any text: the fence is longer than any backtick run inside. */
export function code(value: string | number): string {
  const text = String(value).replace(/[\r\n]+/g, ' ');
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

export function list(items: string[], none = 'none'): string {
  return items.length === 0 ? none : items.join(', ');
}

/** A table; `|` escaped (backslashes before it doubled first: GFM reads `\\|` as one and a border). */
export function table(header: string[], rows: string[][]): string[] {
  const cell = (c: string) => c.replace(/(\\*)\|/g, (_, bs: string) => `${bs}${bs}\\|`).replace(/[\r\n]+/g, ' ');
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return ['', line(header), `| ${header.map(() => '---').join(' | ')} |`, ...rows.map(line), ''];
}

export function fence(lang: string, body: string[]): string[] {
  return ['', '```' + lang, ...body, '```', ''];
}

/** A double-quoted string literal for Python, TypeScript, C#, Java and Go (JSON's escapes are theirs too). */
export function str(value: string): string {
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A Rust string literal: JSON's escapes, with Rust's form of \u. */
export function rustStr(value: string): string {
  return str(value).replace(/\\u([0-9a-fA-F]{4})/g, '\\u{$1}');
}

/** A shell word that pastes as exactly this text: as is when plain, else single-quoted. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

/** An environment-variable reference for a shell; a name that is not plain never gets here unquoted. */
export function shellVar(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `$${name}` : "''";
}
