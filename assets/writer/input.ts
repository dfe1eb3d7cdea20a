/**
 * What the writer reads from its environment (runtime/protocol.ts WRITER_ENV), never from the
 * command line: QCA_ENTRIES holds the values (for `remove` only the names matter, and it may be a
 * JSON array of names); QCA_ENTRIES_FROM_ENV names, per entry, another variable that holds the
 * value (how a key arrives: Terraform's own TF_VAR_<name>), whose sha256 QCA_ENTRIES_SHA256 gives;
 * remove-dropped reads QCA_FILES and QCA_KEEP_FILES. Messages never hold a value. Node built-ins only.
 */
import { badEntryName, entryShown } from './entries';
import { envValue } from '../runtime/cli';
import { RUN, RuntimeError } from '../runtime/errors';
import { sameSha256, setKeyHint, variableSetTwice } from '../runtime/key-variable';
import { isEntryName, isEnvName } from '../runtime/names';
import { FILE_OPTIONS, WRITER_ENV } from '../runtime/protocol';

type Env = Record<string, string | undefined>;

/** A file a ClusterAccess writes to, and the target that writes it. */
export interface FileRecord {
  readonly file: string;
  readonly format: 'dotenv' | 'json';
  readonly target?: string;
}

/** A list of {file, format, target?} from environment variable `name` ([] when unset or empty). */
export function fileList(env: Env, name: string): FileRecord[] {
  const raw = envValue(env, name);
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
 * The entries of a write (NAME → value) or a remove (their names matter only), in a Map: a name
 * is data, whatever it is (`__proto__`, `constructor`), and a name the writers refuse is refused
 * here, never dropped.
 */
export function readEntries(env: Env, command: 'write' | 'remove', deployCommand: string): Map<string, string> {
  const raw = envValue(env, WRITER_ENV.entries);
  if (raw === undefined || raw === '') throw new RuntimeError(`environment variable ${WRITER_ENV.entries} is not set or empty`);
  let parsed;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new RuntimeError(`${WRITER_ENV.entries} is not valid JSON (expected an object of NAME: value)`);
  }
  let pairs: [string, unknown][];
  if (command === 'remove' && Array.isArray(parsed)) {
    if (!parsed.every((n) => typeof n === 'string')) throw new RuntimeError(`${WRITER_ENV.entries} must be a JSON object of NAME: value, or for remove a list of names`);
    pairs = parsed.map((n: string) => [n, '']);
  } else if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new RuntimeError(`${WRITER_ENV.entries} must be a JSON object of NAME: value`);
  } else {
    // JSON.parse makes every member an own property, "__proto__" too.
    pairs = Object.entries(parsed);
  }
  const entries = new Map<string, string>();
  for (const [name, value] of pairs) {
    if (!isEntryName(name)) throw new RuntimeError(badEntryName(name, `${WRITER_ENV.entries}: `));
    if (command === 'write' && typeof value !== 'string') {
      throw new RuntimeError(`${WRITER_ENV.entries}: entry ${entryShown(name)} must be a string`);
    }
    entries.set(name, value as string);
  }
  if (command === 'write') for (const [name, value] of entriesFromEnv(env, deployCommand)) entries.set(name, value);
  return entries;
}

/** Values named by QCA_ENTRIES_FROM_ENV: NAME → env[ENV_VAR]. A missing value or one that is not Terraform's is a run error (exit 1). */
function entriesFromEnv(env: Env, deployCommand: string): Map<string, string> {
  const refs = jsonObjectIn(env, WRITER_ENV.entriesFromEnv, 'NAME: ENV_VAR');
  // ENV_VAR → sha256 of Terraform's value of the key variable (see protocol.ts).
  const hashes = jsonObjectIn(env, WRITER_ENV.entriesSha256, 'ENV_VAR: sha256 hex');
  const out = new Map<string, string>();
  for (const [name, variable] of refs) {
    if (!isEntryName(name)) throw new RuntimeError(badEntryName(name, `${WRITER_ENV.entriesFromEnv}: `));
    if (!isEnvName(variable)) {
      throw new RuntimeError(`${WRITER_ENV.entriesFromEnv}: entry ${entryShown(name)} must name an environment variable`);
    }
    const value = envValue(env, variable);
    if (value === undefined || value === '') {
      const hint = variable.startsWith('TF_VAR_')
        ? `${setKeyHint(variable, deployCommand)} (a value given with -var or a .tfvars file does not reach this step)`
        : 'set it in the provisioner\'s environment';
      throw new RuntimeError(`entry ${entryShown(name)}: environment variable ${variable} is not set or empty; ${hint}`, RUN);
    }
    // The check of this key read the same TF_VAR_, compared with the same hash: a file gets the checked key only.
    const hash = hashes.get(variable);
    if (hash !== undefined && (typeof hash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hash))) {
      throw new RuntimeError(`${WRITER_ENV.entriesSha256}: the value for ${variable} is not a sha256 of 64 hex digits (value not shown)`);
    }
    if (hash !== undefined && !sameSha256(value, hash)) {
      throw new RuntimeError(`entry ${entryShown(name)}: ${variable.startsWith('TF_VAR_') ? variableSetTwice(variable) : `environment variable ${variable} is not the value Terraform uses`}`, RUN);
    }
    out.set(name, value);
  }
  return out;
}

/** The JSON object in environment variable `name`, as a Map (empty when it is not set or empty); `shape` is what it maps, for messages. */
function jsonObjectIn(env: Env, name: string, shape: string): Map<string, unknown> {
  const raw = envValue(env, name);
  if (raw === undefined || raw === '') return new Map();
  let value;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new RuntimeError(`${name} is not valid JSON (expected an object of ${shape})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new RuntimeError(`${name} must be a JSON object of ${shape}`);
  return new Map(Object.entries(value));
}

/** Every value the entries may hold: those given, and those named in the environment. */
export function secretsOf(env: Env): string[] {
  const values: unknown[] = [];
  try {
    const parsed = JSON.parse(envValue(env, WRITER_ENV.entries) || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) values.push(...Object.values(parsed));
  } catch { /* nothing to redact */ }
  try {
    const refs = JSON.parse(envValue(env, WRITER_ENV.entriesFromEnv) || '{}');
    if (refs && typeof refs === 'object') values.push(...Object.values(refs).map((v) => (typeof v === 'string' ? envValue(env, v) : undefined)));
  } catch { /* nothing to redact */ }
  return values.filter((v): v is string => typeof v === 'string');
}
