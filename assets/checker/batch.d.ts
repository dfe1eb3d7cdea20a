/** Many grants of one key in one process (see batch.js). */
import type { BatchReport, CheckReport, Grant, SharedCheckOptions } from './index';

/** Checks every grant with one key, `concurrency` clusters at a time (default 8). */
export declare function checkMany(options: SharedCheckOptions, grants: Grant[],
  settings?: { concurrency?: number; onReport?: (report: CheckReport, index: number) => void }): Promise<BatchReport>;
/**
 * Validates a list of grants (`{label?, url, grpcUrl?}`, at least one): returns copies of them,
 * or throws UsageError naming the entry (what it shows is redacted of `secrets`).
 */
export declare function checkGrantList(grants: unknown, secrets?: ReadonlyArray<string | undefined>): Grant[];
/** "FAIL 2 of 10 grants of key search-api failed: …", or undefined when all passed. */
export declare function formatSummary(result: BatchReport, keyLabel?: string): string | undefined;
