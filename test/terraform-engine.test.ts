/**
 * The Terraform check engine as the stack holds it (`healthCheck: { engine: CheckEngine.TERRAFORM }`):
 * no local-exec and no null provider, `data "http"` sources whose keyed URLs are built on root's,
 * the key only inside `sensitive({...})` headers, conditions that read answers with lookup(), a gate
 * per key that the targets and the expiry output wait for, and every refusal and warning of synth.
 * What it does against a server: test/e2e/terraform-engine.test.ts, test/real-qdrant/engines.test.ts.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, TerraformProvider, TerraformStack, Testing } from 'cdktf';
import { Construct } from 'constructs';
import { ApiKeyHeader, CheckEngine, ClusterAccess, HealthCheckOptions, KeyAccess, SecretTarget } from '../src';
import { newStack, synthErrors, synthJson } from './support/synth';
import { canaryKey } from '../tools/testing/stand-in-qdrant';

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';
const URL_US = 'https://def-456.us-east-1-0.aws.cloud.qdrant.io';
const ENGINE = { engine: CheckEngine.TERRAFORM, grpc: false };

function stackWith(healthCheck: HealthCheckOptions = ENGINE, stack: TerraformStack = newStack()) {
  const access = new ClusterAccess(stack, 'Qdrant', {
    clusters: [{ name: 'prod-eu', url: URL_EU }, { name: 'prod-us', url: URL_US }],
    apiKeys: [
      { name: 'search-api', clusters: ['prod-eu', 'prod-us'], access: KeyAccess.collections({ read: ['products'], readWrite: ['orders'] }) },
      { name: 'ingest', clusters: ['prod-eu'], secretTargets: [SecretTarget.terraformOutputs()] },
    ],
    healthCheck,
  });
  return { stack, access };
}

/** The engine's warnings and notes (not the others, such as that of a key with per-collection access on two clusters). */
const warningsOf = (scope: TerraformStack) => scope.node.findAll().flatMap((c) => c.node.metadata)
  .filter((m) => (m.type === '@cdktf/warn' || m.type === '@cdktf/info') && /CheckEngine/.test(String(m.data)))
  .map((m) => `${m.type === '@cdktf/info' ? 'info' : 'warn'}: ${String(m.data)}`);

const https = (json: any): Record<string, any> => json.data?.http ?? {};
const byAddress = (json: any, part: string) => Object.entries(https(json)).filter(([id]) => id.includes(part));

describe('CheckEngine.TERRAFORM: what the stack holds', () => {
  const { stack } = stackWith();
  const json = synthJson(stack);
  const text = JSON.stringify(json);

  test('no local-exec, no null provider: hashicorp/http once, with a range', () => {
    expect(text).not.toContain('local-exec');
    expect(json.resource?.null_resource).toBeUndefined();
    expect(json.terraform.required_providers).toEqual({ http: { source: 'hashicorp/http', version: '~> 3.6' } });
    expect(json.provider.http).toHaveLength(1);
  });

  test('per cluster a root and an enforced read without a key; per grant the key step and the declared access probes', () => {
    const ids = Object.keys(https(json)).map((id) => id.replace(/_[0-9A-F]{8}$/, '').replace(/^Qdrant_/, ''));
    expect(ids.sort()).toEqual([
      'ApiKeys_ingest_HealthCheck_prod-eu_key',
      // collections, read products and write orders: manage, global-read, read/read-only per read collection, write per write collection; reach reads the key step's answer
      ...['prod-eu', 'prod-us'].flatMap((c) => ['global-read', 'key', 'manage', 'read-0', 'read-only-0', 'write-0'].map((p) => `ApiKeys_search-api_HealthCheck_${c}_${p}`)),
      'TerraformChecks_prod-eu_Enforced', 'TerraformChecks_prod-eu_Root', 'TerraformChecks_prod-us_Enforced', 'TerraformChecks_prod-us_Root',
    ].sort());
    const [[, root]] = byAddress(json, 'prod-eu_Root');
    expect(root.url).toBe(`${URL_EU}:6333/`);
    expect(root.request_headers).toEqual({ Accept: 'application/json' });
    expect(root.count).toBeUndefined();
  });

  test('the key is never sent before root passed: every other read takes its URL from root\'s, with no depends_on between reads', () => {
    for (const [id, ds] of Object.entries<any>(https(json))) {
      expect({ id, dependsOn: ds.depends_on }).toEqual({ id, dependsOn: undefined });
      if (id.includes('_Root_')) continue;
      const cluster = id.includes('prod-eu') ? 'prod-eu' : 'prod-us';
      const rootId = Object.keys(https(json)).find((r) => r.includes(`${cluster}_Root`));
      expect(ds.url).toMatch(new RegExp(`^\\$\\{trimsuffix\\(data\\.http\\.${rootId}\\.url, "/"\\)\\}/collections`));
    }
  });

  test('keyed reads: Authorization: Bearer inside sensitive(), sent only when the key is set (count), with the timeouts and retries of the options', () => {
    const keyed = Object.entries<any>(https(json)).filter(([id]) => id.includes('ApiKeys_'));
    expect(keyed.length).toBe(13);
    for (const [, ds] of keyed) {
      expect(ds.request_headers).toMatch(/^\$\{sensitive\(\{ Accept = "application\/json", ("Content-Type" = "application\/json", )?Authorization = "Bearer \$\{local\.\S+\}" \}\)\}$/);
      expect(ds.count).toMatch(/^\$\{local\.Qdrant_ApiKeys_[a-z-]+_HealthCheck_Send_[0-9A-F]{8}\}$/);
      expect(ds.request_timeout_ms).toBe(10_000);
      expect(ds.retry).toEqual({ attempts: 3, min_delay_ms: 200, max_delay_ms: 5000 });
      expect(ds.insecure).toBeUndefined();
    }
    const send = Object.entries<string>(json.locals).find(([id]) => id.includes('search-api_HealthCheck_Send'))![1];
    expect(send).toContain('nonsensitive(');
    expect(send).toMatch(/\? 1 : 0\}$/);
  });

  test('conditions read an answer with lookup(), never self.<attribute> (Terraform would print the server\'s whole answer)', () => {
    const conditions = Object.values<any>(https(json)).flatMap((ds) => ds.lifecycle.postcondition);
    expect(conditions.length).toBeGreaterThan(15);
    for (const c of conditions) {
      expect(`${c.condition}${c.error_message}`).not.toMatch(/self\.[a-z]/);
      expect(c.error_message).toMatch(/^(\$\{join\("", flatten\(|FAIL )/);
    }
  });

  test('a gate per key: it waits for every read of the key, says when the key is not set, and the targets and the expiry output wait for it', () => {
    const gates = json.resource.terraform_data;
    const [gateId, gate] = Object.entries<any>(gates).find(([id]) => id.startsWith('Qdrant_ApiKeys_ingest_HealthCheck_'))!;
    expect(gate.depends_on.sort()).toEqual(Object.keys(https(json)).filter((id) => id.includes('ingest') || id.includes('prod-eu_Root') || id.includes('prod-eu_Enforced'))
      .map((id) => `data.http.${id}`).sort());
    expect(gate.lifecycle.precondition[0].error_message).toMatch(/^Qdrant API key "ingest" has no value: .*TF_VAR_qdrant_api_key_ingest/);
    expect(gate.lifecycle.precondition.slice(1).map((p: any) => p.error_message)).toEqual([
      'FAIL ingest  step key: the key has whitespace or a newline at its start or end — likely a copy-paste error; remove it',
      'FAIL ingest  step key: the key contains a control character or a character that cannot be sent in an HTTP header — likely a copy-paste error; copy the key again',
    ]);
    const verified = Object.entries<any>(gates).find(([id]) => id.includes('SecretTargets'))![1];
    expect(verified.depends_on).toContain(`terraform_data.${gateId}`);
    const expiry = Object.entries<any>(gates).find(([id]) => id.includes('ingest_ExpiryChecked'))![1];
    expect(expiry.depends_on).toContain(`terraform_data.${gateId}`);
  });

  test('the 14-day warning is a check block per key (a warning never stops the deploy)', () => {
    const checks = Object.entries<any>(json.check);
    expect(checks.filter(([id]) => id.includes('ExpiryWarning')).map(([id]) => id.replace(/_[0-9A-F]{8}$/, '')).sort()).toEqual([
      'Qdrant_ApiKeys_ingest_HealthCheck_ExpiryWarning', 'Qdrant_ApiKeys_search-api_HealthCheck_ExpiryWarning',
    ]);
    const { assert } = checks.find(([id]) => id.includes('ingest_HealthCheck_ExpiryWarning'))![1];
    expect(assert).toHaveLength(1);
    // A key without an expiry, or not set: no warning (try: HCL's || evaluates both sides).
    expect(assert[0].condition).toMatch(/^\$\{try\(local\.\S+_Exp_[0-9A-F]{8} == null \|\| .* >= 14, true\)\}$/);
    // try(..., ""): OpenTofu evaluates the message even when the condition holds (a keyless destroy).
    expect(assert[0].error_message).toMatch(/^warn ingest {2}key \$\{try\(format\("expires %s \(%s\)".*, ""\)\}: rotate it soon \(setup guide, section 6\)$/);
  });
});

describe('CheckEngine.TERRAFORM: refusals and warnings at synth', () => {
  test('header API_KEY is refused, and says why; the default is Bearer', () => {
    const { stack, access } = stackWith({ ...ENGINE, header: ApiKeyHeader.API_KEY });
    expect(synthErrors(stack)).toEqual([expect.stringMatching(/^\[test\/Qdrant\] healthCheck\.header ApiKeyHeader\.API_KEY cannot be used with CheckEngine\.TERRAFORM: hashicorp\/http follows redirects and sends an api-key header on to another host/)]);
    expect(access.healthCheckOptions.header).toBe(ApiKeyHeader.API_KEY);
    expect(stackWith().access.healthCheckOptions.header).toBe(ApiKeyHeader.BEARER);
    expect(stackWith({}).access.healthCheckOptions).toMatchObject({ engine: CheckEngine.NODE, header: ApiKeyHeader.API_KEY });
  });

  test('file targets are refused (they need Node, and would write on the runner), and what to use instead', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' }), SecretTarget.json({ path: 'secrets.json' })] }],
      healthCheck: ENGINE,
    });
    expect(synthErrors(stack)).toEqual(['.env file ".env"', 'JSON file "secrets.json"'].map((t) => `[test/Qdrant] secret target ${t} cannot be used with CheckEngine.TERRAFORM: ` +
      'a file target needs Node.js (its writer runs on the machine that applies, and would write the file there, on a shared runner, not next to the app); ' +
      'use SecretTarget.terraformOutputs() or a target of your own (a Kubernetes Secret, Vault, a cloud secret manager), or CheckEngine.NODE'));
    // Nothing of the writer either (skipValidation would still write the stack).
    const out = JSON.stringify(JSON.parse(Testing.synth(stack)));
    expect(out).not.toContain('local-exec');
  });

  test('an ephemeral key is refused (Terraform refuses an ephemeral value in request_headers, which the state keeps), and what to use instead', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], ephemeral: true }, { name: 'ingest', clusters: ['prod-eu'] }],
      healthCheck: ENGINE,
    });
    expect(synthErrors(stack)).toEqual(['[test/Qdrant] key "search-api" is ephemeral, and CheckEngine.TERRAFORM cannot check an ephemeral key: ' +
      'its checks send the key in the request_headers of data "http", which Terraform keeps in the state and so refuses for an ephemeral value; ' +
      'use CheckEngine.NODE (it checks an ephemeral key without storing it), or make the key not ephemeral (ephemeral: false)']);
  });

  test('an engine that is not one is refused by value (a Python or JS caller may pass anything)', () => {
    const { stack } = stackWith({ engine: 'lambda' as CheckEngine });
    expect(synthErrors(stack)).toEqual(['[test/Qdrant] ClusterAccess props.healthCheck.engine must be one of "node", "terraform"; got "lambda"']);
  });

  test('gRPC is not checked: a warning unless grpc is false; runOnEveryDeploy has no effect: a warning', () => {
    const warned = stackWith({ engine: CheckEngine.TERRAFORM, runOnEveryDeploy: true }).stack;
    expect(warningsOf(warned)).toEqual([
      'warn: CheckEngine.TERRAFORM does not check gRPC (Terraform has no gRPC client): the keys are proven over REST only; set healthCheck.grpc to false to say so, or use CheckEngine.NODE to check gRPC too',
      'warn: healthCheck.runOnEveryDeploy has no effect with CheckEngine.TERRAFORM: its checks run at every plan; remove runOnEveryDeploy',
    ]);
    expect(warningsOf(stackWith().stack)).toEqual([]);
  });

  test('a CA file is read at synth and embedded (no copy of the file), with a note that it replaces the runner\'s roots', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-engine-ca-'));
    try {
      const pem = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUYQ==\n-----END CERTIFICATE-----\n';
      const file = path.join(dir, 'ca.pem');
      fs.writeFileSync(file, pem);
      const { stack } = stackWith({ ...ENGINE, caFile: file });
      const json = synthJson(stack);
      const ca = Object.entries<string>(json.locals).find(([id]) => id.includes('TerraformChecks_Ca'))![1];
      expect(ca).toBe(pem);
      for (const ds of Object.values<any>(https(json))) expect(ds.ca_cert_pem).toMatch(/^\$\{local\.Qdrant_TerraformChecks_Ca_[0-9A-F]{8}\}$/);
      expect(JSON.stringify(json)).not.toContain('"asset"');
      expect(warningsOf(stack)).toEqual([
        expect.stringMatching(/^info: healthCheck\.caFile ".*ca\.pem" is embedded in the stack, and with CheckEngine\.TERRAFORM it replaces the trusted roots/),
        // test/adversarial/state-at-rest.test.ts
        expect.stringMatching(/^warn: CheckEngine\.TERRAFORM puts API keys into this stack's state/),
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('cdktf\'s HCL output is refused with what to do (it has no place for a check block)', () => {
    // cdktf's stack reads it from the environment (cdktf.json "hcl" sets it).
    process.env.SYNTH_HCL_OUTPUT = 'true';
    const app = new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'qca-engine-hcl-')) });
    try {
      stackWith(ENGINE, new TerraformStack(app, 'test'));
      expect(() => app.synth()).toThrow(/writes JSON only: turn off cdktf's HCL output/);
    } finally {
      delete process.env.SYNTH_HCL_OUTPUT;
      fs.rmSync(app.outdir, { recursive: true, force: true });
    }
  });

  test('a user\'s own http provider, added after the access, is the one the stack uses', () => {
    /** What a generated provider class of hashicorp/http writes. */
    class UserHttpProvider extends TerraformProvider {
      constructor(scope: Construct, id: string) {
        super(scope, id, { terraformResourceType: 'http', terraformGeneratorMetadata: { providerName: 'http', providerVersionConstraint: '3.6.0' }, terraformProviderSource: 'hashicorp/http' });
      }
      protected synthesizeAttributes() {
        return { alias: 'mine' };
      }
    }
    const stack = newStack();
    stackWith(ENGINE, stack);
    new UserHttpProvider(stack, 'mine');
    const json = synthJson(stack);
    expect(json.provider.http).toEqual([{ alias: 'mine' }]);
    expect(json.terraform.required_providers.http).toEqual({ source: 'hashicorp/http', version: '3.6.0' });
  });
});

test('a key in the environment at synth is never in the stack', () => {
  const canary = canaryKey('canary-engine');
  const saved = process.env.TF_VAR_qdrant_api_key_search_api;
  process.env.TF_VAR_qdrant_api_key_search_api = canary;
  try {
    const outdir = Testing.fullSynth(stackWith().stack);
    const files = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    const all = files(outdir);
    expect(all.some((f) => f.endsWith('cdk.tf.json'))).toBe(true);
    expect(all.filter((f) => fs.readFileSync(f, 'utf8').includes(canary))).toEqual([]);
  } finally {
    if (saved === undefined) delete process.env.TF_VAR_qdrant_api_key_search_api;
    else process.env.TF_VAR_qdrant_api_key_search_api = saved;
  }
});
