/** What an answer, or its lack, says: the server's words for a message, and the failures every step treats alike. */
import { STATUS_CODES } from 'node:http';
import { failure, Failure } from './failures';
import { EDGE } from './probes';
import { DEADLINE_TIMEOUT, Outcome } from './retry';
import type { CheckContext } from './steps';
import { codeOf } from '../runtime/errors';
import { PART_HIDDEN, holdsSecret, safeLine } from '../runtime/secrets';
import { plural, quote } from '../runtime/text';

/** A REST answer: its status, headers and body (at most 1 MiB). */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** What the failures of a step are worded with. */
type Wording = Pick<CheckContext, 'target' | 'secrets' | 'timeoutMs' | 'deadlineMs' | 'portHint'>;

/** An HTML error page's <title> is looked for in its first characters only (it is in <head>). */
const TITLE_SCAN_CHARS = 4096;

const UNTRUSTED_CERT_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED',
]);

export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** The first `<title>text</title>` of `html`, trimmed: one pass, no regular expression (server text costs its length only). */
function htmlTitle(html: string): string | undefined {
  const startsWith = (i: number, word: string) => html.slice(i, i + word.length).toLowerCase() === word;
  let i = html.indexOf('<');
  while (i >= 0) {
    if (!startsWith(i, '<title')) {
      i = html.indexOf('<', i + 1);
      continue;
    }
    const gt = html.indexOf('>', i);
    if (gt < 0) return undefined;
    const lt = html.indexOf('<', gt + 1);
    if (lt < 0) return undefined;
    if (startsWith(lt, '</title>')) return html.slice(gt + 1, lt).trim();
    // A "<title" before `gt` ends at the same '>' and '<': the next candidate starts at `lt`.
    i = lt;
  }
  return undefined;
}

/** The JSON value of `text`, or undefined. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** "401 Invalid API key or JWT": the status and the server's own words (redacted, one line). */
export function answer(res: { status: number; body?: string }, secrets: readonly string[]): string {
  const body = String(res.body || '').trim();
  let msg = body;
  const json = body.startsWith('{') ? parseJson(body) as { [name: string]: any } | null : undefined;
  if (json && typeof json === 'object') {
    // Qdrant handlers: {"status":{"error":"…"}}; the Qdrant Cloud edge: {"error":"…"}.
    const candidates = [json.status && json.status.error, json.error, json.message, json.status];
    msg = candidates.find((c) => typeof c === 'string' && c !== '') || body;
  } else if (body.startsWith('<')) {
    const title = htmlTitle(body.slice(0, TITLE_SCAN_CHARS));
    msg = title ? `HTML page "${title}"` : 'HTML page';
  }
  const text = safeLine(msg || STATUS_CODES[res.status] || '', secrets);
  return text ? `${res.status} ${text}` : String(res.status);
}

/** A network or TLS error as a catalog failure; the hint goes last. */
export function networkFailure(err: unknown, ctx: Wording, suffix = ''): Failure {
  const t = ctx.target;
  const code = codeOf(err);
  const e = err as { message?: string; reason?: string; request?: string };
  const msg = safeLine(e.message || '', ctx.secrets);
  if (code === 'CHECK_TIMEOUT') return failure('timeout', ` ${seconds(ctx.timeoutMs)} (request timeout)${suffix}`);
  if (code === 'ERR_ANSWER_TOO_LARGE') {
    return failure('unexpected-answer', ` to ${e.request}: ${msg}${suffix} — Qdrant's answers to the check are a few KB: check that the URL is the cluster's REST address`);
  }
  if (UNTRUSTED_CERT_CODES.has(code)) {
    // Node 24 adds a fix of its own ("; if the root CA is installed locally, …"): one fix, the same on every Node.
    const reason = msg.replace(/; if the root CA is installed locally\b.*$/, '');
    return failure('tls-untrusted', `: ${reason} (${code})${suffix} — if the server uses a private CA, trust it (healthCheck.caFile, or --ca FILE)`);
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return failure('tls-name', ` ${t.hostname} (${safeLine(e.reason || code, ctx.secrets)})${suffix}`);
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return failure('tls-expired', `: ${msg} (${code})${suffix}`);
  if (code === 'ECONNREFUSED') return failure('refused', ` by ${t.hostname}:${t.port} (ECONNREFUSED)${suffix} — is the port right? ${ctx.portHint}`);
  if (code === 'ENOTFOUND') return failure('dns', `: ${t.hostname} (DNS ENOTFOUND)${suffix}`);
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_')) return failure('tls-handshake', ` (${code})${suffix} — is ${t.hostname}:${t.port} a TLS endpoint?`);
  if (code.startsWith('HPE_')) {
    // Over http://, a TLS port answers the request with TLS bytes, which no HTTP parser takes.
    return failure('invalid-http', ` (${code})${suffix} — ${t.protocol === 'http:' ? 'the port may speak TLS: use https://;' : 'is the port right?'} ${ctx.portHint}`);
  }
  // A port that speaks HTTP/1.1 or TLS (not HTTP/2) to an HTTP/2 client: the REST port given as gRPC's.
  if (code === 'ERR_HTTP2_ERROR') return failure('network', `: ${msg}${msg.includes(code) ? '' : ` (${code})`}${suffix} — is the port right? ${ctx.portHint}`);
  return failure('network', `: ${msg}${code && !msg.includes(code) ? ` (${code})` : ''}${suffix}`);
}

/** The seconds a 429 answer's Retry-After asks to wait, or undefined (none, or not a number). */
export function retryAfterSeconds(res: Answer | undefined): number | undefined {
  if (!res || res.status !== 429) return undefined;
  const value = res.headers['retry-after'];
  const secs = typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(secs) && secs >= 0 ? secs : undefined;
}

/** The failure that every step treats the same way (deadline, network error, redirect), or undefined. */
export function commonFailure(ctx: Wording, o: Outcome<Answer>): Failure | undefined {
  if (o.deadlineHit) {
    const asked = o.waitMs !== undefined ? retryAfterSeconds(o.value) : undefined;
    if (asked !== undefined) {
      // Waiting as asked would pass the deadline: say so, not that the deadline was reached.
      return failure('deadline', ` of ${seconds(ctx.deadlineMs)}: the server asked to wait ${seconds(asked * 1000)} (Retry-After) before the next attempt, ` +
        `more than the ${seconds(Math.max(0, o.leftMs as number))} left, after ${plural(o.attempts, 'attempt')}; last answer: ${answer(o.value as Answer, ctx.secrets)} — run the check again later`);
    }
    let last = '';
    if (o.err && codeOf(o.err) !== 'CHECK_TIMEOUT' && codeOf(o.err) !== DEADLINE_TIMEOUT) last = `; last error: ${networkFailure(o.err, ctx).message}`;
    else if (o.value) last = `; last answer: ${answer(o.value, ctx.secrets)}`;
    return failure('deadline', ` of ${seconds(ctx.deadlineMs)} reached after ${plural(o.attempts, 'attempt')}${last}`);
  }
  if (o.err) return networkFailure(o.err, ctx, o.attempts > 1 ? ` after ${plural(o.attempts, 'attempt')}` : '');
  const { status, headers } = o.value as Answer;
  if (status >= 300 && status < 400) {
    const location = Array.isArray(headers.location) ? headers.location[0] : headers.location;
    if (typeof location !== 'string' || location.trim() === '') {
      return failure('redirect', ` (${status}) without a Location header — nothing was followed; use the cluster's final URL (from the console)`);
    }
    return failure('redirect', ` (${status}) to ${redirectTarget(ctx, location)} — not followed so the key is not sent elsewhere; use the final URL`);
  }
  return undefined;
}

/** Where a Location header points, for a message: the origin only, and never if it or the header holds any form of the key. */
function redirectTarget(ctx: Wording, location: string): string {
  if (holdsSecret(location, ctx.secrets)) return PART_HIDDEN;
  let u;
  try {
    u = new URL(location, `${ctx.target.url}/`);
  } catch {
    return `${quote(safeLine(location, ctx.secrets, 80))} (not a valid URL)`;
  }
  const shown = u.origin === 'null' ? `a ${u.protocol} URL` : u.origin;
  return holdsSecret(shown, ctx.secrets) ? PART_HIDDEN : safeLine(shown, ctx.secrets, 120);
}

/**
 * Whether a keyless request's refusal may come from Qdrant or the Qdrant Cloud edge, and may be
 * asked again with the key: a Qdrant Cloud host, or Qdrant's own text, whole (probes.ts, edge-refusal).
 */
export function isQdrantRefusal(hostname: string, text: string | undefined): boolean {
  return hostname.toLowerCase().endsWith(EDGE.hostSuffix) || (EDGE.qdrantTexts as readonly string[]).includes(String(text || '').trim());
}
