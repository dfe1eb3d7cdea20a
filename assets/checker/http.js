'use strict';
/**
 * REST transport of the checker: node:http(s) directly, so redirects are never followed and TLS
 * is always verified (rejectUnauthorized is set explicitly: NODE_TLS_REJECT_UNAUTHORIZED=0 in the
 * environment cannot switch it off). Requests carry at most one credential header. Retries with
 * exponential backoff (full jitter) on network errors, timeouts, 5xx and 429 (Retry-After
 * honoured), never on 401/403, all within the check's deadline. Node built-ins only.
 */
const http = require('node:http');
const https = require('node:https');
const { failure } = require('./failures.js');
const { safeLine } = require('../runtime/text.js');
const { RETRYABLE_CODES, withRetries, backoff } = require('./retry.js');

const MAX_BODY_BYTES = 1024 * 1024; // more is ignored: a status, a version and a count are enough
const USER_AGENT = 'qdrant-cluster-access-checker';

const UNTRUSTED_CERT_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED',
]);

function seconds(ms) {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

function timeoutError(ms, byDeadline) {
  const err = new Error(`no answer within ${seconds(ms)}`);
  err.code = 'CHECK_TIMEOUT';
  err.byDeadline = byDeadline;
  return err;
}

/** A keep-alive agent for one cluster: a few sockets, TLS always verified, extra CAs if given. */
function createAgent(target, secureContext, maxSockets = 6) {
  if (target.protocol === 'http:') return new http.Agent({ keepAlive: true, maxSockets });
  return new https.Agent({ keepAlive: true, maxSockets, rejectUnauthorized: true, ...(secureContext ? { secureContext } : {}) });
}

/**
 * One request. Resolves {status, headers, body}; rejects on network/TLS errors and on timeout.
 * ctx: { target, agent, key, header, secrets }.
 */
function send(ctx, method, path, { withKey, body }, timeoutMs, byDeadline) {
  const headers = { 'accept': 'application/json', 'user-agent': USER_AGENT };
  if (withKey) {
    // Exactly one credential header: Qdrant reads api-key first, even when it is empty.
    if (ctx.header === 'bearer') headers.authorization = `Bearer ${ctx.key}`;
    else headers['api-key'] = ctx.key;
  }
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  const t = ctx.target;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn(value);
    };
    const transport = t.protocol === 'https:' ? https : http;
    const req = transport.request({
      host: t.hostname, port: t.port, path, method, headers, agent: ctx.agent,
      ...(t.protocol === 'https:' ? { rejectUnauthorized: true } : {}),
    }, (res) => {
      const chunks = [];
      let size = 0;
      res.on('data', (chunk) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      res.on('end', () => settle(resolve, { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => settle(reject, err));
      res.on('close', () => settle(reject, Object.assign(new Error('connection closed while reading the answer'), { code: 'ECONNRESET' })));
    });
    // One timer for the whole request (connect + TLS + answer), not just socket idleness.
    const timer = setTimeout(() => {
      const err = timeoutError(timeoutMs, byDeadline);
      settle(reject, err);
      req.destroy(err);
    }, timeoutMs);
    req.on('error', (err) => settle(reject, err));
    req.end(payload);
  });
}

/** Delay before the next attempt, or undefined when this outcome must not be retried. */
function retryDelay(ctx, outcome, attempt) {
  const { value: res, err } = outcome;
  if (err) return RETRYABLE_CODES.has(err.code) ? backoff(ctx, attempt) : undefined;
  if (res.status === 429) {
    const retryAfter = Number(res.headers['retry-after']);
    if (Number.isFinite(retryAfter) && retryAfter >= 0) return retryAfter * 1000; // bounded by the deadline
  } else if (res.status < 500) {
    return undefined; // includes 401/403: a rejected key is never retried
  }
  return backoff(ctx, attempt);
}

/**
 * A request with retries, bounded by ctx.deadlineAt.
 * @returns {Promise<{res?, err?, attempts: number, deadlineHit: boolean}>}
 */
async function attempt(ctx, method, path, options) {
  const { value: res, ...rest } = await withRetries(ctx,
    (timeoutMs, byDeadline) => send(ctx, method, path, options, timeoutMs, byDeadline),
    (outcome, n) => retryDelay(ctx, outcome, n));
  return res === undefined ? rest : { res, ...rest };
}

/** A network or TLS error as a catalog failure; the hint goes last. */
function networkFailure(err, ctx, suffix = '') {
  const t = ctx.target;
  const code = err.code || '';
  const msg = safeLine(err.message || '', ctx.secrets);
  if (code === 'CHECK_TIMEOUT') return failure('timeout', ` ${seconds(ctx.timeoutMs)} (request timeout)${suffix}`);
  if (UNTRUSTED_CERT_CODES.has(code)) {
    return failure('tls-untrusted', `: ${msg} (${code})${suffix} — if the server uses a private CA, trust it (healthCheck.caFile, or --ca FILE)`);
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return failure('tls-name', ` ${t.hostname} (${safeLine(err.reason || code, ctx.secrets)})${suffix}`);
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return failure('tls-expired', `: ${msg} (${code})${suffix}`);
  if (code === 'ECONNREFUSED') return failure('refused', ` by ${t.hostname}:${t.port} (ECONNREFUSED)${suffix} — is the port right? ${ctx.portHint}`);
  if (code === 'ENOTFOUND') return failure('dns', `: ${t.hostname} (DNS ENOTFOUND)${suffix}`);
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_')) return failure('tls-handshake', ` (${code})${suffix} — is ${t.hostname}:${t.port} a TLS endpoint?`);
  if (code.startsWith('HPE_')) return failure('invalid-http', ` (${code})${suffix}`);
  return failure('network', `: ${msg}${code && !msg.includes(code) ? ` (${code})` : ''}${suffix}`);
}

function times(n) {
  return n === 1 ? '1 attempt' : `${n} attempts`;
}

/** "401 Invalid API key or JWT": the status and the server's own words (redacted, one line). */
function answer(res, secrets) {
  const body = String(res.body || '').trim();
  let msg = body;
  let json;
  try {
    json = body.startsWith('{') ? JSON.parse(body) : undefined;
  } catch {
    json = undefined;
  }
  if (json && typeof json === 'object') {
    // Qdrant handlers: {"status":{"error":"…"}}; the Qdrant Cloud edge: {"error":"…"}.
    const candidates = [json.status && json.status.error, json.error, json.message, json.status];
    msg = candidates.find((c) => typeof c === 'string' && c !== '') || body;
  } else if (body.startsWith('<')) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body);
    msg = title ? `HTML page "${title[1].trim()}"` : 'HTML page';
  }
  const text = safeLine(msg || http.STATUS_CODES[res.status] || '', secrets);
  return text ? `${res.status} ${text}` : String(res.status);
}

/**
 * The failure that every step treats the same way (deadline, network error, redirect), or undefined.
 */
function commonFailure(ctx, o) {
  if (o.deadlineHit) {
    let last = '';
    if (o.err && o.err.code !== 'CHECK_TIMEOUT') last = `; last error: ${networkFailure(o.err, ctx).message}`;
    else if (o.res) last = `; last answer: ${answer(o.res, ctx.secrets)}`;
    return failure('deadline', ` of ${seconds(ctx.deadlineMs)} reached after ${times(o.attempts)}${last}`);
  }
  if (o.err) return networkFailure(o.err, ctx, o.attempts > 1 ? ` after ${times(o.attempts)}` : '');
  const { status, headers } = o.res;
  if (status >= 300 && status < 400) {
    let where = 'another location';
    try {
      where = new URL(headers.location, `${ctx.target.url}/`).origin;
    } catch {
      // no or bad Location header
    }
    return failure('redirect', ` (${status}) to ${safeLine(where, ctx.secrets, 120)} — not followed so the key is not sent elsewhere; use the final URL`);
  }
  return undefined;
}

function unexpected(ctx, o, method, path) {
  return failure('unexpected-answer', ` to ${method} ${path}: ${answer(o.res, ctx.secrets)}${o.attempts > 1 ? ` after ${times(o.attempts)}` : ''}`);
}

module.exports = { createAgent, attempt, answer, commonFailure, networkFailure, unexpected, seconds, times };
