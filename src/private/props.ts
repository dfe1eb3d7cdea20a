/**
 * Props are validated by value: the other jsii languages can pass anything (a Python dict with
 * snake_case keys). Each public struct has a schema (schemas.ts), tested against the jsii assembly.
 */
import { Token } from 'cdktf';
import { errors } from './errors';

/** The simple types: their name in a message, and their test. */
const SIMPLE = {
  'any': ['value', () => true],
  'string': ['a string', (v) => typeof v === 'string'],
  'number': ['a number', (v) => typeof v === 'number' && !Number.isNaN(v)],
  'boolean': ['a boolean', (v) => typeof v === 'boolean'],
  'string-list': ['a list of strings', (v) => Array.isArray(v) && v.every((x) => typeof x === 'string')],
  'string-map': ['a map of strings', (v) => isObject(v) && Object.values(v).every((x) => typeof x === 'string')],
  'construct-list': ['a list', (v) => Array.isArray(v)],
} satisfies Record<string, [string, Of<boolean>]>;

export type PropType =
  | keyof typeof SIMPLE
  | { readonly oneOf: readonly string[] }
  | { readonly struct: StructSchema }
  | { readonly structList: StructSchema }
  /** `list`: a list of them; `mayHoldKey`: a string there is not shown (the key is easily pasted there). */
  | { readonly instanceOf: string; readonly test: Of<boolean>; readonly list?: boolean; readonly mayHoldKey?: boolean; readonly hint?: Hint };

type Of<T> = (x: unknown) => T;
type Hint = Of<string | undefined>;

/** The fields of one public struct, by their TypeScript (camelCase) names. */
export interface StructSchema {
  readonly name: string;
  readonly fields: Readonly<Record<string, PropType>>;
  readonly required?: readonly string[];
  /** A key's options: the key is easily given in their place; no string, list or object is shown. */
  readonly mayBeKey?: boolean;
}

function typeName(t: PropType): string {
  if (typeof t === 'string') return SIMPLE[t][0];
  if ('oneOf' in t) return `one of ${t.oneOf.map((v) => JSON.stringify(v)).join(', ')}`;
  if ('struct' in t) return `a ${t.struct.name} object`;
  if ('structList' in t) return `a list of ${t.structList.name} objects`;
  if (t.list) return `a list of ${t.instanceOf}`;
  return `${/^[AEIOU]/.test(t.instanceOf) ? 'an' : 'a'} ${t.instanceOf}`;
}

/** A struct's shape: an object that is not a list (what any language passes for one). */
export function isObject(x: unknown): x is Record<string, unknown> {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

function matches(t: PropType, value: unknown): boolean {
  if (typeof t === 'string') return SIMPLE[t][1](value);
  if ('oneOf' in t) return typeof value === 'string' && !Token.isUnresolved(value) && t.oneOf.includes(value);
  if ('struct' in t) return isObject(value);
  if ('structList' in t) return Array.isArray(value) && value.every(isObject);
  return t.list ? Array.isArray(value) && value.every(t.test) : t.test(value);
}

/**
 * Refuses a constructor call not from the class's factories: JavaScript and the other jsii
 * languages can call a private constructor (`new`, a subclass); only factories pass the token.
 */
export function onlyByFactory(passed: unknown, token: symbol, message: string): void {
  if (passed !== token) throw new Error(message);
}

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length][b.length];
}

/** The known field a mistyped name most likely meant, or undefined. */
function suggest(name: string, known: readonly string[]): string | undefined {
  // `secret_targets` → `secretTargets`
  const camel = name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  const exact = known.find((k) => k.toLowerCase() === name.toLowerCase() || k.toLowerCase() === camel.toLowerCase());
  if (exact) return exact;
  // The whole name, or its first word (`timout` → `timeoutSeconds`).
  const distance = (k: string) => {
    const firstWord = k.replace(/[A-Z].*$/, '');
    const whole = editDistance(camel.toLowerCase(), k.toLowerCase());
    return firstWord.length >= 4 ? Math.min(whole, editDistance(camel.toLowerCase(), firstWord.toLowerCase())) : whole;
  };
  const best = known.reduce<string | undefined>((b, k) => (b === undefined || distance(k) < distance(b) ? k : b), undefined);
  return best !== undefined && distance(best) <= Math.max(2, Math.floor(name.length / 4)) ? best : undefined;
}

/** Unknown properties (with a "did you mean"), missing ones and wrong types, nested structs too. */
export function checkStruct(value: unknown, schema: StructSchema, where: string): string[] {
  if (!isObject(value)) return [errors.notAnObject(where, schema.name, value, schema.mayBeKey === true)];
  const problems: string[] = [];
  const known = Object.keys(schema.fields);
  for (const key of Object.keys(value)) {
    // An own field only: "constructor" or "toString" is in every object's prototype, not a prop.
    if (!Object.prototype.hasOwnProperty.call(schema.fields, key)) {
      problems.push(errors.unknownProperty(where, key, schema.name, suggest(key, known), known));
    }
  }
  for (const key of schema.required ?? []) {
    if (value[key] === undefined) problems.push(errors.missingProperty(where, key, schema.name));
  }
  for (const [key, type] of Object.entries(schema.fields)) {
    const v = value[key];
    if (v === undefined) continue;
    const path = where.endsWith('"') ? `${where} ${key}` : `${where}.${key}`;
    if (!matches(type, v)) {
      const hide = (typeof type === 'object' && 'mayHoldKey' in type && type.mayHoldKey === true)
        || (schema.mayBeKey === true && ((typeof v === 'object' && v !== null) || typeof v === 'function'));
      const hint = typeof type === 'object' && 'hint' in type ? type.hint?.(v) : undefined;
      problems.push(errors.wrongType(path, typeName(type), v, hide) + (hint === undefined ? '' : ` (${hint})`));
      continue;
    }
    if (typeof type === 'object' && 'struct' in type) problems.push(...checkStruct(v, type.struct, path));
    if (typeof type === 'object' && 'structList' in type) {
      (v as unknown[]).forEach((item, i) => problems.push(...checkStruct(item, type.structList, `${path}[${i}]`)));
    }
  }
  return problems;
}
