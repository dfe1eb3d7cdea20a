/** The writer's command line (see cli.js). */

export interface CliResult {
  readonly code: 0 | 1 | 2;
  /** One summary line with counts, never values ('' on failure). */
  readonly stdout: string;
  /** Warnings and the error line, one per line. */
  readonly stderr: string;
}

export declare class UsageError extends Error {}

export interface CliArgs {
  readonly command: 'write' | 'remove';
  readonly file: string;
  readonly format: 'dotenv' | 'json';
  readonly owner: string;
}

/** argv without `node cli.js`; entries come from env (QCA_ENTRIES, QCA_ENTRIES_FROM_ENV). */
export declare function run(argv: string[], env: Record<string, string | undefined>): Promise<CliResult>;
export declare function parseArgs(argv: string[]): CliArgs;
