#!/usr/bin/env node
/**
 * The checker's CLI, one process per key (Terraform's local-exec). Beyond runtime/cli.ts's redaction, the values of the
 * variables --key-env and --key-sha256-env name, and any JWT printed, are secrets before parsing.
 */
import { parseJson } from './answers';
import { checkMany } from './batch';
import { checkClusterAccess } from './check';
import type { CheckOptions, Grant, SharedCheckOptions } from './options';
import { CheckReport, formatReport, formatSummary, formatWarnings } from './report';
import { EXTRA_ARGUMENT, optionsHelp, parseArgs, withDefaults } from '../runtime/args';
import { RunIo, envValue, runCli } from '../runtime/cli';
import { RuntimeError } from '../runtime/errors';
import { readInputFile, resolveValue } from '../runtime/input-file';
import { sameSha256, setKeyHint, variableSetTwice } from '../runtime/key-variable';
import { CHECK_OPTIONS, VERIFY_KEY_OPTIONS } from '../runtime/protocol';

const PROG = 'qdrant-cluster-access';

export const USAGE = `Usage: ${PROG} check --url <base_url> [options]
       ${PROG} check --grants-env NAME [options]
       ${PROG} check --grants-file FILE [--grants-sha256 HEX] [options]
       ${PROG} verify-key --key-env NAME --key-sha256-env NAME

Proves that an API key works on a Qdrant cluster, and has the access its apps need:
  root      GET <url>/ without the key: must answer Qdrant's version JSON (asked again with
            the key only when the Qdrant Cloud edge refuses it), so the key goes nowhere
            that has not shown to be Qdrant. It proves nothing about the key.
  key       GET <url>/collections with the key: 200 = key accepted; 401/403 = key
            rejected (403 ExpiredSignature = key expired).
  enforced  GET <url>/collections without a key: must be refused (401/403); a 200
            means anyone can use the cluster, which fails unless --allow-open.
  access    with --access, --read-collections or --write-collections: side-effect-free
            probes (an empty alias batch, collection exists, an empty delete) prove the
            declared access, and no more.
  grpc      with --grpc-url: Qdrant/HealthCheck, then (once root passed) Collections/List
            with and without the key.
  expiry    a key that is a JWT: its expiry date, against --min-validity-days.

Options:
${optionsHelp(CHECK_OPTIONS)}

TLS is always verified, whatever NODE_TLS_REJECT_UNAUTHORIZED says. Redirects are not followed
(the key would go elsewhere). The key is read from the environment, never from an argument.

Output, one line per cluster, and warning lines: a key that expires soon, access beyond the declared
that --allow-excess-access lets pass, declared access on an open cluster:
  ok   search-api → prod-eu  qdrant 1.18.3  key accepted, keys enforced  expires 2027-02-20 (in 90 days)  184 ms
  FAIL search-api → prod-eu  step key: key rejected (401 Invalid API key or JWT); check the key's clusters in the console (setup guide, section 2), set the variable again (setup guide, section 3), or create a new key  52 ms

verify-key contacts no cluster and prints nothing when it passes: the key variable is set and
holds the key whose sha256 --key-sha256-env names (the deploy runs it ahead of an ephemeral key's
check and writes).

Exit codes: 0 all steps passed; 1 the check failed; 2 usage error (bad option, URL or
number; key variable missing or empty, or not the key --key-sha256-env names).
`;

const SECRET_FLAG_HINT = 'keys are never taken as arguments (they would show in the process list and shell history); ' +
  'put the key in the environment variable QDRANT_API_KEY, or name another variable with --key-env NAME';

/** A JWT, or one cut short: "eyJ" (`{"` in base64url) starting a word (not honeyJar-search), up to two more parts. */
const JWT_RE = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{6,}(?:\.[A-Za-z0-9_-]*){0,2}/g;

function withoutJwts(text: string): string {
  return String(text).replace(JWT_RE, '[redacted]');
}

/**
 * How a message names variable `name`, given with `flag` (none for --key-env): shown only when it
 * reads like a name (TF_VAR_..., or short, upper case or with "_"); anything else may be a key.
 */
function describeVariable(name: string, flag?: string): string {
  const readsLikeName = name.startsWith('TF_VAR_') || (name.length <= 40 &&
    (name.includes('_') || name === name.toUpperCase()) && name.split('_').every((part) => part.length <= 16));
  if (!readsLikeName) return `environment variable named by ${flag || CHECK_OPTIONS.keyEnv.flag} (not shown: it may be a key)`;
  return flag ? `environment variable ${name} (${flag})` : `environment variable ${name}`;
}

/** The secrets to register before parsing: the values of the variables --key-env and --key-sha256-env name, and every JWT. */
function secretsInArgs(argv: readonly string[], env: RunIo['env']): (string | undefined)[] {
  const secrets: (string | undefined)[] = [];
  argv.forEach((arg, i) => {
    for (const flag of [CHECK_OPTIONS.keyEnv.flag, CHECK_OPTIONS.keySha256Env.flag]) {
      const name = arg === flag ? argv[i + 1] : arg.startsWith(`${flag}=`) ? arg.slice(flag.length + 1) : undefined;
      if (name !== undefined) secrets.push(envValue(env, name));
    }
    secrets.push(...(String(arg).match(JWT_RE) || []));
  });
  return secrets;
}

/** With --key-sha256-env: the key must be the one whose sha256 it holds (TF_VAR_ loses to -var and .tfvars). Nothing of either is shown. */
function checkKeyHash(o: { keyEnv: string; keySha256Env: string }, env: RunIo['env'], apiKey: string): void {
  const expected = envValue(env, o.keySha256Env);
  const variable = describeVariable(o.keySha256Env, CHECK_OPTIONS.keySha256Env.flag);
  if (expected === undefined || expected === '') {
    throw new RuntimeError(`${variable} ${expected === undefined ? 'is not set' : 'is empty'}: set it to the sha256 (hex) of the key, or leave out ${CHECK_OPTIONS.keySha256Env.flag}`);
  }
  if (!/^[0-9a-fA-F]{64}$/.test(expected)) {
    throw new RuntimeError(`${variable} does not hold a sha256 of 64 hex digits (value not shown); set it to the sha256 (hex) of the key`);
  }
  if (sameSha256(apiKey, expected)) return;
  if (o.keyEnv.startsWith('TF_VAR_')) throw new RuntimeError(variableSetTwice(o.keyEnv));
  throw new RuntimeError(`the key in ${describeVariable(o.keyEnv)} is not the one whose sha256 is in ${variable}; give the key that hash was made from`);
}

/** The key in the variable --key-env names (missing, empty or blank: a usage error), checked against --key-sha256-env. */
function readKey(o: { keyEnv: string; keySha256Env?: string; deployCommand: string }, keyEnvGiven: boolean, env: RunIo['env']): string {
  const apiKey = envValue(env, o.keyEnv);
  if (apiKey === undefined || apiKey.trim() === '') {
    const state = apiKey === undefined ? 'is not set' : apiKey === '' ? 'is empty' : 'holds only whitespace';
    const variable = describeVariable(o.keyEnv);
    const hint = variable.includes('(not shown') ? ': --key-env takes the NAME of the variable that holds the key, not the key'
      : o.keyEnv.startsWith('TF_VAR_')
        ? `: ${setKeyHint(o.keyEnv, o.deployCommand)} (a value given with -var or a .tfvars file does not reach the check)`
        : keyEnvGiven ? `: put the API key in ${o.keyEnv}` : `: put the API key in ${o.keyEnv} (or name another variable with --key-env NAME)`;
    throw new RuntimeError(`${variable} ${state}${hint}`);
  }
  if (o.keySha256Env !== undefined) checkKeyHash({ keyEnv: o.keyEnv, keySha256Env: o.keySha256Env }, env, apiKey);
  return apiKey;
}

/** `verify-key`: the key variable alone (see VERIFY_KEY_OPTIONS). Throws a usage error. */
function verifyKey(rest: readonly string[], env: RunIo['env']): { help: true } | { help?: undefined; verified: true } {
  const { values, positionals } = parseArgs(VERIFY_KEY_OPTIONS, rest, SECRET_FLAG_HINT);
  if (values.help) return { help: true };
  if (positionals.length > 0) throw new RuntimeError(EXTRA_ARGUMENT);
  const o = withDefaults(VERIFY_KEY_OPTIONS, values);
  if (o.keySha256Env === undefined) throw new RuntimeError(`verify-key needs ${CHECK_OPTIONS.keySha256Env.flag} NAME: the variable holding the sha256 of the key`);
  readKey(o, values.keyEnv !== undefined, env);
  return { verified: true };
}

/** The JSON of --grants-env's variable (`source` names it). */
function grantsJson(raw: string | undefined, source: string): unknown {
  if (raw === undefined || raw === '') throw new RuntimeError(`${source} is not set or empty`);
  const parsed = parseJson(raw);
  if (parsed === undefined) throw new RuntimeError(`${source} is not valid JSON; expected a list of {"label","url","grpcUrl"}`);
  return parsed;
}

/** Turns argv and the environment into what to run, or { help: true }. Throws a usage error. */
export function parseCommandLine(argv: readonly string[], env: RunIo['env']): { help: true } | { help?: undefined; verified: true }
  | { help?: undefined; verified?: undefined; json: boolean; options: SharedCheckOptions & Partial<Grant>; grants?: Grant[]; concurrency: number } {
  const [command, ...rest] = argv;
  if (command === undefined) throw new RuntimeError(`missing command: use '${PROG} check --url <base_url>' (see --help)`);
  if (command === '--help' || command === '-h' || command === 'help') return { help: true };
  if (command === 'verify-key') return verifyKey(rest, env);
  if (command !== 'check') {
    const shown = /^[a-z][a-z-]{0,19}$/.test(command) ? `'${command}'` : '(not shown)';
    throw new RuntimeError(`unknown command ${shown}: the commands are 'check' and 'verify-key' (see --help)`);
  }
  const { values, positionals } = parseArgs(CHECK_OPTIONS, rest, SECRET_FLAG_HINT);
  if (values.help) return { help: true };
  if (positionals.length > 0) throw new RuntimeError(EXTRA_ARGUMENT);
  const o = withDefaults(CHECK_OPTIONS, values);
  if ([o.url, o.grantsEnv, o.grantsFile].filter((v) => v !== undefined).length !== 1) {
    throw new RuntimeError('give one of --url <base_url> (one cluster), --grants-env NAME or --grants-file FILE (several)');
  }
  if (o.url === undefined && o.grpcUrl !== undefined) {
    throw new RuntimeError(`--grpc-url goes with --url; with ${o.grantsEnv !== undefined ? '--grants-env' : '--grants-file'}, give "grpcUrl" in each grant`);
  }
  if (o.grantsSha256 !== undefined && o.grantsFile === undefined) throw new RuntimeError('--grants-sha256 goes with --grants-file');
  const apiKey = readKey(o, values.keyEnv !== undefined, env);
  let grants: Grant[] | undefined;
  if (o.url === undefined) {
    const source = o.grantsFile !== undefined ? `grants file ${JSON.stringify(o.grantsFile)}`
      : describeVariable(o.grantsEnv as string, CHECK_OPTIONS.grantsEnv.flag);
    const parsed = o.grantsFile !== undefined ? readInputFile(o.grantsFile, o.grantsSha256, 'grants file')
      : grantsJson(envValue(env, o.grantsEnv as string), source);
    if (!Array.isArray(parsed) || parsed.length === 0) throw new RuntimeError(`${source} must be a non-empty JSON list of {"label","url","grpcUrl"}`);
    // fromEntries keeps every member an own property, "__proto__" too (checkGrantList refuses it).
    grants = parsed.map((g: unknown, i) => (g && typeof g === 'object' && !Array.isArray(g)
      ? Object.fromEntries(Object.entries(g).map(([k, v]) => [k, resolveValue(v, env, `grant ${i + 1} ${k}`)])) : g) as Grant);
  }
  // The API's options (SharedCheckOptions, Grant): the command line's of the same name, and four it names otherwise.
  const { ca, timeout, deadline, allowOpen, json, concurrency, keyEnv, keySha256Env, grantsEnv, grantsFile, grantsSha256, ...same } = o;
  const options = {
    ...same,
    apiKey,
    caFile: ca,
    timeoutSeconds: timeout,
    deadlineSeconds: deadline,
    requireAuth: !allowOpen,
    allowExcessAccess: Boolean(o.allowExcessAccess),
  };
  return { json: Boolean(json), options, grants, concurrency };
}

export async function main(io: RunIo): Promise<number> {
  // The default key variable is redacted even before it is known to be the one in use.
  io.addSecret(io.env.QDRANT_API_KEY);
  for (const secret of secretsInArgs(io.argv, io.env)) io.addSecret(secret);
  try {
    return await run({ ...io, stdout: (text) => io.stdout(withoutJwts(text)) });
  } catch (err) {
    if (err instanceof Error) err.message = withoutJwts(err.message);
    throw err;
  }
}

async function run(io: RunIo): Promise<number> {
  const parsed = parseCommandLine(io.argv, io.env);
  if (parsed.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (parsed.verified) return 0;
  io.addSecret(parsed.options.apiKey);
  const lines = (report: CheckReport) => [formatReport(report), ...formatWarnings(report)].map((l) => `${l}\n`).join('');
  if (parsed.grants === undefined) {
    const report = await checkClusterAccess(parsed.options as CheckOptions);
    io.stdout(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : lines(report));
    return report.ok ? 0 : 1;
  }
  const onReport = parsed.json ? undefined : (report: CheckReport) => io.stdout(lines(report));
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

if (require.main === module) void runCli(PROG, main);
