import * as fs from 'fs';
import * as path from 'path';
import { Testing } from 'cdktf';
import { BasicStack } from '../examples/basic/main';
import { CustomTargetsStack } from '../examples/custom-targets/main';
import { MultiClusterStack } from '../examples/multi-cluster/main';

/** Every address of a synthesized stack: resources, data sources, outputs, variables, providers. */
function addresses(json: any): string[] {
  const out: string[] = [];
  for (const block of ['resource', 'data']) {
    for (const [type, m] of Object.entries<any>(json[block] ?? {})) for (const n of Object.keys(m)) out.push(`${block === 'data' ? 'data.' : ''}${type}.${n}`);
  }
  for (const n of Object.keys(json.output ?? {})) out.push(`output.${n}`);
  for (const n of Object.keys(json.variable ?? {})) out.push(`var.${n}`);
  for (const n of Object.keys(json.locals ?? {})) out.push(`local.${n}`);
  for (const [type, list] of Object.entries<any>(json.provider ?? {})) for (const p of list) out.push(`provider.${type}${p.alias ? `.${p.alias}` : ''}`);
  return out.sort();
}

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

  test.each(Object.keys(EXAMPLES))('%s: every resource address of e8fc1a8 is kept, except the changes the issues make on purpose', (name) => {
    const before: string[] = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'addresses-e8fc1a8.json'), 'utf8'))[name];
    const after = addresses(JSON.parse(Testing.synth(EXAMPLES[name as keyof typeof EXAMPLES](), true)));
    const removed = before.filter((a) => !after.includes(a));
    const added = after.filter((a) => !before.includes(a));
    // #11: one check per key instead of one per (key, cluster) grant.
    const perGrantCheck = /^null_resource\.Qdrant_ApiKeys_[\w-]+_HealthChecks_[\w-]+_[0-9A-F]{8}$/;
    const perKeyCheck = /^null_resource\.Qdrant_ApiKeys_[\w-]+_HealthCheck_[0-9A-F]{8}$/;
    // #14: each key publishes its expiry. #9: the outputs target's values pass a gate that waits for the checks.
    const expiry = /^output\.qdrant_api_key_[\w]+_expires_at$/;
    const gate = /^terraform_data\.Qdrant_SecretTargets_Terraform-outputs_Verified_[0-9A-F]{8}$/;
    // The expiry output waits for the key's check (a key that failed it does not show its date).
    const expiryGate = /^terraform_data\.Qdrant_ApiKeys_[\w-]+_ExpiryChecked_[0-9A-F]{8}$/;
    // The record of the files each access writes to (its replacement cleans up a file that dropped out).
    const files = /^null_resource\.Qdrant_Files_[0-9A-F]{8}$/;
    const expected = [perKeyCheck, expiry, gate, expiryGate, files];
    expect(removed.filter((a) => !perGrantCheck.test(a))).toEqual([]);
    expect(added.filter((a) => !expected.some((r) => r.test(a)))).toEqual([]);
    // #10 itself renames nothing: the writer, the registration, the outputs, the variables and the user's own resources keep their addresses.
    expect(before.filter((a) => !perGrantCheck.test(a)).every((a) => after.includes(a))).toBe(true);
  });
});
