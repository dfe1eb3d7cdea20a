/**
 * Arguments checked by value (they may come from JavaScript or Python): each mistake is one clear
 * validation error (or, for value objects, one clear error at the call), and a message never shows
 * text that may be an API key pasted in the wrong place.
 */
import { TerraformStack, TerraformVariable, Token } from 'cdktf';
import { ApiKeySource, ClusterAccess, KeyAccess, SecretTarget, SetupGuide } from '../src';
import { newStack, synthErrors, synthJson } from './support/synth';

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';
const URL_US = 'https://def-456.us-east-1-0.aws.cloud.qdrant.io';
/** Key-shaped text: a JWT (as keys with granular access are) and a long random one. */
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJhY2Nlc3MiOiJyIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
const PLAIN_KEY = 'Xk3pQ9vL2mN8rT4wY7zA1bC6dE0fG5hJ';

/** No message holds any part of a key (16 characters of either is enough to tell). */
function expectNoKey(lines: string[]): void {
  for (const key of [JWT, PLAIN_KEY]) {
    for (let i = 0; i + 16 <= key.length; i += 8) expect(lines.join('\n')).not.toContain(key.slice(i, i + 16));
  }
}

function access(stack: TerraformStack, key: Record<string, unknown> = {}, cluster: Record<string, unknown> = {}): ClusterAccess {
  return new ClusterAccess(stack, 'Q', {
    clusters: [{ name: 'c', url: URL_EU, ...cluster } as any],
    apiKeys: [{ name: 'k', clusters: ['c'], ...key } as any],
  });
}

describe('a key pasted into secretNaming is not shown', () => {
  test.each([
    ['a JWT as prefix', { prefix: JWT }],
    ['a long key as prefix', { prefix: `${PLAIN_KEY}-` }],
  ])('%s', (_, naming) => {
    const stack = newStack();
    access(stack, { secretTargets: [SecretTarget.terraformOutputs()], secretNaming: naming });
    const errors = synthErrors(stack);
    expect(errors).toEqual([expect.stringMatching(/key "k" has prefix \(not shown: it may be an API key\), which is not a variable name/)]);
    expectNoKey(errors);
  });

  test('a JWT as a new name', () => {
    const stack = newStack();
    access(stack, { secretTargets: [SecretTarget.terraformOutputs()], secretNaming: { names: { QDRANT_API_KEY: JWT } } });
    const errors = synthErrors(stack);
    expect(errors).toEqual([expect.stringContaining('key "k" renames "QDRANT_API_KEY" to (not shown: it may be an API key), which is not a variable name')]);
    expectNoKey(errors);
  });

  test('a JWT as a default name to rename', () => {
    const stack = newStack();
    access(stack, { secretTargets: [SecretTarget.terraformOutputs()], secretNaming: { names: { [JWT]: 'APP_KEY' } } });
    const errors = synthErrors(stack);
    expect(errors).toEqual([expect.stringContaining('key "k" renames (not shown: it may be an API key), which is not one of its entries')]);
    expectNoKey(errors);
  });

  test('a short value that cannot be a key is still shown', () => {
    const stack = newStack();
    access(stack, { secretTargets: [SecretTarget.terraformOutputs()], secretNaming: { prefix: 'APP-' } });
    expect(synthErrors(stack)).toEqual([expect.stringContaining('key "k" has prefix "APP-", which is not a variable name')]);
  });
});

test('secretNaming without secretTargets is refused: a target added later would not get it', () => {
  const stack = newStack();
  const q = access(stack, { secretNaming: { prefix: 'APP_' } });
  q.apiKeys[0].addSecretTarget(SecretTarget.terraformOutputs());
  expect(synthErrors(stack)).toEqual([
    '[test/Q] ClusterAccess props.apiKeys[0]: secretNaming applies only to the targets of the same options\' secretTargets, and there are none; ' +
    'add the targets there, or give the naming to addSecretTarget(target, naming)',
  ]);
  // An empty list of targets too; a naming or a list of the wrong type is reported as such, once.
  const empty = newStack();
  access(empty, { secretTargets: [], secretNaming: { prefix: 'APP_' } });
  expect(synthErrors(empty)).toEqual([expect.stringContaining('secretNaming applies only to the targets')]);
  const single = newStack();
  access(single, { secretTargets: SecretTarget.terraformOutputs(), secretNaming: { prefix: 'APP_' } });
  expect(synthErrors(single)).toEqual([expect.stringContaining('secretTargets must be a list')]);
  const none = newStack();
  access(none, { secretNaming: null });
  expect(synthErrors(none)).toEqual([expect.stringContaining('secretNaming must be')]);
});

describe('other places where a key may be pasted', () => {
  test('a cluster url without a scheme that is a key', () => {
    const stack = newStack();
    access(stack, {}, { url: JWT });
    const errors = synthErrors(stack);
    expect(errors).toEqual([expect.stringContaining('cluster "c" url (not shown: it may be an API key) has no scheme')]);
    expectNoKey(errors);
  });

  test('a cluster url without a scheme that is a host is shown', () => {
    const stack = newStack();
    access(stack, {}, { url: 'abc-123.eu-central-1-0.aws.cloud.qdrant.io' });
    expect(synthErrors(stack)).toEqual([expect.stringContaining('cluster "c" url "abc-123.eu-central-1-0.aws.cloud.qdrant.io" has no scheme')]);
  });

  test('a key name that is a key', () => {
    const stack = newStack();
    access(stack, { name: JWT, clusters: ['c'] });
    const errors = synthErrors(stack);
    expect(errors).toContainEqual(expect.stringContaining('key name (name not shown: it may be an API key) is invalid'));
    expectNoKey(errors);
  });

  test('a cluster name that is a key, and a key granted to it by that name', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Q', { clusters: [{ name: JWT, url: URL_EU }], apiKeys: [{ name: 'k', clusters: [JWT] }] });
    const errors = synthErrors(stack);
    expect(errors).toContainEqual(expect.stringContaining('cluster name (name not shown: it may be an API key) is invalid'));
    expectNoKey(errors);
  });

  test('createdOn that is a key', () => {
    const stack = newStack();
    access(stack, { createdOn: JWT });
    const errors = synthErrors(stack);
    expect(errors).toEqual([expect.stringContaining('key "k" createdOn (not shown: it may be an API key) is not a date')]);
    expectNoKey(errors);
  });

  test('grant() of a key instead of a cluster; a cluster name is still shown', () => {
    const stack = newStack();
    const key = access(stack).apiKeys[0];
    key.grant(JWT as any);
    key.grant('c' as any);
    const errors = synthErrors(stack);
    expect(errors).toEqual([
      expect.stringContaining('grant needs a Cluster (from ClusterAccess.addCluster or clusters[]); got (not shown: it may be an API key)'),
      expect.stringContaining('grant needs a Cluster (from ClusterAccess.addCluster or clusters[]); got "c"'),
    ]);
    expectNoKey(errors);
  });
});

describe('found by a second review: more places where a key was shown, and ordinary values that were hidden', () => {
  test.each<[string, (stack: TerraformStack) => void]>([
    ['grant() of a list holding a key', (stack) => access(stack).apiKeys[0].grant([JWT] as any)],
    ['grant() of a dict holding a key', (stack) => access(stack).apiKeys[0].grant({ name: 'c', api_key: JWT } as any)],
    ['a cluster name given as a dict', (stack) => access(stack, {}, { name: { k: JWT } })],
    ['a cluster url given as a list', (stack) => access(stack, {}, { url: [JWT] })],
    ['a cluster restPort given a key', (stack) => access(stack, {}, { restPort: JWT })],
    ['secretTargets holding a key', (stack) => access(stack, { secretTargets: [JWT] })],
    ['secretNaming.names mapping to a list', (stack) => access(stack, { secretTargets: [SecretTarget.terraformOutputs()], secretNaming: { names: { QDRANT_URL: [JWT] } } })],
    ['a url that is a pasted header line', (stack) => access(stack, {}, { url: `api-key:${PLAIN_KEY}` })],
    ['a url that is a pasted header line, with a space', (stack) => access(stack, {}, { url: `api-key: ${JWT}` })],
  ])('%s: an error that does not show it', (_, build) => {
    const stack = newStack();
    build(stack);
    const errors = synthErrors(stack);
    expect(errors.length).toBeGreaterThan(0);
    expectNoKey(errors);
  });

  test('a short url without a scheme but with a password: the password is not shown', () => {
    const stack = newStack();
    access(stack, {}, { url: 'u:pw@h.io' });
    const errors = synthErrors(stack);
    expect(errors).toEqual([expect.stringContaining('cluster "c" url (not shown: it may be an API key) has')]);
    expect(errors.join('\n')).not.toContain('pw');
  });

  test.each([
    ['an ISO date and time', '2026-01-31T00:00:00.000Z'],
    ['a date in words', 'January 31st, 2026 at noon'],
  ])('createdOn as %s is shown', (_, value) => {
    const stack = newStack();
    access(stack, { createdOn: value });
    expect(synthErrors(stack)).toEqual([expect.stringContaining(`key "k" createdOn ${JSON.stringify(value)} is not a date`)]);
  });

  test.each([
    ['with a path', 'abc-123.eu-central-1-0.aws.cloud.qdrant.io/dashboard'],
    ['with an underscore', 'my_qdrant.internal.example.com'],
  ])('a url without a scheme %s is shown', (_, url) => {
    const stack = newStack();
    access(stack, {}, { url });
    expect(synthErrors(stack)).toEqual([expect.stringContaining(`cluster "c" url "${url}" has no scheme`)]);
  });

  test('healthCheck.caFile as a token says so', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Q', {
      clusters: [{ name: 'c', url: URL_EU }],
      apiKeys: [{ name: 'k', clusters: ['c'] }],
      healthCheck: { caFile: new TerraformVariable(stack, 'ca', {}).stringValue },
    });
    expect(synthErrors(stack)).toEqual([expect.stringContaining('healthCheck.caFile is a token; give the path of the PEM file known at synth')]);
  });
});

describe('healthCheck.caFile of the wrong type', () => {
  test.each([
    ['a number', 5, 'got 5'],
    ['a list', ['ca.pem'], 'got a list of 1 item (not shown: it may hold an API key)'],
  ])('%s is one validation error, not a crash of the constructor', (_, caFile, got) => {
    const stack = newStack();
    expect(() => new ClusterAccess(stack, 'Q', { healthCheck: { caFile: caFile as any } })).not.toThrow();
    expect(synthErrors(stack)).toEqual([`[test/Q] ClusterAccess props.healthCheck.caFile must be a string; ${got}`]);
  });
});

describe('KeyAccess and ApiKeySource come from their factories only', () => {
  // As JavaScript or Python make one: new, or a subclass (the constructors are private in TypeScript).
  class MyAccess extends (KeyAccess as unknown as new () => object) {
    public readonly description = 'mine';
    public readonly readCollections: string[] = [];
    public readonly readWriteCollections: string[] = [];
  }
  class MySource extends (ApiKeySource as unknown as new () => object) {}
  const ACCESS = 'KeyAccess cannot be created with new or subclassed; use KeyAccess.readOnly(), KeyAccess.manage() or KeyAccess.collections({ read, readWrite })';
  const SOURCE = 'ApiKeySource cannot be created with new or subclassed; use ApiKeySource.fromVariable(variable) or ApiKeySource.fromToken(reference)';

  test('a KeyAccess subclass, or new KeyAccess(), is refused at once', () => {
    expect(() => new MyAccess()).toThrow(new Error(ACCESS));
    expect(() => new (KeyAccess as unknown as new (...a: unknown[]) => object)('manage', 'manage', [], [])).toThrow(new Error(ACCESS));
  });

  test('an ApiKeySource subclass, or new ApiKeySource(), is refused at once', () => {
    expect(() => new MySource()).toThrow(new Error(SOURCE));
    expect(() => new (ApiKeySource as unknown as new (...a: unknown[]) => object)({ token: 'sk-canary' })).toThrow(new Error(SOURCE));
  });

  test('what is not one of their values is refused by value where it is passed', () => {
    const stack = newStack();
    access(stack, { access: { description: 'mine', readCollections: [], readWriteCollections: [] } as any, source: { _config: 1 } as any });
    expect(synthErrors(stack)).toEqual([
      '[test/Q/ApiKeys/k] key "k" props.source must be an ApiKeySource (from ApiKeySource.fromVariable or fromToken); ' +
        'got an object with key "_config" (values not shown: they may hold an API key)',
      '[test/Q/ApiKeys/k] key "k" props.access must be a KeyAccess (from KeyAccess.readOnly, manage or collections); ' +
        'got an object with keys "description", "readCollections", "readWriteCollections" (values not shown: they may hold an API key)',
    ]);
  });

  test('an object made from their prototype, without the constructor, is refused the same way', () => {
    // It has the methods, and none of a value's state.
    const stack = newStack();
    access(stack, { access: Object.create(KeyAccess.prototype), source: Object.create(ApiKeySource.prototype) });
    expect(synthErrors(stack)).toEqual([
      '[test/Q/ApiKeys/k] key "k" props.source must be an ApiKeySource (from ApiKeySource.fromVariable or fromToken); got an ApiKeySource object',
      '[test/Q/ApiKeys/k] key "k" props.access must be a KeyAccess (from KeyAccess.readOnly, manage or collections); got a KeyAccess object',
    ]);
  });
});

test('grant() of a cluster that is not one of its ClusterAccess', () => {
  const stack = newStack();
  const qa = access(stack);
  const other = new ClusterAccess(stack, 'Elsewhere', { clusters: [{ name: 'other', url: URL_US }] }).clusters[0];
  qa.apiKeys[0].grant(other);
  expect(synthErrors(stack)).toEqual([
    '[test/Q/ApiKeys/k] key "k" is granted to cluster "other" at test/Elsewhere/Clusters/other, which is not a cluster of its ClusterAccess at test/Q ' +
      '(its check and outputs would cover it, its setup guide would not); add the cluster to that ClusterAccess ' +
      '(clusters: [...] or addCluster()) and grant the Cluster it returns',
  ]);
});

test('a key source variable of another stack', () => {
  const stack = newStack();
  const other = new TerraformStack(stack.node.scope!, 'other');
  const v = new TerraformVariable(other, 'shared_key', { type: 'string', sensitive: true });
  access(stack, { source: ApiKeySource.fromVariable(v) });
  expect(synthErrors(stack)).toEqual([
    '[test/Q/ApiKeys/k] key "k": key source variable "shared_key" is declared in stack "other", not in the key\'s stack "test": ' +
      'cdktf would hand the key over through an output, which keeps it in the state of stack "other"; declare the variable in stack "test"',
  ]);
});

describe('SetupGuide.render() checks its argument', () => {
  test.each([
    ['null', null, 'null'],
    ['a dict', {}, '{}'],
    ['a construct of another kind', 'construct', '(TerraformStack at test)'],
  ])('%s', (_, value, shown) => {
    const arg = value === 'construct' ? newStack() : value;
    expect(() => SetupGuide.render(arg as any)).toThrow(new Error(`SetupGuide.render needs a ClusterAccess; got ${shown}`));
  });
});

describe('ApiKeySource.fromToken of something that is not a string', () => {
  test.each([
    ['null', () => null, 'null'],
    ['a number', () => 5, 'a number'],
    ['a number token', () => Token.asNumber(Token.asString({ a: 1 })), 'a number token'],
    ['a list token', () => Token.asList(Token.asString({ a: 1 })), 'a list token'],
  ])('%s', (_, value, what) => {
    expect(() => ApiKeySource.fromToken(value() as any)).toThrow(new Error(
      'ApiKeySource.fromToken needs a string token, a reference to another resource (e.g. secret.value, or Token.asString(reference)); ' +
        `got ${what}`));
  });
});

describe('one mistake, one line', () => {
  test.each([
    ['rotateAfterDays NaN', { rotateAfterDays: NaN }, 'key "k" props.rotateAfterDays must be a number; got NaN'],
    ['createdOn a Date', { createdOn: new Date(0) }, 'key "k" props.createdOn must be a string; got a Date object'],
  ])('%s', (_, key, line) => {
    const stack = newStack();
    access(stack, key);
    expect(synthErrors(stack)).toEqual([`[test/Q/ApiKeys/k] ${line}`]);
  });

  test.each([
    ['a number', 5, 'got 5'],
    ['a dict', { a: 1 }, 'got an object with key "a" (values not shown: they may hold an API key)'],
  ])('a cluster name that is %s', (_, name, got) => {
    const stack = newStack();
    new ClusterAccess(stack, 'Q', { clusters: [{ name: name as any, url: URL_EU }] });
    expect(synthErrors(stack)).toEqual([`[test/Q/Clusters/cluster.1] cluster "cluster.1" options.name must be a string; ${got}`]);
  });

  test('KeyAccess.collections with a token says tokens are not allowed', () => {
    expect(() => KeyAccess.collections({ read: [Token.asString({ a: 1 })] })).toThrow(new Error(
      'KeyAccess.collections read: a token is not allowed as a collection name (the health check and the setup guide need the names at synth); give the name as text'));
  });

  test('KeyAccess.collections: every name repeated is named, once; what is not a name is only said to be that', () => {
    expect(() => KeyAccess.collections({ read: ['a', 'b', 'a', 'b', 'c'] })).toThrow(new Error([
      'KeyAccess.collections read lists "a" twice; list each collection once',
      'KeyAccess.collections read lists "b" twice; list each collection once',
    ].join('; ')));
    let message = '';
    try {
      KeyAccess.collections({ read: [5, 5] as any });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).not.toContain('twice');
    expect(message).toContain('is not a collection name');
  });

  test('KeyAccess.collections: a JWT pasted as a name is refused (it would reach the stack), and a long rejected name is not shown', () => {
    const messages: string[] = [];
    for (const name of [JWT, `${PLAIN_KEY}/x`]) {
      try {
        KeyAccess.collections({ read: [name] });
        messages.push('no error');
      } catch (e) {
        messages.push((e as Error).message);
      }
    }
    expect(messages).toEqual([0, 1].map(() => expect.stringMatching(/^KeyAccess\.collections read: \(not shown: it may be an API key\) is not a collection name \(.*not a JWT/)));
    expectNoKey(messages);
    // A short one is shown, as before.
    expect(() => KeyAccess.collections({ read: ['a/b'] })).toThrow(/^KeyAccess\.collections read: "a\/b" is not a collection name/);
  });

  test('KeyAccess.collections with a name listed twice: each repeat once, and "in both" once', () => {
    expect(() => KeyAccess.collections({ read: ['a', 'a', 'b', 'a'], readWrite: ['b', 'b', 'a'] })).toThrow(new Error([
      'KeyAccess.collections read lists "a" twice; list each collection once',
      'KeyAccess.collections readWrite lists "b" twice; list each collection once',
      'KeyAccess.collections lists "a" in both read and readWrite; list it once (readWrite includes read)',
      'KeyAccess.collections lists "b" in both read and readWrite; list it once (readWrite includes read)',
    ].join('; ')));
  });
});

test('setupGuide disabled with an outputPath: a warning that nothing is written', () => {
  const stack = newStack();
  const qa = new ClusterAccess(stack, 'Q', { setupGuide: { enabled: false, outputPath: 'docs/qdrant-setup.md' } });
  synthJson(stack);
  expect(qa.node.metadata.filter((m) => m.type === '@cdktf/warn').map((m) => String(m.data))).toEqual([
    'setupGuide.outputPath "docs/qdrant-setup.md" is ignored: setupGuide.enabled is false, so no guide is written there or anywhere else; ' +
      'remove outputPath, or remove enabled: false',
  ]);
});
