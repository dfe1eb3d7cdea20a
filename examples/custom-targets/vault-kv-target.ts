// A secret target written in your own project: the entries go into one Vault KV v2 secret.
// In your app, import from 'cdktf-qdrant-cluster-access' instead of '../../src'.
import { kvSecretV2 } from '@cdktf/provider-vault';
import { Fn } from 'cdktf';
import { Construct } from 'constructs';
import { ISecretTarget, SecretTargetBindOptions, SecretTargetConfig } from '../../src';

export interface VaultKvTargetProps {
  /** Path where the KV v2 engine is mounted, e.g. `secret`. */
  readonly mount: string;
  /** Name of the secret under the mount, e.g. `ingest/qdrant`. */
  readonly name: string;
}

/**
 * Writes the Qdrant URLs and keys into one Vault KV v2 secret, one field per entry
 * (`QDRANT_URL`, ...). Terraform encodes the fields at apply time, so the key stays a reference
 * in the stack. Needs a vault provider in the stack.
 */
export class VaultKvTarget implements ISecretTarget {
  public readonly description: string;

  constructor(private readonly props: VaultKvTargetProps) {
    this.description = `Vault KV secret "${props.mount}/${props.name}"`;
  }

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    const kv = new kvSecretV2.KvSecretV2(scope, 'Secret', {
      mount: this.props.mount,
      name: this.props.name,
      dataJson: Fn.jsonencode(Object.fromEntries(options.entries.map((e) => [e.name, e.value]))),
    });
    return { dependables: [kv] };
  }
}
