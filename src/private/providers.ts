/** The providers the library adds to a stack, each at most once and never beside a user's own. */
import { TerraformProvider, TerraformStack } from 'cdktf';

/**
 * Ranges a user's own constraint can meet too. null: the same schema from 3.2 on (the e2e tests
 * deploy 3.2.4 and 3.3.1); http: the attributes exist since 3.4 (the tests run 3.6.0).
 */
export const PROVIDERS = {
  null: { id: 'QdrantClusterAccessNullProvider', source: 'null', generator: { providerName: 'null', providerVersionConstraint: '~> 3.2' } },
  http: { id: 'QdrantClusterAccessHttpProvider', source: 'hashicorp/http', generator: { providerName: 'http', providerVersionConstraint: '~> 3.6' } },
} as const;

/** Whether a construct is a provider of this type (from any package). */
function isProviderOf(type: string): (c: unknown) => boolean {
  return (c) => TerraformProvider.isTerraformProvider(c) && (c as TerraformProvider).terraformResourceType === type;
}

/** A provider block without configuration. */
class BareProvider extends TerraformProvider {
  protected synthesizeAttributes(): { [name: string]: any } {
    return {};
  }
}

/** Adds our provider unless the stack has one of its type already (the user's own, from any package). */
export function addProvider(stack: TerraformStack, type: keyof typeof PROVIDERS): void {
  const { id, source, generator } = PROVIDERS[type];
  if (stack.node.tryFindChild(id) || stack.node.children.some(isProviderOf(type))) return;
  new BareProvider(stack, id, { terraformResourceType: type, terraformGeneratorMetadata: generator, terraformProviderSource: source });
}

/** At synth: drops our provider when a user's of its type was added after our constructs. */
export function dedupeProvider(stack: TerraformStack, type: keyof typeof PROVIDERS): void {
  const ours = stack.node.tryFindChild(PROVIDERS[type].id);
  if (ours && stack.node.findAll().some((c) => c !== ours && isProviderOf(type)(c))) stack.node.tryRemoveChild(PROVIDERS[type].id);
}
