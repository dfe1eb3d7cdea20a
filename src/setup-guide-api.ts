// `SetupGuide` takes a `ClusterAccess`, which imports src/setup-guide/: it lives here to keep that folder free of an import circle.
import type { ClusterAccess } from './cluster-access';
import { errors } from './private/errors';
import { buildGuideModel } from './private/guide-model';
import { CLUSTER_ACCESS_SYMBOL } from './private/schemas';
import { GUIDE_FILE_NAME } from './setup-guide/markdown';
import { renderAccessGuide } from './setup-guide/render';

/**
 * The setup guide: the console steps for each key, how it reaches the deploy, what the check
 * proves, how apps connect, rotation and troubleshooting. `ClusterAccess` writes it at synth next
 * to `cdk.tf.json`. Deterministic: no timestamps, absolute paths or key values.
 */
export class SetupGuide {
  /** Name of the file written next to each stack's `cdk.tf.json`. */
  public static readonly FILE_NAME: string = GUIDE_FILE_NAME;

  /** Render the guide of one `ClusterAccess` as Markdown. Pure: writes nothing. */
  public static render(access: ClusterAccess): string {
    if (access === null || typeof access !== 'object' || !(CLUSTER_ACCESS_SYMBOL in access)) throw new Error(errors.renderNotAccess(access));
    return renderAccessGuide(buildGuideModel(access));
  }

  private constructor() {}
}
