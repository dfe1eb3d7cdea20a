// A secret target written in your own project: the entries go into one Kubernetes Secret.
// In your app, import from 'cdktf-qdrant-cluster-access' instead of '../../src'.
import { secret } from '@cdktf/provider-kubernetes';
import { Construct } from 'constructs';
import { ISecretTarget, SecretTargetBindOptions, SecretTargetConfig } from '../../src';

export interface KubernetesSecretTargetProps {
  /** Name of the Secret. */
  readonly name: string;
  /** Namespace of the Secret. @default 'default' */
  readonly namespace?: string;
}

/**
 * Writes the Qdrant URLs and keys into one Kubernetes Secret, one data key per entry
 * (`QDRANT_URL`, ...), for `envFrom: [{ secretRef: { name } }]`. The provider base64-encodes the
 * values and keeps them out of plans. Needs a kubernetes provider in the stack.
 *
 * An ephemeral key (`ephemeral: true`) cannot go into `data`, which the state keeps: its Secret
 * gets the entries in the write-only `data_wo` instead (Terraform 1.11 or later, OpenTofu 1.11 or
 * later), which the provider sends only when `data_wo_revision` changes. The revision is the sum
 * of the keys' `keyVersion`s, so bumping any of them writes the Secret again.
 */
export class KubernetesSecretTarget implements ISecretTarget {
  public readonly description: string;

  constructor(private readonly props: KubernetesSecretTargetProps) {
    this.description = `Kubernetes Secret "${props.namespace ?? 'default'}/${props.name}"`;
  }

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    const data = Object.fromEntries(options.entries.map((e) => [e.name, e.value]));
    const ephemeral = options.entries.filter((e) => e.ephemeral);
    const unversioned = ephemeral.filter((e) => e.keyVersion === undefined).map((e) => e.keyName);
    if (unversioned.length > 0) {
      scope.node.addValidation({
        validate: () => [`${this.description}: key "${unversioned[0]}" is ephemeral without a keyVersion, and data_wo is written only when ` +
          'its revision changes; give the key a keyVersion (and the next number with each new key)'],
      });
    }
    const k8sSecret = new secret.Secret(scope, 'Secret', {
      metadata: { name: this.props.name, namespace: this.props.namespace ?? 'default' },
      ...(ephemeral.length === 0 ? { data } : { dataWo: data, dataWoRevision: ephemeral.reduce((sum, e) => sum + (e.keyVersion ?? 0), 0) }),
      type: 'Opaque',
    });
    return { dependables: [k8sSecret] };
  }
}
