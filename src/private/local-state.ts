/**
 * The warning that keys go into a local backend's state in clear: measured with Terraform 1.11
 * (test/adversarial/state-at-rest.test.ts), state and `.backup` get the umask's mode (0644), and
 * the backup keeps the previous key after a rotation and the last one after a destroy.
 */
import * as path from 'path';
import { Annotations, App, Manifest, TerraformBackend, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { errors } from './errors';
import { DESTROY_COMMAND } from './framework';
import { StackSupport } from './stack-support';

/**
 * The local backend's state and workspaces directory (absolute), or undefined. Without a backend,
 * cdktf's local one keeps `terraform.<stack>.tfstate` in synth's working directory.
 */
export function localStateFiles(stack: TerraformStack): { state: string; workspaces: string } | undefined {
  const backends = stack.node.findAll().filter((c): c is TerraformBackend => TerraformBackend.isBackend(c));
  const stackDir = path.resolve(App.of(stack).outdir, Manifest.stacksFolder, stack.node.id);
  if (backends.length === 0) {
    return { state: path.join(process.cwd(), `terraform.${stack.node.id}.tfstate`), workspaces: path.join(stackDir, 'terraform.tfstate.d') };
  }
  // The block as written, overrides included.
  const config = (backends[0].toTerraform() as { terraform?: { backend?: Record<string, { path?: unknown; workspace_dir?: unknown }> } }).terraform;
  const local = config?.backend?.local;
  if (local === undefined) return undefined;
  const given = (value: unknown, fallback: string) => (typeof value === 'string' && value !== '' ? value : fallback);
  return {
    state: path.resolve(stackDir, given(local.path, 'terraform.tfstate')),
    workspaces: path.resolve(stackDir, given(local.workspace_dir, 'terraform.tfstate.d')),
  };
}

/** What puts the keys into the state. */
export const KEYS_IN_STATE = {
  outputs: 'SecretTarget.terraformOutputs() puts API keys into this stack\'s outputs',
  engine: 'CheckEngine.TERRAFORM puts API keys into this stack\'s state (the request headers of its data "http" checks)',
} as const;

/** Warns once per stack when the keys go into a local backend's state. */
export function warnKeysInLocalState(scope: Construct, why: keyof typeof KEYS_IN_STATE): void {
  const files = localStateFiles(TerraformStack.of(scope));
  if (files === undefined || !StackSupport.of(scope).firstTime('keys-in-local-state')) return;
  Annotations.of(scope).addWarning(errors.keysInLocalState(KEYS_IN_STATE[why], files.state, path.join(files.workspaces, '<workspace>', 'terraform.tfstate'), DESTROY_COMMAND));
}
