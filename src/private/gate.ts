/**
 * A `terraform_data` gate: Terraform writes outputs even when a dependency failed, so a value is
 * shown only while the (applied) gate holds its hash. Through cdktf's core API: `DataResource`
 * runs `terraform version` per gate at synth (~40 ms each: 5× slower synth of 1,000 grants).
 */
import { AnyMap, Fn, IResolvable, Op, TerraformMetaArguments, TerraformResource, Token, anyToTerraform, conditional, hashMapper } from 'cdktf';
import { Construct } from 'constructs';

/** Terraform's built-in provider: no provider to declare. */
export class Gate extends TerraformResource {
  /** The input, as of the last apply. */
  public readonly output: AnyMap;
  private readonly input: Record<string, string>;

  constructor(scope: Construct, id: string, config: TerraformMetaArguments & { readonly input: Record<string, string> }) {
    super(scope, id, { ...config, terraformResourceType: 'terraform_data', terraformGeneratorMetadata: { providerName: 'terraform' } });
    this.input = config.input;
    this.output = new AnyMap(this, 'output');
  }

  protected synthesizeAttributes(): { [name: string]: any } {
    return { input: hashMapper(anyToTerraform)(this.input) };
  }
}

/** Whether the gate, as last applied, holds `expected` (a hash): nonsensitive, a comparison of hashes. */
export function gateHolds(gate: Gate, attribute: string, expected: string): IResolvable {
  // sensitive() first: Terraform before 1.7 fails on a nonsensitive() of a value that is not (hashicorp/terraform#33856).
  return Fn.nonsensitive(Fn.sensitive(Op.eq(gate.output.lookup(attribute), expected)));
}

/** `value` when {@link gateHolds}, else "". */
export function whenGateHolds(gate: Gate, attribute: string, expected: string, value: string): string {
  return Token.asString(conditional(gateHolds(gate, attribute, expected), value, ''));
}
