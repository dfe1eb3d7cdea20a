'use strict';
/**
 * Connections shared by the checks of several keys in one process (share.js): per cluster address
 * and trust (the extra CA's contents), one REST client and one gRPC client, open until close().
 * The requests of different keys are streams of the same HTTP/2 connections, each with its own key
 * in its own header (sent never-indexed: see http.js and grpc.js). A connection that fails or
 * closes is made anew by the next request, as in a check of its own. Node built-ins only.
 */
const path = require('node:path');
const { loadCa } = require('./check.js');
const { createRestClient } = require('./http.js');
const { openGrpc } = require('./grpc.js');

/** How much later a check's deadline may be than that of a keyless request it waits for (see once). */
const SHARE_SLACK_MS = 1000;
/** HTTP/1.1 sockets per cluster (a server without HTTP/2): what ten checks alone would open at most between them. */
const MAX_SHARED_SOCKETS = 64;

class ConnectionPool {
  constructor() {
    this.clients = new Map();
    this.trust = new Map();
    this.shared = new Map();
  }

  /** check.js loadCa, once per file for all the checks of the pool (prepare's loadTrust). Throws UsageError as it does. */
  loadCa(caFile) {
    const file = path.resolve(String(caFile));
    if (!this.trust.has(file)) this.trust.set(file, loadCa(caFile));
    return this.trust.get(file);
  }

  /** The REST client of `target` (check.js parseBaseUrl) for checks that trust `trust` (prepare's caId). */
  rest(target, secureContext, trust) {
    return this.client(`rest ${trust} ${target.url}`, () => createRestClient(target, secureContext, MAX_SHARED_SOCKETS));
  }

  /** The gRPC client of `url` for checks that trust `trust`. */
  grpc(url, secureContext, trust, timeoutMs) {
    return this.client(`grpc ${trust} ${url}`, () => openGrpc(url, { secureContext, timeoutMs }));
  }

  /**
   * The outcome of a request without a key (http.js attempt, grpc-check.js attemptCall), the same
   * for every key: `run()` once for the checks of the pool. An outcome that `keep(outcome)` calls
   * final (an answer that no retry would change: the cluster's version, whether it wants a key) is
   * kept for the later checks. Any other (a network error, a timeout, a 5xx) is shared only while it
   * is being made, and only with checks whose deadline (`deadlineAt`) is at most SHARE_SLACK_MS
   * later than that of the check making it: a later check tries for itself, with the time it has.
   */
  once(id, deadlineAt, run, keep) {
    const entry = this.shared.get(id);
    if (entry && (entry.kept || (!entry.settled && deadlineAt - entry.deadlineAt <= SHARE_SLACK_MS))) return entry.outcome;
    const made = { deadlineAt, settled: false, kept: false };
    made.outcome = run().then((o) => {
      made.settled = true;
      made.kept = !o.deadlineHit && keep(o);
      if (!made.kept && this.shared.get(id) === made) this.shared.delete(id);
      return o;
    });
    this.shared.set(id, made);
    return made.outcome;
  }

  client(id, make) {
    if (this.closed) throw new Error('the connection pool is closed');
    let c = this.clients.get(id);
    if (!c) {
      c = make();
      this.clients.set(id, c);
    }
    return c;
  }

  close() {
    this.closed = true;
    for (const c of this.clients.values()) {
      if (typeof c.destroy === 'function') c.destroy();
      else c.close().catch(() => undefined);
    }
    this.clients.clear();
  }
}

module.exports = { ConnectionPool };
