/** No key in anything printed: every form of a secret is redacted; a line still holding part of one is not shown. */
import { CLIP_MARK, SHOWN_AS_NOTHING, clip, stripControl } from './text';

/** One secret, or a list of them; missing and empty ones are skipped. */
export type Secrets = string | undefined | readonly (string | undefined)[];

const REDACTED = '[redacted]';
/** Shorter strings are not redacted: they would match ordinary text (keys are much longer). */
const MIN_SECRET_CHARS = 6;
/** A secret's start that ends the text (no clip mark) is redacted from this length: "qdrant-docs-key" starts like "qdrant-docs". */
const MIN_CUT_CHARS_AT_END = 16;

function secretList(secrets: Secrets): string[] {
  return (Array.isArray(secrets) ? secrets : [secrets]).filter((s): s is string => typeof s === 'string' && s.length > 0);
}

/** Base64 and base64url cores of `bytes` as they appear inside a longer encoded string. */
function encodedCores(bytes: Buffer): string[] {
  const cores = [];
  for (const encoding of ['base64', 'base64url'] as const) {
    for (let offset = 0; offset < 3; offset++) {
      const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString(encoding).replace(/=+$/, '');
      // Only characters that depend on the secret alone: not the groups mixed with the bytes around it.
      const start = offset === 0 ? 0 : 4;
      const end = Math.floor((offset + bytes.length) / 3) * 4;
      if (end - start >= 8) cores.push(encoded.slice(start, end));
    }
  }
  return cores;
}

/** The forms and parts of the last secrets: computing them once per secret, not per call, is most of the cost. */
const CACHE_MAX = 16;
function cached<T>(cache: Map<string, T>, secret: string, compute: (secret: string) => T): T {
  if (cache.has(secret)) return cache.get(secret) as T;
  const value = compute(secret);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(secret, value);
  return value;
}
const FORMS = new Map<string, readonly string[]>();
const PARTS = new Map<string, SecretParts | null>();

/** Raw, trimmed, URL-encoded, JSON-escaped, hex, base64(url) at each byte alignment: longest first. */
function secretForms(secret: string): readonly string[] {
  return cached(FORMS, secret, (s) => {
    const forms = new Set<string>();
    for (const v of [s, s.trim()]) {
      if (v.length < MIN_SECRET_CHARS) continue;
      const bytes = Buffer.from(v, 'utf8');
      const hex = bytes.toString('hex');
      for (const f of [v, encodeURIComponent(v), JSON.stringify(v).slice(1, -1), hex, hex.toUpperCase(), ...encodedCores(bytes)]) forms.add(f);
    }
    return Object.freeze([...forms].filter((f) => f.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length));
  });
}

/** Replaces every start of `form` that ends at the clip mark or at the end of `text`: a secret cut before it was redacted. */
function redactClipped(text: string, form: string): string {
  const head = form.slice(0, MIN_SECRET_CHARS);
  let out = '';
  let from = 0;
  let i = text.indexOf(head);
  while (i >= 0) {
    let n = MIN_SECRET_CHARS;
    while (n < form.length && i + n < text.length && text[i + n] === form[n]) n++;
    const end = i + n;
    if (n < form.length && (text[end] === CLIP_MARK || (end === text.length && n >= MIN_CUT_CHARS_AT_END))) {
      out += `${text.slice(from, i)}${REDACTED}`;
      from = end;
      i = text.indexOf(head, end);
    } else {
      i = text.indexOf(head, i + 1);
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Replaces every form of every secret in `text` (see secretForms), and every copy cut short, with [redacted]. */
export function redact(text: unknown, secrets: Secrets): string {
  let out = String(text);
  const forms = secretList(secrets).flatMap(secretForms);
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
  for (const form of forms) out = redactClipped(out, form);
  return out;
}

/** Redacts every string inside a JSON-like value. */
export function redactDeep<T>(value: T, secrets: Secrets): T {
  if (typeof value === 'string') return redact(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secrets)) as T;
  if (value && typeof value === 'object') {
    // Own properties of the copy, whatever their names ("__proto__" among them).
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, secrets)])) as T;
  }
  return value;
}

/** What safeLine() prints in place of a text that holds part of a secret (see holdsPart). */
export const PART_HIDDEN = '(answer not shown: it holds part of the API key)';
/** A run of this many characters of a secret, in any of the forms holdsPart knows, hides a text. */
const WINDOW_CHARS = 12;
/** A secret shorter than WINDOW_CHARS is looked for whole; one shorter than this, as a word only. */
const WORD_CHARS_BELOW = 8;
/** Shorter secrets are not looked for by holdsPart: they would hide ordinary words. */
const MIN_PART_SECRET_CHARS = 3;
/** A masked copy (`start****end`): MASKED_PIECE_CHARS of the secret on one side of a mask, or MASKED_PAIR_CHARS on both. */
const MASKED_PIECE_CHARS = 6;
const MASKED_PAIR_CHARS = 4;
const MASK_RE = /[*•●]{2,}|…+|\.{3,}/g;

/** The named HTML entities of ASCII characters (the basics; the numeric forms cover the rest). */
const ENTITIES = new Map<string, string>([
  ['amp', '&'], ['lt', '<'], ['gt', '>'], ['quot', '"'], ['apos', "'"], ['nbsp', ' '], ['sol', '/'], ['bsol', '\\'], ['equals', '='],
  ['plus', '+'], ['minus', '-'], ['hyphen', '-'], ['dash', '-'], ['colon', ':'], ['semi', ';'], ['comma', ','], ['period', '.'],
  ['lowbar', '_'], ['underbar', '_'], ['verbar', '|'], ['vert', '|'], ['excl', '!'], ['quest', '?'], ['num', '#'], ['dollar', '$'],
  ['percnt', '%'], ['lpar', '('], ['rpar', ')'], ['ast', '*'], ['midast', '*'], ['commat', '@'], ['lsqb', '['], ['rsqb', ']'],
  ['lbrack', '['], ['rbrack', ']'], ['lcub', '{'], ['rcub', '}'], ['lbrace', '{'], ['rbrace', '}'], ['grave', '`'], ['tilde', '~'],
  ['hat', '^'], ['newline', '\n'], ['tab', '\t'],
]);

/** The decodings a server may apply to an echoed secret (percent, JSON/JS escapes, HTML entities); no nested repetition: linear. */
const DECODE_RE = /(?:%|\\x)([0-9a-f]{2})|\\u([0-9a-f]{4})|\\([\\/"'`])|&#(x[0-9a-f]{1,6}|[0-9]{1,7});?|&([a-z]{2,8});/gi;

function decodeOnce(text: string): string {
  return text.replace(DECODE_RE, (whole, byte?: string, unit?: string, esc?: string, ref?: string, named?: string) => {
    const hex = byte ?? unit; // a %-escaped byte as Latin-1, as a header carries it
    if (hex !== undefined) return String.fromCharCode(parseInt(hex, 16));
    if (esc !== undefined) return esc;
    if (ref === undefined) return ENTITIES.get(String(named).toLowerCase()) ?? whole;
    const n = Number(`0${ref}`); // "0x1f" reads as hex, "065" as decimal
    return n <= 0x10ffff ? String.fromCodePoint(n) : whole;
  });
}

/** Whitespace, controls and the characters a terminal shows as nothing (soft hyphen, zero-width ones). */
const INVISIBLE_RE = new RegExp(`[\\s\\u0000-\\u001f${SHOWN_AS_NOTHING}]+`, 'g');

/** `text` decoded (three rounds at most) and lower-cased: `words` with invisible runs as one space, `compact` without. */
function normalized(text: unknown): { words: string; compact: string } {
  let s = String(text);
  for (let round = 0; round < 3; round++) {
    const next = decodeOnce(s);
    if (next === s) break;
    s = next;
  }
  const words = s.toLowerCase().replace(INVISIBLE_RE, ' ');
  return { words, compact: words.replace(/ /g, '') };
}

/** A short key, looked for whole (as a word when very short); or a longer one's windows and masked forms. */
type SecretParts = { whole: string[]; words: boolean } | { windows: Set<string>; masked: string[] };

/** The lower-cased windows of the key's forms (decoded, hex, base64(url), JWT signature) and its masked forms. */
function computeParts(secret: string): SecretParts | null {
  const key = secret.trim();
  const plain = normalized(key).compact;
  const lower = key.toLowerCase().replace(INVISIBLE_RE, '');
  if (lower.length < MIN_PART_SECRET_CHARS) return null;
  if (lower.length < WINDOW_CHARS) {
    return { whole: [...new Set([lower, plain])].filter((w) => w.length >= MIN_PART_SECRET_CHARS), words: lower.length < WORD_CHARS_BELOW };
  }
  const jwt = key.split('.');
  const signature = jwt.length === 3 && jwt[2].length >= WINDOW_CHARS ? jwt[2].toLowerCase() : undefined;
  const bytes = Buffer.from(key, 'utf8');
  const forms = [lower, plain, bytes.toString('hex'), ...encodedCores(bytes), ...(signature ? [signature] : [])];
  const windows = new Set<string>();
  for (const f of forms.map((form) => form.toLowerCase())) {
    for (let i = 0; i + WINDOW_CHARS <= f.length; i++) windows.add(f.slice(i, i + WINDOW_CHARS));
  }
  return { windows, masked: signature ? [lower, signature] : [lower] };
}

/** Whether `words` holds `word` with no letter or digit right before or after it. */
function holdsWord(words: string, word: string): boolean {
  const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
  for (let i = words.indexOf(word); i >= 0; i = words.indexOf(word, i + 1)) {
    if (!isWordChar(words[i - 1]) && !isWordChar(words[i + word.length])) return true;
  }
  return false;
}

/** The longest start of `form` (MASKED_PAIR_CHARS to WINDOW_CHARS - 1) that `text` ends with at `at` (`after`: end, from `at`), or 0. */
function maskedPiece(text: string, at: number, form: string, after: boolean): number {
  for (let k = Math.min(WINDOW_CHARS - 1, after ? text.length - at : at, form.length - 1); k >= MASKED_PAIR_CHARS; k--) {
    if (after ? text.startsWith(form.slice(form.length - k), at) : text.startsWith(form.slice(0, k), at - k)) return k;
  }
  return 0;
}

/** A masked copy of one of `forms` in `compact`: its start before a mask run, its end after one (see MASKED_PIECE_CHARS). */
function holdsMasked(compact: string, forms: string[]): boolean {
  MASK_RE.lastIndex = 0;
  for (let m = MASK_RE.exec(compact); m; m = MASK_RE.exec(compact)) {
    const end = m.index + m[0].length;
    for (const form of forms) {
      const before = maskedPiece(compact, m.index, form, false);
      const after = maskedPiece(compact, end, form, true);
      if (before >= MASKED_PIECE_CHARS || after >= MASKED_PIECE_CHARS || (before > 0 && after > 0)) return true;
    }
  }
  return false;
}

/** Whether `text`, decoded and lower-cased, holds a window of a secret's forms, a masked copy, or a short secret whole. */
export function holdsPart(text: unknown, secrets: Secrets): boolean {
  const list = secretList(secrets).map((s) => cached(PARTS, s, computeParts)).filter((p): p is SecretParts => p !== null);
  if (list.length === 0) return false;
  const { words, compact } = normalized(text);
  const holdsWindow = (windows: Set<string>) => {
    for (let i = 0; i + WINDOW_CHARS <= compact.length; i++) if (windows.has(compact.slice(i, i + WINDOW_CHARS))) return true;
    return false;
  };
  return list.some((p) => ('whole' in p
    ? p.whole.some((w) => (p.words ? holdsWord(words, w) : compact.includes(w)))
    : holdsWindow(p.windows) || holdsMasked(compact, p.masked)));
}

/** A form of a secret in any case, or part of one: for text a parser may have changed (a URL's host), which redact() would miss. */
export function holdsSecret(text: unknown, secrets: Secrets): boolean {
  const lower = String(text).toLowerCase();
  return secretList(secrets).flatMap(secretForms).some((form) => lower.includes(form.toLowerCase())) || holdsPart(text, secrets);
}

/** Redacted, one line, clipped (then redacted again: a clip may cut a secret short), or PART_HIDDEN. */
export function safeLine(text: unknown, secrets?: Secrets, max = 200): string {
  const line = redact(clip(stripControl(redact(text, secrets)).replace(/\s+/g, ' ').trim(), max), secrets);
  return holdsPart(line, secrets) ? PART_HIDDEN : line;
}
