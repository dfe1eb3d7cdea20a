'use strict';
/**
 * Connection sharing between the check processes of one deploy (`check --share-connections`, which
 * the constructs pass for keys from Terraform variables).
 *
 * Terraform runs one check process per key, up to ten at a time. Alone, each makes two TLS
 * connections per cluster. Sharing, the first of them to start listens on a Unix socket in a
 * private directory of the runtime copy (the leader); those that start while it runs connect to it
 * and hand it their grants, and it checks them over one REST and one gRPC connection per cluster
 * (pool.js), where each request carries its own key and a request without a key is made once for
 * all. Every process still prints its own key's lines, as they come, and exits with its own
 * verdict. There is one socket per core (up to 4; a process takes the one of its pid), so that the
 * checks still use every core.
 *
 * What crosses the socket:
 *   - never a key. A follower sends the NAME of its key's TF_VAR_ variable and the sha256 that
 *     Terraform gave it for that key (--key-sha256-env; the follower has already compared it with its
 *     own variable), with its Node version and trust settings (trustOf). The leader, a child of
 *     the same Terraform, reads the variable from its own environment and checks the key only when
 *     its sha256 is that one and the settings are its own;
 *   - the grants and the options the follower was given, and the reports back (never a key: see
 *     check.js).
 * Who can connect: the directory is made 0700, and nothing is shared unless it is a directory (not a
 * link) owned by this user that nobody else may enter. Whoever can connect is this user (or root),
 * who can read Terraform's environment, and every key in it, anyway. (The sha256 keeps a leader
 * from checking another value than the follower's; it is no secret, and no access control.)
 *
 * Sharing changes the cost, never the verdict: a follower that finds no leader becomes one, or checks
 * alone; one whose leader refuses or goes away checks what is left itself. Node built-ins only.
 */
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { CHECK_OPTIONS, defaultDeadlineSeconds } = require('../runtime/protocol.js');
const { sameSha256 } = require('../runtime/cli.js');
const { keyInfo } = require('./jwt.js');
const { summarize } = require('./report.js');

// A follower loads neither the checks nor their transports (batch.js, pool.js): only a leader, or a
// process that checks alone, needs them.
const batch = () => require('./batch.js');

/** Where the socket is made: beside the runtime's own files, so one per stack and runtime version. */
const SHARE_DIR = path.join(__dirname, '..', '.share');
/** Leaders at a time: one per core, up to 4 (each process picks one by its pid). */
const SLOTS = Math.max(1, Math.min(4, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length));
/** Unix socket paths are limited to 107 bytes on Linux (103 on macOS). */
const MAX_SOCKET_PATH = 100;
/** How long a leader waits for the request of a process that has connected. */
const REQUEST_WAIT_MS = 5000;
/** A request or a report line larger than this ends the connection. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;
const VERSION = 1;
/** Only a Terraform variable's key is shared: the leader has the same variable. */
const KEY_ENV_RE = /^TF_VAR_[A-Za-z0-9_-]+$/;
/** The options a follower sends (all validated again by the leader's prepare). */
const SENT_OPTIONS = ['header', 'caFile', 'label', 'timeoutSeconds', 'deadlineSeconds', 'retries', 'requireAuth', 'access',
  'readCollections', 'writeCollections', 'allowExcessAccess', 'minValidityDays', 'warnValidityDays', 'deployCommand'];

/**
 * The socket's path, after making its directory private; undefined when it cannot be made safely
 * here (no user ids, as on Windows; a directory someone else owns or may enter; a path too long).
 */
function socketPath(dir = SHARE_DIR) {
  if (typeof process.getuid !== 'function') return undefined;
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if (err.code !== 'EEXIST') return undefined;
  }
  let st;
  try {
    st = fs.lstatSync(dir);
  } catch {
    return undefined;
  }
  if (!st.isDirectory() || st.uid !== process.getuid() || (st.mode & 0o077) !== 0) return undefined;
  const full = path.join(dir, `checks-${process.pid % SLOTS}.sock`);
  if (Buffer.byteLength(full) <= MAX_SOCKET_PATH) return full;
  // Every process of one Terraform run has the same working directory.
  let relative;
  try {
    relative = `.${path.sep}${path.relative(process.cwd(), full)}`;
  } catch {
    return undefined; // the working directory was removed
  }
  return Buffer.byteLength(relative) <= MAX_SOCKET_PATH ? relative : undefined;
}

/** Connects to a leader: the socket, or the error's code. */
function connect(where) {
  return new Promise((resolve) => {
    const socket = net.connect(where);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve({ socket });
    });
    socket.once('error', (err) => resolve({ code: err.code || 'ERROR' }));
  });
}

/** Listens as the leader: the server, or the error's code. */
function listen(where) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err) => resolve({ code: err.code || 'ERROR' }));
    server.listen(where, () => {
      server.removeAllListeners('error');
      server.on('error', () => undefined);
      resolve({ server });
    });
  });
}

/**
 * Follower, leader, or neither: { socket } | { server } | {}. A socket file nobody listens on is
 * removed when it is older than this process (a leader killed in an earlier run); a newer one is a
 * leader that has just bound it, and is asked again a moment later.
 */
async function join(where) {
  for (let round = 0; round < 4; round++) {
    const c = await connect(where);
    if (c.socket) return c;
    if (c.code !== 'ENOENT' && c.code !== 'ECONNREFUSED') return {};
    const l = await listen(where);
    if (l.server) return l;
    if (l.code !== 'EADDRINUSE') return {};
    const again = await connect(where);
    if (again.socket) return again;
    if (again.code !== 'ECONNREFUSED') continue; // gone meanwhile: listen again
    let st;
    try {
      st = fs.lstatSync(where);
    } catch {
      continue;
    }
    if (!st.isSocket() || st.uid !== process.getuid()) return {};
    if (st.ctimeMs < performance.timeOrigin) {
      try {
        // Still that file (not one another process has just put there in its place)?
        const now = fs.lstatSync(where);
        if (now.ino === st.ino && now.ctimeMs === st.ctimeMs) fs.unlinkSync(where);
      } catch {
        // another process removed it first
      }
    } else {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  return {};
}

/**
 * Newline-delimited JSON over a socket: onMessage(value) for each line, onBad() for a line that is
 * not JSON or longer than MAX_LINE_BYTES. Nothing more is read once the socket is destroyed.
 */
function readLines(socket, onMessage, onBad) {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    buffered += chunk;
    let nl;
    while (!socket.destroyed && (nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      let value;
      try {
        value = JSON.parse(line);
      } catch {
        onBad();
        return;
      }
      onMessage(value);
    }
    if (Buffer.byteLength(buffered) > MAX_LINE_BYTES) onBad();
  });
}

function send(socket, value) {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(value)}\n`);
}

/**
 * What decides a check's TLS verdicts besides its options: Node's version and its trust settings.
 * A leader serves only a follower with the same (two Terraform runs of one stack, in two
 * workspaces say, may meet on one socket).
 */
function trustOf(env) {
  return [process.version, ...['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'SSL_CERT_FILE', 'SSL_CERT_DIR'].map((name) => env[name] ?? '')].join('\n');
}

/** Whether `expected` (hex) is the sha256 of `value`, a string (a variable that is not set is not). */
function hasSha256(value, expected) {
  return typeof value === 'string' && sameSha256(value, expected);
}

/**
 * The leader's side of one follower: reads its request, checks its grants with the leader's pool,
 * sends a report per grant as it is done, then `{"done":true}`. A request it cannot serve gets
 * `{"refused":true}` (the follower then checks alone; the reason is the follower's to find).
 */
function serve(socket, pool, env) {
  let started = false;
  // What is sent last is flushed, then the connection ends without waiting for the follower.
  const end = (message) => {
    if (!socket.destroyed) socket.end(`${JSON.stringify(message)}\n`, () => socket.destroy());
  };
  const refuse = () => end({ refused: true });
  socket.on('error', () => undefined);
  // A connection without a whole request soon (not a check process) must not keep the leader running.
  const wait = setTimeout(() => socket.destroy(), REQUEST_WAIT_MS);
  socket.on('close', () => clearTimeout(wait));
  readLines(socket, (request) => {
    if (started) return;
    started = true;
    clearTimeout(wait);
    if (!request || typeof request !== 'object' || Array.isArray(request)) {
      refuse();
      return;
    }
    const { options } = request;
    if (request.v !== VERSION || request.trust !== trustOf(env) || typeof request.keyEnv !== 'string' || !KEY_ENV_RE.test(request.keyEnv) ||
        !options || typeof options !== 'object' || Array.isArray(options) || !hasSha256(env[request.keyEnv], request.keySha256)) {
      refuse();
      return;
    }
    const chosen = {};
    for (const name of SENT_OPTIONS) if (options[name] !== undefined) chosen[name] = options[name];
    let prepared;
    try {
      prepared = batch().prepareMany({ ...chosen, apiKey: env[request.keyEnv] }, request.grants, { loadTrust: (file) => pool.loadCa(file) });
    } catch {
      refuse();
      return;
    }
    const concurrency = Number.isInteger(request.concurrency) && request.concurrency >= 1 && request.concurrency <= 64 ? request.concurrency : 8;
    batch().checkEach({ ...prepared.shared, connections: pool }, prepared.list, { concurrency, onReport: (report, i) => send(socket, { i, report }) })
      .then(() => end({ done: true }), () => refuse());
  }, () => socket.destroy());
}

/**
 * Leads: checks its own grants with the pool, and serves followers meanwhile. Once its own checks
 * are done and no follower is connected, it stops at once: Terraform starts its processes
 * together, and a process that starts later leads a group of its own. Resolves its own reports.
 */
async function lead(server, pool, { shared, list }, settings, env) {
  let open = 0;
  let idle;
  const quiet = new Promise((resolve) => { idle = resolve; });
  let timer;
  let ownDone = false;
  const maybeIdle = () => {
    clearTimeout(timer);
    if (ownDone && open === 0) timer = setTimeout(idle, 0); // after connections already accepted
  };
  server.on('connection', (socket) => {
    open += 1;
    clearTimeout(timer);
    socket.on('close', () => {
      open -= 1;
      maybeIdle();
    });
    serve(socket, pool, env);
  });
  try {
    const reports = await batch().checkEach({ ...shared, connections: pool }, list, settings);
    ownDone = true;
    maybeIdle();
    await quiet;
    return reports;
  } finally {
    // Closing the server removes the socket file; a follower that comes now becomes a leader.
    await new Promise((resolve) => server.close(() => resolve()));
    pool.close();
  }
}

/**
 * Follows: hands the grants to the leader and passes on its reports. Resolves the reports, by
 * index; the grants whose report did not come (refused, the leader went away) are left out.
 */
function follow(socket, request, count, { onReport, stallMs }) {
  const reports = new Array(count);
  return new Promise((resolve) => {
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(stall);
      socket.destroy();
      resolve(reports);
    };
    // Each grant ends within its deadline: a leader silent for longer is stuck.
    let stall = setTimeout(finish, stallMs);
    socket.on('error', finish);
    socket.on('close', finish);
    readLines(socket, (message) => {
      clearTimeout(stall);
      stall = setTimeout(finish, stallMs);
      if (!message || typeof message !== 'object' || message.done || message.refused) {
        finish();
        return;
      }
      const { i, report } = message;
      if (!Number.isInteger(i) || i < 0 || i >= count || reports[i] !== undefined || !report || typeof report !== 'object' ||
          typeof report.ok !== 'boolean' || typeof report.label !== 'string' || !Array.isArray(report.steps) || !Array.isArray(report.warnings)) {
        finish();
        return;
      }
      reports[i] = report;
      if (onReport) onReport(report, i);
    }, finish);
    send(socket, request);
  });
}

/**
 * checkMany (batch.js) for a key from the Terraform variable `keyEnv`, whose sha256 Terraform gave
 * as `keySha256`, sharing connections with the other check processes of the same deploy: the same
 * result, the same lines, the same errors. A follower does not validate what it sends: the leader
 * does, and refuses what fails, and the follower then finds the error itself, as it checks alone.
 */
async function checkManyShared(options, grants, { concurrency = 8, onReport, keyEnv, keySha256, env = process.env, dir = SHARE_DIR } = {}) {
  const settings = { concurrency, onReport };
  const where = KEY_ENV_RE.test(String(keyEnv)) && hasSha256(options.apiKey, keySha256) ? socketPath(dir) : undefined;
  const role = where === undefined ? {} : await join(where);
  if (role.server) {
    const { ConnectionPool } = require('./pool.js');
    const pool = new ConnectionPool();
    let prepared;
    try {
      prepared = batch().prepareMany(options, grants, { loadTrust: (file) => pool.loadCa(file) });
    } catch (err) {
      role.server.close();
      throw err;
    }
    return summarize(await lead(role.server, pool, prepared, settings, env), prepared.shared.keyInfo.expiresAt);
  }
  let reports = [];
  if (role.socket) {
    const sent = {};
    for (const name of SENT_OPTIONS) if (options[name] !== undefined) sent[name] = options[name];
    // The leader may run elsewhere in the tree: a relative CA path is made absolute here.
    if (typeof sent.caFile === 'string') sent.caFile = path.resolve(sent.caFile);
    const count = Array.isArray(grants) ? grants.length : 0;
    const timeout = typeof options.timeoutSeconds === 'number' ? options.timeoutSeconds : CHECK_OPTIONS.timeout.default;
    const deadline = typeof options.deadlineSeconds === 'number' ? options.deadlineSeconds : defaultDeadlineSeconds(timeout);
    // Each grant ends within its deadline: a leader silent for longer is stuck.
    const stallMs = deadline * 1000 + 10000;
    reports = await follow(role.socket, { v: VERSION, trust: trustOf(env), keyEnv, keySha256, options: sent, grants, concurrency }, count, { onReport, stallMs });
    if (count > 0 && Array.from({ length: count }, (_, i) => reports[i]).every((r) => r !== undefined)) {
      return summarize(reports, keyInfo(options.apiKey).expiresAt);
    }
  }
  // Alone, or what the leader did not check: as without sharing (invalid input throws here).
  const { list, shared } = batch().prepareMany(options, grants);
  const missing = list.map((_, i) => i).filter((i) => reports[i] === undefined);
  const all = Object.assign(new Array(list.length), reports);
  await batch().checkEach(shared, list, { ...settings, indexes: missing, reports: all });
  return summarize(all, shared.keyInfo.expiresAt);
}

module.exports = { checkManyShared, socketPath, KEY_ENV_RE, SHARE_DIR, SLOTS };
