'use strict';
/**
 * What every store edit checks first, whatever the format: entry names (variable names) and the
 * owner (the construct path that owns the entries). The rules are runtime/names.js's; this module
 * only turns a broken rule into an error that the editors raise. Node built-ins only.
 */
const { isEnvName, isOwner, OWNER_RULE } = require('../runtime/names.js');

class EntryError extends Error {
  constructor(message) {
    super(message);
    this.name = 'EntryError';
  }
}

function checkOwner(owner) {
  if (!isOwner(owner)) throw new EntryError(`owner is not valid: ${OWNER_RULE}`);
  return owner;
}

function checkName(name) {
  if (!isEnvName(name)) {
    throw new EntryError(`entry name "${String(name).slice(0, 64)}" is not a valid variable name (letters, digits and _, not starting with a digit)`);
  }
  return name;
}

/**
 * Whether owners `a` and `b` are one ClusterAccess in two Terraform workspaces (the constructs
 * add `@<workspace>` to the path outside the default one, src/private/stack-strings.ts).
 */
function otherWorkspace(a, b) {
  const path = (o) => String(o).replace(/@[^/@]*$/, '');
  return a !== b && path(a) === path(b);
}

/** What a refusal says after naming the other workspace's owner, with the fix. */
function anotherWorkspace(owner) {
  return `, the same access in another Terraform workspace (this one writes as ${owner}); ` +
    'give each workspace its own file, or a secretNaming prefix chosen per environment in your code';
}

module.exports = { EntryError, checkName, checkOwner, otherWorkspace, anotherWorkspace };
