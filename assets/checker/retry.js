'use strict';
/**
 * The retry loop of every request the checker sends (REST and gRPC): retries with exponential
 * backoff (full jitter) while the outcome is retryable, bounded by the check's deadline. What is
 * retryable is the caller's to say (a 5xx or a 429 for REST, UNAVAILABLE for gRPC), except for
 * network errors, which are the same for both. Node built-ins only.
 */

/** The backoff's base and cap, unless the options say otherwise. */
const BACKOFF = { baseMs: 200, capMs: 5000 };

/** Network errors worth another attempt (a timeout of one attempt included). */
const RETRYABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  'ENETDOWN', 'ECONNABORTED', 'CHECK_TIMEOUT',
]);

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The backoff before attempt n + 1: full jitter under an exponential cap. */
function backoff(ctx, n) {
  return Math.random() * Math.min(ctx.backoffCapMs, ctx.backoffBaseMs * 2 ** (n - 1));
}

/**
 * Calls `once(timeoutMs, byDeadline)` until it succeeds for good, its outcome is not retryable, the
 * retries are used up or the deadline (ctx.deadlineAt) comes.
 * `delayFor(outcome, n)` returns the wait before the next attempt, or undefined to stop; an
 * outcome is { value } or { err }.
 * @returns {Promise<{value?, err?, attempts: number, deadlineHit: boolean, waitMs?: number, leftMs?: number}>}
 *   waitMs and leftMs when it stopped because the wait before the next attempt (waitMs) was longer
 *   than the time left before the deadline (leftMs)
 */
async function withRetries(ctx, once, delayFor) {
  let last = {};
  for (let n = 1; ; n++) {
    const remaining = ctx.deadlineAt - Date.now();
    if (remaining <= 0) return { ...last, attempts: n - 1, deadlineHit: true };
    const byDeadline = remaining < ctx.timeoutMs;
    try {
      last = { value: await once(Math.min(ctx.timeoutMs, remaining), byDeadline) };
    } catch (err) {
      last = { err };
    }
    if (last.err && last.err.byDeadline) return { ...last, attempts: n, deadlineHit: true };
    const delay = n > ctx.retries ? undefined : delayFor(last, n);
    if (delay === undefined) return { ...last, attempts: n, deadlineHit: false };
    // The wait would pass the deadline: stop now, and say how long the wait was and what was left.
    const left = ctx.deadlineAt - Date.now();
    if (delay >= left) return { ...last, attempts: n, deadlineHit: true, waitMs: delay, leftMs: left };
    await sleep(delay);
  }
}

module.exports = { BACKOFF, RETRYABLE_CODES, withRetries, backoff };
