'use strict';
/**
 * REST transport of the checker: node:http(s) directly, so redirects are never followed and TLS
 * is always verified (rejectUnauthorized is set explicitly: NODE_TLS_REJECT_UNAUTHORIZED=0 in the
 * environment cannot switch it off). Requests carry at most one credential header. Retries with
 * exponential backoff (full jitter) on network errors, timeouts, 5xx and 429 (Retry-After
 * honoured), never on 401/403, all within the check's deadline. Node built-ins only.
 *
 * One TLS connection per cluster: it offers HTTP/2 and HTTP/1.1 (ALPN). Qdrant's REST port speaks
 * both (actix-web with rustls), and over HTTP/2 every request of a check is a stream on that one
 * connection, so a check makes one TLS handshake for REST where HTTP/1.1 needs one per parallel
 * request. A server that picks HTTP/1.1 gets the connection as the first socket of a keep-alive
 * agent, which opens more for parallel requests.
 */
const http = require('node:http');
const http2 = require('node:http2');
const https = require('node:https');
const net = require('node:net');
const tls = require('node:tls');
const { failure } = require('./failures.js');
const { PART_HIDDEN, safeLine, holdsSecret, quote } = require('../runtime/text.js');
const { RETRYABLE_CODES, withRetries, backoff } = require('./retry.js');

const MAX_BODY_BYTES = 1024 * 1024; // a larger answer fails the step: a status, a version and a count are a few KB
/** An HTML error page's <title> is looked for in its first characters only (it is in <head>). */
const TITLE_SCAN_CHARS = 4096;
const USER_AGENT = 'qdrant-cluster-access-checker';
/** HTTP/1.1 connections of one cluster's check (a server without HTTP/2): its parallel requests. */
const MAX_SOCKETS = 6;

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

/** HTTP/2 stream and session failures that a new attempt may get past (as a reset connection). */
const H2_RESET_CODES = new Set(['ERR_HTTP2_STREAM_ERROR', 'ERR_HTTP2_STREAM_CANCEL', 'ERR_HTTP2_GOAWAY_SESSION', 'ERR_HTTP2_SESSION_ERROR', 'ERR_HTTP2_INVALID_SESSION']);

function closedError() {
  return Object.assign(new Error('connection closed while reading the answer'), { code: 'ECONNRESET' });
}

/** An HTTP/2 reset as a reset connection (retried), with Node's words; any other error as it is. */
function h2Error(err) {
  return H2_RESET_CODES.has(err.code) ? Object.assign(closedError(), { message: err.message }) : err;
}

/**
 * The REST connection of one cluster's check. https: made on the first request; HTTP/2 when the
 * server picks it, else a keep-alive agent that starts with that connection. http:// (loopback
 * only) is HTTP/1.1. TLS is always verified, with the extra CAs of `secureContext` if given.
 */
class RestClient {
  constructor(target, secureContext) {
    this.target = target;
    this.tlsOptions = {
      rejectUnauthorized: true, // explicit: NODE_TLS_REJECT_UNAUTHORIZED cannot change it
      ...(secureContext ? { secureContext } : {}),
      // SNI only for names; the certificate is still matched against an IP address.
      ...(net.isIP(target.hostname) ? {} : { servername: target.hostname }),
    };
    this.session = undefined; // HTTP/2
    this.agent = target.protocol === 'http:' ? new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS }) : undefined; // HTTP/1.1
    this.connecting = undefined; // { socket, ready } while the first connection is made
    this.firstSocket = undefined; // HTTP/1.1: that connection, given to the agent
    this.closed = false;
  }

  /** Resolves 'h2' or 'h1' once requests can be sent; rejects with the connection's error. */
  ready() {
    if (this.closed) return Promise.reject(closedError());
    if (this.agent) return Promise.resolve('h1');
    if (this.session && !this.session.closed && !this.session.destroyed) return Promise.resolve('h2');
    if (this.connecting) return this.connecting.ready;
    const socket = tls.connect({ host: this.target.hostname, port: this.target.port, ALPNProtocols: ['h2', 'http/1.1'], ...this.tlsOptions });
    const ready = new Promise((resolve, reject) => {
      const failed = (err) => {
        this.connecting = undefined;
        socket.destroy();
        reject(err);
      };
      socket.once('error', failed);
      socket.once('secureConnect', () => {
        socket.removeListener('error', failed); // from here on, the session's or the agent's
        this.connecting = undefined;
        if (this.closed) {
          socket.destroy();
          reject(closedError());
        } else if (socket.alpnProtocol === 'h2') {
          const session = http2.connect(this.target.url, { createConnection: () => socket });
          session.on('error', () => undefined); // reported by the streams it ends
          session.on('close', () => {
            if (this.session === session) this.session = undefined;
          });
          this.session = session;
          resolve('h2');
        } else {
          // Until a request takes it (or destroy() ends it), an error on it must not be uncaught.
          socket.on('error', () => undefined);
          this.firstSocket = socket;
          this.agent = agentStartingWith(socket, this.tlsOptions);
          resolve('h1');
        }
      });
    });
    this.connecting = { socket, ready };
    return ready;
  }

  /** Gives up a connection still being made (a request timed out waiting for it): the next attempt makes a new one. */
  abandonConnecting(err) {
    if (this.connecting) this.connecting.socket.destroy(err);
  }

  destroy() {
    this.closed = true;
    if (this.connecting) this.connecting.socket.destroy();
    if (this.session) this.session.destroy();
    if (this.agent) this.agent.destroy();
    if (this.firstSocket) this.firstSocket.destroy();
  }
}

/** A keep-alive HTTPS agent whose first socket is `socket` (already connected and verified). */
function agentStartingWith(socket, tlsOptions) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, ...tlsOptions });
  let first = socket;
  const create = agent.createConnection;
  agent.createConnection = function createConnection(options, callback) {
    if (first && !first.destroyed) {
      const s = first;
      first = undefined;
      return s;
    }
    first = undefined;
    return create.call(this, options, callback);
  };
  return agent;
}

/** The REST client of one cluster's check (see RestClient). */
function createRestClient(target, secureContext) {
  return new RestClient(target, secureContext);
}

/**
 * One request. Resolves {status, headers, body}; rejects on network/TLS errors and on timeout.
 * ctx: { target, rest, key, header, secrets }.
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
  return new Promise((resolve, reject) => {
    let settled = false;
    let abort = (err) => ctx.rest.abandonConnecting(err); // until the request is sent
    const settle = (fn, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn(value);
    };
    // One timer for the whole request (connect + TLS + answer), not just socket idleness.
    const timer = setTimeout(() => {
      const err = timeoutError(timeoutMs, byDeadline);
      settle(reject, err);
      abort(err);
    }, timeoutMs);
    const answered = {
      resolve: (value) => settle(resolve, value),
      reject: (e) => settle(reject, e),
      tooLarge: () => settle(reject, tooLargeError(method, path)),
      // A stream closes after every answer too: the error is made only when it is one.
      closed: () => {
        if (!settled) settle(reject, closedError());
      },
    };
    ctx.rest.ready().then((protocol) => {
      if (settled) return;
      abort = protocol === 'h2'
        ? sendH2(ctx.rest.session, method, path, headers, payload, answered)
        : sendH1(ctx, method, path, headers, payload, answered);
    }, answered.reject).catch(answered.reject);
  });
}

/** The error of an answer larger than MAX_BODY_BYTES (not retried: the next one would be as large). */
function tooLargeError(method, path) {
  const err = new Error(`answer larger than 1 MiB (${MAX_BODY_BYTES} bytes); stopped reading`);
  err.code = 'ERR_ANSWER_TOO_LARGE';
  err.request = `${method} ${path}`;
  return err;
}

/**
 * Reads an answer into {status, headers, body}. At MAX_BODY_BYTES it stops: the request fails
 * with ERR_ANSWER_TOO_LARGE and `abort` ends the stream (a server could send for ever).
 */
function readAnswer(stream, status, headers, answered, abort) {
  const chunks = [];
  let size = 0;
  stream.on('data', (chunk) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) {
      chunks.push(chunk);
      return;
    }
    chunks.length = 0;
    answered.tooLarge();
    abort();
  });
  stream.on('end', () => answered.resolve({ status, headers, body: Buffer.concat(chunks).toString('utf8') }));
}

/** A request over HTTP/1.1 (keep-alive agent). Returns what aborts it. */
function sendH1(ctx, method, path, headers, payload, answered) {
  const t = ctx.target;
  const transport = t.protocol === 'https:' ? https : http;
  const req = transport.request({
    host: t.hostname, port: t.port, path, method, headers, agent: ctx.rest.agent,
    ...(t.protocol === 'https:' ? { rejectUnauthorized: true } : {}),
  }, (res) => {
    readAnswer(res, res.statusCode, res.headers, answered, () => req.destroy());
    res.on('error', answered.reject);
    res.on('close', answered.closed);
  });
  req.on('error', answered.reject);
  req.end(payload);
  return (err) => req.destroy(err);
}

/** A request as one stream of the HTTP/2 session. Returns what aborts it. */
function sendH2(session, method, path, headers, payload, answered) {
  if (!session || session.closed || session.destroyed) {
    answered.reject(closedError()); // it went away between ready() and now: a new attempt connects anew
    return () => undefined;
  }
  let stream;
  try {
    stream = session.request({ ':method': method, ':path': path, ...headers }, { endStream: payload === undefined });
  } catch (err) {
    answered.reject(h2Error(err));
    return () => undefined;
  }
  stream.on('response', (h) => {
    const resHeaders = {};
    for (const [name, value] of Object.entries(h)) if (!name.startsWith(':')) resHeaders[name] = value;
    readAnswer(stream, Number(h[':status']), resHeaders, answered, () => {
      if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
    });
  });
  stream.on('error', (err) => answered.reject(h2Error(err)));
  stream.on('close', answered.closed);
  if (payload !== undefined) stream.end(payload);
  return () => {
    if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
  };
}

/** The seconds a 429 answer's Retry-After asks to wait, or undefined (none, or not a number). */
function retryAfterSeconds(res) {
  if (!res || res.status !== 429) return undefined;
  const value = res.headers['retry-after'];
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/** Delay before the next attempt, or undefined when this outcome must not be retried. */
function retryDelay(ctx, outcome, attempt) {
  const { value: res, err } = outcome;
  if (err) return RETRYABLE_CODES.has(err.code) ? backoff(ctx, attempt) : undefined;
  if (res.status === 429) {
    const retryAfter = retryAfterSeconds(res);
    if (retryAfter !== undefined) return retryAfter * 1000; // bounded by the deadline
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
  if (code === 'ERR_ANSWER_TOO_LARGE') {
    return failure('unexpected-answer', ` to ${err.request}: ${msg}${suffix} — Qdrant's answers to the check are a few KB: check that the URL is the cluster's REST address`);
  }
  if (UNTRUSTED_CERT_CODES.has(code)) {
    // Node 24 and later add a fix of their own ("; if the root CA is installed locally, try
    // running Node.js with --use-system-ca"): the line gives one fix, the same on every Node.
    const reason = msg.replace(/; if the root CA is installed locally\b.*$/, '');
    return failure('tls-untrusted', `: ${reason} (${code})${suffix} — if the server uses a private CA, trust it (healthCheck.caFile, or --ca FILE)`);
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return failure('tls-name', ` ${t.hostname} (${safeLine(err.reason || code, ctx.secrets)})${suffix}`);
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

function times(n) {
  return n === 1 ? '1 attempt' : `${n} attempts`;
}

/**
 * The text of the first `<title ...>text</title>` of `html` (no markup inside), trimmed, or
 * undefined. One pass, no regular expression: server text must not cost more than its length.
 */
function htmlTitle(html) {
  const startsWith = (i, word) => html.slice(i, i + word.length).toLowerCase() === word;
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
    const title = htmlTitle(body.slice(0, TITLE_SCAN_CHARS));
    msg = title ? `HTML page "${title}"` : 'HTML page';
  }
  const text = safeLine(msg || http.STATUS_CODES[res.status] || '', secrets);
  return text ? `${res.status} ${text}` : String(res.status);
}

/**
 * The failure that every step treats the same way (deadline, network error, redirect), or undefined.
 */
function commonFailure(ctx, o) {
  if (o.deadlineHit) {
    const asked = o.waitMs !== undefined ? retryAfterSeconds(o.res) : undefined;
    if (asked !== undefined) {
      // Waiting as asked would pass the deadline: say so, not that the deadline was reached.
      return failure('deadline', ` of ${seconds(ctx.deadlineMs)}: the server asked to wait ${seconds(asked * 1000)} (Retry-After) before the next attempt, ` +
        `more than the ${seconds(Math.max(0, o.leftMs))} left, after ${times(o.attempts)}; last answer: ${answer(o.res, ctx.secrets)} — run the check again later`);
    }
    let last = '';
    if (o.err && o.err.code !== 'CHECK_TIMEOUT') last = `; last error: ${networkFailure(o.err, ctx).message}`;
    else if (o.res) last = `; last answer: ${answer(o.res, ctx.secrets)}`;
    return failure('deadline', ` of ${seconds(ctx.deadlineMs)} reached after ${times(o.attempts)}${last}`);
  }
  if (o.err) return networkFailure(o.err, ctx, o.attempts > 1 ? ` after ${times(o.attempts)}` : '');
  const { status, headers } = o.res;
  if (status >= 300 && status < 400) {
    const location = Array.isArray(headers.location) ? headers.location[0] : headers.location;
    if (typeof location !== 'string' || location.trim() === '') {
      return failure('redirect', ` (${status}) without a Location header — nothing was followed; use the cluster's final URL (from the console)`);
    }
    return failure('redirect', ` (${status}) to ${redirectTarget(ctx, location)} — not followed so the key is not sent elsewhere; use the final URL`);
  }
  return undefined;
}

/**
 * Where a Location header points, for a message: the origin only (a path or query may hold
 * anything). Never a form of the key nor part of one (holdsSecret): neither the header as sent nor
 * the origin the URL parser made of it (lower-cased, percent-decoded) may hold one, in any case.
 */
function redirectTarget(ctx, location) {
  const hidden = PART_HIDDEN;
  if (holdsSecret(location, ctx.secrets)) return hidden;
  let u;
  try {
    u = new URL(location, `${ctx.target.url}/`);
  } catch {
    return `${quote(safeLine(location, ctx.secrets, 80))} (not a valid URL)`;
  }
  const shown = u.origin === 'null' ? `a ${u.protocol} URL` : u.origin;
  return holdsSecret(shown, ctx.secrets) ? hidden : safeLine(shown, ctx.secrets, 120);
}

function unexpected(ctx, o, method, path) {
  return failure('unexpected-answer', ` to ${method} ${path}: ${answer(o.res, ctx.secrets)}${o.attempts > 1 ? ` after ${times(o.attempts)}` : ''}`, { serverText: true });
}

/**
 * Qdrant's own texts when a key is missing or wrong (REST bodies, gRPC grpc-message), whole: a
 * gateway's text that only starts with one ("Invalid API key or JWT (sign in at /login)") is not
 * Qdrant's. 1.8.2-1.8.4 said "… JWT token".
 */
const NO_KEY_TEXT = 'Must provide an API key or an Authorization bearer token';
const QDRANT_AUTH_TEXTS = new Set([NO_KEY_TEXT, 'Invalid API key or JWT', 'Invalid API key or JWT token']);

/**
 * Whether a refusal of a keyless request (REST 401/403, gRPC 16/7) may come from Qdrant or from
 * the edge in front of a Qdrant Cloud cluster, so that it may be repeated with the key: a Qdrant
 * Cloud host, or Qdrant's own text. (REST also accepts the Cloud edge's JSON: see check.js.)
 */
function isQdrantRefusal(hostname, text) {
  return /\.cloud\.qdrant\.io$/i.test(hostname) || QDRANT_AUTH_TEXTS.has(String(text || '').trim());
}

module.exports = { createRestClient, attempt, answer, commonFailure, networkFailure, unexpected, seconds, times, h2Error, isQdrantRefusal, NO_KEY_TEXT };
