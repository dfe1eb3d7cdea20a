/** Text hygiene: one line, no control characters, no key (see text.js). */

/** What a redacted secret becomes. */
export declare const REDACTED: '[redacted]';
/** What safeLine prints in place of a line that holds part of a secret (see holdsPart). */
export declare const PART_HIDDEN: '(answer not shown: it holds part of the API key)';
/** Longer text is not shown in messages where a key may have been put: it may be one. */
export declare const SHOWN_MAX: 20;
/**
 * The characters a terminal shows as nothing (DEL and C1, soft hyphen, zero-width, bidi and line
 * separators, a BOM…), as the body of a RegExp character class (`\uXXXX` ranges).
 */
export declare const SHOWN_AS_NOTHING: string;
/** Whether text given where a key may have been put could be one: longer than SHOWN_MAX, or a JWT. */
export declare function mayBeKey(text: string): boolean;
/** `text` cut to `max` characters with an ellipsis. */
export declare function clip(text: string, max: number): string;
/** C0/C1 controls, DEL, bidi controls and line separators become spaces. */
export declare function stripControl(text: string): string;
/**
 * Every form of each secret (raw, URL-encoded, JSON-escaped, hex, base64, base64url) → `[redacted]`,
 * and a clipped copy of one: at least 6 characters of a form's start ending at `…`, or at least 16
 * ending the text.
 */
export declare function redact(text: string, secrets: string | undefined | ReadonlyArray<string | undefined>): string;
/** Whether `text` holds a form of a secret in any letter case, or part of one (holdsPart): for text a parser may have changed. */
export declare function holdsSecret(text: string, secrets: string | undefined | ReadonlyArray<string | undefined>): boolean;
/**
 * Whether `text` holds part of a secret once decoded (percent-escapes, JSON and HTML escapes),
 * lower-cased and rid of whitespace: any 12 characters in a row of the key (of a JWT's signature,
 * of its hex or base64), a masked copy (`start****end`), or a key shorter than 12 whole (as a word
 * when shorter than 8; keys shorter than 3 are not looked for).
 */
export declare function holdsPart(text: string, secrets: string | undefined | ReadonlyArray<string | undefined>): boolean;
/**
 * Redacted, controls stripped, whitespace collapsed, clipped (default 200), redacted again after the
 * clip; PART_HIDDEN instead when that line still holds part of a secret (holdsPart).
 */
export declare function safeLine(text: string, secrets?: string | ReadonlyArray<string | undefined>, max?: number): string;
/** `redact` applied to every string inside a JSON-like value. */
export declare function redactDeep<T>(value: T, secrets: string | ReadonlyArray<string | undefined>): T;
/** A value quoted for an error message (JSON quoting; NaN and the infinities as such), one line, clipped (default 120). */
export declare function quote(value: unknown, max?: number): string;
