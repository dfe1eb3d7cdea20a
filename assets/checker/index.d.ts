/**
 * Types of the Node API of the Qdrant cluster access checker (implemented in `check.js`).
 *
 * The check proves that one API key works on one Qdrant REST endpoint in three steps:
 * `root` (GET / with the key), `key` (GET /collections with the key) and
 * `enforced` (GET /collections without a key). GET / alone proves nothing about the key:
 * self-hosted Qdrant does not check keys on it.
 */

/** How the key is sent. Exactly one header is ever sent. */
export type KeyHeader = 'api-key' | 'bearer';

export interface CheckOptions {
  /**
   * Base URL of the cluster's REST API, e.g. `https://xyz.eu-central.aws.cloud.qdrant.io:6333`.
   * No port means 6333 (not 443). No path other than `/`, no query, fragment or user:password@.
   * `http://` only for loopback hosts (127.0.0.0/8, ::1, localhost).
   */
  url: string;
  /** The API key (or JWT). Must not be empty. Never appears in the report. */
  apiKey: string;
  /** `api-key` sends `api-key: <key>` (default); `bearer` sends `Authorization: Bearer <key>`. */
  header?: KeyHeader;
  /** PEM file with CA certificate(s) trusted in addition to Node's root CAs. TLS is always verified. */
  caFile?: string;
  /** Name used in the report and the output line, e.g. `search-api → prod-eu`. Default: the URL host. */
  label?: string;
  /** Per-request timeout in seconds (connect + TLS + answer). Default 10. */
  timeoutSeconds?: number;
  /** Time limit for the whole check in seconds, retries and waits included. Default 60. */
  deadlineSeconds?: number;
  /**
   * Retries per request on network errors, timeouts, 5xx and 429 (whole number 0–100). Default 3.
   * 401 and 403 are never retried.
   */
  retries?: number;
  /** When false, a cluster that answers without any key passes with a note. Default true. */
  requireAuth?: boolean;
  /** Base of the exponential backoff (full jitter) in ms. Default 200. */
  backoffBaseMs?: number;
  /** Upper bound of one backoff wait in ms (Retry-After is bounded by the deadline only). Default 5000. */
  backoffCapMs?: number;
}

export type StepName = 'root' | 'key' | 'enforced';

export interface StepResult {
  /** `root`: GET / with the key; `key`: GET /collections with the key; `enforced`: GET /collections without a key. */
  name: StepName;
  /** Whether this step passed. */
  ok: boolean;
  /** HTTP status of the last answer; absent when no answer came (network, TLS, timeout). */
  status?: number;
  /** One line (≤ ~200 chars, key redacted): what happened, with the server's answer on failure. */
  message: string;
  /** Time spent in this step, retries included. */
  durationMs: number;
  /** Requests sent in this step (1 = no retry; 0 = nothing was sent). */
  attempts: number;
}

export interface CheckReport {
  /** True when all three steps passed. */
  ok: boolean;
  /** The normalised base URL that was checked, always with its port, e.g. `https://host:6333`. */
  url: string;
  /** The label given, or the URL host. */
  label: string;
  /** The header the key was sent in. */
  header: KeyHeader;
  /** Wall time of the whole check. */
  durationMs: number;
  /** Server version from GET / (`version` field). */
  qdrantVersion?: string;
  /**
   * `accepted`: GET /collections with the key answered 200. `rejected`: 401/403. `expired`: 403
   * `ExpiredSignature`. Absent when the key was never judged by the server.
   */
  keyStatus?: 'accepted' | 'rejected' | 'expired';
  /** Collections visible to the key (a collection-scoped JWT sees a filtered list). */
  collectionCount?: number;
  /** `enforced`: GET /collections without a key was refused. `open`: it answered 200. */
  enforcement?: 'enforced' | 'open';
  /** The steps that ran, in order; the check stops at the first failing step. */
  steps: StepResult[];
  /** The step that failed (absent when ok). */
  failedStep?: StepName;
  /** Why it failed: the failing step's message (absent when ok). */
  reason?: string;
  /** Warnings on a passing check, e.g. `cluster is open (allowed)`. */
  notes: string[];
}

/** A validated base URL. */
export interface BaseUrl {
  /** `https:` or `http:` */
  protocol: 'https:' | 'http:';
  /** Host name or IP (IPv6 without brackets). */
  hostname: string;
  /** Port; 6333 when the URL has none. */
  port: number;
  /** Normalised URL with port, e.g. `https://host:6333`. */
  url: string;
  /** The host as written (with the port only if one was given): the default label. */
  host: string;
}

/**
 * Runs the check. Resolves a report (also when the check fails); rejects only with a
 * {@link UsageError} for invalid options. The key never appears in the report.
 */
export declare function checkClusterAccess(options: CheckOptions): Promise<CheckReport>;

/** The one-line summary the CLI prints, e.g. `ok   prod  qdrant 1.16.2  key accepted, keys enforced  184 ms`. */
export declare function formatReport(report: CheckReport): string;

/** Validates a base URL as {@link checkClusterAccess} does (no network). Throws {@link UsageError}. */
export declare function parseBaseUrl(url: string): BaseUrl;

/** Replaces every occurrence of `key` in `text` with `[redacted]`. */
export declare function redact(text: string, key: string): string;

/** Invalid options (bad URL, empty key, bad number, unreadable CA file). The CLI exits 2. */
export declare class UsageError extends Error {
  readonly name: 'UsageError';
  readonly code: 'ERR_QDRANT_CHECK_USAGE';
}

/** Default option values. */
export declare const DEFAULTS: Readonly<{
  header: KeyHeader;
  timeoutSeconds: number;
  deadlineSeconds: number;
  retries: number;
  requireAuth: boolean;
  backoffBaseMs: number;
  backoffCapMs: number;
}>;
