/**
 * The REST steps of a check, and the expiry: what each sends and expects is the CLI's USAGE
 * (cli.ts), their order check.ts's. Self-hosted Qdrant never checks the key on GET / (it is on the
 * auth whitelist with /healthz, /readyz and /livez), so root passes with a wrong key: the key step
 * is what proves it. Node built-ins only.
 */
import { accessWords, planProbes, reportedNames } from './access';
import { Answer, answer, commonFailure, isQdrantRefusal, NO_KEY_TEXT, unexpected } from './answers';
import { failure, Failure } from './failures';
import { daysUntil, describeExpiry } from './jwt';
import type { BaseUrl, Prepared } from './options';
import type { CheckReport } from './report';
import { attempt, RestClient } from './rest';
import type { Outcome } from './retry';
import { safeLine } from '../runtime/secrets';

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

function isAuthFailure(res: Answer): boolean {
  return res.status === 401 || res.status === 403;
}

/** The key step's failure for a 401/403: rejected, or expired (with the date when the key is a JWT). */
function rejected(ctx: CheckContext, report: CheckReport, res: Answer): Failure {
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
export async function stepRoot(ctx: CheckContext, report: CheckReport): Promise<Verdict> {
  const o = await attempt(ctx, 'GET', '/', { withKey: false });
  const common = commonFailure(ctx, o);
  if (common) return { o, failure: common };
  const res = o.value as Answer;
  if (!isAuthFailure(res)) return rootAnswer(ctx, report, o);
  if (isEdge(ctx.target.hostname, res)) return { o, edge: true };
  // Many servers that are not Qdrant answer 401/403 on `/` (object stores, API gateways, SSO).
  return {
    o,
    failure: failure('not-qdrant', `: GET / without a key answered ${answer(res, ctx.secrets)}, which is neither Qdrant's version JSON ` +
    'nor the Qdrant Cloud edge\'s refusal; the key was not sent there: check the URL'),
  };
}

/** What the Qdrant Cloud edge says in its JSON refusal, `{"error":"forbidden"}` (2023: "key doesn't exist"). */
const EDGE_ERRORS = new Set(['forbidden', 'key doesn\'t exist']);

/**
 * Whether a 401/403 to a keyless request may come from an edge in front of Qdrant, so that the
 * request may be repeated with the key: a Qdrant Cloud host or Qdrant's own text (isQdrantRefusal;
 * before 1.4.1, `/` was not on Qdrant's whitelist), or the Cloud edge's JSON refusal with one of
 * its own texts. Any other `{"error":…}` (`"Unauthorized"`, say) is common to API gateways: no key.
 */
function isEdge(hostname: string, res: Answer): boolean {
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
export async function stepRootKeyed(ctx: CheckContext, report: CheckReport): Promise<Verdict> {
  const o = await attempt(ctx, 'GET', '/', { withKey: true });
  const common = commonFailure(ctx, o);
  return common ? { o, failure: common } : rootAnswer(ctx, report, o);
}

/** The root step's verdict on an answer to GET /: Qdrant's version JSON, or a failure. */
function rootAnswer(ctx: CheckContext, report: CheckReport, o: Outcome<Answer>): Verdict {
  const res = o.value as Answer;
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

export async function stepKey(ctx: CheckContext, report: CheckReport): Promise<Verdict> {
  const o = await attempt(ctx, 'GET', '/collections', { withKey: true });
  const common = commonFailure(ctx, o);
  if (common) return { o, failure: common };
  const res = o.value as Answer;
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

export async function stepEnforced(ctx: CheckContext, report: CheckReport): Promise<Verdict> {
  const o = await attempt(ctx, 'GET', '/collections', { withKey: false });
  const common = commonFailure(ctx, o);
  if (common) return { o, failure: common };
  const res = o.value as Answer;
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

export async function stepAccess(ctx: CheckContext, report: CheckReport): Promise<Verdict | undefined> {
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
export function settleExcess(ctx: CheckContext, report: CheckReport, r: Verdict): Verdict {
  if (r.failure || !r.excess || r.excess.length === 0) return r;
  if (report.enforcement === 'open') {
    // Not allowed to be open: the enforced step fails, and says what to do.
    if (!ctx.requireAuth) report.warnings.push(`cluster is open: any request may manage it, whatever the key, so the declared access (${ctx.access}) is not enforced`);
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
