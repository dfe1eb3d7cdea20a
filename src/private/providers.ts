/**
 * The providers the library adds to a stack (hashicorp/null, hashicorp/http), each at most once
 * and never beside a user's own provider of the same type. Not exported.
 */
import { TerraformProvider, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';

/** Whether a construct is a provider of this type (from any package). */
function isProviderOf(type: string): (c: unknown) => boolean {
  return (c) => TerraformProvider.isTerraformProvider(c) && (c as TerraformProvider).terraformResourceType === type;
}

/** Adds our provider `id` (made by `create`) to the stack unless it has one of `type` already (the user's own, from any package). */
export function addProvider(stack: TerraformStack, id: string, type: string, create: (stack: Construct, id: string) => TerraformProvider): void {
  if (!stack.node.tryFindChild(id) && !stack.node.children.some(isProviderOf(type))) create(stack, id);
}

/**
 * At synth: drops our provider `id` when the stack holds another one of its type (a user's, added
 * after our constructs), so that the stack never has two provider blocks for it.
 */
export function dedupeProvider(stack: TerraformStack, id: string, type: string): void {
  const ours = stack.node.tryFindChild(id);
  if (ours && stack.node.findAll().some((c) => c !== ours && isProviderOf(type)(c))) stack.node.tryRemoveChild(id);
}
