/**
 * The only code that writes the setup guide to disk. Not exported from the package.
 *
 * It wraps the stack's public `TerraformStack.synthesizer` (an `IStackSynthesizer`): the original
 * synthesizer runs first (aspects, validations, `cdk.tf.json`), then the guide is written next to
 * `cdk.tf.json`. This works with `app.synth()`, `cdktf synth` and `Testing.fullSynth()`, and
 * needs no internal cdktf API (`addCustomSynthesis` is documented as framework-only).
 */
import * as fs from 'fs';
import * as path from 'path';
import { IStackSynthesizer, ISynthesisSession, TerraformStack } from 'cdktf';
import type { ClusterAccess } from '../cluster-access';
import { SetupGuide, SetupGuideOptions } from '../setup-guide';

/** Marks our wrapper; `Symbol.for` so that two copies of the package share one wrapper per stack. */
const GUIDE_SYNTHESIZER = Symbol.for('cdktf-qdrant-cluster-access.SetupGuideSynthesizer');

interface GuideEntry {
  readonly access: ClusterAccess;
  readonly options: SetupGuideOptions;
}

/** The shape shared across package copies: only `add` is called on a wrapper found on a stack. */
interface GuideSynthesizerLike extends IStackSynthesizer {
  add(entry: GuideEntry): void;
}

class GuideSynthesizer implements GuideSynthesizerLike {
  private readonly entries: GuideEntry[] = [];

  constructor(private readonly stack: TerraformStack, private readonly inner: IStackSynthesizer) {
    Object.defineProperty(this, GUIDE_SYNTHESIZER, { value: true });
  }

  public add(entry: GuideEntry): void {
    this.entries.push(entry);
  }

  public synthesize(session: ISynthesisSession): void {
    this.inner.synthesize(session);
    if (this.entries.length === 0) return;
    const dir = path.join(session.outdir, session.manifest.forStack(this.stack).workingDirectory);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, SetupGuide.FILE_NAME), SetupGuide._renderStack(this.entries.map((e) => e.access)));
    for (const { access, options } of this.entries) {
      if (options.outputPath === undefined) continue;
      const target = path.resolve(options.outputPath);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, SetupGuide.render(access));
    }
  }
}

function isGuideSynthesizer(x: unknown): x is GuideSynthesizerLike {
  return x !== null && typeof x === 'object' && GUIDE_SYNTHESIZER in x;
}

/**
 * Register an access for the guide of its stack. The first registration wraps the stack's
 * synthesizer; later ones (more accesses in the same stack) join the same wrapper.
 * Does nothing when the access is not inside a `TerraformStack`.
 */
export function registerSetupGuide(access: ClusterAccess, options: SetupGuideOptions): void {
  let stack: TerraformStack;
  try {
    stack = TerraformStack.of(access);
  } catch {
    return;
  }
  if (!isGuideSynthesizer(stack.synthesizer)) {
    stack.synthesizer = new GuideSynthesizer(stack, stack.synthesizer);
  }
  (stack.synthesizer as GuideSynthesizerLike).add({ access, options });
}
