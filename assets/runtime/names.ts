/**
 * Names: the one place that says what a cluster or key name, an environment-variable name, a
 * writer owner and a collection may look like, and how the derived names are made. Used by the
 * checker, the writer and, at synth, by the constructs (src/). Node built-ins only.
 *
 *   logical name   prod-eu, search-api      letters, digits, - and _, starting with a letter, <= 63
 *   identifier     prod_eu                  Terraform outputs and variables (qdrant_prod_eu_rest_endpoint)
 *   env fragment   PROD_EU                  environment variables (QDRANT_PROD_EU_URL)
 *   owner          multi/Qdrant             the construct path that owns entries in a shared file
 *   collection     products, "a b", ü       a Qdrant collection a key's access names (COLLECTION_RULE)
 */
import { SHOWN_AS_NOTHING } from './text';

const NAME_RE = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;
export const NAME_RULE = 'names start with a letter and hold only letters, digits, "-" and "_" (at most 63 characters)';

const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,255}$/;
export const ENV_NAME_RULE = 'environment-variable names hold only letters, digits and "_", and do not start with a digit';

// A construct path: ids joined by "/". Nothing a shell or Terraform would read specially.
const OWNER_RE = /^[A-Za-z0-9_][A-Za-z0-9_.:@/+-]{0,127}$/;
export const OWNER_RULE = 'owners are 1-128 characters from A-Z a-z 0-9 _ . : @ / + - (starting with a letter, digit or _)';

// Qdrant's own rule (no / \ : * ? " < > | ,, at most 255) plus what this library refuses so that
// a name shows as what it is: surrounding whitespace, control characters (C0, DEL, C1), bidi
// controls, line or paragraph separators, and characters shown as nothing (soft hyphen,
// zero-width ones, the word joiner, a BOM): a name pasted with one looks right and is another.
const COLLECTION_BAD_RE = new RegExp(`[\\u0000-\\u001f${SHOWN_AS_NOTHING}/\\\\:*?"<>|,]`);
// And a JWT (Qdrant Cloud's keys with granular access are JWTs): a key pasted as a name would
// reach the synthesized stack, the setup guide and the check's output.
const JWT_LIKE_RE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*(\.|$)/;
export const COLLECTION_RULE = '1-255 characters, none of / \\ : * ? " < > | , or control, bidi, invisible or line-separator characters, no leading or trailing whitespace, not a JWT';

export function isCollectionName(name: unknown): name is string {
  return typeof name === 'string' && name.length >= 1 && name.length <= 255 && name.trim() === name && !COLLECTION_BAD_RE.test(name) && !JWT_LIKE_RE.test(name);
}

/** The first name a list holds twice, or undefined: a repeat is a slip (and would be probed twice). */
export function repeatedName<T>(list: readonly T[]): T | undefined {
  return list.find((name, i) => list.indexOf(name) !== i);
}

/** A cluster or key name: letters, digits, `-` and `_`, starting with a letter, at most 63. */
export function isValidName(name: unknown): name is string {
  return typeof name === 'string' && NAME_RE.test(name);
}

/** An environment-variable name a shell can export. */
export function isEnvName(name: unknown): name is string {
  return typeof name === 'string' && ENV_NAME_RE.test(name);
}

/** A writer owner (a construct path) that needs no quoting anywhere. */
export function isOwner(owner: unknown): owner is string {
  return typeof owner === 'string' && OWNER_RE.test(owner);
}

/** `Prod-EU` -> `prod_eu`: two names with the same key collide (Terraform and env names). */
export function collisionKey(name: string): string {
  return String(name).toLowerCase().replace(/-/g, '_');
}

/** `search-api` -> `search_api` (Terraform identifiers). */
export function snakeCase(name: string): string {
  return collisionKey(name);
}

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

/** The names an app reads to reach one cluster, e.g. `QDRANT_PROD_EU_URL`, `QDRANT_PROD_EU_GRPC_URL`, `QDRANT_PROD_EU_API_KEY`. */
export type ClusterEnvNames = ReturnType<typeof clusterEnvNames>;

/**
 * The environment variables an app reads to reach one cluster, following the Qdrant ecosystem
 * (`QDRANT_URL`, `QDRANT_API_KEY`): plain names when the target receives one cluster, names with
 * the cluster (`QDRANT_PROD_EU_URL`) when it receives several.
 */
export function clusterEnvNames(clusterName: string, single: boolean) {
  const prefix = single ? 'QDRANT_' : `QDRANT_${envCase(clusterName)}_`;
  return { url: `${prefix}URL`, grpcUrl: `${prefix}GRPC_URL`, apiKey: `${prefix}API_KEY` };
}

/** The label of one grant in every line the checker prints: `search-api → prod-eu`. */
export function grantLabel(keyName: string, clusterName: string): string {
  return `${keyName} → ${clusterName}`;
}
