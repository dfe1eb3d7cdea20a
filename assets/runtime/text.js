'use strict';
/**
 * Text hygiene for everything that is printed: one line, no control characters, no key.
 * Used by the checker, the writer and the constructs. Node built-ins only.
 *
 * - stripControl: C0 and C1 controls, DEL, the bidi controls (U+061C, U+200E/F, U+202A-E,
 *   U+2066-9) and the line/paragraph separators become spaces, so a server cannot rewrite what
 *   the terminal shows.
 * - redact: every occurrence of a secret is replaced by [redacted], in the forms a server may echo
 *   it back in: raw, trimmed, URL-encoded, JSON-escaped, hex (either case), and base64 / base64url
 *   at each of the three byte alignments (so a key embedded in a longer encoded string is found).
 *   A copy cut short is redacted too: a run of characters that is the start of one of those forms
 *   and ends at the clip mark "…" (at least MIN_SECRET_CHARS of them) or at the end of the text
 *   (at least MIN_CUT_CHARS_AT_END).
 */

const REDACTED = '[redacted]';
/** Shorter strings are not redacted: they would match ordinary text (keys are much longer). */
const MIN_SECRET_CHARS = 6;
/**
 * A copy of a secret's start that ends the text without the clip mark (a cut made elsewhere) is
 * redacted from this length: shorter ones would catch ordinary values (a hand-picked key such as
 * "qdrant-docs-key" starts like the collection "qdrant-docs").
 */
const MIN_CUT_CHARS_AT_END = 16;
/** What clip() ends a shortened text with. */
const CLIP_MARK = '…';

// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function clip(text, max) {
  const s = String(text);
  return s.length > max ? `${s.slice(0, max - 1)}${CLIP_MARK}` : s;
}

function stripControl(text) {
  return String(text).replace(CONTROL_RE, ' ');
}

/** Base64 or base64url cores of `bytes` as they appear inside a longer encoded string. */
function encodedCores(bytes, encoding) {
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
 * The forms of the secrets seen last (a check redacts every answer with the same one or two
 * secrets: computing the forms once per secret, not per call, is most of redact's cost). Bounded;
 * a secret only lives here as long as in the caller's memory anyway.
 */
const FORMS_CACHE = new Map();
const FORMS_CACHE_MAX = 16;

/** Every form of one secret that redact() removes, longest first. */
function secretForms(secret) {
  const cached = FORMS_CACHE.get(secret);
  if (cached) return cached;
  const forms = Object.freeze(computeForms(secret));
  if (FORMS_CACHE.size >= FORMS_CACHE_MAX) FORMS_CACHE.delete(FORMS_CACHE.keys().next().value);
  FORMS_CACHE.set(secret, forms);
  return forms;
}

function computeForms(secret) {
  const forms = new Set();
  const s = String(secret);
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
  return [...forms].filter((f) => f.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
}

/**
 * Replaces every start of `form` (not all of it) that ends at the clip mark (MIN_SECRET_CHARS
 * characters or more) or at the end of `text` (MIN_CUT_CHARS_AT_END or more): what is left of
 * the secret when its text was cut before it was redacted. Linear in the occurrences of the
 * form's first characters.
 */
function redactClipped(text, form) {
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
 * Replaces every form of every secret in `text` with [redacted], and every clipped copy of one
 * (see redactClipped). Secrets may be undefined.
 */
function redact(text, secrets) {
  let out = String(text);
  const list = (Array.isArray(secrets) ? secrets : [secrets]).filter((s) => typeof s === 'string' && s.length > 0);
  for (const secret of list) {
    for (const form of secretForms(secret)) if (out.includes(form)) out = out.split(form).join(REDACTED);
  }
  for (const secret of list) {
    for (const form of secretForms(secret)) out = redactClipped(out, form);
  }
  return out;
}

/**
 * True when `text` holds a form of a secret (those redact() removes) in any case: for text that a
 * parser may have changed the case of (a URL's host is lower-cased), which redact() would miss.
 */
function holdsSecret(text, secrets) {
  const lower = String(text).toLowerCase();
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    if (typeof secret !== 'string' || secret.length === 0) continue;
    for (const form of secretForms(secret)) if (lower.includes(form.toLowerCase())) return true;
  }
  return false;
}

/**
 * Redacted, control characters removed, whitespace collapsed, clipped: safe to print. Redacted
 * again once clipped, so the clip cannot leave the start of a secret that the text held right
 * after a redacted one (the line may then be a few characters longer than `max`).
 */
function safeLine(text, secrets, max = 200) {
  return redact(clip(stripControl(redact(text, secrets)).replace(/\s+/g, ' ').trim(), max), secrets);
}

/** Redacts every string inside a JSON-like value. */
function redactDeep(value, secrets) {
  if (typeof value === 'string') return redact(value, secrets);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secrets));
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, secrets);
    return out;
  }
  return value;
}

/**
 * A value for an error message: JSON quoting shows empty strings and whitespace; NaN and the
 * infinities as such (JSON would say null); clipped, one line.
 */
function quote(value, max = 120) {
  let text;
  if (typeof value === 'string') {
    text = JSON.stringify(stripControl(value));
  } else if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function') {
    text = String(value);
  } else {
    try {
      text = String(JSON.stringify(value) ?? value);
    } catch {
      text = Object.prototype.toString.call(value); // a cycle
    }
  }
  return clip(stripControl(text), max);
}

module.exports = { REDACTED, clip, stripControl, redact, holdsSecret, redactDeep, safeLine, quote };
