#!/usr/bin/env node
'use strict';
/**
 * qdrant-cluster-access CLI: `check` one cluster (--url) or every cluster of one key
 * (--grants-env). Run by Terraform's local-exec (one process per key) and as the package's bin.
 * The options are those of runtime/protocol.js; exit codes 0 passed, 1 check failed, 2 usage error.
 */
const { CHECK_OPTIONS } = require('../runtime/protocol.js');
const { UsageError, parseArgs, withDefaults, optionsHelp, runCli } = require('../runtime/cli.js');
const { checkClusterAccess, formatReport, formatWarnings } = require('./check.js');
const { checkMany, formatSummary } = require('./batch.js');

const PROG = 'qdrant-cluster-access';

const USAGE = `Usage: ${PROG} check --url <base_url> [options]
       ${PROG} check --grants-env NAME [options]

Proves that an API key works on a Qdrant cluster, and has the access its apps need:
  root      GET <url>/ with the key: must answer Qdrant's version JSON. Qdrant does not
            check keys on GET /, so this step alone proves nothing about the key.
  key       GET <url>/collections with the key: 200 = key accepted; 401/403 = key
            rejected (403 ExpiredSignature = key expired).
  enforced  GET <url>/collections without a key: must be refused (401/403); a 200
            means anyone can use the cluster, which fails unless --allow-open.
  access    with --access or collections: side-effect-free probes (an empty alias batch,
            collection exists, an empty delete) prove the declared access, and no more.
  grpc      with --grpc-url: Qdrant/HealthCheck, then Collections/List with and without the key.
  expiry    a key that is a JWT: its expiry date, against --min-validity-days.

Options:
${optionsHelp(CHECK_OPTIONS)}

TLS is always verified, whatever NODE_TLS_REJECT_UNAUTHORIZED says. Redirects are not followed
(the key would go elsewhere). The key is read from the environment, never from an argument.

Output, one line per cluster (and a warning line when the key expires soon):
  ok   search-api → prod-eu  qdrant 1.18.3  key accepted, keys enforced  expires 2027-02-20 (in 90 days)  184 ms
  FAIL search-api → prod-eu  step key: key rejected (401 Invalid API key or JWT)  52 ms

Exit codes: 0 all steps passed; 1 the check failed; 2 usage error (bad option, URL or
number; key variable missing or empty).
`;

const SECRET_FLAG_HINT = 'keys are never taken as arguments (they would show in the process list and shell history); ' +
  'put the key in the environment variable QDRANT_API_KEY, or name another variable with --key-env NAME';

/** Turns argv and the environment into what to run, or { help: true }. Throws UsageError. */
function parseCommandLine(argv, env) {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError(`missing command: use '${PROG} check --url <base_url>' (see --help)`);
  if (command === '--help' || command === '-h' || command === 'help') return { help: true };
  if (command !== 'check') {
    const shown = /^[a-z][a-z-]{0,19}$/.test(command) ? `'${command}'` : '(not shown)';
    throw new UsageError(`unknown command ${shown}: the only command is 'check' (see --help)`);
  }
  const { values, positionals } = parseArgs(CHECK_OPTIONS, rest, SECRET_FLAG_HINT);
  if (values.help) return { help: true };
  // Not echoed: a stray argument is often a key pasted where it does not belong.
  if (positionals.length > 0) throw new UsageError('unexpected extra argument (not shown, it may be a secret); options start with -- (see --help)');
  const o = withDefaults(CHECK_OPTIONS, values);
  if ((o.url === undefined) === (o.grantsEnv === undefined)) {
    throw new UsageError('give either --url <base_url> (one cluster) or --grants-env NAME (several), not both and not neither');
  }
  if (o.grantsEnv !== undefined && o.grpcUrl !== undefined) {
    throw new UsageError('--grpc-url goes with --url; with --grants-env, give "grpcUrl" in each grant');
  }
  const apiKey = env[o.keyEnv];
  if (apiKey === undefined || apiKey === '') {
    const state = apiKey === undefined ? 'is not set' : 'is empty';
    const hint = o.keyEnv.startsWith('TF_VAR_')
      ? `: export ${o.keyEnv}='<the key>' before ${o.deployCommand} (a value given with -var or a .tfvars file does not reach the check)`
      : values.keyEnv ? `: put the API key in ${o.keyEnv}` : `: put the API key in ${o.keyEnv} (or name another variable with --key-env NAME)`;
    throw new UsageError(`environment variable ${o.keyEnv} ${state}${hint}`);
  }
  let grants;
  if (o.grantsEnv !== undefined) {
    const raw = env[o.grantsEnv];
    if (raw === undefined || raw === '') throw new UsageError(`environment variable ${o.grantsEnv} (--grants-env) is not set or empty`);
    try {
      grants = JSON.parse(raw);
    } catch {
      throw new UsageError(`environment variable ${o.grantsEnv} is not valid JSON; expected a list of {"label","url","grpcUrl"}`);
    }
  }
  const options = {
    url: o.url,
    grpcUrl: o.grpcUrl,
    apiKey,
    header: o.header,
    caFile: o.ca,
    label: o.label,
    timeoutSeconds: o.timeout,
    deadlineSeconds: o.deadline,
    retries: o.retries,
    requireAuth: !o.allowOpen,
    access: o.access,
    readCollections: o.readCollections,
    writeCollections: o.writeCollections,
    allowExcessAccess: Boolean(o.allowExcessAccess),
    minValidityDays: o.minValidityDays,
    warnValidityDays: o.warnValidityDays,
    deployCommand: o.deployCommand,
  };
  return { json: Boolean(o.json), options, grants, concurrency: o.concurrency };
}

async function main(io) {
  // The default key variable is redacted even before it is known to be the one in use.
  io.addSecret(io.env.QDRANT_API_KEY);
  const parsed = parseCommandLine(io.argv, io.env);
  if (parsed.help) {
    io.stdout(USAGE);
    return 0;
  }
  io.addSecret(parsed.options.apiKey);
  if (parsed.grants === undefined) {
    const report = await checkClusterAccess(parsed.options);
    io.stdout(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : [formatReport(report), ...formatWarnings(report)].map((l) => `${l}\n`).join(''));
    return report.ok ? 0 : 1;
  }
  const onReport = parsed.json ? undefined : (report) => io.stdout([formatReport(report), ...formatWarnings(report)].map((l) => `${l}\n`).join(''));
  const result = await checkMany(parsed.options, parsed.grants, { concurrency: parsed.concurrency, onReport });
  if (parsed.json) {
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    const summary = formatSummary(result, parsed.options.label);
    // On failure Terraform prints the command's whole output in its error: the summary ends it.
    if (summary) io.stdout(`${summary}\n`);
  }
  return result.ok ? 0 : 1;
}

if (require.main === module) runCli(PROG, main);

module.exports = { main, parseCommandLine, USAGE };
