/**
 * Class 10: collisions are synth errors that name both construct paths, never silent merges.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, TerraformOutput, TerraformStack, TerraformVariable, Testing } from 'cdktf';
import { ApiKeySource, ClusterAccess, SecretTarget } from '../../src';

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';

/** The `[path] message` lines of every stack of an app, synthesized with validations. */
function appErrors(app: App): string[] {
  const lines: string[] = [];
  for (const stack of app.node.children.filter((c): c is TerraformStack => TerraformStack.isStack(c))) {
    try {
      Testing.synth(stack, true);
    } catch (e) {
      lines.push(...(e as Error).message.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('[')));
    }
  }
  return lines;
}

function access(scope: TerraformStack, id: string, cluster: string, key: string, targets = [] as ReturnType<typeof SecretTarget.dotenv>[]) {
  return new ClusterAccess(scope, id, {
    clusters: [{ name: cluster, url: URL_EU }],
    apiKeys: [{ name: key, clusters: [cluster], secretTargets: targets }],
  });
}

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-collide-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('names shared across ClusterAccess constructs of one stack', () => {
  test('two accesses with a cluster of the same name: the outputs would overwrite each other', () => {
    const app = Testing.app();
    const stack = new TerraformStack(app, 's');
    access(stack, 'A', 'prod-eu', 'a');
    access(stack, 'B', 'prod-eu', 'b');
    expect(appErrors(app)).toEqual([
      '[s/B/Clusters/prod-eu] cluster "prod-eu" would write the outputs qdrant_prod_eu_rest_endpoint and qdrant_prod_eu_grpc_endpoint, ' +
        'which the cluster at s/A/Clusters/prod-eu writes too (one would silently overwrite the other); give one of the clusters another name',
    ]);
  });

  test('names that differ only in case or "-"/"_" collide too', () => {
    const app = Testing.app();
    const stack = new TerraformStack(app, 's');
    access(stack, 'A', 'prod-eu', 'a');
    access(stack, 'B', 'Prod_EU', 'b');
    expect(appErrors(app)).toEqual([expect.stringMatching(/^\[s\/B\/Clusters\/Prod_EU\] cluster "Prod_EU" would write the outputs qdrant_prod_eu_rest_endpoint .* the cluster at s\/A\/Clusters\/prod-eu/)]);
  });

  test('two accesses with a key of the same name: one variable would be shared silently', () => {
    const app = Testing.app();
    const stack = new TerraformStack(app, 's');
    access(stack, 'A', 'eu', 'search-api');
    access(stack, 'B', 'us', 'search-api');
    expect(appErrors(app)).toEqual([
      '[s/B/ApiKeys/search-api] key "search-api" would declare qdrant_api_key_search_api (its variable, unless a source is given) and the output ' +
        'qdrant_api_key_search_api_expires_at, which the key at s/A/ApiKeys/search-api declares too (one variable would be shared silently, one output overwritten); ' +
        'give one of the keys another name',
    ]);
  });
});

describe("names shared with the user's own variables and outputs", () => {
  test("a variable of the user's named like a key's: one key would silently read the other key's variable", () => {
    const app = Testing.app();
    const stack = new TerraformStack(app, 's');
    const mine = new TerraformVariable(stack, 'qdrant_api_key_foo', { type: 'string', sensitive: true });
    new ClusterAccess(stack, 'Q', {
      clusters: [{ name: 'c', url: URL_EU }],
      apiKeys: [{ name: 'bar', clusters: ['c'], source: ApiKeySource.fromVariable(mine) }, { name: 'foo', clusters: ['c'] }],
    });
    expect(appErrors(app)).toEqual([
      '[s/QdrantClusterAccess] the stack has 2 Terraform variables named qdrant_api_key_foo (s/qdrant_api_key_foo, s/Q/ApiKeys/foo/Variable), ' +
      "and Terraform would keep only one (a key would silently read another key's variable); rename yours (its construct id, or overrideLogicalId), " +
      'or the cluster or key whose variable it is',
    ]);
  });

  test("an output of the user's named like a cluster's endpoint", () => {
    const app = Testing.app();
    const stack = new TerraformStack(app, 's');
    new TerraformOutput(stack, 'qdrant_c_rest_endpoint', { value: 'mine' });
    access(stack, 'Q', 'c', 'k');
    expect(appErrors(app)).toEqual([expect.stringMatching(
      /^\[s\/QdrantClusterAccess\] the stack has 2 Terraform outputs named qdrant_c_rest_endpoint \(s\/qdrant_c_rest_endpoint, s\/Q\/Clusters\/c\/RestEndpoint\), .*one would silently overwrite the other/)]);
  });

  test("the user's own variable named as the library would name the key's is that key's source: fine", () => {
    const app = Testing.app();
    const stack = new TerraformStack(app, 's');
    const own = new TerraformVariable(stack, 'qdrant_api_key_k', { type: 'string', sensitive: true });
    new ClusterAccess(stack, 'Q', {
      clusters: [{ name: 'c', url: URL_EU }],
      apiKeys: [{ name: 'k', clusters: ['c'], source: ApiKeySource.fromVariable(own) }],
    });
    expect(appErrors(app)).toEqual([]);
  });
});

describe('two targets on one file', () => {
  test('from two stacks of one app', () => {
    const app = Testing.app();
    const file = path.join(dir, '.env');
    access(new TerraformStack(app, 'one'), 'A', 'eu', 'k', [SecretTarget.dotenv({ path: file })]);
    access(new TerraformStack(app, 'two'), 'B', 'eu', 'k', [SecretTarget.dotenv({ path: file })]);
    const errors = appErrors(app);
    expect(errors).toHaveLength(3);
    const shown = JSON.stringify(file);
    for (const name of ['QDRANT_URL', 'QDRANT_GRPC_URL', 'QDRANT_API_KEY']) {
      expect(errors).toContainEqual(expect.stringMatching(new RegExp(`^${escape('[two/B/SecretTargets/')}[^\\]]+${escape(`] secret target .env file ${shown}: ` +
        `entry "${name}" (key "k") is already written to file ${shown} by key "k" of one/A/SecretTargets/`)}`)));
    }
  });

  test('through another spelling of the path and through a symlinked directory', () => {
    const real = path.join(dir, 'real');
    fs.mkdirSync(real);
    fs.symlinkSync(real, path.join(dir, 'link'));
    const app = Testing.app();
    const stack = new TerraformStack(app, 's');
    access(stack, 'A', 'eu', 'k', [SecretTarget.dotenv({ path: path.join(real, '.env') })]);
    access(stack, 'B', 'us', 'k2', [SecretTarget.dotenv({ path: `${real}/./sub/../.env` })]);
    access(stack, 'C', 'as', 'k3', [SecretTarget.dotenv({ path: path.join(dir, 'link', '.env') })]);
    const errors = appErrors(app).join('\n');
    expect(errors).toMatch(/\[s\/B\/SecretTargets\/[^\]]+\] secret target .env file .*: entry "QDRANT_URL" \(key "k2"\) is already written to file .* by key "k" of s\/A\/SecretTargets/);
    expect(errors).toMatch(/\[s\/C\/SecretTargets\/[^\]]+\] secret target .env file .*: entry "QDRANT_URL" \(key "k3"\) is already written to file .* by key "k" of s\/A\/SecretTargets/);
  });

  test('once as dotenv and once as JSON', () => {
    const app = Testing.app();
    const stack = new TerraformStack(app, 's');
    const file = path.join(dir, 'secrets');
    access(stack, 'A', 'eu', 'k', [SecretTarget.dotenv({ path: file })]);
    new ClusterAccess(stack, 'B', {
      clusters: [{ name: 'us', url: URL_EU }],
      apiKeys: [{ name: 'k2', clusters: ['us'], secretTargets: [SecretTarget.json({ path: file })], secretNaming: { prefix: 'B_' } }],
    });
    expect(appErrors(app).join('\n')).toMatch(new RegExp(`\\[s/B/SecretTargets/[^\\]]+\\] secret target JSON file ${JSON.stringify(file).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: ` +
      `file ${JSON.stringify(file).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is written as json here and as dotenv by s/A/SecretTargets/`));
  });

  test('two accesses writing different names into one file is fine (each owns its block)', () => {
    const app = Testing.app();
    const stack = new TerraformStack(app, 's');
    const file = path.join(dir, '.env');
    access(stack, 'A', 'eu', 'k', [SecretTarget.dotenv({ path: file })]);
    new ClusterAccess(stack, 'B', {
      clusters: [{ name: 'us', url: URL_EU }],
      apiKeys: [{ name: 'k2', clusters: ['us'], secretTargets: [SecretTarget.dotenv({ path: file })], secretNaming: { prefix: 'B_' } }],
    });
    expect(appErrors(app)).toEqual([]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
