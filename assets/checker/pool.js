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
    return this.client(`rest ${trust} ${target.url}`, () => createRestClient(target, secureContext));
  }

  /** The gRPC client of `url` for checks that trust `trust`. */
  grpc(url, secureContext, trust, timeoutMs) {
    return this.client(`grpc ${trust} ${url}`, () => openGrpc(url, { secureContext, timeoutMs }));
  }

  /**
   * What `run()` resolves, run once for all the checks of the pool: a request without a key, the
   * same for every key (http.js attempt, grpc-check.js attemptCall).
   */
  once(id, run) {
    if (!this.shared.has(id)) this.shared.set(id, run());
    return this.shared.get(id);
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
