/** A key variable as the runtime reads it, TF_VAR_...: -var and .tfvars files win over it, so synth hands over the sha256 of the value. */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Whether `value` is the text whose sha256 is `hex` (64 hex digits; anything else is not). */
export function sameSha256(value: string, hex: unknown): boolean {
  if (typeof hex !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  return timingSafeEqual(createHash('sha256').update(String(value), 'utf8').digest(), Buffer.from(hex, 'hex'));
}

/** How to set a key variable without the key on a command line (which the shell keeps): `read -rs`. */
export function setKeyHint(variable: string, deployCommand: string): string {
  return `run read -rs ${variable} && export ${variable}, paste the key (it is neither shown nor kept in the shell's history), then ${deployCommand}`;
}

/** The message when TF_VAR_<name> is not the value Terraform uses for variable <name>: never a value or a hash. */
export function variableSetTwice(variable: string): string {
  return `${variable} in the environment is not the value Terraform uses for variable ${variable.slice('TF_VAR_'.length)} ` +
    `(it is also set by -var, a .tfvars or *.auto.tfvars file, or -var-file): give the key one way only, by exporting ${variable}`;
}
