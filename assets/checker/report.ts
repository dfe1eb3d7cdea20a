/** The checker's reports, and the lines made from them. */
import type { FailureId } from './failures';
import type { DeclaredAccess, KeyHeader } from './options';
import { MAX_LABEL_SHOWN } from '../runtime/names';
import { safeLine } from '../runtime/secrets';
import { plural } from '../runtime/text';

/** The steps of a check, in the order of its report. */
export const STEP_ORDER = ['root', 'key', 'enforced', 'access', 'grpc', 'expiry'] as const;

export type StepName = typeof STEP_ORDER[number];

/** One step of a check, as reported. */
export interface StepResult {
  name: StepName;
  ok: boolean;
  /** HTTP status of the last answer (none: network, TLS, timeout); the access step's is the failing probe's, none for excess access. */
  status?: number;
  /** One line (key redacted): what happened, with the server's answer on failure. */
  message: string;
  /** Time spent in this step, retries included. */
  durationMs: number;
  /** Requests sent, retries included (0: nothing was sent; the access step counts every probe's). */
  attempts: number;
}

/** The report of one grant's check. The key never appears in it. */
export interface CheckReport {
  ok: boolean;
  /** The base URL that was checked, always with its port, e.g. `https://host:6333` (and the gRPC URL, when gRPC was checked). */
  url: string;
  grpcUrl?: string;
  /** The label given, or the URL host. */
  label: string;
  header: KeyHeader;
  durationMs: number;
  /** The server's version, from GET / and from gRPC's Qdrant/HealthCheck. */
  qdrantVersion?: string;
  grpcVersion?: string;
  /** GET /collections with the key: 200 accepted, 401/403 rejected, 403 `ExpiredSignature` expired. */
  keyStatus?: 'accepted' | 'rejected' | 'expired';
  /** Collections visible to the key (a collection-scoped JWT sees a filtered list). */
  collectionCount?: number;
  /** GET /collections without a key: refused (enforced) or answered 200 (open). */
  enforcement?: 'enforced' | 'open';
  /** The declared access and what was found in excess of it; a declared name that holds part of the key is not shown. */
  access?: { declared: DeclaredAccess; readCollections: string[]; writeCollections: string[]; excess: string[] };
  /** When the key expires (ISO 8601), or null for a key that carries no expiry (a plain key, or a JWT without `exp`). */
  expiresAt: string | null;
  /** The access a JWT claims, in words (e.g. `read-only on products`); absent for a plain key. */
  keyAccess?: string;
  steps: StepResult[];
  /** When a step failed: the first one in step order, its message and the failure's id in the catalog (failures.ts). */
  failedStep?: StepName;
  reason?: string;
  failureId?: FailureId;
  /** Notes on a passing check, in step order: `cluster is open (allowed)`, `gRPC is open (allowed)`. */
  notes: string[];
  /** Warnings (printed as `warn <label>  <text>`): excess access allowed, access not enforced on an open cluster, a key that expires soon. */
  warnings: string[];
}

/** The result of checking every grant of one key: one report per grant, in the order given; the labels of the grants that failed. */
export interface BatchReport {
  ok: boolean;
  expiresAt: string | null;
  grants: CheckReport[];
  failed: string[];
}

/** The one-line summary printed by the CLI (examples: the CLI's USAGE). */
export function formatReport(report: CheckReport): string {
  if (!report.ok) return `FAIL ${report.label}  step ${report.failedStep}: ${report.reason}  ${report.durationMs} ms`;
  const step = (name: StepName) => report.steps.find((s) => s.name === name);
  // e.g. "key accepted, keys enforced, read-only as declared, gRPC ok"
  const verdict = [report.enforcement === 'open' ? 'key not verified, cluster is open (allowed)' : 'key accepted, keys enforced',
    step('access')?.message, step('grpc') && 'gRPC ok'].filter(Boolean).join(', ');
  return [`ok   ${report.label}`, report.qdrantVersion && `qdrant ${report.qdrantVersion}`, verdict, step('expiry')?.message, `${report.durationMs} ms`]
    .filter(Boolean).join('  ');
}

/** The warning lines of a report: `warn <label>  <text>`. */
export function formatWarnings(report: CheckReport): string[] {
  return report.warnings.map((w) => `warn ${report.label}  ${w}`);
}

/** "FAIL 2 of 10 grants of key search-api failed: search-api → prod-us (step key), …", or undefined; labels made one line. */
export function formatSummary(result: BatchReport, keyLabel?: string): string | undefined {
  const failed = result.grants.filter((r) => !r.ok);
  if (failed.length === 0) return undefined;
  const of = keyLabel ? ` of key ${safeLine(keyLabel, [], 120)}` : '';
  return `FAIL ${failed.length} of ${plural(result.grants.length, 'grant')}${of} failed: ` +
    failed.map((r) => `${safeLine(r.label, [], MAX_LABEL_SHOWN)} (step ${r.failedStep})`).join(', ');
}
