/**
 * The runtime (assets/) as the constructs see it: its rules, used at synth so that synth and
 * deploy apply the same ones, and the asset that copies it into each stack. Not exported.
 *
 * assets/ is plain Node (never compiled by jsii); its .d.ts files type it here. The relative path
 * is the same from src/private/ and from lib/private/, so this works before and after compiling.
 */
import * as path from 'path';
import { AssetType, TerraformAsset } from 'cdktf';
import { Construct } from 'constructs';

export * as names from '../../assets/runtime/names';
export * as urls from '../../assets/runtime/url';
export * as text from '../../assets/runtime/text';
export * as protocol from '../../assets/runtime/protocol';
export { FAILURES } from '../../assets/checker/failures';
export { setKeyHint, showable } from '../../assets/runtime/cli';

/** assets/: the checker, the writer and their shared runtime, shipped in the package next to lib/. */
const RUNTIME_DIR = path.join(__dirname, '..', '..', 'assets');

/** The runtime copied into the stack; `path` is relative to the stack's directory. */
export function runtimeAsset(scope: Construct, id: string): TerraformAsset {
  return new TerraformAsset(scope, id, { path: RUNTIME_DIR, type: AssetType.DIRECTORY });
}

/** Where the CLIs are inside the runtime asset. */
export const CLI = {
  checker: 'checker/cli.js',
  writer: 'writer/cli.js',
} as const;
