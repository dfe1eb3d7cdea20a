/** The setup guide's options (`SetupGuide` itself is in src/setup-guide-api.ts). */

/** Options of the setup guide that `ClusterAccess` writes at synth. */
export interface SetupGuideOptions {
  /**
   * Write `qdrant-setup.md` next to the stack's `cdk.tf.json` at synth.
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * Also write a copy to this file (e.g. `docs/qdrant-setup.md`, to review and commit), relative
   * to the synth's working directory; not a token, and not another guide's `outputPath`.
   * @default - no copy
   */
  readonly outputPath?: string;
}
