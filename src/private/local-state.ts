/**
 * Where a local backend keeps a stack's state, for the warning of `SecretTarget.terraformOutputs()`
 * (its outputs hold the keys) and of `CheckEngine.TERRAFORM` (its data sources' headers do): the
 * local backend keeps them in clear in files the user may not look at. Measured with Terraform 1.11 (test/adversarial/state-at-rest.test.ts): the state and
 * its `.backup` are created with the mode the umask gives (0644 under umask 022), Terraform keeps a
 * mode set later, the backup holds the previous state from the second write on (the previous key
 * after a rotation), and after a destroy the backup still holds the last key. Not exported.
 */
import * as path from 'path';
import { Annotations, App, Manifest, TerraformBackend, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { errors } from './errors';
import { DESTROY_COMMAND } from './framework';
import { StackSupport } from './stack-support';

/**
 * The state files of the stack's local backend (absolute): the default workspace's state, and the
 * directory of the other workspaces' states; undefined when the stack keeps its state elsewhere.
 * Without a backend, cdktf adds a local one at synth whose state is `terraform.<stack>.tfstate` in
 * the working directory of the synth; a relative path is Terraform's, from the stack's directory.
 */
export function localStateFiles(stack: TerraformStack): { state: string; workspaces: string } | undefined {
  const backends = stack.node.findAll().filter((c): c is TerraformBackend => TerraformBackend.isBackend(c));
  const stackDir = path.resolve(App.of(stack).outdir, Manifest.stacksFolder, stack.node.id);
  if (backends.length === 0) {
    return { state: path.join(process.cwd(), `terraform.${stack.node.id}.tfstate`), workspaces: path.join(stackDir, 'terraform.tfstate.d') };
  }
  // The block the backend writes, its overrides included: { backend: { local: {...} } }, { cloud: ... }.
  const config = (backends[0].toTerraform() as { terraform?: { backend?: Record<string, { path?: unknown; workspace_dir?: unknown }> } }).terraform;
  const local = config?.backend?.local;
  if (local === undefined) return undefined;
  const given = (value: unknown, fallback: string) => (typeof value === 'string' && value !== '' ? value : fallback);
  return {
    state: path.resolve(stackDir, given(local.path, 'terraform.tfstate')),
    workspaces: path.resolve(stackDir, given(local.workspace_dir, 'terraform.tfstate.d')),
  };
}

/** What puts the keys into the state: terraformOutputs() (its outputs), or the Terraform check engine (its data sources' headers). */
export const KEYS_IN_STATE = {
  outputs: 'SecretTarget.terraformOutputs() puts API keys into this stack\'s outputs',
  engine: 'CheckEngine.TERRAFORM puts API keys into this stack\'s state (the request headers of its data "http" checks)',
} as const;

/** Warns once per stack, on `scope`, when the stack's keys go into a state kept by a local backend (`why`: what puts them there). */
export function warnKeysInLocalState(scope: Construct, why: keyof typeof KEYS_IN_STATE): void {
  const stack = TerraformStack.of(scope);
  const files = localStateFiles(stack);
  if (files === undefined || !StackSupport.of(scope).firstTime('keys-in-local-state')) return;
  Annotations.of(scope).addWarning(errors.keysInLocalState(KEYS_IN_STATE[why], files.state, path.join(files.workspaces, '<workspace>', 'terraform.tfstate'), DESTROY_COMMAND));
}
