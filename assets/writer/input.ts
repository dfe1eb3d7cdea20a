/**
 * What the writer reads from its environment (runtime/protocol.ts WRITER_ENV), never the command line:
 * entries, key variables with their sha256 (or all three in one file), remove-dropped's files.
 */
import { badEntryName, entryShown } from './entries';
import { envValue } from '../runtime/cli';
import { RUN, RuntimeError } from '../runtime/errors';
import { readInputFile, resolveValue } from '../runtime/input-file';
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

/** The JSON in environment variable `name`, or undefined when it is unset or empty. */
function jsonIn(env: Env, name: string, expected: string): unknown {
  const raw = envValue(env, name);
  if (raw === undefined || raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    throw new RuntimeError(`${name} is not valid JSON (expected ${expected})`);
  }
}

/** A list of {file, format, target?} from environment variable `name` ([] when unset or empty). */
export function fileList(env: Env, name: string): FileRecord[] {
  const list = jsonIn(env, name, 'a list of {"file","format"}');
  if (list === undefined) return [];
  const valid = Array.isArray(list) && list.every((f) => f && typeof f === 'object' && typeof f.file === 'string' && f.file !== '' &&
    FILE_OPTIONS.format.values.includes(f.format) && (f.target === undefined || (typeof f.target === 'string' && f.target !== '')));
  if (!valid) throw new RuntimeError(`${name} must be a JSON list of {"file": PATH, "format": "dotenv" or "json", "target": PATH (optional)}`);
  return list;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The three entries variables, parsed, from the environment or QCA_ENTRIES_FILE (`entries` undefined: not given). */
function entriesInput(env: Env): { entries?: unknown; fromEnv: Map<string, unknown>; hashes: Map<string, unknown> } {
  const file = envValue(env, WRITER_ENV.entriesFile);
  if (file === undefined || file === '') {
    return {
      entries: jsonIn(env, WRITER_ENV.entries, 'an object of NAME: value'),
      fromEnv: jsonObjectIn(env, WRITER_ENV.entriesFromEnv, 'NAME: ENV_VAR'),
      // ENV_VAR → sha256 of Terraform's value of the key variable (see protocol.ts).
      hashes: jsonObjectIn(env, WRITER_ENV.entriesSha256, 'ENV_VAR: sha256 hex'),
    };
  }
  const given = [WRITER_ENV.entries, WRITER_ENV.entriesFromEnv, WRITER_ENV.entriesSha256].filter((n) => envValue(env, n));
  if (given.length > 0) throw new RuntimeError(`${given.join(' and ')} and ${WRITER_ENV.entriesFile} are both set; give the entries in one of them`);
  const sha256 = envValue(env, WRITER_ENV.entriesFileSha256);
  if (sha256 === undefined || sha256 === '') throw new RuntimeError(`${WRITER_ENV.entriesFile} is set but ${WRITER_ENV.entriesFileSha256} is not: give the file's sha256`);
  const input = readInputFile(file, sha256, 'entries file');
  const fields = ['entries', 'entriesFromEnv', 'entriesSha256'];
  if (!isPlainObject(input) || Object.keys(input).some((k) => !fields.includes(k))) {
    throw new RuntimeError(`entries file ${JSON.stringify(file)} must hold a JSON object of "entries", "entriesFromEnv" and "entriesSha256"`);
  }
  // JSON.parse makes every member an own property, "__proto__" too.
  const members = (name: string, shape: string) => {
    const own = Object.prototype.hasOwnProperty.call(input, name) ? input[name] : undefined;
    const map = objectMap(own, `entries file ${JSON.stringify(file)}: "${name}"`, shape);
    return map && new Map([...map].map(([k, x]) => [k, resolveValue(x, env, `entries file "${name}"`)]));
  };
  const entries = members('entries', 'NAME: value');
  return {
    entries: entries && Object.fromEntries(entries),
    fromEnv: members('entriesFromEnv', 'NAME: ENV_VAR') ?? new Map(),
    hashes: members('entriesSha256', 'ENV_VAR: sha256 hex') ?? new Map(),
  };
}

/** The entries of a write or a remove (names only) in a Map: any name is data, a bad one refused, never dropped. */
export function readEntries(env: Env, command: 'write' | 'remove', deployCommand: string): Map<string, string> {
  const { entries: parsed, fromEnv, hashes } = entriesInput(env);
  if (parsed === undefined) throw new RuntimeError(`environment variable ${WRITER_ENV.entries} is not set or empty`);
  const names = command === 'remove' && Array.isArray(parsed);
  if (names ? !parsed.every((n) => typeof n === 'string') : !isPlainObject(parsed)) {
    throw new RuntimeError(`${WRITER_ENV.entries} must be a JSON object of NAME: value${names ? ', or for remove a list of names' : ''}`);
  }
  const pairs: [string, unknown][] = names ? parsed.map((n: string) => [n, '']) : Object.entries(parsed as object);
  const entries = new Map<string, string>();
  for (const [name, value] of pairs) {
    if (!isEntryName(name)) throw new RuntimeError(badEntryName(name, `${WRITER_ENV.entries}: `));
    if (command === 'write' && typeof value !== 'string') {
      throw new RuntimeError(`${WRITER_ENV.entries}: entry ${entryShown(name)} must be a string`);
    }
    entries.set(name, value as string);
  }
  if (command === 'write') for (const [name, value] of entriesFromEnv(env, fromEnv, hashes, deployCommand)) entries.set(name, value);
  return entries;
}

/** Values named by QCA_ENTRIES_FROM_ENV: NAME → env[ENV_VAR]. A missing value or one that is not Terraform's is a run error (exit 1). */
function entriesFromEnv(env: Env, refs: Map<string, unknown>, hashes: Map<string, unknown>, deployCommand: string): Map<string, string> {
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
  return objectMap(jsonIn(env, name, `an object of ${shape}`), name, shape) ?? new Map();
}

/** `value` as a Map (undefined: not given); refused, as `what`, unless a JSON object of `shape`. */
function objectMap(value: unknown, what: string, shape: string): Map<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw new RuntimeError(`${what} must be a JSON object of ${shape}`);
  return new Map(Object.entries(value));
}

/** Every value the entries may hold: those given, and those named in the environment. */
export function secretsOf(env: Env): string[] {
  let input: { entries?: unknown; fromEnv: Map<string, unknown> };
  try {
    input = entriesInput(env);
  } catch {
    // Refused before any value is used; what the variables hold is redacted as far as it parses.
    const parsed = (name: string): unknown => {
      try {
        return JSON.parse(envValue(env, name) || '{}');
      } catch {
        return {};
      }
    };
    const refs = parsed(WRITER_ENV.entriesFromEnv);
    input = { entries: parsed(WRITER_ENV.entries), fromEnv: new Map(isPlainObject(refs) ? Object.entries(refs) : []) };
  }
  const values: unknown[] = isPlainObject(input.entries) ? Object.values(input.entries) : [];
  values.push(...[...input.fromEnv.values()].map((v) => (typeof v === 'string' ? envValue(env, v) : undefined)));
  return values.filter((v): v is string => typeof v === 'string');
}
