/**
 * `SecretTarget.terraformOutputs()`: one sensitive output per entry.
 *
 * Terraform writes outputs even when a resource they depend on failed, so each output is tied to a
 * `terraform_data` gate that waits for the health checks: the gate holds a hash of the values,
 * which a change (a rotated key) makes unknown until the gate is applied, and each output reads
 * `gate.output["values_sha256"] == <the hash of the values> ? value : ""` (gate.ts, with a
 * precondition on the same comparison). A failed check leaves the gate unapplied, the outputs unknown,
 * and so Terraform keeps them as they were. The values themselves stay out of the gate, because
 * Terraform does not keep the sensitive mark on a terraform_data's output (a destroy plan would
 * print them). Not exported.
 */
import { Fn, TerraformOutput } from 'cdktf';
import { Construct } from 'constructs';
import { errors } from './errors';
import { DEPLOY_COMMAND } from './framework';
import { Gate, gateHolds, whenGateHolds } from './gate';
import { StackSupport } from './stack-support';
import { SecretEntryKind } from '../secret-target';
import type { ISecretTarget, SecretTargetBindOptions, SecretTargetConfig } from '../secret-target';

const KIND_TEXT: Record<SecretEntryKind, string> = {
  [SecretEntryKind.REST_URL]: 'REST endpoint',
  [SecretEntryKind.GRPC_URL]: 'gRPC endpoint',
  [SecretEntryKind.API_KEY]: 'API key',
};

/** The outputs this target made (held back by its gate): a user's target may bind one inside its own. */
const GATED = new WeakSet<TerraformOutput>();

/** Whether `output` was made by an outputs target (its value shows only once the checks passed). */
export function isGatedOutput(output: TerraformOutput): boolean {
  return GATED.has(output);
}

export class OutputsTarget implements ISecretTarget {
  public readonly description = 'Terraform outputs';

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    const support = StackSupport.of(scope);
    // One namespace with the library's own outputs (cluster endpoints, key expiry) and every other binding.
    const problems = [...new Set(options.entries
      .map((e) => ({ e, other: support.claimOutput(e.name, `key "${e.keyName}" of ${scope.node.path}`) }))
      .filter((x) => x.other !== undefined)
      .map(({ e, other }) => ({ e, other: other!, sameAccess: other!.includes(` of ${options.owner}/`) }))
      // The same key (names are unique in one access) in two outputs targets: one problem, not one per entry.
      .map(({ e, other, sameAccess }) => sameAccess && other.startsWith(`key "${e.keyName}" of `) ? errors.targetTwice(e.keyName, this.description)
        : errors.target(this.description, errors.entryClash(e.name, e.keyName, 'the outputs', other, sameAccess))))];
    if (problems.length > 0) {
      scope.node.addValidation({ validate: () => problems });
      return {};
    }
    const valuesSha256 = Fn.sha256(Fn.jsonencode(Object.fromEntries(options.entries.map((e) => [e.name, e.value]))));
    const gate = new Gate(scope, 'Verified', { input: { values_sha256: valuesSha256 }, dependsOn: options.dependsOn });
    // A refresh (apply -refresh-only) applies no resource, so the gate keeps the checked values' hash
    // while the outputs would take the variables' values of now: such an output is "" (Terraform
    // writes outputs despite a failed precondition), and the precondition says why. (Through an
    // override: cdktf 0.21 keeps an output's `precondition` but does not write it.)
    const checked = [{ condition: gateHolds(gate, 'values_sha256', valuesSha256), error_message: errors.outputsNotChecked(DEPLOY_COMMAND) }];
    options.entries.forEach((entry, i) => {
      // Not the name alone as the id: a name may be "Verified", "" or hold "/" (invalid names are
      // reported by validation, which a constructs exception here would cut short).
      const id = scope.node.tryFindChild(`entry:${entry.name}`) ? `entry:${i}:${entry.name}` : `entry:${entry.name}`;
      const output = support.declared(new TerraformOutput(scope, id, {
        value: whenGateHolds(gate, 'values_sha256', valuesSha256, entry.value),
        sensitive: true,
        description: `${KIND_TEXT[entry.kind]} of Qdrant cluster "${entry.clusterName}" (key "${entry.keyName}"), once the key's health check passed`,
      }), entry.name);
      output.addOverride('precondition', checked);
      GATED.add(output);
    });
    return { dependables: [gate] };
  }
}
