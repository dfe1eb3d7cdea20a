'use strict';
/**
 * The CLI toolkit shared by the checker and the writer: one argument parser driven by the option
 * specs of protocol.js, one UsageError, one usage text generator, and one main() that maps errors
 * to exit codes and redacts every secret from everything printed. Node built-ins only.
 *
 * Exit codes: 0 done, 1 failed (the check failed, the file could not be written), 2 usage error.
 *
 * A key pasted in the wrong place must not come back in a message: an unknown option, the value
 * of an enum or number option, or a name in a list, is shown only when it is short (<= 20
 * characters) and not a JWT (eyJ...); values of string options never. "-flag=value" is split like
 * "--flag=value", so the value part of an unknown option is never shown either.
 */
const crypto = require('node:crypto');
const { mayBeKey, quote, redact, safeLine } = require('./text.js');
const { isEnvName } = require('./names.js');

/** A bad command line or bad input the user can fix. Exit code 2. */
class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = 'UsageError';
    this.code = 'ERR_QDRANT_USAGE';
  }
}

/** An error of the run itself (a check that cannot start, a file that cannot be written). Exit code 1. */
class RunError extends Error {
  constructor(message) {
    super(message);
    this.name = 'RunError';
  }
}

const FLAG_LOOKS_SECRET = /(^-k$)|key(?!-env)|token|secret|passw/i;

const NOT_SHOWN = '(not shown: it may be a key)';

/** A value for a message, quoted; undefined when it may be a key (long, or a JWT). */
function showable(raw) {
  return mayBeKey(raw) ? undefined : quote(String(raw));
}

/** `"value"`, or `a value (not shown: it may be a key)`. */
function shownValue(raw) {
  return showable(raw) ?? `a value ${NOT_SHOWN}`;
}

const NUMBER_RE = /^[0-9]+(\.[0-9]+)?$/;
const INTEGER_RE = /^(0|[1-9][0-9]*)$/;

/**
 * A list option's names, split at commas. Empty items (a,,b or a trailing comma) are skipped;
 * names are not trimmed (Qdrant allows spaces in collection names; the constructs refuse
 * surrounding whitespace), so a name with surrounding whitespace is refused, not repaired.
 */
function splitList(spec, raw) {
  const items = String(raw).split(',');
  if (items.every((s) => s.trim() === '')) {
    throw new UsageError(`${spec.flag} is an empty list; give one or more names separated by commas (${spec.valueName || 'A,B'}), or leave the option out`);
  }
  for (const item of items) {
    if (item !== '' && item.trim() !== item) {
      const shown = showable(item);
      throw new UsageError(`${spec.flag}: ${shown ? `name ${shown}` : `a name ${NOT_SHOWN}`} starts or ends with whitespace; ` +
        'names are not trimmed (Qdrant allows spaces in them): write A,B, not A, B');
    }
  }
  return items.filter((s) => s !== '');
}

/**
 * Whether `value` is the text whose sha256 is `hex` (64 hex digits; anything else is not).
 * The constructs hand over the hash of Terraform's value of a key variable next to the name of
 * its TF_VAR_..., which the checker and the writer read: -var and .tfvars files win over it.
 */
function sameSha256(value, hex) {
  if (typeof hex !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  return crypto.timingSafeEqual(crypto.createHash('sha256').update(String(value), 'utf8').digest(), Buffer.from(hex, 'hex'));
}

/**
 * How to set a key variable without the key on a command line (which the shell keeps in its
 * history): `read -rs` takes it from the terminal without showing it. Synth says the same.
 */
function setKeyHint(variable, deployCommand) {
  return `run read -rs ${variable} && export ${variable}, paste the key (it is neither shown nor kept in the shell's history), then ${deployCommand}`;
}

/** The message when TF_VAR_<name> is not the value Terraform uses for variable <name>: never a value or a hash. */
function variableSetTwice(variable) {
  return `${variable} in the environment is not the value Terraform uses for variable ${variable.slice('TF_VAR_'.length)} ` +
    `(it is also set by -var, a .tfvars or *.auto.tfvars file, or -var-file): give the key one way only, by exporting ${variable}`;
}

function range(spec) {
  return `${spec.min}-${spec.max}`;
}

/**
 * Checks one value against its option spec. Returns the typed value, or throws UsageError.
 * Values of type string are never echoed (they may be secrets pasted in the wrong place); enum,
 * number and list values only when showable. Numbers are plain decimals (no 0x10, 1e1, " 5" or 01).
 */
function coerce(spec, raw) {
  const shown = shownValue(raw);
  switch (spec.type) {
    case 'enum':
      if (!spec.values.includes(raw)) throw new UsageError(`${spec.flag} must be one of ${spec.values.join(', ')}; got ${shown}`);
      return raw;
    case 'number': {
      const plain = NUMBER_RE.test(String(raw));
      const n = Number(raw);
      if (!plain || n < spec.min || n > spec.max) {
        throw new UsageError(`${spec.flag} needs a number${spec.unit ? ` of ${spec.unit}` : ''} in ${range(spec)}; got ${shown}` +
          `${plain ? '' : '; write plain decimal digits, e.g. 10 or 2.5'}`);
      }
      return n;
    }
    case 'integer': {
      const plain = INTEGER_RE.test(String(raw));
      const n = Number(raw);
      if (!plain || n < spec.min || n > spec.max) {
        throw new UsageError(`${spec.flag} needs a whole number${spec.unit ? ` of ${spec.unit}` : ''} in ${range(spec)}; got ${shown}` +
          `${plain ? '' : '; write plain decimal digits without leading zeros, e.g. 3'}`);
      }
      return n;
    }
    case 'env-name':
      if (!isEnvName(raw)) {
        throw new UsageError(`${spec.flag} needs the NAME of an environment variable (letters, digits, _), not a value; ` +
          'the value given is not a valid name (not shown: it may be a key)');
      }
      return raw;
    case 'list':
      return splitList(spec, raw);
    case 'boolean':
      return true;
    default:
      return String(raw);
  }
}

/**
 * Parses `argv` (after the command) against `options` ({ name: spec }). Accepts `--flag value`,
 * `--flag=value` (and `-f=value`); `--` ends the options (what follows is positional). A value
 * taken from the next argument may not be one of the options (`--label --json` is refused).
 * Returns { values, positionals }; values holds only the options given.
 * `secretHint` is the message tail for an unknown flag that looks like it carries a key.
 */
function parseArgs(options, argv, secretHint) {
  const byFlag = new Map();
  for (const [name, spec] of Object.entries(options)) {
    byFlag.set(spec.flag, [name, spec]);
    for (const alias of spec.aliases || []) byFlag.set(alias, [name, spec]);
  }
  const values = {};
  const positionals = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const found = byFlag.get(flag);
    if (!found) {
      const shown = showable(flag);
      if (!shown) throw new UsageError(`unknown option ${NOT_SHOWN}; see --help for the options${secretHint ? `; ${secretHint}` : ''}`);
      if (FLAG_LOOKS_SECRET.test(flag) && secretHint) throw new UsageError(`unknown option ${shown}: ${secretHint}`);
      throw new UsageError(`unknown option ${shown} (see --help)`);
    }
    const [name, spec] = found;
    if (name in values) throw new UsageError(`option ${spec.flag} given twice`);
    if (spec.type === 'boolean') {
      if (eq > 0) throw new UsageError(`option ${spec.flag} takes no value`);
      values[name] = true;
      continue;
    }
    const raw = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (raw === undefined) throw new UsageError(`option ${spec.flag} needs a value (see --help)`);
    if (eq < 0 && (raw === '--' || byFlag.has(raw))) {
      throw new UsageError(`option ${spec.flag} needs a value; the next argument is the option ${raw} (see --help)`);
    }
    values[name] = coerce(spec, raw);
  }
  refuseInTwoLists(options, values);
  return { values, positionals };
}

/** A name given in two list options (read and write collections) contradicts itself: refused. */
function refuseInTwoLists(options, values) {
  const lists = Object.entries(options).filter(([name, spec]) => spec.type === 'list' && Array.isArray(values[name]));
  for (let a = 0; a < lists.length; a++) {
    for (let b = a + 1; b < lists.length; b++) {
      const both = values[lists[a][0]].find((n) => values[lists[b][0]].includes(n));
      if (both === undefined) continue;
      const [first, second] = [lists[a][1].flag, lists[b][1].flag];
      throw new UsageError(`${showable(both) ?? `a name ${NOT_SHOWN}`} is in both ${first} and ${second}; ` +
        `give it in one of them only (${second} if the apps write it)`);
    }
  }
}

/** The values given plus the defaults of the options not given. */
function withDefaults(options, values) {
  const out = {};
  for (const [name, spec] of Object.entries(options)) {
    if (values[name] !== undefined) out[name] = values[name];
    else if (spec.default !== undefined) out[name] = spec.default;
  }
  return out;
}

/** The options part of a usage text, generated from the specs (so help and parser never differ). */
function optionsHelp(options) {
  const lines = [];
  for (const spec of Object.values(options)) {
    const head = `  ${[spec.flag, ...(spec.aliases || [])].join(', ')}${spec.type === 'boolean' ? '' : ` ${spec.valueName || (spec.type === 'enum' ? spec.values.join('|') : 'VALUE')}`}`;
    const extra = [];
    if (spec.min !== undefined) extra.push(`${range(spec)}`);
    if (spec.defaultText !== undefined) extra.push(`default ${spec.defaultText}`);
    else if (spec.default !== undefined) extra.push(`default ${spec.default}`);
    const text = `${spec.describe}${extra.length ? ` (${extra.join(', ')})` : ''}`;
    lines.push(head.length < 26 ? `${head.padEnd(26)}${text}` : `${head}\n${''.padEnd(26)}${text}`);
  }
  return lines.join('\n');
}

/**
 * Runs a CLI: `main(io)` returns an exit code (or a promise of one). Every line written through io
 * is redacted of the secrets registered with io.addSecret. A UsageError exits 2, anything else 1.
 * @returns {Promise<number>} the exit code (also set on process.exitCode when io is the real one)
 */
async function runCli(prog, main, io = processIo()) {
  const secrets = [];
  const wrapped = {
    argv: io.argv,
    env: io.env,
    addSecret: (s) => { if (typeof s === 'string' && s !== '') secrets.push(s); },
    stdout: (text) => io.stdout(redact(text, secrets)),
    stderr: (text) => io.stderr(redact(text, secrets)),
  };
  let code;
  try {
    code = await main(wrapped);
  } catch (err) {
    if (err instanceof UsageError) {
      wrapped.stderr(`${prog}: error: ${safeLine(err.message, secrets, 1000)}\n`);
      code = 2;
    } else if (err instanceof RunError) {
      wrapped.stderr(`${prog}: error: ${safeLine(err.message, secrets, 1000)}\n`);
      code = 1;
    } else {
      wrapped.stderr(`${prog}: error: unexpected failure: ${safeLine(err && err.message ? err.message : String(err), secrets)}\n`);
      code = 1;
    }
  }
  if (io.setExitCode) io.setExitCode(code);
  return code;
}

/**
 * A reader that goes away before the run ends (`qdrant-cluster-access check ... | head -1`) makes
 * the next write fail with EPIPE, which Node raises as an uncaught error: a stack trace, and exit 1
 * whatever the checks found. The rest of that stream's output is dropped instead, as other
 * command-line tools do, and the run still exits with the code it decides.
 */
function dropOutputOnEpipe(stream) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') return;
    throw err;
  });
}

function processIo() {
  dropOutputOnEpipe(process.stdout);
  dropOutputOnEpipe(process.stderr);
  return {
    argv: process.argv.slice(2),
    env: process.env,
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    setExitCode: (c) => { process.exitCode = c; },
  };
}

module.exports = { UsageError, RunError, parseArgs, withDefaults, optionsHelp, runCli, coerce, showable, sameSha256, setKeyHint, variableSetTwice };
