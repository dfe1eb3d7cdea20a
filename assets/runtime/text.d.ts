/** Text hygiene: one line, no control characters, no key (see text.js). */

/** What a redacted secret becomes. */
export declare const REDACTED: '[redacted]';
/** `text` cut to `max` characters with an ellipsis. */
export declare function clip(text: string, max: number): string;
/** C0/C1 controls, DEL, bidi controls and line separators become spaces. */
export declare function stripControl(text: string): string;
/**
 * Every form of each secret (raw, URL-encoded, JSON-escaped, hex, base64, base64url) → `[redacted]`,
 * and a clipped copy of one (at least 6 characters of a form's start, ending at `…` or the text's end).
 */
export declare function redact(text: string, secrets: string | undefined | ReadonlyArray<string | undefined>): string;
/** Whether `text` holds a form of a secret in any letter case (for text a parser may have lower-cased). */
export declare function holdsSecret(text: string, secrets: string | undefined | ReadonlyArray<string | undefined>): boolean;
/** Redacted, controls stripped, whitespace collapsed, clipped (default 200), redacted again after the clip. */
export declare function safeLine(text: string, secrets?: string | ReadonlyArray<string | undefined>, max?: number): string;
/** `redact` applied to every string inside a JSON-like value. */
export declare function redactDeep<T>(value: T, secrets: string | ReadonlyArray<string | undefined>): T;
/** A value quoted for an error message (JSON quoting; NaN and the infinities as such), one line, clipped (default 120). */
export declare function quote(value: unknown, max?: number): string;
