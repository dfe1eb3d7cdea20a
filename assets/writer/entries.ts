/** What every edit checks first, whatever the format: entry names and the owner (runtime/names.ts's rules). */
import { RuntimeError, messageOf } from '../runtime/errors';
import { ENTRY_NAME_RULE, isEntryName, isEnvName, isOwner, OWNER_RULE } from '../runtime/names';
import { mayBeKey, showable } from '../runtime/text';

/** The code of an edit refused for what the file or the entries hold (a line, a name, a value). */
export const REFUSED = 'EINVALID';

/**
 * An entry name as messages show it (never a key pasted in its place): short upper-case words up to
 * 64 characters (QDRANT_PROD_EU_API_KEY; an upper-case hex key is one long word), others when short.
 */
const wordyName = (name: string) => /^[A-Z][A-Z0-9_]{0,63}$/.test(name) && name.split('_').every((word) => word.length <= 16);
export function entryShown(name: unknown): string {
  return isEnvName(name) && (wordyName(name) || !mayBeKey(name)) ? name : showable(name) ?? '(not shown: it may be a key)';
}

/** The refusal of an entry name, `where` saying where it came from (e.g. "QCA_ENTRIES: "). */
export function badEntryName(name: unknown, where = ''): string {
  return `${where}entry name ${entryShown(name)} is not a valid variable name: ${ENTRY_NAME_RULE}`;
}

export function checkOwner(owner: unknown): string {
  if (!isOwner(owner)) throw new RuntimeError(`owner is not valid: ${OWNER_RULE}`, REFUSED);
  return owner;
}

export function checkName(name: unknown): string {
  if (!isEntryName(name)) throw new RuntimeError(badEntryName(name), REFUSED);
  return name;
}

/** What a refusal says after naming an owner that is this one in another workspace (sameAccessOwners). */
export function anotherWorkspace(owner: string): string {
  return `, the same access in another Terraform workspace (this one writes as ${owner}); ` +
    'give each workspace its own file, or a secretNaming prefix chosen per environment in your code';
}

/** What a refusal of a name already in the file says to do. */
export const SECRET_NAMING_FIX = 'give our entry another name with the secretNaming of the key that writes it (e.g. secretNaming: { prefix: "APP_" })';

/** The entries of a write (a Map, or an object's own properties, `__proto__` too), checked, each value as `format` writes it. */
export function checkEntries(entries: unknown, format: (value: string) => string): Map<string, string> {
  if (!(entries instanceof Map) && (entries === null || typeof entries !== 'object' || Array.isArray(entries))) {
    throw new RuntimeError('entries must be an object of NAME: value', REFUSED);
  }
  const formatted = new Map<string, string>();
  for (const [name, value] of entries instanceof Map ? entries : Object.entries(entries)) {
    checkName(name);
    try {
      if (typeof value !== 'string') throw new Error('value must be a string');
      formatted.set(name, format(value));
    } catch (err) {
      throw new RuntimeError(`entry ${name}: ${messageOf(err)}`, REFUSED);
    }
  }
  return formatted;
}
