/**
 * Class 11: mistyped props are errors. A Python user who writes nested props as dicts with
 * snake_case keys, or a JavaScript user with a typo, gets a synth error with a "did you mean",
 * not silently ignored settings. The schemas are checked against the jsii assembly, so a new
 * field cannot be forgotten there.
 */
import * as fs from 'fs';
import * as path from 'path';
import { TerraformStack, Testing } from 'cdktf';
import { ClusterAccess, KeyAccess, SecretTarget } from '../../src';
import { ALL_SCHEMAS } from '../../src/private/schemas';

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';

function errorsOf(props: unknown): string[] {
  const stack = new TerraformStack(Testing.app(), 's');
  new ClusterAccess(stack, 'Qdrant', props as any);
  try {
    Testing.synth(stack, true);
    return [];
  } catch (e) {
    return (e as Error).message.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('['));
  }
}

describe('unknown properties', () => {
  test('Python dicts with snake_case keys: each key is an error naming the camelCase property', () => {
    const errors = errorsOf({
      clusters: [{ name: 'prod-eu', url: URL_EU, rest_port: 6333 }],
      api_keys: [],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secret_targets: [], created_on: '2026-01-01', rotate_after_days: 30 }],
      healthCheck: { timeout_seconds: 5 },
    });
    const python = ' (in Python, pass struct classes or camelCase keys: a dict with snake_case keys is not converted)';
    expect(errors).toEqual(expect.arrayContaining([
      `[s/Qdrant] ClusterAccess props has unknown property "api_keys"; did you mean "apiKeys"?${python}`,
      `[s/Qdrant/Clusters/prod-eu] cluster "prod-eu" options has unknown property "rest_port"; did you mean "restPort"?${python}`,
      `[s/Qdrant] ClusterAccess props.apiKeys[0] has unknown property "secret_targets"; did you mean "secretTargets"?${python}`,
      `[s/Qdrant] ClusterAccess props.apiKeys[0] has unknown property "created_on"; did you mean "createdOn"?${python}`,
      `[s/Qdrant] ClusterAccess props.apiKeys[0] has unknown property "rotate_after_days"; did you mean "rotateAfterDays"?${python}`,
      `[s/Qdrant] ClusterAccess props.healthCheck has unknown property "timeout_seconds"; did you mean "timeoutSeconds"?${python}`,
    ]));
    expect(errors).toHaveLength(6);
  });

  test('JavaScript typos get a suggestion too', () => {
    expect(errorsOf({ clusters: [{ name: 'prod-eu', url: URL_EU }], apikeys: [], healthCheck: { timout: 5 } })).toEqual([
      '[s/Qdrant] ClusterAccess props has unknown property "apikeys"; did you mean "apiKeys"?',
      '[s/Qdrant] ClusterAccess props.healthCheck has unknown property "timout"; did you mean "timeoutSeconds"?',
    ]);
  });

  test('a property nothing resembles lists the known ones', () => {
    expect(errorsOf({ setupGuide: { colour: 'blue' } })).toEqual([
      '[s/Qdrant] ClusterAccess props.setupGuide has unknown property "colour"; SetupGuideOptions has enabled, outputPath',
    ]);
  });
});

describe('values of the wrong type', () => {
  test.each([
    [{ clusters: { name: 'prod-eu' } }, 'ClusterAccess props.clusters must be a list of ClusterOptions objects; got an object with key "name" (values not shown: they may hold an API key)'],
    [{ healthCheck: { enabled: 'no' } }, 'ClusterAccess props.healthCheck.enabled must be a boolean; got "no"'],
    [{ healthCheck: { header: 'x-api-key' } }, 'ClusterAccess props.healthCheck.header must be one of "api-key", "bearer"; got "x-api-key"'],
    [{ apiKeys: [{ name: 'k', secretTargets: '.env' }] }, 'ClusterAccess props.apiKeys[0].secretTargets must be a list; got ".env"'],
  ])('%j', (props, message) => {
    expect(errorsOf(props)).toContain(`[s/Qdrant] ${message}`);
  });

  test.each([
    // The key itself given as the source: the message does not show it.
    [{ name: 'k', source: 'sk-live-123' }, '[s/Qdrant/ApiKeys/k] key "k" props.source must be an ApiKeySource (from ApiKeySource.fromVariable or fromToken); got a string (not shown: it may be an API key)'],
    [{ name: 'k', access: 'read-only' }, '[s/Qdrant/ApiKeys/k] key "k" props.access must be a KeyAccess (from KeyAccess.readOnly, manage or collections); got "read-only"'],
    [{ name: 'k', secretTargets: ['.env'] }, '[s/Qdrant/ApiKeys/k] key "k" secretTarget must be an ISecretTarget (e.g. SecretTarget.dotenv({ path })); got ".env"'],
  ])('a key %j: one error, naming the property', (key, message) => {
    const errors = errorsOf({ apiKeys: [key] }).filter((e) => !e.includes('has no clusters'));
    expect(errors).toEqual([message]);
  });

  test('the key itself given as apiKeys is not shown', () => {
    expect(errorsOf({ apiKeys: 'sk-live-123' })).toEqual(['[s/Qdrant] ClusterAccess props.apiKeys must be a list of ApiKeyOptions objects; got a string (not shown: it may be an API key)']);
  });

  test.each([
    [{ name: 'prod-eu', url: 42 }, '[s/Qdrant/Clusters/prod-eu] cluster "prod-eu" options.url must be a string; got 42'],
    [{ name: 'prod-eu', url: URL_EU, restPort: '6333' }, '[s/Qdrant/Clusters/prod-eu] cluster "prod-eu" options.restPort must be a number; got "6333"'],
    [{ url: URL_EU }, '[s/Qdrant/Clusters/cluster.1] cluster "cluster.1" options has no "name", which ClusterOptions requires'],
  ])('a cluster %j: one error, naming the property', (cluster, message) => {
    const errors = errorsOf({ clusters: [cluster] });
    expect(errors).toContain(message);
    expect(errors.filter((e) => e.startsWith('[s/Qdrant/Clusters/'))).toHaveLength(1);
  });

  test('value objects refuse wrong types at once', () => {
    expect(() => SecretTarget.dotenv({ file: '.env' } as any)).toThrow(
      'SecretTarget.dotenv(options) has unknown property "file"; FileSecretTargetOptions has path; SecretTarget.dotenv(options) has no "path", which FileSecretTargetOptions requires');
    expect(() => SecretTarget.json({ paht: 'x.json' } as any)).toThrow(/has unknown property "paht"; did you mean "path"\?/);
    expect(() => KeyAccess.collections({ read_write: ['orders'] } as any)).toThrow(/has unknown property "read_write"; did you mean "readWrite"\?/);
    expect(() => KeyAccess.collections({ read: ['a/b'] })).toThrow(/"a\/b" is not a collection name/);
  });
});

describe('the schemas match the jsii assembly', () => {
  const assemblyFile = path.join(__dirname, '..', '..', '.jsii');
  const run = fs.existsSync(assemblyFile) ? test : test.skip;
  run('every public struct has a schema with exactly its properties', () => {
    const assembly = JSON.parse(fs.readFileSync(assemblyFile, 'utf8'));
    const structs = Object.values<any>(assembly.types).filter((t) => t.kind === 'interface' && t.datatype);
    const propsOf = (t: any): string[] => [
      ...(t.properties ?? []).map((p: any) => p.name),
      ...(t.interfaces ?? []).flatMap((fqn: string) => propsOf(assembly.types[fqn])),
    ];
    for (const schema of ALL_SCHEMAS) {
      const struct = structs.find((t) => t.name === schema.name);
      expect({ schema: schema.name, found: Boolean(struct) }).toEqual({ schema: schema.name, found: true });
      const fields = [...new Set(propsOf(struct))].sort();
      expect({ schema: schema.name, fields: Object.keys(schema.fields).sort() }).toEqual({ schema: schema.name, fields });
    }
  });
});
