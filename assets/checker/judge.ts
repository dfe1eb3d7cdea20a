/** The Node engine of the probe table (probes.ts): a probe's request, and its verdict with the placeholders filled. */
import { randomBytes } from 'node:crypto';
import { Answer, answer, isQdrantRefusal, parseJson } from './answers';
import { Failure, tableFailure } from './failures';
import { BaseUrl, DeclaredAccess, NAME_HIDDEN, Prepared } from './options';
import { EDGE, Match, OTHERWISE, ProbeId, PROBES, ProbeVerdict, RANDOM_COLLECTION_PREFIX, UNDECLARED } from './probes';
import type { Outcome } from './retry';
import { holdsPart, redact, safeLine } from '../runtime/secrets';
import { plural, quote } from '../runtime/text';

/** What a verdict is judged and worded with; `clusterWide`: the global-read probe answered 200. */
export type JudgeContext = Pick<Prepared, 'secrets' | 'access' | 'read' | 'write' | 'keyInfo' | 'header'> & { readonly target: BaseUrl; readonly clusterWide?: boolean };

/** A probe as asked: its path filled, and its collection, if it has one. */
export type Asked = { readonly id: ProbeId; readonly path: string; readonly collection?: string };

/** A verdict with its failure worded (none for pass and edge); Node skips `key-step` cases (probes.ts). */
export type Judged = { readonly kind: Exclude<ProbeVerdict['kind'], 'key-step'>; readonly failure?: Failure };

export function ask(id: ProbeId, collection?: string): Asked {
  const path = PROBES[id].request.path.replace('{collection}', () => encodeURIComponent(collection as string))
    .replace('{random}', () => `${RANDOM_COLLECTION_PREFIX}${randomBytes(6).toString('hex')}`);
  return collection === undefined ? { id, path } : { id, path, collection };
}

/** The access probes of a declared access, in the order they are judged: the table's, with a collection's probes together, read collections first. */
export function planAccess(access: DeclaredAccess, read: string[], write: string[]): Asked[] {
  const ids = (Object.keys(PROBES) as ProbeId[]).filter((id) => PROBES[id].appliesTo?.includes(access));
  const first = ids.findIndex((id) => PROBES[id].perCollection);
  const per = (kind: 'read' | 'write', list: string[]) => list.flatMap((name) => ids.filter((id) => PROBES[id].perCollection === kind).map((id) => ask(id, name)));
  return ids.flatMap((id, i) => (!PROBES[id].perCollection ? [ask(id)] : i === first ? [...per('read', read), ...per('write', write)] : []));
}

/** The value at a path ("a.b") of a JSON body, or undefined. */
function at(json: unknown, path: string): unknown {
  return path.split('.').reduce((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), json);
}

/** The names of Qdrant's collection list, or undefined for anything else. */
function names(list: unknown): string[] | undefined {
  return Array.isArray(list) && list.every((c) => c && typeof c.name === 'string') ? list.map((c) => c.name) : undefined;
}

/** The Qdrant Cloud edge's JSON refusal: `{"error":"forbidden"}`, and nothing else in it. */
function edgeJson(body: string): boolean {
  const json = parseJson(body.trim());
  return json !== null && typeof json === 'object' && !Array.isArray(json) && Object.keys(json).length === 1 &&
    (EDGE.errors as readonly unknown[]).includes((json as { error?: unknown }).error);
}

/** The collections a key reaches beyond the declared ones (the reach probe), and those the server lists. */
function undeclared(json: unknown, ctx: JudgeContext): { extra: string[]; listed: Set<string> } {
  const listed = names(at(json, 'result.collections')) ?? [];
  const declared = new Set([...ctx.read, ...ctx.write]);
  return { extra: [...new Set([...listed, ...(ctx.keyInfo.collections || [])])].filter((n) => !declared.has(n)).sort(), listed: new Set(listed) };
}

function matches(m: Match, res: Answer, json: unknown, ctx: JudgeContext): boolean {
  const body = String(res.body || '');
  const anyCase = (text: string) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i').test(body);
  return (!m.status || m.status.includes(res.status)) &&
    (!m.text || m.text.includes(body.trim())) &&
    (m.has === undefined || body.includes(m.has)) &&
    (m.hasIgnoringCase === undefined || anyCase(m.hasIgnoringCase)) &&
    (!m.jsonStrings || m.jsonStrings.every((p) => typeof at(json, p) === 'string')) &&
    (m.jsonList === undefined || Array.isArray(at(json, m.jsonList))) &&
    (m.jsonNames === undefined || names(at(json, m.jsonNames)) !== undefined) &&
    (!m.jsonEquals || at(json, m.jsonEquals[0]) === m.jsonEquals[1]) &&
    (m.rule !== 'edge-refusal' || isQdrantRefusal(ctx.target.hostname, body) || edgeJson(body)) &&
    (m.rule !== 'only-declared-collections' || ctx.clusterWide === true || undeclared(json, ctx).extra.length === 0);
}

/** The probe's verdict on an answer (o.value): the first case that matches, or `otherwise`. */
export function judge(a: Asked, o: Outcome<Answer>, ctx: JudgeContext): Judged {
  const res = o.value as Answer;
  const json = parseJson(res.body);
  let v: ProbeVerdict = OTHERWISE;
  for (const c of PROBES[a.id].cases) {
    const then = ('kind' in c.then ? c.then : c.then[ctx.access]) as ProbeVerdict;
    if (then.kind !== 'key-step' && matches(c.when, res, json, ctx)) {
      v = then;
      break;
    }
  }
  if (!('failure' in v)) return { kind: v.kind as 'pass' | 'edge' };
  const detail = v.detail.replace(/\{(\w+)\}/g, (_, name: string) => placeholder(name, a, o, json, ctx));
  return { kind: v.kind, failure: tableFailure(v, detail) };
}

/** One placeholder's value (probes.ts); a name that holds part of the key is not shown. */
function placeholder(name: string, a: Asked, o: Outcome<Answer>, json: unknown, ctx: JudgeContext): string {
  const res = o.value as Answer;
  switch (name) {
    case 'answer': return answer(res, ctx.secrets);
    case 'status': return String(res.status);
    case 'method': return PROBES[a.id].request.method;
    case 'path': return a.collection !== undefined && holdsPart(a.collection, ctx.secrets) ? a.path.replace(encodeURIComponent(a.collection), '<a name not shown>') : a.path;
    case 'contentType': return safeLine(String(res.headers['content-type'] || 'no content-type').split(';')[0], ctx.secrets, 60);
    case 'afterAttempts': return o.attempts > 1 ? ` after ${plural(o.attempts, 'attempt')}` : '';
    case 'collection': return shownNames([a.collection as string], ctx.secrets);
    case 'declaredCount': return plural(ctx.read.length + ctx.write.length, 'collection');
    case 'header': return ctx.header === 'bearer' ? 'Authorization' : 'api-key';
    case 'keyExpiry': return ctx.keyInfo.expiresAt ? ` on ${ctx.keyInfo.expiresAt.toISOString().slice(0, 10)}` : '';
    case 'undeclared': {
      const { extra, listed } = undeclared(json, ctx);
      return shownNames(extra, ctx.secrets, (n) => (listed.has(n) ? '' : UNDECLARED.notCreated));
    }
    case 'undeclaredFix': {
      const { extra, listed } = undeclared(json, ctx);
      const notCreated = extra.filter((n) => !listed.has(n)).length;
      const fix = notCreated === 0 ? UNDECLARED.fixes.listed : notCreated === extra.length ? UNDECLARED.fixes.notCreated : UNDECLARED.fixes.some;
      return fix.replace(/\{it\}/g, extra.length === 1 ? 'it' : 'them');
    }
    default: throw new Error(`unknown placeholder {${name}}`);
  }
}

/** Collection names for a message: quoted, clipped, or NAME_HIDDEN; UNDECLARED.max at most; `mark(name)` adds words after one. */
export function shownNames(list: string[], secrets: readonly string[], mark: (name: string) => string = () => ''): string {
  const shown = list.slice(0, UNDECLARED.max).map((n) => `${holdsPart(String(n), secrets) ? NAME_HIDDEN : quote(redact(n, secrets), 40)}${mark(n)}`).join(', ');
  return list.length > UNDECLARED.max ? `${shown} and ${list.length - UNDECLARED.max} more` : shown;
}
