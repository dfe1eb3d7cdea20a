/**
 * `SetupGuide`, the public entry point of the setup guide. It lives apart from src/setup-guide/
 * (the renderer and the writer, which see only the guide's read-only model) because it takes a
 * `ClusterAccess`: src/cluster-access.ts imports the writer, so nothing there may import it back.
 */
import type { ClusterAccess } from './cluster-access';
import { errors } from './private/errors';
import { buildGuideModel } from './private/guide-model';
import { CLUSTER_ACCESS_SYMBOL } from './private/schemas';
import { GUIDE_FILE_NAME } from './setup-guide/markdown';
import { renderAccessGuide } from './setup-guide/render';

/**
 * The setup guide: what a person does in the Qdrant Cloud console for each key, how the key
 * reaches the deploy, what the health check proves, how apps connect, how to rotate keys, and
 * how to fix each health-check failure.
 *
 * `ClusterAccess` writes it at synth as `qdrant-setup.md` next to the stack's `cdk.tf.json`
 * (see `SetupGuideOptions`). `render()` returns the same Markdown without writing anything.
 *
 * The output is deterministic: clusters and keys appear in the order they were added to the
 * `ClusterAccess`, and it holds no timestamps, no absolute paths and no key values (the model
 * never has them).
 */
export class SetupGuide {
  /** Name of the file written next to each stack's `cdk.tf.json`. */
  public static readonly FILE_NAME: string = GUIDE_FILE_NAME;

  /**
   * Render the guide of one `ClusterAccess` as Markdown. Pure: writes nothing.
   */
  public static render(access: ClusterAccess): string {
    // By value: any language can pass anything (None, a dict, a construct of another kind).
    if (access === null || typeof access !== 'object' || !(CLUSTER_ACCESS_SYMBOL in access)) throw new Error(errors.renderNotAccess(access));
    return renderAccessGuide(buildGuideModel(access));
  }

  private constructor() {}
}
