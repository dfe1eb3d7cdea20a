#!/usr/bin/env node
'use strict';
/**
 * Writes (or removes) key references in an app's .env or JSON file. Run by Terraform's
 * local-exec at apply and destroy time:
 *
 *   QCA_ENTRIES='{"NAME":"value",...}' [QCA_ENTRIES_FROM_ENV='{"NAME":"ENV_VAR",...}']
 *       node cli.js write|remove --file PATH [--format dotenv|json] --owner NAME
 *
 * The entries come only from the environment, never the command line. QCA_ENTRIES holds the
 * values; QCA_ENTRIES_FROM_ENV names, per entry, another environment variable that holds the
 * value (how a key arrives: Terraform's own TF_VAR_<name>, inherited by local-exec). For
 * `remove` only the names matter, and QCA_ENTRIES may also be a JSON array of names.
 * QCA_LOCK_TIMEOUT_MS (optional) bounds the wait for another writer's lock (default 15000).
 *
 * What is ours: in a .env file, the lines inside owner's managed block (dotenv.js); in a JSON
 * file, the members its sidecar records for owner (json.js). `write` refuses, changing nothing,
 * when one of the names is already defined elsewhere; `remove` removes only what is ours, and
 * deletes the file when this tool created it and nothing else is left. How the file is read and
 * replaced, the lock, and what survives a kill: file.js.
 *
 * Output: one line with counts, never values. Exit codes: 0 done (also: nothing to remove),
 * 1 failure (the file is unchanged), 2 usage error; 143 / 130 when stopped by SIGTERM / SIGINT
 * (our temp file and lock are removed first; the file is the old or the new one).
 */
const dotenv = require('./dotenv.js');
const file = require('./file.js');
const json = require('./json.js');

// ---------- the command line (kept small: it moves onto the shared CLI toolkit later) ----------

const USAGE = 'usage: node cli.js write|remove --file PATH [--format dotenv|json] --owner NAME '
  + '(entries as a JSON object in env QCA_ENTRIES)';

class UsageError extends Error {}

function parseArgs(argv) {
  const [command, ...rest] = argv;
  if (command !== 'write' && command !== 'remove') throw new UsageError('expected command write or remove');
  const opts = { command, format: 'dotenv' };
  for (let i = 0; i < rest.length; i++) {
    let arg = rest[i];
    let val;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      val = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    } else if (['--file', '--format', '--owner'].includes(arg)) {
      if (i + 1 >= rest.length) throw new UsageError(`${arg} needs a value`);
      val = rest[++i];
    }
    if (arg === '--file') opts.file = val;
    else if (arg === '--format') opts.format = val;
    else if (arg === '--owner') opts.owner = val;
    else throw new UsageError(`unknown argument ${JSON.stringify(arg.slice(0, 40))}`);
  }
  if (!opts.file) throw new UsageError('--file is required');
  if (!opts.owner) throw new UsageError('--owner is required');
  if (opts.format !== 'dotenv' && opts.format !== 'json') throw new UsageError('--format must be dotenv or json');
  try {
    dotenv.checkOwner(opts.owner);
  } catch (err) {
    throw new UsageError(err.message);
  }
  return opts;
}

function readEntries(env, command) {
  const raw = env.QCA_ENTRIES;
  if (raw === undefined || raw === '') throw new UsageError('environment variable QCA_ENTRIES is not set');
  let entries;
  try {
    entries = JSON.parse(raw);
  } catch {
    throw new UsageError('QCA_ENTRIES is not valid JSON (expected an object of NAME: value)');
  }
  if (command === 'remove' && Array.isArray(entries)) {
    entries = Object.fromEntries(entries.map((n) => [n, '']));
  }
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries)) {
    throw new UsageError('QCA_ENTRIES must be a JSON object of NAME: value');
  }
  if (command === 'write') entries = { ...entries, ...entriesFromEnv(env) };
  for (const [name, value] of Object.entries(entries)) {
    try {
      dotenv.checkName(name);
    } catch (err) {
      throw new UsageError(`QCA_ENTRIES: ${err.message}`);
    }
    if (command === 'write' && typeof value !== 'string') {
      throw new UsageError(`QCA_ENTRIES: entry ${name} must be a string`);
    }
  }
  return entries;
}

class MissingValueError extends Error {}

/** Values named by QCA_ENTRIES_FROM_ENV: { NAME: process.env[ENV_VAR] }. */
function entriesFromEnv(env) {
  const raw = env.QCA_ENTRIES_FROM_ENV;
  if (raw === undefined || raw === '') return {};
  let refs;
  try {
    refs = JSON.parse(raw);
  } catch {
    throw new UsageError('QCA_ENTRIES_FROM_ENV is not valid JSON (expected an object of NAME: ENV_VAR)');
  }
  if (refs === null || typeof refs !== 'object' || Array.isArray(refs)) {
    throw new UsageError('QCA_ENTRIES_FROM_ENV must be a JSON object of NAME: ENV_VAR');
  }
  const out = {};
  for (const [name, variable] of Object.entries(refs)) {
    if (typeof variable !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) {
      throw new UsageError(`QCA_ENTRIES_FROM_ENV: entry ${name.slice(0, 64)} must name an environment variable`);
    }
    const value = env[variable];
    if (value === undefined || value === '') {
      const hint = variable.startsWith('TF_VAR_')
        ? `export ${variable} before cdktf deploy (a value given with -var or a .tfvars file does not reach this step)`
        : 'set it in the provisioner\'s environment';
      throw new MissingValueError(`entry ${name.slice(0, 64)}: environment variable ${variable} is not set or empty; ${hint}`);
    }
    out[name] = value;
  }
  return out;
}

// ---------- the work ----------

function entriesWord(n) {
  return `${n} ${n === 1 ? 'entry' : 'entries'}`;
}

/** The transform for updateFile: plans with dotenv.js, fills `out.plan`. */
function dotenvTransform(command, entries, owner, out) {
  return (text) => {
    if (command === 'write') {
      out.plan = dotenv.planMerge(text, entries, { owner });
      return out.plan.text;
    }
    out.plan = dotenv.planRemove(text, Object.keys(entries), { owner });
    return out.plan.deleteFile ? file.DELETE : out.plan.text;
  };
}

/** The transform for updateFile with a sidecar: plans with json.js, fills `out.plan`. */
function jsonTransform(command, entries, owner, sidecarName, out) {
  return (text, sideText) => {
    const side = json.parseSidecar(sideText, sidecarName);
    if (command === 'write') {
      out.plan = json.planMerge(text, side, entries, { owner, sidecarName });
      const sidecar = out.plan.sidecar ? json.renderSidecar(out.plan.sidecar) : null;
      return { text: out.plan.text, sidecar, sidecarFirst: true };
    }
    out.plan = json.planRemove(text, side, Object.keys(entries), { owner, sidecarName });
    const sidecar = out.plan.sidecar ? json.renderSidecar(out.plan.sidecar) : (sideText == null ? null : file.DELETE);
    return { text: out.plan.deleteFile ? file.DELETE : out.plan.text, sidecar, sidecarFirst: false };
  };
}

/** Does the work; returns the summary line. Throws FileError or LockError (one line) on failure. */
async function apply({ command, format, file: target, owner }, entries, fileOpts) {
  const out = { plan: null };
  let res;
  let sidecarName;
  if (format === 'json') {
    const sidecar = json.sidecarPath(target);
    sidecarName = sidecar;
    res = await file.updateFile(target, jsonTransform(command, entries, owner, sidecarName, out), { ...fileOpts, sidecar });
  } else {
    res = await file.updateFile(target, dotenvTransform(command, entries, owner, out), fileOpts);
  }
  const p = out.plan;
  const n = Object.keys(entries).length;
  if (command === 'write') {
    const extra = [
      p.unchanged.length ? `${p.unchanged.length} unchanged` : '',
      res.existed || !res.changed ? '' : 'file created',
    ].filter(Boolean).map((x) => `, ${x}`).join('');
    return `wrote ${entriesWord(n)} to ${target} (${p.updated.length} updated, ${p.added.length} added${extra})`;
  }
  const notOurs = p.notOurs.length ? `, ${p.notOurs.length} not ours left in place` : '';
  let note = '';
  if (!res.existed) note = ', file does not exist';
  else if (p.noBlock) note = `; no managed block of owner ${owner} in it, nothing changed`;
  else if (p.noRecord) note = `; ${sidecarName} records no entries of owner ${owner}, nothing changed`;
  else if (res.deleted) note = ', file deleted: this tool had created it';
  return `removed ${entriesWord(p.removed.length)} from ${target} (${p.absent.length} not present${notOurs}${note})`;
}

/** Runs the CLI; resolves to { code, stdout, stderr } (strings without trailing newline, or ''). */
async function run(argv, env) {
  let opts;
  let entries;
  try {
    opts = parseArgs(argv);
    entries = readEntries(env, opts.command);
  } catch (err) {
    if (err instanceof UsageError) return { code: 2, stdout: '', stderr: `error: ${err.message}\n${USAGE}` };
    if (err instanceof MissingValueError) return { code: 1, stdout: '', stderr: `error: ${err.message}; ${opts.file} was not changed` };
    throw err;
  }
  const warnings = [];
  const fileOpts = { warn: (m) => warnings.push(m) };
  const lockMs = Number(env.QCA_LOCK_TIMEOUT_MS);
  if (Number.isFinite(lockMs) && lockMs > 0) fileOpts.lockTimeoutMs = lockMs;
  try {
    const line = await apply(opts, entries, fileOpts);
    return { code: 0, stdout: line, stderr: warnings.join('\n') };
  } catch (err) {
    if (!(err instanceof file.FileError || err instanceof file.LockError)) throw err;
    warnings.push(`error: ${err.message}`);
    return { code: 1, stdout: '', stderr: warnings.join('\n') };
  }
}

/** Last line of defence: no entry value may ever reach the output. */
function redact(text, env) {
  let values = [];
  try {
    const parsed = JSON.parse(env.QCA_ENTRIES || '{}');
    if (parsed && typeof parsed === 'object') values = Object.values(parsed);
  } catch { /* nothing to redact */ }
  try {
    const refs = JSON.parse(env.QCA_ENTRIES_FROM_ENV || '{}');
    if (refs && typeof refs === 'object') values.push(...Object.values(refs).map((v) => env[v]));
  } catch { /* nothing to redact */ }
  values = values.filter((v) => typeof v === 'string' && v.length >= 4);
  for (const v of values) text = text.split(v).join('[redacted]');
  return text;
}

const SIGNAL_EXIT = { SIGTERM: 143, SIGINT: 130 };

function main() {
  for (const [signal, code] of Object.entries(SIGNAL_EXIT)) {
    process.once(signal, () => {
      file.cleanupForExit();
      process.stderr.write(`error: stopped by ${signal}; the file keeps its previous or its new content, never a mix; run the command again\n`);
      process.exit(code);
    });
  }
  run(process.argv.slice(2), process.env).catch((err) => (
    { code: 1, stdout: '', stderr: `error: unexpected failure (${err && (err.code || err.name)})` }
  )).then((res) => {
    file.cleanupForExit();
    if (res.stdout) process.stdout.write(redact(res.stdout, process.env) + '\n');
    if (res.stderr) process.stderr.write(redact(res.stderr, process.env) + '\n');
    process.exitCode = res.code;
  });
}

if (require.main === module) main();

module.exports = { run, parseArgs, UsageError };
