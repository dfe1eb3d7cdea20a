import { TerraformStack, TerraformVariable, Testing } from 'cdktf';
import { ApiKeySource, ClusterAccess, KeyAccess } from '../src';
import { inputFileOf, newStack, synthJson, synthToDir } from './support/synth';

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';
const URL_US = 'https://def-456.us-east-1-0.aws.cloud.qdrant.io';

describe('ApiKey', () => {
  test('a key without a source gets a sensitive variable qdrant_api_key_<name>', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }, { name: 'prod-us', url: URL_US }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu', 'prod-us'] }],
    });
    const variable = synthJson(stack).variable.qdrant_api_key_search_api;
    expect(variable).toMatchObject({ type: 'string', sensitive: true });
    // Optional (default null): a deploy without the key fails at once on the check's precondition,
    // naming the variable, instead of waiting at Terraform's prompt; destroy needs no key.
    expect(variable.default).toBeNull();
    expect(variable.nullable).toBeUndefined();
    // The description names the console step and the variable to set.
    expect(variable.description).toContain('Qdrant Cloud console (see qdrant-setup.md, section 2)');
    expect(variable.description).toContain('for clusters prod-eu, prod-us.');
    expect(variable.description).toContain('TF_VAR_qdrant_api_key_search_api');
  });

  test('without a setup guide, the variable\'s description cites none', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }],
      setupGuide: { enabled: false },
    });
    expect(synthJson(stack).variable.qdrant_api_key_search_api.description)
      .toBe('Qdrant API key "search-api" for clusters prod-eu. Create it in the Qdrant Cloud console and set TF_VAR_qdrant_api_key_search_api.');
  });

  test('one key may be granted to many clusters, and a cluster may appear in many keys', () => {
    const stack = newStack();
    const access = new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }, { name: 'prod-us', url: URL_US }],
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu', 'prod-us'] },
        { name: 'ingest', clusters: ['prod-eu'] },
      ],
    });
    expect(access.grants.map((g) => `${g.apiKey.keyName}>${g.cluster.clusterName}`)).toEqual([
      'search-api>prod-eu', 'search-api>prod-us', 'ingest>prod-eu',
    ]);
    expect(access.apiKeys[0].clusters.map((c) => c.clusterName)).toEqual(['prod-eu', 'prod-us']);
  });

  test('the model can be built with methods, and grant() adds a cluster later', () => {
    const stack = newStack();
    const access = new ClusterAccess(stack, 'Qdrant');
    const eu = access.addCluster({ name: 'prod-eu', url: URL_EU });
    const key = access.addApiKey({ name: 'search-api', clusters: ['prod-eu'] });
    const us = access.addCluster({ name: 'prod-us', url: URL_US });
    const grant = key.grant(us);
    expect(grant.cluster).toBe(us);
    expect(grant.apiKey).toBe(key);
    expect(key.clusters).toEqual([eu, us]);
    expect(access.findCluster('prod-us')).toBe(us);
    expect(access.findCluster('nope')).toBeUndefined();
    // One health check per key; its grants include the late one.
    const { json, dir } = synthToDir(stack);
    const checks = Object.entries<any>(json.resource.null_resource).filter(([id]) => id.includes('_HealthCheck_')).map(([, r]) => r);
    expect(checks).toHaveLength(1);
    expect(inputFileOf(dir, checks[0].provisioner[0]['local-exec'].environment, 'QCA_GRANTS_FILE').map((g: any) => g.label))
      .toEqual(['search-api → prod-eu', 'search-api → prod-us']);
  });

  test('accessors return copies', () => {
    const access = new ClusterAccess(newStack(), 'Qdrant', { clusters: [{ name: 'a', url: URL_EU }] });
    access.clusters.pop();
    expect(access.clusters).toHaveLength(1);
  });

  test('fromVariable uses an existing sensitive variable and creates none', () => {
    const stack = newStack();
    const v = new TerraformVariable(stack, 'ingest_key', { type: 'string', sensitive: true });
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'ingest', clusters: ['prod-eu'], source: ApiKeySource.fromVariable(v) }],
    });
    const json = synthJson(stack);
    expect(Object.keys(json.variable)).toEqual(['ingest_key']);
    const check = Object.values<any>(json.resource.null_resource)[0];
    expect(check.provisioner[0]['local-exec'].environment.QCA_KEY_ENV).toBe('TF_VAR_ingest_key');
    // The library makes the user's variable optional, so that a missing key fails fast.
    expect(json.variable.ingest_key.default).toBeNull();
  });

  test('fromToken takes a value from another resource and hands it to the checker through environment', () => {
    const stack = newStack();
    const secret = new TerraformVariable(stack, 'vault_path', { type: 'string' });
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'ingest', clusters: ['prod-eu'], source: ApiKeySource.fromToken(secret.stringValue) }],
    });
    const check = Object.values<any>(synthJson(stack).resource.null_resource)[0];
    const exec = check.provisioner[0]['local-exec'];
    // Marked sensitive where it is used: the plan prints nothing derived from it.
    expect(exec.environment.QDRANT_API_KEY).toBe('${sensitive(var.vault_path)}');
    expect(exec.environment.QCA_KEY_ENV).toBe('QDRANT_API_KEY');
    expect(exec.command).not.toContain('var.vault_path');
  });
});

describe('a key on several clusters with granular access (not what Qdrant Cloud\'s console makes)', () => {
  const warnings = (access: Record<string, unknown>, grantLater = false) => {
    const stack = newStack();
    const qa = new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }, { name: 'prod-us', url: URL_US }],
      apiKeys: [{ name: 'search-api', clusters: grantLater ? ['prod-eu'] : ['prod-eu', 'prod-us'], ...access }],
    });
    // Granted after the key was made: the warning waits for every grant.
    const key = qa.apiKeys.find((k) => k.keyName === 'search-api')!;
    if (grantLater) key.grant(qa.findCluster('prod-us')!);
    synthJson(stack);
    synthJson(stack); // validations run again: still one warning
    return key.node.metadata.filter((m) => m.type === '@cdktf/warn').map((m) => String(m.data));
  };

  test.each([
    ['read-only', { access: KeyAccess.readOnly() }, false],
    ['per-collection', { access: KeyAccess.collections({ read: ['products'] }) }, false],
    ['read-only', { access: KeyAccess.readOnly() }, true],
  ])('%s access: one warning that says what to do', (mode, access, grantLater) => {
    expect(warnings(access, grantLater)).toEqual([
      `key "search-api" covers 2 clusters with ${mode} access, which Qdrant Cloud's console does not make (keys with granular access cover one cluster; ` +
      'its multi-cluster flow makes keys that can manage, which fail this check): declare one key per cluster (see the setup guide), ' +
      'unless your clusters are self-hosted and accept the same JWT',
    ]);
  });

  test.each([
    ['manage access', { access: KeyAccess.manage() }],
    ['no declared access', {}],
  ])('%s: no warning', (_, access) => {
    expect(warnings(access)).toEqual([]);
  });
});

describe('one key variable in two stacks', () => {
  test('keys of one name in two stacks of an app read one TF_VAR_: a warning on the second, naming the first', () => {
    const app = Testing.app();
    const access = (id: string) => new ClusterAccess(new TerraformStack(app, id), 'Qdrant', {
      clusters: [{ name: 'eu', url: 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io' }],
      apiKeys: [{ name: 'search-api', clusters: ['eu'] }, { name: `${id}-only`, clusters: ['eu'] }],
    });
    const dev = access('dev');
    const prod = access('prod');
    const warningsOf = (a: ClusterAccess) => a.node.findAll().flatMap((c) => c.node.metadata)
      .filter((m) => m.type === '@cdktf/warn').map((m) => String(m.data));
    expect(warningsOf(dev)).toEqual([]);
    expect(warningsOf(prod)).toEqual([
      'key "search-api" reads TF_VAR_qdrant_api_key_search_api, as dev/Qdrant/ApiKeys/search-api in another stack does: one exported value feeds both, ' +
        'and one deploy of both stacks cannot give them different keys; if the keys differ, give them distinct names (e.g. "prod-search-api"; ' +
        'a new name gives the key new variable and output names), or pass a variable of your own with ApiKeySource.fromVariable',
    ]);
  });
});
