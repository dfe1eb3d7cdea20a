/**
 * Wrong arguments that used to synthesize garbage, abort synth with an exception, or be reported
 * twice: each is now one validation error with its construct path (or, for value objects without
 * a scope, a clear error at the call).
 */
import { TerraformStack, TerraformVariable } from 'cdktf';
import { ApiKey, ApiKeySource, Cluster, ClusterAccess, KeyAccess, SecretTarget } from '../src';
import { newStack, synthErrors, synthJson, synthMessage } from './support/synth';
import * as checker from '../assets/checker';
import * as names from '../assets/runtime/names';

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';

function accessWithCluster(stack: TerraformStack): ClusterAccess {
  return new ClusterAccess(stack, 'Q', { clusters: [{ name: 'c', url: URL_EU }] });
}

describe('ApiKey.grant() takes only a Cluster', () => {
  test.each([
    ['a cluster name', 'c', '"c"'],
    ['a look-alike object', { clusterName: 'x' }, 'an object with key "clusterName" (values not shown: they may hold an API key)'],
    ['null', null, 'null'],
  ])('%s is a validation error, not garbage in the stack', (_, bad, shown) => {
    const stack = newStack();
    const access = accessWithCluster(stack);
    const key = access.addApiKey({ name: 'k', clusters: ['c'], secretTargets: [SecretTarget.terraformOutputs()] });
    key.grant(bad as any);
    expect(synthErrors(stack)).toEqual([
      `[test/Q/ApiKeys/k] key "k" grant needs a Cluster (from ClusterAccess.addCluster or clusters[]); got ${shown}`,
    ]);
    expect(key.clusters).toHaveLength(1);
  });
});

test('a key whose only grant is refused: that error alone, not also "has no clusters"', () => {
  const stack = newStack();
  accessWithCluster(stack).addApiKey({ name: 'k' }).grant('c' as any);
  expect(synthErrors(stack)).toEqual([
    '[test/Q/ApiKeys/k] key "k" grant needs a Cluster (from ClusterAccess.addCluster or clusters[]); got "c"',
  ]);
});

describe('ClusterAccess.addApiKey() checks its options like the constructor', () => {
  function addErrors(options: unknown): string[] {
    const stack = newStack();
    accessWithCluster(stack).addApiKey(options as any);
    return synthErrors(stack);
  }

  test('secretTargets that is not a list', () => {
    expect(addErrors({ name: 'k', clusters: ['c'], secretTargets: SecretTarget.terraformOutputs() })).toEqual([
      // A key's options: a value of the wrong type is shown by its shape (it may hold the key).
      '[test/Q] addApiKey(options) for key "k" secretTargets must be a list; got an OutputsTarget object with key "description" (values not shown: they may hold an API key)',
    ]);
  });

  test('a snake_case property', () => {
    expect(addErrors({ name: 'k', clusters: ['c'], secret_targets: [SecretTarget.terraformOutputs()] })).toEqual([
      '[test/Q] addApiKey(options) for key "k" has unknown property "secret_targets"; did you mean "secretTargets"? ' +
        '(in Python, pass struct classes or camelCase keys: a dict with snake_case keys is not converted)',
    ]);
  });

  test('clusters given as a string: the type, not "has no clusters"', () => {
    expect(addErrors({ name: 'k', clusters: 'c' })).toEqual([
      '[test/Q] addApiKey(options) for key "k" clusters must be a list of strings; got "c"',
    ]);
  });

  test('options that are not an object', () => {
    expect(addErrors('sk-canary-key-0123456789')).toEqual(['[test/Q] addApiKey(options) must be an object (ApiKeyOptions); got a string (not shown: it may be an API key)']);
  });
});

describe('each problem is reported once', () => {
  function propsErrors(props: unknown): string[] {
    const stack = newStack();
    new ClusterAccess(stack, 'Q', props as any);
    return synthErrors(stack);
  }

  test('secretNaming that is not an object, with two targets', () => {
    expect(propsErrors({
      clusters: [{ name: 'c', url: URL_EU }],
      apiKeys: [{ name: 'k', clusters: ['c'], secretTargets: [SecretTarget.terraformOutputs(), SecretTarget.terraformOutputs()], secretNaming: 'APP_' }],
    })).toEqual(['[test/Q] ClusterAccess props.apiKeys[0].secretNaming must be a SecretNaming object; got "APP_"']);
  });

  test('a key without a name', () => {
    expect(propsErrors({ clusters: [{ name: 'c', url: URL_EU }], apiKeys: [{ clusters: ['c'] }] })).toEqual([
      '[test/Q/ApiKeys/key.1] key "key.1" props has no "name", which ApiKeyOptions requires',
    ]);
  });

  test('clusters given as a string through props', () => {
    expect(propsErrors({ clusters: [{ name: 'c', url: URL_EU }], apiKeys: [{ name: 'k', clusters: 'c' }] })).toEqual([
      '[test/Q] ClusterAccess props.apiKeys[0].clusters must be a list of strings; got "c"',
    ]);
  });

  test('a key that is not an object', () => {
    expect(propsErrors({ clusters: [{ name: 'c', url: URL_EU }], apiKeys: ['k'] })).toEqual([
      '[test/Q] ClusterAccess props.apiKeys[0] must be an object (ApiKeyOptions); got a string (not shown: it may be an API key)',
    ]);
  });

  test('a cluster that is not an object', () => {
    expect(propsErrors({ clusters: ['c'] })).toEqual([
      '[test/Q/Clusters/cluster.1] cluster "cluster.1" options must be an object (ClusterOptions); got "c"',
    ]);
  });

  test('a NaN port, shown as NaN', () => {
    expect(propsErrors({ clusters: [{ name: 'c', url: URL_EU, restPort: NaN }] })).toEqual([
      '[test/Q/Clusters/c] cluster "c" options.restPort must be a number; got NaN',
    ]);
  });

  test('a NaN health-check setting', () => {
    expect(propsErrors({ healthCheck: { timeoutSeconds: NaN } })).toEqual([
      '[test/Q] ClusterAccess props.healthCheck.timeoutSeconds must be a number; got NaN',
    ]);
  });
});

describe('ApiKey and Cluster come from a ClusterAccess only', () => {
  // Their constructors are private: TypeScript cannot call them, JavaScript and Python can.
  const construct = (cls: unknown, ...args: unknown[]) => new (cls as new (...a: unknown[]) => unknown)(...args);

  test('new ApiKey() from JavaScript is refused at once, naming the way to add a key', () => {
    const stack = newStack();
    expect(() => construct(ApiKey, stack, 'K', { name: 'k' })).toThrow(new Error(
      'ApiKey cannot be created with new: nothing would check its grants or write its secret targets; ' +
        'add keys through ClusterAccess (apiKeys: [...] or addApiKey())'));
    // Nothing is left in the tree.
    expect(stack.node.tryFindChild('K')).toBeUndefined();
  });

  test('new Cluster() from JavaScript is refused at once, naming the way to add a cluster', () => {
    const stack = newStack();
    expect(() => construct(Cluster, stack, 'C', { name: 'c', url: URL_EU }))
      .toThrow(new Error('Cluster cannot be created with new; add clusters through ClusterAccess (clusters: [...] or addCluster())'));
    expect(stack.node.tryFindChild('C')).toBeUndefined();
  });

  test('a JavaScript subclass is refused the same way', () => {
    const Sub = class extends (ApiKey as unknown as new (...a: unknown[]) => object) {};
    expect(() => new Sub(newStack(), 'K', { name: 'k' })).toThrow(/^ApiKey cannot be created with new/);
  });
});

describe('no exception aborts synth', () => {
  test('placeholder ids do not collide with valid names', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Q', {
      clusters: [{ name: 'a', url: URL_EU }, { name: 'a', url: URL_EU }, { name: 'cluster-1', url: URL_EU }],
      apiKeys: [{ name: 'k', clusters: ['a'] }, { name: 'k', clusters: ['a'] }, { name: 'key-1', clusters: ['a'] }],
    });
    expect(synthErrors(stack)).toEqual([
      '[test/Q] duplicate cluster name "a": each cluster needs a unique name within one ClusterAccess; rename or remove one',
      '[test/Q] duplicate key name "k": each key needs a unique name within one ClusterAccess; rename or remove one',
    ]);
  });

  test('an output entry named like the gate of the outputs target', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Q', {
      clusters: [{ name: 'c', url: URL_EU }],
      apiKeys: [{ name: 'k', clusters: ['c'], secretTargets: [SecretTarget.terraformOutputs()], secretNaming: { names: { QDRANT_URL: 'Verified' } } }],
    });
    expect(synthJson(stack).output.Verified).toMatchObject({ sensitive: true });
  });

  test('an empty output name is a validation error', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Q', {
      clusters: [{ name: 'c', url: URL_EU }],
      apiKeys: [{ name: 'k', clusters: ['c'], secretTargets: [SecretTarget.terraformOutputs()], secretNaming: { names: { QDRANT_URL: '' } } }],
    });
    expect(synthErrors(stack)).toEqual([
      expect.stringMatching(/^\[test\/Q\] secret target Terraform outputs: key "k" renames "QDRANT_URL" to "", which is not a variable name/),
    ]);
  });

  test.each([['a string (perhaps the key itself)', 'sk-canary-key-0123456789', 'a string (not shown: it may be an API key)'], ['an object', {}, '{}'], ['null', null, 'null']])(
    'ApiKeySource.fromVariable(%s) refuses at the call', (_, bad, shown) => {
      expect(() => ApiKeySource.fromVariable(bad as any)).toThrow(
        `ApiKeySource.fromVariable needs a TerraformVariable (declared with sensitive: true); got ${shown}`);
    });
});

describe('number tokens where literals are needed', () => {
  test('ports and health-check settings given as tokens', () => {
    const stack = newStack();
    const n = new TerraformVariable(stack, 'n', { type: 'number' });
    new ClusterAccess(stack, 'Q', {
      clusters: [{ name: 'c', url: URL_EU, restPort: n.numberValue, grpcPort: n.numberValue }],
      apiKeys: [{ name: 'k', clusters: ['c'] }],
      healthCheck: { timeoutSeconds: n.numberValue, retries: n.numberValue, minValidityDays: n.numberValue },
    });
    const errors = synthErrors(stack);
    expect(errors).toEqual([
      '[test/Q] healthCheck.timeoutSeconds is a token; give a number known at synth, e.g. 10',
      '[test/Q] healthCheck.retries is a token; give a number known at synth, e.g. 3',
      '[test/Q] healthCheck.minValidityDays is a token; give a number known at synth, e.g. 14',
      '[test/Q/Clusters/c] cluster "c" restPort is a token; give a port known at synth, such as 6333',
      '[test/Q/Clusters/c] cluster "c" grpcPort is a token; give a port known at synth, such as 6334',
    ]);
    expect(errors.join('\n')).not.toMatch(/e\+/);
  });

  test("a key's rotation settings given as tokens (the due date would silently not be computed)", () => {
    const stack = newStack();
    const n = new TerraformVariable(stack, 'n', { type: 'number' });
    const d = new TerraformVariable(stack, 'd', { type: 'string' });
    new ClusterAccess(stack, 'Q', {
      clusters: [{ name: 'c', url: URL_EU }],
      apiKeys: [{ name: 'k', clusters: ['c'], createdOn: d.stringValue, rotateAfterDays: n.numberValue }],
    });
    expect(synthErrors(stack)).toEqual([
      '[test/Q/ApiKeys/k] key "k" createdOn is a token; the due date is computed at synth (setup guide, warnings), so give the date as text, e.g. "2026-01-31"',
      '[test/Q/ApiKeys/k] key "k" rotateAfterDays is a token; the due date is computed at synth (setup guide, warnings), so give a number of days, e.g. 90',
    ]);
  });
});

describe('collection names with surrounding whitespace', () => {
  test.each([' orders ', '  ', 'orders\u00a0'])('%j is refused', (name) => {
    expect(() => KeyAccess.collections({ read: [name] })).toThrow(/is not a collection name .*no leading or trailing whitespace/);
  });
});

describe('collection names: one rule for the constructs and the checker (runtime/names.js)', () => {
  // A name that would show as something else: C1 controls, bidi controls, line separators, and
  // characters shown as nothing (zero-width ones, the soft hyphen, the word joiner, a BOM).
  const hidden = ['a\u0085b', 'a\u009bb', 'abc\u202eevil', 'a\u2066b', 'a\u200fb', 'a\u2028b', 'a\u2029b', 'a\u007fb',
    'prod\u200bucts', 'a\u200cb', 'a\u200db', 'a\u00adb', 'a\u2060b', '\ufeffproducts', 'a\ufeffb', 'a\u180eb', 'a\u061cb'];
  test.each(hidden)('%j is refused by KeyAccess.collections and by the checker', (name) => {
    expect(() => KeyAccess.collections({ read: [name] })).toThrow(/is not a collection name \(1-255 characters, none of/);
    return expect(checker.checkClusterAccess({ url: 'https://127.0.0.1:1', apiKey: 'k', access: 'collections', readCollections: [name] }))
      .rejects.toThrow(/is not a collection name \(1-255 characters, none of/);
  });
  test.each(['products', 'a b', 'ü', '日本', 'a.b-c_d', 'x'.repeat(255)])('%j is accepted by both', (name) => {
    expect(KeyAccess.collections({ read: [name] }).readCollections).toEqual([name]);
    expect(names.isCollectionName(name)).toBe(true);
  });
});

describe('a token URL with a bracketed IPv6 host', () => {
  test('the gRPC endpoint keeps the whole host', () => {
    const stack = newStack();
    const url = new TerraformVariable(stack, 'url', { type: 'string' });
    new ClusterAccess(stack, 'Q', { clusters: [{ name: 'c', url: url.stringValue }] });
    expect(synthMessage(stack)).toBe('');
    const grpc: string = synthJson(stack).output.qdrant_c_grpc_endpoint.value;
    // No backslash: cdktf writes it into an HCL string as it is, where "\[" is an invalid escape.
    expect(grpc).not.toContain('\\');
    // The pattern Terraform applies; RE2 and JavaScript agree on this one.
    const pattern = JSON.parse(/regex\(("(?:[^"\\]|\\.)*")/.exec(grpc)![1]);
    expect(new RegExp(pattern).exec('https://[fd00::1]:6333')?.[0]).toBe('https://[fd00::1]');
    expect(new RegExp(pattern).exec('https://abc.example.com:6333')?.[0]).toBe('https://abc.example.com');
  });
});

describe('a key put into a cluster address', () => {
  test('in its path, fragment or port, or after a space: synth reports each address without the key', () => {
    const key = 'canary-synth-url-Zq8vR2mX9pL4tW7yB3nK';
    const stack = newStack();
    const urls = [`https://127.0.0.1:6333/${key}`, `https://h.example#${key}`, `https://h.example:${key}`, `https://h.example ${key}`];
    new ClusterAccess(stack, 'Qdrant', { clusters: urls.map((url, i) => ({ name: `c${i}`, url })) });
    const lines = synthErrors(stack);
    expect(lines.map((l) => l.split(';')[0])).toEqual([
      '[test/Qdrant/Clusters/c0] cluster "c0" url "https://127.0.0.1:6333/***" has a path "/***"',
      '[test/Qdrant/Clusters/c1] cluster "c1" url "https://h.example#***" has a fragment ("#...")',
      '[test/Qdrant/Clusters/c2] cluster "c2" url "https://h.example:***" has port (not shown: it may be a key)',
      '[test/Qdrant/Clusters/c3] cluster "c3" url "https://h.example ***" holds whitespace or a control character',
    ]);
    expect(lines.join('\n')).not.toContain(key.slice(0, 12));
  });
});
