/**
 * Types of the Node API of the Qdrant cluster access checker (implemented in `check.js` and
 * `batch.js`).
 *
 * The check proves that one API key works on one Qdrant cluster: `root` (GET / without the key;
 * with it only after an edge refused the keyless one), `key` (GET /collections with the key), `enforced` (GET /collections without a key), and, when
 * asked, `access` (side-effect-free probes of the declared access), `grpc` (the gRPC endpoint)
 * and `expiry` (a JWT's expiry date). GET / alone proves nothing about the key: self-hosted Qdrant
 * does not check keys on it.
 */
import type { FailureId } from './failures';

/** How the key is sent. Exactly one header is ever sent. */
export type KeyHeader = 'api-key' | 'bearer';

/** The access a key must have. */
export type DeclaredAccess = 'any' | 'read-only' | 'manage' | 'collections';

/** What all grants of one key share. */
export interface SharedCheckOptions {
  /** The API key (or JWT). Must not be empty. Never appears in the report. */
  apiKey: string;
  /** `api-key` sends `api-key: <key>` (default); `bearer` sends `Authorization: Bearer <key>`. */
  header?: KeyHeader;
  /** PEM file with CA certificate(s) trusted in addition to Node's root CAs (a regular file, at most 1 MiB). TLS is always verified. */
  caFile?: string;
  /** Per-request timeout in seconds (connect + TLS + answer), 1-300. Default 10. */
  timeoutSeconds?: number;
  /** Time limit of each cluster's check in seconds, retries and reading the CA included, 1-3600. Default max(60, 4 × timeoutSeconds). */
  deadlineSeconds?: number;
  /** Retries per request on network errors, timeouts, 5xx and 429 (whole number 0-10). Default 3. 401 and 403 are never retried. */
  retries?: number;
  /** When false, a cluster that answers without any key passes with a note. Default true. */
  requireAuth?: boolean;
  /** The access the key must have. Default `any` (any valid key). */
  access?: DeclaredAccess;
  /** Collections the key must be able to read. */
  readCollections?: string[];
  /** Collections the key must be able to write. */
  writeCollections?: string[];
  /** More access than declared is a warning instead of a failure. Default false. */
  allowExcessAccess?: boolean;
  /** Fail when the key (a JWT) expires in fewer days (0-3650). Default 0: only once it has expired. */
  minValidityDays?: number;
  /** Warn when the key (a JWT) expires in fewer days (0-3650). Default 14. */
  warnValidityDays?: number;
  /** How the user deploys, for hints. Default `cdktf deploy`. */
  deployCommand?: 'cdktf deploy' | 'cdktn deploy' | 'terraform apply' | 'tofu apply';
  /** Base of the exponential backoff (full jitter) in ms. Default 200. */
  backoffBaseMs?: number;
  /** Upper bound of one backoff wait in ms (Retry-After is bounded by the deadline only). Default 5000. */
  backoffCapMs?: number;
  /** "Now", for the expiry (tests). Default: the clock. */
  now?: Date;
}

/** One cluster to check. */
export interface Grant {
  /**
   * Base URL of the cluster's REST API, e.g. `https://xyz.eu-central.aws.cloud.qdrant.io:6333`.
   * No port means 6333 (not 443). `http://` only for loopback hosts.
   */
  url: string;
  /** The cluster's gRPC endpoint, e.g. `https://xyz…:6334` (no port means 6334). Checked only when given. */
  grpcUrl?: string;
  /** Name used in the report and the output line, e.g. `search-api → prod-eu`. Default: the URL host. */
  label?: string;
}

export interface CheckOptions extends SharedCheckOptions, Grant {}

export type StepName = 'root' | 'key' | 'enforced' | 'access' | 'grpc' | 'expiry';

export interface StepResult {
  name: StepName;
  /** Whether this step passed. */
  ok: boolean;
  /**
   * HTTP status of the last answer; absent when no answer came (network, TLS, timeout). The access
   * step sends several probes at once: its status is the failing probe's, absent when it passed
   * or when it failed for access in excess of the declared (decided from all the answers).
   */
  status?: number;
  /** One line (key redacted): what happened, with the server's answer on failure. */
  message: string;
  /** Time spent in this step, retries included. */
  durationMs: number;
  /** Requests sent in this step, retries included (0 = nothing was sent; the access step counts every probe's). */
  attempts: number;
}

export interface CheckReport {
  /** True when every step passed. */
  ok: boolean;
  /** The normalised base URL that was checked, always with its port, e.g. `https://host:6333`. */
  url: string;
  /** The normalised gRPC URL, when gRPC was checked. */
  grpcUrl?: string;
  /** The label given, or the URL host. */
  label: string;
  /** The header the key was sent in. */
  header: KeyHeader;
  /** Wall time of the whole check. */
  durationMs: number;
  /** Server version from GET / (`version` field). */
  qdrantVersion?: string;
  /** Server version from gRPC Qdrant/HealthCheck. */
  grpcVersion?: string;
  /** `accepted`: GET /collections with the key answered 200. `rejected`: 401/403. `expired`: 403 `ExpiredSignature`. */
  keyStatus?: 'accepted' | 'rejected' | 'expired';
  /** Collections visible to the key (a collection-scoped JWT sees a filtered list). */
  collectionCount?: number;
  /** `enforced`: GET /collections without a key was refused. `open`: it answered 200. */
  enforcement?: 'enforced' | 'open';
  /**
   * The declared access and what was found in excess of it (when access was declared). Excess fails
   * the check unless `allowExcessAccess` (then each is a warning) or the cluster is open and allowed
   * (then one warning says the declared access is not enforced: no key can have less there).
   * In the declared names, a name that holds part of the key is replaced by "(a name not shown: it
   * holds part of the API key)".
   */
  access?: { declared: DeclaredAccess; readCollections: string[]; writeCollections: string[]; excess: string[] };
  /** When the key expires (ISO 8601), or null for a key that carries no expiry (a plain key, or a JWT without `exp`). */
  expiresAt: string | null;
  /** The access a JWT claims, in words (e.g. `read-only on products`); absent for a plain key. Never the token. */
  keyAccess?: string;
  /** The steps that ran, in order. */
  steps: StepResult[];
  /** The first step that failed, in step order (absent when ok). */
  failedStep?: StepName;
  /** Why it failed: the failing step's message (absent when ok). */
  reason?: string;
  /** The failure's id in the catalog (failures.js), absent when ok. */
  failureId?: FailureId;
  /** Notes on a passing check, in step order: `cluster is open (allowed)`, `gRPC is open (allowed)`. */
  notes: string[];
  /**
   * Warnings: more access than declared (allowed), the declared access not enforced on an open
   * cluster, the key expires soon. The CLI prints each as `warn <label>  <text>`.
   */
  warnings: string[];
}

/** The result of checking every grant of one key. */
export interface BatchReport {
  /** True when every grant passed. */
  ok: boolean;
  /** When the key expires (ISO 8601), or null. */
  expiresAt: string | null;
  /** One report per grant, in the order given. */
  grants: CheckReport[];
  /** Labels of the grants that failed. */
  failed: string[];
}

/** A validated base URL. */
export interface BaseUrl {
  protocol: 'https:' | 'http:';
  /** Host name or IP (ASCII; IPv6 without brackets). */
  hostname: string;
  /** Port; 6333 when the URL has none (6334 for gRPC). */
  port: number;
  /** Normalised URL with port, e.g. `https://host:6333`. */
  url: string;
  /** The host as written (with the port only if one was given): the default label. */
  host: string;
}

/**
 * Runs the check of one cluster. Resolves a report (also when the check fails); rejects only with a
 * {@link UsageError} for invalid options. The key never appears in the report.
 */
export declare function checkClusterAccess(options: CheckOptions): Promise<CheckReport>;

/**
 * Validates a base URL as {@link checkClusterAccess} does (no network). Throws {@link UsageError}
 * for a bad URL, and for one whose host holds part of any of `secrets` (before any DNS lookup).
 */
export declare function parseBaseUrl(url: string, defaultPort?: number, secrets?: readonly string[]): BaseUrl;

/** The one-line summary the CLI prints, e.g. `ok   prod  qdrant 1.18.3  key accepted, keys enforced  184 ms`. */
export declare function formatReport(report: CheckReport): string;

/** The warning lines of a report: `warn <label>  <text>`. */
export declare function formatWarnings(report: CheckReport): string[];

/** Invalid options (bad URL, empty key, bad number, unreadable CA file). The CLI exits 2. */
export declare class UsageError extends Error {
  readonly name: 'UsageError';
  readonly code: 'ERR_QDRANT_USAGE';
}

/** Checks every grant of one key, `concurrency` clusters at a time (default 8). */
export declare function checkMany(options: SharedCheckOptions, grants: Grant[],
  settings?: { concurrency?: number; onReport?: (report: CheckReport, index: number) => void }): Promise<BatchReport>;

/** "FAIL 2 of 10 grants of key search-api failed: …", or undefined when all passed. */
export declare function formatSummary(result: BatchReport, keyLabel?: string): string | undefined;

/** Every failure the check can report: its id, the phrase its message starts with, the likely cause and the fix. */
export { FAILURES } from './failures';
