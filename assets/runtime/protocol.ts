/** The commands and options between synth and deploy: the CLIs parse with these specs, the constructs build commands with them. */

/** One option of a command: its flag, the type and range of its value, its default and help. */
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

// Typed builders: an option keeps its own type, the ranged ones with a default share one (src/ lists them together), an enum's values are literal.
const option = <S extends OptionSpec>(spec: S): S => spec;
const ranged = (spec: OptionSpec & { min: number; max: number; default: number }): OptionSpec & { min: number; max: number; default: number } => spec;
const oneOf = <V extends string>(spec: OptionSpec & { values: readonly V[]; default: V }): OptionSpec & { values: readonly V[]; default: V } => spec;

export const CHECK_OPTIONS = {
  url: option({ flag: '--url', type: 'string', valueName: 'URL', describe: 'Base URL of one cluster\'s REST API, e.g. https://xyz.cloud.qdrant.io:6333 (no port means 6333)' }),
  grpcUrl: option({ flag: '--grpc-url', type: 'string', valueName: 'URL', describe: 'Also check the cluster\'s gRPC endpoint, e.g. https://xyz.cloud.qdrant.io:6334' }),
  grantsEnv: option({ flag: '--grants-env', type: 'env-name', valueName: 'NAME', describe: 'Check several clusters with one key: NAME holds a JSON list of {"label","url","grpcUrl"} (instead of --url)' }),
  grantsFile: option({ flag: '--grants-file', type: 'string', valueName: 'FILE', describe: 'Check several clusters with one key: FILE holds a JSON list of {"label","url","grpcUrl"} (instead of --url); a value written {"$env": "NAME"} is environment variable NAME\'s' }),
  grantsSha256: option({ flag: '--grants-sha256', type: 'string', valueName: 'HEX', describe: 'The sha256 of --grants-file: a file that differs is refused (exit 2)' }),
  keyEnv: option({ flag: '--key-env', type: 'env-name', valueName: 'NAME', default: 'QDRANT_API_KEY', describe: 'Environment variable holding the key; keys are never arguments' }),
  keySha256Env: option({ flag: '--key-sha256-env', type: 'env-name', valueName: 'NAME', describe: 'Environment variable holding the sha256 (hex) of the key meant to be checked: a key in --key-env that differs is refused (exit 2)' }),
  header: oneOf({ flag: '--header', type: 'enum', values: ['api-key', 'bearer'], default: 'api-key', describe: 'Send "api-key: KEY" or "Authorization: Bearer KEY"' }),
  ca: option({ flag: '--ca', type: 'string', valueName: 'FILE', describe: 'PEM CA certificate(s) to trust in addition to Node\'s bundled roots and NODE_EXTRA_CA_CERTS (the OS trust store only when NODE_OPTIONS asks: --use-openssl-ca, or on Node 22.15 and later --use-system-ca)' }),
  timeout: ranged({ flag: '--timeout', type: 'number', min: 1, max: 300, default: 10, unit: 'seconds', valueName: 'SECONDS', describe: 'Timeout of each request' }),
  retries: ranged({ flag: '--retries', type: 'integer', min: 0, max: 10, default: 3, valueName: 'N', describe: 'Retries on network errors, timeouts, 5xx and 429 (never on 401/403)' }),
  deadline: option({ flag: '--deadline', type: 'number', min: 1, max: 3600, unit: 'seconds', valueName: 'SECONDS', defaultText: 'max(60, 4 x --timeout)', describe: 'Time limit for each cluster\'s check, retries and reading the CA included' }),
  concurrency: ranged({ flag: '--concurrency', type: 'integer', min: 1, max: 64, default: 8, valueName: 'N', describe: 'Clusters checked at the same time' }),
  allowOpen: option({ flag: '--allow-open', type: 'boolean', describe: 'Pass, with a note, when a cluster needs no key at all' }),
  access: oneOf({ flag: '--access', type: 'enum', values: ['any', 'read-only', 'manage', 'collections'], default: 'any', describe: 'The access the key must have: any valid key; global read-only; manage; or exactly the listed collections' }),
  readCollections: option({ flag: '--read-collections', type: 'list', valueName: 'A,B', describe: 'Collections the key must be able to read' }),
  writeCollections: option({ flag: '--write-collections', type: 'list', valueName: 'A,B', describe: 'Collections the key must be able to write' }),
  allowExcessAccess: option({ flag: '--allow-excess-access', type: 'boolean', describe: 'Warn instead of failing when the key has more access than declared' }),
  minValidityDays: ranged({ flag: '--min-validity-days', type: 'integer', min: 0, max: 3650, default: 0, unit: 'days', valueName: 'N', describe: 'Fail when the key (a JWT) expires in fewer days' }),
  warnValidityDays: ranged({ flag: '--warn-validity-days', type: 'integer', min: 0, max: 3650, default: 14, unit: 'days', valueName: 'N', describe: 'Warn when the key (a JWT) expires in fewer days' }),
  deployCommand: oneOf({ flag: '--deploy-command', type: 'enum', values: ['cdktf deploy', 'cdktn deploy', 'terraform apply', 'tofu apply'], default: 'cdktf deploy', describe: 'How the user deploys, for the hints in messages' }),
  label: option({ flag: '--label', type: 'string', valueName: 'TEXT', describe: 'Name shown in the output line (default: the URL host)' }),
  guide: option({ flag: '--guide', type: 'string', valueName: 'PATH', describe: 'The setup guide the failure lines name (default: "setup guide")' }),
  json: option({ flag: '--json', type: 'boolean', describe: 'Print the full report as JSON' }),
  help: option({ flag: '--help', aliases: ['-h'], type: 'boolean', describe: 'Show this help' }),
};

export const FILE_OPTIONS = {
  file: option({ flag: '--file', type: 'string', valueName: 'PATH', describe: 'The .env or JSON file' }),
  format: oneOf({ flag: '--format', type: 'enum', values: ['dotenv', 'json'], default: 'dotenv', describe: 'The file format' }),
  owner: option({ flag: '--owner', type: 'string', valueName: 'NAME', describe: 'Who owns the entries (the construct path of the ClusterAccess)' }),
  deployCommand: CHECK_OPTIONS.deployCommand,
  help: CHECK_OPTIONS.help,
};

/** `verify-key`: the key has the sha256 given, checked ahead of an ephemeral key's check (the hash makes Terraform hide its output). */
export const VERIFY_KEY_OPTIONS = {
  keyEnv: CHECK_OPTIONS.keyEnv,
  keySha256Env: CHECK_OPTIONS.keySha256Env,
  deployCommand: CHECK_OPTIONS.deployCommand,
  help: CHECK_OPTIONS.help,
};

/** `remove-dropped`: the files are in the environment (WRITER_ENV.files, keepFiles). */
export const DROPPED_OPTIONS = {
  owner: FILE_OPTIONS.owner,
  help: CHECK_OPTIONS.help,
};

const COMMANDS = {
  'check': CHECK_OPTIONS,
  'verify-key': VERIFY_KEY_OPTIONS,
  'write': FILE_OPTIONS,
  'remove': FILE_OPTIONS,
  'remove-dropped': DROPPED_OPTIONS,
};

/** Environment variables read by the writer: the entries, never on the command line. */
export const WRITER_ENV = {
  /** JSON object NAME: value (for `remove`, a JSON array of names is accepted too). */
  entries: 'QCA_ENTRIES',
  /** JSON object NAME: ENV_VAR, the environment variable that holds the value (a key). */
  entriesFromEnv: 'QCA_ENTRIES_FROM_ENV',
  /** JSON object ENV_VAR: sha256 (hex) of the value Terraform uses (-var and .tfvars files win over TF_VAR_). */
  entriesSha256: 'QCA_ENTRIES_SHA256',
  /** Instead of the three above: a JSON file of {"entries", "entriesFromEnv", "entriesSha256"} (runtime/input-file.ts). */
  entriesFile: 'QCA_ENTRIES_FILE',
  /** The sha256 (hex) of the entries file: a file that differs is refused. */
  entriesFileSha256: 'QCA_ENTRIES_FILE_SHA256',
  /** remove-dropped: JSON array of {file, format, target?}, the files an owner wrote to and the targets that wrote them (a record in the state). */
  files: 'QCA_FILES',
  /** remove-dropped: JSON array of {file, format, target?}, the files the current configuration still writes to. */
  keepFiles: 'QCA_KEEP_FILES',
} as const;

/** Linux's MAX_ARG_STRLEN, and 1 MiB of ARG_MAX at 256 bytes a deploy-time value: refused at synth, not "argument list too long". */
export const EXEC_LIMITS = { envStringBytes: 128 * 1024, deployTimeValues: 4096 } as const;

/** The line a command prints (exit 127) without `node` on PATH; no quote, backslash, `${` or `%{` (sh and Terraform). */
export const NODE_MISSING = {
  checker: 'node was not found on PATH of the machine that runs Terraform: the health check runs the bundled checker with Node.js 18 or later; ' +
    'install Node.js there, or let Terraform check the keys itself with healthCheck: { engine: CheckEngine.TERRAFORM } (no Node needed)',
  writer: 'node was not found on PATH of the machine that runs Terraform: the .env and JSON secret targets are written there by the bundled writer, ' +
    'which needs Node.js 18 or later; install Node.js there, or use SecretTarget.terraformOutputs() or a secret target of your own',
  verifier: 'node was not found on PATH of the machine that runs Terraform: an ephemeral key is verified by the bundled checker, ' +
    'which needs Node.js 18 or later (CheckEngine.TERRAFORM cannot take an ephemeral key); install Node.js there',
} as const;

/** Environment variable holding the path of the CLI in a local-exec command. */
const CLI_ENV = 'QCA_CLI';

/** The environment variable that carries an option's value in a local-exec command: `timeout` → `QCA_TIMEOUT`. */
export function envNameOf(name: string): string {
  return `QCA_${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

/** `node "$QCA_CLI" <command> --flag "$QCA_FLAG" ...` and its environment: no value reaches the shell unquoted; values unchecked (placeholders). */
export function invocation<C extends keyof typeof COMMANDS>(command: C,
  values: { readonly [name in keyof typeof COMMANDS[C]]?: string | number | boolean | readonly string[] }, cliPath: string,
): { command: string; environment: Record<string, string> } {
  const options: Record<string, OptionSpec> = COMMANDS[command];
  const missing = NODE_MISSING[command === 'check' ? 'checker' : command === 'verify-key' ? 'verifier' : 'writer'];
  const args = [`command -v node >/dev/null 2>&1 || { echo '${missing}' >&2; exit 127; };`, 'node', `"$${CLI_ENV}"`, command];
  const environment: Record<string, string> = { [CLI_ENV]: cliPath };
  const given: Record<string, unknown> = values;
  for (const [name, spec] of Object.entries(options)) {
    const value = given[name];
    if (value === undefined || value === false) continue;
    if (spec.type === 'boolean') {
      args.push(spec.flag);
      continue;
    }
    const env = envNameOf(name);
    environment[env] = Array.isArray(value) ? value.join(',') : String(value);
    args.push(spec.flag, `"$${env}"`);
  }
  const unknown = Object.keys(given).find((name) => !(name in options));
  if (unknown !== undefined) throw new Error(`command ${command} has no option ${unknown}`);
  return { command: args.join(' '), environment };
}

/** The default deadline of one cluster's check for a request timeout (seconds): max(60, 4 × timeout). */
export function defaultDeadlineSeconds(timeoutSeconds: number): number {
  return Math.max(60, 4 * timeoutSeconds);
}
