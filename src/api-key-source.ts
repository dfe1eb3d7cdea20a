import { TerraformVariable, Token, Tokenization } from 'cdktf';

/**
 * How the health check receives the key at deploy time.
 * @internal
 */
export interface ApiKeySourceConfig {
  /** Terraform expression (a token) that evaluates to the key. */
  readonly expression: string;
  /**
   * The environment variable that Terraform itself reads the key from (`TF_VAR_<name>`),
   * when the source is a variable. A local-exec process inherits it, so the checker reads it
   * from there and its output stays visible (see README, "What Terraform shows").
   */
  readonly inheritedEnvironmentVariable?: string;
  /** Human description for docs and messages, never the value. */
  readonly description: string;
  /** Problems found when the source was made, reported by the key's validation. */
  readonly problems: string[];
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
export abstract class ApiKeySource {
  /**
   * Use an existing Terraform variable. It must be declared `sensitive: true` and must have no
   * default value; the checker reads it from `TF_VAR_<variable name>` at deploy time.
   */
  public static fromVariable(variable: TerraformVariable): ApiKeySource {
    return new VariableSource(variable);
  }

  /**
   * Use a value produced by another resource or data source, for example
   * `dataVaultKvSecretV2.data.lookup('key')`. It must be an unresolved token: a literal string
   * is refused, and so is a token mixed with literal text.
   */
  public static fromToken(token: string): ApiKeySource {
    return new TokenSource(token);
  }

  protected constructor() {}

  /** @internal */
  public abstract _config(): ApiKeySourceConfig;
}

class VariableSource extends ApiKeySource {
  constructor(private readonly variable: TerraformVariable) {
    super();
  }

  public _config(): ApiKeySourceConfig {
    const name = this.variable.friendlyUniqueId;
    const problems: string[] = [];
    if (this.variable.sensitive !== true) {
      problems.push(
        `key source variable "${name}" is not sensitive (sensitive: ${String(this.variable.sensitive)}), ` +
          'so Terraform would print the key in plans and logs; declare it with sensitive: true',
      );
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      // Also keeps the checker's command line a plain word.
      problems.push(
        `key source variable "${name}" cannot be set as TF_VAR_${name} from a shell; ` +
          'rename it with letters, digits and "_" only',
      );
    }
    if (this.variable.default !== undefined) {
      problems.push(
        `key source variable "${name}" has a default value, which would put a plaintext key into the stack; ` +
          `remove the default and set TF_VAR_${name} when deploying`,
      );
    }
    return {
      expression: this.variable.stringValue,
      inheritedEnvironmentVariable: `TF_VAR_${name}`,
      description: `Terraform variable "${name}" (set TF_VAR_${name})`,
      problems,
    };
  }
}

class TokenSource extends ApiKeySource {
  constructor(private readonly token: string) {
    super();
  }

  public _config(): ApiKeySourceConfig {
    const problems: string[] = [];
    if (!Token.isUnresolved(this.token)) {
      // Never echo the value: it may be a real key.
      problems.push(
        'key source is a literal string (value not shown): plaintext keys are refused; ' +
          'use ApiKeySource.fromVariable with a sensitive variable, or fromToken with a reference to another resource',
      );
    } else if (Tokenization.reverseString(this.token).literals.length > 0) {
      problems.push(
        'key source mixes literal text with a token (value not shown); pass the token alone, e.g. secret.value',
      );
    }
    return {
      expression: this.token,
      description: 'a value from another resource (ApiKeySource.fromToken)',
      problems,
    };
  }
}
