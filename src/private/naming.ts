/**
 * Names: one logical name (`prod-eu`, `search-api`) becomes a Terraform identifier
 * (`qdrant_api_key_search_api`), an environment-variable fragment (`PROD_EU`) and a
 * construct id. Not exported from the package.
 */

/** Letters, digits, `-` and `_`, starting with a letter; short enough for every use. */
const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;

export const NAME_RULE =
  'names start with a letter and hold only letters, digits, "-" and "_" (at most 63 characters)';

export function isValidName(name: string): boolean {
  return NAME_PATTERN.test(name);
}

/** `Prod-EU` → `prod_eu`: two names with the same key here would collide. */
export function collisionKey(name: string): string {
  return name.toLowerCase().replace(/-/g, '_');
}

/** `search-api` → `search_api` (Terraform identifiers, output and variable names). */
export function snakeCase(name: string): string {
  return collisionKey(name);
}

/** `prod-eu` → `PROD_EU` (environment-variable fragments). */
export function envCase(name: string): string {
  return name.toUpperCase().replace(/-/g, '_');
}

/** The Terraform variable created for a key with no explicit source. */
export function defaultKeyVariableName(keyName: string): string {
  return `qdrant_api_key_${snakeCase(keyName)}`;
}

/** Quote a value for an error message (JSON quoting shows empty strings and whitespace). */
export function q(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}
