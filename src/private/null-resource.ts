/**
 * `null_resource` through cdktf's core API: the JSON of @cdktf/provider-null without depending on
 * a provider package, so the source builds for cdktf and cdktn alike.
 */
import { TerraformMetaArguments, TerraformResource, hashMapper, hashMapperHcl, stringToHclTerraform, stringToTerraform } from 'cdktf';
import { Construct } from 'constructs';
import { PROVIDERS } from './providers';

export class NullResource extends TerraformResource {
  public readonly triggers?: Record<string, string>;

  constructor(scope: Construct, id: string, config: TerraformMetaArguments & { readonly triggers?: Record<string, string> }) {
    super(scope, id, { ...config, terraformResourceType: 'null_resource', terraformGeneratorMetadata: PROVIDERS.null.generator });
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
