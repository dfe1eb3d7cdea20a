/**
 * `SecretTarget.terraformOutputs()`: one sensitive output per entry. Outputs are written to the
 * state even when a resource they depend on failed, so the values pass through a
 * `terraform_data` gate that waits for the health checks: a failed check leaves the gate, and so
 * the outputs, as they were. Not exported.
 */
import { DataResource, TerraformOutput, Token } from 'cdktf';
import { Construct } from 'constructs';
import { errors } from './errors';
import { StackSupport } from './stack-support';
import { SecretEntryKind } from '../secret-target';
import type { ISecretTarget, SecretTargetBindOptions, SecretTargetConfig } from '../secret-target';

const KIND_TEXT: Record<SecretEntryKind, string> = {
  [SecretEntryKind.REST_URL]: 'REST endpoint',
  [SecretEntryKind.GRPC_URL]: 'gRPC endpoint',
  [SecretEntryKind.API_KEY]: 'API key',
};

export class OutputsTarget implements ISecretTarget {
  public readonly description = 'Terraform outputs';

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    const support = StackSupport.of(scope);
    const problems = options.entries
      .map((e) => ({ e, other: support.claimOutputEntry(e.name, `key "${e.keyName}" of ${options.owner}`) }))
      .filter((x) => x.other !== undefined)
      .map(({ e, other }) => errors.target(this.description, errors.entryClash(e.name, e.keyName, 'the outputs', other!)));
    if (problems.length > 0) {
      scope.node.addValidation({ validate: () => problems });
      return {};
    }
    const gate = new DataResource(scope, 'Verified', {
      input: Object.fromEntries(options.entries.map((e) => [e.name, e.value])),
      dependsOn: options.dependsOn,
    });
    for (const entry of options.entries) {
      new TerraformOutput(scope, entry.name, {
        value: Token.asString(gate.output.lookup(entry.name)),
        sensitive: true,
        description: `${KIND_TEXT[entry.kind]} of Qdrant cluster "${entry.clusterName}" (key "${entry.keyName}"), once the key's health check passed`,
      }).overrideLogicalId(entry.name);
    }
    return { dependables: [gate] };
  }
}
