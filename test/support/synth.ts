import { App, TerraformStack, Testing } from 'cdktf';

/** A fresh app and stack for one test. */
export function newStack(id = 'test'): TerraformStack {
  return new TerraformStack(Testing.app(), id);
}

/** The parsed Terraform JSON of a stack, validations included. */
export function synthJson(stack: TerraformStack): any {
  return JSON.parse(Testing.synth(stack, true));
}

/**
 * Run every validation of the stack's app (as `cdktf synth` does) and return the reported
 * errors as `[path] message` lines; empty when synth succeeds.
 */
export function validationErrors(stack: TerraformStack): string[] {
  try {
    stack.runAllValidations();
    return [];
  } catch (e) {
    const text = (e as Error).message;
    return text.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('['));
  }
}

/** Full synth to a temp dir, assets and all; returns the app's outdir. */
export function fullSynth(stack: TerraformStack): string {
  return Testing.fullSynth(stack);
}

export { App };
