/** The commands the guide prints, pasted exactly as shown (every value a shell word). */
import { shellWord } from './markdown';
import { GuideModel } from './model';
import { DEPLOY_COMMAND } from '../private/framework';
import { names } from '../private/runtime';

/** Where `cdktf synth` puts each stack's directory (its `cdk.tf.json` and state) by default. */
export const STACKS_DIR = 'cdktf.out/stacks';

/** `terraform -chdir=… ` for the stack's directory, or nothing when the stack is unknown. */
export function chdirOf(m: GuideModel): string {
  return m.stack ? `-chdir=${shellWord(`${STACKS_DIR}/${m.stack}`)} ` : '';
}

/** `terraform … output -raw NAME`, run from the project directory. */
export function outputCommand(m: GuideModel, output: string): string {
  return `terraform ${chdirOf(m)}output -raw ${shellWord(output)}`;
}

/** The deploy of the stack. */
export function deployCommand(m: GuideModel): string {
  return `${DEPLOY_COMMAND}${m.stack ? ` ${shellWord(m.stack)}` : ''}`;
}

/** Reads a pasted key into the environment without showing it; `instead` for a name that is not a shell variable's (the user's text). */
export function readLine(name: string, instead: string): string {
  return names.isEnvName(name) ? `read -rs ${name} && export ${name}   # paste the key, then Enter (nothing is shown)` : instead;
}
