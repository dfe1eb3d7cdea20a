/**
 * A value that waits for a gate: Terraform writes an output even when a resource it depends on
 * failed, so the value is tied to a `terraform_data` that depends on the checks. The gate's input
 * changes (becomes unknown) with what it guards; a failed check leaves the gate unapplied, the
 * value unknown, and so Terraform keeps the output as it was. A refresh applies no resource but
 * writes outputs: so a value is shown only while the gate holds its hash. Not exported.
 *
 * The gate is written through cdktf's core API, as `NullResource` is: cdktf's `DataResource`
 * adds a validation that runs `terraform version` at every synth, once per gate (about 40 ms each:
 * a gate per key made synth of 1,000 grants five times slower). The JSON is the same.
 */
import { AnyMap, Fn, IResolvable, Op, TerraformMetaArguments, TerraformResource, Token, anyToTerraform, conditional, hashMapper } from 'cdktf';
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

/**
 * Whether the gate, as last applied, stored `expected` in its input's `attribute` (a hash of what
 * it guards): false after a change the gate has not seen, such as a variable changed for a refresh
 * (`apply -refresh-only`, which applies no resource). Not sensitive (a comparison of hashes).
 */
export function gateHolds(gate: Gate, attribute: string, expected: string): IResolvable {
  // sensitive() first: Terraform before 1.7 fails on a nonsensitive() of a value that is not.
  return Fn.nonsensitive(Fn.sensitive(Op.eq(gate.output.lookup(attribute), expected)));
}

/** `value` when {@link gateHolds}, else "" (a change the gate has not seen shows nothing). */
export function whenGateHolds(gate: Gate, attribute: string, expected: string, value: string): string {
  return Token.asString(conditional(gateHolds(gate, attribute, expected), value, ''));
}
