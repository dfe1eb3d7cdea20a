/**
 * The gRPC step: Qdrant/HealthCheck without a key proves a Qdrant gRPC endpoint (an edge's refusal is asked again with the key);
 * then Collections/List with the key (0 accepted, 16 rejected, 7 forbidden or expired) and without it (16 or 7 enforced, 0 open).
 */
import { commonFailure, isQdrantRefusal, networkFailure } from './answers';
import { failure, Failure } from './failures';
import { GrpcAnswer, GrpcClient, openGrpc } from './grpc';
import { decodeHealthCheckReply, GrpcStatus } from './grpc-messages';
import { NO_KEY_TEXT } from './probes';
import type { CheckReport } from './report';
import { credential, h2Error } from './rest';
import { Outcome, withRetries } from './retry';
import type { CheckContext, Verdict } from './steps';
import { RuntimeError, codeOf, messageOf } from '../runtime/errors';
import { safeLine } from '../runtime/secrets';
import { plural } from '../runtime/text';

const HEALTH = '/qdrant.Qdrant/HealthCheck';
const LIST = '/qdrant.Collections/List';
const RETRY_STATUSES = new Set<number>([GrpcStatus.UNAVAILABLE, GrpcStatus.RESOURCE_EXHAUSTED]);
/** The first stream over http:// was reset before any answer (see attemptCall): not retried. */
const PLAIN_TO_TLS = 'ERR_GRPC_PLAIN_RESET';
/** Errors of an answer that was read but cannot be used (too large, malformed): not retried. */
const BAD_ANSWER_CODES = new Set(['ERR_GRPC_TOO_LARGE', 'ERR_GRPC_FRAME']);

/** The check's context with the gRPC address, and whether REST's root step passed (the keyed calls wait for it, and are skipped without it). */
type GrpcContext = Omit<CheckContext, 'rest'> & { readonly restProven: Promise<boolean> };

/** One call with retries within the deadline (an HTTP/2 reset is retried as a reset connection, as on REST): its answer, or why none. */
async function ask(ctx: GrpcContext, client: GrpcClient, path: string, metadata: Record<string, string>, first = false) {
  const o = await withRetries(ctx,
    (timeoutMs) => client.call(path, { metadata, timeoutMs }).catch((err) => {
      // The first call over http:// reset before any answer: most likely a TLS port, which a new
      // attempt would not change (http:// is for loopback only, where no proxy resets streams).
      if (first && ctx.target.protocol === 'http:' && codeOf(err) === 'ERR_HTTP2_STREAM_ERROR') throw new RuntimeError(messageOf(err), PLAIN_TO_TLS);
      throw h2Error(err);
    }),
    (answer, backoffMs) => (RETRY_STATUSES.has(answer.grpcStatus) ? backoffMs : undefined));
  return { attempts: o.attempts, answer: o.value as GrpcAnswer, failure: transportFailure(ctx, o, path) };
}

/** A gRPC answer that refuses the credentials (or their absence): 16 or 7. */
function isRefusal(answer: GrpcAnswer): boolean {
  return !answer.statusFromHttp && (answer.grpcStatus === GrpcStatus.UNAUTHENTICATED || answer.grpcStatus === GrpcStatus.PERMISSION_DENIED);
}

/** "16 Invalid API key or JWT" / "HTTP 404 (text/html)". */
function describe(answer: GrpcAnswer, secrets: readonly string[]): string {
  if (answer.statusFromHttp) return `HTTP ${answer.httpStatus}${answer.contentType ? ` (${safeLine(answer.contentType.split(';')[0], secrets, 40)})` : ''}`;
  const message = safeLine(answer.grpcMessage, secrets);
  return message ? `${answer.grpcStatus} ${message}` : String(answer.grpcStatus);
}

/** The failure of an outcome that is not an answer (network, deadline, an unusable answer to `path`), or undefined. */
function transportFailure(ctx: GrpcContext, o: Outcome<GrpcAnswer>, path: string): Failure | undefined {
  if (!o.deadlineHit && o.err && BAD_ANSWER_CODES.has(codeOf(o.err))) {
    // The message is the gRPC client's own (grpc.ts), hint included.
    return failure('grpc-unexpected', ` to ${path}: ${safeLine(messageOf(o.err), ctx.secrets, 300)}`);
  }
  if (!o.deadlineHit && o.err && codeOf(o.err) === PLAIN_TO_TLS) {
    return failure('network', `: ${safeLine(messageOf(o.err), ctx.secrets, 300)} — the port may speak TLS: use https://; ${ctx.portHint}`);
  }
  return o.deadlineHit || o.err ? commonFailure(ctx, { ...o, value: undefined }) : undefined;
}

/** Runs alongside the REST steps; never rejects. `note`: for the caller to add after REST's; `skipped`: root failed, nothing keyed sent. */
export async function checkGrpc(ctx: GrpcContext, report: CheckReport): Promise<Verdict & { note?: string; skipped?: boolean }> {
  const started = Date.now();
  const done = (attempts: number, result: { failure?: Failure; message?: string; note?: string; skipped?: boolean }) =>
    ({ o: { attempts }, durationMs: Date.now() - started, ...result });
  let client: GrpcClient | undefined;
  try {
    client = openGrpc(ctx.target.url, { secureContext: ctx.secureContext, timeoutMs: ctx.timeoutMs });
    let health = await ask(ctx, client, HEALTH, {}, true);
    if (health.failure) return done(health.attempts, { failure: health.failure });
    if (isRefusal(health.answer) && !isQdrantRefusal(ctx.target.hostname, health.answer.grpcMessage)) {
      return done(health.attempts, {
        failure: failure('grpc-not-qdrant', `: ${HEALTH} without a key answered ${describe(health.answer, ctx.secrets)}, ` +
        'which is neither Qdrant\'s answer nor its refusal; the key was not sent there: check the URL and the gRPC port'),
      });
    }
    if (isRefusal(health.answer)) {
      // Qdrant answers HealthCheck whatever the key: a refusal is an edge (as on REST) or a Qdrant
      // before 1.15.1. Ask again with the key once REST's root allows keyed calls.
      if (!(await ctx.restProven)) return done(health.attempts, { skipped: true });
      health = await ask(ctx, client, HEALTH, credential(ctx));
      if (health.failure) return done(health.attempts, { failure: health.failure });
      if (isRefusal(health.answer)) {
        return done(health.attempts, { failure: failure('grpc-rejected', ` (${describe(health.answer, ctx.secrets)} from ${HEALTH}, which the endpoint checks the key on)`) });
      }
    }
    const answer = health.answer;
    let info;
    try {
      info = answer.grpcStatus === GrpcStatus.OK && answer.messages.length > 0 ? decodeHealthCheckReply(answer.messages[0]) : undefined;
    } catch { /* a reply that does not decode: not Qdrant's */ }
    if (!info || typeof info.version !== 'string' || info.version === '') {
      // An HTTP answer without gRPC's status: an HTTP port, such as REST's.
      const hint = answer.statusFromHttp ? ` — is the port right? ${ctx.portHint}` : '';
      return done(health.attempts, {
        failure: failure('grpc-not-qdrant', `: ${HEALTH} answered ${describe(answer, ctx.secrets)}${health.attempts > 1 ? ` after ${plural(health.attempts, 'attempt')}` : ''}${hint}`,
          { serverText: hint === '' }),
      });
    }
    report.grpcVersion = safeLine(info.version, ctx.secrets, 40);

    // The key goes to List only once REST's root proved the cluster's address: HealthCheck proved a Qdrant, not this cluster.
    if (!(await ctx.restProven)) return done(health.attempts, { skipped: true });
    const [withKey, withoutKey] = await Promise.all([ask(ctx, client, LIST, credential(ctx)), ask(ctx, client, LIST, {})]);
    const attempts = health.attempts + withKey.attempts + withoutKey.attempts;
    const broken = withKey.failure ?? withoutKey.failure;
    if (broken) return done(attempts, { failure: broken });
    const k = withKey.answer;
    if (k.grpcStatus === GrpcStatus.PERMISSION_DENIED && /ExpiredSignature/.test(k.grpcMessage)) {
      const when = ctx.keyInfo.expiresAt ? ` on ${ctx.keyInfo.expiresAt.toISOString().slice(0, 10)}` : '';
      return done(attempts, { failure: failure('key-expired', `${when} (gRPC ${describe(k, ctx.secrets)}); create a new key and rotate to it`) });
    }
    // Qdrant's "no key at all" although it was sent: a proxy on the way drops that metadata.
    if (k.grpcStatus === GrpcStatus.UNAUTHENTICATED && String(k.grpcMessage || '').trim() === NO_KEY_TEXT) {
      const where = ctx.header === 'bearer' ? 'authorization' : 'api-key';
      return done(attempts, { failure: failure('key-not-received', ` over gRPC (${describe(k, ctx.secrets)} from ${LIST}, although it was sent in the ${where} metadata)`) });
    }
    if (k.grpcStatus === GrpcStatus.UNAUTHENTICATED || k.grpcStatus === GrpcStatus.PERMISSION_DENIED) {
      return done(attempts, { failure: failure('grpc-rejected', ` (${describe(k, ctx.secrets)} from ${LIST})`) });
    }
    if (k.grpcStatus !== GrpcStatus.OK) {
      return done(attempts, { failure: failure('grpc-unexpected', ` to ${LIST} with the key: ${describe(k, ctx.secrets)}`, { serverText: true }) });
    }
    const n = withoutKey.answer;
    if (n.grpcStatus === GrpcStatus.OK) {
      if (ctx.requireAuth) {
        return done(attempts, { failure: failure('grpc-open', `: ${LIST} without a key answered status 0 — enable an API key on the cluster (or pass --allow-open)`) });
      }
      return done(attempts, { message: `gRPC ok (qdrant ${report.grpcVersion}, gRPC is open, key not verified)`, note: 'gRPC is open (allowed)' });
    }
    if (n.grpcStatus !== GrpcStatus.UNAUTHENTICATED && n.grpcStatus !== GrpcStatus.PERMISSION_DENIED) {
      return done(attempts, { failure: failure('grpc-unexpected', ` to ${LIST} without a key: ${describe(n, ctx.secrets)}`, { serverText: true }) });
    }
    return done(attempts, { message: `gRPC ok (qdrant ${report.grpcVersion}, key accepted, keys enforced)` });
  } catch (err) {
    return done(0, { failure: networkFailure(err, ctx) });
  } finally {
    if (client) await client.close().catch(() => undefined);
  }
}
