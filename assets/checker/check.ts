/**
 * The check of one grant: root and enforced (keyless) first, nothing keyed until the address proved Qdrant's; then key and
 * the access probes as streams of one HTTP/2 connection, gRPC alongside on its own: two TLS handshakes a check.
 */
import { Failure, inGuide, tableFailure, withFix } from './failures';
import { CheckOptions, Grant, parseBaseUrl, prepare, Prepared, withoutSecrets } from './options';
import { HEADER_SAFE, KEY_RULES } from './probes';
import { CheckReport, STEP_ORDER, StepName, StepResult } from './report';
import { RestClient } from './rest';
import { CheckContext, settleExcess, stepAccess, stepEnforced, stepExpiry, stepKey, stepRoot, Verdict } from './steps';
import { MAX_LABEL_SHOWN } from '../runtime/names';
import { redactDeep, safeLine } from '../runtime/secrets';
import { DEFAULT_GRPC_PORT, DEFAULT_REST_PORT } from '../runtime/url';

/** A catalog failure when the key cannot be sent as it is (the table's KEY_RULES), else undefined. Never includes the key. */
function keyProblem(key: string): Failure | undefined {
  const holds = { 'trimmed': key === key.trim(), 'header-safe': new RegExp(`^[${HEADER_SAFE}]*$`).test(key) };
  const broken = KEY_RULES.find((r) => !holds[r.rule]);
  return broken && tableFailure(broken.then);
}

/** Checks one grant with its key's prepared options: a report without the key; rejects only for a bad grant. */
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
    // Each grant has its own deadline; preparing (reading the CA) counts against it.
    const deadlineAt = started + shared.deadlineMs - shared.prepareMs;
    const ctx: CheckContext = { ...shared, target, rest: new RestClient(target, shared.secureContext), deadlineAt, portHint: 'Qdrant REST is 6333' };
    let settleRoot: (proven: boolean) => void = () => undefined;
    const restProven = new Promise<boolean>((resolve) => { settleRoot = resolve; });
    // gRPC runs alongside (loaded only when checked); its keyed calls wait for root, as REST's do.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const grpc = grpcTarget ? (require('./grpc-step') as typeof import('./grpc-step')).checkGrpc({ ...shared, target: grpcTarget, deadlineAt, portHint: 'Qdrant gRPC is 6334', restProven }, report) : undefined;
    try {
      const timed = async (name: StepName, run: (c: CheckContext, r: CheckReport) => Promise<Verdict | undefined>) => {
        const t = Date.now();
        const r = await run(ctx, report);
        if (r) results.set(name, { ...r, durationMs: Date.now() - t });
      };
      const enforced = timed('enforced', stepEnforced);
      // An edge gets root asked again with the key: the step's attempts are those, its time is both.
      await timed('root', async (c, r) => {
        const root = await stepRoot(c, r);
        // What REST's root allows (Qdrant, or its edge) allows gRPC's keyed calls too: no later.
        settleRoot(!root.failure);
        return root.edge ? stepRoot(c, r, 'root-keyed') : root;
      });
      if (!results.get('root')?.failure) await Promise.all([timed('key', stepKey), timed('access', stepAccess)]);
      await enforced;
      const access = results.get('access');
      if (access) results.set('access', settleExcess(ctx, report, access));
      if (grpc) {
        const r = await grpc;
        if (r.skipped) {delete report.grpcVersion;} else {
          const f = r.failure && r.failure.id === 'grpc-rejected' && report.keyStatus === 'accepted'
            ? { ...r.failure, message: `${r.failure.message} although REST accepted it` } : r.failure;
          results.set('grpc', { ...r, failure: f });
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

/** Checks one grant: a report (also when it fails) without the key; rejects only with a usage error. */
export function checkClusterAccess(options: CheckOptions): Promise<CheckReport> {
  return withoutSecrets([options && options.apiKey],
    () => checkGrant(prepare(options), { url: options.url, grpcUrl: options.grpcUrl, label: options.label }));
}
