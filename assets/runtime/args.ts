/**
 * The argument parser of both CLIs, driven by protocol.ts. A key pasted in the wrong place must not come back in a message: a
 * value is shown only when it cannot be a key (showable), a string option's value never.
 */
import { RuntimeError } from './errors';
import { isEnvName } from './names';
import type { OptionSpec } from './protocol';
import { showable } from './text';

/** Not echoed: a stray argument is often a key pasted where it does not belong. */
export const EXTRA_ARGUMENT = 'unexpected extra argument (not shown, it may be a secret); options start with -- (see --help)';

const FLAG_LOOKS_SECRET = /(^-k$)|key(?!-env)|token|secret|passw/i;
const NOT_SHOWN = '(not shown: it may be a key)';
const NUMBER_RE = /^[0-9]+(\.[0-9]+)?$/;
const INTEGER_RE = /^(0|[1-9][0-9]*)$/;

/** A list option's names, split at commas, empty items skipped; not trimmed (Qdrant allows spaces): refused, not repaired. */
function splitList(spec: OptionSpec, raw: string): string[] {
  const items = raw.split(',');
  if (items.every((s) => s.trim() === '')) {
    throw new RuntimeError(`${spec.flag} is an empty list; give one or more names separated by commas (${spec.valueName || 'A,B'}), or leave the option out`);
  }
  const padded = items.find((item) => item !== '' && item.trim() !== item);
  if (padded !== undefined) {
    const shown = showable(padded);
    throw new RuntimeError(`${spec.flag}: ${shown ? `name ${shown}` : `a name ${NOT_SHOWN}`} starts or ends with whitespace; ` +
      'names are not trimmed (Qdrant allows spaces in them): write A,B, not A, B');
  }
  return items.filter((s) => s !== '');
}

/** One value, typed by its spec, or a usage error. Numbers are plain decimals (no 0x10, 1e1, " 5" or 01). */
function coerce(spec: OptionSpec, raw: string): unknown {
  const shown = showable(raw) ?? `a value ${NOT_SHOWN}`;
  switch (spec.type) {
    case 'enum':
      if (!spec.values?.includes(raw)) throw new RuntimeError(`${spec.flag} must be one of ${spec.values?.join(', ')}; got ${shown}`);
      return raw;
    case 'number':
    case 'integer': {
      const whole = spec.type === 'integer';
      const plain = (whole ? INTEGER_RE : NUMBER_RE).test(raw);
      const n = Number(raw);
      if (!plain || n < (spec.min as number) || n > (spec.max as number)) {
        throw new RuntimeError(`${spec.flag} needs a ${whole ? 'whole ' : ''}number${spec.unit ? ` of ${spec.unit}` : ''} in ${spec.min}-${spec.max}; got ${shown}` +
          `${plain ? '' : whole ? '; write plain decimal digits without leading zeros, e.g. 3' : '; write plain decimal digits, e.g. 10 or 2.5'}`);
      }
      return n;
    }
    case 'env-name':
      if (!isEnvName(raw)) {
        throw new RuntimeError(`${spec.flag} needs the NAME of an environment variable (letters, digits, _), not a value; ` +
          'the value given is not a valid name (not shown: it may be a key)');
      }
      return raw;
    case 'list':
      return splitList(spec, raw);
    default: // a string (parseArgs sets a boolean without a value)
      return raw;
  }
}

/** `--flag value`, `--flag=value`; `--` ends the options; a value may not be an option. `secretHint`: for an unknown key-like flag. */
export function parseArgs(options: Record<string, OptionSpec>, argv: readonly string[], secretHint?: string) {
  const byFlag = new Map<string, [string, OptionSpec]>();
  for (const [name, spec] of Object.entries(options)) {
    for (const flag of [spec.flag, ...(spec.aliases || [])]) byFlag.set(flag, [name, spec]);
  }
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
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
      if (!shown) throw new RuntimeError(`unknown option ${NOT_SHOWN}; see --help for the options${secretHint ? `; ${secretHint}` : ''}`);
      if (FLAG_LOOKS_SECRET.test(flag) && secretHint) throw new RuntimeError(`unknown option ${shown}: ${secretHint}`);
      throw new RuntimeError(`unknown option ${shown} (see --help)`);
    }
    const [name, spec] = found;
    if (name in values) throw new RuntimeError(`option ${spec.flag} given twice`);
    if (spec.type === 'boolean') {
      if (eq > 0) throw new RuntimeError(`option ${spec.flag} takes no value`);
      values[name] = true;
      continue;
    }
    const raw = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (raw === undefined) throw new RuntimeError(`option ${spec.flag} needs a value (see --help)`);
    if (eq < 0 && (raw === '--' || byFlag.has(raw))) {
      throw new RuntimeError(`option ${spec.flag} needs a value; the next argument is the option ${raw} (see --help)`);
    }
    values[name] = coerce(spec, raw);
  }
  refuseInTwoLists(options, values);
  return { values, positionals };
}

/** A name given in two list options (read and write collections) contradicts itself: refused. */
function refuseInTwoLists(options: Record<string, OptionSpec>, values: Record<string, unknown>): void {
  const lists = Object.entries(options).filter(([name, spec]) => spec.type === 'list' && Array.isArray(values[name]));
  for (const [i, [firstName, { flag: first }]] of lists.entries()) {
    for (const [otherName, { flag: other }] of lists.slice(i + 1)) {
      const both = (values[firstName] as string[]).find((n) => (values[otherName] as string[]).includes(n));
      if (both === undefined) continue;
      throw new RuntimeError(`${showable(both) ?? `a name ${NOT_SHOWN}`} is in both ${first} and ${other}; ` +
        `give it in one of them only (${other} if the apps write it)`);
    }
  }
}

/** The value of an option, by its spec (coerce): an enum's value, a number, true for a flag, a list, or a string. */
type ValueOf<S> = S extends { values: readonly (infer V)[] } ? V : S extends { min: number } ? number
  : S extends { type: 'boolean' } ? true : S extends { type: 'list' } ? string[] : string;

/** A command line's options, defaults applied: an option with a default is always there. */
export type CommandLine<O> = { [K in keyof O as O[K] extends { default: unknown } ? K : never]: ValueOf<O[K]> }
  & { [K in keyof O as O[K] extends { default: unknown } ? never : K]?: ValueOf<O[K]> };

/** The values given plus the defaults of the options not given. */
export function withDefaults<O extends Record<string, OptionSpec>>(options: O, values: Record<string, unknown>): CommandLine<O> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(options)) {
    if (values[name] !== undefined) out[name] = values[name];
    else if (spec.default !== undefined) out[name] = spec.default;
  }
  return out as CommandLine<O>;
}

/** The options part of a usage text, generated from the specs (so help and parser never differ). */
export function optionsHelp(options: Record<string, OptionSpec>): string {
  return Object.values(options).map((spec) => {
    const head = `  ${[spec.flag, ...(spec.aliases || [])].join(', ')}${spec.type === 'boolean' ? '' : ` ${spec.valueName || (spec.type === 'enum' ? spec.values?.join('|') : 'VALUE')}`}`;
    const extra = [];
    if (spec.min !== undefined) extra.push(`${spec.min}-${spec.max}`);
    if (spec.defaultText !== undefined) extra.push(`default ${spec.defaultText}`);
    else if (spec.default !== undefined) extra.push(`default ${spec.default}`);
    const text = `${spec.describe}${extra.length ? ` (${extra.join(', ')})` : ''}`;
    return head.length < 26 ? `${head.padEnd(26)}${text}` : `${head}\n${''.padEnd(26)}${text}`;
  }).join('\n');
}
