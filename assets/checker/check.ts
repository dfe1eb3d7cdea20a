/**
 * Qdrant cluster access check: proves that one API key works on one Qdrant cluster, and has the
 * access its apps need (the steps: steps.ts, grpc-step.ts). Node built-ins only.
 *
 * Wire cost: root and enforced (neither sends the key) go first; nothing keyed is sent until the
 * address has proven to be Qdrant (behind an edge that wants a key on GET /: until root with the
 * key has); then key and the access probes go out together, as streams of one HTTP/2 connection
 * (rest.ts), while gRPC runs alongside on its own connection: two TLS handshakes a check.
 */
import { Failure, inGuide, tableFailure, withFix } from './failures';
import { CheckOptions, Grant, parseBaseUrl, prepare, Prepared, withoutSecrets } from './options';
import { HEADER_SAFE, KEY_RULES } from './probes';
import type { CheckReport, StepName, StepResult } from './report';
import { RestClient } from './rest';
import { CheckContext, settleExcess, stepAccess, stepEnforced, stepExpiry, stepKey, stepRoot, Verdict } from './steps';
import { MAX_LABEL_SHOWN } from '../runtime/names';
import { redactDeep, safeLine } from '../runtime/secrets';
import { DEFAULT_GRPC_PORT, DEFAULT_REST_PORT } from '../runtime/url';

const STEP_ORDER: StepName[] = ['root', 'key', 'enforced', 'access', 'grpc', 'expiry'];

/** A catalog failure when the key cannot be sent as it is (the table's KEY_RULES), else undefined. Never includes the key. */
function keyProblem(key: string): Failure | undefined {
  const holds = { 'trimmed': key === key.trim(), 'header-safe': new RegExp(`^[${HEADER_SAFE}]*$`).test(key) };
  const broken = KEY_RULES.find((r) => !holds[r.rule]);
  return broken && tableFailure(broken.then);
}

/**
 * Checks one grant with the prepared options of its key. Resolves a report (never containing the
 * key); rejects only with a usage error for a bad grant.
 */
export async function checkGrant(shared: Prepared, grant: Grant): Promise<CheckReport> {
  const started = Date.now();
  const target = parseBaseUrl(grant.url, DEFAULT_REST_PORT, shared.secrets);
  const grpcTarget = grant.grpcUrl === undefined ? undefined : parseBaseUrl(grant.grpcUrl, DEFAULT_GRPC_PORT, shared.secrets);
  const label = grant.label === undefined || grant.label === '' ? target.host : safeLine(grant.label, shared.secrets, MAX_LABEL_SHOWN);
  const report: CheckReport = {
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
  const results = new Map<StepName, Verdict>();
  const problem = keyProblem(shared.key);
  if (problem) {
    results.set('key', { o: { attempts: 0 }, failure: problem }); // nothing is sent
  } else {
    // Each grant has its own deadline; the time spent preparing (reading the CA) counts against it.
    const deadlineAt = started + shared.deadlineMs - shared.prepareMs;
    const ctx: CheckContext = { ...shared, target, rest: new RestClient(target, shared.secureContext), deadlineAt, portHint: 'Qdrant REST is 6333' };
    // gRPC runs alongside; its keyed calls wait for root (below) as REST's do.
    let settleRoot: (proven: boolean) => void = () => undefined;
    const restProven = new Promise<boolean>((resolve) => { settleRoot = resolve; });
    // Loaded only when gRPC is checked.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const grpc = grpcTarget ? (require('./grpc-step') as typeof import('./grpc-step')).checkGrpc({ ...shared, target: grpcTarget, deadlineAt, portHint: 'Qdrant gRPC is 6334', restProven }, report) : undefined;
    try {
      const timed = async (name: StepName, run: (c: CheckContext, r: CheckReport) => Promise<Verdict | undefined>) => {
        const t = Date.now();
        const r = await run(ctx, report);
        if (r) results.set(name, { ...r, durationMs: Date.now() - t });
      };
      // Root and enforced send no key, and go out together. Everything keyed waits for root to
      // prove the address is Qdrant (an edge that wants a key even on GET / costs a round trip more).
      const enforced = timed('enforced', stepEnforced);
      await timed('root', stepRoot);
      let root = results.get('root') as Verdict;
      // What REST's root allows (Qdrant, or its edge) allows gRPC's keyed calls too: no later.
      settleRoot(!root.failure);
      if (root.edge) {
        // The step's attempts (and its messages) are those of root with the key; its time is both.
        await timed('root', (c, r) => stepRoot(c, r, 'root-keyed'));
        root = { ...(results.get('root') as Verdict), durationMs: (root.durationMs as number) + ((results.get('root') as Verdict).durationMs as number) };
        results.set('root', root);
      }
      if (!root.failure) await Promise.all([timed('key', stepKey), timed('access', stepAccess)]);
      await enforced;
      const access = results.get('access');
      if (access) results.set('access', settleExcess(ctx, report, access));
      if (grpc) {
        const t = Date.now();
        const r = await grpc;
        // Skipped: root failed, which is the check's verdict; nothing keyed went to gRPC.
        if (r.skipped) {delete report.grpcVersion;} else {
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
    const fixed = found.failure ? withFix(found.failure) : undefined;
    const fail = fixed && { ...fixed, message: inGuide(fixed.message, shared.guide) };
    const step: StepResult = {
      name, ok: !fail, message: fail ? fail.message : found.message as string, durationMs: found.durationMs ?? 0, attempts: found.o.attempts,
    };
    if (found.o.value) step.status = found.o.value.status;
    report.steps.push(step);
    if (fail && report.failedStep === undefined) {
      report.failedStep = name;
      report.reason = fail.message;
      report.failureId = fail.id;
    }
  }
  report.ok = report.failedStep === undefined;
  report.warnings = report.warnings.map((w) => inGuide(w, shared.guide));
  report.durationMs = Date.now() - started;
  // Belt and braces: no string in the report may contain the key, whatever produced it.
  return redactDeep(report, shared.secrets);
}

/**
 * Runs the check of one grant. Resolves a report (also when the check fails); rejects only with a
 * usage error for invalid options. The key never appears in the report.
 */
export async function checkClusterAccess(options: CheckOptions): Promise<CheckReport> {
  const secrets = [options && options.apiKey];
  try {
    return await checkGrant(prepare(options), { url: options.url, grpcUrl: options.grpcUrl, label: options.label });
  } catch (err) {
    throw withoutSecrets(err, secrets);
  }
}
