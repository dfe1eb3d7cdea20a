/**
 * The synth side of assets/runtime/input-file.ts: a JSON input of one local-exec (the grants of a
 * key, the entries of a file), written into the stack's directory at synth, so that its size is
 * bounded by nothing (one environment string holds 128 KiB at most). A value that is a token,
 * known only at deploy, cannot be written at synth: it goes into an environment variable of its
 * own, `<prefix><n>` (one per distinct token), and the file holds `{"$env": "<prefix><n>"}` in its
 * place. The file is named by its sha256, which the command gets too. Not exported.
 */
import { createHash } from 'crypto';
import { Lazy, Token } from 'cdktf';
import { Construct } from 'constructs';
import { ENV_REFERENCE } from './runtime';
import { StackSupport } from './stack-support';

/** Where the input files are, in the stack's directory. */
const DIRECTORY = 'qdrant-cluster-access-inputs';

/** The environment variables that carry the values known only at deploy: `QCA_VALUE_1`, ... */
export const DEPLOY_VALUE_PREFIX = 'QCA_VALUE_';

/** A JSON input as the stack holds it; every member is resolved at synth, when the input is known. */
export interface InputFile {
  /** The file, from the stack's directory. */
  readonly path: string;
  /** Its sha256 (hex). */
  readonly sha256: string;
  /** The variables that hold the values known only at deploy, for the provisioner's environment. */
  environment(): Record<string, string>;
  /** How many values are known only at deploy (each is one variable of `environment()`). */
  deployTimeValues(): number;
}

/** A JSON input (`produce`, called at synth) of a local-exec under `scope`, in a file of the stack. */
export function inputFile(scope: Construct, produce: () => unknown): InputFile {
  const support = StackSupport.of(scope);
  // Rendered once per input: each member is produced at every resolve of the stack.
  let last: { json: string; text: string; environment: Record<string, string>; sha256: string; file: string } | undefined;
  const render = () => {
    const value = produce();
    const json = JSON.stringify(value);
    if (last?.json !== json) {
      const rendered = renderInput(value);
      const sha256 = createHash('sha256').update(rendered.text).digest('hex');
      last = { json, ...rendered, sha256, file: `${DIRECTORY}/${sha256}.json` };
    }
    support.addInputFile(last.file, last.text);
    return last;
  };
  return {
    path: Lazy.stringValue({ produce: () => render().file }),
    sha256: Lazy.stringValue({ produce: () => render().sha256 }),
    environment: () => render().environment,
    deployTimeValues: () => Object.keys(render().environment).length,
  };
}

/** The file's text, each token (any string holding one) replaced by a reference to its variable. */
function renderInput(value: unknown): { text: string; environment: Record<string, string> } {
  const environment: Record<string, string> = {};
  const variables = new Map<string, string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (!Token.isUnresolved(v)) return v;
      let name = variables.get(v);
      if (name === undefined) {
        name = `${DEPLOY_VALUE_PREFIX}${variables.size + 1}`;
        variables.set(v, name);
        environment[name] = v;
      }
      return { [ENV_REFERENCE]: name };
    }
    if (Array.isArray(v)) return v.map(walk);
    // fromEntries defines each key as an own property, "__proto__" too.
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return { text: JSON.stringify(walk(value)), environment };
}
