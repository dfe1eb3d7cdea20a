/** The retry loop of every request (REST and gRPC): exponential backoff, full jitter, bounded by the check's deadline. */
import { codeOf } from '../runtime/errors';

/** The backoff's base and cap, unless the options say otherwise. */
export const BACKOFF = { baseMs: 200, capMs: 5000 };

/** Network errors worth another attempt (a timeout of one attempt included). */
const RETRYABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  'ENETDOWN', 'ECONNABORTED', 'CHECK_TIMEOUT',
]);

/** The code of a request that ran out of time because the check's deadline came first: never retried. */
export const DEADLINE_TIMEOUT = 'CHECK_DEADLINE';

/** The bounds of one check's requests (written out: src/ reads this file's .d.ts, which may import no other checker file). */
export interface Bounds {
  readonly deadlineAt: number;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly backoffBaseMs: number;
  readonly backoffCapMs: number;
}

/** A request's outcome after its retries; `waitMs` and `leftMs` when the next wait was longer than the time left. */
export interface Outcome<T> {
  readonly value?: T;
  readonly err?: unknown;
  readonly attempts: number;
  readonly deadlineHit: boolean;
  readonly waitMs?: number;
  readonly leftMs?: number;
}

/**
 * Calls `once` until the retries are used up, the deadline comes, or the outcome is final: an error not retryable, or an
 * answer `delayFor` (given the backoff's wait) gives no wait for. A request the deadline cut short ends as the deadline.
 */
export async function withRetries<T>(bounds: Bounds, once: (timeoutMs: number, byDeadline: boolean) => Promise<T>,
  delayFor: (value: T, backoffMs: number) => number | undefined): Promise<Outcome<T>> {
  let last: { value?: T; err?: unknown } = {};
  for (let n = 1; ; n++) {
    const remaining = bounds.deadlineAt - Date.now();
    if (remaining <= 0) return { ...last, attempts: n - 1, deadlineHit: true };
    const byDeadline = remaining < bounds.timeoutMs;
    try {
      last = { value: await once(Math.min(bounds.timeoutMs, remaining), byDeadline) };
    } catch (err) {
      last = { err };
    }
    if (last.err && codeOf(last.err) === DEADLINE_TIMEOUT) return { ...last, attempts: n, deadlineHit: true };
    const wait = Math.random() * Math.min(bounds.backoffCapMs, bounds.backoffBaseMs * 2 ** (n - 1)); // full jitter under an exponential cap
    const next = last.err ? (RETRYABLE_CODES.has(codeOf(last.err)) ? wait : undefined) : delayFor(last.value as T, wait);
    const delay = n > bounds.retries ? undefined : next;
    if (delay === undefined) return { ...last, attempts: n, deadlineHit: false };
    const left = bounds.deadlineAt - Date.now();
    if (delay >= left) return { ...last, attempts: n, deadlineHit: true, waitMs: delay, leftMs: left };
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
