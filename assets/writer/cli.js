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
 * Output: one line with counts, never values.
 * Exit codes: 0 done, 1 failure (file unchanged), 2 usage error.
 */
const { planMerge, planRemove, checkName, checkOwner } = require('./dotenv.js');
const { updateFile } = require('./file.js');

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
    checkOwner(opts.owner);
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
      checkName(name);
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

// ---------- JSON files: edit the top-level object in place, keeping all other bytes ----------

function jsonLineOf(text, err) {
  const m = /position (\d+)/.exec(err && err.message ? err.message : '');
  if (!m) return '';
  return ` (line ${text.slice(0, Number(m[1])).split('\n').length})`;
}

function skipWs(text, i) {
  while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
  return i;
}

function skipString(text, i) {
  i++; // opening quote
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

function skipValue(text, i) {
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    do {
      const d = text[i];
      if (d === '"') {
        i = skipString(text, i);
        continue;
      }
      if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') depth--;
      i++;
    } while (depth > 0);
    return i;
  }
  while (i < text.length && !',}] \t\r\n'.includes(text[i])) i++;
  return i;
}

/** Scans valid JSON text holding an object: { open, close, members: [{ key, start, valStart, valEnd }] }. */
function scanJsonObject(text) {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`not valid JSON${jsonLineOf(text, err)}; fix it or choose another file`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error('the JSON file does not hold an object at the top level');
  }
  const open = skipWs(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  const members = [];
  let i = skipWs(text, open + 1);
  if (text[i] === '}') return { open, close: i, members };
  for (;;) {
    const start = i;
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(start, keyEnd));
    i = skipWs(text, keyEnd) + 1; // ':'
    const valStart = skipWs(text, i);
    const valEnd = skipValue(text, valStart);
    members.push({ key, start, valStart, valEnd });
    i = skipWs(text, valEnd);
    if (text[i] === ',') {
      i = skipWs(text, i + 1);
      continue;
    }
    return { open, close: i, members };
  }
}

function jsonMerge(text, entries) {
  const names = Object.keys(entries);
  if (text == null || text.trim() === '') {
    const body = names.map((n) => `  ${JSON.stringify(n)}: ${JSON.stringify(entries[n])}`).join(',\n');
    return { text: names.length ? `{\n${body}\n}\n` : '{}\n', added: names, updated: [], unchanged: [] };
  }
  const scan = scanJsonObject(text);
  const seen = new Set();
  const changed = new Set();
  // Replace existing values from the end so earlier offsets stay valid.
  let out = text;
  for (const m of [...scan.members].reverse()) {
    if (!Object.prototype.hasOwnProperty.call(entries, m.key)) continue;
    seen.add(m.key);
    const v = JSON.stringify(entries[m.key]);
    if (out.slice(m.valStart, m.valEnd) !== v) {
      changed.add(m.key);
      out = out.slice(0, m.valStart) + v + out.slice(m.valEnd);
    }
  }
  const added = names.filter((n) => !seen.has(n));
  if (added.length) {
    const s2 = scanJsonObject(out);
    const nl = out.includes('\r\n') ? '\r\n' : '\n';
    let indent = '  ';
    if (s2.members.length) {
      const before = out.slice(0, s2.members[0].start);
      const im = /\n([ \t]*)$/.exec(before);
      if (im) indent = im[1];
    }
    const lines = added.map((n) => `${indent}${JSON.stringify(n)}: ${JSON.stringify(entries[n])}`);
    if (s2.members.length) {
      const at = s2.members[s2.members.length - 1].valEnd;
      out = out.slice(0, at) + lines.map((l) => ',' + nl + l).join('') + out.slice(at);
    } else {
      out = out.slice(0, s2.open + 1) + nl + lines.join(',' + nl) + nl + out.slice(s2.close);
    }
  }
  return {
    text: out,
    added,
    updated: names.filter((n) => changed.has(n)),
    unchanged: names.filter((n) => seen.has(n) && !changed.has(n)),
  };
}

function jsonRemove(text, names) {
  if (text == null || text.trim() === '') return { text, removed: [], absent: names };
  let out = text;
  const removed = new Set();
  for (;;) {
    const scan = scanJsonObject(out);
    const idx = scan.members.findIndex((m) => names.includes(m.key));
    if (idx < 0) break;
    const m = scan.members[idx];
    removed.add(m.key);
    if (idx > 0) out = out.slice(0, scan.members[idx - 1].valEnd) + out.slice(m.valEnd);
    else if (scan.members.length > 1) out = out.slice(0, m.start) + out.slice(scan.members[1].start);
    else out = out.slice(0, scan.open + 1) + out.slice(scan.close);
  }
  return { text: out, removed: names.filter((n) => removed.has(n)), absent: names.filter((n) => !removed.has(n)) };
}

// ---------------------------------------------------------------------------------------------

function entriesWord(n) {
  return `${n} ${n === 1 ? 'entry' : 'entries'}`;
}

/** Runs the CLI; returns { code, stdout, stderr } (strings without trailing newline, or ''). */
function run(argv, env) {
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
  const owner = opts.owner;
  const warnings = [];
  const fileOpts = { warn: (m) => warnings.push(m) };
  const lockMs = Number(env.QCA_LOCK_TIMEOUT_MS);
  if (Number.isFinite(lockMs) && lockMs > 0) fileOpts.lockTimeoutMs = lockMs;
  let result = null;
  try {
    const names = Object.keys(entries);
    const res = updateFile(opts.file, (text) => {
      if (opts.command === 'write') {
        result = opts.format === 'json' ? jsonMerge(text, entries) : planMerge(text, entries, { owner });
        return result.text;
      }
      if (text == null) {
        result = { removed: [], absent: names };
        return null;
      }
      result = opts.format === 'json' ? jsonRemove(text, names) : planRemove(text, names, { owner });
      return result.text;
    }, fileOpts);
    let line;
    if (opts.command === 'write') {
      const extra = result.unchanged.length ? `, ${result.unchanged.length} unchanged` : '';
      line = `wrote ${entriesWord(names.length)} to ${opts.file} (${result.updated.length} updated, ${result.added.length} added${extra})`;
    } else {
      const note = res.existed ? '' : ', file does not exist';
      line = `removed ${entriesWord(result.removed.length)} from ${opts.file} (${result.absent.length} not present${note})`;
    }
    return { code: 0, stdout: line, stderr: warnings.join('\n') };
  } catch (err) {
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

function main() {
  let res;
  try {
    res = run(process.argv.slice(2), process.env);
  } catch (err) {
    res = { code: 1, stdout: '', stderr: `error: unexpected failure (${err && (err.code || err.name)})` };
  }
  if (res.stdout) process.stdout.write(redact(res.stdout, process.env) + '\n');
  if (res.stderr) process.stderr.write(redact(res.stderr, process.env) + '\n');
  process.exitCode = res.code;
}

if (require.main === module) main();

module.exports = { run, parseArgs, jsonMerge, jsonRemove, UsageError };
