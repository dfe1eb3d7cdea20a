import { provider } from '@cdktf/provider-null';
import { TerraformProvider, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';

const NULL_PROVIDER_ID = 'QdrantClusterAccessNullProvider';

/**
 * Add the null provider to the stack unless it already has one: a library construct must not
 * add a second, conflicting provider block.
 */
export function ensureNullProvider(scope: Construct): void {
  const stack = TerraformStack.of(scope);
  // Providers are children of the stack; look only there, so that many resources stay cheap.
  const existing = stack.node.children.some(
    (c) => TerraformProvider.isTerraformProvider(c) && (c as TerraformProvider).terraformResourceType === 'null',
  );
  if (!existing) new provider.NullProvider(stack, NULL_PROVIDER_ID);
}
