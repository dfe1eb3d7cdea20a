// examples/basic: one cluster, one key. Run with `npx ts-node main.ts` (or `cdktf synth`).
// In your app, import from 'cdktf-qdrant-cluster-access' instead of '../../src'.
import { App, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { ClusterAccess } from '../../src';

export interface BasicStackProps {
  /** Cluster address. The demo points it at a local stand-in cluster. */
  readonly url: string;
  /** Extra CA to trust (the demo's stand-in cluster has its own CA). */
  readonly caFile?: string;
  /** The cluster's gRPC port, when not 6334 (the demo's stand-in cluster listens elsewhere). */
  readonly grpcPort?: number;
}

export class BasicStack extends TerraformStack {
  constructor(scope: Construct, id: string, props: BasicStackProps) {
    super(scope, id);
    new ClusterAccess(this, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: props.url, grpcPort: props.grpcPort }],
      // No source: the key comes from the sensitive variable qdrant_api_key_search_api,
      // so deploy with TF_VAR_qdrant_api_key_search_api set.
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }],
      healthCheck: { caFile: props.caFile },
    });
  }
}

if (require.main === module) {
  const app = new App();
  new BasicStack(app, 'basic', {
    url: process.env.QDRANT_DEMO_URL ?? 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io',
    caFile: process.env.QDRANT_DEMO_CA_FILE,
  });
  app.synth();
}
