/**
 * `null_resource` through cdktf's core API: the JSON of @cdktf/provider-null without depending on
 * a provider package, so the source builds for cdktf and cdktn alike.
 */
import { TerraformMetaArguments, TerraformResource, TerraformStack, hashMapper, hashMapperHcl, stringToHclTerraform, stringToTerraform } from 'cdktf';
import { Construct } from 'constructs';
import { addProvider } from './providers';

// A range that a user's own constraint on hashicorp/null can meet too; the schema is the same from
// 3.2 on (test/e2e/provider-versions.test.ts deploys with 3.2.4 and 3.3.1).
const GENERATOR = { providerName: 'null', providerVersionConstraint: '~> 3.2' };

export interface NullResourceConfig extends TerraformMetaArguments {
  readonly triggers?: Record<string, string>;
}

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

/** A local-exec of a runtime invocation, with more environment; `when: 'destroy'` for a removal. */
export function localExec(run: { command: string; environment: Record<string, string> }, environment: Record<string, string>, when?: 'destroy') {
  return { type: 'local-exec' as const, ...(when ? { when } : {}), command: run.command, environment: { ...run.environment, ...environment } };
}

export function addNullProvider(stack: TerraformStack, id: string): void {
  addProvider(stack, id, 'null', GENERATOR);
}
