/**
 * The framework this build of the library is for: CDK for Terraform (`cdktf`). The only place in
 * src/ that names it. The CDK Terrain (`cdktn`) flavour, `cdktn-qdrant-cluster-access`, is built
 * from the same source by scripts/build-cdktn.sh, which rewrites the imports `from 'cdktf'` and
 * the values below, nothing else. Not exported.
 */
import { protocol } from './runtime';

export const FRAMEWORK = {
  /** The framework's npm package (what `App`, `TerraformStack` are imported from). */
  lib: 'cdktf',
  /** The framework's command line tool. */
  cli: 'cdktf',
  /** The npm package of this library for the framework. */
  packageName: 'cdktf-qdrant-cluster-access',
} as const;

/** How the user deploys: what the hints in messages and the setup guide say. */
export const DEPLOY_COMMAND = `${FRAMEWORK.cli} deploy`;

/** The deploy command as the runtime's `--deploy-command` (its hints name it): left out when it is the runtime's default. */
export const DEPLOY_COMMAND_OPTION: string | undefined = DEPLOY_COMMAND === protocol.CHECK_OPTIONS.deployCommand.default ? undefined : DEPLOY_COMMAND;

/** How the user synthesizes. */
export const SYNTH_COMMAND = `${FRAMEWORK.cli} synth`;

/** How the user destroys. */
export const DESTROY_COMMAND = `${FRAMEWORK.cli} destroy`;
