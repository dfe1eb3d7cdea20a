/**
 * `null_resource` (hashicorp/null) through cdktf's core API: the same JSON that
 * @cdktf/provider-null writes, without depending on a provider package (so the source builds for
 * cdktf and for its fork cdktn alike). Not exported.
 */
import { TerraformMetaArguments, TerraformProvider, TerraformResource, TerraformStack, hashMapper, hashMapperHcl, stringToHclTerraform, stringToTerraform } from 'cdktf';
import { Construct } from 'constructs';
import { addProvider } from './providers';

// What `required_providers` asks for: a range, so that any other constraint on hashicorp/null in the
// user's configuration (their own provider, a module's pin) can be met too. The resource's schema is
// the same from 3.2 on (test/e2e/provider-versions.test.ts deploys with 3.2.4 and with 3.3.1).
const GENERATOR = { providerName: 'null', providerVersionConstraint: '~> 3.2' };

export interface NullResourceConfig extends TerraformMetaArguments {
  /** Values whose change replaces the resource (and so re-runs its create-time provisioners). */
  readonly triggers?: Record<string, string>;
}

/** One `null_resource`. */
export class NullResource extends TerraformResource {
  public readonly triggers?: Record<string, string>;

  constructor(scope: Construct, id: string, config: NullResourceConfig) {
    super(scope, id, { ...config, terraformResourceType: 'null_resource', terraformGeneratorMetadata: GENERATOR });
    this.triggers = config.triggers;
  }

  protected synthesizeAttributes(): { [name: string]: any } {
    return { triggers: hashMapper(stringToTerraform)(this.triggers) };
  }

  protected synthesizeHclAttributes(): { [name: string]: any } {
    if (this.triggers === undefined) return {};
    return { triggers: { value: hashMapperHcl(stringToHclTerraform)(this.triggers), isBlock: false, type: 'map', storageClassType: 'stringMap' } };
  }
}

class NullProvider extends TerraformProvider {
  constructor(scope: Construct, id: string) {
    super(scope, id, { terraformResourceType: 'null', terraformGeneratorMetadata: GENERATOR, terraformProviderSource: 'null' });
  }

  protected synthesizeAttributes(): { [name: string]: any } {
    return {};
  }
}

/** Adds our null provider to the stack unless it has one already (see providers.ts). */
export function addNullProvider(stack: TerraformStack, id: string): void {
  addProvider(stack, id, 'null', (s, i) => new NullProvider(s, i));
}
