/**
 * Test matrices: a suite that runs once per variant of an axis (each Qdrant server version, each
 * hashicorp/null version, each Terraform engine), with the variant in the `describe` title, so that
 * a failure names it:
 *
 *   describeVariants('qdrant', qdrantVariants(), 'checker verdicts', (server) => { … });
 *   // → "checker verdicts [qdrant 1.18.3]", "checker verdicts [qdrant 1.19.0]"
 *
 * A variant that cannot run here (no binary, no provider build) is skipped with its reason printed
 * once per test file; under CI (`CI` set) it fails instead, so that a broken setup cannot pass green.
 */

/** One value of an axis. */
export interface Variant<T> {
  /** What the `describe` title shows, e.g. `qdrant 1.19.0`. */
  readonly label: string;
  /** The value the suite runs with; undefined when the variant cannot run here. */
  readonly value?: T;
  /** Why the variant cannot run here, in one line (set exactly when `value` is undefined). */
  readonly unavailable?: string;
}

const noticesPrinted = new Set<string>();

/** The title of a suite's variant: `<name> [<label>]`. */
export function variantTitle(name: string, label: string): string {
  return `${name} [${label}]`;
}

/**
 * One `describe` per variant, titled `<name> [<label>]`; `fn` gets the variant's value. `axis`
 * names the axis in skip notices and CI failures (e.g. `real-Qdrant`). Without any variant, one
 * `describe` stands for the axis: skipped, or failing under CI.
 */
export function describeVariants<T>(axis: string, variants: readonly Variant<T>[], name: string, fn: (value: T, label: string) => void): void {
  const list = variants.length > 0 ? variants : [{ label: `no ${axis} variant`, unavailable: `no ${axis} variant is configured` }];
  for (const v of list) {
    const title = variantTitle(name, v.label);
    if (v.value !== undefined) {
      const value = v.value;
      describe(title, () => fn(value, v.label));
    } else if (process.env.CI) {
      describe(title, () => {
        test(`${v.label} is available (required under CI)`, () => {
          throw new Error(`${v.label} is unavailable: ${v.unavailable ?? 'no reason given'}`);
        });
      });
    } else {
      const notice = `skipping ${axis} suites of ${v.label}: ${v.unavailable ?? 'no reason given'}`;
      if (!noticesPrinted.has(notice)) {
        noticesPrinted.add(notice);
        process.stderr.write(`${notice}\n`);
      }
      // The suite's body needs the value, so it is not collected: one skipped test stands for it.
      describe.skip(title, () => {
        test(`needs ${v.label}`, () => undefined);
      });
    }
  }
}
