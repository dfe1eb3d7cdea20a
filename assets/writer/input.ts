/**
 * What the writer reads from its environment (runtime/protocol.ts WRITER_ENV), never from the
 * command line: QCA_ENTRIES holds the values (for `remove` only the names matter, and it may be a
 * JSON array of names); QCA_ENTRIES_FROM_ENV names, per entry, another variable that holds the
 * value (how a key arrives: Terraform's own TF_VAR_<name>), whose sha256 QCA_ENTRIES_SHA256 gives;
 * or QCA_ENTRIES_FILE holds all three (how the constructs pass them, runtime/input-file.ts);
 * remove-dropped reads QCA_FILES and QCA_KEEP_FILES. Messages never hold a value. Node built-ins only.
 */
import { RUN, RuntimeError } from '../runtime/errors';
import { readInputFile, resolveValue } from '../runtime/input-file';
import { sameSha256, setKeyHint, variableSetTwice } from '../runtime/key-variable';
import { isEnvName } from '../runtime/names';
import { FILE_OPTIONS, WRITER_ENV } from '../runtime/protocol';
import { mayBeKey, showable } from '../runtime/text';

type Env = Record<string, string | undefined>;

/** A file a ClusterAccess writes to, and the target that writes it. */
export interface FileRecord {
  readonly file: string;
  readonly format: 'dotenv' | 'json';
  readonly target?: string;
}

/** A list of {file, format, target?} from environment variable `name` ([] when unset or empty). */
export function fileList(env: Env, name: string): FileRecord[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return [];
  let list;
  try {
    list = JSON.parse(raw);
  } catch {
    throw new RuntimeError(`${name} is not valid JSON (expected a list of {"file","format"})`);
  }
  const valid = Array.isArray(list) && list.every((f) => f && typeof f === 'object' && typeof f.file === 'string' && f.file !== '' &&
    FILE_OPTIONS.format.values.includes(f.format) && (f.target === undefined || (typeof f.target === 'string' && f.target !== '')));
  if (!valid) throw new RuntimeError(`${name} must be a JSON list of {"file": PATH, "format": "dotenv" or "json", "target": PATH (optional)}`);
  return list;
}

/**
 * An entry name, as messages show it: a key pasted in its place must not come back. Names made of
 * short upper-case words, such as QDRANT_PROD_EU_API_KEY (the library's, and most renames), are
 * shown up to 64 characters; others only when short. A key is rarely that: an upper-case hex key
 * is one long word.
 */
const wordyName = (name: string) => /^[A-Z][A-Z0-9_]{0,63}$/.test(name) && name.split('_').every((word) => word.length <= 16);
const entryShown = (name: string) => ((isEnvName(name) && (wordyName(name) || !mayBeKey(name))) ? name : showable(name) ?? '(not shown: it may be a key)');

/**
 * What the three entries variables hold (parsed), from the environment or, with QCA_ENTRIES_FILE,
 * from that file, each value written {"$env": NAME} replaced by the variable's (runtime/input-file.ts).
 * `entries` is undefined when not given.
 */
function entriesInput(env: Env): { entries?: unknown; fromEnv: Record<string, unknown>; hashes: Record<string, unknown> } {
  const file = env[WRITER_ENV.entriesFile];
  if (file === undefined || file === '') {
    const raw = env[WRITER_ENV.entries];
    let entries;
    if (raw !== undefined && raw !== '') {
      try {
        entries = JSON.parse(raw);
      } catch {
        throw new RuntimeError(`${WRITER_ENV.entries} is not valid JSON (expected an object of NAME: value)`);
      }
    }
    return {
      entries,
      fromEnv: jsonObjectIn(env, WRITER_ENV.entriesFromEnv, 'NAME: ENV_VAR'),
      // ENV_VAR → sha256 of Terraform's value of the key variable (see protocol.ts).
      hashes: jsonObjectIn(env, WRITER_ENV.entriesSha256, 'ENV_VAR: sha256 hex'),
    };
  }
  const given = [WRITER_ENV.entries, WRITER_ENV.entriesFromEnv, WRITER_ENV.entriesSha256].filter((n) => env[n] !== undefined && env[n] !== '');
  if (given.length > 0) throw new RuntimeError(`${given.join(' and ')} and ${WRITER_ENV.entriesFile} are both set; give the entries in one of them`);
  const sha256 = env[WRITER_ENV.entriesFileSha256];
  if (sha256 === undefined || sha256 === '') throw new RuntimeError(`${WRITER_ENV.entriesFile} is set but ${WRITER_ENV.entriesFileSha256} is not: give the file's sha256`);
  const input = readInputFile(file, sha256, 'entries file');
  const fields: Record<string, unknown> = isPlainObject(input) ? input : {};
  if (!isPlainObject(input) || Object.keys(fields).some((k) => !['entries', 'entriesFromEnv', 'entriesSha256'].includes(k))) {
    throw new RuntimeError(`entries file ${JSON.stringify(file)} must hold a JSON object of "entries", "entriesFromEnv" and "entriesSha256"`);
  }
  const values = (name: string, shape: string): Record<string, unknown> | undefined => {
    const v = fields[name];
    if (v === undefined) return undefined;
    if (!isPlainObject(v)) throw new RuntimeError(`entries file ${JSON.stringify(file)}: "${name}" must be a JSON object of ${shape}`);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveValue(x, env, `entries file "${name}"`)]));
  };
  return { entries: values('entries', 'NAME: value'), fromEnv: values('entriesFromEnv', 'NAME: ENV_VAR') ?? {}, hashes: values('entriesSha256', 'ENV_VAR: sha256 hex') ?? {} };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The entries of a write (NAME: value) or a remove (their names matter only). */
export function readEntries(env: Env, command: 'write' | 'remove', deployCommand: string): Record<string, string> {
  const input = entriesInput(env);
  let entries: any = input.entries;
  if (entries === undefined) throw new RuntimeError(`environment variable ${WRITER_ENV.entries} is not set or empty`);
  if (command === 'remove' && Array.isArray(entries)) {
    if (!entries.every((n) => typeof n === 'string')) throw new RuntimeError(`${WRITER_ENV.entries} must be a JSON object of NAME: value, or for remove a list of names`);
    entries = Object.fromEntries(entries.map((n) => [n, '']));
  }
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries)) {
    throw new RuntimeError(`${WRITER_ENV.entries} must be a JSON object of NAME: value`);
  }
  if (command === 'write') entries = { ...entries, ...entriesFromEnv(env, input.fromEnv, input.hashes, deployCommand) };
  for (const [name, value] of Object.entries(entries)) {
    if (!isEnvName(name)) {
      throw new RuntimeError(`${WRITER_ENV.entries}: entry name ${entryShown(name)} is not a valid variable name (letters, digits and _, not starting with a digit)`);
    }
    if (command === 'write' && typeof value !== 'string') {
      throw new RuntimeError(`${WRITER_ENV.entries}: entry ${entryShown(name)} must be a string`);
    }
  }
  return entries;
}

/** Values named by QCA_ENTRIES_FROM_ENV: { NAME: env[ENV_VAR] }. A missing value or one that is not Terraform's is a run error (exit 1). */
function entriesFromEnv(env: Env, refs: Record<string, unknown>, hashes: Record<string, unknown>, deployCommand: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, variable] of Object.entries(refs)) {
    if (!isEnvName(name)) {
      throw new RuntimeError(`${WRITER_ENV.entriesFromEnv}: entry name ${entryShown(name)} is not a valid variable name (letters, digits and _, not starting with a digit)`);
    }
    if (!isEnvName(variable)) {
      throw new RuntimeError(`${WRITER_ENV.entriesFromEnv}: entry ${entryShown(name)} must name an environment variable`);
    }
    const value = env[variable];
    if (value === undefined || value === '') {
      const hint = variable.startsWith('TF_VAR_')
        ? `${setKeyHint(variable, deployCommand)} (a value given with -var or a .tfvars file does not reach this step)`
        : 'set it in the provisioner\'s environment';
      throw new RuntimeError(`entry ${entryShown(name)}: environment variable ${variable} is not set or empty; ${hint}`, RUN);
    }
    // The check of this key read the same TF_VAR_, compared with the same hash: a file gets the checked key only.
    const hash = Object.prototype.hasOwnProperty.call(hashes, variable) ? hashes[variable] : undefined;
    if (hash !== undefined && (typeof hash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hash))) {
      throw new RuntimeError(`${WRITER_ENV.entriesSha256}: the value for ${variable} is not a sha256 of 64 hex digits (value not shown)`);
    }
    if (hash !== undefined && !sameSha256(value, hash)) {
      throw new RuntimeError(`entry ${entryShown(name)}: ${variable.startsWith('TF_VAR_') ? variableSetTwice(variable) : `environment variable ${variable} is not the value Terraform uses`}`, RUN);
    }
    out[name] = value;
  }
  return out;
}

/** The JSON object in environment variable `name` ({} when it is not set or empty); `shape` is what it maps, for messages. */
function jsonObjectIn(env: Env, name: string, shape: string): Record<string, unknown> {
  const raw = env[name];
  if (raw === undefined || raw === '') return {};
  let value;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new RuntimeError(`${name} is not valid JSON (expected an object of ${shape})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new RuntimeError(`${name} must be a JSON object of ${shape}`);
  return value;
}

/** Every value the entries may hold: those given, and those named in the environment. */
export function secretsOf(env: Env): string[] {
  let input: { entries?: unknown; fromEnv: Record<string, unknown> };
  try {
    input = entriesInput(env);
  } catch {
    // Refused before any value is used; what the variables hold is redacted as far as it parses.
    const parsed = (name: string) => {
      try {
        return JSON.parse(env[name] || '{}');
      } catch {
        return {};
      }
    };
    const fromEnv = parsed(WRITER_ENV.entriesFromEnv);
    input = { entries: parsed(WRITER_ENV.entries), fromEnv: isPlainObject(fromEnv) ? fromEnv : {} };
  }
  const values: unknown[] = isPlainObject(input.entries) ? Object.values(input.entries) : [];
  values.push(...Object.values(input.fromEnv).map((v) => (typeof v === 'string' ? env[v] : undefined)));
  return values.filter((v): v is string => typeof v === 'string');
}
