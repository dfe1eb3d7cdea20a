import type { ClusterAccess } from '../cluster-access';
import { GUIDE_FILE_NAME } from './markdown';
import { renderAccessGuide } from './render';
import { errors } from '../private/errors';
import { CLUSTER_ACCESS_SYMBOL } from '../private/schemas';

/**
 * Options of the setup guide that `ClusterAccess` writes at synth.
 */
export interface SetupGuideOptions {
  /**
   * Write `qdrant-setup.md` next to the stack's `cdk.tf.json` at synth
   * (`<outdir>/stacks/<stack>/qdrant-setup.md`).
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * Also write a copy of this access's guide to this path, for example `docs/qdrant-setup.md` in
   * your repository, so that it can be reviewed and committed. A relative path is resolved from
   * the working directory of the synth. The guide holds no key values. It must be the path of a
   * file, known at synth (not a token), and no other guide's `outputPath` in the app: synth
   * reports such a path as an error.
   * @default - no copy
   */
  readonly outputPath?: string;
}

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
    return renderAccessGuide(access);
  }

  private constructor() {}
}
