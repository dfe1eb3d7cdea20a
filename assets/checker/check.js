'use strict';
/**
 * Qdrant cluster access check: proves that one API key really works on one Qdrant REST endpoint.
 *
 * Three steps (see index.d.ts for the report):
 *   root      GET /            with the key  -> Qdrant's version JSON (reachability, TLS, "is Qdrant")
 *   key       GET /collections with the key  -> 200 = key accepted, 401/403 = rejected/expired
 *   enforced  GET /collections without a key -> 401/403 = keys enforced, 200 = open cluster
 *
 * Why three: self-hosted Qdrant never checks the key on GET / (it is on the auth whitelist with
 * /healthz, /readyz, /livez), so a root probe passes with a wrong key. GET /collections needs a key
 * and every valid key type may call it.
 *
 * Node built-ins only: this file is copied next to Terraform stacks and run with plain `node`.
 */
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const net = require('node:net');
const tls = require('node:tls');

const DEFAULT_PORT = 6333;
const DEFAULTS = Object.freeze({
  header: 'api-key',
  timeoutSeconds: 10,
  deadlineSeconds: 60,
  retries: 3,
  requireAuth: true,
  backoffBaseMs: 200,
  backoffCapMs: 5000,
});
const MAX_MESSAGE_CHARS = 200;
const MAX_BODY_BYTES = 1024 * 1024; // more is ignored: we only need a status, a version and a count
const USER_AGENT = 'qdrant-cluster-access-checker';
const REDACTED = '[redacted]';

/** Thrown for bad options (bad URL, empty key, bad numbers, unreadable CA file). The CLI exits 2. */
class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = 'UsageError';
    this.code = 'ERR_QDRANT_CHECK_USAGE';
  }
}

// ---------------------------------------------------------------------------------------------
// Input validation

/** Shows a URL in an error message with any user:password@ part and the query masked (either may hold a key). */
function showUrl(raw) {
  return clip(String(raw).replace(/\/\/[^/?#]*@/, '//***@').replace(/\?[^#]*/, '?***'), MAX_MESSAGE_CHARS);
}

function isLoopback(hostname) {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  return net.isIPv4(host) && host.startsWith('127.');
}

/**
 * Validates a base URL and returns where to connect. Throws UsageError.
 * A URL without a port means port 6333 (Qdrant's REST port), not 443.
 */
function parseBaseUrl(input) {
  if (typeof input !== 'string' || input.trim() === '') {
    throw new UsageError('missing URL: give the cluster base URL, e.g. https://xyz.eu-central.aws.cloud.qdrant.io:6333');
  }
  const raw = input.trim();
  const shown = showUrl(raw);
  let u;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`invalid URL '${shown}': expected a base URL such as https://host:6333`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    throw new UsageError(`URL '${shown}' must start with https://`);
  }
  if (u.username || u.password) {
    throw new UsageError(`URL '${shown}' must not contain user:password@ (the key is read from the environment)`);
  }
  if (u.pathname !== '/' || /[?#]/.test(raw)) {
    throw new UsageError(`URL '${shown}' must be a base URL without path, query or fragment, e.g. ${u.protocol}//${u.host}`);
  }
  // WHATWG URL hides an explicit default port (https://h:443 has port ''), so read it from the text.
  const explicit = /^[a-z][a-z0-9+.-]*:\/\/(?:\[[^\]]*\]|[^/?#:]*)(?::(\d*))?/i.exec(raw);
  const portText = explicit && explicit[1] ? explicit[1] : '';
  const port = portText ? Number(portText) : DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(`URL '${shown}' has an invalid port`);
  }
  if (u.protocol === 'http:' && !isLoopback(u.hostname)) {
    throw new UsageError(`URL '${shown}' uses http://, which would send the key in clear text; use https:// (http:// is only allowed for loopback hosts)`);
  }
  return {
    protocol: u.protocol,
    hostname: u.hostname.replace(/^\[|\]$/g, ''), // for net.connect: IPv6 without brackets
    port,
    url: `${u.protocol}//${u.hostname}:${port}`,
    host: portText ? `${u.hostname}:${port}` : u.hostname, // default label: the host as written
  };
}

/** Returns why a key cannot be sent, or undefined. Never includes the key. */
function keyProblem(key) {
  if (key !== key.trim()) {
    return 'the key has whitespace or a newline at its start or end — likely a copy-paste error; remove it';
  }
  // The characters Node accepts in a header value; anything else is a broken copy of the key.
  if (/[^\t\x20-\x7e\x80-\xff]/.test(key)) {
    return 'the key contains a control character or a character that cannot be sent in an HTTP header — likely a copy-paste error';
  }
  return undefined;
}

function positiveNumber(value, name, fallback) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new UsageError(`${name} must be a positive number of seconds, got ${String(value)}`);
  }
  return value;
}

function normalizeOptions(options) {
  if (!options || typeof options !== 'object') throw new UsageError('options are required');
  const target = parseBaseUrl(options.url);
  if (typeof options.apiKey !== 'string' || options.apiKey === '') {
    throw new UsageError('the API key is empty or missing');
  }
  const header = options.header === undefined ? DEFAULTS.header : options.header;
  if (header !== 'api-key' && header !== 'bearer') {
    throw new UsageError(`header must be 'api-key' or 'bearer', got '${clip(String(header), 40)}'`);
  }
  const retries = options.retries === undefined ? DEFAULTS.retries : options.retries;
  if (!Number.isInteger(retries) || retries < 0 || retries > 100) {
    throw new UsageError(`retries must be a whole number from 0 to 100, got ${String(retries)}`);
  }
  for (const name of ['backoffBaseMs', 'backoffCapMs']) {
    const v = options[name];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
      throw new UsageError(`${name} must be a number >= 0, got ${String(v)}`);
    }
  }
  return {
    target,
    key: options.apiKey,
    header,
    // eslint-disable-next-line no-control-regex
    label: options.label === undefined || options.label === '' ? target.host : clip(String(options.label).replace(/[\x00-\x1f\x7f]+/g, ' '), 120),
    timeoutMs: positiveNumber(options.timeoutSeconds, 'timeoutSeconds', DEFAULTS.timeoutSeconds) * 1000,
    deadlineMs: positiveNumber(options.deadlineSeconds, 'deadlineSeconds', DEFAULTS.deadlineSeconds) * 1000,
    retries,
    requireAuth: options.requireAuth === undefined ? DEFAULTS.requireAuth : Boolean(options.requireAuth),
    backoffBaseMs: options.backoffBaseMs === undefined ? DEFAULTS.backoffBaseMs : options.backoffBaseMs,
    backoffCapMs: options.backoffCapMs === undefined ? DEFAULTS.backoffCapMs : options.backoffCapMs,
    ca: options.caFile === undefined ? undefined : loadCa(options.caFile),
  };
}

/**
 * Trusted roots when an extra CA file is given: Node's bundled roots + NODE_EXTRA_CA_CERTS (which a
 * `ca` option would otherwise drop) + the file. Without a file, Node's default store is used.
 */
function loadCa(caFile) {
  let pem;
  try {
    pem = fs.readFileSync(caFile, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read CA file '${clip(String(caFile), 120)}' (${err.code || err.message}): give a PEM file with the CA certificate(s)`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`CA file '${clip(String(caFile), 120)}' has no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  const extra = [];
  if (process.env.NODE_EXTRA_CA_CERTS) {
    try {
      extra.push(fs.readFileSync(process.env.NODE_EXTRA_CA_CERTS, 'utf8'));
    } catch {
      // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS; do the same (silently).
    }
  }
  return [...tls.rootCertificates, ...extra, pem];
}

// ---------------------------------------------------------------------------------------------
// Text hygiene: everything a server says goes through clean() before it reaches the report.

function clip(text, max) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Replaces every occurrence of the key (raw, URL-encoded, JSON-escaped) with [redacted]. */
function redact(text, key) {
  let out = String(text);
  if (!key) return out;
  const variants = [key, key.trim(), encodeURIComponent(key), JSON.stringify(key).slice(1, -1)]
    .filter((v) => v.length > 0)
    .sort((a, b) => b.length - a.length); // longest first, so no variant is left half-replaced
  for (const v of variants) out = out.split(v).join(REDACTED);
  return out;
}

/** Redacted, one line, no control characters, at most ~200 chars. */
function clean(text, key) {
  // eslint-disable-next-line no-control-regex
  return clip(redact(text, key).replace(/[\s\x00-\x1f\x7f]+/g, ' ').trim(), MAX_MESSAGE_CHARS);
}

function redactDeep(value, key) {
  if (typeof value === 'string') return redact(value, key);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, key));
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, key);
    return out;
  }
  return value;
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The server's message from any of Qdrant's error shapes: plain text (auth layer, no content-type),
 * {"status":{"error":"…"},"time":…} (handlers), {"error":"…"} (Qdrant Cloud edge).
 */
function serverMessage(res, key) {
  const body = res.body.trim();
  let msg = body;
  const json = body.startsWith('{') ? parseJson(body) : undefined;
  if (json && typeof json === 'object') {
    const candidates = [json.status && json.status.error, json.error, json.message, json.status];
    msg = candidates.find((c) => typeof c === 'string' && c !== '') || body;
  } else if (body.startsWith('<')) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body);
    msg = title ? `HTML page "${title[1].trim()}"` : 'HTML page';
  }
  return clean(msg || http.STATUS_CODES[res.status] || '', key);
}

/** "401 Invalid API key or JWT" */
function answer(res, key) {
  const msg = serverMessage(res, key);
  return msg ? `${res.status} ${msg}` : String(res.status);
}

// ---------------------------------------------------------------------------------------------
// Transport: node:http(s) directly, so redirects are never followed and TLS is always verified.

const RETRYABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  'ENETDOWN', 'ECONNABORTED', 'CHECK_TIMEOUT',
]);
const UNTRUSTED_CERT_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED',
]);

function timeoutError(ms, byDeadline) {
  const err = new Error(`no answer within ${seconds(ms)}`);
  err.code = 'CHECK_TIMEOUT';
  err.byDeadline = byDeadline;
  return err;
}

function seconds(ms) {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** One GET. Resolves {status, headers, body}; rejects on network/TLS errors and on timeout. */
function get(ctx, path, withKey, timeoutMs, byDeadline) {
  const headers = { 'accept': 'application/json', 'user-agent': USER_AGENT };
  if (withKey) {
    // Exactly one credential header: Qdrant reads api-key first, even when it is empty.
    if (ctx.header === 'bearer') headers.authorization = `Bearer ${ctx.key}`;
    else headers['api-key'] = ctx.key;
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
    const req = transport.request({ host: t.hostname, port: t.port, path, method: 'GET', headers, agent: ctx.agent }, (res) => {
      const chunks = [];
      let size = 0;
      res.on('data', (chunk) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      res.on('end', () => settle(resolve, { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => settle(reject, err));
      // A connection closed before 'end' (no-op once settled).
      res.on('close', () => settle(reject, Object.assign(new Error('connection closed while reading the answer'), { code: 'ECONNRESET' })));
    });
    // A timer for the whole request (connect + TLS + answer), not just socket idleness.
    const timer = setTimeout(() => {
      const err = timeoutError(timeoutMs, byDeadline);
      settle(reject, err);
      req.destroy(err);
    }, timeoutMs);
    req.on('error', (err) => settle(reject, err));
    req.end();
  });
}

/** [what happened, hint or ''] for a network/TLS error; the hint goes last in the message. */
function describeError(err, ctx) {
  const t = ctx.target;
  const code = err.code || '';
  if (code === 'CHECK_TIMEOUT') return [`no answer within ${seconds(ctx.timeoutMs)} (request timeout)`, ''];
  if (UNTRUSTED_CERT_CODES.has(code)) {
    return [`TLS certificate not trusted: ${err.message} (${code})`, 'if the server uses a private CA, trust it with --ca FILE'];
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return [`TLS certificate is not valid for ${t.hostname} (${err.reason || code})`, ''];
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return [`TLS certificate rejected: ${err.message} (${code})`, ''];
  if (code === 'ECONNREFUSED') return [`connection refused by ${t.hostname}:${t.port} (ECONNREFUSED)`, 'is the port right? Qdrant REST is 6333'];
  if (code === 'ENOTFOUND') return [`host ${t.hostname} not found (DNS ENOTFOUND)`, ''];
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_')) return [`TLS handshake failed (${code})`, `is ${t.hostname}:${t.port} an https:// endpoint?`];
  if (code.startsWith('HPE_')) return [`invalid HTTP answer (${code})`, ''];
  return [`${err.message}${code && !err.message.includes(code) ? ` (${code})` : ''}`, ''];
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Delay before the next attempt, or undefined when this outcome must not be retried. */
function retryDelay(ctx, outcome, attempt) {
  if (attempt > ctx.retries) return undefined;
  const { res, err } = outcome;
  if (err) {
    if (!RETRYABLE_CODES.has(err.code) || err.byDeadline) return undefined;
  } else if (res.status === 429) {
    const retryAfter = Number(res.headers['retry-after']);
    if (Number.isFinite(retryAfter) && retryAfter >= 0) return retryAfter * 1000; // capped by the deadline in attempt()
  } else if (res.status < 500) {
    return undefined; // includes 401/403: a rejected key is never retried
  }
  // Exponential backoff with full jitter.
  return Math.random() * Math.min(ctx.backoffCapMs, ctx.backoffBaseMs * 2 ** (attempt - 1));
}

/**
 * GET with retries and the overall deadline.
 * Returns {res?, err?, attempts, deadlineHit}: deadlineHit means we stopped because of the deadline.
 */
async function attempt(ctx, path, withKey) {
  let last = {};
  for (let n = 1; ; n++) {
    const remaining = ctx.deadlineAt - Date.now();
    if (remaining <= 0) return { ...last, attempts: n - 1, deadlineHit: true };
    const byDeadline = remaining < ctx.timeoutMs;
    try {
      last = { res: await get(ctx, path, withKey, Math.min(ctx.timeoutMs, remaining), byDeadline) };
    } catch (err) {
      last = { err };
    }
    if (last.err && last.err.byDeadline) return { ...last, attempts: n, deadlineHit: true };
    const delay = retryDelay(ctx, last, n);
    if (delay === undefined) return { ...last, attempts: n, deadlineHit: false };
    if (Date.now() + delay >= ctx.deadlineAt) return { ...last, attempts: n, deadlineHit: true };
    await sleep(delay);
  }
}

// ---------------------------------------------------------------------------------------------
// Steps

function times(n) {
  return n === 1 ? '1 attempt' : `${n} attempts`;
}

function withHint([what, hint], suffix) {
  return `${what}${suffix}${hint ? ` — ${hint}` : ''}`;
}

/** Failure message for outcomes every step treats the same way, or undefined. */
function commonFailure(ctx, o) {
  if (o.deadlineHit) {
    let why = `overall deadline of ${seconds(ctx.deadlineMs)} reached after ${times(o.attempts)}`;
    if (o.err && o.err.code !== 'CHECK_TIMEOUT') why += `; last error: ${withHint(describeError(o.err, ctx), '')}`;
    else if (o.res) why += `; last answer: ${answer(o.res, ctx.key)}`;
    return why;
  }
  if (o.err) return withHint(describeError(o.err, ctx), o.attempts > 1 ? ` after ${times(o.attempts)}` : '');
  const { status, headers } = o.res;
  if (status >= 300 && status < 400) {
    let where = 'another location';
    try {
      where = new URL(headers.location, `${ctx.target.url}/`).origin;
    } catch {
      // no or bad Location header
    }
    return `redirected (${status}) to ${where} — not followed so the key is not sent elsewhere; use the final URL`;
  }
  return undefined;
}

function unexpected(ctx, o, path) {
  return `unexpected answer to GET ${path}: ${answer(o.res, ctx.key)}${o.attempts > 1 ? ` after ${times(o.attempts)}` : ''}`;
}

function isAuthFailure(res) {
  return res && (res.status === 401 || res.status === 403);
}

/** Marks the key rejected or expired; returns the message. */
function rejectKey(ctx, report, res) {
  const expired = res.status === 403 && /ExpiredSignature/.test(res.body);
  report.keyStatus = expired ? 'expired' : 'rejected';
  return `${expired ? 'key expired' : 'key rejected'} (${answer(res, ctx.key)})`;
}

async function stepRoot(ctx, report) {
  const o = await attempt(ctx, '/', true);
  const failed = commonFailure(ctx, o);
  if (failed) return { o, ok: false, message: failed };
  const { res } = o;
  if (isAuthFailure(res)) {
    // Self-hosted Qdrant never checks keys on GET /; an endpoint that does is an edge in front of
    // Qdrant (as on Qdrant Cloud), and its 401/403 is about the key, not "not Qdrant".
    return { o, ok: false, message: `${rejectKey(ctx, report, res)} — the endpoint checks the key even on GET /, as the Qdrant Cloud edge does` };
  }
  if (res.status !== 200) return { o, ok: false, message: unexpected(ctx, o, '/') };
  const info = parseJson(res.body);
  if (!info || typeof info.title !== 'string' || typeof info.version !== 'string') {
    const type = String(res.headers['content-type'] || 'no content-type').split(';')[0];
    return { o, ok: false, message: `not a Qdrant endpoint: GET / answered 200 (${type}) without Qdrant's title and version JSON` };
  }
  report.qdrantVersion = clean(info.version, ctx.key);
  return { o, ok: true, message: `qdrant ${report.qdrantVersion}` };
}

async function stepKey(ctx, report) {
  const o = await attempt(ctx, '/collections', true);
  const failed = commonFailure(ctx, o);
  if (failed) return { o, ok: false, message: failed };
  const { res } = o;
  if (isAuthFailure(res)) return { o, ok: false, message: rejectKey(ctx, report, res) };
  if (res.status !== 200) return { o, ok: false, message: unexpected(ctx, o, '/collections') };
  const body = parseJson(res.body);
  const collections = body && body.result && body.result.collections;
  if (!Array.isArray(collections)) {
    return { o, ok: false, message: 'not a Qdrant endpoint: GET /collections answered 200 without a collection list' };
  }
  report.keyStatus = 'accepted';
  report.collectionCount = collections.length;
  return { o, ok: true, message: `key accepted (${collections.length} collection${collections.length === 1 ? '' : 's'} visible)` };
}

async function stepEnforced(ctx, report) {
  const o = await attempt(ctx, '/collections', false);
  const failed = commonFailure(ctx, o);
  if (failed) return { o, ok: false, message: failed };
  const { res } = o;
  if (isAuthFailure(res)) {
    report.enforcement = 'enforced';
    return { o, ok: true, message: `keys enforced (${res.status} without a key)` };
  }
  if (res.status !== 200) return { o, ok: false, message: unexpected(ctx, o, '/collections') };
  report.enforcement = 'open';
  if (!ctx.requireAuth) {
    report.notes.push('cluster is open (allowed)');
    return { o, ok: true, message: 'cluster is open (allowed)' };
  }
  return {
    o,
    ok: false,
    message: 'cluster is open: GET /collections without a key answered 200, so anyone can read and write it — enable an API key on the cluster (or, if that is intended, pass --allow-open; in a stack: healthCheck.requireAuth false)',
  };
}

const STEPS = [['root', stepRoot], ['key', stepKey], ['enforced', stepEnforced]];

// ---------------------------------------------------------------------------------------------
// Public API

/**
 * Runs the three steps against one base URL with one key. Resolves a report (never containing the
 * key); rejects only with UsageError for bad options.
 */
async function checkClusterAccess(options) {
  const started = Date.now();
  const opts = normalizeOptions(options);
  const report = {
    ok: false,
    url: opts.target.url,
    label: opts.label,
    header: opts.header,
    durationMs: 0,
    steps: [],
    notes: [],
  };
  const fail = (name, message, extra = {}) => {
    report.steps.push({ name, ok: false, message, durationMs: 0, attempts: 0, ...extra });
    report.failedStep = name;
    report.reason = message;
  };

  const problem = keyProblem(opts.key);
  if (problem) {
    fail('key', problem); // nothing is sent: attempts 0
  } else {
    const Agent = opts.target.protocol === 'https:' ? https.Agent : http.Agent;
    const ctx = {
      ...opts,
      // keep-alive: the three steps share one TLS connection when the server allows it
      // The CA list is parsed once (a `ca` option would rebuild it for every connection: ~25 ms).
      agent: new Agent({ keepAlive: true, maxSockets: 1, ...(opts.ca ? { secureContext: tls.createSecureContext({ ca: opts.ca }) } : {}) }),
      deadlineAt: started + opts.deadlineMs,
    };
    try {
      for (const [name, run] of STEPS) {
        const stepStarted = Date.now();
        const { o, ok, message } = await run(ctx, report);
        const step = { name, ok, message, durationMs: Date.now() - stepStarted, attempts: o.attempts };
        if (o.res) step.status = o.res.status;
        report.steps.push(step);
        if (!ok) {
          report.failedStep = name;
          report.reason = message;
          break;
        }
      }
    } finally {
      ctx.agent.destroy();
    }
  }
  report.ok = report.failedStep === undefined;
  report.durationMs = Date.now() - started;
  // Belt and braces: no string in the report may contain the key, whatever produced it.
  return redactDeep(report, opts.key);
}

/**
 * The one-line summary printed by the CLI, e.g.
 *   ok   search-api → prod-eu  qdrant 1.16.2  key accepted, keys enforced  184 ms
 *   FAIL search-api → prod-eu  step key: key rejected (401 Invalid API key or JWT)  52 ms
 */
function formatReport(report) {
  const head = `${report.ok ? 'ok  ' : 'FAIL'} ${report.label}`;
  let detail;
  if (report.ok) {
    const verdict = report.enforcement === 'open'
      ? 'key not verified, cluster is open (allowed)'
      : 'key accepted, keys enforced';
    detail = report.qdrantVersion ? `qdrant ${report.qdrantVersion}  ${verdict}` : verdict;
  } else {
    detail = `step ${report.failedStep}: ${report.reason}`;
  }
  return `${head}  ${detail}  ${report.durationMs} ms`;
}

module.exports = { checkClusterAccess, formatReport, parseBaseUrl, redact, UsageError, DEFAULTS };
