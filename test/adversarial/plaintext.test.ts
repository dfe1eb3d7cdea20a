/**
 * Class 6: no plaintext key reaches the stack by any path: not through a literal, not through
 * something that resolves to one, and not when validation is skipped.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, DataResource, Fn, Lazy, TerraformLocal, TerraformStack, TerraformVariable, Testing } from 'cdktf';
import { ApiKeySource, ClusterAccess, SecretTarget } from '../../src';

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';
const CANARY = 'canary-plaintext-7c1e9b2f40d8';

function access(stack: TerraformStack, source: ApiKeySource) {
  return new ClusterAccess(stack, 'Qdrant', {
    clusters: [{ name: 'prod-eu', url: URL_EU }],
    apiKeys: [{ name: 'ingest', clusters: ['prod-eu'], source, secretTargets: [SecretTarget.terraformOutputs()] }],
  });
}

function synthMessage(stack: TerraformStack): string {
  try {
    return Testing.synth(stack, true);
  } catch (e) {
    return (e as Error).message;
  }
}

describe('fromToken refuses a literal at the call itself', () => {
  test.each([
    ['a literal', () => CANARY],
    ['a literal mixed with a token', (s: TerraformStack) => `${CANARY}${new TerraformVariable(s, 'v', { type: 'string', sensitive: true }).stringValue}`],
  ])('%s', (_, make) => {
    const stack = new TerraformStack(Testing.app(), 't');
    let message = '';
    try {
      ApiKeySource.fromToken(make(stack));
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^ApiKeySource\.fromToken got (a literal string|literal text mixed with a token) \(value not shown\)/);
    expect(message).not.toContain(CANARY);
  });
});

describe('fromToken refuses anything that resolves to text at synth', () => {
  test.each([
    ['Lazy of a string', (_: TerraformStack) => Lazy.stringValue({ produce: () => CANARY })],
    ['Fn.join of literals', (_: TerraformStack) => Fn.join('', ['canary-', 'plaintext-7c1e9b2f40d8'])],
    ['a string that only looks like a reference (cdktf escapes it)', (_: TerraformStack) => Fn.trimspace('${data.vault_kv_secret_v2.qdrant.data}')],
    ['a TerraformLocal holding a literal', (s: TerraformStack) => new TerraformLocal(s, 'k', CANARY).asString],
    ['a local of a local of a literal', (s: TerraformStack) => new TerraformLocal(s, 'outer', new TerraformLocal(s, 'inner', CANARY).asString).asString],
    ['a variable with a default', (s: TerraformStack) => new TerraformVariable(s, 'd', { type: 'string', default: CANARY }).stringValue],
    ['a variable whose default is set by addOverride', (s: TerraformStack) => {
      const v = new TerraformVariable(s, 'd', { type: 'string', sensitive: true });
      v.addOverride('default', CANARY);
      return v.stringValue;
    }],
  ])('%s', (_, make) => {
    const stack = new TerraformStack(Testing.app(), 't');
    access(stack, ApiKeySource.fromToken(make(stack)));
    const message = synthMessage(stack);
    expect(message).toContain('[t/Qdrant/ApiKeys/ingest] key "ingest": key source resolves to ');
    expect(message).toContain('so the key would be plaintext in the stack');
    // The message never shows the resolved text (it is the key).
    expect(message.replace(/Fn\.join|canary-,/g, '')).not.toContain(CANARY);
  });

  test.each([
    ['a sensitive variable', (s: TerraformStack) => new TerraformVariable(s, 'k', { type: 'string', sensitive: true }).stringValue],
    ['a local holding a variable', (s: TerraformStack) => new TerraformLocal(s, 'k', new TerraformVariable(s, 'v', { type: 'string', sensitive: true }).stringValue).asString],
    ['a resource attribute', (s: TerraformStack) => new DataResource(s, 'store', { input: { value: 'x' } }).getStringAttribute('output')],
    ['a function of a resource attribute', (s: TerraformStack) => Fn.trimspace(new DataResource(s, 'store', { input: { value: 'x' } }).getStringAttribute('output'))],
    ['a template inside a string that refers to a variable', (s: TerraformStack) =>
      Fn.join('', [`k-${new TerraformVariable(s, 'v', { type: 'string', sensitive: true }).stringValue}`])],
  ])('%s is accepted', (_, make) => {
    const stack = new TerraformStack(Testing.app(), 't');
    access(stack, ApiKeySource.fromToken(make(stack)));
    expect(synthMessage(stack)).not.toMatch(/plaintext in the stack/);
  });

  test('a token that is not sensitive is marked sensitive wherever the key is used', () => {
    const stack = new TerraformStack(Testing.app(), 't');
    const plain = new TerraformVariable(stack, 'not_sensitive', { type: 'string' });
    access(stack, ApiKeySource.fromToken(plain.stringValue));
    const json = JSON.parse(Testing.synth(stack, true));
    const exec = Object.values<any>(json.resource.null_resource)[0].provisioner[0]['local-exec'];
    expect(exec.environment.QDRANT_API_KEY).toBe('${sensitive(var.not_sensitive)}');
    expect(json.output.QDRANT_API_KEY.value).toContain('sensitive(var.not_sensitive)');
  });
});

describe('fromVariable judges the variable as the stack will hold it (addOverride included)', () => {
  test.each([
    ['a default set by addOverride', (v: TerraformVariable) => v.addOverride('default', CANARY), /has a default value, which would put a plaintext key into the stack/],
    ['sensitive turned off by addOverride', (v: TerraformVariable) => v.addOverride('sensitive', false), /sensitive/],
    ['nullable turned off by addOverride', (v: TerraformVariable) => v.addOverride('nullable', false), /nullable: false/],
  ])('%s is refused', (_, override, expected) => {
    const stack = new TerraformStack(Testing.app(), 't');
    const v = new TerraformVariable(stack, 'k', { type: 'string', sensitive: true });
    override(v);
    access(stack, ApiKeySource.fromVariable(v));
    const message = synthMessage(stack);
    expect(message).toContain('[t/Qdrant/ApiKeys/ingest] key "ingest": key source variable "k"');
    expect(message).toMatch(expected);
    expect(message).not.toContain(CANARY);
  });

  test('an override that sets the default to null is accepted', () => {
    const stack = new TerraformStack(Testing.app(), 't');
    const v = new TerraformVariable(stack, 'k', { type: 'string', sensitive: true, default: CANARY });
    v.addOverride('default', null);
    access(stack, ApiKeySource.fromVariable(v));
    const json = synthMessage(stack);
    expect(json).not.toMatch(/plaintext/);
    expect(json).not.toContain(CANARY);
  });
});

describe('skipValidation does not let a plaintext key into cdk.tf.json', () => {
  test.each([
    ['fromToken(Lazy)', (_: TerraformStack) => ApiKeySource.fromToken(Lazy.stringValue({ produce: () => CANARY }))],
    ['fromVariable with a default', (s: TerraformStack) => ApiKeySource.fromVariable(new TerraformVariable(s, 'd', { type: 'string', sensitive: true, default: CANARY }))],
  ])('%s', (_, make) => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-skip-'));
    try {
      const app = new App({ outdir, skipValidation: true });
      const stack = new TerraformStack(app, 'skipped');
      access(stack, make(stack));
      expect(() => app.synth()).toThrow(/^refusing to synthesize: a Qdrant API key would be written into the stack in plain text \(validation was skipped\)/);
      const written = fs.existsSync(path.join(outdir, 'stacks', 'skipped', 'cdk.tf.json'))
        ? fs.readFileSync(path.join(outdir, 'stacks', 'skipped', 'cdk.tf.json'), 'utf8') : '';
      expect(written).not.toContain(CANARY);
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });
});

describe('a key wrapped in a list or an object (as Python passes plain lists and dicts) is never shown', () => {
  const KEY = 'qdr_canary-wrapped-5d0e2a91c7f3';
  const base = { setupGuide: { enabled: false }, clusters: [{ name: 'prod-eu', url: URL_EU }] };
  const LIST = 'a list of 2 items (not shown: they may hold an API key)';
  const SOURCE = 'must be an ApiKeySource (from ApiKeySource.fromVariable or fromToken); got';

  test.each([
    ['source: { value: key }', { name: 'a', clusters: ['prod-eu'], source: { value: KEY } },
      `[t/Qdrant/ApiKeys/a] key "a" props.source ${SOURCE} an object with key "value" (values not shown: they may hold an API key)`],
    ['source: [key]', { name: 'a', clusters: ['prod-eu'], source: [KEY] },
      `[t/Qdrant/ApiKeys/a] key "a" props.source ${SOURCE} a list of 1 item (not shown: it may hold an API key)`],
    ['an item of apiKeys that is a list', ['a', KEY],
      `[t/Qdrant] ClusterAccess props.apiKeys[0] must be an object (ApiKeyOptions); got ${LIST}`],
    // Any other option of a key given a list or a dict: the key may be inside.
    ['createdOn: [key]', { name: 'a', clusters: ['prod-eu'], createdOn: [KEY] },
      '[t/Qdrant/ApiKeys/a] key "a" props.createdOn must be a string; got a list of 1 item (not shown: it may hold an API key)'],
    ['access: { key }', { name: 'a', clusters: ['prod-eu'], access: { key: KEY } },
      '[t/Qdrant/ApiKeys/a] key "a" props.access must be a KeyAccess (from KeyAccess.readOnly, manage or collections); ' +
        'got an object with key "key" (values not shown: they may hold an API key)'],
    ['secretTargets: { k: key }', { name: 'a', clusters: ['prod-eu'], secretTargets: { k: KEY } },
      '[t/Qdrant] ClusterAccess props.apiKeys[0].secretTargets must be a list; got an object with key "k" (values not shown: they may hold an API key)'],
    // The name given as a list: the props' type error describes it (and names the key by its id).
    ['name: [name, key]', { name: ['a', KEY], clusters: ['prod-eu'] },
      `[t/Qdrant/ApiKeys/key.1] key "key.1" props.name must be a string; got ${LIST}`],
    ['secretNaming: [key]', { name: 'a', clusters: ['prod-eu'], secretNaming: [KEY] },
      '[t/Qdrant] ClusterAccess props.apiKeys[0].secretNaming must be a SecretNaming object; got a list of 1 item (not shown: it may hold an API key)'],
  ])('%s', (_, key, expected) => {
    const stack = new TerraformStack(Testing.app(), 't');
    new ClusterAccess(stack, 'Qdrant', { ...base, apiKeys: [key as any] });
    const message = synthMessage(stack);
    expect(message).not.toContain(KEY);
    expect(message.split('\n').map((l) => l.trim())).toContain(expected);
  });

  test('a name given as a list, with other mistakes: no error shows the key (nor does the stack, validation skipped)', () => {
    const props = { ...base, apiKeys: [{ name: [KEY], clusters: ['nosuch'], createdOn: 'bad', secretTargets: ['nope'] }] };
    const stack = new TerraformStack(Testing.app(), 't');
    new ClusterAccess(stack, 'Qdrant', props as any);
    const message = synthMessage(stack);
    expect(message).not.toContain(KEY);
    expect(message.split('\n').map((l) => l.trim())).toContain(
      '[t/Qdrant/ApiKeys/key.1] key "key.1" props.name must be a string; got a list of 1 item (not shown: it may hold an API key)');
    expect(message).toContain('names unknown cluster "nosuch"');
    const skipped = new TerraformStack(Testing.app({ context: { skipValidation: true } } as any), 't');
    new ClusterAccess(skipped, 'Qdrant', { ...props, apiKeys: [{ name: [KEY], clusters: ['prod-eu'] }] } as any);
    expect(Testing.synth(skipped)).not.toContain(KEY);
  });

  test('addApiKey of a list', () => {
    const stack = new TerraformStack(Testing.app(), 't');
    new ClusterAccess(stack, 'Qdrant', base).addApiKey(['a', KEY] as any);
    const message = synthMessage(stack);
    expect(message).not.toContain(KEY);
    expect(message.split('\n').map((l) => l.trim())).toContain(`[t/Qdrant] addApiKey(options) must be an object (ApiKeyOptions); got ${LIST}`);
  });

  test.each([
    ['a dict', { default: KEY }, 'an object with key "default" (values not shown: they may hold an API key)'],
    ['a list', [KEY], 'a list of 1 item (not shown: it may hold an API key)'],
    ['a dict of a list', { a: 1, b: [KEY] }, 'an object with keys "a", "b" (values not shown: they may hold an API key)'],
    ['a function', () => KEY, 'a function (not shown: it may hold an API key)'],
  ])('ApiKeySource.fromVariable(%s)', (_, bad, shown) => {
    let message = '';
    try {
      ApiKeySource.fromVariable(bad as any);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe(`ApiKeySource.fromVariable needs a TerraformVariable (declared with sensitive: true); got ${shown}`);
    expect(message).not.toContain(KEY);
  });
});
