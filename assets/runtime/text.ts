/** Text for messages: one line, no control characters, values quoted and clipped. */

/** What clip() ends a shortened text with. */
export const CLIP_MARK = '…';

/** What a terminal shows as nothing or that reorders text (a character class's body): quote() escapes it; names.ts refuses it. */
export const SHOWN_AS_NOTHING = '\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2069\\ufeff';

/** What one line of a message shows as a space (a character class's body): a server cannot rewrite what the terminal shows. */
export const CONTROL_CHARACTERS = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const CONTROL_RE = new RegExp(`[${CONTROL_CHARACTERS}]`, 'g');
const SHOWN_AS_ESCAPE_RE = new RegExp(`[${SHOWN_AS_NOTHING}]`, 'g');

/** `text` cut to `max` characters, ending with CLIP_MARK when cut (never half of a surrogate pair). */
export function clip(text: unknown, max: number): string {
  const s = String(text);
  return s.length > max ? `${s.slice(0, max - 1).replace(/[\ud800-\udbff]$/, '')}${CLIP_MARK}` : s;
}

/** "1 attempt", "3 attempts". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** CONTROL_CHARACTERS as spaces. */
export function stripControl(text: unknown): string {
  return String(text).replace(CONTROL_RE, ' ');
}

/** Whether text given where a key may have been put could be one: longer than 20 characters (hand-picked keys too), or a JWT. */
export function mayBeKey(text: unknown): boolean {
  const s = String(text);
  return s.length > 20 || /^-*eyJ/.test(s);
}

/** A value given where a key may have been put, for a message: quoted; undefined when it may be a key (long, or a JWT). */
export function showable(raw: unknown): string | undefined {
  return mayBeKey(raw) ? undefined : quote(String(raw));
}

/** A value for an error message: JSON-quoted (empty strings and whitespace show), NaN as such; clipped, one line. */
export function quote(value: unknown, max = 120): string {
  let text: string;
  let json = true; // text is JSON: escapes may be cut, and invisible characters are shown as escapes
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function') {
    text = String(value);
    json = false;
  } else {
    try {
      text = String(JSON.stringify(value) ?? value); // a string's newline or tab shows as \n or \t
    } catch {
      text = Object.prototype.toString.call(value); // a cycle
      json = false;
    }
  }
  // Shown as escapes, as JSON shows C0: a value refused for holding one must not look like it does not.
  if (json) text = text.replace(SHOWN_AS_ESCAPE_RE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const line = stripControl(text);
  if (line.length <= max) return line;
  let kept = clip(line, max).slice(0, -CLIP_MARK.length);
  // A cut JSON escape (`\`, `\u00`) would read as another character: drop it whole.
  const escape = json ? /(\\+)(u[0-9a-fA-F]{0,3})?$/.exec(kept) : null;
  if (escape && escape[1].length % 2 === 1) kept = kept.slice(0, escape.index + escape[1].length - 1);
  return `${kept}${CLIP_MARK}`;
}
