/** The providers the library adds to a stack, each at most once and never beside a user's own. */
import { TerraformProvider, TerraformStack } from 'cdktf';

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

/** Adds our provider `id` unless the stack has one of its type already (the user's own, from any package). */
export function addProvider(stack: TerraformStack, id: string, source: string,
  generator: { providerName: string; providerVersionConstraint: string }): void {
  const type = generator.providerName;
  if (stack.node.tryFindChild(id) || stack.node.children.some(isProviderOf(type))) return;
  new BareProvider(stack, id, { terraformResourceType: type, terraformGeneratorMetadata: generator, terraformProviderSource: source });
}

/** At synth: drops our provider `id` when a user's of its type was added after our constructs. */
export function dedupeProvider(stack: TerraformStack, id: string, type: string): void {
  const ours = stack.node.tryFindChild(id);
  if (ours && stack.node.findAll().some((c) => c !== ours && isProviderOf(type)(c))) stack.node.tryRemoveChild(id);
}
