/** The writer's command line (see cli.js). */
import type { RunIo } from '../runtime/cli';

export interface CliResult {
  readonly code: 0 | 1 | 2;
  /** Summary lines with counts, never values: one for write and remove, one per file for remove-dropped ('' on failure). */
  readonly stdout: string;
  /** Warnings and the error line, one per line. */
  readonly stderr: string;
}

export type CliArgs =
  | { readonly help: true }
  | {
    readonly command: 'write' | 'remove';
    readonly file: string;
    readonly format: 'dotenv' | 'json';
    readonly owner: string;
    readonly deployCommand: 'cdktf deploy' | 'cdktn deploy' | 'terraform apply' | 'tofu apply';
  }
  | { readonly command: 'remove-dropped'; readonly owner: string };

/** The usage text of `--help`. */
export declare const USAGE: string;

/** argv without `node cli.js`; entries come from env (QCA_ENTRIES, QCA_ENTRIES_FROM_ENV). */
export declare function run(argv: string[], env: Record<string, string | undefined>): Promise<CliResult>;
/** Does the work of one run against `io`; returns the exit code (run() and the process entry wrap it). */
export declare function main(io: RunIo): Promise<number>;
/** The command and options of argv (without `node cli.js`). Throws UsageError (exit 2). */
export declare function parseCommandLine(argv: string[]): CliArgs;
