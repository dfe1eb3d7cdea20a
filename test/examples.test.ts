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
    // Six endpoint outputs (REST and gRPC per cluster), none sensitive, none derived from a key;
    // and ingest's three secret-target outputs, all sensitive.
    const outputs = Object.entries<any>(json.output);
    const secret = outputs.filter(([name]) => name.startsWith('INGEST_'));
    expect(secret.map(([name]) => name).sort()).toEqual(['INGEST_QDRANT_API_KEY', 'INGEST_QDRANT_GRPC_URL', 'INGEST_QDRANT_URL']);
    for (const [, o] of secret) expect(o.sensitive).toBe(true);
    expect(json.output.INGEST_QDRANT_API_KEY.value).toBe('${var.ingest_key}');
    const endpoints = outputs.filter(([name]) => !name.startsWith('INGEST_'));
    expect(endpoints).toHaveLength(6);
    for (const [, o] of endpoints) {
      expect(o.sensitive).toBeUndefined();
      expect(JSON.stringify(o.value)).not.toContain('var.');
    }
    // Four health checks (search-api on three clusters, ingest on one), each after the .env writer;
    // one writer for the .env that both keys share, and its registration.
    const resources = Object.entries<any>(json.resource.null_resource);
    const checks = resources.filter(([id]) => id.includes('HealthChecks'));
    expect(checks).toHaveLength(4);
    expect(resources.map(([id]) => id).filter((id) => !id.includes('HealthChecks')).map((id) => id.replace(/_[0-9A-F]{8}$/, '')).sort())
      .toEqual(['Qdrant_SecretTargets_env-file-env_Registration', 'Qdrant_SecretTargets_env-file-env_Write']);
    const writer = resources.find(([id]) => id.includes('_Write_'))![0];
    for (const [, res] of checks) {
      // Keys appear only as references (var.*), hashed in triggers; never in a command.
      expect(res.provisioner[0]['local-exec'].command).not.toMatch(/var\./);
      expect(res.triggers.key_sha256).toMatch(/^\$\{sha256\(var\.(qdrant_api_key_search_api|ingest_key)\)\}$/);
      expect(res.depends_on).toEqual([`null_resource.${writer}`]);
    }
  });
});
