'use strict';
/**
 * Many grants of one key in one process: the clusters are checked concurrently (a bounded number
 * at a time), each over its own connections (REST, over HTTP/2 when offered, and gRPC). One report
 * per grant, in the order the grants were given; `onReport` sees each one as soon as it is done.
 * Node built-ins only.
 */
const { UsageError } = require('../runtime/cli.js');
const { quote, redact } = require('../runtime/text.js');
const { formatSummary, summarize } = require('./report.js');
const { prepare, checkGrant, parseBaseUrl, withoutSecrets } = require('./check.js');
const { DEFAULT_REST_PORT, DEFAULT_GRPC_PORT } = require('../runtime/url.js');

/**
 * Validates a list of grants ({label?, url, grpcUrl?}). Throws UsageError naming the entry; what
 * it shows of the entry is redacted of `secrets` before it is clipped.
 */
function checkGrantList(grants, secrets = []) {
  const show = (value, max) => quote(redact(value, secrets), max);
  if (!Array.isArray(grants) || grants.length === 0) throw new UsageError('the grants must be a non-empty list of {"label","url","grpcUrl"}');
  return grants.map((g, i) => {
    if (!g || typeof g !== 'object' || Array.isArray(g)) throw new UsageError(`grant ${i + 1} is not an object with "url"`);
    for (const k of Object.keys(g)) {
      if (!['label', 'url', 'grpcUrl'].includes(k)) throw new UsageError(`grant ${i + 1} has unknown field ${show(k, 40)} (expected label, url, grpcUrl)`);
    }
    for (const k of ['label', 'url', 'grpcUrl']) {
      if (g[k] !== undefined && typeof g[k] !== 'string') throw new UsageError(`grant ${i + 1}: ${k} must be a string`);
    }
    if (g.url === undefined) throw new UsageError(`grant ${i + 1} has no "url"`);
    // Every address is checked before anything is sent to any of them.
    for (const [k, port] of [['url', DEFAULT_REST_PORT], ['grpcUrl', DEFAULT_GRPC_PORT]]) {
      if (g[k] === undefined) continue;
      try {
        parseBaseUrl(g[k], port, secrets);
      } catch (err) {
        throw new UsageError(`grant ${i + 1}${g.label ? ` (${show(g.label, 60)})` : ''}: ${err.message}`);
      }
    }
    return { label: g.label, url: g.url, grpcUrl: g.grpcUrl };
  });
}

/**
 * Checks every grant with one key. Resolves { ok, expiresAt, grants: CheckReport[], failed: string[] }.
 * Rejects only with UsageError (bad options or a bad grant, before anything is sent).
 */
async function checkMany(options, grants, { concurrency = 8, onReport } = {}) {
  const secrets = [options && options.apiKey];
  let list;
  let shared;
  try {
    list = checkGrantList(grants, secrets);
    shared = prepare(options);
  } catch (err) {
    throw withoutSecrets(err, secrets);
  }
  const reports = new Array(list.length);
  let next = 0;
  async function worker() {
    while (next < list.length) {
      const i = next++;
      reports[i] = await checkGrant(shared, list[i]);
      if (onReport) onReport(reports[i], i);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, list.length) }, worker));
  return summarize(reports, shared.keyInfo.expiresAt);
}

module.exports = { checkMany, checkGrantList, formatSummary };
