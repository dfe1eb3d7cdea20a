/**
 * The framework of this build (`cdktf`), named only here: scripts/build-cdktn.sh rewrites the
 * imports `from 'cdktf'` and these values for the cdktn flavour.
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

export const DEPLOY_COMMAND = `${FRAMEWORK.cli} deploy`;

/** The runtime's `--deploy-command`, left out when it is its default. */
export const DEPLOY_COMMAND_OPTION: string | undefined = DEPLOY_COMMAND === protocol.CHECK_OPTIONS.deployCommand.default ? undefined : DEPLOY_COMMAND;

export const SYNTH_COMMAND = `${FRAMEWORK.cli} synth`;
export const DESTROY_COMMAND = `${FRAMEWORK.cli} destroy`;
