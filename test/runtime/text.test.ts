/**
 * Text hygiene (assets/runtime/text.js): what every printed line goes through.
 */
import { clip, quote, redact, redactDeep, safeLine, stripControl } from '../../assets/runtime/text';

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
});
