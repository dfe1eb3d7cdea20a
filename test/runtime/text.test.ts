/**
 * Text hygiene (assets/runtime/text.js): what every printed line goes through.
 */
import { holdsPart, holdsSecret, PART_HIDDEN, redact, redactDeep, safeLine } from '../../assets/runtime/secrets';
import { clip, quote, stripControl } from '../../assets/runtime/text';

describe('redact', () => {
  const key = 'k"ey/+=-secret-value';

  test('raw, trimmed, JSON-escaped and URL-encoded forms', () => {
    const text = `a ${key} b ${JSON.stringify(key)} c ${encodeURIComponent(key)} Bearer ${key}`;
    expect(redact(text, key)).toBe('a [redacted] b "[redacted]" c [redacted] Bearer [redacted]');
  });

  test('hex in either case', () => {
    const hex = Buffer.from(key).toString('hex');
    expect(redact(`x${hex}y ${hex.toUpperCase()}`, key)).toBe('x[redacted]y [redacted]');
  });

  test.each([0, 1, 2, 3, 4, 5])('base64 and base64url of the key inside a longer string (prefix of %i bytes)', (n) => {
    const prefix = 'p'.repeat(n);
    for (const enc of ['base64', 'base64url'] as const) {
      const encoded = Buffer.from(`${prefix}${key}-suffix`).toString(enc);
      const out = redact(`echo: ${encoded}`, key);
      expect(out).toContain('[redacted]');
      // No 8-character run of the key's own encoding survives.
      const core = Buffer.from(key).toString(enc).slice(4, 12);
      expect(out).not.toContain(core);
    }
  });

  test('standard base64 with + and / in it, where base64url differs (found by a mutation review)', () => {
    // "~" at a byte index of 2 (mod 3) makes a + in base64: only the standard form has it.
    const tilde = 'ca~na~ry~se~cr~et~va~lu~e1~23';
    for (const n of [0, 3]) {
      const encoded = Buffer.from(`${'p'.repeat(n)}${tilde}`).toString('base64');
      expect(encoded).toMatch(/[+/]/);
      const out = redact(`echo: ${encoded}`, tilde);
      expect(out).toContain('[redacted]');
      expect(out).not.toContain(Buffer.from(tilde).toString('base64').slice(4, 12));
      expect(redactDeep({ a: [encoded] }, tilde)).not.toEqual({ a: [encoded] });
    }
  });

  test('base64url with - and _ in it, where standard base64 differs (found by a mutation audit)', () => {
    // ">>>" and "???" encode to "Pj4+" and "Pz8/" in base64, "Pj4-" and "Pz8_" in base64url.
    const urlKey = 'key>>>???~~~0123456789abcdef';
    for (const n of [0, 1, 2]) {
      const encoded = Buffer.from(`${'p'.repeat(n)}${urlKey}-suffix`).toString('base64url');
      expect(encoded).toMatch(/[-_]/);
      const out = redact(`echo: ${encoded}`, urlKey);
      expect(out).toContain('[redacted]');
      expect(out).not.toMatch(/Pj4-|Pz8_|j4-P|z8_f/);
      expect(JSON.stringify(redactDeep({ a: [encoded] }, urlKey))).toContain('[redacted]');
    }
  });

  test('a clipped line is redacted again: the clip cannot leave the start of an encoded key (found by a mutation audit)', () => {
    const hexKey = 'qk_9f3b2c7d1e8a4b6c0d2e4f6a8b';
    const hex = Buffer.from(hexKey).toString('hex');
    const line = safeLine(`${'x'.repeat(190)}${hex.slice(0, 30)} tail`, [hexKey]);
    expect(line).not.toContain(hex.slice(0, 8));
    expect(line).toMatch(/x\[redacted\]…$/);
  });

  test('short or missing secrets change nothing', () => {
    expect(redact('abc abc', 'abc')).toBe('abc abc');
    expect(redact('text', undefined as unknown as string)).toBe('text');
    expect(redact('text', [undefined as unknown as string, ''])).toBe('text');
  });
});

describe('stripControl and safeLine', () => {
  test('C0, C1, DEL and the bidi controls become spaces', () => {
    const evil = 'a\u0000b\u001bc\u007fd\u0085e\u009bf\u202eg\u2066h\u200fi\u061cj\u2028k';
    expect(stripControl(evil)).toBe('a b c d e f g h i j k');
  });

  test('one line, redacted, clipped', () => {
    const line = safeLine(`first\nsecond\r\nthird ${'x'.repeat(300)} my-secret-key`, ['my-secret-key'], 50);
    expect(line).not.toMatch(/\n|\r/);
    expect(line.length).toBe(50);
    expect(line.endsWith('…')).toBe(true);
    expect(safeLine('see my-secret-key', ['my-secret-key'])).toBe('see [redacted]');
  });
});

describe('a secret clipped before it was redacted', () => {
  const key = 'Zq8vR2mX9pL4tW7yB3nK6cF1hJ5dG0sA8eU2iO4rT6wY9';

  test('a clipped copy of the secret (or of one of its forms) is redacted, followed by the clip mark or at the end', () => {
    expect(redact(`--header must be one of api-key, bearer; got ${quote(clip(key, 40))}`, key)).toBe('--header must be one of api-key, bearer; got "[redacted]…"');
    expect(redact(`has a path ${JSON.stringify(clip(`/${'x'.repeat(60)}${key}`, 80))}; give only`, key)).toBe(`has a path "/${'x'.repeat(60)}[redacted]…"; give only`);
    // At the end of the text without the mark (a cut made elsewhere): from 16 characters.
    expect(redact(`url ${key.slice(0, 16)}`, key)).toBe('url [redacted]');
    expect(redact(`url ${key.slice(0, 12)}`, key)).toBe(`url ${key.slice(0, 12)}`);
    const hex = Buffer.from(key).toString('hex');
    expect(redact(`got ${clip(hex, 30)} and ${clip(encodeURIComponent(key), 20)}`, key)).toBe('got [redacted]… and [redacted]…');
    // Shorter runs, or runs followed by other text, are ordinary text: left alone.
    expect(redact(`got "${key.slice(0, 5)}…"`, key)).toBe(`got "${key.slice(0, 5)}…"`);
    expect(redact(`${key.slice(0, 10)} and more`, key)).toBe(`${key.slice(0, 10)} and more`);
  });

  test('ordinary values that end with the first characters of a hand-picked key are left alone', () => {
    const picked = 'qdrant-docs-key';
    expect(redactDeep({ label: 'qdrant', access: { readCollections: ['qdrant-docs'] } }, picked))
      .toEqual({ label: 'qdrant', access: { readCollections: ['qdrant-docs'] } });
    expect(redact(`got "${clip(picked, 8)}"`, picked)).toBe('got "[redacted]…"');
  });

  test('safeLine clips after redacting: the clip cannot cut a secret into a prefix that shows', () => {
    const line = safeLine(`token ${key}${key.slice(0, 30)}`, [key], 40);
    expect(line).not.toContain(key.slice(0, 6));
    expect(line.startsWith('token [redacted]')).toBe(true);
  });
});

describe('quote', () => {
  test('NaN and the infinities are shown as such, not as null', () => {
    expect([quote(NaN), quote(Infinity), quote(-Infinity), quote(1.5), quote(null)]).toEqual(['NaN', 'Infinity', '-Infinity', '1.5', 'null']);
  });

  test('a newline, a tab or another C0 control is shown escaped (a value ending in a newline does not read as one ending in a space); so are C1, bidi and invisible characters', () => {
    expect([quote('2026-11-22\n'), quote('a\tb'), quote('a\u0007b\u202ec')]).toEqual(['"2026-11-22\\n"', '"a\\tb"', '"a\\u0007b\\u202ec"']);
    // A collection name refused for a zero-width space must not look like one without it.
    expect([quote('prod\u200bucts'), quote('a\u00adb'), quote('\ufeffx'), quote('a\u0085b'), quote({ k: 'a\u2060b' })])
      .toEqual(['"prod\\u200bucts"', '"a\\u00adb"', '"\\ufeffx"', '"a\\u0085b"', '{"k":"a\\u2060b"}']);
    // Not in what is not JSON (a number, a symbol).
    expect(quote(Symbol('a\u200bb'))).toBe('Symbol(a\u200bb)');
  });

  test('an object\'s JSON is not cut inside an escape either', () => {
    expect(quote({ a: '\u0001\u0001\u0001' }, 12)).toBe('{"a":"…');
  });

  test('a clip never ends inside an escape or a surrogate pair (it would read as another character)', () => {
    const a = (n: number) => 'a'.repeat(n);
    // The quoted text is '"' + the value; the clip keeps 9 characters of it, then '…'.
    expect(quote(`${a(6)}\u0007z`, 10)).toBe(`"${a(6)}…`); // '"aaaaaa\u0' would be cut
    expect(quote(`${a(7)}\u0007z`, 10)).toBe(`"${a(7)}…`); // '"aaaaaaa\' likewise
    expect(quote(`${a(6)}\\z`, 10)).toBe(`"${a(6)}\\\\…`); // a whole '\\' stays
    expect(quote(`${a(7)}\\z`, 10)).toBe(`"${a(7)}…`); // half of one does not
    expect(quote(`${a(7)}\u{1F600}z`, 10)).toBe(`"${a(7)}…`);
    expect(quote(`${a(6)}\u{1F600}z`, 10)).toBe(`"${a(6)}\u{1F600}…`);
    expect(quote(`${a(5)}u0007zzzz`, 10)).toBe(`"${a(5)}u00…`); // no backslash: plain text
    expect(quote(`${a(3)}\u0007z`, 10)).toBe(`"${a(3)}…`); // '"aaa\u000' (three hex digits) would be cut
  });
});

describe('part of a secret in server text: safeLine shows none of it (holdsPart)', () => {
  const key = 'Zq8vR2mX9pL4tW7yB3nK6cF1hJ5dG0sA8eU2iO4rT6wY9';
  const jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJhY2Nlc3MiOiJtIn0.q9dK3vX0sLmP7rT2wY5zB8nC1fH4jG6aE0uI3oR7tQ9';
  const signature = jwt.split('.')[2];

  test.each([
    ['12 characters from the middle', `got ${key.slice(17, 29)} here`],
    ['the start cut with ASCII dots', `key ${key.slice(0, 24)}... rejected`],
    ['prefix****suffix', `key ${key.slice(0, 4)}****${key.slice(-4)}`],
    ['6 characters of the start before a mask', `key ${key.slice(0, 6)}••••••`],
    ['6 characters of the end after a mask', `key ...${key.slice(-6)}`],
    ['the key lower-cased', key.toLowerCase()],
    ['split by whitespace', `${key.slice(0, 9)} ${key.slice(9, 18)}\t${key.slice(18)}`],
    ['split by soft hyphens', [...key].join('\u00ad')],
    ['\\u escapes, either case', [...key.slice(0, 14)].map((c) => `\\U${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`).join('')],
    ['\\x escapes', [...key.slice(0, 14)].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join('')],
    ['decimal and hex entities without the semicolon', [...key.slice(0, 14)].map((c, i) => (i % 2 ? `&#${c.charCodeAt(0)}` : `&#X${c.charCodeAt(0).toString(16)};`)).join(' ')],
    ['percent-escapes of either case', [...key.slice(0, 14)].map((c, i) => `%${c.charCodeAt(0).toString(16)[i % 2 ? 'toUpperCase' : 'toLowerCase']()}`).join('')],
    ['base64 of it, line-wrapped', Buffer.from(`x${key}`).toString('base64').replace(/.{1,10}/g, '$& ')],
    ['hex of part of it', Buffer.from(key.slice(5, 15)).toString('hex')],
  ])('%s', (_what, text) => {
    expect(safeLine(text, [key])).toBe(PART_HIDDEN);
    expect(holdsSecret(text, [key])).toBe(true);
  });

  test('a JWT: its signature alone, cut, lower-cased, or as a host', () => {
    expect(safeLine(`InvalidSignature: ${signature}`, [jwt])).toBe(PART_HIDDEN);
    expect(safeLine(`https://${signature.slice(0, 30).toLowerCase()}.example.invalid/`, [jwt])).toBe(PART_HIDDEN);
    expect(holdsPart(`https://${signature.slice(3, 15).toLowerCase()}.example.invalid/`, [jwt])).toBe(true);
  });

  test('a key shorter than 12 characters is looked for whole; shorter than 8, as a word only', () => {
    expect(safeLine('401 Invalid API key s3kr1', ['s3kr1'])).toBe(PART_HIDDEN);
    expect(safeLine('401 Invalid API key S3KR1!', ['s3kr1'])).toBe(PART_HIDDEN);
    expect(safeLine('401 Invalid API key s%33kr1', ['s3kr1'])).toBe(PART_HIDDEN);
    expect(safeLine('bad key: prod-key-1 (rejected)', ['Prod-Key-1'])).toBe(PART_HIDDEN);
    expect(safeLine('bad key: xPROD-KEY-1x', ['prod-key-1'])).toBe(PART_HIDDEN);
    // A word of the key, or the key inside a longer word, is ordinary text.
    expect(safeLine('401 Invalid API key or JWT', ['s3kr1-api'])).toBe('401 Invalid API key or JWT');
    expect(safeLine('401 Invalid API key or JWT', ['apikey9'])).toBe('401 Invalid API key or JWT');
    expect(safeLine('collection s3kr1x', ['s3kr1'])).toBe('collection s3kr1x');
    // Keys of one or two characters would hide ordinary text: not looked for.
    expect(safeLine('a b c', ['a'])).toBe('a b c');
  });

  test('ordinary answers still show', () => {
    const ordinary = [
      'Invalid API key or JWT',
      'Must provide an API key or an Authorization bearer token',
      'Forbidden: Global access is required',
      '{"title":"qdrant - vector search engine","version":"1.18.3","commit":"0b7a2f4c1d9e8b6a5f3c2e1d0a9b8c7d6e5f4a3b"}',
      `Not found: Collection \`${key.slice(0, 5).toLowerCase()}-docs\` doesn't exist!`,
      'HTML page "502 Bad Gateway" ...',
      'application/json; charset=utf-8',
      '**Note**: eyJhbGciOi is how every JWT starts',
    ];
    for (const text of ordinary) {
      for (const secret of [key, jwt]) expect(safeLine(text, [secret], 300)).toBe(text.replace(/\s+/g, ' '));
    }
  });

  test('exact copies are still redacted as before, and the redacted line is searched', () => {
    expect(safeLine(`token ${key}`, [key])).toBe('token [redacted]');
    expect(safeLine(`token ${key} and ${key.toLowerCase()}`, [key])).toBe(PART_HIDDEN);
  });

  test('only the line that is printed is searched: a copy past the clip hides nothing', () => {
    expect(safeLine(`${'x'.repeat(300)} ${key.toLowerCase()}`, [key], 100)).toBe(`${'x'.repeat(99)}…`);
  });

  test('large hostile text is searched in one pass (holdsSecret on 1 MiB of masks, escapes and windows-to-be)', () => {
    const evil = `${key.slice(0, 5)}**`.repeat(100000) + '%25'.repeat(50000) + '&#'.repeat(50000);
    expect(holdsSecret(evil, [key, jwt])).toBe(false);
    expect(holdsSecret(`${evil}${key.slice(-12)}`, [key])).toBe(true);
  });
});
