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
 */
export class KubernetesSecretTarget implements ISecretTarget {
  public readonly description: string;

  constructor(private readonly props: KubernetesSecretTargetProps) {
    this.description = `Kubernetes Secret "${props.namespace ?? 'default'}/${props.name}"`;
  }

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    const k8sSecret = new secret.Secret(scope, 'Secret', {
      metadata: { name: this.props.name, namespace: this.props.namespace ?? 'default' },
      data: Object.fromEntries(options.entries.map((e) => [e.name, e.value])),
      type: 'Opaque',
    });
    return { dependables: [k8sSecret] };
  }
}
