// examples/custom-targets: secret targets written in your own project. `search-api` goes into a
// Kubernetes Secret, `ingest` into Vault, and `reports`, an ephemeral key (never in a plan or the
// state), into the write-only data of another Kubernetes Secret; the entries are written only once
// the health checks passed.
// In your app, import from 'cdktf-qdrant-cluster-access' instead of '../../src'.
import * as kubernetes from '@cdktf/provider-kubernetes';
import * as vault from '@cdktf/provider-vault';
import { App, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { KubernetesSecretTarget } from './kubernetes-secret-target';
import { VaultKvTarget } from './vault-kv-target';
import { ClusterAccess } from '../../src';

export interface CustomTargetsStackProps {
  /** Addresses by cluster name; the tests may point them elsewhere. */
  readonly urls?: Record<string, string>;
}

export class CustomTargetsStack extends TerraformStack {
  public readonly access: ClusterAccess;

  constructor(scope: Construct, id: string, props: CustomTargetsStackProps = {}) {
    super(scope, id);
    const urls = props.urls ?? {};

    // The targets create resources, never providers: the stack declares them.
    new kubernetes.provider.KubernetesProvider(this, 'kubernetes', { configPath: '~/.kube/config' });
    // Address and token from VAULT_ADDR and VAULT_TOKEN.
    new vault.provider.VaultProvider(this, 'vault', {});

    this.access = new ClusterAccess(this, 'Qdrant', {
      clusters: [
        { name: 'prod-eu', url: urls['prod-eu'] ?? 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io' },
        { name: 'prod-us', url: urls['prod-us'] ?? 'https://def-456.us-east-1-0.aws.cloud.qdrant.io' },
      ],
      // No source: the keys come from the sensitive variables qdrant_api_key_search_api,
      // qdrant_api_key_ingest and qdrant_api_key_reports, so deploy with their TF_VAR_... set.
      apiKeys: [
        {
          name: 'search-api',
          clusters: ['prod-eu', 'prod-us'],
          // Two clusters: QDRANT_PROD_EU_URL, QDRANT_PROD_EU_GRPC_URL, QDRANT_PROD_EU_API_KEY, QDRANT_PROD_US_...
          secretTargets: [new KubernetesSecretTarget({ name: 'search-api-qdrant', namespace: 'search' })],
        },
        {
          name: 'ingest',
          clusters: ['prod-eu'],
          // One cluster: QDRANT_URL, QDRANT_GRPC_URL, QDRANT_API_KEY.
          secretTargets: [new VaultKvTarget({ mount: 'secret', name: 'ingest/qdrant' })],
        },
        {
          // Ephemeral: TF_VAR_qdrant_api_key_reports is kept out of plans and the state. Give
          // keyVersion the next number with each new key: the check and the Secret's data_wo are
          // written again only then.
          name: 'reports',
          clusters: ['prod-us'],
          ephemeral: true,
          keyVersion: 1,
          secretTargets: [new KubernetesSecretTarget({ name: 'reports-qdrant', namespace: 'reports' })],
        },
      ],
    });
  }
}

if (require.main === module) {
  const app = new App();
  new CustomTargetsStack(app, 'custom-targets');
  app.synth();
}
