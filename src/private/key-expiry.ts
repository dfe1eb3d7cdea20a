/** A key's expiry output: a JWT's `exp` as Terraform decodes it at deploy, or "". */
import { Fn, Op, TerraformOutput, TerraformResource, Token } from 'cdktf';
import { Construct } from 'constructs';
import { Gate } from './gate';
import { StackSupport } from './stack-support';

export class KeyExpiry {
  private readonly expiry: string;
  private readonly output: TerraformOutput;
  private gate?: Gate;

  constructor(private readonly key: Construct, outputName: string, keyExpression: string, shownName: string) {
    this.expiry = expiryExpression(keyExpression);
    this.output = StackSupport.of(key).declared(new TerraformOutput(key, 'ExpiresAt', {
      value: this.expiry,
      description: `When Qdrant API key "${shownName}" expires (ISO 8601, from the key's JWT exp claim); empty when the key carries no expiry (not secret)`,
    }), outputName);
  }

  /**
   * Makes the output wait for the key's check (and, through ClusterAccess, its targets): a key
   * that failed must not show its date while apps still hold the previous key. The output reads
   * the date from a gate keyed by the check's id, so a failed check or a refresh keeps it as it was.
   */
  public gateOn(check: TerraformResource): TerraformResource {
    if (!this.gate) {
      this.gate = new Gate(this.key, 'ExpiryChecked', { input: { check: check.getStringAttribute('id'), expires_at: this.expiry }, dependsOn: [check] });
      this.output.value = Token.asString(this.gate.output.lookup('expires_at'));
    }
    return this.gate;
  }
}

/** A JWT's `exp` as ISO 8601, else "": only the date leaves the sensitive value, never the token. */
function expiryExpression(key: string): string {
  // slice, not element: element would wrap around and take a key without dots as the payload.
  const payload = Fn.replace(Fn.replace(Fn.join('', Fn.slice(Fn.split('.', key), 1, 2)), '-', '+'), '_', '/');
  const padding = Fn.substr('===', 0, Op.mod(Op.sub(4, Op.mod(Fn.lengthOf(payload), 4)), 4));
  const exp = Fn.lookup(Fn.jsondecode(Fn.base64decode(Fn.format('%s%s', [payload, padding]))), 'exp');
  // A JSON number of whole seconds only: a string or a fraction is not an expiry Qdrant accepts.
  const seconds = Fn.regex('^[0-9]+$', Fn.jsonencode(exp));
  const date = Fn.formatdate("YYYY-MM-DD'T'hh:mm:ssZ", Fn.timeadd('1970-01-01T00:00:00Z', Fn.format('%ss', [seconds])));
  // sensitive() first: Terraform before 1.7 fails on nonsensitive() of "" (hashicorp/terraform#33856).
  return Token.asString(Fn.nonsensitive(Fn.sensitive(Fn.try([date, '']))));
}
