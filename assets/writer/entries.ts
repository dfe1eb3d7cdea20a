/**
 * What every store edit checks first, whatever the format: entry names (variable names) and the
 * owner (the construct path that owns the entries). The rules are runtime/names.ts's; this module
 * only turns a broken rule into the error the editors raise. Node built-ins only.
 */
import { RuntimeError } from '../runtime/errors';
import { isEnvName, isOwner, OWNER_RULE } from '../runtime/names';

/** The code of an edit refused for what the file or the entries hold (a line, a name, a value). */
export const REFUSED = 'EINVALID';

export function checkOwner(owner: unknown): string {
  if (!isOwner(owner)) throw new RuntimeError(`owner is not valid: ${OWNER_RULE}`, REFUSED);
  return owner;
}

export function checkName(name: unknown): string {
  if (!isEnvName(name)) {
    throw new RuntimeError(`entry name "${String(name).slice(0, 64)}" is not a valid variable name (letters, digits and _, not starting with a digit)`, REFUSED);
  }
  return name;
}

/**
 * Whether owners `a` and `b` are one ClusterAccess in two Terraform workspaces (the constructs
 * add `@<workspace>` to the path outside the default one, src/private/stack-strings.ts).
 */
export function otherWorkspace(a: string, b: string): boolean {
  const path = (o: string) => String(o).replace(/@[^/@]*$/, '');
  return a !== b && path(a) === path(b);
}

/** What a refusal says after naming the other workspace's owner, with the fix. */
export function anotherWorkspace(owner: string): string {
  return `, the same access in another Terraform workspace (this one writes as ${owner}); ` +
    'give each workspace its own file, or a secretNaming prefix chosen per environment in your code';
}

/** What a refusal of a name already in the file says to do. */
export const SECRET_NAMING_FIX = 'give our entry another name with the secretNaming of the key that writes it (e.g. secretNaming: { prefix: "APP_" })';
