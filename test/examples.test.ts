import 'cdktf/lib/testing/adapters/jest';
import { Testing } from 'cdktf';
import { BasicStack } from '../examples/basic/main';
import { MultiClusterStack } from '../examples/multi-cluster/main';

describe('examples', () => {
  test('basic: one cluster, one key, one health check', () => {
    const json = JSON.parse(Testing.synth(new BasicStack(Testing.app(), 'basic', { url: 'https://abc.example.com' }), true));
    expect(Object.keys(json.variable)).toEqual(['qdrant_api_key_search_api']);
    expect(Object.keys(json.resource.null_resource)).toHaveLength(1);
    expect(Object.keys(json.output).sort()).toEqual(['qdrant_prod_eu_grpc_endpoint', 'qdrant_prod_eu_rest_endpoint']);
  });

  test('multi-cluster: exactly one sensitive variable per key, non-secret endpoint outputs, no literal key', () => {
    const text = Testing.synth(new MultiClusterStack(Testing.app(), 'multi-cluster'), true);
    const json = JSON.parse(text);
    // One variable per key: the generated one for search-api, the user's own for ingest.
    expect(json.variable).toEqual({
      qdrant_api_key_search_api: expect.objectContaining({ sensitive: true, type: 'string' }),
      ingest_key: expect.objectContaining({ sensitive: true, type: 'string' }),
    });
    for (const v of Object.values<any>(json.variable)) expect(v.default).toBeUndefined();
    // Six endpoint outputs (REST and gRPC per cluster), none sensitive, none derived from a key.
    expect(Object.keys(json.output)).toHaveLength(6);
    for (const o of Object.values<any>(json.output)) {
      expect(o.sensitive).toBeUndefined();
      expect(JSON.stringify(o.value)).not.toContain('var.');
    }
    // Four grants: search-api on three clusters, ingest on one.
    expect(Object.keys(json.resource.null_resource)).toHaveLength(4);
    // Keys appear only as references (var.*), hashed in triggers; never in a command.
    for (const res of Object.values<any>(json.resource.null_resource)) {
      expect(res.provisioner[0]['local-exec'].command).not.toMatch(/var\./);
      expect(res.triggers.key_sha256).toMatch(/^\$\{sha256\(var\.(qdrant_api_key_search_api|ingest_key)\)\}$/);
    }
  });
});
