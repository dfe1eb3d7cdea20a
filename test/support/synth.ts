import * as fs from 'fs';
import * as path from 'path';
import { App, TerraformStack, Testing } from 'cdktf';

/** A fresh app and stack for one test. */
export function newStack(id = 'test'): TerraformStack {
  return new TerraformStack(Testing.app(), id);
}

/** The parsed Terraform JSON of a stack: aspects run (so secret targets are bound), then validations. */
export function synthJson(stack: TerraformStack): any {
  return JSON.parse(Testing.synth(stack, true));
}

/** The `[path] message` lines of a validation error's text. */
function errorLines(text: string): string[] {
  return text.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('['));
}

/**
 * Run every validation of the stack WITHOUT aspects (`stack.runAllValidations()`) and return
 * the reported errors as `[path] message` lines; empty when they pass.
 *
 * Aspects do not run here, so secret targets are not bound yet and their errors (file paths,
 * owners, collisions between files and outputs) are not reported: use `synthErrors` for those.
 * This is right for the checks that the constructs add on their own (names, URLs, props).
 */
export function validationErrors(stack: TerraformStack): string[] {
  try {
    stack.runAllValidations();
    return [];
  } catch (e) {
    return errorLines((e as Error).message);
  }
}

/**
 * The message of a failing `Testing.synth(stack, true)`, as `cdktf synth` reports it: aspects
 * (which bind the secret targets) run first, then every validation. '' when synth succeeds.
 */
export function synthMessage(stack: TerraformStack): string {
  try {
    Testing.synth(stack, true);
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}

/** The `[path] message` lines of a failing `Testing.synth(stack, true)`; empty when synth succeeds. */
export function synthErrors(stack: TerraformStack): string[] {
  return errorLines(synthMessage(stack));
}

/** Full synth to a temp dir, assets and all; returns the app's outdir. */
export function fullSynth(stack: TerraformStack): string {
  return Testing.fullSynth(stack);
}

/**
 * Full synth (aspects, validations, assets and the input files the commands read) to a temp dir:
 * the parsed Terraform JSON, without cdktf's "//" metadata (as Testing.synth gives it), and the
 * stack's directory, where the commands run.
 */
export function synthToDir(stack: TerraformStack): { json: any; dir: string } {
  const dir = path.join(Testing.fullSynth(stack), 'stacks', stack.node.id);
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8'), (key, value) => (key === '//' ? undefined : value));
  return { json, dir };
}

/** The JSON input file (private/input-file.ts) that a provisioner's environment variable `variable` names, in stack directory `dir`. */
export function inputFileOf(dir: string, environment: Record<string, string>, variable: string): any {
  return JSON.parse(fs.readFileSync(path.join(dir, environment[variable]), 'utf8'));
}

export { App };

/** The owner of a file target's entries as the stack writes it: the path, per Terraform workspace. */
export { stateOwner } from '../../src/private/stack-strings';

const WORKSPACE_SUFFIX_RE = /\$\{terraform\.workspace == "default" \? "" : format\("@%s", .*? : substr\(sha256\(terraform\.workspace\), 0, 16\)\)\}/g;

/** A string of the stack as Terraform evaluates it in the default workspace. */
export function inDefaultWorkspace(value: string): string {
  return value.replace(WORKSPACE_SUFFIX_RE, '');
}
