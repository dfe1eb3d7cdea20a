#!/usr/bin/env node
'use strict';
/**
 * qdrant-cluster-access CLI: argument parsing, output and exit codes around check.js.
 * Run by Terraform's local-exec (`node <dir>/cli.js check ...`) and as the package's bin.
 * Exit codes: 0 passed, 1 check failed, 2 usage error.
 */
const { checkClusterAccess, formatReport, redact, UsageError, DEFAULTS } = require('./check.js');

const PROG = 'qdrant-cluster-access';
const DEFAULT_KEY_ENV = 'QDRANT_API_KEY';

const USAGE = `Usage: ${PROG} check --url <base_url> [options]

Proves that an API key works on a Qdrant cluster, in three steps:
  root      GET <url>/ with the key: must answer Qdrant's version JSON. Qdrant does not
            check keys on GET /, so this step alone proves nothing about the key.
  key       GET <url>/collections with the key: 200 = key accepted; 401/403 = key
            rejected (403 ExpiredSignature = key expired).
  enforced  GET <url>/collections without a key: must be refused (401/403); a 200
            means anyone can use the cluster, which fails unless --allow-open.

Options:
  --url URL            Base URL, e.g. https://xyz.eu-central.aws.cloud.qdrant.io:6333
                       No port means 6333. No path, query, fragment or user:password@.
                       http:// only for loopback hosts (127.0.0.0/8, ::1, localhost).
  --key-env NAME       Environment variable holding the key (default ${DEFAULT_KEY_ENV}).
                       Keys are never taken as arguments.
  --header api-key|bearer
                       Send "api-key: KEY" (default) or "Authorization: Bearer KEY".
  --ca FILE            PEM CA certificate(s) to trust in addition to the system roots.
  --timeout SECONDS    Per-request timeout (default ${DEFAULTS.timeoutSeconds}).
  --retries N          Retries on network errors, timeouts, 5xx and 429 (default
                       ${DEFAULTS.retries}); exponential backoff, Retry-After honoured.
                       401/403 are never retried.
  --deadline SECONDS   Time limit for the whole check (default ${DEFAULTS.deadlineSeconds}).
  --allow-open         Pass, with a note, when the cluster needs no key at all.
  --label TEXT         Name shown in the output line (default: the URL host).
  --json               Print the full report as JSON instead of the line.
  -h, --help           Show this help.

TLS is always verified. Redirects are not followed (the key would go elsewhere).

Output, one line:
  ok   search-api → prod-eu  qdrant 1.16.2  key accepted, keys enforced  184 ms
  FAIL search-api → prod-eu  step key: key rejected (401 Invalid API key or JWT)  52 ms

Exit codes: 0 all steps passed; 1 check failed; 2 usage error (bad option, URL or
number; key variable missing or empty).
`;

// name -> takes a value?
const FLAGS = new Map([
  ['--url', true], ['--key-env', true], ['--header', true], ['--ca', true], ['--timeout', true],
  ['--retries', true], ['--deadline', true], ['--label', true],
  ['--allow-open', false], ['--json', false], ['--help', false], ['-h', false],
]);

// Values never echoed in messages: the key env vars, filled in as soon as they are known.
const secrets = [process.env[DEFAULT_KEY_ENV]];

function usageError(message) {
  return new UsageError(message);
}

function isEnvName(name) {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && name.length <= 256;
}

function parseArgs(argv) {
  const flags = {};
  const positionals = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    // --name=value is accepted too; only the name is ever shown in errors (the value may be a secret).
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (!FLAGS.has(name)) {
      if (/(^-k$)|key|token|secret|passw/i.test(name)) {
        throw usageError(`unknown option ${name}: keys are never taken as arguments (they would show in the process list and shell history); put the key in the environment variable ${DEFAULT_KEY_ENV}, or name another variable with --key-env NAME`);
      }
      throw usageError(`unknown option ${clip(name, 40)} (see --help)`);
    }
    if (name in flags) throw usageError(`option ${name} given twice`);
    if (!FLAGS.get(name)) {
      if (eq > 0) throw usageError(`option ${name} takes no value`);
      flags[name] = true;
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw usageError(`option ${name} needs a value (see --help)`);
    flags[name] = value;
  }
  return { flags, positionals };
}

function clip(text, max) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function seconds(flag, value) {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw usageError(`${flag} needs a positive number of seconds, got '${clip(value, 40)}'`);
  }
  return n;
}

/** Turns argv into checkClusterAccess options, or {help: true}. Throws UsageError. */
function buildOptions(argv) {
  const { flags, positionals } = parseArgs(argv);
  if (flags['--help'] || flags['-h'] || positionals[0] === 'help') return { help: true };
  const [command, ...extra] = positionals;
  if (command === undefined) throw usageError(`missing command: use '${PROG} check --url <base_url>' (see --help)`);
  if (command !== 'check') {
    const shown = /^[a-z][a-z-]{0,19}$/.test(command) ? `'${command}'` : '(not shown)';
    throw usageError(`unknown command ${shown}: the only command is 'check' (see --help)`);
  }
  // Not echoed: a stray argument is often a key pasted where it does not belong.
  if (extra.length > 0) throw usageError('unexpected extra argument (not shown, it may be a secret); options start with -- (see --help)');
  if (flags['--url'] === undefined) throw usageError('missing --url: give the cluster base URL, e.g. --url https://xyz.cloud.qdrant.io:6333');

  const keyEnv = flags['--key-env'] === undefined ? DEFAULT_KEY_ENV : flags['--key-env'];
  if (!isEnvName(keyEnv)) {
    // Not echoed: a value that is not a variable name may well be the key itself.
    throw usageError('--key-env needs the NAME of an environment variable (letters, digits, _), not the key; the value given is not a valid name (not shown)');
  }
  const apiKey = process.env[keyEnv];
  secrets.push(apiKey);
  if (apiKey === undefined) {
    // Inside `terraform apply`, the key is read from the TF_VAR_ variable Terraform inherited.
    const hint = keyEnv.startsWith('TF_VAR_')
      ? ' before running cdktf deploy / terraform apply (a value given with -var or a .tfvars file does not reach the health check)'
      : flags['--key-env'] ? '' : ' (or name another variable with --key-env NAME)';
    throw usageError(`environment variable ${keyEnv} is not set: export the API key in ${keyEnv}${hint}`);
  }
  if (apiKey === '') throw usageError(`environment variable ${keyEnv} is empty: put the API key in it`);

  const header = flags['--header'] === undefined ? 'api-key' : flags['--header'];
  if (header !== 'api-key' && header !== 'bearer') {
    throw usageError(`--header must be 'api-key' or 'bearer', got '${clip(header, 40)}'`);
  }
  let retries;
  if (flags['--retries'] !== undefined) {
    retries = Number(flags['--retries']);
    if (!/^\d+$/.test(flags['--retries']) || retries > 100) {
      throw usageError(`--retries needs a whole number from 0 to 100, got '${clip(flags['--retries'], 40)}'`);
    }
  }
  return {
    json: Boolean(flags['--json']),
    options: {
      url: flags['--url'],
      apiKey,
      header,
      caFile: flags['--ca'],
      label: flags['--label'],
      timeoutSeconds: flags['--timeout'] === undefined ? undefined : seconds('--timeout', flags['--timeout']),
      deadlineSeconds: flags['--deadline'] === undefined ? undefined : seconds('--deadline', flags['--deadline']),
      retries,
      requireAuth: !flags['--allow-open'],
    },
  };
}

function safe(text) {
  let out = text;
  for (const s of secrets) if (s) out = redact(out, s);
  return out;
}

async function main(argv) {
  let parsed;
  try {
    parsed = buildOptions(argv);
    if (parsed.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    const report = await checkClusterAccess(parsed.options);
    process.stdout.write(safe(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`));
    return report.ok ? 0 : 1;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(safe(`${PROG}: error: ${err.message}\n`));
      return 2;
    }
    process.stderr.write(safe(`${PROG}: error: unexpected failure: ${err && err.message}\n`));
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

module.exports = { main, USAGE };
