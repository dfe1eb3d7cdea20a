/**
 * Ephemeral keys: Terraform (1.10+, OpenTofu 1.11+) keeps them out of plan and state, so nothing
 * derived from one is stored. Their check and writes re-run on `keyVersion` (or every deploy). A
 * sha256 of the key would hide a provisioner's output, so a guard provisioner of its own compares
 * `TF_VAR_...` first (`verify-key`). Older versions fail at init through version files.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Fn, TerraformVariable, Token } from 'cdktf';
import { errors } from './errors';
import { DEPLOY_COMMAND_OPTION } from './framework';
import { localExec } from './null-resource';
import { variableAttribute } from './references';
import { protocol } from './runtime';

/** The variable that hands the runtime a key's expected sha256 (`keySha256Env`), for the check and keyGuard alike. */
export const KEY_SHA256_ENV = 'QCA_KEY_SHA256';

/** Files beside `cdk.tf.json`: Terraform reads the first, OpenTofu the second in its place (same base name). */
export const VERSION_FILES = { terraform: 'qdrant-ephemeral-keys.tf.json', tofu: 'qdrant-ephemeral-keys.tofu.json' } as const;

const REQUIRED = { terraform: '1.10', tofu: '1.11' } as const;

/** Whether a variable is ephemeral in the stack (through an override: cdktf 0.21's TerraformVariable has no such option). */
export function isEphemeralVariable(variable: TerraformVariable): boolean {
  return variableAttribute(variable, 'ephemeral') === true;
}

/** A trigger that is unknown until apply: the resource is replaced, and its provisioners run, on every deploy. */
export function everyDeploy(): Record<string, string> {
  return { run: Fn.timestamp() };
}

/** What replaces an ephemeral key's check: its `keyVersion`, or every deploy. */
export function keyTriggers(keyVersion: number | undefined): Record<string, string> {
  return keyVersion === undefined ? everyDeploy() : { key_version: text(keyVersion) };
}

/** What stands for an ephemeral key in a hash of the values a target writes (never the key). */
export function standIn(keyVersion: number | undefined): string {
  return keyVersion === undefined ? 'ephemeral key, written on every deploy' : `ephemeral key, keyVersion ${text(keyVersion)}`;
}

/** A keyVersion as text (it may be a token: a variable of the user's, say). */
function text(n: number): string {
  return Token.isUnresolved(n) ? Token.asString(n) : String(n);
}

/** Runs ahead of a provisioner reading an ephemeral key: fails when `TF_VAR_...` is not Terraform's value. */
export function keyGuard(cli: string, key: { readonly environmentVariable: string; readonly sha256: string }): ReturnType<typeof localExec> {
  const run = protocol.invocation('verify-key', { keyEnv: key.environmentVariable, keySha256Env: KEY_SHA256_ENV, deployCommand: DEPLOY_COMMAND_OPTION }, cli);
  return localExec(run, { [KEY_SHA256_ENV]: key.sha256 });
}

/** An ephemeral key's options as given, and what the key made of them. */
export interface EphemeralOptions {
  readonly given: unknown;
  readonly keyVersion: unknown;
  /** Decided when the key was created. */
  readonly ephemeral: boolean;
  readonly variable?: TerraformVariable;
  readonly usersVariable: boolean;
}

/** Validation errors of a key's `ephemeral` and `keyVersion` (wrong types are the props check's). */
export function ephemeralProblems(keyName: string, o: EphemeralOptions): string[] {
  const problems: string[] = [];
  const version = typeof o.keyVersion === 'number' && !Number.isNaN(o.keyVersion) ? o.keyVersion : undefined;
  if (version !== undefined && !Token.isUnresolved(version) && !(Number.isSafeInteger(version) && version >= 0)) {
    problems.push(errors.keyVersionRange(keyName, version));
  }
  if (version !== undefined && !o.ephemeral) problems.push(errors.keyVersionNotEphemeral(keyName));
  if (o.variable !== undefined && o.usersVariable) {
    const name = o.variable.friendlyUniqueId;
    const now = isEphemeralVariable(o.variable);
    if (o.given === true && !now) problems.push(errors.ephemeralVariableNot(keyName, name));
    else if (o.given === false && now) problems.push(errors.ephemeralFalseVariable(keyName, name));
    // Decided when the key was created: its check's triggers, its expiry output.
    else if (o.given === undefined && now !== o.ephemeral) problems.push(errors.ephemeralChangedLater(keyName, name, now));
  }
  return problems;
}

/**
 * Writes the version files when the stack has ephemeral keys, else removes them. One line each:
 * both tools quote the line of a `required_version` they refuse, so its `//` says why.
 */
export function writeVersionFiles(dir: string, keys: readonly string[]): void {
  for (const tool of ['terraform', 'tofu'] as const) {
    const file = path.join(dir, VERSION_FILES[tool]);
    if (keys.length === 0) {
      fs.rmSync(file, { force: true });
      continue;
    }
    const named = keys.length > 4 ? `${keys.slice(0, 3).join(', ')} and ${keys.length - 3} more` : keys.join(', ');
    const why = `Qdrant API keys declared ephemeral (${named}) need ` +
      (tool === 'terraform' ? `Terraform ${REQUIRED.terraform} or later, or OpenTofu ${REQUIRED.tofu} or later` : `OpenTofu ${REQUIRED.tofu} or later`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify({ terraform: { '//': why, 'required_version': `>= ${REQUIRED[tool]}` } })}\n`);
  }
}
