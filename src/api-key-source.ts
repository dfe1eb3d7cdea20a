import { Fn, Op, TerraformStack, TerraformVariable, Token, Tokenization, conditional } from 'cdktf';
import { IConstruct } from 'constructs';
import { errors } from './private/errors';
import { onlyByFactory } from './private/props';
import { plaintextProblem, variableAttribute } from './private/references';
import { names } from './private/runtime';
import { API_KEY_SOURCE_SYMBOL } from './private/schemas';

/** @internal How the checks and the secret targets receive the key at deploy time. */
export interface ApiKeySourceConfig {
  /** Terraform expression (a token) that evaluates to the key; marked sensitive. */
  readonly expression: string;
  /** A variable's `TF_VAR_<name>`: a local-exec inherits it, so the check's output stays visible. */
  readonly inheritedEnvironmentVariable?: string;
  readonly variable?: TerraformVariable;
  /** The sha256 of the key as Terraform uses it (a variable's null as ""), sensitive: for triggers. */
  readonly sha256: string;
  /**
   * The same hash, nonsensitive (of a high-entropy key; a sensitive value would hide the check's
   * lines), for a variable: compared with `TF_VAR_...`, since -var and .tfvars win over it.
   */
  readonly inheritedSha256?: string;
}

/**
 * Where the value of a Qdrant API key comes from at deploy time: a sensitive Terraform variable, or
 * a token from another resource. There is deliberately no way to pass a plaintext key.
 *
 * @example
 * const v = new TerraformVariable(stack, 'ingest_key', { type: 'string', sensitive: true });
 * ApiKeySource.fromVariable(v);
 */
export class ApiKeySource {
  /**
   * Use an existing Terraform variable of the key's stack: `sensitive: true`, no default, not
   * `nullable: false`, named for `TF_VAR_<name>` (letters, digits, `_`).
   */
  public static fromVariable(variable: TerraformVariable): ApiKeySource {
    if (!isVariable(variable)) throw new Error(errors.notAVariable(variable));
    return new ApiKeySource({ variable }, FACTORY);
  }

  /**
   * Use a reference to another resource or data source, e.g.
   * `dataVaultKvSecretV2.data.lookup('key')`, marked sensitive. Anything that resolves to a
   * literal (a `Lazy` string, `Fn.join` of literals) is refused.
   */
  public static fromToken(token: string): ApiKeySource {
    if (typeof token !== 'string') throw new Error(errors.tokenNotString(token));
    if (!Token.isUnresolved(token)) throw new Error(errors.tokenLiteral());
    if (Tokenization.reverseString(token).literals.length > 0) throw new Error(errors.tokenMixed());
    return new ApiKeySource({ token }, FACTORY);
  }

  private config?: ApiKeySourceConfig;

  private constructor(private readonly origin: { readonly variable: TerraformVariable } | { readonly token: string }, factory: symbol) {
    onlyByFactory(factory, FACTORY, errors.sourceWithNew());
    Object.defineProperty(this, API_KEY_SOURCE_SYMBOL, { value: true });
  }

  /** @internal */
  public _config(): ApiKeySourceConfig {
    return (this.config ??= 'variable' in this.origin ? variableConfig(this.origin.variable) : tokenConfig(this.origin.token));
  }

  /** @internal Problems of this source in the stack of `scope`; `plaintext` ones would put the key in the stack. */
  public _problems(scope: IConstruct): { message: string; plaintext: boolean }[] {
    if (!('variable' in this.origin)) {
      const problem = plaintextProblem(scope, this.origin.token);
      return problem ? [{ message: errors.tokenResolvesToLiteral(problem), plaintext: true }] : [];
    }
    const variable = this.origin.variable;
    const name = variable.friendlyUniqueId;
    // cdktf would pass the value across stacks through an output, kept in the other stack's state.
    const [variableStack, keyStack] = [TerraformStack.of(variable), TerraformStack.of(scope)];
    // As synthesized: an addOverride('default', ...) or ('sensitive', false) counts too.
    const sensitive = variableAttribute(variable, 'sensitive');
    const rules: [broken: boolean, message: () => string, plaintext: boolean][] = [
      [variableStack !== keyStack, () => errors.variableOtherStack(name, variableStack.node.path, keyStack.node.path), false],
      [sensitive !== true, () => errors.variableNotSensitive(name, sensitive), false],
      [!names.isEnvName(name), () => errors.variableBadName(name), false],
      [(variableAttribute(variable, 'default') ?? null) !== null, () => errors.variableDefault(name), true],
      [variableAttribute(variable, 'nullable') === false, () => errors.variableNotNullable(name), false],
    ];
    return rules.filter(([broken]) => broken).map(([, message, plaintext]) => ({ message: message(), plaintext }));
  }
}

const FACTORY = Symbol('ApiKeySource');

function variableConfig(variable: TerraformVariable): ApiKeySourceConfig {
  const name = variable.friendlyUniqueId;
  // A missing key then fails the check's precondition instead of blocking at Terraform's prompt
  // (shown even without a terminal). A user's default is left for validation to report.
  if (variableAttribute(variable, 'default') === undefined) variable.addOverride('default', null);
  const expression = variable.stringValue;
  // A variable may be null (not set): its precondition reports that, so a hash must not fail first.
  const value = Token.asString(conditional(Op.eq(expression, Token.nullValue()), '', expression));
  return {
    expression,
    inheritedEnvironmentVariable: `TF_VAR_${name}`,
    variable,
    sha256: Fn.sha256(value),
    inheritedSha256: Token.asString(Fn.nonsensitive(Fn.sha256(value))),
  };
}

function tokenConfig(token: string): ApiKeySourceConfig {
  const expression = Token.asString(Fn.sensitive(token));
  return { expression, sha256: Fn.sha256(expression) };
}

/** A TerraformVariable, possibly from another copy of cdktf (so not by instanceof). */
function isVariable(x: unknown): x is TerraformVariable {
  const v = x as { addOverride?: unknown; friendlyUniqueId?: unknown } | null;
  return v !== null && typeof v === 'object' && typeof v.addOverride === 'function' &&
    typeof v.friendlyUniqueId === 'string' && 'stringValue' in v && 'sensitive' in v;
}
