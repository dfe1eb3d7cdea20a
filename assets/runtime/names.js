'use strict';
/**
 * Names: the one place that says what a cluster or key name, an environment-variable name and a
 * writer owner may look like, and how the derived names are made. Used by the checker, the writer
 * and, at synth, by the constructs (src/). Node built-ins only.
 *
 *   logical name   prod-eu, search-api      letters, digits, - and _, starting with a letter, <= 63
 *   identifier     prod_eu                  Terraform outputs and variables (qdrant_prod_eu_rest_endpoint)
 *   env fragment   PROD_EU                  environment variables (QDRANT_PROD_EU_URL)
 *   owner          multi/Qdrant             the construct path that owns entries in a shared file
 *   collection     products, "a b", ü       a Qdrant collection a key's access names (COLLECTION_RULE)
 */

const { SHOWN_AS_NOTHING } = require('./text.js');

const NAME_RE = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;
const NAME_RULE = 'names start with a letter and hold only letters, digits, "-" and "_" (at most 63 characters)';

const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,255}$/;
const ENV_NAME_RULE = 'environment-variable names hold only letters, digits and "_", and do not start with a digit';

// A construct path: ids joined by "/". Nothing a shell or Terraform would read specially.
const OWNER_RE = /^[A-Za-z0-9_][A-Za-z0-9_.:@/+-]{0,127}$/;
const OWNER_RULE = 'owners are 1-128 characters from A-Z a-z 0-9 _ . : @ / + - (starting with a letter, digit or _)';

// Qdrant's own rule (no / \ : * ? " < > | ,, at most 255) plus what this library refuses so that
// a name shows as what it is: surrounding whitespace, control characters (C0, DEL, C1), bidi
// controls, line or paragraph separators, and characters shown as nothing (soft hyphen,
// zero-width ones, the word joiner, a BOM): a name pasted with one looks right and is another.
const COLLECTION_BAD_RE = new RegExp(`[\\u0000-\\u001f${SHOWN_AS_NOTHING}/\\\\:*?"<>|,]`);
// And a JWT (Qdrant Cloud's keys with granular access are JWTs): a key pasted as a name would
// reach the synthesized stack, the setup guide and the check's output.
const JWT_LIKE_RE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*(\.|$)/;
const COLLECTION_RULE = '1-255 characters, none of / \\ : * ? " < > | , or control, bidi, invisible or line-separator characters, no leading or trailing whitespace, not a JWT';

function isCollectionName(name) {
  return typeof name === 'string' && name.length >= 1 && name.length <= 255 && name.trim() === name && !COLLECTION_BAD_RE.test(name) && !JWT_LIKE_RE.test(name);
}

function isValidName(name) {
  return typeof name === 'string' && NAME_RE.test(name);
}

function isEnvName(name) {
  return typeof name === 'string' && ENV_NAME_RE.test(name);
}

function isOwner(owner) {
  return typeof owner === 'string' && OWNER_RE.test(owner);
}

/** `Prod-EU` -> `prod_eu`: two names with the same key collide (Terraform and env names). */
function collisionKey(name) {
  return String(name).toLowerCase().replace(/-/g, '_');
}

/** `search-api` -> `search_api` (Terraform identifiers). */
function snakeCase(name) {
  return collisionKey(name);
}

/** `prod-eu` -> `PROD_EU` (environment-variable fragments). */
function envCase(name) {
  return String(name).toUpperCase().replace(/-/g, '_');
}

/** The Terraform variable created for a key with no explicit source. */
function keyVariableName(keyName) {
  return `qdrant_api_key_${snakeCase(keyName)}`;
}

/** The prefix of a cluster's outputs: `qdrant_prod_eu` (`_rest_endpoint`, `_grpc_endpoint`). */
function clusterOutputPrefix(clusterName) {
  return `qdrant_${snakeCase(clusterName)}`;
}

/** The output that tells when a key expires: `qdrant_api_key_search_api_expires_at`. */
function keyExpiryOutputName(keyName) {
  return `${keyVariableName(keyName)}_expires_at`;
}

/**
 * The environment variables an app reads to reach one cluster, following the Qdrant ecosystem
 * (`QDRANT_URL`, `QDRANT_API_KEY`): plain names when the target receives one cluster, names with
 * the cluster (`QDRANT_PROD_EU_URL`) when it receives several.
 */
function clusterEnvNames(clusterName, single) {
  const prefix = single ? 'QDRANT_' : `QDRANT_${envCase(clusterName)}_`;
  return { url: `${prefix}URL`, grpcUrl: `${prefix}GRPC_URL`, apiKey: `${prefix}API_KEY` };
}

/** The label of one grant in every line the checker prints: `search-api → prod-eu`. */
function grantLabel(keyName, clusterName) {
  return `${keyName} → ${clusterName}`;
}

module.exports = {
  NAME_RULE,
  ENV_NAME_RULE,
  OWNER_RULE,
  COLLECTION_RULE,
  isValidName,
  isCollectionName,
  isEnvName,
  isOwner,
  collisionKey,
  snakeCase,
  envCase,
  keyVariableName,
  clusterOutputPrefix,
  keyExpiryOutputName,
  clusterEnvNames,
  grantLabel,
};
