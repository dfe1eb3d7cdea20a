/** The CLI toolkit shared by the checker and the writer (see cli.js). */
import type { OptionSpec } from './protocol';

/** A bad command line or input the user can fix: exit code 2. */
export declare class UsageError extends Error {
  readonly name: 'UsageError';
  readonly code: 'ERR_QDRANT_USAGE';
}
/** A failure of the run itself: exit code 1. */
export declare class RunError extends Error {
  readonly name: 'RunError';
}

/** A value quoted for a message; undefined when it may be a key (over 20 characters, or a JWT). */
export declare function showable(raw: unknown): string | undefined;
/** Checks one raw value against its spec; returns the typed value or throws UsageError. */
export declare function coerce(spec: OptionSpec, raw: string): unknown;

export interface ParsedArgs {
  /** The options given, typed, by option name. */
  readonly values: Record<string, unknown>;
  readonly positionals: string[];
}
/** Parses `--flag value` / `--flag=value` (`--` ends the options) against the specs. Throws UsageError. */
export declare function parseArgs(options: Record<string, OptionSpec>, argv: readonly string[], secretHint?: string): ParsedArgs;
/** The values given plus the defaults of the options not given. */
export declare function withDefaults(options: Record<string, OptionSpec>, values: Record<string, unknown>): Record<string, unknown>;
/** The options part of a usage text. */
export declare function optionsHelp(options: Record<string, OptionSpec>): string;

export interface CliIo {
  readonly argv: string[];
  readonly env: Record<string, string | undefined>;
  stdout(text: string): void;
  stderr(text: string): void;
  setExitCode?(code: number): void;
}
export interface RunIo extends CliIo {
  /** Registers a secret: it is redacted from everything written afterwards. */
  addSecret(secret: string | undefined): void;
}
/** Runs `main`, mapping UsageError to exit 2 and other errors to 1, redacting registered secrets. */
export declare function runCli(prog: string, main: (io: RunIo) => number | Promise<number>, io?: CliIo): Promise<number>;
/** Whether `value` is the text whose sha256 is `hex` (64 hex digits). */
export declare function sameSha256(value: string, hex: unknown): boolean;
/** The message when TF_VAR_<name> is not the value Terraform uses for variable <name>. */
export declare function variableSetTwice(variable: string): string;
/** How to set a key variable with `read -rs` (no key on a command line), then run `deployCommand`. */
export declare function setKeyHint(variable: string, deployCommand: string): string;
