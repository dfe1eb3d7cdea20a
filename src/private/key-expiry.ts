/** A key's expiry output: a JWT's `exp` as Terraform decodes it at deploy, or "". */
import { TerraformOutput, TerraformResource, Token } from 'cdktf';
import { Construct } from 'constructs';
import { Gate } from './gate';
import { StackSupport } from './stack-support';

export class KeyExpiry {
  private readonly expiry: string;
  private readonly output: TerraformOutput;
  private gate?: Gate;

  constructor(private readonly key: Construct, outputName: string, keyExpression: string, shownName: string) {
    // The key first: cdktf would leave a token after the regex's `{1,11}` wrapped in its own ${}.
    this.expiry = `\${[for k in [${keyExpression}] : [for e in [${expHcl(jwtPayloadHcl('k'))}] : e == null ? "" : ${expiresAtHcl('e')}][0]][0]}`;
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

// One decoding for the output and the Terraform engine's locals, as jwt.ts keyInfo reads a key.
const b64 = (p: string) => `base64decode(format("%s%s", replace(replace(${p}, "-", "+"), "_", "/"), substr("===", 0, (4 - length(${p}) % 4) % 4)))`;

/** HCL: the key's JWT payload when the key is one (three parts, a header with `alg`), else null. */
export const jwtPayloadHcl = (key: string) =>
  `try([for p in [split(".", ${key})] : length(p) == 3 && startswith(jsonencode(jsondecode(${b64('p[0]')})["alg"]), "\\"") ? jsondecode(${b64('p[1]')}) : null][0], null)`;

/** HCL: `exp` as Qdrant reads it (whole seconds; beyond 11 digits, year 5138, as none: jwt.ts MAX_EXP), else null; nonsensitive as gate.ts makes it. */
export const expHcl = (payload: string) => `nonsensitive(sensitive(try(tonumber(regex("^[0-9]{1,11}$", jsonencode(${payload}["exp"]))), null)))`;

/** HCL: an `exp` as ISO 8601 (unknown when it is null: format() of null is no error); only the date leaves the sensitive value. */
export const expiresAtHcl = (exp: string) => `try(formatdate("YYYY-MM-DD'T'hh:mm:ss'Z'", timeadd("1970-01-01T00:00:00Z", format("%ds", ${exp}))), "")`;
