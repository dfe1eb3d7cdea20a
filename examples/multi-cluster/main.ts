// examples/multi-cluster: three clusters, two keys; `search-api` covers all three. Both keys are
// written into the app's `.env` at deploy; `ingest` is also published as Terraform outputs.
// In your app, import from 'cdktf-qdrant-cluster-access' instead of '../../src'.
import { App, TerraformStack, TerraformVariable } from 'cdktf';
import { Construct } from 'constructs';
import { ApiKeySource, ClusterAccess, SecretTarget } from '../../src';

export interface MultiClusterStackProps {
  /** Addresses by cluster name; the tests point them at local stand-in clusters. */
  readonly urls?: Record<string, string>;
  /** Extra CA to trust. */
  readonly caFile?: string;
  /** gRPC ports by cluster name, when not 6334 (the tests' stand-in clusters listen elsewhere). */
  readonly grpcPorts?: Record<string, number>;
  /** The app's `.env` file, relative to where synth runs. Default: `.env`. */
  readonly envFile?: string;
}

export class MultiClusterStack extends TerraformStack {
  public readonly access: ClusterAccess;

  constructor(scope: Construct, id: string, props: MultiClusterStackProps = {}) {
    super(scope, id);
    const urls = props.urls ?? {};
    const grpc = props.grpcPorts ?? {};

    // A key that the platform team already declares: it must be sensitive and have no default.
    const ingestKey = new TerraformVariable(this, 'ingest_key', {
      type: 'string',
      sensitive: true,
      description: 'Qdrant API key for the ingest pipeline (prod-eu only)',
    });

    // The app's .env: existing lines stay as they are; ours are merged in at deploy.
    const appEnv = SecretTarget.dotenv({ path: props.envFile ?? '.env' });

    this.access = new ClusterAccess(this, 'Qdrant', {
      clusters: [
        { name: 'prod-eu', url: urls['prod-eu'] ?? 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io', grpcPort: grpc['prod-eu'] },
        // The REST port may be written in the URL; the gRPC port can be given explicitly.
        { name: 'prod-us', url: urls['prod-us'] ?? 'https://def-456.us-east-1-0.aws.cloud.qdrant.io:6333', grpcPort: grpc['prod-us'] ?? 6334 },
        { name: 'staging', url: urls.staging ?? 'https://fed-789.europe-west3-0.gcp.cloud.qdrant.io', grpcPort: grpc.staging },
      ],
      apiKeys: [
        // QDRANT_PROD_EU_URL, QDRANT_PROD_EU_GRPC_URL, QDRANT_PROD_EU_API_KEY, ... for each cluster.
        { name: 'search-api', clusters: ['prod-eu', 'prod-us', 'staging'], secretTargets: [appEnv] },
        {
          name: 'ingest',
          clusters: ['prod-eu'],
          source: ApiKeySource.fromVariable(ingestKey),
          // Same file: the prefix keeps its key apart from search-api's (INGEST_QDRANT_PROD_EU_API_KEY).
          // The outputs receive one cluster: INGEST_QDRANT_URL, INGEST_QDRANT_GRPC_URL, INGEST_QDRANT_API_KEY.
          secretTargets: [appEnv, SecretTarget.terraformOutputs()],
          secretNaming: { prefix: 'INGEST_' },
        },
      ],
      healthCheck: { caFile: props.caFile },
    });
  }
}

if (require.main === module) {
  const app = new App();
  new MultiClusterStack(app, 'multi-cluster');
  app.synth();
}
