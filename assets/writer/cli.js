#!/usr/bin/env node
'use strict';
/**
 * Writes (or removes) key references in an app's .env or JSON file. Run by Terraform's
 * local-exec at apply and destroy time:
 *
 *   QCA_ENTRIES='{"NAME":"value",...}' [QCA_ENTRIES_FROM_ENV='{"NAME":"ENV_VAR",...}']
 *       node cli.js write|remove --file PATH [--format dotenv|json] --owner NAME
 *   QCA_FILES='[{"file":PATH,"format":"dotenv"|"json"},...]' QCA_KEEP_FILES='[...]'
 *       node cli.js remove-dropped --owner NAME
 *
 * The entries come only from the environment, never the command line. QCA_ENTRIES holds the
 * values; QCA_ENTRIES_FROM_ENV names, per entry, another environment variable that holds the
 * value (how a key arrives: Terraform's own TF_VAR_<name>, inherited by local-exec). For
 * `remove` only the names matter, and QCA_ENTRIES may also be a JSON array of names (`[]`: none).
 * QCA_LOCK_TIMEOUT_MS (optional) bounds the wait for another writer's lock (default 15000).
 *
 * What is ours: in a .env file, the names that owner's managed block records and the lines of
 * those names inside the block (dotenv.js); in a JSON file, the members its sidecar records for
 * owner (json.js). `write` sets owner's entries to exactly the given ones: it refuses, changing
 * nothing, when one of the names is already defined elsewhere, and drops owner's recorded names
 * that are no longer given. `remove` removes every entry recorded for owner, plus the names given
 * (a block written before the record existed records nothing), only inside what is ours, and
 * deletes the file when this tool created it and nothing else is left. `remove-dropped` does
 * `remove` for each file of QCA_FILES that QCA_KEEP_FILES does not list (the destroy step of a
 * ClusterAccess's Files record: the files it wrote to, and those it still writes to). How the file is read and
 * replaced, the lock, and what survives a kill: file.js.
 *
 * Options and environment variables: runtime/protocol.js (FILE_OPTIONS, WRITER_ENV); parsing and
 * exit codes: runtime/cli.js. Output: one line with counts, never values. Exit codes: 0 done (also: nothing to remove),
 * 1 failure (the file is unchanged), 2 usage error; 143 / 130 when stopped by SIGTERM / SIGINT
 * (our temp file and lock are removed first; the file is the old or the new one).
 */
const dotenv = require('./dotenv.js');
const file = require('./file.js');
const json = require('./json.js');
const { FILE_OPTIONS, DROPPED_OPTIONS, WRITER_ENV } = require('../runtime/protocol.js');
const { UsageError, RunError, parseArgs, withDefaults, optionsHelp, runCli, showable, sameSha256, setKeyHint, variableSetTwice } = require('../runtime/cli.js');
const { isEnvName, isOwner, OWNER_RULE } = require('../runtime/names.js');
const { mayBeKey, stripControl } = require('../runtime/text.js');

const PROG = 'qdrant-cluster-access-writer';

const USAGE = `Usage: ${PROG} write|remove --file PATH [--format dotenv|json] --owner NAME
       ${PROG} remove-dropped --owner NAME

Entries come from the environment, never the command line: ${WRITER_ENV.entries} holds a JSON object
of NAME: value (for remove, a JSON array of names is accepted too), and ${WRITER_ENV.entriesFromEnv}
a JSON object of NAME: ENV_VAR naming the variable that holds a value (a key).

write sets the owner's entries in the file to exactly these (names it wrote before and no longer
gets are removed); remove takes out every entry the file records for the owner, and the names given.
remove-dropped does what remove does for each file of ${WRITER_ENV.files} (a JSON array of
{"file","format","target"}: the files the owner wrote to, and the targets that wrote them) that
${WRITER_ENV.keepFiles} (the same shape: the files it still writes to) does not list, except a file
whose target ${WRITER_ENV.keepFiles} still lists: that target's own removal step cleans it.

Options:
${optionsHelp(FILE_OPTIONS)}
`;

// ---------- the command line ----------

function parseCommandLine(argv) {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h') return { help: true };
  if (command === 'remove-dropped') return parseDropped(rest);
  if (command !== 'write' && command !== 'remove') {
    throw new UsageError(`expected the command write, remove or remove-dropped; got ${showable(command === undefined ? '' : command) ?? 'an argument (not shown: it may be a key)'}`);
  }
  const { values, positionals } = parseArgs(FILE_OPTIONS, rest);
  if (values.help) return { help: true };
  if (positionals.length > 0) throw new UsageError('unexpected extra argument (not shown, it may be a secret); options start with -- (see --help)');
  const o = withDefaults(FILE_OPTIONS, values);
  if (o.file === undefined) throw new UsageError('--file is required');
  if (o.file === '') throw new UsageError('--file is empty; give the path of the .env or JSON file');
  if (o.owner === undefined) throw new UsageError('--owner is required');
  if (o.owner === '') throw new UsageError('--owner is empty; give the construct path of the ClusterAccess that owns the entries');
  if (!isOwner(o.owner)) throw new UsageError(`--owner ${showable(o.owner) ?? '(not shown: it may be a key)'} is not valid: ${OWNER_RULE}`);
  return { command, file: o.file, format: o.format, owner: o.owner, deployCommand: o.deployCommand };
}

function parseDropped(rest) {
  const { values, positionals } = parseArgs(DROPPED_OPTIONS, rest);
  if (values.help) return { help: true };
  if (positionals.length > 0) throw new UsageError('unexpected extra argument (not shown, it may be a secret); options start with -- (see --help)');
  const o = withDefaults(DROPPED_OPTIONS, values);
  if (o.owner === undefined || o.owner === '') throw new UsageError('--owner is required: the construct path of the ClusterAccess that owns the entries');
  if (!isOwner(o.owner)) throw new UsageError(`--owner ${showable(o.owner) ?? '(not shown: it may be a key)'} is not valid: ${OWNER_RULE}`);
  return { command: 'remove-dropped', owner: o.owner };
}

/** A list of {file, format, target?} from environment variable `name` ([] when unset or empty). */
function fileList(env, name) {
  const raw = env[name];
  if (raw === undefined || raw === '') return [];
  let list;
  try {
    list = JSON.parse(raw);
  } catch {
    throw new UsageError(`${name} is not valid JSON (expected a list of {"file","format"})`);
  }
  const valid = Array.isArray(list) && list.every((f) => f && typeof f === 'object' && typeof f.file === 'string' && f.file !== '' &&
    FILE_OPTIONS.format.values.includes(f.format) && (f.target === undefined || (typeof f.target === 'string' && f.target !== '')));
  if (!valid) throw new UsageError(`${name} must be a JSON list of {"file": PATH, "format": "dotenv" or "json", "target": PATH (optional)}`);
  return list;
}

/** remove-dropped: removes the owner's entries from each file it no longer writes to; a line per file. */
async function removeDropped(owner, env, fileOpts) {
  const keepList = fileList(env, WRITER_ENV.keepFiles);
  const keep = new Set(keepList.map((f) => `${f.format}:${f.file}`));
  const dropped = fileList(env, WRITER_ENV.files).filter((f) => !keep.has(`${f.format}:${f.file}`));
  // A target still configured, now for another file: Terraform replaces its Registration in this
  // deploy, and that destroy step takes the entries out of the old file (see cluster-access.ts).
  const configured = new Set(keepList.map((f) => f.target).filter((t) => t !== undefined));
  const lines = [];
  const failed = [];
  for (const f of dropped) {
    if (f.target !== undefined && configured.has(f.target)) {
      lines.push(`${f.file}: left to ${f.target}, whose replaced registration takes owner ${owner}'s entries out of it`);
      continue;
    }
    try {
      lines.push(await apply({ command: 'remove', format: f.format, file: f.file, owner }, {}, fileOpts));
    } catch (err) {
      if (!(err instanceof file.FileError || err instanceof file.LockError)) throw err;
      failed.push(err.message);
    }
  }
  if (failed.length > 0) {
    // The others are done; Terraform runs this again at the next deploy.
    throw new RunError(`${failed.join('; ')}${lines.length ? ` (done: ${lines.length} other file${lines.length === 1 ? '' : 's'})` : ''}`);
  }
  return dropped.length === 0 ? [`no file dropped by owner ${owner}: nothing to clean up`] : lines;
}

/**
 * An entry name, as messages show it: a key pasted in its place must not come back. Names made of
 * short upper-case words, such as QDRANT_PROD_EU_API_KEY (the library's, and most renames), are
 * shown up to 64 characters; others only when short. A key is rarely that: an upper-case hex key
 * is one long word.
 */
const NAME_NOT_SHOWN = '(not shown: it may be a key)';
const wordyName = (name) => /^[A-Z][A-Z0-9_]{0,63}$/.test(name) && name.split('_').every((word) => word.length <= 16);
const entryShown = (name) => ((isEnvName(name) && (wordyName(name) || !mayBeKey(name))) ? name : showable(name) ?? NAME_NOT_SHOWN);

function readEntries(env, command, deployCommand) {
  const raw = env[WRITER_ENV.entries];
  if (raw === undefined || raw === '') throw new UsageError(`environment variable ${WRITER_ENV.entries} is not set or empty`);
  let entries;
  try {
    entries = JSON.parse(raw);
  } catch {
    throw new UsageError(`${WRITER_ENV.entries} is not valid JSON (expected an object of NAME: value)`);
  }
  if (command === 'remove' && Array.isArray(entries)) {
    if (!entries.every((n) => typeof n === 'string')) throw new UsageError(`${WRITER_ENV.entries} must be a JSON object of NAME: value, or for remove a list of names`);
    entries = Object.fromEntries(entries.map((n) => [n, '']));
  }
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries)) {
    throw new UsageError(`${WRITER_ENV.entries} must be a JSON object of NAME: value`);
  }
  if (command === 'write') entries = { ...entries, ...entriesFromEnv(env, deployCommand) };
  for (const [name, value] of Object.entries(entries)) {
    if (!isEnvName(name)) {
      throw new UsageError(`${WRITER_ENV.entries}: entry name ${entryShown(name)} is not a valid variable name (letters, digits and _, not starting with a digit)`);
    }
    if (command === 'write' && typeof value !== 'string') {
      throw new UsageError(`${WRITER_ENV.entries}: entry ${entryShown(name)} must be a string`);
    }
  }
  return entries;
}

/** Values named by QCA_ENTRIES_FROM_ENV: { NAME: process.env[ENV_VAR] }. */
function entriesFromEnv(env, deployCommand) {
  const refs = jsonObjectIn(env, WRITER_ENV.entriesFromEnv, 'NAME: ENV_VAR');
  // ENV_VAR → sha256 of Terraform's value of the key variable (see protocol.js).
  const hashes = jsonObjectIn(env, WRITER_ENV.entriesSha256, 'ENV_VAR: sha256 hex');
  const out = {};
  for (const [name, variable] of Object.entries(refs)) {
    if (!isEnvName(name)) {
      throw new UsageError(`${WRITER_ENV.entriesFromEnv}: entry name ${entryShown(name)} is not a valid variable name (letters, digits and _, not starting with a digit)`);
    }
    if (!isEnvName(variable)) {
      throw new UsageError(`${WRITER_ENV.entriesFromEnv}: entry ${entryShown(name)} must name an environment variable`);
    }
    const value = env[variable];
    if (value === undefined || value === '') {
      const hint = variable.startsWith('TF_VAR_')
        ? `${setKeyHint(variable, deployCommand)} (a value given with -var or a .tfvars file does not reach this step)`
        : 'set it in the provisioner\'s environment';
      throw new RunError(`entry ${entryShown(name)}: environment variable ${variable} is not set or empty; ${hint}`);
    }
    // The check of this key read the same TF_VAR_, compared with the same hash: a file gets the checked key only.
    const hash = Object.prototype.hasOwnProperty.call(hashes, variable) ? hashes[variable] : undefined;
    if (hash !== undefined && (typeof hash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hash))) {
      throw new UsageError(`${WRITER_ENV.entriesSha256}: the value for ${variable} is not a sha256 of 64 hex digits (value not shown)`);
    }
    if (hash !== undefined && !sameSha256(value, hash)) {
      throw new RunError(`entry ${entryShown(name)}: ${variable.startsWith('TF_VAR_') ? variableSetTwice(variable) : `environment variable ${variable} is not the value Terraform uses`}`);
    }
    out[name] = value;
  }
  return out;
}

/** The JSON object in environment variable `name` ({} when it is not set or empty); `shape` is what it maps, for messages. */
function jsonObjectIn(env, name, shape) {
  const raw = env[name];
  if (raw === undefined || raw === '') return {};
  let value;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new UsageError(`${name} is not valid JSON (expected an object of ${shape})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${name} must be a JSON object of ${shape}`);
  return value;
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
    out.plan = dotenv.planRemove(text, Object.keys(entries), { owner, all: true });
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
      const sidecarAfter = out.plan.sidecarAfter ? json.renderSidecar(out.plan.sidecarAfter) : null;
      return { text: out.plan.text, sidecar, sidecarFirst: true, sidecarAfter };
    }
    out.plan = json.planRemove(text, side, Object.keys(entries), { owner, sidecarName, all: true });
    const sidecar = out.plan.sidecar ? json.renderSidecar(out.plan.sidecar) : (sideText == null ? null : file.DELETE);
    return { text: out.plan.deleteFile ? file.DELETE : out.plan.text, sidecar, sidecarFirst: false };
  };
}

/** Does the work; returns the summary line. Throws FileError or LockError (one line) on failure. */
async function apply({ command, format, file: target, owner }, entries, options) {
  const warn = options.warn;
  const out = { plan: null };
  // Removing from a file whose directory is gone (another machine's path) is nothing to do.
  const fileOpts = { ...options, removing: command === 'remove' };
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
      p.dropped.length ? `${entriesWord(p.dropped.length)} no longer wanted removed` : '',
      res.existed || !res.changed ? '' : 'file created',
    ].filter(Boolean).map((x) => `, ${x}`).join('');
    return `wrote ${entriesWord(n)} to ${target} (${p.updated.length} updated, ${p.added.length} added${extra})`;
  }
  const notOurs = p.notOurs.length ? `, ${p.notOurs.length} not ours left in place` : '';
  let note = '';
  if (!res.existed) note = ', file does not exist';
  else if (p.noBlock) note = `; no managed block of owner ${owner} in it, nothing changed`;
  else if (p.noSidecar) {
    // The sidecar was deleted: members this tool wrote (keys among them) may be left, unnamed.
    // Not a failure (a destroy must go on), but said on stderr too.
    note = `; ${sidecarName} is missing, so nothing records which members owner ${owner} wrote: nothing changed, and members this tool wrote may still be in the file; delete them by hand`;
    warn(`warning: ${sidecarName}, the record of the members this tool wrote to ${target}, is missing: nothing was removed for owner ${owner}, ` +
      `and members this tool wrote (their names are unknown without the record) may still be in ${target}, with keys; delete them by hand`);
  } else if (p.noRecord) note = `; ${sidecarName} records no entries of owner ${owner}, nothing changed`;
  else if (res.deleted) note = ', file deleted: this tool had created it';
  if (p.keptLines > 0) {
    const defining = p.keptNames.length > 0 ? ` (defining ${p.keptNames.join(', ')})` : '';
    note += `; ${p.keptLines === 1 ? '1 line' : `${p.keptLines} lines`} inside the managed block of owner ${owner} that its record does not name ` +
      `${p.keptLines === 1 ? 'was' : 'were'} kept, and so were the block's markers${defining}`;
  }
  if (p.unrecorded && p.unrecorded.length > 0) {
    // The record line was removed by hand: what is left may hold a key.
    const left = `${entriesWord(p.unrecorded.length)} in it ${p.unrecorded.length === 1 ? 'was' : 'were'} left: ${p.unrecorded.join(', ')}; delete the ones this tool wrote by hand`;
    note += `; the managed block of owner ${owner} has no record line (# ${dotenv.TOOL} entries: ...), so ${left}`;
    warn(`warning: the managed block of owner ${owner} in ${target} has no record line, so ${left}`);
  }
  return `removed ${entriesWord(p.removed.length)} from ${target} (${p.absent.length} not present${notOurs}${note})`;
}

async function main(io) {
  // No value may ever reach the output: register every value as a secret before anything runs
  // (the command line included: a key pasted into it must not come back in a usage error).
  for (const v of secretsOf(io.env)) io.addSecret(v);
  const parsed = parseCommandLine(io.argv);
  if (parsed.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (parsed.command === 'remove-dropped') {
    const warnings = [];
    const fileOpts = { warn: (m) => warnings.push(m) };
    try {
      const lines = await removeDropped(parsed.owner, io.env, fileOpts);
      io.stdout(`${lines.map(stripControl).join('\n')}\n`);
      return 0;
    } finally {
      for (const w of warnings) io.stderr(`${stripControl(w)}\n`);
    }
  }
  let entries;
  try {
    entries = readEntries(io.env, parsed.command, parsed.deployCommand);
  } catch (err) {
    if (err instanceof RunError) throw new RunError(`${err.message}; ${parsed.file} was not changed`);
    throw err;
  }
  const warnings = [];
  const fileOpts = { warn: (m) => warnings.push(m) };
  const lockMs = Number(io.env.QCA_LOCK_TIMEOUT_MS);
  if (Number.isFinite(lockMs) && lockMs > 0) fileOpts.lockTimeoutMs = lockMs;
  try {
    const line = await apply(parsed, entries, fileOpts);
    for (const w of warnings) io.stderr(`${stripControl(w)}\n`);
    io.stdout(`${stripControl(line)}\n`);
    return 0;
  } catch (err) {
    for (const w of warnings) io.stderr(`${stripControl(w)}\n`);
    if (err instanceof file.FileError || err instanceof file.LockError) throw new RunError(err.message);
    throw err;
  }
}

/** Every value the entries may hold: those given, and those named in the environment. */
function secretsOf(env) {
  const values = [];
  try {
    const parsed = JSON.parse(env[WRITER_ENV.entries] || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) values.push(...Object.values(parsed));
  } catch { /* nothing to redact */ }
  try {
    const refs = JSON.parse(env[WRITER_ENV.entriesFromEnv] || '{}');
    if (refs && typeof refs === 'object') values.push(...Object.values(refs).map((v) => env[v]));
  } catch { /* nothing to redact */ }
  return values.filter((v) => typeof v === 'string');
}

/** Runs the CLI in memory; resolves to { code, stdout, stderr } (for tests). */
async function run(argv, env) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(PROG, main, { argv, env, stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; } });
  file.cleanupForExit();
  return { code, stdout: stdout.replace(/\n$/, ''), stderr: stderr.replace(/\n$/, '') };
}

const SIGNAL_EXIT = { SIGTERM: 143, SIGINT: 130 };

if (require.main === module) {
  for (const [signal, code] of Object.entries(SIGNAL_EXIT)) {
    process.once(signal, () => {
      file.cleanupForExit();
      process.stderr.write(`${PROG}: error: stopped by ${signal}; the file keeps its previous or its new content, never a mix; run the command again\n`);
      process.exit(code);
    });
  }
  runCli(PROG, main).then(() => file.cleanupForExit());
}

module.exports = { run, main, parseCommandLine, USAGE };
