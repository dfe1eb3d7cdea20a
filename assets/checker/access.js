'use strict';
/**
 * The access probes: what a key may do, learned without touching data. Qdrant checks access
 * before it does any work, so an empty alias batch and an empty delete answer the question and
 * change nothing (measured on a real server; see the README, "What the check proves"):
 *
 *   manage         POST /collections/aliases {"actions":[]}       200 = global manage, 403 = not
 *   global read    GET  /collections/<random>/exists               200 = cluster-wide, 403 = scoped
 *   read c         GET  /collections/c/exists                      200 {exists:true}, false = missing, 403 = no access
 *   write c        POST /collections/c/points/delete {"points":[]} 400 "Empty update request" = may write,
 *                                                                  403 = may not, 404 = missing
 *   reach          GET  /collections                               the collections the key may access
 *                                                                  (a scoped key sees only its own)
 *
 * Declared access (--access) and what each requires:
 *   any            nothing global; listed collections readable / writable
 *   read-only      not manage; cluster-wide read; listed collections readable
 *   manage         manage; listed collections exist
 *   collections    not manage; not cluster-wide; read list readable and NOT writable; write list
 *                  writable; no other collection: neither one the server lists for the key, nor
 *                  one a JWT's access names (which may not exist yet, so no probe could find it)
 * More access than declared fails as "excess" unless allowExcessAccess, which makes it a warning.
 * Node built-ins only.
 */
const crypto = require('node:crypto');
const { holdsPart, redact, quote } = require('../runtime/text.js');
const { failure } = require('./failures.js');
const { answer, times } = require('./http.js');

/** How many undeclared collections a message names; the rest are counted. */
const MAX_NAMES = 5;

const ALIASES = { method: 'POST', path: '/collections/aliases', body: { actions: [] } };

function existsProbe(name) {
  return { method: 'GET', path: `/collections/${encodeURIComponent(name)}/exists` };
}

function deleteProbe(name) {
  return { method: 'POST', path: `/collections/${encodeURIComponent(name)}/points/delete`, body: { points: [] } };
}

function forbidden(res) {
  return res.status === 403;
}

function existsAnswer(res) {
  if (res.status !== 200) return undefined;
  try {
    const value = JSON.parse(res.body).result.exists;
    return typeof value === 'boolean' ? value : undefined;
  } catch {
    return undefined;
  }
}

function mayWrite(res) {
  return res.status === 400 && /Empty update request/i.test(res.body);
}

/** The names in Qdrant's collection list, or undefined for any other answer. */
function listedNames(res) {
  if (res.status !== 200) return undefined;
  try {
    const list = JSON.parse(res.body).result.collections;
    return Array.isArray(list) && list.every((c) => c && typeof c.name === 'string') ? list.map((c) => c.name) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Collection names from a server or a token, for a message: redacted, then quoted and clipped;
 * five at most. A name that holds part of the key (holdsPart) is not shown at all.
 */
function shownNames(names, secrets) {
  const shown = names.slice(0, MAX_NAMES).map((n) => (holdsPart(String(n), secrets) ? '(a name not shown: it holds part of the API key)' : quote(redact(n, secrets), 40))).join(', ');
  return names.length > MAX_NAMES ? `${shown} and ${names.length - MAX_NAMES} more` : shown;
}

/**
 * The probes for a declared access. Each has `judge(o, ctx)` → { failure } | { excess } | {}, where
 * `o` is the probe's outcome with an answer ({res, attempts}). `excess` is a failure that becomes a
 * warning when excess access is allowed.
 */
function planProbes(access, read = [], write = []) {
  const probes = [];
  // Set by the global-read probe's judge, which runs before the reach probe's (judged in order).
  let clusterWide = false;
  const unexpected = (probe, o, ctx) =>
    failure('unexpected-answer', ` to ${probe.method} ${probe.path}: ${answer(o.res, ctx.secrets)}${o.attempts > 1 ? ` after ${times(o.attempts)}` : ''}`);

  if (access === 'manage' || access === 'read-only' || access === 'collections') {
    const p = { ...ALIASES, name: 'manage' };
    p.judge = (o, ctx) => {
      const { res } = o;
      if (res.status === 200) {
        return access === 'manage' ? {} : { excess: failure('excess-manage', ` but is declared ${access === 'read-only' ? 'read-only' : 'for some collections'} ` +
          `(${answer(res, ctx.secrets)} to the empty alias batch); create a key with only that access`) };
      }
      if (forbidden(res)) {
        return access === 'manage' ? { failure: failure('cannot-manage', ` (${answer(res, ctx.secrets)}); create a key with manage access`) } : {};
      }
      return { failure: unexpected(p, o, ctx) };
    };
    probes.push(p);
  }
  if (access === 'read-only' || access === 'collections') {
    const probeName = `qdrant-cluster-access-probe-${crypto.randomBytes(6).toString('hex')}`;
    const p = { ...existsProbe(probeName), name: 'global-read' };
    p.judge = (o, ctx) => {
      const { res } = o;
      if (res.status === 200) {
        clusterWide = true;
        return access === 'read-only' ? {} : { excess: failure('excess-global', ` but is declared for ${plural(read.length + write.length, 'collection')} only; ` +
          'create a key limited to them') };
      }
      if (forbidden(res)) {
        return access === 'read-only' ? { failure: failure('no-global-read', ` (${answer(res, ctx.secrets)}); create a cluster-wide read-only key`) } : {};
      }
      return { failure: unexpected(p, o, ctx) };
    };
    probes.push(p);
  }
  for (const name of read) {
    const p = { ...existsProbe(name), name: `read ${name}` };
    p.judge = (o, ctx) => {
      const { res } = o;
      const exists = existsAnswer(res);
      if (exists === true) return {};
      if (exists === false) return { failure: failure('collection-missing', `: ${name}`) };
      if (forbidden(res)) return { failure: failure('collection-no-access', ` ${name} (${answer(res, ctx.secrets)})`) };
      return { failure: unexpected(p, o, ctx) };
    };
    probes.push(p);
    if (access === 'collections') {
      const w = { ...deleteProbe(name), name: `read-only ${name}` };
      w.judge = (o, ctx) => {
        const { res } = o;
        if (mayWrite(res)) return { excess: failure('excess-write', ` ${name}, which is declared read-only; create a key with read access to it`) };
        if (forbidden(res) || res.status === 404) return {};
        return { failure: unexpected(w, o, ctx) };
      };
      probes.push(w);
    }
  }
  for (const name of write) {
    if (access === 'manage') {
      const p = { ...existsProbe(name), name: `write ${name}` };
      p.judge = (o, ctx) => {
        const { res } = o;
        const exists = existsAnswer(res);
        if (exists === true) return {};
        if (exists === false) return { failure: failure('collection-missing', `: ${name}`) };
        return { failure: unexpected(p, o, ctx) };
      };
      probes.push(p);
      continue;
    }
    const p = { ...deleteProbe(name), name: `write ${name}` };
    p.judge = (o, ctx) => {
      const { res } = o;
      if (mayWrite(res)) return {};
      if (res.status === 404) return { failure: failure('collection-missing', `: ${name}`) };
      if (forbidden(res)) {
        return /Access to collection/i.test(res.body) && !/Write access/i.test(res.body)
          ? { failure: failure('collection-no-access', ` ${name} (${answer(res, ctx.secrets)})`) }
          : { failure: failure('collection-no-write', ` ${name} (${answer(res, ctx.secrets)}); create a key with read-write access to it`) };
      }
      return { failure: unexpected(p, o, ctx) };
    };
    probes.push(p);
  }
  if (access === 'collections') {
    const declared = new Set([...read, ...write]);
    const p = { method: 'GET', path: '/collections', name: 'reach' };
    p.judge = (o, ctx) => {
      const listed = listedNames(o.res);
      if (listed === undefined) return { failure: unexpected(p, o, ctx) };
      // A cluster-wide key reaches every collection: excess-global says so, once.
      if (clusterWide) return {};
      const named = (ctx.keyInfo && ctx.keyInfo.collections) || [];
      const extra = [...new Set([...listed, ...named])].filter((n) => !declared.has(n)).sort();
      if (extra.length === 0) return {};
      return { excess: failure('excess-collections', `: ${shownNames(extra, ctx.secrets)}; create a key limited to the declared collections, ` +
        'or declare them too') };
    };
    probes.push(p);
  }
  return probes;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The words for a passing access step, e.g. "read-only as declared". */
function accessWords(access, read = [], write = []) {
  const collections = read.length + write.length;
  switch (access) {
    case 'manage': return 'manage access as declared';
    case 'read-only': return 'read-only as declared';
    case 'collections': return `access to ${plural(collections, 'collection')} as declared`;
    default: return collections > 0 ? `access to ${plural(collections, 'collection')} as declared` : '';
  }
}

module.exports = { planProbes, accessWords };
