import { Testing } from 'cdktf';
import { BasicStack } from '../examples/basic/main';
import { CustomTargetsStack } from '../examples/custom-targets/main';
import { MultiClusterStack } from '../examples/multi-cluster/main';

const EXAMPLES = {
  'basic': () => new BasicStack(Testing.app(), 'basic', { url: 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io' }),
  'multi-cluster': () => new MultiClusterStack(Testing.app(), 'multi-cluster'),
  'custom-targets': () => new CustomTargetsStack(Testing.app(), 'custom-targets'),
};

describe('examples', () => {
  test('basic: one cluster, one key, one health check', () => {
    const json = JSON.parse(Testing.synth(EXAMPLES.basic(), true));
    expect(Object.keys(json.variable)).toEqual(['qdrant_api_key_search_api']);
    expect(Object.keys(json.resource.null_resource).filter((id) => id.includes('_HealthCheck_'))).toHaveLength(1);
    expect(Object.keys(json.output).sort()).toEqual(['qdrant_api_key_search_api_expires_at', 'qdrant_prod_eu_grpc_endpoint', 'qdrant_prod_eu_rest_endpoint']);
  });

  test('multi-cluster: one sensitive variable per key, non-secret outputs, no literal key', () => {
    const json = JSON.parse(Testing.synth(EXAMPLES['multi-cluster'](), true));
    // One variable per key: the generated one for search-api, the user's own for ingest; both optional
    // (default null), so that a missing key fails fast; neither holds a value.
    expect(json.variable).toEqual({
      qdrant_api_key_search_api: expect.objectContaining({ sensitive: true, type: 'string', default: null }),
      ingest_key: expect.objectContaining({ sensitive: true, type: 'string', default: null }),
    });
    const outputs = Object.entries<any>(json.output);
    const secret = outputs.filter(([name]) => name.startsWith('INGEST_'));
    expect(secret.map(([name]) => name).sort()).toEqual(['INGEST_QDRANT_API_KEY', 'INGEST_QDRANT_GRPC_URL', 'INGEST_QDRANT_URL']);
    for (const [, o] of secret) expect(o.sensitive).toBe(true);
    // The outputs take the key through the gate that waits for the key's check, while it holds the values' hash.
    expect(json.output.INGEST_QDRANT_API_KEY.value).toMatch(
      /^\$\{nonsensitive\(sensitive\(\(terraform_data\.Qdrant_SecretTargets_Terraform-outputs_Verified_[0-9A-F]{8}\.output\["values_sha256"\] == sha256\(jsonencode\(\{.*\}\)\)\)\)\) \? var\.ingest_key : ""\}$/);
    // Six endpoint outputs and two expiry outputs: none sensitive; the expiry is only a date.
    const open = outputs.filter(([name]) => !name.startsWith('INGEST_'));
    expect(open).toHaveLength(8);
    for (const [name, o] of open) {
      expect(o.sensitive).toBeUndefined();
      if (name.endsWith('_expires_at')) {
        // The date as the gate stored it once the key's check passed (a refresh applies no gate).
        expect(o.value).toMatch(/^\$\{terraform_data\.Qdrant_ApiKeys_[\w-]+_ExpiryChecked_[0-9A-F]{8}\.output\["expires_at"\]\}$/);
      } else {
        expect(JSON.stringify(o.value)).not.toContain('var.');
      }
    }
    // Two checks (one per key); the .env writer and its registration wait for both.
    const resources = Object.entries<any>(json.resource.null_resource);
    const checks = resources.filter(([id]) => id.includes('HealthCheck'));
    expect(checks).toHaveLength(2);
    const write = resources.find(([id]) => id.includes('_Write_'))![1];
    expect(write.depends_on.sort()).toEqual(checks.map(([id]) => `null_resource.${id}`).sort());
    for (const [, res] of checks) {
      expect(res.depends_on).toBeUndefined();
      // The variable reaches the check only as a nonsensitive hash (which the checker compares
      // with TF_VAR_...); anything else derived from it would hide the check's output.
      const { QCA_KEY_SHA256: hash, ...environment } = res.provisioner[0]['local-exec'].environment;
      expect(hash).toMatch(/^\$\{nonsensitive\(sha256\(/);
      expect(JSON.stringify({ ...res.provisioner[0]['local-exec'], environment })).not.toMatch(/var\./);
    }
  });
});
