/**
 * The synth side of assets/runtime/input-file.ts: a local-exec's JSON input as a file of the stack,
 * named by its sha256 (an environment string holds 128 KiB at most). A token goes into a variable
 * of its own, and the file holds `{"$env": "<name>"}` in its place.
 */
import { createHash } from 'crypto';
import { Lazy, Token } from 'cdktf';
import { Construct } from 'constructs';
import { ENV_REFERENCE } from './runtime';
import { StackSupport } from './stack-support';

const DIRECTORY = 'qdrant-cluster-access-inputs';
const DEPLOY_VALUE_PREFIX = 'QCA_VALUE_';

/** A JSON input as the stack holds it; every member is resolved at synth. */
export type InputFile = ReturnType<typeof inputFile>;

export function inputFile(scope: Construct, produce: () => unknown) {
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
  // path: from the stack's directory; environment: the variables of the values known only at deploy.
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
      if (!variables.has(v)) variables.set(v, `${DEPLOY_VALUE_PREFIX}${variables.size + 1}`);
      const name = variables.get(v)!;
      environment[name] = v;
      return { [ENV_REFERENCE]: name };
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return { text: JSON.stringify(walk(value)), environment };
}
