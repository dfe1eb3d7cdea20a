/**
 * The access probes: what a key may do, learned without touching data. Qdrant checks access
 * before it does any work, so an empty alias batch and an empty delete answer the question and
 * change nothing (measured on a real server; see the README, "What the deploy proves"):
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
import { randomBytes } from 'node:crypto';
import { Answer, Wording, answer, times } from './answers';
import { failure, Failure } from './failures';
import type { KeyInfo } from './jwt';
import type { DeclaredAccess } from './options';
import type { Outcome } from './retry';
import { holdsPart, redact } from '../runtime/secrets';
import { quote } from '../runtime/text';

/** How many undeclared collections a message names; the rest are counted. */
const MAX_NAMES = 5;
/** What is shown in place of a collection name that holds part of the key (holdsPart). */
const NAME_HIDDEN = '(a name not shown: it holds part of the API key)';

/** What a probe is judged with: the words of its failures, and what the key says about itself. */
type ProbeContext = Wording & { readonly keyInfo: KeyInfo };

/** One probe: a request, and what its answer means. */
export interface Probe {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: unknown;
  /** The collection the path names, if any. */
  readonly collection?: string;
  /** Its verdict on an answer: a failure, access in excess of the declared (a warning when allowed), or neither. */
  judge(o: Outcome<Answer>, ctx: ProbeContext): { failure?: Failure; excess?: Failure };
}

const aliases = () => ({ method: 'POST' as const, path: '/collections/aliases', body: { actions: [] } });
const exists = (name: string) => ({ method: 'GET' as const, path: `/collections/${encodeURIComponent(name)}/exists`, collection: name });
const deletes = (name: string) => ({ method: 'POST' as const, path: `/collections/${encodeURIComponent(name)}/points/delete`, body: { points: [] }, collection: name });

function existsAnswer(res: Answer): boolean | undefined {
  if (res.status !== 200) return undefined;
  try {
    const value = JSON.parse(res.body).result.exists;
    return typeof value === 'boolean' ? value : undefined;
  } catch {
    return undefined;
  }
}

function mayWrite(res: Answer): boolean {
  return res.status === 400 && /Empty update request/i.test(res.body);
}

/** The names in Qdrant's collection list, or undefined for any other answer. */
function listedNames(res: Answer): string[] | undefined {
  if (res.status !== 200) return undefined;
  try {
    const list: unknown = JSON.parse(res.body).result.collections;
    return Array.isArray(list) && list.every((c) => c && typeof c.name === 'string') ? list.map((c) => c.name) : undefined;
  } catch {
    return undefined;
  }
}

/** One collection name (declared, from a server or from a token) for a message: redacted, quoted, clipped; NAME_HIDDEN when it holds part of the key. */
function shownName(name: string, secrets: readonly string[]): string {
  return holdsPart(String(name), secrets) ? NAME_HIDDEN : quote(redact(name, secrets), 40);
}

/** Collection names for a message (shownName), five at most; `mark(name)` may add words after a name, e.g. " (not created yet)". */
function shownNames(names: string[], secrets: readonly string[], mark: (name: string) => string = () => ''): string {
  const shown = names.slice(0, MAX_NAMES).map((n) => `${shownName(n, secrets)}${mark(n)}`).join(', ');
  return names.length > MAX_NAMES ? `${shown} and ${names.length - MAX_NAMES} more` : shown;
}

/** Declared collection names for the JSON report: as declared (redacted), or NAME_HIDDEN. */
export function reportedNames(names: string[], secrets: readonly string[]): string[] {
  return names.map((n) => (holdsPart(String(n), secrets) ? NAME_HIDDEN : redact(n, secrets)));
}

/** A probe's path for a message: with NAME_HIDDEN's words when the collection name in it holds part of the key. */
function shownPath(probe: { path: string; collection?: string }, secrets: readonly string[]): string {
  return probe.collection !== undefined && holdsPart(String(probe.collection), secrets)
    ? probe.path.replace(encodeURIComponent(probe.collection), '<a name not shown>') : probe.path;
}

function unexpected(probe: { method: string; path: string; collection?: string }, o: Outcome<Answer>, ctx: Wording): { failure: Failure } {
  return {
    failure: failure('unexpected-answer', ` to ${probe.method} ${shownPath(probe, ctx.secrets)}: ${answer(o.value as Answer, ctx.secrets)}${o.attempts > 1 ? ` after ${times(o.attempts)}` : ''}`,
      { serverText: true }),
  };
}

/** A declared collection that does not exist: it may not be created yet (a key's access may name it before). */
function missing(name: string, ctx: Wording): { failure: Failure } {
  return { failure: failure('collection-missing', `: ${shownName(name, ctx.secrets)}; create it before the deploy, or fix or remove its name in the declared access`) };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The probes for a declared access, judged in this order (the global-read probe's verdict is the reach probe's input). */
export function planProbes(access: DeclaredAccess, read: string[] = [], write: string[] = []): Probe[] {
  const probes: Probe[] = [];
  const add = <R extends { method: 'GET' | 'POST'; path: string; collection?: string }>(name: string, request: R,
    judge: (res: Answer, ctx: ProbeContext) => { failure?: Failure; excess?: Failure } | 'unexpected') => {
    probes.push({
      name,
      ...request,
      judge: (o, ctx) => {
        const verdict = judge(o.value as Answer, ctx);
        return verdict === 'unexpected' ? unexpected(request, o, ctx) : verdict;
      },
    });
  };
  let clusterWide = false; // set by the global-read probe's judge, which runs before the reach probe's
  if (access === 'manage' || access === 'read-only' || access === 'collections') {
    add('manage', aliases(), (res, ctx) => {
      if (res.status === 200) {
        return access === 'manage' ? {} : {
          excess: failure('excess-manage', ` but is declared ${access === 'read-only' ? 'read-only' : 'for some collections'} ` +
          `(${answer(res, ctx.secrets)} to the empty alias batch); create a key with only that access`),
        };
      }
      if (res.status === 403) {
        return access === 'manage' ? { failure: failure('cannot-manage', ` (${answer(res, ctx.secrets)}); create a key with manage access`) } : {};
      }
      return 'unexpected';
    });
  }
  if (access === 'read-only' || access === 'collections') {
    add('global-read', exists(`qdrant-cluster-access-probe-${randomBytes(6).toString('hex')}`), (res) => {
      if (res.status === 200) {
        clusterWide = true;
        return access === 'read-only' ? {} : {
          excess: failure('excess-global', ` but is declared for ${plural(read.length + write.length, 'collection')} only; ` +
          'create a key limited to them'),
        };
      }
      if (res.status === 403) {
        // The server's text names the random probe name, which would puzzle: say what it is instead.
        return access === 'read-only'
          ? { failure: failure('no-global-read', ` (${res.status} to a random collection name, which tests cluster-wide read); create a cluster-wide read-only key`) } : {};
      }
      return 'unexpected';
    });
  }
  for (const name of read) {
    add(`read ${name}`, exists(name), (res, ctx) => {
      const found = existsAnswer(res);
      if (found === true) return {};
      if (found === false) return missing(name, ctx);
      if (res.status === 403) return { failure: failure('collection-no-access', ` ${shownName(name, ctx.secrets)} (${answer(res, ctx.secrets)})`) };
      return 'unexpected';
    });
    if (access !== 'collections') continue;
    add(`read-only ${name}`, deletes(name), (res, ctx) => {
      if (mayWrite(res)) return { excess: failure('excess-write', ` ${shownName(name, ctx.secrets)}, which is declared read-only; create a key with read access to it`) };
      return res.status === 403 || res.status === 404 ? {} : 'unexpected';
    });
  }
  for (const name of write) {
    if (access === 'manage') {
      add(`write ${name}`, exists(name), (res, ctx) => {
        const found = existsAnswer(res);
        if (found === true) return {};
        return found === false ? missing(name, ctx) : 'unexpected';
      });
      continue;
    }
    add(`write ${name}`, deletes(name), (res, ctx) => {
      if (mayWrite(res)) return {};
      if (res.status === 404) return missing(name, ctx);
      if (res.status !== 403) return 'unexpected';
      return /Access to collection/i.test(res.body) && !/Write access/i.test(res.body)
        ? { failure: failure('collection-no-access', ` ${shownName(name, ctx.secrets)} (${answer(res, ctx.secrets)})`) }
        : { failure: failure('collection-no-write', ` ${shownName(name, ctx.secrets)} (${answer(res, ctx.secrets)}); create a key with read-write access to it`) };
    });
  }
  if (access === 'collections') {
    const declared = new Set([...read, ...write]);
    add('reach', { method: 'GET' as const, path: '/collections' }, (res, ctx) => {
      const listed = listedNames(res);
      if (listed === undefined) return 'unexpected';
      // A cluster-wide key reaches every collection: excess-global says so, once.
      if (clusterWide) return {};
      const named = ctx.keyInfo.collections || [];
      const extra = [...new Set([...listed, ...named])].filter((n) => !declared.has(n)).sort();
      if (extra.length === 0) return {};
      // Names only the token gives do not exist (yet): the server lists every collection the key reaches.
      const existing = new Set(listed);
      const notCreated = extra.filter((n) => !existing.has(n));
      const names = shownNames(extra, ctx.secrets, (n) => (existing.has(n) ? '' : ' (not created yet)'));
      let fix;
      if (notCreated.length === 0) {fix = 'create a key limited to the declared collections, or declare them too';} else if (notCreated.length === extra.length) {
        const it = extra.length === 1 ? 'it' : 'them';
        fix = `create ${it} before the deploy and declare ${it} too, or use a key without ${it}, ` +
          'or allow excess access (healthCheck.allowExcessAccess, --allow-excess-access)';
      } else {
        fix = 'create a key limited to the declared collections, or declare them too (and create those not created yet before the deploy)';
      }
      return { excess: failure('excess-collections', `: ${names}; ${fix}`) };
    });
  }
  return probes;
}

/**
 * The words for a passing access step, e.g. "read-only as declared". A JWT with points-only access
 * (`prw`) to a declared write collection passes (the write probe is a points write), but cannot
 * create an index or take a snapshot there: the words name those collections, e.g.
 * "access to 2 collections as declared (points only: "orders")".
 */
export function accessWords(access: DeclaredAccess, read: string[], write: string[], keyInfo: KeyInfo, secrets: readonly string[]): string {
  const collections = read.length + write.length;
  const byName = keyInfo.collectionAccess || {};
  const pointsOnly = access === 'manage' ? [] : write.filter((n) => Object.prototype.hasOwnProperty.call(byName, n) && byName[n] === 'prw');
  const note = pointsOnly.length > 0 ? ` (points only: ${shownNames(pointsOnly, secrets)})` : '';
  switch (access) {
    case 'manage': return 'manage access as declared';
    case 'read-only': return 'read-only as declared';
    case 'collections': return `access to ${plural(collections, 'collection')} as declared${note}`;
    default: return collections > 0 ? `access to ${plural(collections, 'collection')} as declared${note}` : '';
  }
}
