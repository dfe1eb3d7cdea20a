// examples/cdktn: the library on CDK Terrain (cdktn), the maintained fork of CDKTF. One cluster,
// one key, as in examples/basic, imported from 'cdktn' and from the cdktn flavour of the library,
// `cdktn-qdrant-cluster-access` (built from the same source by scripts/build-cdktn.sh).
//
// In your app this is main.ts (`npm install cdktn-qdrant-cluster-access`, then `cdktn deploy`).
// It is main.cts here because the repository's examples are type-checked against cdktf, which has
// no 'cdktn' to resolve: test/cdktn type-checks and deploys it in an app of its own, with cdktn.
import { App, TerraformStack } from 'cdktn';
import { ClusterAccess } from 'cdktn-qdrant-cluster-access';

const app = new App();
const stack = new TerraformStack(app, 'search');
new ClusterAccess(stack, 'Qdrant', {
  // The tests point the cluster at a local stand-in (its own CA, gRPC on another port).
  clusters: [{
    name: 'prod-eu',
    url: process.env.QDRANT_URL ?? 'https://xyz-example.eu-central-1-0.aws.cloud.qdrant.io',
    grpcPort: process.env.QDRANT_GRPC_PORT ? Number(process.env.QDRANT_GRPC_PORT) : undefined,
  }],
  // The key comes from the sensitive variable qdrant_api_key_search_api:
  // deploy with TF_VAR_qdrant_api_key_search_api set.
  apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }],
  healthCheck: { caFile: process.env.QDRANT_CA_FILE },
});
app.synth();
