/** The protocol between the constructs and the runtime CLIs (see protocol.js). */

export interface OptionSpec {
  readonly flag: string;
  readonly aliases?: readonly string[];
  readonly type: 'string' | 'enum' | 'number' | 'integer' | 'boolean' | 'env-name' | 'list';
  /** Allowed values of an enum. */
  readonly values?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  readonly default?: string | number | boolean;
  /** How the default is described when it is derived. */
  readonly defaultText?: string;
  readonly unit?: string;
  readonly valueName?: string;
  readonly describe: string;
}

export declare const CHECK_OPTIONS: {
  readonly url: OptionSpec;
  readonly grpcUrl: OptionSpec;
  readonly grantsEnv: OptionSpec;
  readonly keyEnv: OptionSpec & { readonly default: string };
  readonly keySha256Env: OptionSpec;
  readonly header: OptionSpec & { readonly values: readonly ['api-key', 'bearer']; readonly default: 'api-key' };
  readonly ca: OptionSpec;
  readonly timeout: OptionSpec & { readonly min: number; readonly max: number; readonly default: number };
  readonly retries: OptionSpec & { readonly min: number; readonly max: number; readonly default: number };
  readonly deadline: OptionSpec & { readonly min: number; readonly max: number };
  readonly concurrency: OptionSpec & { readonly min: number; readonly max: number; readonly default: number };
  readonly allowOpen: OptionSpec;
  readonly access: OptionSpec & { readonly values: readonly ['any', 'read-only', 'manage', 'collections']; readonly default: 'any' };
  readonly readCollections: OptionSpec;
  readonly writeCollections: OptionSpec;
  readonly allowExcessAccess: OptionSpec;
  readonly minValidityDays: OptionSpec & { readonly min: number; readonly max: number; readonly default: number };
  readonly warnValidityDays: OptionSpec & { readonly min: number; readonly max: number; readonly default: number };
  readonly deployCommand: OptionSpec & { readonly values: readonly string[]; readonly default: string };
  readonly label: OptionSpec;
  readonly json: OptionSpec;
  readonly help: OptionSpec;
};
export type CheckOptionName = keyof typeof CHECK_OPTIONS;

export declare const FILE_OPTIONS: {
  readonly file: OptionSpec;
  readonly format: OptionSpec & { readonly values: readonly ['dotenv', 'json'] };
  readonly owner: OptionSpec;
  readonly deployCommand: OptionSpec;
  readonly help: OptionSpec;
};

export declare const DROPPED_OPTIONS: {
  readonly owner: OptionSpec;
  readonly help: OptionSpec;
};

export declare const COMMANDS: {
  readonly check: { readonly options: typeof CHECK_OPTIONS };
  readonly write: { readonly options: typeof FILE_OPTIONS };
  readonly remove: { readonly options: typeof FILE_OPTIONS };
  readonly 'remove-dropped': { readonly options: typeof DROPPED_OPTIONS };
};
export type CommandName = keyof typeof COMMANDS;

/** The writer's environment variables. */
export declare const WRITER_ENV: {
  readonly entries: 'QCA_ENTRIES';
  readonly entriesFromEnv: 'QCA_ENTRIES_FROM_ENV';
  readonly entriesSha256: 'QCA_ENTRIES_SHA256';
  readonly files: 'QCA_FILES';
  readonly keepFiles: 'QCA_KEEP_FILES';
};
/** The environment variable holding the CLI's path in a command. */
export declare const CLI_ENV: 'QCA_CLI';
/** `timeout` → `QCA_TIMEOUT`. */
export declare function envNameOf(option: string): string;

export interface Invocation {
  /** `node "$QCA_CLI" <command> --flag "$QCA_FLAG" …` */
  readonly command: string;
  /** `QCA_CLI` and one variable per valued option. */
  readonly environment: Record<string, string>;
}
/** The local-exec command and environment for a command and its option values. */
export declare function invocation(command: CommandName, values: Record<string, string | number | boolean | readonly string[] | undefined>, cliPath: string): Invocation;
/** max(60, 4 × timeout). */
export declare function defaultDeadlineSeconds(timeoutSeconds: number): number;
