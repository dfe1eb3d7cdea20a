import * as fs from 'fs';
import * as path from 'path';
import * as kubernetes from '@cdktf/provider-kubernetes';
import { dataNullDataSource } from '@cdktf/provider-null';
import * as vault from '@cdktf/provider-vault';
import { DataResource, ITerraformDependable, TerraformHclModule, TerraformOutput, TerraformResource, TerraformStack, TerraformVariable, Testing, Token } from 'cdktf';
import { Construct } from 'constructs';
import { stateOwner } from './support/synth';
import { KubernetesSecretTarget } from '../examples/custom-targets/kubernetes-secret-target';
import { CustomTargetsStack } from '../examples/custom-targets/main';
import { VaultKvTarget } from '../examples/custom-targets/vault-kv-target';
import {
  ApiKeySource,
  ClusterAccess,
  ISecretTarget,
  SecretEntryKind,
  SecretTargetBindOptions,
  SecretTargetConfig,
  SecretTarget,
} from '../src';

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';
const URL_US = 'https://def-456.us-east-1-0.aws.cloud.qdrant.io';

function synthExample(): { text: string; json: any } {
  const text = Testing.synth(new CustomTargetsStack(Testing.app(), 'custom-targets'), true);
  return { text, json: JSON.parse(text) };
}

/** The only resource of a type (with this `metadata.name`, when given), with its logical id. */
function only(json: any, type: string, name?: string): { id: string; res: any } {
  const all = Object.entries<any>(json.resource[type] ?? {}).filter(([, r]) => name === undefined || r.metadata?.name === name);
  expect(all).toHaveLength(1);
  return { id: all[0][0], res: all[0][1] };
}

/** The logical id of a key's health check, found at `<access>/ApiKeys/<key>/HealthCheck/Resource`. */
function checkOf(access: ClusterAccess, key: string): TerraformResource {
  return access.node.findChild('ApiKeys').node.findChild(key).node.findChild('HealthCheck').node.findChild('Resource') as TerraformResource;
}

function checkId(access: ClusterAccess, key: string): string {
  return checkOf(access, key).friendlyUniqueId;
}

/** Set environment variables for the duration of `fn`. */
function withEnv<T>(vars: Record<string, string>, fn: () => T): T {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Every file under a directory, as text. */
function allFiles(dir: string): { file: string; text: string }[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile())
    .map((d) => {
      const file = path.join(d.parentPath, d.name);
      return { file, text: fs.readFileSync(file, 'latin1') };
    });
}

/** What tokens resolve to in the stack's Terraform JSON (through outputs added for the purpose). */
function resolveAll(stack: TerraformStack, values: string[]): unknown[] {
  const ids = values.map((value, i) => {
    const probe = new TerraformOutput(stack, `probe_${i}`, { value, sensitive: true });
    probe.overrideLogicalId(`probe_${i}`);
    return `probe_${i}`;
  });
  const json = JSON.parse(Testing.synth(stack));
  return ids.map((id) => json.output[id].value);
}

/** A user target that only records what it is given. */
class RecordingTarget implements ISecretTarget {
  public readonly description = 'recording target';
  public readonly calls: SecretTargetBindOptions[] = [];

  public bind(_scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    this.calls.push(options);
    return {};
  }
}

describe('custom targets example: Kubernetes Secret', () => {
  test('one Secret "search/search-api-qdrant" with exactly the six entries of search-api', () => {
    const { text, json } = synthExample();
    expect(text).toHaveResourceWithProperties(kubernetes.secret.Secret, {
      metadata: { name: 'search-api-qdrant', namespace: 'search' },
      type: 'Opaque',
    });
    const { res } = only(json, 'kubernetes_secret', 'search-api-qdrant');
    // Two clusters: the names carry the cluster. The key is a reference, never a value.
    expect(res.data).toEqual({
      QDRANT_PROD_EU_URL: `${URL_EU}:6333`,
      QDRANT_PROD_EU_GRPC_URL: `${URL_EU}:6334`,
      QDRANT_PROD_EU_API_KEY: '${var.qdrant_api_key_search_api}',
      QDRANT_PROD_US_URL: `${URL_US}:6333`,
      QDRANT_PROD_US_GRPC_URL: `${URL_US}:6334`,
      QDRANT_PROD_US_API_KEY: '${var.qdrant_api_key_search_api}',
    });
  });

  test('the stack declares the kubernetes provider; the target adds none', () => {
    const { text, json } = synthExample();
    expect(text).toHaveProviderWithProperties(kubernetes.provider.KubernetesProvider, { config_path: '~/.kube/config' });
    expect(json.provider.kubernetes).toHaveLength(1);
    expect(json.provider.vault).toHaveLength(1);
    // The checks' null provider: one, added by the library.
    expect(json.provider.null).toHaveLength(1);
  });
});

describe('custom targets example: Vault KV', () => {
  test('one secret at secret/ingest/qdrant with the three single-cluster entries of ingest, JSON-encoded by Terraform', () => {
    const { text, json } = synthExample();
    expect(text).toHaveResourceWithProperties(vault.kvSecretV2.KvSecretV2, { mount: 'secret', name: 'ingest/qdrant' });
    const { res } = only(json, 'vault_kv_secret_v2');
    // ingest has one cluster, so the target receives one cluster: plain names.
    expect(res.data_json).toBe(
      '${jsonencode({' +
        `"QDRANT_URL" = "${URL_EU}:6333", ` +
        `"QDRANT_GRPC_URL" = "${URL_EU}:6334", ` +
        '"QDRANT_API_KEY" = var.qdrant_api_key_ingest' +
        '})}',
    );
    expect(res.data_json).not.toContain('search_api');
  });
});

describe('custom targets example: the stores are written after the health checks', () => {
  test('each store depends on the check of its own key (and on nothing else); the checks depend on nothing', () => {
    const stack = new CustomTargetsStack(Testing.app(), 'custom-targets');
    const json = JSON.parse(Testing.synth(stack, true));
    const checks = Object.entries<any>(json.resource.null_resource).filter(([id]) => /_HealthCheck_/.test(id));
    // One check per key, at <access>/ApiKeys/<key>/HealthCheck/Resource.
    expect(checks.map(([id]) => id).sort()).toEqual([
      expect.stringMatching(/^Qdrant_ApiKeys_ingest_HealthCheck_[0-9A-F]{8}$/),
      expect.stringMatching(/^Qdrant_ApiKeys_reports_HealthCheck_[0-9A-F]{8}$/),
      expect.stringMatching(/^Qdrant_ApiKeys_search-api_HealthCheck_[0-9A-F]{8}$/),
    ]);
    for (const [, res] of checks) expect(res.depends_on).toBeUndefined();
    // The examples never mention dependsOn: a resource created in the bind scope (and returned)
    // waits for the checks anyway. As cdktf writes `dependsOn`: plain addresses.
    expect(only(json, 'kubernetes_secret', 'search-api-qdrant').res.depends_on).toEqual([`null_resource.${checkId(stack.access, 'search-api')}`]);
    expect(only(json, 'kubernetes_secret', 'reports-qdrant').res.depends_on).toEqual([`null_resource.${checkId(stack.access, 'reports')}`]);
    expect(only(json, 'vault_kv_secret_v2').res.depends_on).toEqual([`null_resource.${checkId(stack.access, 'ingest')}`]);
  });

  test('with health checks disabled, the same targets are bound and wait for nothing', () => {
    const stack = new TerraformStack(Testing.app(), 'unchecked');
    new kubernetes.provider.KubernetesProvider(stack, 'kubernetes', {});
    new vault.provider.VaultProvider(stack, 'vault', {});
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      healthCheck: { enabled: false },
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu'], secretTargets: [new KubernetesSecretTarget({ name: 'search-api-qdrant' })] },
        { name: 'ingest', clusters: ['prod-eu'], secretTargets: [new VaultKvTarget({ mount: 'secret', name: 'ingest' })] },
      ],
    });
    const json = JSON.parse(Testing.synth(stack, true));
    // No check; the Files record alone (empty: no file target).
    expect(Object.values<any>(json.resource.null_resource).map((r) => r.triggers)).toEqual([{ owner: stateOwner('unchecked/Qdrant'), files: '[]' }]);
    expect(only(json, 'kubernetes_secret').res.depends_on).toBeUndefined();
    expect(only(json, 'vault_kv_secret_v2').res.depends_on).toBeUndefined();
  });
});

describe('custom targets: no key value in the synthesized stack', () => {
  test('canary keys in TF_VAR_... never reach the synthesized JSON or any synthesized file', () => {
    const canaries = {
      TF_VAR_search_key: 'canary-key-0c7e',
      TF_VAR_qdrant_api_key_ingest: 'canary-key-51d9',
    };
    const { text, outdir } = withEnv(canaries, () => {
      const stack = new TerraformStack(Testing.app(), 'canary');
      new kubernetes.provider.KubernetesProvider(stack, 'kubernetes', {});
      new vault.provider.VaultProvider(stack, 'vault', {});
      const searchKey = new TerraformVariable(stack, 'search_key', { type: 'string', sensitive: true });
      new ClusterAccess(stack, 'Qdrant', {
        clusters: [{ name: 'prod-eu', url: URL_EU }, { name: 'prod-us', url: URL_US }],
        apiKeys: [
          {
            name: 'search-api',
            clusters: ['prod-eu', 'prod-us'],
            source: ApiKeySource.fromVariable(searchKey),
            secretTargets: [new KubernetesSecretTarget({ name: 'search-api-qdrant' })],
          },
          { name: 'ingest', clusters: ['prod-eu'], secretTargets: [new VaultKvTarget({ mount: 'secret', name: 'ingest' })] },
        ],
      });
      return { text: Testing.synth(stack, true), outdir: Testing.fullSynth(stack) };
    });
    // The stack is real: the entries are there, as references.
    const json = JSON.parse(text);
    expect(only(json, 'kubernetes_secret').res.data.QDRANT_PROD_EU_API_KEY).toBe('${var.search_key}');
    expect(only(json, 'kubernetes_secret').res.metadata.namespace).toBe('default');
    expect(only(json, 'vault_kv_secret_v2').res.data_json).toContain('var.qdrant_api_key_ingest');
    // ...and no value.
    const files = allFiles(outdir);
    expect(files.map((f) => path.basename(f.file))).toEqual(expect.arrayContaining(['cdk.tf.json', 'qdrant-setup.md']));
    for (const canary of Object.values(canaries)) {
      expect(text).not.toContain(canary);
      for (const { file, text: content } of files) {
        if (content.includes(canary)) throw new Error(`canary found in ${file}`);
      }
    }
  });
});

describe('a user target written in the test', () => {
  test('is bound once, however often the stack is synthesized', () => {
    const target = new RecordingTarget();
    const stack = new TerraformStack(Testing.app(), 'recording');
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [target] }],
    });
    expect(target.calls).toHaveLength(0); // not in the constructor: at synth, once every grant is known
    const first = Testing.synth(stack, true);
    const second = Testing.synth(stack, true);
    expect(target.calls).toHaveLength(1);
    expect(second).toEqual(first);
    expect(target.calls[0].owner).toBe('recording/Qdrant');
  });

  test('a grant added after the first synth is an error, not a silently stale target', () => {
    const target = new RecordingTarget();
    const stack = new TerraformStack(Testing.app(), 'late');
    const access = new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }, { name: 'prod-us', url: URL_US }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [target] }],
    });
    Testing.synth(stack, true);
    access.apiKeys[0].grant(access.findCluster('prod-us')!);
    expect(() => Testing.synth(stack, true)).toThrow(
      '[late/Qdrant] keys, grants or secret targets changed after this stack was first synthesized, so the targets were bound ' +
        'with other entries; make every change before the first synth (or build a new stack)',
    );
    expect(target.calls).toHaveLength(1);
  });

  test('receives its entries by key (in the order the keys were added), then by cluster (in the order granted), REST, gRPC, key', () => {
    const target = new RecordingTarget();
    const stack = new TerraformStack(Testing.app(), 'recording');
    const access = new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }, { name: 'prod-us', url: URL_US }],
      apiKeys: [
        { name: 'search-api', clusters: ['prod-us', 'prod-eu'] },
        { name: 'ingest', clusters: ['prod-eu'], secretTargets: [target], secretNaming: { prefix: 'INGEST_' } },
      ],
    });
    // Attached to search-api after ingest: search-api still comes first, as it was added first.
    access.apiKeys[0].addSecretTarget(target);
    Testing.synth(stack, true);
    expect(target.calls).toHaveLength(1);
    // The checks of its keys, in the same order: what its resources must depend on.
    const dependsOn = target.calls[0].dependsOn;
    expect(dependsOn).toHaveLength(2);
    expect(dependsOn[0]).toBe(checkOf(access, 'search-api'));
    expect(dependsOn[1]).toBe(checkOf(access, 'ingest'));
    const entries = target.calls[0].entries;
    expect(entries.map((e) => [e.name, e.kind, e.keyName, e.clusterName])).toEqual([
      ['QDRANT_PROD_US_URL', SecretEntryKind.REST_URL, 'search-api', 'prod-us'],
      ['QDRANT_PROD_US_GRPC_URL', SecretEntryKind.GRPC_URL, 'search-api', 'prod-us'],
      ['QDRANT_PROD_US_API_KEY', SecretEntryKind.API_KEY, 'search-api', 'prod-us'],
      ['QDRANT_PROD_EU_URL', SecretEntryKind.REST_URL, 'search-api', 'prod-eu'],
      ['QDRANT_PROD_EU_GRPC_URL', SecretEntryKind.GRPC_URL, 'search-api', 'prod-eu'],
      ['QDRANT_PROD_EU_API_KEY', SecretEntryKind.API_KEY, 'search-api', 'prod-eu'],
      ['INGEST_QDRANT_PROD_EU_URL', SecretEntryKind.REST_URL, 'ingest', 'prod-eu'],
      ['INGEST_QDRANT_PROD_EU_GRPC_URL', SecretEntryKind.GRPC_URL, 'ingest', 'prod-eu'],
      ['INGEST_QDRANT_PROD_EU_API_KEY', SecretEntryKind.API_KEY, 'ingest', 'prod-eu'],
    ]);
    // Only the keys are sensitive; they are references to the keys' variables, which Terraform
    // reads from TF_VAR_...
    const keys = entries.filter((e) => e.kind === SecretEntryKind.API_KEY);
    expect(keys.every((e) => Token.isUnresolved(e.value))).toBe(true);
    expect(resolveAll(stack, keys.map((e) => e.value))).toEqual([
      '${var.qdrant_api_key_search_api}',
      '${var.qdrant_api_key_search_api}',
      '${var.qdrant_api_key_ingest}',
    ]);
    expect(target.calls).toHaveLength(1); // still
    for (const e of entries) {
      expect(e.sensitive).toBe(e.kind === SecretEntryKind.API_KEY);
      // What an entry holds, and nothing of how the library hands a key to its own processes.
      expect(Object.keys(e).sort()).toEqual(['clusterName', 'ephemeral', 'keyName', 'kind', 'name', 'sensitive', 'value']);
      expect(e.ephemeral).toBe(false);
      if (e.kind !== SecretEntryKind.API_KEY) {
        expect(e.value).toBe(`${e.clusterName === 'prod-eu' ? URL_EU : URL_US}:${e.kind === SecretEntryKind.REST_URL ? 6333 : 6334}`);
      }
    }
  });
});

describe('what a user target creates under its scope or returns waits for the checks, or is an error', () => {
  /** A target whose bind runs `make` (scope, options) and returns what it gives. */
  class Made implements ISecretTarget {
    constructor(public readonly description: string, private readonly make: (scope: Construct, options: SecretTargetBindOptions) => unknown) {}
    public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
      return this.make(scope, options) as SecretTargetConfig;
    }
  }

  function accessWith(stack: TerraformStack, target: ISecretTarget): ClusterAccess {
    return new ClusterAccess(stack, 'Qdrant', {
      setupGuide: { enabled: false },
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [target] }],
    });
  }

  function synthErrorLines(stack: TerraformStack): string[] {
    try {
      Testing.synth(stack, true);
      return [];
    } catch (e) {
      return (e as Error).message.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('['));
    }
  }

  test('modules and data sources, under the bind scope or returned, depend on the check', () => {
    const stack = new TerraformStack(Testing.app(), 'stores');
    const access = accessWith(stack, new Made('module store', (scope, o) => {
      new TerraformHclModule(scope, 'Inside', { source: 'app.terraform.io/acme/k8s-secret/kubernetes', variables: { names: o.entries.map((e) => e.name) } });
      new dataNullDataSource.DataNullDataSource(scope, 'Lookup', {});
      const returnedModule = new TerraformHclModule(stack, 'Returned', { source: 'app.terraform.io/acme/vault-kv/vault' });
      const returnedData = new dataNullDataSource.DataNullDataSource(stack, 'ReturnedLookup', {});
      return { dependables: [returnedModule, returnedData] };
    }));
    const json = JSON.parse(Testing.synth(stack, true));
    const check = `null_resource.${checkId(access, 'search-api')}`;
    expect(Object.keys(json.module)).toHaveLength(2);
    for (const m of Object.values<any>(json.module)) expect(m.depends_on).toEqual([check]);
    expect(Object.keys(json.data.null_data_source)).toHaveLength(2);
    for (const d of Object.values<any>(json.data.null_data_source)) expect(d.depends_on).toEqual([check]);
  });

  test('a module of another copy of cdktf (not instanceof ours) waits too, under the bind scope or returned', () => {
    let other: typeof import('cdktf') | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a second copy of cdktf, as another package would bring
      other = require('cdktf');
    });
    expect(other!.TerraformHclModule).not.toBe(TerraformHclModule);
    const stack = new TerraformStack(Testing.app(), 'stores');
    const access = accessWith(stack, new Made('module store', (scope) => {
      new other!.TerraformHclModule(scope, 'Inside', { source: 'app.terraform.io/acme/k8s-secret/kubernetes' });
      return { dependables: [new other!.TerraformHclModule(stack, 'Returned', { source: 'app.terraform.io/acme/vault-kv/vault' })] };
    }));
    const json = JSON.parse(Testing.synth(stack, true));
    expect(Object.keys(json.module)).toHaveLength(2);
    for (const m of Object.values<any>(json.module)) expect(m.depends_on).toEqual([`null_resource.${checkId(access, 'search-api')}`]);
  });

  test('with health checks disabled, a returned output is accepted as before (there is nothing to wait for)', () => {
    const stack = new TerraformStack(Testing.app(), 'stores');
    new ClusterAccess(stack, 'Qdrant', {
      setupGuide: { enabled: false },
      healthCheck: { enabled: false },
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [new Made('output store', (scope) => ({ dependables: [new TerraformOutput(scope, 'Out', { value: 'x' })] }))] }],
    });
    expect(synthErrorLines(stack)).toEqual([]);
  });

  test('a returned dependable that cannot depend on anything is an error naming the target and what it returned', () => {
    const stack = new TerraformStack(Testing.app(), 'stores');
    accessWith(stack, new Made('output store', (scope) => {
      const output = new TerraformOutput(scope, 'Out', { value: 'x' });
      return { dependables: [output, { fqn: 'null_resource.elsewhere' } as ITerraformDependable] };
    }));
    expect(synthErrorLines(stack)).toEqual([
      '[stores/Qdrant] bind() of secret target output store returned (TerraformOutput at stores/Qdrant/SecretTargets/output-store/Out) in dependables, ' +
        'which cannot wait for the health checks (only resources, data sources and modules can); return only those, ' +
        'and write outputs with SecretTarget.terraformOutputs()',
      '[stores/Qdrant] bind() of secret target output store returned {"fqn":"null_resource.elsewhere"} in dependables, ' +
        'which cannot wait for the health checks (only resources, data sources and modules can); return only those, ' +
        'and write outputs with SecretTarget.terraformOutputs()',
    ]);
  });

  // Found by a review with real Terraform: an output whose value also refers to a resource that
  // waits (`${store.id}:${key}`) still took a rejected key after a failed apply.
  test('an output made under the bind scope, anywhere below it and whatever it refers to, is an error: it would take a rejected key', () => {
    const stack = new TerraformStack(Testing.app(), 'stores');
    accessWith(stack, new Made('output store', (scope, o) => {
      const store = new DataResource(scope, 'Store', { input: o.entries.map((e) => e.name) });
      new TerraformOutput(scope, 'Raw', { value: o.entries[2].value, sensitive: true });
      new TerraformOutput(new Construct(scope, 'Inner'), 'Joined', { value: `${store.id}:${o.entries[2].value}`, sensitive: true });
      return {};
    }));
    const fix = 'an output cannot wait for the health checks (Terraform writes it even when a check fails, whatever resources its value refers to, ' +
      'so a rejected key would reach it); write outputs with SecretTarget.terraformOutputs(), which holds them back, and leave them out of the target';
    expect(synthErrorLines(stack)).toEqual([
      `[stores/Qdrant] bind() of secret target output store created (TerraformOutput at stores/Qdrant/SecretTargets/output-store/Raw) under its scope: ${fix}`,
      `[stores/Qdrant] bind() of secret target output store created (TerraformOutput at stores/Qdrant/SecretTargets/output-store/Inner/Joined) under its scope: ${fix}`,
    ]);
  });

  test('the library\'s own terraformOutputs() target is accepted, also bound inside a target of one\'s own', () => {
    const stack = new TerraformStack(Testing.app(), 'stores');
    accessWith(stack, new Made('store and outputs', (scope, o) => {
      new DataResource(scope, 'Store', { input: o.entries.map((e) => e.name) });
      return SecretTarget.terraformOutputs().bind(new Construct(scope, 'Outputs'), o);
    }));
    expect(synthErrorLines(stack)).toEqual([]);
    const json = JSON.parse(Testing.synth(stack, true));
    expect(Object.keys(json.output).filter((n) => n.startsWith('QDRANT_')).sort()).toEqual(['QDRANT_API_KEY', 'QDRANT_GRPC_URL', 'QDRANT_URL']);
  });

  test('dependables that are not a list are an error, not a crash', () => {
    const stack = new TerraformStack(Testing.app(), 'stores');
    accessWith(stack, new Made('single store', (scope) => ({ dependables: new DataResource(scope, 'Store', { input: { n: 1 } }) })));
    expect(synthErrorLines(stack)).toEqual([
      '[stores/Qdrant] bind() of secret target single store returned dependables that is not a list ' +
        '(got (DataResource at stores/Qdrant/SecretTargets/single-store/Store)); return { dependables: [resource, ...] }',
    ]);
  });

  test.each([['after', false], ['before', true]])('a dependable in another stack (declared %s the stack of the checks) is an error naming both stacks', (_, otherFirst) => {
    const app = Testing.app();
    const other = otherFirst ? new TerraformStack(app, 'secrets') : undefined;
    const main = new TerraformStack(app, 'main');
    const secrets = other ?? new TerraformStack(app, 'secrets');
    accessWith(main, new Made('store in another stack', (_scope, o) =>
      ({ dependables: [new DataResource(secrets, 'Store', { input: o.entries.map((e) => e.name) })] })));
    let message = '';
    try {
      app.synth();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message.split('\n').map((l) => l.trim())).toContain(
      '[main/Qdrant] bind() of secret target store in another stack returned (DataResource at secrets/Store), which is in stack "secrets"; ' +
        'the health checks it must wait for are in stack "main", and Terraform cannot make a resource depend on one in another stack; ' +
        'create it in stack "main" (under the bind scope)',
    );
  });
});
