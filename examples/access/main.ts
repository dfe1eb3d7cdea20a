// examples/access: two apps on one cluster, each with a key limited to what it needs. `ingest`
// writes the `orders` collection; `search` only reads `products`. The deploy proves each key has
// exactly that access (probes that change nothing) before the app's .env is written: a key with
// less access fails the deploy, and so does one with more (a manage key where a read key belongs).
// In your app, import from 'cdktf-qdrant-cluster-access' instead of '../../src'.
import { App, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { ClusterAccess, KeyAccess, SecretTarget } from '../../src';

export interface AccessStackProps {
  /** Cluster address. The tests point it at a local Qdrant. */
  readonly url: string;
  /** The cluster's gRPC port, when not 6334 (a local Qdrant listens elsewhere). */
  readonly grpcPort?: number;
  /** Extra CA to trust (a local Qdrant has its own CA). */
  readonly caFile?: string;
  /** The apps' `.env` file, relative to where synth runs. Default: `.env`. */
  readonly envFile?: string;
}

export class AccessStack extends TerraformStack {
  public readonly access: ClusterAccess;

  constructor(scope: Construct, id: string, props: AccessStackProps) {
    super(scope, id);
    // One file for both apps: the prefixes keep their entries apart
    // (INGEST_QDRANT_URL, INGEST_QDRANT_GRPC_URL, INGEST_QDRANT_API_KEY, and SEARCH_...).
    const appEnv = SecretTarget.dotenv({ path: props.envFile ?? '.env' });

    this.access = new ClusterAccess(this, 'Qdrant', {
      clusters: [{ name: 'prod', url: props.url, grpcPort: props.grpcPort }],
      apiKeys: [
        {
          // Deploy with TF_VAR_qdrant_api_key_ingest set: a key with read-write access to `orders` only.
          name: 'ingest',
          clusters: ['prod'],
          access: KeyAccess.collections({ readWrite: ['orders'] }),
          secretTargets: [appEnv],
          secretNaming: { prefix: 'INGEST_' },
        },
        {
          // Deploy with TF_VAR_qdrant_api_key_search set: a key with read access to `products` only.
          name: 'search',
          clusters: ['prod'],
          access: KeyAccess.collections({ read: ['products'] }),
          secretTargets: [appEnv],
          secretNaming: { prefix: 'SEARCH_' },
        },
      ],
      // gRPC is checked too (the default), on grpcPort.
      healthCheck: { caFile: props.caFile },
    });
  }
}

if (require.main === module) {
  const app = new App();
  new AccessStack(app, 'access', {
    url: process.env.QDRANT_DEMO_URL ?? 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io',
    caFile: process.env.QDRANT_DEMO_CA_FILE,
  });
  app.synth();
}
