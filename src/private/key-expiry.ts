/**
 * A key's expiry output, `qdrant_api_key_<name>_expires_at`, under the key: when the key is a JWT,
 * the date of its `exp` claim, decoded by Terraform at deploy; "" for a key without one. Not
 * exported.
 */
import { Fn, Op, TerraformOutput, TerraformResource, Token } from 'cdktf';
import { Construct } from 'constructs';
import { Gate } from './gate';
import { StackSupport } from './stack-support';

export class KeyExpiry {
  /** The expiry as Terraform decodes it from the key. */
  private readonly expiry: string;
  private readonly output: TerraformOutput;
  /** Applied only after the key's check passed: the output reads the expiry from it (see gateOn). */
  private gate?: Gate;

  /** `keyExpression`: the key (sensitive); `shownName`: the key's name as the output's description shows it. */
  constructor(private readonly key: Construct, outputName: string, keyExpression: string, shownName: string) {
    this.expiry = expiryExpression(keyExpression);
    this.output = StackSupport.of(key).declared(new TerraformOutput(key, 'ExpiresAt', {
      value: this.expiry,
      description: `When Qdrant API key "${shownName}" expires (ISO 8601, from the key's JWT exp claim); empty when the key carries no expiry (not secret)`,
    }), outputName);
  }

  /**
   * Makes the output wait for the key's check: a key that failed it (a rotation to a wrong
   * key) must not show its date while the apps still hold the previous key. The gate stores the
   * date with the check's id, which a new key makes unknown until the check has passed, and the
   * output reads the date from the gate: a failed check leaves the gate unapplied, so Terraform
   * keeps the output as it was, and a refresh (`apply -refresh-only`, which applies nothing) cannot
   * show another key's date either. The ClusterAccess also makes the gate wait for the key's
   * secret targets (a write that fails, another key's check failing on a shared file, say, leaves
   * the apps with the previous key too). Returns the gate.
   */
  public gateOn(check: TerraformResource): TerraformResource {
    if (!this.gate) {
      this.gate = new Gate(this.key, 'ExpiryChecked', { input: { check: check.getStringAttribute('id'), expires_at: this.expiry }, dependsOn: [check] });
      this.output.value = Token.asString(this.gate.output.lookup('expires_at'));
    }
    return this.gate;
  }
}

/**
 * The expiry of a key that is a JWT, decoded by Terraform: the payload (base64url, unpadded) of a
 * `header.payload.signature` token, its `exp` as an ISO 8601 date. Anything else gives "". Only
 * the date leaves the sensitive value (nonsensitive), never a part of the token.
 */
function expiryExpression(key: string): string {
  // slice, not element: element would wrap around and take a key without dots as the payload.
  const payload = Fn.replace(Fn.replace(Fn.join('', Fn.slice(Fn.split('.', key), 1, 2)), '-', '+'), '_', '/');
  const padding = Fn.substr('===', 0, Op.mod(Op.sub(4, Op.mod(Fn.lengthOf(payload), 4)), 4));
  const exp = Fn.lookup(Fn.jsondecode(Fn.base64decode(Fn.format('%s%s', [payload, padding]))), 'exp');
  // A JSON number of whole seconds only: a string or a fraction is not an expiry Qdrant accepts.
  const seconds = Fn.regex('^[0-9]+$', Fn.jsonencode(exp));
  const date = Fn.formatdate("YYYY-MM-DD'T'hh:mm:ssZ", Fn.timeadd('1970-01-01T00:00:00Z', Fn.format('%ss', [seconds])));
  // sensitive() first: the fallback "" is not sensitive, and Terraform before 1.7 fails on a
  // nonsensitive() of a value that is not (hashicorp/terraform#33856).
  return Token.asString(Fn.nonsensitive(Fn.sensitive(Fn.try([date, '']))));
}
