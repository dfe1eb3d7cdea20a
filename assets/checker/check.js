'use strict';
/**
 * Qdrant cluster access check: proves that one API key works on one Qdrant cluster, and has the
 * access its apps need. Steps (see index.d.ts for the report):
 *   root      GET /            without a key -> Qdrant's version JSON (reachability, TLS, "is Qdrant");
 *                                              an edge that wants a key even there (401/403 from a
 *                                              Qdrant Cloud host, or with the Cloud edge's JSON or
 *                                              Qdrant's own text) is asked again, with the key
 *   key       GET /collections with the key  -> 200 = key accepted, 401/403 = rejected/expired
 *   enforced  GET /collections without a key -> 401/403 = keys enforced, 200 = open cluster
 *   access    the side-effect-free probes of access.js, when access is declared
 *   grpc      Qdrant/HealthCheck, then Collections/List with and without the key (grpc-check.js)
 *   expiry    a JWT's `exp`: past it fails (Qdrant still takes a key 30 s past it), else against --min-validity-days (no request)
 * Self-hosted Qdrant never checks the key on GET / (it is on the auth whitelist with /healthz,
 * /readyz and /livez), so a root probe passes with a wrong key: the key step is what proves it.
 *
 * Wire cost: root and enforced (neither sends the key) go first; nothing keyed is sent until the
 * address has proven to be Qdrant (behind an edge that wants a key on GET /: until root with the
 * key has); then key and the access probes go out together. All of them are
 * streams of one HTTP/2 connection (http.js; keep-alive HTTP/1.1 connections when the server
 * offers no HTTP/2), while gRPC runs alongside on its own connection: two TLS handshakes a check.
 *
 * Node built-ins only: this file is copied next to Terraform stacks and run with plain `node`.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const tls = require('node:tls');
const { CHECK_OPTIONS, defaultDeadlineSeconds } = require('../runtime/protocol.js');
const { UsageError } = require('../runtime/cli.js');
const { safeLine, redact, redactDeep, clip, quote, holdsPart } = require('../runtime/text.js');
const { DEFAULT_REST_PORT, DEFAULT_GRPC_PORT, parseClusterUrl, showUrl } = require('../runtime/url.js');
const { COLLECTION_RULE, isCollectionName } = require('../runtime/names.js');
const { planProbes, accessWords, reportedNames } = require('./access.js');
const { failure, withFix } = require('./failures.js');
const { createRestClient, attempt, answer, commonFailure, unexpected, isQdrantRefusal, NO_KEY_TEXT } = require('./http.js');
const { BACKOFF } = require('./retry.js');
const { keyInfo, describeExpiry, daysUntil } = require('./jwt.js');
const { formatReport, formatWarnings } = require('./report.js');

const MAX_CA_BYTES = 1024 * 1024;
const STEP_ORDER = ['root', 'key', 'enforced', 'access', 'grpc', 'expiry'];

// ---------------------------------------------------------------------------------------------
// Options

/** A cluster address as the checker connects to it. Throws UsageError. */
function parseBaseUrl(input, defaultPort = DEFAULT_REST_PORT, secrets = []) {
  const what = defaultPort === DEFAULT_GRPC_PORT ? 'gRPC URL' : 'url';
  if (typeof input !== 'string' || input.trim() === '') {
    throw new UsageError(`missing ${what}: give the cluster's base URL, e.g. https://xyz.eu-central.aws.cloud.qdrant.io:${defaultPort}`);
  }
  const raw = input.trim().replace(/\/$/, '');
  const parsed = parseClusterUrl(raw);
  if (parsed.problems.length > 0) throw new UsageError(`${what} ${showUrl(raw)} ${parsed.problems[0]}`);
  // A key pasted into the host would go to a DNS resolver with the lookup, before any check.
  if (holdsPart(parsed.host, secrets)) {
    throw new UsageError(`${what}: its host holds part of the API key (not shown; a copy-paste error?), so nothing was sent to it; give the cluster's URL`);
  }
  const port = parsed.explicitPort === undefined ? defaultPort : parsed.explicitPort;
  return {
    protocol: parsed.protocol,
    hostname: parsed.host, // for net.connect: IPv6 without brackets
    port,
    url: `${parsed.origin}:${port}`,
    host: parsed.explicitPort === undefined ? parsed.hostForUrl : `${parsed.hostForUrl}:${port}`, // the default label
  };
}

/** Returns a catalog failure when the key cannot be sent as it is, else undefined. Never includes the key. */
function keyProblem(key) {
  if (key !== key.trim()) {
    return failure('key-whitespace', ' at its start or end — likely a copy-paste error; remove it');
  }
  // The characters Node accepts in a header value; anything else is a broken copy of the key.
  if (/[^\t\x20-\x7e\x80-\xff]/.test(key)) {
    return failure('key-bad-characters', ' or a character that cannot be sent in an HTTP header — likely a copy-paste error; copy the key again');
  }
  return undefined;
}

/** An option's value for a message, quoted and clipped: redacted first, so no clip can leave a part of the key. */
function shownValue(value, options, max = 40) {
  return quote(typeof value === 'string' ? redact(value, [options.apiKey]) : value, max);
}

/**
 * A UsageError whose message holds no form of the secrets, not even a clipped one (a key pasted
 * into another option, a label or a URL); any other error as it is.
 */
function withoutSecrets(err, secrets) {
  if (!(err instanceof UsageError)) return err;
  const message = redact(err.message, secrets);
  return message === err.message ? err : new UsageError(message);
}

function numberOption(options, name, spec, integer) {
  const value = options[name];
  if (value === undefined) return undefined;
  const ok = typeof value === 'number' && Number.isFinite(value) && (!integer || Number.isInteger(value)) && value >= spec.min && value <= spec.max;
  if (!ok) throw new UsageError(`${name} must be a ${integer ? 'whole ' : ''}number in ${spec.min}-${spec.max}; got ${shownValue(value, options)}`);
  return value;
}

function enumOption(options, name, spec) {
  const value = options[name] === undefined ? spec.default : options[name];
  if (!spec.values.includes(value)) throw new UsageError(`${name} must be one of ${spec.values.join(', ')}; got ${shownValue(value, options)}`);
  return value;
}

/** Qdrant's rule for collection names, plus no comma (the CLI lists them comma-separated). */
function checkCollections(list, name, options) {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new UsageError(`${name} must be a list of collection names`);
  const shown = (c) => (typeof c === 'string' && holdsPart(c, [options.apiKey]) ? '(a name not shown: it holds part of the API key)' : shownValue(c, options, 60));
  for (const c of list) {
    if (!isCollectionName(c)) throw new UsageError(`${name}: ${shown(c)} is not a collection name (${COLLECTION_RULE})`);
  }
  // As at synth (KeyAccess.collections): a repeat is a slip, and would be probed twice.
  const twice = list.find((c, i) => list.indexOf(c) !== i);
  if (twice !== undefined) throw new UsageError(`${name} lists ${shown(twice)} twice; list each collection once`);
  return [...list];
}

/**
 * Trusted roots when an extra CA file is given: Node's bundled roots + NODE_EXTRA_CA_CERTS (which a
 * `ca` option would otherwise drop) + the file. The file is opened without blocking (a FIFO or a
 * device is refused, not waited on) and read up to 1 MiB.
 *
 * Node's default context holds its bundled roots (parsed once, in C++); adding NODE_EXTRA_CA_CERTS
 * and the file to it costs ~1 ms, where `ca: [...tls.rootCertificates, pem]` parses ~150 PEM
 * roots in JavaScript in every check process (~20 ms). The explicit list stays as the fallback
 * for a Node without `SecureContext.context.addCACert`.
 */
function loadCa(caFile) {
  const shown = quote(String(caFile));
  let fd;
  let pem;
  try {
    fd = fs.openSync(caFile, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new UsageError(`CA file ${shown} is not a regular file (a device, a FIFO or a directory); give a PEM file`);
    if (st.size > MAX_CA_BYTES) throw new UsageError(`CA file ${shown} is larger than 1 MiB (${st.size} bytes); give a PEM file with the CA certificate(s)`);
    const buf = Buffer.alloc(st.size);
    let read = 0;
    while (read < st.size) {
      const n = fs.readSync(fd, buf, read, st.size - read, read);
      if (n === 0) break;
      read += n;
    }
    pem = buf.subarray(0, read).toString('utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read CA file ${shown} (${err.code || err.message}); give a PEM file with the CA certificate(s)`);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`CA file ${shown} has no PEM certificate (-----BEGIN CERTIFICATE-----); give a PEM file`);
  }
  try {
    // OpenSSL skips a PEM block it cannot parse without a word: parse each one here, so that a
    // damaged file is an error and not a silent fallback to the default roots.
    for (const block of pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) || []) {
      new crypto.X509Certificate(block); // eslint-disable-line no-new
    }
    const extra = [];
    if (process.env.NODE_EXTRA_CA_CERTS) {
      try {
        extra.push(...notBundled(fs.readFileSync(process.env.NODE_EXTRA_CA_CERTS, 'utf8')));
      } catch {
        // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS; do the same (silently).
      }
    }
    const context = tls.createSecureContext();
    if (typeof context.context?.addCACert !== 'function') {
      return tls.createSecureContext({ ca: [...tls.rootCertificates, ...extra, pem] });
    }
    context.context.addCACert([...extra, pem].join('\n'));
    return context;
  } catch (err) {
    throw new UsageError(`CA file ${shown} holds no usable certificate (${safeLine(err.message, [], 80)})`);
  }
}

/**
 * The certificates of a PEM bundle that are not among Node's bundled roots. NODE_EXTRA_CA_CERTS
 * often names the system's whole bundle (about 140 certificates, most of them Node's own roots):
 * parsing them all again costs a check process ~15 ms, the few that differ ~1 ms.
 */
function notBundled(pem) {
  const bare = (block) => block.replace(/\s+/g, '');
  const bundled = new Set(tls.rootCertificates.map(bare));
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) || []).filter((b) => !bundled.has(bare(b)));
}

/**
 * Validates what all grants of one key share and prepares it (the CA is read once).
 * Throws UsageError for bad options.
 */
function prepare(options) {
  const started = Date.now();
  if (!options || typeof options !== 'object') throw new UsageError('options are required');
  if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new UsageError('the API key is empty or missing');
  const timeoutSeconds = numberOption(options, 'timeoutSeconds', CHECK_OPTIONS.timeout) ?? CHECK_OPTIONS.timeout.default;
  const access = enumOption(options, 'access', CHECK_OPTIONS.access);
  const read = checkCollections(options.readCollections, 'readCollections', options);
  const write = checkCollections(options.writeCollections, 'writeCollections', options);
  if (access === 'read-only' && write.length > 0) {
    throw new UsageError('access read-only and write collections contradict each other; declare the collections with access collections');
  }
  if (access === 'collections' && read.length + write.length === 0) {
    throw new UsageError('access collections needs --read-collections or --write-collections');
  }
  for (const name of ['backoffBaseMs', 'backoffCapMs']) {
    const v = options[name];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) throw new UsageError(`${name} must be a number >= 0; got ${shownValue(v, options)}`);
  }
  const shared = {
    started,
    key: options.apiKey,
    secrets: [options.apiKey],
    header: enumOption(options, 'header', CHECK_OPTIONS.header),
    timeoutMs: timeoutSeconds * 1000,
    deadlineMs: (numberOption(options, 'deadlineSeconds', CHECK_OPTIONS.deadline) ?? defaultDeadlineSeconds(timeoutSeconds)) * 1000,
    retries: numberOption(options, 'retries', CHECK_OPTIONS.retries, true) ?? CHECK_OPTIONS.retries.default,
    requireAuth: options.requireAuth === undefined ? true : Boolean(options.requireAuth),
    access,
    read,
    write,
    allowExcessAccess: Boolean(options.allowExcessAccess),
    minValidityDays: numberOption(options, 'minValidityDays', CHECK_OPTIONS.minValidityDays, true) ?? CHECK_OPTIONS.minValidityDays.default,
    warnValidityDays: numberOption(options, 'warnValidityDays', CHECK_OPTIONS.warnValidityDays, true) ?? CHECK_OPTIONS.warnValidityDays.default,
    deployCommand: enumOption(options, 'deployCommand', CHECK_OPTIONS.deployCommand),
    backoffBaseMs: options.backoffBaseMs ?? BACKOFF.baseMs,
    backoffCapMs: options.backoffCapMs ?? BACKOFF.capMs,
    secureContext: options.caFile === undefined ? undefined : loadCa(options.caFile),
    keyInfo: keyInfo(options.apiKey),
    now: options.now instanceof Date ? options.now : new Date(),
  };
  shared.prepareMs = Date.now() - started;
  return shared;
}

// ---------------------------------------------------------------------------------------------
// Steps

function isAuthFailure(res) {
  return res && (res.status === 401 || res.status === 403);
}

/** The key step's failure for a 401/403: rejected, or expired (with the date when the key is a JWT). */
function rejected(ctx, report, res) {
  const expired = res.status === 403 && /ExpiredSignature/.test(res.body);
  report.keyStatus = expired ? 'expired' : 'rejected';
  // Qdrant's "no key at all": the key was sent, so something on the way took it out.
  if (res.status === 401 && String(res.body || '').trim() === NO_KEY_TEXT) {
    return failure('key-not-received', ` (${answer(res, ctx.secrets)}, although it was sent in the ${ctx.header === 'bearer' ? 'Authorization' : 'api-key'} header)`);
  }
  if (!expired) return failure('key-rejected', ` (${answer(res, ctx.secrets)})`);
  const when = ctx.keyInfo.expiresAt ? ` on ${ctx.keyInfo.expiresAt.toISOString().slice(0, 10)}` : '';
  return failure('key-expired', `${when} (${answer(res, ctx.secrets)}); create a new key and rotate to it`);
}

/**
 * Root without the key: Qdrant answers it with its version JSON (GET / is on its auth whitelist),
 * which proves the address before anything keyed goes there. An endpoint that asks for a key even
 * here as an edge in front of Qdrant does (isEdge) gets `edge`: root is asked again, with the key
 * (stepRootKeyed), and proves the address then. Anything else (a web page, a 404, a redirect,
 * another server's 401/403) fails the step and the key is never sent.
 */
async function stepRoot(ctx, report) {
  const o = await attempt(ctx, 'GET', '/', { withKey: false });
  const common = commonFailure(ctx, o);
  if (common) return { o, failure: common };
  if (!isAuthFailure(o.res)) return rootAnswer(ctx, report, o);
  if (isEdge(ctx.target.hostname, o.res)) return { o, edge: true };
  // Many servers that are not Qdrant answer 401/403 on `/` (object stores, API gateways, SSO).
  return { o, failure: failure('not-qdrant', `: GET / without a key answered ${answer(o.res, ctx.secrets)}, which is neither Qdrant's version JSON ` +
    'nor the Qdrant Cloud edge\'s refusal; the key was not sent there: check the URL') };
}

/** What the Qdrant Cloud edge says in its JSON refusal, `{"error":"forbidden"}` (2023: "key doesn't exist"). */
const EDGE_ERRORS = new Set(['forbidden', 'key doesn\'t exist']);

/**
 * Whether a 401/403 to a keyless request may come from an edge in front of Qdrant, so that the
 * request may be repeated with the key: a Qdrant Cloud host or Qdrant's own text (isQdrantRefusal;
 * before 1.4.1, `/` was not on Qdrant's whitelist), or the Cloud edge's JSON refusal with one of
 * its own texts. Any other `{"error":…}` (`"Unauthorized"`, say) is common to API gateways: no key.
 */
function isEdge(hostname, res) {
  if (isQdrantRefusal(hostname, res.body)) return true;
  const body = String(res.body || '').trim();
  try {
    const json = JSON.parse(body);
    return json !== null && typeof json === 'object' && !Array.isArray(json) && Object.keys(json).length === 1 &&
      typeof json.error === 'string' && EDGE_ERRORS.has(json.error);
  } catch {
    return false;
  }
}

/** Root with the key, after a keyless root was refused (see stepRoot). */
async function stepRootKeyed(ctx, report) {
  const o = await attempt(ctx, 'GET', '/', { withKey: true });
  const common = commonFailure(ctx, o);
  if (common) return { o, failure: common };
  return rootAnswer(ctx, report, o);
}

/** The root step's verdict on an answer to GET /: Qdrant's version JSON, or a failure. */
function rootAnswer(ctx, report, o) {
  const { res } = o;
  if (isAuthFailure(res)) {
    // Self-hosted Qdrant never checks keys on GET /; an endpoint that does is an edge in front of
    // Qdrant (as on Qdrant Cloud), and its 401/403 is about the key, not "not Qdrant".
    // A note, not a fix: an expired key's message keeps its own hint last, a rejected key gets the catalog's (withFix).
    const f = rejected(ctx, report, res);
    const note = 'from an endpoint that checks the key even on GET /, as the Qdrant Cloud edge does';
    return { o, failure: { ...f, message: f.id === 'key-expired' ? f.message.replace(/\); create /, `) ${note}; create `) : `${f.message} ${note}` } };
  }
  if (res.status !== 200) return { o, failure: unexpected(ctx, o, 'GET', '/') };
  let info;
  try {
    info = JSON.parse(res.body);
  } catch {
    info = undefined;
  }
  if (!info || typeof info.title !== 'string' || typeof info.version !== 'string') {
    const type = String(res.headers['content-type'] || 'no content-type').split(';')[0];
    return { o, failure: failure('not-qdrant', `: GET / answered 200 (${safeLine(type, ctx.secrets, 60)}) without Qdrant's title and version JSON`) };
  }
  report.qdrantVersion = safeLine(info.version, ctx.secrets, 40);
  return { o, message: `qdrant ${report.qdrantVersion}` };
}

async function stepKey(ctx, report) {
  const o = await attempt(ctx, 'GET', '/collections', { withKey: true });
  const common = commonFailure(ctx, o);
  if (common) return { o, failure: common };
  const { res } = o;
  if (isAuthFailure(res)) return { o, failure: rejected(ctx, report, res) };
  if (res.status !== 200) return { o, failure: unexpected(ctx, o, 'GET', '/collections') };
  let collections;
  try {
    collections = JSON.parse(res.body).result.collections;
  } catch {
    collections = undefined;
  }
  if (!Array.isArray(collections)) return { o, failure: failure('not-qdrant', ': GET /collections answered 200 without a collection list') };
  report.keyStatus = 'accepted';
  report.collectionCount = collections.length;
  return { o, message: `key accepted (${collections.length} collection${collections.length === 1 ? '' : 's'} visible)` };
}

async function stepEnforced(ctx, report) {
  const o = await attempt(ctx, 'GET', '/collections', { withKey: false });
  const common = commonFailure(ctx, o);
  if (common) return { o, failure: common };
  const { res } = o;
  if (isAuthFailure(res)) {
    report.enforcement = 'enforced';
    return { o, message: `keys enforced (${res.status} without a key)` };
  }
  if (res.status !== 200) return { o, failure: unexpected(ctx, o, 'GET', '/collections') };
  report.enforcement = 'open';
  if (!ctx.requireAuth) {
    report.notes.push('cluster is open (allowed)');
    return { o, message: 'cluster is open (allowed)' };
  }
  return {
    o,
    failure: failure('cluster-open', ': GET /collections without a key answered 200, so anyone can read and write it — enable an API key on the cluster ' +
      '(or, if that is intended, pass --allow-open; in a stack: healthCheck.requireAuth false)'),
  };
}

async function stepAccess(ctx, report) {
  const probes = planProbes(ctx.access, ctx.read, ctx.write);
  if (probes.length === 0) return undefined;
  const outcomes = await Promise.all(probes.map((p) => attempt(ctx, p.method, p.path, { withKey: true, body: p.body })));
  // Every probe went out at once: the step's attempts are all of theirs; a failure's status is its probe's.
  const attempts = outcomes.reduce((sum, o) => sum + o.attempts, 0);
  const excess = [];
  for (let i = 0; i < probes.length; i++) {
    const o = outcomes[i];
    const common = commonFailure(ctx, o);
    if (common) return { o: { ...o, attempts }, failure: common };
    const verdict = probes[i].judge(o, ctx);
    if (verdict.failure) return { o: { ...o, attempts }, failure: verdict.failure };
    if (verdict.excess) excess.push(verdict.excess);
  }
  report.access = {
    declared: ctx.access,
    readCollections: reportedNames(ctx.read, ctx.secrets),
    writeCollections: reportedNames(ctx.write, ctx.secrets),
    excess: excess.map((e) => e.message),
  };
  // Excess is settled once the enforced step has run (settleExcess): on an open cluster it is not the key's.
  return { o: { attempts }, message: accessWords(ctx.access, ctx.read, ctx.write, ctx.keyInfo, ctx.secrets), excess };
}

/**
 * More access than declared: the first excess fails the step, or every excess is a warning with
 * allowExcessAccess. On an open cluster every request may manage, whatever the key, so no key
 * could have less: no failure that would ask for a key with less access; when the open cluster is
 * allowed (requireAuth false), one warning says the declared access is not enforced.
 */
function settleExcess(ctx, report, r) {
  if (!r || r.failure || !r.excess || r.excess.length === 0) return r;
  if (report.enforcement === 'open') {
    // Not allowed to be open: the enforced step fails, and says what to do.
    if (!ctx.requireAuth) report.warnings.push(`cluster is open: any request may manage it, whatever the key, so the declared access (${ctx.access}) is not enforced`);
    return r;
  }
  if (!ctx.allowExcessAccess) return { ...r, failure: r.excess[0] };
  for (const e of r.excess) report.warnings.push(`${e.message} (allowed: allowExcessAccess)`);
  return r;
}

function stepExpiry(ctx, report) {
  const { expiresAt } = ctx.keyInfo;
  if (!expiresAt) return undefined;
  const days = daysUntil(expiresAt, ctx.now);
  const described = describeExpiry(expiresAt, ctx.now);
  if (expiresAt.getTime() <= ctx.now.getTime()) {
    // The server took the key: it still does for 30 s past `exp`, and this clock may be ahead.
    // Either way the key is done, whatever minValidityDays says.
    const when = expiresAt.toISOString().replace(/^(.{10})T(.{8}).*$/, '$1 at $2 UTC');
    return {
      o: { attempts: 0 },
      failure: failure('key-expired', ` on ${when} (by this machine's clock; Qdrant accepts a key for 30 s past its expiry); create a new key and rotate to it`),
    };
  }
  if (ctx.minValidityDays > 0 && days < ctx.minValidityDays) {
    return {
      o: { attempts: 0 },
      failure: failure('key-expires-soon', `: it ${described}, and at least ${ctx.minValidityDays} days are required ` +
        '(healthCheck.minValidityDays, --min-validity-days); create a new key, deploy it, then delete the old one (qdrant-setup.md, "Rotation")'),
    };
  }
  if (days < ctx.warnValidityDays) {
    report.warnings.push(`key ${described}: rotate it soon (qdrant-setup.md, "Rotation")`);
  }
  return { o: { attempts: 0 }, message: described };
}

// ---------------------------------------------------------------------------------------------
// One grant

/**
 * Checks one grant ({url, grpcUrl?, label?}) with prepared shared options. Resolves a report
 * (never containing the key); rejects only with UsageError for a bad grant.
 */
async function checkGrant(shared, grant) {
  const started = Date.now();
  const target = parseBaseUrl(grant.url, DEFAULT_REST_PORT, shared.secrets);
  const grpcTarget = grant.grpcUrl === undefined ? undefined : parseBaseUrl(grant.grpcUrl, DEFAULT_GRPC_PORT, shared.secrets);
  const label = grant.label === undefined || grant.label === '' ? target.host : safeLine(grant.label, shared.secrets, 120);
  const report = {
    ok: false,
    url: target.url,
    ...(grpcTarget ? { grpcUrl: grpcTarget.url } : {}),
    label,
    header: shared.header,
    durationMs: 0,
    expiresAt: shared.keyInfo.expiresAt ? shared.keyInfo.expiresAt.toISOString() : null,
    steps: [],
    notes: [],
    warnings: [],
  };
  if (shared.keyInfo.jwt) report.keyAccess = shared.keyInfo.access;
  const results = new Map();
  const problem = keyProblem(shared.key);
  if (problem) {
    results.set('key', { o: { attempts: 0 }, failure: problem }); // nothing is sent
  } else {
    // Each grant has its own deadline; the time spent preparing (reading the CA) counts against it.
    const deadlineAt = started + shared.deadlineMs - shared.prepareMs;
    const ctx = { ...shared, target, rest: createRestClient(target, shared.secureContext), deadlineAt, portHint: 'Qdrant REST is 6333' };
    // gRPC runs alongside; its keyed calls wait for root (below) as REST's do.
    let settleRoot;
    const restProven = new Promise((resolve) => { settleRoot = resolve; });
    const grpc = grpcTarget ? require('./grpc-check.js').checkGrpc({ ...shared, target: grpcTarget, deadlineAt, portHint: 'Qdrant gRPC is 6334', restProven }, report) : undefined;
    try {
      const timed = async (name, run) => {
        const t = Date.now();
        const r = await run(ctx, report);
        if (r) results.set(name, { ...r, durationMs: Date.now() - t });
      };
      // Root and enforced send no key, and go out together. Everything keyed waits for root to
      // prove the address is Qdrant (an edge that wants a key even on GET / costs a round trip more).
      const enforced = timed('enforced', stepEnforced);
      await timed('root', stepRoot);
      // What REST's root allows (Qdrant, or its edge) allows gRPC's keyed calls too: no later.
      settleRoot(!results.get('root').failure);
      if (results.get('root').edge) {
        // The step's attempts (and its messages) are those of root with the key; its time is both.
        const keyless = results.get('root');
        await timed('root', stepRootKeyed);
        results.set('root', { ...results.get('root'), durationMs: keyless.durationMs + results.get('root').durationMs });
      }
      if (!results.get('root').failure) await Promise.all([timed('key', stepKey), timed('access', stepAccess)]);
      await enforced;
      if (results.has('access')) results.set('access', settleExcess(ctx, report, results.get('access')));
      if (grpc) {
        const t = Date.now();
        const r = await grpc;
        // Skipped: root failed, which is the check's verdict; nothing keyed went to gRPC.
        if (r.skipped) delete report.grpcVersion;
        else {
          // gRPC ran alongside REST: only now is it known whether REST accepted the key.
          const f = r.failure && r.failure.id === 'grpc-rejected' && report.keyStatus === 'accepted'
            ? { ...r.failure, message: `${r.failure.message} although REST accepted it` } : r.failure;
          results.set('grpc', { ...r, failure: f, durationMs: r.durationMs ?? Date.now() - t });
          if (r.note) report.notes.push(r.note);
        }
      }
    } finally {
      settleRoot(false); // (no effect once settled) a throw above must not leave gRPC waiting
      ctx.rest.destroy();
    }
    if ([...results.values()].every((r) => !r.failure)) {
      const r = stepExpiry(ctx, report);
      if (r) results.set('expiry', { ...r, durationMs: 0 });
    }
  }
  for (const name of STEP_ORDER) {
    const found = results.get(name);
    if (!found) continue;
    // Here a failure becomes a step's message and the report's reason: every one ends with a fix.
    const r = found.failure ? { ...found, failure: withFix(found.failure) } : found;
    const step = { name, ok: !r.failure, message: r.failure ? r.failure.message : r.message, durationMs: r.durationMs ?? 0, attempts: r.o ? r.o.attempts : 0 };
    if (r.o && r.o.res) step.status = r.o.res.status;
    report.steps.push(step);
    if (r.failure && report.failedStep === undefined) {
      report.failedStep = name;
      report.reason = r.failure.message;
      report.failureId = r.failure.id;
    }
  }
  report.ok = report.failedStep === undefined;
  report.durationMs = Date.now() - started;
  // Belt and braces: no string in the report may contain the key, whatever produced it.
  return redactDeep(report, shared.secrets);
}

/**
 * Runs the check of one grant. Resolves a report (also when the check fails); rejects only with
 * UsageError for invalid options. The key never appears in the report.
 */
async function checkClusterAccess(options) {
  const secrets = [options && options.apiKey];
  try {
    const shared = prepare(options);
    return await checkGrant(shared, { url: options.url, grpcUrl: options.grpcUrl, label: options.label });
  } catch (err) {
    throw withoutSecrets(err, secrets);
  }
}

module.exports = {
  checkClusterAccess,
  checkGrant,
  prepare,
  formatReport,
  formatWarnings,
  parseBaseUrl,
  UsageError,
  clip,
  withoutSecrets,
};
