import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { provider, resource } from '@cdktf/provider-null';
import { Testing } from 'cdktf';
import { ApiKeyHeader, ClusterAccess, HealthCheckOptions } from '../src';
import { newStack, synthJson } from './support/synth';

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';
const URL_US = 'https://def-456.us-east-1-0.aws.cloud.qdrant.io';

function stackWith(healthCheck?: HealthCheckOptions) {
  const stack = newStack();
  new ClusterAccess(stack, 'Qdrant', {
    clusters: [{ name: 'prod-eu', url: URL_EU }, { name: 'prod-us', url: URL_US }],
    apiKeys: [
      { name: 'search-api', clusters: ['prod-eu', 'prod-us'] },
      { name: 'ingest', clusters: ['prod-eu'] },
    ],
    healthCheck,
  });
  return stack;
}

/** The health check of one grant, found by the label the checker prints. */
function localExec(json: any, key: string, cluster: string) {
  const res = Object.values<any>(json.resource.null_resource)
    .find((r) => r.provisioner[0]['local-exec'].environment.QCA_LABEL === `${key} → ${cluster}`);
  return { res, exec: res.provisioner[0]['local-exec'] };
}

describe('HealthCheck', () => {
  test('one null_resource per (key, cluster) grant, and one null provider', () => {
    const stack = stackWith();
    const synthesized = Testing.synth(stack, true);
    expect(synthesized).toHaveResource(resource.Resource);
    expect(synthesized).toHaveProvider(provider.NullProvider);
    const json = JSON.parse(synthesized);
    expect(Object.keys(json.resource.null_resource)).toHaveLength(3);
    expect(Object.keys(json.provider.null)).toHaveLength(1);
  });

  test('the command runs the bundled checker and holds no key: the key is read from TF_VAR_...', () => {
    const json = synthJson(stackWith());
    const { exec, res } = localExec(json, 'search-api', 'prod-us');
    expect(exec.command).toBe(
      'node "$QCA_CHECKER" check --url "$QCA_URL" --label "$QCA_LABEL" --key-env TF_VAR_qdrant_api_key_search_api ' +
        '--header api-key --timeout 10 --retries 3',
    );
    expect(exec.environment).toEqual({
      QCA_CHECKER: expect.stringMatching(/^assets\/.+\/cli\.js$/),
      QCA_URL: `${URL_US}:6333`,
      QCA_LABEL: 'search-api → prod-us',
    });
    // Nothing derived from the key in the provisioner (it would hide the check's output).
    expect(JSON.stringify(res.provisioner)).not.toContain('var.');
  });

  test('triggers: url, a hash of the key, the checker hash and the options', () => {
    const json = synthJson(stackWith());
    const { res } = localExec(json, 'search-api', 'prod-eu');
    expect(res.triggers).toEqual({
      url: `${URL_EU}:6333`,
      key_sha256: '${sha256(var.qdrant_api_key_search_api)}',
      checker: expect.stringMatching(/^[0-9A-F]{32,}$/i),
      options: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });

  test('options reach the command and change the options trigger', () => {
    const json = synthJson(stackWith({
      header: ApiKeyHeader.BEARER, timeoutSeconds: 5, retries: 0, requireAuth: false, runOnEveryDeploy: true,
    }));
    const { exec, res } = localExec(json, 'ingest', 'prod-eu');
    expect(exec.command).toContain('--header bearer --timeout 5 --retries 0 --allow-open');
    expect(res.triggers.run).toBe('${timestamp()}');
    const plain = localExec(synthJson(stackWith()), 'ingest', 'prod-eu').res;
    expect(res.triggers.options).not.toBe(plain.triggers.options);
  });

  test('a CA file is copied into the stack and passed with --ca', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-ca-'));
    const ca = path.join(dir, 'ca.pem');
    fs.writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const { exec } = localExec(synthJson(stackWith({ caFile: ca })), 'ingest', 'prod-eu');
    expect(exec.command).toContain('--ca "$QCA_CA"');
    expect(exec.environment.QCA_CA).toMatch(/^assets\/.+\/ca\.pem$/);
    expect(JSON.stringify(exec)).not.toContain(dir);
  });

  test('disabled: no null_resource and no null provider', () => {
    const json = synthJson(stackWith({ enabled: false }));
    expect(json.resource).toBeUndefined();
    expect(json.provider).toBeUndefined();
  });

  test('an existing null provider is reused, not duplicated', () => {
    const stack = newStack();
    new provider.NullProvider(stack, 'mine');
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'k', clusters: ['prod-eu'] }],
    });
    expect(Object.keys(synthJson(stack).provider.null)).toHaveLength(1);
  });

  test('the synthesized stack is self-contained: the checker is copied in', () => {
    const stack = stackWith();
    const outdir = Testing.fullSynth(stack);
    const stackDir = path.join(outdir, 'stacks', 'test');
    const json = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8'));
    const { exec } = localExec(json, 'ingest', 'prod-eu');
    expect(fs.existsSync(path.join(stackDir, exec.environment.QCA_CHECKER))).toBe(true);
  });
});
