/**
 * `null_resource` (hashicorp/null) through cdktf's core API: the same JSON that
 * @cdktf/provider-null writes, without depending on a provider package (so the source builds for
 * cdktf and for its fork cdktn alike). Not exported.
 */
import { TerraformMetaArguments, TerraformProvider, TerraformResource, TerraformStack, hashMapper, hashMapperHcl, stringToHclTerraform, stringToTerraform } from 'cdktf';
import { Construct } from 'constructs';

const GENERATOR = { providerName: 'null', providerVersion: '3.2.4', providerVersionConstraint: '~> 3.0' };

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

/**
 * Adds the null provider to the stack unless it has one (the user's own, from any package). Called
 * at synth, so that a provider the user adds after the constructs is found too.
 */
export function ensureNullProvider(stack: TerraformStack, id: string): void {
  const existing = stack.node.findAll().some(
    (c) => TerraformProvider.isTerraformProvider(c) && (c as TerraformProvider).terraformResourceType === 'null',
  );
  if (!existing) new NullProvider(stack, id);
}
