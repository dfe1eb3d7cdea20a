/** What cluster, key, environment-variable and entry names, owners and collections may look like; the derived names (prod_eu, PROD_EU). */
import { createHash } from 'node:crypto';
import { SHOWN_AS_NOTHING } from './text';

const NAME_RE = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;
export const NAME_RULE = 'names start with a letter and hold only letters, digits, "-" and "_" (at most 63 characters)';

/** The longest environment-variable name (and so entry name) accepted. */
const MAX_ENV_NAME_LENGTH = 256;
const ENV_NAME_RE = new RegExp(`^[A-Za-z_][A-Za-z0-9_]{0,${MAX_ENV_NAME_LENGTH - 1}}$`);
export const ENV_NAME_RULE = `environment-variable names hold only letters, digits and "_", do not start with a digit, and have at most ${MAX_ENV_NAME_LENGTH} characters`;

// Not "__proto__": a JavaScript reader that copies names into an object sets its prototype instead.
export const ENTRY_NAME_RULE = `entry names are environment-variable names (letters, digits and "_", not starting with a digit, at most ${MAX_ENV_NAME_LENGTH} characters), ` +
  'and not "__proto__" (JavaScript readers such as the npm dotenv package drop it)';

// A construct path: ids joined by "/". Nothing a shell or Terraform would read specially.
const OWNER_CHARS_RE = /^[A-Za-z0-9_][A-Za-z0-9_.:@/+-]*$/;
export const MAX_OWNER_LENGTH = 128;
const OWNER_RE = new RegExp(`^(?=.{1,${MAX_OWNER_LENGTH}}$)${OWNER_CHARS_RE.source.slice(1)}`);
export const OWNER_RULE = `owners are 1-${MAX_OWNER_LENGTH} characters from A-Z a-z 0-9 _ . : @ / + - (starting with a letter, digit or _)`;
export const OWNER_PATH_RULE = 'construct paths that own entries hold only A-Z a-z 0-9 _ . : @ / + - (starting with a letter, digit or _)';

// Qdrant's rule, plus what would make a name look like another: surrounding whitespace, control
// and invisible characters (a name pasted with one looks right and is another).
const COLLECTION_BAD_RE = new RegExp(`[\\u0000-\\u001f${SHOWN_AS_NOTHING}/\\\\:*?"<>|,]`);
// And a JWT: a key pasted as a name would reach the stack, the setup guide and the check's output.
const JWT_LIKE_RE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*(\.|$)/;
export const COLLECTION_RULE = '1-255 characters, none of / \\ : * ? " < > | , or control, bidi, invisible or line-separator characters, no leading or trailing whitespace, not a JWT';

export function isCollectionName(name: unknown): name is string {
  return typeof name === 'string' && name.length >= 1 && name.length <= 255 && name.trim() === name && !COLLECTION_BAD_RE.test(name) && !JWT_LIKE_RE.test(name);
}

/** The first name a list holds twice, or undefined: a repeat is a slip (and would be probed twice). */
export function repeatedName<T>(list: readonly T[]): T | undefined {
  return list.find((name, i) => list.indexOf(name) !== i);
}

const matching = (re: RegExp) => (value: unknown): value is string => typeof value === 'string' && re.test(value);

export const isValidName = matching(NAME_RE);

export const isEnvName = matching(ENV_NAME_RE);

/** A name a target may give an entry, and the writers write (ENTRY_NAME_RULE). */
export function isEntryName(name: unknown): name is string {
  return isEnvName(name) && name !== '__proto__';
}

/** A writer owner (a construct path, and the workspace) that needs no quoting anywhere. */
export const isOwner = matching(OWNER_RE);

/** A construct path that can own entries, at any length (a long one is shortened: see defaultWorkspaceOwner). */
export const isOwnerPath = matching(OWNER_CHARS_RE);

/**
 * Owners (also computed in Terraform: src/private/stack-strings.ts): the construct path, and in another workspace "@" and its
 * name (or a hash). A path too long stands as its first 80 characters, "+" and 16 hex of its SHA-256.
 */
const LONG_PATH_HEAD = 80;
/** The characters of a workspace name that an owner keeps as they are (any other name is hashed). */
export const WORKSPACE_NAME_CHARS = 'A-Za-z0-9_.:+-';
/** What an owner in another workspace leaves for "@" and the workspace: at least a hash (16). */
const WORKSPACE_MIN_ROOM = 1 + 16;

function shortPath(path: string): string {
  return `${path.slice(0, LONG_PATH_HEAD)}+${createHash('sha256').update(path).digest('hex').slice(0, 16)}`;
}

/** The owner of a construct path's entries in the default workspace. */
export function defaultWorkspaceOwner(path: string): string {
  return path.length <= MAX_OWNER_LENGTH ? path : shortPath(path);
}

/** What a construct path's owner in another workspace starts with, before "@<workspace>". */
export function workspaceOwnerBase(path: string): string {
  return path.length <= MAX_OWNER_LENGTH - WORKSPACE_MIN_ROOM ? path : shortPath(path);
}

/** The workspace in which path `other` would share the default-workspace owner of `path` (`<other>@<workspace>`), or undefined. */
export function workspaceSharingOwner(path: string, other: string): string | undefined {
  const mine = defaultWorkspaceOwner(path);
  const base = `${workspaceOwnerBase(other)}@`;
  if (!mine.startsWith(base)) return undefined;
  const workspace = mine.slice(base.length);
  return new RegExp(`^[${WORKSPACE_NAME_CHARS}]{1,${MAX_OWNER_LENGTH - base.length}}$`).test(workspace) ? workspace : undefined;
}

/** Whether owners `a` and `b` are one construct path in two workspaces (stripped of "@<workspace>", or as long-path stand-ins). */
export function sameAccessOwners(a: string, b: string): boolean {
  if (a === b) return false;
  const forms = (o: string) => {
    const stripped = String(o).replace(/@[^/@]*$/, '');
    return [o, stripped, workspaceOwnerBase(o), workspaceOwnerBase(stripped)];
  };
  const theirs = forms(b);
  return forms(a).some((f) => theirs.includes(f));
}

/** `Prod-EU` -> `prod_eu`: two names with the same key collide (Terraform and env names). */
export function collisionKey(name: string): string {
  return String(name).toLowerCase().replace(/-/g, '_');
}

/** `search-api` -> `search_api` (Terraform identifiers). */
export const snakeCase = collisionKey;

/** `prod-eu` -> `PROD_EU` (environment-variable fragments). */
export function envCase(name: string): string {
  return String(name).toUpperCase().replace(/-/g, '_');
}

/** The Terraform variable created for a key with no explicit source. */
export function keyVariableName(keyName: string): string {
  return `qdrant_api_key_${snakeCase(keyName)}`;
}

/** The prefix of a cluster's outputs: `qdrant_prod_eu` (`_rest_endpoint`, `_grpc_endpoint`). */
export function clusterOutputPrefix(clusterName: string): string {
  return `qdrant_${snakeCase(clusterName)}`;
}

/** The output that tells when a key expires: `qdrant_api_key_search_api_expires_at`. */
export function keyExpiryOutputName(keyName: string): string {
  return `${keyVariableName(keyName)}_expires_at`;
}

/** The variables an app reads for one cluster: `QDRANT_URL` when the target gets one cluster, `QDRANT_PROD_EU_URL` for several. */
export function clusterEnvNames(clusterName: string, single: boolean) {
  const prefix = single ? 'QDRANT_' : `QDRANT_${envCase(clusterName)}_`;
  return { url: `${prefix}URL`, grpcUrl: `${prefix}GRPC_URL`, apiKey: `${prefix}API_KEY` };
}

/** The label of one grant in every line the checker prints: `search-api → prod-eu`. */
export function grantLabel(keyName: string, clusterName: string): string {
  return `${keyName} → ${clusterName}`;
}

/** The longest label the checker shows whole: the longest grant label (two names of 63 and " → "). */
export const MAX_LABEL_SHOWN = grantLabel('k'.repeat(63), 'c'.repeat(63)).length;
