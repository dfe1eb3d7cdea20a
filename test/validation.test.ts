import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TerraformVariable } from 'cdktf';
import { ApiKeySource, ClusterAccess, ClusterAccessProps } from '../src';
import { newStack, validationErrors } from './support/synth';

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';

/** The validation errors of a stack holding one ClusterAccess with these props. */
function errorsFor(props: ClusterAccessProps): string[] {
  const stack = newStack();
  new ClusterAccess(stack, 'Qdrant', props);
  return validationErrors(stack);
}

function clusterErrors(url: string, extra: { restPort?: number; grpcPort?: number } = {}): string[] {
  return errorsFor({
    clusters: [{ name: 'prod-eu', url, ...extra }],
    apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }],
  });
}

describe('validation', () => {
  test('a valid model has no errors', () => {
    expect(clusterErrors(URL_EU)).toEqual([]);
  });

  test.each([
    ['', 'cluster name "" is invalid'],
    ['1st', 'cluster name "1st" is invalid'],
    ['prod eu', 'cluster name "prod eu" is invalid'],
    ['prod.eu', 'cluster name "prod.eu" is invalid'],
  ])('invalid cluster name %j', (name, message) => {
    const errors = errorsFor({ clusters: [{ name, url: URL_EU }] });
    expect(errors).toEqual([
      expect.stringMatching(new RegExp(`^\\[test/Qdrant/Clusters/cluster\\.1\\] ${escape(message)}: names start with a letter.*use a name like "prod-eu"$`)),
    ]);
  });

  test('an invalid key name', () => {
    const errors = errorsFor({
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'search api', clusters: ['prod-eu'] }],
    });
    expect(errors).toEqual([
      expect.stringMatching(/^\[test\/Qdrant\/ApiKeys\/key\.1\] key name "search api" is invalid: .*use a name like "search-api"$/),
    ]);
  });

  test('names that differ only in case or -/_ collide', () => {
    const errors = errorsFor({
      clusters: [{ name: 'prod-eu', url: URL_EU }, { name: 'Prod_EU', url: URL_EU }],
    });
    expect(errors).toEqual([
      '[test/Qdrant] cluster names "prod-eu" and "Prod_EU" collide: names that differ only in case or "-"/"_" ' +
        'give the same Terraform and environment-variable names; rename one of them',
    ]);
  });

  test('duplicate cluster and key names', () => {
    const errors = errorsFor({
      clusters: [{ name: 'prod-eu', url: URL_EU }, { name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'k', clusters: ['prod-eu'] }, { name: 'k', clusters: ['prod-eu'] }],
    });
    expect(errors).toEqual([
      '[test/Qdrant] duplicate cluster name "prod-eu": each cluster needs a unique name within one ClusterAccess; rename or remove one',
      '[test/Qdrant] duplicate key name "k": each key needs a unique name within one ClusterAccess; rename or remove one',
    ]);
  });

  test.each([
    ['not a url', 'holds whitespace or a control character; expected https://<host> or https://<host>:<port>'],
    ['ftp://abc.example.com', 'has scheme "ftp"; expected https://<host> or https://<host>:<port>'],
    ['http://abc.example.com', 'uses http:// to a host that is not loopback, so the API key would travel in clear; use https://'],
    ['https://abc.example.com/collections', 'has a path "/collections"; give only the cluster address, e.g. "https://abc.example.com"'],
    ['https://abc.example.com#top', 'has a fragment ("#..."); remove it'],
    ['https://abc.example.com:0', 'has port "0"; a port is a number in 1-65535 without leading zeros'],
    ['https:abc.example.com:7443', 'is not written as https://<host>[:<port>] (the "//" after the scheme is missing or doubled)'],
    ['https://abc.example.com\\x', 'holds a backslash; expected https://<host> or https://<host>:<port>'],
    ['https://x${uuid()}.example.com', 'holds "${" or "%{", which Terraform would evaluate as an expression; give the address itself, or a token with no text around it'],
  ])('bad url %j', (url, problem) => {
    expect(clusterErrors(url)).toEqual([`[test/Qdrant/Clusters/prod-eu] cluster "prod-eu" url ${JSON.stringify(url)} ${problem}`]);
  });

  test('a query in a URL is refused and not echoed back (it may hold a key)', () => {
    expect(clusterErrors('https://abc.example.com?api-key=CANARY-q')).toEqual([
      '[test/Qdrant/Clusters/prod-eu] cluster "prod-eu" url "https://abc.example.com?***" has a query (not shown: it may hold a key); remove it, the API key is passed separately',
    ]);
  });

  test('credentials in a URL are refused and not echoed back', () => {
    expect(clusterErrors('https://user:s3cret-pass@abc.example.com')).toEqual([
      '[test/Qdrant/Clusters/prod-eu] cluster "prod-eu" url "https://***@abc.example.com" holds credentials (user:pass@); remove them, the API key is passed separately',
    ]);
  });

  test.each(['http://127.0.0.1:6333', 'http://localhost:6333', 'http://[::1]:6333'])('http:// to loopback %j is allowed', (url) => {
    expect(clusterErrors(url)).toEqual([]);
  });

  test('ports outside 1-65535', () => {
    expect(clusterErrors(URL_EU, { restPort: 70000, grpcPort: 0 })).toEqual([
      '[test/Qdrant/Clusters/prod-eu] cluster "prod-eu" restPort 70000 is not a port in 1-65535; use a TCP port such as 6333',
      '[test/Qdrant/Clusters/prod-eu] cluster "prod-eu" grpcPort 0 is not a port in 1-65535; use a TCP port such as 6334',
    ]);
  });

  test('equal REST and gRPC ports', () => {
    expect(clusterErrors(URL_EU, { restPort: 6334 })).toEqual([
      '[test/Qdrant/Clusters/prod-eu] cluster "prod-eu" REST and gRPC ports are both 6334; they must differ (Qdrant Cloud uses 6333 for REST and 6334 for gRPC)',
    ]);
  });

  test('a key with no clusters', () => {
    expect(errorsFor({ clusters: [{ name: 'prod-eu', url: URL_EU }], apiKeys: [{ name: 'search-api' }] })).toEqual([
      '[test/Qdrant/ApiKeys/search-api] key "search-api" has no clusters; pass clusters: ["<cluster name>"] or call grant(cluster)',
    ]);
  });

  test('a key naming an unknown cluster', () => {
    expect(errorsFor({
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-useast'] }],
    })).toEqual([
      '[test/Qdrant/ApiKeys/search-api] key "search-api" names unknown cluster "prod-useast" (known clusters: "prod-eu"); fix the name, or add the cluster before the key',
    ]);
  });

  test('a key naming an unknown cluster, with a cluster name given twice: each known name is listed once', () => {
    const errors = errorsFor({
      clusters: [{ name: 'prod-eu', url: URL_EU }, { name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-useast'] }],
    });
    expect(errors).toContain('[test/Qdrant/ApiKeys/search-api] key "search-api" names unknown cluster "prod-useast" (known clusters: "prod-eu"); fix the name, or add the cluster before the key');
  });

  test('a cluster granted twice to the same key: one error, however often', () => {
    const stack = newStack();
    const access = new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu', 'prod-eu'] }],
    });
    access.apiKeys[0].grant(access.clusters[0]);
    expect(validationErrors(stack)).toEqual([
      '[test/Qdrant/ApiKeys/search-api] key "search-api" is granted to cluster "prod-eu" twice; list each cluster once',
    ]);
    expect(access.grants).toHaveLength(1);
  });

  test('a key source variable that is not sensitive, or that has a default', () => {
    const stack = newStack();
    const open = new TerraformVariable(stack, 'open_key', { type: 'string' });
    const withDefault = new TerraformVariable(stack, 'default_key', { type: 'string', sensitive: true, default: 'CANARY-not-a-key' });
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [
        { name: 'a', clusters: ['prod-eu'], source: ApiKeySource.fromVariable(open) },
        { name: 'b', clusters: ['prod-eu'], source: ApiKeySource.fromVariable(withDefault) },
      ],
    });
    const errors = validationErrors(stack);
    expect(errors).toEqual([
      '[test/Qdrant/ApiKeys/a] key "a": key source variable "open_key" is not sensitive (sensitive: undefined), so Terraform would print the key in plans and logs; declare it with sensitive: true',
      '[test/Qdrant/ApiKeys/b] key "b": key source variable "default_key" has a default value, which would put a plaintext key into the stack; remove the default and set TF_VAR_default_key when deploying',
    ]);
    expect(errors.join('\n')).not.toContain('CANARY');
  });

  test('a key source variable whose name a shell cannot export', () => {
    const stack = newStack();
    const v = new TerraformVariable(stack, 'search-key', { type: 'string', sensitive: true });
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'a', clusters: ['prod-eu'], source: ApiKeySource.fromVariable(v) }],
    });
    expect(validationErrors(stack)).toEqual([
      '[test/Qdrant/ApiKeys/a] key "a": key source variable "search-key" cannot be set as TF_VAR_search-key from a shell; rename it with letters, digits and "_" only',
    ]);
  });

  test('a plaintext key is refused at the call itself, and never echoed', () => {
    const canary = 'CANARY-plaintext-3f9a1c';
    const stack = newStack();
    const token = new TerraformVariable(stack, 'k', { type: 'string', sensitive: true });
    const refused = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    const literal = refused(() => ApiKeySource.fromToken(canary));
    const mixed = refused(() => ApiKeySource.fromToken(`${canary}${token.stringValue}`));
    expect(literal).toBe('ApiKeySource.fromToken got a literal string (value not shown): plaintext keys are refused; ' +
      'use ApiKeySource.fromVariable with a sensitive variable, or fromToken with a reference to another resource (e.g. secret.value)');
    expect(mixed).toBe('ApiKeySource.fromToken got literal text mixed with a token (value not shown); pass the token alone, e.g. secret.value');
    expect(literal + mixed).not.toContain(canary);
  });

  test('health-check options out of range', () => {
    expect(errorsFor({ healthCheck: { timeoutSeconds: 0, retries: 2.5, caFile: '/nonexistent/ca.pem' } })).toEqual([
      '[test/Qdrant] healthCheck.timeoutSeconds 0 is not a number in 1-300; use e.g. 10',
      '[test/Qdrant] healthCheck.retries 2.5 is not a whole number in 0-10; use e.g. 3',
      '[test/Qdrant] healthCheck.caFile "/nonexistent/ca.pem" does not exist (resolved to "/nonexistent/ca.pem"); give the path of a PEM file',
    ]);
  });

  test('a CA file is held to the rule --ca meets at deploy (assets/runtime/ca-file.ts): a regular file of PEM certificates', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-ca-rule-'));
    try {
      const notPem = path.join(dir, 'ca.der');
      fs.writeFileSync(notPem, Buffer.from([0x30, 0x82, 0x01, 0x0a]));
      expect(errorsFor({ healthCheck: { caFile: notPem } })).toEqual([
        `[test/Qdrant] healthCheck.caFile ${JSON.stringify(notPem)} has no PEM certificate (-----BEGIN CERTIFICATE-----); give the path of a PEM file`,
      ]);
      expect(errorsFor({ healthCheck: { caFile: dir } })).toEqual([`[test/Qdrant] healthCheck.caFile ${JSON.stringify(dir)} is not a regular file; give the path of a PEM file`]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('one synth reports every error, each with its construct path', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [
        { name: 'prod-eu', url: 'http://abc.example.com' },
        { name: 'prod-us', url: 'https://def.example.com', restPort: 6334 },
      ],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu', 'nowhere'] }, { name: 'empty' }],
    });
    let message = '';
    try {
      stack.runAllValidations();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('[test/Qdrant/Clusters/prod-eu] cluster "prod-eu" url "http://abc.example.com" uses http://');
    expect(message).toContain('[test/Qdrant/Clusters/prod-us] cluster "prod-us" REST and gRPC ports are both 6334');
    expect(message).toContain('[test/Qdrant/ApiKeys/search-api] key "search-api" names unknown cluster "nowhere"');
    expect(message).toContain('[test/Qdrant/ApiKeys/empty] key "empty" has no clusters');
  });

  test('app.synth() fails with the validation errors', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Qdrant', { apiKeys: [{ name: 'lonely' }] });
    expect(() => (stack.node.root as any).synth()).toThrow(/key "lonely" has no clusters/);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
