/**
 * The Terraform engine's `data "http"`, its provider and `check` blocks, through cdktf's core API
 * as null-resource.ts. JSON only: cdktf's HCL output has no place for a `check` block.
 */
import { TerraformDataSource, TerraformElement, TerraformMetaArguments } from 'cdktf';
import { Construct } from 'constructs';
import { PROVIDERS } from './providers';

const NO_HCL = 'the Terraform check engine (CheckEngine.TERRAFORM) writes JSON only: turn off cdktf\'s HCL output (hcl in cdktf.json), or use CheckEngine.NODE';

export interface HttpDataSourceConfig extends TerraformMetaArguments {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly requestBody?: string;
  /** A map, or an expression (`${sensitive({...})}`) that gives one. */
  readonly requestHeaders: Record<string, string> | string;
  /** Replaces the trusted roots. */
  readonly caCertPem?: string;
  readonly requestTimeoutMs: number;
  readonly retry: { readonly attempts: number; readonly minDelayMs: number; readonly maxDelayMs: number };
}

export class HttpDataSource extends TerraformDataSource {
  private readonly http: HttpDataSourceConfig;

  constructor(scope: Construct, id: string, config: HttpDataSourceConfig) {
    super(scope, id, { ...config, terraformResourceType: 'http', terraformGeneratorMetadata: PROVIDERS.http.generator });
    this.http = config;
  }

  /** Its address, e.g. `data.http.x` (`data.http.x[0]` for the instance of a counted one). */
  public get address(): string {
    return `data.http.${this.friendlyUniqueId}${this.count === undefined ? '' : '[0]'}`;
  }

  protected synthesizeAttributes(): { [name: string]: any } {
    const c = this.http;
    return {
      url: c.url,
      method: c.method,
      request_body: c.requestBody,
      request_headers: c.requestHeaders,
      ca_cert_pem: c.caCertPem,
      request_timeout_ms: c.requestTimeoutMs,
      retry: { attempts: c.retry.attempts, min_delay_ms: c.retry.minDelayMs, max_delay_ms: c.retry.maxDelayMs },
    };
  }

  protected synthesizeHclAttributes(): { [name: string]: any } {
    throw new Error(NO_HCL);
  }
}

/** A `check` block: assertions that only warn (Terraform prints each failed one, and goes on). */
export class CheckBlock extends TerraformElement {
  constructor(scope: Construct, id: string, private readonly assertions: readonly { condition: string; message: string }[]) {
    super(scope, id, 'check');
  }

  public toTerraform(): any {
    return { check: { [this.friendlyUniqueId]: { assert: this.assertions.map((a) => ({ condition: a.condition, error_message: a.message })) } } };
  }

  public toHclTerraform(): any {
    throw new Error(NO_HCL);
  }
}
