/**
 * Does a Terraform expression refer to something, or is it text in disguise? A `fromToken` key
 * must come from a resource, data source, module or variable without a default; a `Lazy` string
 * or a local holding a literal would put it into the stack in plain text. Locals are followed.
 */
import { DefaultTokenResolver, StringConcat, TerraformLocal, TerraformStack, TerraformVariable, Token, Tokenization } from 'cdktf';
import { IConstruct } from 'constructs';

const RESOLVER = new DefaultTokenResolver(new StringConcat());

/** What a token becomes in the stack's JSON (as cdktf resolves it at synth). */
export function resolveIn(stack: TerraformStack, value: unknown): unknown {
  return Tokenization.resolve(value, { scope: stack, preparing: false, resolver: RESOLVER });
}

/** A variable's attribute as synthesized, with what `addOverride` set (its properties miss that). */
export function variableAttribute(variable: TerraformVariable, name: 'default' | 'sensitive' | 'nullable' | 'ephemeral'): unknown {
  const json = variable.toTerraform() as { variable?: Record<string, Record<string, unknown>> };
  return json.variable?.[variable.friendlyUniqueId]?.[name];
}

interface References {
  readonly variables: string[];
  readonly locals: string[];
  /** Resources, data sources, modules. */
  readonly other: number;
}

const NOT_SOURCES = new Set(['each', 'count', 'self', 'path', 'terraform']);
const KEYWORDS = new Set(['true', 'false', 'null', 'for', 'in', 'if', 'else', 'endif', 'endfor']);

/** Template parts `${...}` of a resolved string (nesting-aware), or [] for plain text. */
function interpolations(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '$' && text[i + 1] === '$' && text[i + 2] === '{') {
      i += 2; // "$${" is an escaped literal
      continue;
    }
    if (!((text[i] === '$' || text[i] === '%') && text[i + 1] === '{')) continue;
    let depth = 0;
    let j = i + 1;
    let inString = false;
    for (; j < text.length; j++) {
      const c = text[j];
      if (inString) {
        if (c === '\\') j++;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) break;
    }
    out.push(text.slice(i + 2, j));
    i = j;
  }
  return out;
}

/** The traversals (`var.x`, `aws_secret.s.value`, ...) of an expression, and of the templates inside its strings. */
function referencesOf(expression: string, depth = 0): References {
  const nested: References[] = [];
  const code = expression.replace(/"(?:[^"\\]|\\.)*"/g, (literal) => {
    if (depth < 8) nested.push(...interpolations(literal.slice(1, -1)).map((e) => referencesOf(e, depth + 1)));
    return '""';
  });
  const variables: string[] = [];
  const locals: string[] = [];
  let other = 0;
  const re = /(^|[^\w.\]"-])([A-Za-z_][\w-]*)\s*(\.\s*[A-Za-z_*][\w-]*|\[)/g;
  for (let m = re.exec(code); m; m = re.exec(code)) {
    const root = m[2];
    const rest = m[3].replace(/^\.\s*/, '');
    if (KEYWORDS.has(root) || NOT_SOURCES.has(root)) continue;
    if (root === 'var') variables.push(rest);
    else if (root === 'local') locals.push(rest);
    else other++;
  }
  return merged([{ variables, locals, other }, ...nested]);
}

function merged(refs: readonly References[]): References {
  return { variables: refs.flatMap((r) => r.variables), locals: refs.flatMap((r) => r.locals), other: refs.reduce((n, r) => n + r.other, 0) };
}

/** Why a key token is not a reference to a secret, never quoting the text (it may be the key). */
export function plaintextProblem(scope: IConstruct, token: string, depth = 0): string | undefined {
  const stack = TerraformStack.of(scope);
  const resolved: unknown = resolveIn(stack, token);
  if (typeof resolved !== 'string') return 'a value that is not a string (not shown)';
  const parts = interpolations(resolved);
  if (parts.length === 0) return 'a literal string (not shown)';
  const all = merged(parts.map((part) => referencesOf(part)));
  if (all.other > 0) return undefined;
  for (const name of all.variables) {
    const v = stack.node.findAll().find((c): c is TerraformVariable => c instanceof TerraformVariable && c.friendlyUniqueId === name);
    if (v && (variableAttribute(v, 'default') ?? null) === null) return undefined;
  }
  for (const name of all.locals) {
    const local = stack.node.findAll().find((c): c is TerraformLocal => c instanceof TerraformLocal && c.friendlyUniqueId === name);
    // `expression` reads back as a reference to the local itself; what it holds is in its JSON.
    const held: unknown = local ? (local.toTerraform() as { locals?: Record<string, unknown> }).locals?.[local.friendlyUniqueId] : undefined;
    const text = typeof held === 'string' ? held : Tokenization.isResolvable(held) ? Token.asString(held) : undefined;
    if (text !== undefined && depth < 8 && plaintextProblem(scope, text, depth + 1) === undefined) return undefined;
  }
  return 'an expression that refers to no resource, data source or variable without a default (not shown)';
}
