/**
 * No key in anything printed: redact() replaces every form of a secret a server may echo back
 * (raw, URL-encoded, JSON-escaped, hex, base64, cut short); a line that still holds part of one
 * (holdsPart) is not shown at all (safeLine). Used by the checker, the writer and the constructs.
 * Node built-ins only.
 */
import { CLIP_MARK, SHOWN_AS_NOTHING, clip, stripControl } from './text';

/** One secret, or a list of them; missing and empty ones are skipped. */
export type Secrets = string | undefined | readonly (string | undefined)[];

const REDACTED = '[redacted]';
/** Shorter strings are not redacted: they would match ordinary text (keys are much longer). */
const MIN_SECRET_CHARS = 6;
/**
 * A copy of a secret's start that ends the text without the clip mark (a cut made elsewhere) is
 * redacted from this length: shorter ones would catch ordinary values (a hand-picked key such as
 * "qdrant-docs-key" starts like the collection "qdrant-docs").
 */
const MIN_CUT_CHARS_AT_END = 16;

function secretList(secrets: Secrets): string[] {
  return (Array.isArray(secrets) ? secrets : [secrets]).filter((s): s is string => typeof s === 'string' && s.length > 0);
}

/** Base64 or base64url cores of `bytes` as they appear inside a longer encoded string. */
function encodedCores(bytes: Buffer, encoding: 'base64' | 'base64url'): string[] {
  const cores = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString(encoding).replace(/=+$/, '');
    // Characters that depend only on the secret: skip the group that mixes in the padding bytes,
    // and stop before the group that would mix in the bytes that follow.
    const start = offset === 0 ? 0 : 4;
    const end = Math.floor((offset + bytes.length) / 3) * 4;
    if (end - start >= 8) cores.push(encoded.slice(start, end));
  }
  return cores;
}

/**
 * The forms (and parts, below) of the secrets seen last: a check redacts every answer with the
 * same one or two secrets, and computing them once per secret, not per call, is most of the cost.
 * Bounded; a secret only lives here as long as in the caller's memory anyway.
 */
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

/** Every form of one secret that redact() removes, longest first. */
function secretForms(secret: string): readonly string[] {
  return cached(FORMS, secret, (s) => {
    const forms = new Set<string>();
    for (const v of [s, s.trim()]) {
      if (v.length < MIN_SECRET_CHARS) continue;
      forms.add(v);
      forms.add(encodeURIComponent(v));
      forms.add(JSON.stringify(v).slice(1, -1));
      const bytes = Buffer.from(v, 'utf8');
      forms.add(bytes.toString('hex'));
      forms.add(bytes.toString('hex').toUpperCase());
      for (const core of encodedCores(bytes, 'base64')) forms.add(core);
      for (const core of encodedCores(bytes, 'base64url')) forms.add(core);
    }
    return Object.freeze([...forms].filter((f) => f.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length));
  });
}

/**
 * Replaces every start of `form` (not all of it) that ends at the clip mark (MIN_SECRET_CHARS
 * characters or more) or at the end of `text` (MIN_CUT_CHARS_AT_END or more): a secret cut
 * before it was redacted. Linear in the occurrences of the form's first characters.
 */
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

/**
 * Replaces every form of every secret in `text` with [redacted]: raw, trimmed, URL-encoded,
 * JSON-escaped, hex (either case), base64 / base64url at each of the three byte alignments (so a
 * key inside a longer encoded string is found), and every copy cut short (redactClipped).
 */
export function redact(text: unknown, secrets: Secrets): string {
  let out = String(text);
  const list = secretList(secrets);
  for (const secret of list) {
    for (const form of secretForms(secret)) if (out.includes(form)) out = out.split(form).join(REDACTED);
  }
  for (const secret of list) {
    for (const form of secretForms(secret)) out = redactClipped(out, form);
  }
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
/**
 * A masked copy (`prefix****suffix`, `start...`): a secret's start right before a mask, or its end
 * right after one, of MASKED_PIECE_CHARS characters or more; or of MASKED_PAIR_CHARS or more on
 * both sides of the same mask. Longer pieces hold a window anyway.
 */
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

/**
 * One pass of the decodings a server may apply to an echoed secret: percent-escapes (either case),
 * JSON / JavaScript escapes (\uXXXX, \xXX, \/ and the like), HTML numeric and named entities. One
 * regular expression without nested repetition: linear in the text.
 */
const DECODE_RE = /%([0-9a-f]{2})|\\u([0-9a-f]{4})|\\x([0-9a-f]{2})|\\([\\/"'`])|&#x([0-9a-f]{1,6});?|&#([0-9]{1,7});?|&([a-z]{2,8});/gi;

function codePoint(n: number, whole: string): string {
  return n <= 0x10ffff ? String.fromCodePoint(n) : whole;
}

function decodeOnce(text: string): string {
  return text.replace(DECODE_RE, (whole, pct?: string, u?: string, x?: string, esc?: string, hexEnt?: string, decEnt?: string, named?: string) => {
    if (pct !== undefined) return String.fromCharCode(parseInt(pct, 16)); // a byte as Latin-1, as a header carries it
    if (u !== undefined) return String.fromCharCode(parseInt(u, 16));
    if (x !== undefined) return String.fromCharCode(parseInt(x, 16));
    if (esc !== undefined) return esc;
    if (hexEnt !== undefined) return codePoint(parseInt(hexEnt, 16), whole);
    if (decEnt !== undefined) return codePoint(parseInt(decEnt, 10), whole);
    return ENTITIES.get(String(named).toLowerCase()) ?? whole;
  });
}

/** Whitespace, controls and the characters a terminal shows as nothing (soft hyphen, zero-width ones). */
const INVISIBLE_RE = new RegExp(`[\\s\\u0000-\\u001f${SHOWN_AS_NOTHING}]+`, 'g');

/**
 * `text` decoded (up to three rounds, for a double encoding) and lower-cased: `words` with every
 * invisible run as one space, `compact` without them.
 */
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

/**
 * What holdsPart() looks for, for one secret: the windows of WINDOW_CHARS characters of the key
 * (as is and decoded), of a JWT's signature, of its hex and of its base64 / base64url (each of
 * the three byte alignments), all lower-cased; the starts and ends of the key and of the signature
 * (masked copies); or, for a short key, the key whole. Null for a secret too short to look for.
 */
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
  const forms = [lower, plain, bytes.toString('hex'), ...encodedCores(bytes, 'base64'), ...encodedCores(bytes, 'base64url')];
  if (signature) forms.push(signature);
  const windows = new Set<string>();
  for (const form of forms) {
    const f = form.toLowerCase();
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

/** The length (MASKED_PAIR_CHARS to WINDOW_CHARS - 1) of the longest start of `form` that `text` ends with at `at`, or 0. */
function startBefore(text: string, at: number, form: string): number {
  for (let k = Math.min(WINDOW_CHARS - 1, at, form.length - 1); k >= MASKED_PAIR_CHARS; k--) {
    if (text.startsWith(form.slice(0, k), at - k)) return k;
  }
  return 0;
}

/** The length of the longest end of `form` that `text` holds from `at` (as startBefore), or 0. */
function endAfter(text: string, at: number, form: string): number {
  for (let k = Math.min(WINDOW_CHARS - 1, text.length - at, form.length - 1); k >= MASKED_PAIR_CHARS; k--) {
    if (text.startsWith(form.slice(form.length - k), at)) return k;
  }
  return 0;
}

/** A masked copy of one of `forms` in `compact`: its start before a mask run, its end after one (see MASKED_PIECE_CHARS). */
function holdsMasked(compact: string, forms: string[]): boolean {
  MASK_RE.lastIndex = 0;
  for (let m = MASK_RE.exec(compact); m; m = MASK_RE.exec(compact)) {
    const end = m.index + m[0].length;
    for (const form of forms) {
      const before = startBefore(compact, m.index, form);
      const after = endAfter(compact, end, form);
      if (before >= MASKED_PIECE_CHARS || after >= MASKED_PIECE_CHARS || (before > 0 && after > 0)) return true;
    }
  }
  return false;
}

/**
 * True when `text` holds part of a secret in a form that redact() does not remove: any
 * WINDOW_CHARS characters in a row of it (of its JWT signature, hex, base64) once the text is
 * decoded (percent-escapes, JSON and HTML escapes), lower-cased and rid of whitespace; a masked
 * copy (`start****end`); a short secret whole (as a word when very short). One pass over the text
 * per secret, with a Set of the secret's windows.
 */
export function holdsPart(text: unknown, secrets: Secrets): boolean {
  const list = secretList(secrets).map((s) => cached(PARTS, s, computeParts)).filter((p): p is SecretParts => p !== null);
  if (list.length === 0) return false;
  const { words, compact } = normalized(text);
  for (const p of list) {
    if ('whole' in p) {
      if (p.whole.some((w) => (p.words ? holdsWord(words, w) : compact.includes(w)))) return true;
      continue;
    }
    for (let i = 0; i + WINDOW_CHARS <= compact.length; i++) if (p.windows.has(compact.slice(i, i + WINDOW_CHARS))) return true;
    if (holdsMasked(compact, p.masked)) return true;
  }
  return false;
}

/**
 * True when `text` holds a form of a secret (those redact() removes) in any case, or part of one
 * (holdsPart): for text that a parser may have changed (a URL's host is lower-cased and
 * percent-decoded), which redact() would miss.
 */
export function holdsSecret(text: unknown, secrets: Secrets): boolean {
  const lower = String(text).toLowerCase();
  for (const secret of secretList(secrets)) {
    for (const form of secretForms(secret)) if (lower.includes(form.toLowerCase())) return true;
  }
  return holdsPart(text, secrets);
}

/**
 * Redacted, control characters removed, whitespace collapsed, clipped: safe to print. Redacted
 * again once clipped, so the clip cannot leave the start of a secret that the text held right
 * after a redacted one (the line may then be a few characters longer than `max`). A line that
 * still holds part of a secret (holdsPart: a lower-cased, re-encoded, split or masked copy, a
 * short key) is replaced whole by PART_HIDDEN: only the line is searched, not all of `text`.
 */
export function safeLine(text: unknown, secrets?: Secrets, max = 200): string {
  const line = redact(clip(stripControl(redact(text, secrets)).replace(/\s+/g, ' ').trim(), max), secrets);
  return holdsPart(line, secrets) ? PART_HIDDEN : line;
}
