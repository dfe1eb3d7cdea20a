/**
 * The public types of the setup guide that `ClusterAccess` takes. `SetupGuide`, which renders
 * the guide of a `ClusterAccess`, is in src/setup-guide-api.ts: it takes a `ClusterAccess`, and
 * nothing under src/setup-guide/ imports src/cluster-access.ts (which imports the writer here).
 */

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
