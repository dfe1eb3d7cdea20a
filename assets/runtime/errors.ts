/** The runtime's one error class. */

/** The code of input the user can fix (a bad option, URL, variable or file): the CLIs exit 2. */
export const USAGE = 'ERR_QDRANT_USAGE';
/** The code of a run that cannot go on (a key variable that is not set, not the value Terraform uses): exit 1. */
export const RUN = 'ERR_QDRANT_RUN';

/**
 * An error of the checker or writer: what was wrong, the value when it cannot be a secret, how to fix it.
 * `code`: {@link USAGE} (exit 2) or any other (exit 1), the runtime's or Node's; `line`: the file's line.
 */
export class RuntimeError extends Error {
  readonly code: string;
  readonly line?: number;

  constructor(message: string, code: string = USAGE, options: { line?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RuntimeError';
    this.code = code;
    if (options.line !== undefined) this.line = options.line;
  }
}

/** The `code` of an error (Node's or the runtime's), or '' when it has none. */
export function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** The message of an error, or the value as text when it has none. */
export function messageOf(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message !== '' ? message : String(err);
}
