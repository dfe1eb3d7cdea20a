import { Fn, Op, TerraformStack, TerraformVariable, Token, Tokenization, conditional } from 'cdktf';
import { IConstruct } from 'constructs';
import { errors } from './private/errors';
import { onlyByFactory } from './private/props';
import { plaintextProblem, variableAttribute } from './private/references';
import { names } from './private/runtime';
import { API_KEY_SOURCE_SYMBOL } from './private/schemas';

/**
 * How the checks and the secret targets receive the key at deploy time.
 * @internal
 */
export interface ApiKeySourceConfig {
  /** Terraform expression (a token) that evaluates to the key; marked sensitive. */
  readonly expression: string;
  /**
   * The environment variable that Terraform itself reads the key from (`TF_VAR_<name>`), when
   * the source is a variable. A local-exec process inherits it, so the checker reads it from
   * there and its output stays visible (see README, "No plaintext keys").
   */
  readonly inheritedEnvironmentVariable?: string;
  /** The Terraform variable, when the source is one (for the "key not set" precondition). */
  readonly variable?: TerraformVariable;
  /** The sha256 of the key as Terraform uses it (a variable's null as ""), sensitive: for triggers. */
  readonly sha256: string;
  /**
   * For a variable: the same hash, marked nonsensitive. The processes that read the key from
   * `inheritedEnvironmentVariable` compare it with what they read (-var and .tfvars files win over
   * `TF_VAR_...`). A hash of a high-entropy key; Terraform never prints a provisioner's
   * environment, and a sensitive value there would hide the process's lines.
   */
  readonly inheritedSha256?: string;
  /** Human description for docs and messages, never the value. */
  readonly description: string;
}

/**
 * Where the value of a Qdrant API key comes from at deploy time.
 *
 * A key is created by a person in the Qdrant Cloud console and is never created by this
 * library. The stack holds only a reference to it: a sensitive Terraform variable, or a token
 * from another resource or data source (Vault, a secrets manager). There is deliberately no
 * way to pass a plaintext key.
 *
 * @example
 * const v = new TerraformVariable(stack, 'ingest_key', { type: 'string', sensitive: true });
 * ApiKeySource.fromVariable(v);
 */
export class ApiKeySource {
  /**
   * Use an existing Terraform variable. It must be declared `sensitive: true`, must have no
   * default value, must not be `nullable: false`, must be in the key's stack, and its Terraform
   * name must be an environment-variable name (letters, digits and `_`, not starting with a digit); the checker reads it from
   * `TF_VAR_<its Terraform name>` at deploy time. That name is the variable's id at the stack's
   * top level; inside a construct, cdktf makes it unique (`Inner_key_086D030F`). The library gives the variable a `null` default,
   * so that a deploy without the key fails at once with a message naming the variable instead of
   * waiting at Terraform's prompt, and so that `cdktf destroy` does not need the key.
   */
  public static fromVariable(variable: TerraformVariable): ApiKeySource {
    // A value object has no scope to report to: it refuses at once (as fromToken does).
    if (!isVariable(variable)) throw new Error(errors.notAVariable(variable));
    return new ApiKeySource({ variable }, FACTORY);
  }

  /**
   * Use a value produced by another resource or data source, for example
   * `dataVaultKvSecretV2.data.lookup('key')`. It must be a reference: a literal string is
   * refused here, and at synth so is anything that resolves to text (a `Lazy` string, `Fn.join`
   * of literals, a `TerraformLocal` holding a literal). The value is marked sensitive, so that
   * plans never print it.
   */
  public static fromToken(token: string): ApiKeySource {
    // By value (any language): null, a number or list token, ... is not a string token.
    if (typeof token !== 'string') throw new Error(errors.tokenNotString(token));
    if (!Token.isUnresolved(token)) throw new Error(errors.tokenLiteral());
    if (Tokenization.reverseString(token).literals.length > 0) throw new Error(errors.tokenMixed());
    return new ApiKeySource({ token }, FACTORY);
  }

  private config?: ApiKeySourceConfig;

  /** Only the factories make one (see onlyByFactory): a subclass could only fail. */
  private constructor(private readonly origin: { readonly variable: TerraformVariable } | { readonly token: string }, factory: symbol) {
    onlyByFactory(factory, FACTORY, errors.sourceWithNew());
    Object.defineProperty(this, API_KEY_SOURCE_SYMBOL, { value: true });
  }

  /** @internal */
  public _config(): ApiKeySourceConfig {
    if (!this.config) this.config = 'variable' in this.origin ? variableConfig(this.origin.variable) : tokenConfig(this.origin.token);
    return this.config;
  }

  /**
   * Problems of this source in the stack of `scope`: each a phrase; `plaintext` ones would put a
   * key into the stack in plain text.
   * @internal
   */
  public _problems(scope: IConstruct): { message: string; plaintext: boolean }[] {
    if (!('variable' in this.origin)) {
      const problem = plaintextProblem(scope, this.origin.token);
      return problem ? [{ message: errors.tokenResolvesToLiteral(problem), plaintext: true }] : [];
    }
    const variable = this.origin.variable;
    const name = variable.friendlyUniqueId;
    const problems: { message: string; plaintext: boolean }[] = [];
    // cdktf would pass the value across stacks through an output, kept in the other stack's state.
    const variableStack = TerraformStack.of(variable);
    const keyStack = TerraformStack.of(scope);
    if (variableStack !== keyStack) {
      problems.push({ message: errors.variableOtherStack(name, variableStack.node.path, keyStack.node.path), plaintext: false });
    }
    // As synthesized: an addOverride('default', ...) or ('sensitive', false) counts too.
    const sensitive = variableAttribute(variable, 'sensitive');
    if (sensitive !== true) problems.push({ message: errors.variableNotSensitive(name, sensitive), plaintext: false });
    if (!names.isEnvName(name)) problems.push({ message: errors.variableBadName(name), plaintext: false });
    if ((variableAttribute(variable, 'default') ?? null) !== null) {
      problems.push({ message: errors.variableDefault(name), plaintext: true });
    }
    if (variableAttribute(variable, 'nullable') === false) problems.push({ message: errors.variableNotNullable(name), plaintext: false });
    return problems;
  }
}

/** What `fromVariable` and `fromToken` pass to the constructor. */
const FACTORY = Symbol('ApiKeySource');

function variableConfig(variable: TerraformVariable): ApiKeySourceConfig {
  const name = variable.friendlyUniqueId;
  // Optional: a missing key then fails the check resource's precondition, with our message,
  // instead of blocking at Terraform's prompt (which cdktf deploy shows even without a terminal).
  // (Not over a default the user set with addOverride: validation reports that one.)
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
    description: `Terraform variable "${name}" (set TF_VAR_${name})`,
  };
}

function tokenConfig(token: string): ApiKeySourceConfig {
  const expression = Token.asString(Fn.sensitive(token));
  return {
    expression,
    sha256: Fn.sha256(expression),
    description: 'a value from another resource (ApiKeySource.fromToken)',
  };
}

/** A TerraformVariable, possibly from another copy of cdktf (so not by instanceof). */
function isVariable(x: unknown): x is TerraformVariable {
  const v = x as { addOverride?: unknown; friendlyUniqueId?: unknown } | null;
  return v !== null && typeof v === 'object' && typeof v.addOverride === 'function' &&
    typeof v.friendlyUniqueId === 'string' && 'stringValue' in v && 'sensitive' in v;
}
