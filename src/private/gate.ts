/**
 * A value that waits for a gate: Terraform writes an output even when a resource it depends on
 * failed, so the value is tied to a `terraform_data` that depends on the checks. The gate's input
 * changes (becomes unknown) with what it guards; a failed check leaves the gate unapplied, the
 * value unknown, and so Terraform keeps the output as it was. Not exported.
 *
 * The gate is written through cdktf's core API, as `NullResource` is: cdktf's `DataResource`
 * adds a validation that runs `terraform version` at every synth, once per gate (about 40 ms each:
 * a gate per key made synth of 1,000 grants five times slower). The JSON is the same.
 */
import { AnyMap, Fn, Op, TerraformMetaArguments, TerraformResource, Token, anyToTerraform, conditional, hashMapper } from 'cdktf';
import { Construct } from 'constructs';

export interface GateConfig extends TerraformMetaArguments {
  /** What the gate stores; its `output` shows it once the gate has been applied. */
  readonly input: Record<string, string>;
}

/** One `terraform_data` (Terraform's built-in provider: no provider to declare). */
export class Gate extends TerraformResource {
  /** The `output` attribute: the input, as of the last apply. */
  public readonly output: AnyMap;
  private readonly input: Record<string, string>;

  constructor(scope: Construct, id: string, config: GateConfig) {
    super(scope, id, { ...config, terraformResourceType: 'terraform_data', terraformGeneratorMetadata: { providerName: 'terraform' } });
    this.input = config.input;
    this.output = new AnyMap(this, 'output');
  }

  protected synthesizeAttributes(): { [name: string]: any } {
    return { input: hashMapper(anyToTerraform)(this.input) };
  }
}

/** `value` once `gate` has been applied (its input's `attribute` is known and not empty), else "". */
export function onceApplied(gate: Gate, attribute: string, value: string): string {
  // `length() >= 1`, because cdktf renders an operand '' or 0 as undefined.
  return Token.asString(conditional(Op.gte(Fn.lengthOf(Token.asString(gate.output.lookup(attribute))), 1), value, ''));
}
