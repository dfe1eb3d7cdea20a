/**
 * Text hygiene (assets/runtime/text.js): what every printed line goes through.
 */
import { redact, safeLine, stripControl } from '../../assets/runtime/text';

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
