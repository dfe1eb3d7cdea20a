/**
 * The runtime (assets/): its rules, so that synth and deploy apply the same ones, and the asset
 * that copies it into each stack. Imported as `#assets/...` (package.json "imports"), typed by its
 * compiled .d.ts, so that jsii never compiles it.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { AssetType, TerraformAsset } from 'cdktf';
import { Construct } from 'constructs';

export * as names from '#assets/runtime/names';
export * as urls from '#assets/runtime/url';
export * as text from '#assets/runtime/text';
export * as protocol from '#assets/runtime/protocol';
export * as probes from '#assets/checker/probes';
export { FAILURES, messageTemplate, tableFailure } from '#assets/checker/failures';
export { BACKOFF } from '#assets/checker/retry';
export { readCaFile } from '#assets/runtime/ca-file';
export { ENV_REFERENCE } from '#assets/runtime/input-file';
export { CLIP_MARK, plural, showable } from '#assets/runtime/text';
export { setKeyHint } from '#assets/runtime/key-variable';
export { SIDECAR_SUFFIX } from '#assets/writer/json';
export { fileNameProblem } from '#assets/writer/file-names';

const RUNTIME_DIR = path.join(__dirname, '..', '..', 'assets');

/**
 * The runtime copied into the stack. Hashed over the shipped files only (.js, .d.ts, package.json):
 * a checkout, with its TypeScript sources, gives the same triggers as the installed package.
 */
export function runtimeAsset(scope: Construct, id: string): TerraformAsset {
  const hash = createHash('md5');
  const walk = (p: string): void => {
    const st = fs.statSync(p);
    if (st.isDirectory()) fs.readdirSync(p).forEach((name) => walk(path.resolve(p, name)));
    else if (st.isFile() && /(?:\.js|\.d\.ts|^package\.json)$/.test(path.basename(p))) hash.update(fs.readFileSync(p));
  };
  walk(RUNTIME_DIR);
  return new TerraformAsset(scope, id, { path: RUNTIME_DIR, type: AssetType.DIRECTORY, assetHash: hash.digest('hex').slice(0, 32).toUpperCase() });
}

export const CLI = { checker: 'checker/cli.js', writer: 'writer/cli.js' } as const;
