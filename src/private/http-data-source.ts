/**
 * What the Terraform check engine writes that cdktf's core API has no class for, written through
 * that API as null-resource.ts writes `null_resource` (so the source builds for cdktf and cdktn
 * alike): the `http` data source of hashicorp/http, its provider, and a `check` block. JSON output
 * only: cdktf's HCL output (`hcl: true`) has no place for a `check` block, so these refuse it.
 * Not exported.
 */
import { TerraformDataSource, TerraformElement, TerraformMetaArguments, TerraformProvider, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { addProvider } from './providers';

// A range, so that another constraint on hashicorp/http in the user's configuration can be met
// too; 3.6.0 is the release the tests run (the attributes used exist since 3.4).
const GENERATOR = { providerName: 'http', providerVersionConstraint: '~> 3.6' };

const NO_HCL = 'the Terraform check engine (CheckEngine.TERRAFORM) writes JSON only: turn off cdktf\'s HCL output (hcl in cdktf.json), or use CheckEngine.NODE';

export interface HttpDataSourceConfig extends TerraformMetaArguments {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly requestBody?: string;
  /** A map, or an expression (`${sensitive({...})}`) that gives one. */
  readonly requestHeaders: Record<string, string> | string;
  /** PEM: the CAs to trust instead of the system's (hashicorp/http replaces the roots with these). */
  readonly caCertPem?: string;
  readonly requestTimeoutMs: number;
  readonly retry: { readonly attempts: number; readonly minDelayMs: number; readonly maxDelayMs: number };
}

/** One `data "http"`. */
export class HttpDataSource extends TerraformDataSource {
  private readonly http: HttpDataSourceConfig;

  constructor(scope: Construct, id: string, config: HttpDataSourceConfig) {
    super(scope, id, { ...config, terraformResourceType: 'http', terraformGeneratorMetadata: GENERATOR });
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

class HttpProvider extends TerraformProvider {
  constructor(scope: Construct, id: string) {
    super(scope, id, { terraformResourceType: 'http', terraformGeneratorMetadata: GENERATOR, terraformProviderSource: 'hashicorp/http' });
  }

  protected synthesizeAttributes(): { [name: string]: any } {
    return {};
  }
}

/** Adds our http provider to the stack unless it has one already (see providers.ts). */
export function addHttpProvider(stack: TerraformStack, id: string): void {
  addProvider(stack, id, 'http', (s, i) => new HttpProvider(s, i));
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
