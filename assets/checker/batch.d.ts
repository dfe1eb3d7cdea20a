/** Many grants of one key in one process (see batch.js). */
import type { BatchReport, CheckReport, Grant, SharedCheckOptions } from './index';

/** Checks every grant with one key, `concurrency` clusters at a time (default 8). */
export declare function checkMany(options: SharedCheckOptions, grants: Grant[],
  settings?: { concurrency?: number; onReport?: (report: CheckReport) => void }): Promise<BatchReport>;
/** "FAIL 2 of 10 grants of key search-api failed: …", or undefined when all passed. */
export declare function formatSummary(result: BatchReport, keyLabel?: string): string | undefined;
