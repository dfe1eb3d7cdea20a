import { TerraformOutput, TerraformVariable } from 'cdktf';
import { ClusterAccess } from '../src';
import { newStack, synthJson } from './support/synth';

describe('Cluster', () => {
  test('the REST port defaults to 6333 and the gRPC port to 6334', () => {
    const stack = newStack();
    const access = new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io' }],
    });
    const [cluster] = access.clusters;
    expect(cluster.clusterName).toBe('prod-eu');
    expect(cluster.restPort).toBe(6333);
    expect(cluster.grpcPort).toBe(6334);
    expect(cluster.restEndpoint).toBe('https://abc-123.eu-central-1-0.aws.cloud.qdrant.io:6333');
    expect(cluster.grpcEndpoint).toBe('https://abc-123.eu-central-1-0.aws.cloud.qdrant.io:6334');
  });

  test('the REST port defaults to the port written in the URL, including 443', () => {
    const access = new ClusterAccess(newStack(), 'Qdrant', {
      clusters: [
        { name: 'a', url: 'https://a.example.com:443' },
        { name: 'b', url: 'https://b.example.com:8443/', grpcPort: 9443 },
      ],
    });
    const [a, b] = access.clusters;
    expect(a.restEndpoint).toBe('https://a.example.com:443');
    expect(b.restEndpoint).toBe('https://b.example.com:8443');
    expect(b.grpcEndpoint).toBe('https://b.example.com:9443');
  });

  test('explicit ports win over the URL', () => {
    const access = new ClusterAccess(newStack(), 'Qdrant', {
      clusters: [{ name: 'a', url: 'https://a.example.com:7000', restPort: 7001, grpcPort: 7002 }],
    });
    expect(access.clusters[0].restEndpoint).toBe('https://a.example.com:7001');
    expect(access.clusters[0].grpcEndpoint).toBe('https://a.example.com:7002');
  });

  test('each cluster gets non-secret REST and gRPC endpoint outputs', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: 'https://abc.example.com' }],
    });
    const json = synthJson(stack);
    expect(json.output.qdrant_prod_eu_rest_endpoint).toEqual({
      value: 'https://abc.example.com:6333',
      description: expect.stringContaining('not secret'),
    });
    expect(json.output.qdrant_prod_eu_grpc_endpoint.value).toBe('https://abc.example.com:6334');
    for (const output of Object.values<any>(json.output)) expect(output.sensitive).toBeUndefined();
  });

  test('a token URL is accepted at synth and the default port is appended in Terraform', () => {
    const stack = newStack();
    const url = new TerraformVariable(stack, 'cluster_url', { type: 'string' });
    const access = new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'dynamic', url: url.stringValue }],
    });
    const json = synthJson(stack);
    const rest: string = json.output.qdrant_dynamic_rest_endpoint.value;
    // Keeps a port that is already there, else appends :6333.
    expect(rest).toContain('var.cluster_url');
    expect(rest).toMatch(/regexall\(.*\)\) >= 1\) \?/);
    expect(rest).toContain('6333');
    expect(json.output.qdrant_dynamic_grpc_endpoint.value).toMatch(/format\("%s:%d", regex\(.*var\.cluster_url.*6334\)/);
    expect(access.clusters[0].restPort).toBe(6333);
    expect(TerraformOutput).toBeDefined();
  });
});
