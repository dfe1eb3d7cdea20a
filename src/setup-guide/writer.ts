/**
 * The only code that writes the setup guide to disk. Not exported from the package.
 *
 * After the stack's own synthesis (aspects, validations, `cdk.tf.json`), the guide of every
 * `ClusterAccess` in the stack is written next to `cdk.tf.json`, and copied to each access's
 * `outputPath`. This works with `app.synth()`, `cdktf synth` and `Testing.fullSynth()`, and needs
 * no internal cdktf API (`addCustomSynthesis` is documented as framework-only).
 */
import * as fs from 'fs';
import * as path from 'path';
import { TerraformStack } from 'cdktf';
import type { ClusterAccess } from '../cluster-access';
import { GUIDE_FILE_NAME } from './markdown';
import { renderAccessGuide, renderStackGuide } from './render';
import { StackSupport } from '../private/stack-support';

/** Registers the guide of an access's stack (once per stack; the accesses are found at synth). */
export function registerSetupGuide(access: ClusterAccess): void {
  const stack = TerraformStack.of(access);
  StackSupport.of(access).afterSynth('setup-guide', (dir) => {
    // In construct-tree order, which is creation order among siblings: deterministic.
    const accesses = stack.node.findAll().filter((c) => CLUSTER_ACCESS in c)
      .map((c) => c as unknown as ClusterAccess)
      .filter((a) => a.setupGuideOptions.enabled !== false);
    if (accesses.length === 0) return;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, GUIDE_FILE_NAME), renderStackGuide(accesses));
    for (const a of accesses) {
      if (a.setupGuideOptions.outputPath === undefined) continue;
      const target = path.resolve(a.setupGuideOptions.outputPath);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, renderAccessGuide(a));
    }
  });
}

const CLUSTER_ACCESS = Symbol.for('cdktf-qdrant-cluster-access.ClusterAccess');
