/**
 * The REST steps and the expiry: the probe table's verdicts (judge.ts), and what only this engine
 * does around them: network failures first, root asked again behind an edge, the report's words.
 */
import { Answer, commonFailure } from './answers';
import { Failure, FailureId, tableFailure } from './failures';
import { ask, Asked, judge, Judged, planAccess, shownNames } from './judge';
import { daysUntil, describeExpiry, KeyInfo } from './jwt';
import { BaseUrl, DeclaredAccess, NAME_HIDDEN, Prepared } from './options';
import { EXPIRY, OPEN_NOT_ENFORCED, ProbeId, PROBES } from './probes';
import type { CheckReport } from './report';
import { attempt, RestClient } from './rest';
import type { Outcome } from './retry';
import { holdsPart, redact, safeLine } from '../runtime/secrets';
import { plural } from '../runtime/text';

/** A check of one cluster: what its grants share, and this cluster's address, connection and deadline. */
export interface CheckContext extends Prepared {
  readonly target: BaseUrl;
  readonly rest: RestClient;
  readonly deadlineAt: number;
  /** "Qdrant REST is 6333": the hint after a wrong port. */
  readonly portHint: string;
}

/** What a step found: a failure or a message, and its last outcome (its attempts, and the answer whose status the report shows). */
export interface Verdict {
  readonly o: { readonly attempts: number; readonly value?: Answer };
  readonly failure?: Failure;
  readonly message?: string;
  /** root: an edge in front of Qdrant wants a key even on GET /. */
  readonly edge?: boolean;
  /** access: more access than declared, settled once the enforced step has run (settleExcess). */
  readonly excess?: Failure[];
  readonly durationMs?: number;
}

/** The network's failure (the same for every step), else the table's verdict. */
function verdictOf(ctx: CheckContext & { clusterWide?: boolean }, a: Asked, o: Outcome<Answer>): Judged {
  const common = commonFailure(ctx, o);
  return common ? { kind: 'fail', failure: common } : judge(a, o, ctx);
}

/** A step of one probe: its answer and verdict; the report says when the server refused the key. */
async function run(ctx: CheckContext, report: CheckReport, id: ProbeId): Promise<{ o: Outcome<Answer>; j: Judged }> {
  const a = ask(id);
  const o = await attempt(ctx, PROBES[id].request, a.path);
  const j = verdictOf(ctx, a, o);
  report.keyStatus = (j.failure && REFUSED[j.failure.id]) || report.keyStatus;
  return { o, j };
}

/** The report's words for a key the server refused (401/403; 403 `ExpiredSignature`). */
const REFUSED: Partial<Record<FailureId, CheckReport['keyStatus']>> = { 'key-rejected': 'rejected', 'key-not-received': 'rejected', 'key-expired': 'expired' };

/**
 * Root without the key: Qdrant's version JSON (GET / needs no key) proves the address before anything keyed goes there. An
 * edge that wants a key even here gets root asked again with it (`root-keyed`); anything else fails, the key never sent.
 */
export async function stepRoot(ctx: CheckContext, report: CheckReport, id: 'root' | 'root-keyed' = 'root'): Promise<Verdict> {
  const { o, j } = await run(ctx, report, id);
  if (j.kind === 'edge') return { o, edge: true };
  if (j.failure) return { o, failure: j.failure };
  report.qdrantVersion = safeLine(JSON.parse((o.value as Answer).body).version, ctx.secrets, 40);
  return { o, message: `qdrant ${report.qdrantVersion}` };
}

export async function stepKey(ctx: CheckContext, report: CheckReport): Promise<Verdict> {
  const { o, j } = await run(ctx, report, 'key');
  if (j.failure) return { o, failure: j.failure };
  const n = (JSON.parse((o.value as Answer).body).result.collections as unknown[]).length;
  report.keyStatus = 'accepted';
  report.collectionCount = n;
  return { o, message: `key accepted (${plural(n, 'collection')} visible)` };
}

export async function stepEnforced(ctx: CheckContext, report: CheckReport): Promise<Verdict> {
  const { o, j } = await run(ctx, report, 'enforced');
  if (j.kind === 'pass') {
    report.enforcement = 'enforced';
    return { o, message: `keys enforced (${(o.value as Answer).status} without a key)` };
  }
  if (j.kind !== 'open') return { o, failure: j.failure };
  report.enforcement = 'open';
  if (ctx.requireAuth) return { o, failure: j.failure };
  report.notes.push('cluster is open (allowed)');
  return { o, message: 'cluster is open (allowed)' };
}

export async function stepAccess(ctx: CheckContext, report: CheckReport): Promise<Verdict | undefined> {
  const plan = planAccess(ctx.access, ctx.read, ctx.write);
  if (plan.length === 0) return undefined;
  const outcomes = await Promise.all(plan.map((a) => attempt(ctx, PROBES[a.id].request, a.path)));
  // All at once: the step's attempts are all of theirs; a failure's status is its probe's.
  const attempts = outcomes.reduce((sum, o) => sum + o.attempts, 0);
  const clusterWide = plan.some((a, i) => a.id === 'global-read' && outcomes[i].value?.status === 200);
  const excess = [];
  for (let i = 0; i < plan.length; i++) {
    const o = outcomes[i];
    const j = verdictOf({ ...ctx, clusterWide }, plan[i], o);
    if (j.kind === 'fail') return { o: { ...o, attempts }, failure: j.failure };
    if (j.failure) excess.push(j.failure);
  }
  report.access = {
    declared: ctx.access,
    readCollections: reportedNames(ctx.read, ctx.secrets),
    writeCollections: reportedNames(ctx.write, ctx.secrets),
    excess: excess.map((e) => e.message),
  };
  return { o: { attempts }, message: accessWords(ctx.access, ctx.read, ctx.write, ctx.keyInfo, ctx.secrets), excess };
}

/** Declared collection names for the JSON report: as declared (redacted), or NAME_HIDDEN. */
function reportedNames(names: string[], secrets: readonly string[]): string[] {
  return names.map((n) => (holdsPart(String(n), secrets) ? NAME_HIDDEN : redact(n, secrets)));
}

/**
 * The words of a passing access step, e.g. "read-only as declared". A `prw` JWT passes a write
 * probe (a points write) but cannot create an index there: "… as declared (points only: "orders")".
 */
function accessWords(access: DeclaredAccess, read: string[], write: string[], keyInfo: KeyInfo, secrets: readonly string[]): string {
  const collections = read.length + write.length;
  const byName = keyInfo.collectionAccess || {};
  const pointsOnly = access === 'manage' ? [] : write.filter((n) => Object.prototype.hasOwnProperty.call(byName, n) && byName[n] === 'prw');
  const note = pointsOnly.length > 0 ? ` (points only: ${shownNames(pointsOnly, secrets)})` : '';
  if (access === 'manage' || access === 'read-only') return `${access === 'manage' ? 'manage access' : 'read-only'} as declared`;
  return access === 'collections' || collections > 0 ? `access to ${plural(collections, 'collection')} as declared${note}` : '';
}

/**
 * More access than declared fails the step, or warns with allowExcessAccess. On an open cluster no
 * key could have less: no failure, and one warning when the open cluster is allowed.
 */
export function settleExcess(ctx: CheckContext, report: CheckReport, r: Verdict): Verdict {
  if (r.failure || !r.excess || r.excess.length === 0) return r;
  if (report.enforcement === 'open') {
    if (!ctx.requireAuth) report.warnings.push(OPEN_NOT_ENFORCED.replace('{access}', ctx.access));
    return r;
  }
  if (!ctx.allowExcessAccess) return { ...r, failure: r.excess[0] };
  for (const e of r.excess) report.warnings.push(`${e.message} (allowed: allowExcessAccess)`);
  return r;
}

export function stepExpiry(ctx: Prepared, report: CheckReport): Verdict | undefined {
  const { expiresAt } = ctx.keyInfo;
  if (!expiresAt) return undefined;
  const days = daysUntil(expiresAt, ctx.now);
  const described = describeExpiry(expiresAt, ctx.now);
  const fill = (detail: string, values: Record<string, string>) => detail.replace(/\{(\w+)\}/g, (_, name: string) => values[name]);
  if (expiresAt.getTime() <= ctx.now.getTime()) {
    // The server may still take it (30 s past `exp`), or this clock is ahead: either way the key is done.
    const expiredAt = expiresAt.toISOString().replace(/^(.{10})T(.{8}).*$/, '$1 at $2 UTC');
    return { o: { attempts: 0 }, failure: tableFailure(EXPIRY.expired, fill(EXPIRY.expired.detail, { expiredAt })) };
  }
  if (ctx.minValidityDays > 0 && days < ctx.minValidityDays) {
    const detail = fill(EXPIRY.tooSoon.detail, { expiry: described, minValidityDays: String(ctx.minValidityDays) });
    return { o: { attempts: 0 }, failure: tableFailure(EXPIRY.tooSoon, detail) };
  }
  if (days < ctx.warnValidityDays) report.warnings.push(fill(EXPIRY.warning, { expiry: described }));
  return { o: { attempts: 0 }, message: described };
}
