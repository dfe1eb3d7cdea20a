/**
 * The Terraform engine's `data "http"`, its provider and `check` blocks, through cdktf's core API
 * as null-resource.ts. JSON only: cdktf's HCL output has no place for a `check` block.
 */
import { TerraformDataSource, TerraformElement } from 'cdktf';
import { Construct } from 'constructs';
import { PROVIDERS } from './providers';
import type { Rule } from './terraform-verdicts';

const NO_HCL = 'the Terraform check engine (CheckEngine.TERRAFORM) writes JSON only: turn off cdktf\'s HCL output (hcl in cdktf.json), or use CheckEngine.NODE';

/** A `data "http"`: its attributes as the provider names them (retry, ca_cert_pem: since 3.4), and its count. */
export class HttpDataSource extends TerraformDataSource {
  constructor(scope: Construct, id: string, private readonly attributes: Record<string, unknown>, count?: number) {
    super(scope, id, { count, terraformResourceType: 'http', terraformGeneratorMetadata: PROVIDERS.http.generator });
  }

  /** Its address, e.g. `data.http.x` (`data.http.x[0]` for the instance of a counted one). */
  public get address(): string {
    return `data.http.${this.friendlyUniqueId}${this.count === undefined ? '' : '[0]'}`;
  }

  protected synthesizeAttributes(): { [name: string]: any } {
    return this.attributes;
  }

  protected synthesizeHclAttributes(): { [name: string]: any } {
    throw new Error(NO_HCL);
  }
}

/** A `check` block: assertions that only warn (Terraform prints each failed one, and goes on). */
export class CheckBlock extends TerraformElement {
  constructor(scope: Construct, id: string, private readonly assertions: readonly Rule[]) {
    super(scope, id, 'check');
  }

  public toTerraform(): any {
    return { check: { [this.friendlyUniqueId]: { assert: this.assertions.map((a) => ({ condition: a.condition, error_message: a.message })) } } };
  }

  public toHclTerraform(): any {
    throw new Error(NO_HCL);
  }
}
