import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { provider, resource } from '@cdktf/provider-null';
import { TerraformAsset, TerraformOutput, TerraformStack, TerraformVariable, Testing } from 'cdktf';
import { Construct } from 'constructs';
import {
  ApiKeySource,
  ClusterAccess,
  ClusterAccessProps,
  ISecretTarget,
  SecretEntryKind,
  SecretTarget,
  SecretTargetBindOptions,
  SecretTargetConfig,
} from '../src';
import { newStack, synthJson } from './support/synth';

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';
const URL_US = 'https://def-456.us-east-1-0.aws.cloud.qdrant.io';
const CLUSTERS = [{ name: 'prod-eu', url: URL_EU }, { name: 'prod-us', url: URL_US }];

/**
 * A target of our own that records what `bind` receives, and puts the entries into one output
 * (`recorded_<label>`) so that their token values can be read back resolved from the JSON.
 */
class Recorder implements ISecretTarget {
  public readonly description: string;
  public readonly binds: SecretTargetBindOptions[] = [];
  public dependable?: resource.Resource;

  constructor(private readonly label: string, private readonly withDependable = false) {
    this.description = `recorder ${label}`;
  }

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    this.binds.push(options);
    new TerraformOutput(scope, 'Recorded', { value: options.entries, sensitive: true })
      .overrideLogicalId(`recorded_${this.label}`);
    if (!this.withDependable) return {};
    this.dependable = new resource.Resource(scope, 'Store', {});
    return { dependables: [this.dependable] };
  }
}

/** The entries a recorder received, values resolved, from the synthesized JSON. */
function recorded(json: any, label: string): any[] {
  return json.output[`recorded_${label}`].value;
}

/** Entry names only. */
function names(json: any, label: string): string[] {
  return recorded(json, label).map((e) => e.name);
}

/** The three entries of one key on one cluster, as `bind` receives them (resolved). */
function entriesOf(key: string, cluster: string, url: string, n: { url: string; grpc: string; apiKey: string }, ports = [6333, 6334]) {
  const variable = `qdrant_api_key_${key.replace(/-/g, '_')}`;
  return [
    { name: n.url, kind: SecretEntryKind.REST_URL, value: `${url}:${ports[0]}`, sensitive: false, keyName: key, clusterName: cluster },
    { name: n.grpc, kind: SecretEntryKind.GRPC_URL, value: `${url}:${ports[1]}`, sensitive: false, keyName: key, clusterName: cluster },
    {
      name: n.apiKey,
      kind: SecretEntryKind.API_KEY,
      value: `\${var.${variable}}`,
      sensitive: true,
      keyName: key,
      clusterName: cluster,
      inheritedEnvironmentVariable: `TF_VAR_${variable}`,
    },
  ];
}

const PLAIN = { url: 'QDRANT_URL', grpc: 'QDRANT_GRPC_URL', apiKey: 'QDRANT_API_KEY' };
const EU = { url: 'QDRANT_PROD_EU_URL', grpc: 'QDRANT_PROD_EU_GRPC_URL', apiKey: 'QDRANT_PROD_EU_API_KEY' };
const US = { url: 'QDRANT_PROD_US_URL', grpc: 'QDRANT_PROD_US_GRPC_URL', apiKey: 'QDRANT_PROD_US_API_KEY' };

function accessIn(stack: TerraformStack, props: ClusterAccessProps): ClusterAccess {
  return new ClusterAccess(stack, 'Qdrant', { clusters: CLUSTERS, ...props });
}

/** The message of a failing `Testing.synth(stack, true)` (aspects, so targets, included); '' when it succeeds. */
function synthMessage(stack: TerraformStack): string {
  try {
    Testing.synth(stack, true);
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}

/** The `[path] message` lines of a failing synth, as `cdktf synth` reports them. */
function synthErrors(stack: TerraformStack): string[] {
  return synthMessage(stack).split('\n').map((l) => l.trim()).filter((l) => l.startsWith('['));
}

/** null_resources whose logical id holds `part` (e.g. `_Write_`), by logical id. */
function nullResources(json: any, part: string): [string, any][] {
  return Object.entries<any>(json.resource?.null_resource ?? {}).filter(([id]) => id.includes(part));
}

/** The one null_resource whose logical id holds all of `parts`. */
function oneResource(json: any, ...parts: string[]): { id: string; res: any } {
  const found = Object.entries<any>(json.resource.null_resource).filter(([id]) => parts.every((p) => id.includes(p)));
  expect(found.map(([id]) => id)).toHaveLength(1);
  return { id: found[0][0], res: found[0][1] };
}

/** The health check of one grant, found by the label the checker prints. */
function healthCheck(json: any, key: string, cluster: string): any {
  return Object.values<any>(json.resource.null_resource)
    .find((r) => r.provisioner[0]['local-exec'].environment.QCA_LABEL === `${key} → ${cluster}`);
}

const WRITER_CLI = /^assets\/QdrantClusterAccessWriter\/[0-9A-F]{32,}\/cli\.js$/i;

describe('SecretTarget naming', () => {
  test('a target that receives one cluster gets QDRANT_URL, QDRANT_GRPC_URL, QDRANT_API_KEY, even when the access has several', () => {
    const stack = newStack();
    const rec = new Recorder('one');
    accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [rec] }] });
    const json = synthJson(stack);
    expect(recorded(json, 'one')).toEqual(entriesOf('search-api', 'prod-eu', URL_EU, PLAIN));
    expect(rec.binds).toHaveLength(1);
    expect(rec.binds[0].owner).toBe('test/Qdrant');
  });

  test('a target that receives several clusters gets QDRANT_<CLUSTER>_... names, in the order of the grants', () => {
    const stack = newStack();
    accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu', 'prod-us'], secretTargets: [new Recorder('two')] }] });
    expect(recorded(synthJson(stack), 'two')).toEqual([
      ...entriesOf('search-api', 'prod-eu', URL_EU, EU),
      ...entriesOf('search-api', 'prod-us', URL_US, US),
    ]);
  });

  test('two keys sharing a target: the union of their clusters decides the qualification', () => {
    const stack = newStack();
    const shared = new Recorder('shared');
    const own = new Recorder('own');
    accessIn(stack, {
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu'], secretTargets: [shared, own] },
        { name: 'ingest', clusters: ['prod-us'], secretTargets: [shared] },
      ],
    });
    const json = synthJson(stack);
    // Each key has one cluster, but the shared target receives two.
    expect(recorded(json, 'shared')).toEqual([
      ...entriesOf('search-api', 'prod-eu', URL_EU, EU),
      ...entriesOf('ingest', 'prod-us', URL_US, US),
    ]);
    // The same key in a target of its own: one cluster, plain names.
    expect(recorded(json, 'own')).toEqual(entriesOf('search-api', 'prod-eu', URL_EU, PLAIN));
  });

  test('URL values carry the ports: 6333/6334 by default, a port written in the URL, explicit restPort/grpcPort', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [
        { name: 'default-ports', url: URL_EU },
        { name: 'url-port', url: 'https://ghi-789.example.com:7000/' },
        { name: 'explicit', url: 'https://jkl-012.example.com:7000', restPort: 443, grpcPort: 8443 },
      ],
      apiKeys: [{ name: 'k', clusters: ['default-ports', 'url-port', 'explicit'], secretTargets: [new Recorder('ports')] }],
    });
    const urls = recorded(synthJson(stack), 'ports').filter((e) => !e.sensitive).map((e) => `${e.name}=${e.value}`);
    expect(urls).toEqual([
      `QDRANT_DEFAULT_PORTS_URL=${URL_EU}:6333`,
      `QDRANT_DEFAULT_PORTS_GRPC_URL=${URL_EU}:6334`,
      'QDRANT_URL_PORT_URL=https://ghi-789.example.com:7000',
      'QDRANT_URL_PORT_GRPC_URL=https://ghi-789.example.com:6334',
      'QDRANT_EXPLICIT_URL=https://jkl-012.example.com:443',
      'QDRANT_EXPLICIT_GRPC_URL=https://jkl-012.example.com:8443',
    ]);
  });

  test('the key entry is a reference to the key variable, never a value', () => {
    const stack = newStack();
    const rec = new Recorder('key');
    accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [rec] }] });
    const json = synthJson(stack);
    const key = recorded(json, 'key').find((e) => e.kind === SecretEntryKind.API_KEY);
    expect(key.value).toBe('${var.qdrant_api_key_search_api}');
    expect(json.variable.qdrant_api_key_search_api).toMatchObject({ sensitive: true });
    // What bind receives is an unresolved token, not text.
    expect(rec.binds[0].entries[2].value).toMatch(/^\$\{TfToken\[TOKEN\.\d+\]\}$/);
  });

  test('a prefix goes in front of every default name, per attachment', () => {
    const stack = newStack();
    const access = accessIn(stack, {
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu'], secretTargets: [new Recorder('opts')], secretNaming: { prefix: 'APP_' } },
        { name: 'ingest', clusters: ['prod-eu'] },
      ],
    });
    const shared = new Recorder('prefixes');
    access.apiKeys[0].addSecretTarget(shared, { prefix: 'SEARCH_' });
    access.apiKeys[1].addSecretTarget(shared, { prefix: 'INGEST_' });
    const json = synthJson(stack);
    expect(names(json, 'opts')).toEqual(['APP_QDRANT_URL', 'APP_QDRANT_GRPC_URL', 'APP_QDRANT_API_KEY']);
    // Two keys on one cluster in one target: prefixes keep their names apart.
    expect(recorded(json, 'prefixes')).toEqual([
      ...entriesOf('search-api', 'prod-eu', URL_EU, { url: 'SEARCH_QDRANT_URL', grpc: 'SEARCH_QDRANT_GRPC_URL', apiKey: 'SEARCH_QDRANT_API_KEY' }),
      ...entriesOf('ingest', 'prod-eu', URL_EU, { url: 'INGEST_QDRANT_URL', grpc: 'INGEST_QDRANT_GRPC_URL', apiKey: 'INGEST_QDRANT_API_KEY' }),
    ]);
  });

  test('names overrides are keyed by the default name and used as is (no prefix)', () => {
    const stack = newStack();
    accessIn(stack, {
      apiKeys: [{
        name: 'search-api',
        clusters: ['prod-eu', 'prod-us'],
        secretTargets: [new Recorder('renamed')],
        secretNaming: { prefix: 'APP_', names: { QDRANT_PROD_EU_API_KEY: 'SEARCH_API_KEY', QDRANT_PROD_US_URL: 'us_rest' } },
      }],
    });
    expect(names(synthJson(stack), 'renamed')).toEqual([
      'APP_QDRANT_PROD_EU_URL', 'APP_QDRANT_PROD_EU_GRPC_URL', 'SEARCH_API_KEY',
      'us_rest', 'APP_QDRANT_PROD_US_GRPC_URL', 'APP_QDRANT_PROD_US_API_KEY',
    ]);
  });

  test('identical URL entries of one cluster from two keys are written once; the keys are told apart by a rename', () => {
    const stack = newStack();
    const rec = new Recorder('dedupe');
    accessIn(stack, {
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu', 'prod-us'], secretTargets: [rec] },
        { name: 'ingest', clusters: ['prod-eu'], secretTargets: [rec], secretNaming: { names: { QDRANT_PROD_EU_API_KEY: 'INGEST_API_KEY' } } },
      ],
    });
    const json = synthJson(stack);
    expect(recorded(json, 'dedupe')).toEqual([
      ...entriesOf('search-api', 'prod-eu', URL_EU, EU),
      ...entriesOf('search-api', 'prod-us', URL_US, US),
      { ...entriesOf('ingest', 'prod-eu', URL_EU, { ...EU, apiKey: 'INGEST_API_KEY' })[2] },
    ]);
  });
});

describe('SecretTarget validation', () => {
  test('one synth reports every secret-target error, each with its construct path', () => {
    const stack = newStack();
    const access = accessIn(stack, {
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu'] },
        { name: 'ingest', clusters: ['prod-eu'] },
        { name: 'admin', clusters: ['prod-eu', 'prod-us'] },
      ],
    });
    const [search, ingest, admin] = access.apiKeys;
    const env = SecretTarget.dotenv({ path: '.env' });
    // Two keys of one cluster in a one-cluster target: the URLs are shared, the keys collide.
    search.addSecretTarget(env);
    ingest.addSecretTarget(env);
    search.addSecretTarget(env);
    ingest.addSecretTarget(SecretTarget.dotenv({ path: '' }));
    admin.addSecretTarget(SecretTarget.json({ path: 'secrets.json' }), {
      prefix: 'app-',
      names: { QDRANT_URL: 'ADMIN_URL', QDRANT_PROD_US_URL: 'prod us url' },
    });
    // `test` is a directory of this repository (jest runs in the project directory).
    admin.addSecretTarget(SecretTarget.json({ path: 'test' }));

    expect(synthErrors(stack)).toEqual([
      '[test/Qdrant] secret target .env file ".env": entry "QDRANT_API_KEY" would be written twice, for key "search-api" ' +
        '(API key of cluster "prod-eu") and for key "ingest" (API key of cluster "prod-eu"); give key "ingest" another name with its secretNaming (or addSecretTarget(target, naming)), ' +
        'e.g. names: { QDRANT_API_KEY: "QDRANT_INGEST_API_KEY" }, or a prefix',
      '[test/Qdrant] secret target JSON file "secrets.json": key "admin" has prefix "app-", which is not a variable name; ' +
        'use letters, digits and "_", such as "APP_"',
      '[test/Qdrant] secret target JSON file "secrets.json": key "admin" renames "QDRANT_URL", which is not one of its entries ' +
        '(QDRANT_PROD_EU_URL, QDRANT_PROD_EU_GRPC_URL, QDRANT_PROD_EU_API_KEY, QDRANT_PROD_US_URL, QDRANT_PROD_US_GRPC_URL, ' +
        'QDRANT_PROD_US_API_KEY); the keys of names are default names, without the prefix',
      '[test/Qdrant] secret target JSON file "secrets.json": key "admin" renames "QDRANT_PROD_US_URL" to "prod us url", ' +
        'which is not a variable name; use letters, digits and "_"',
      '[test/Qdrant/ApiKeys/search-api] key "search-api" is given secret target .env file ".env" twice; add each target once',
      '[test/Qdrant/SecretTargets/.env-file] secret target .env file "": the path is empty; give the path of a file, such as ".env"',
      `[test/Qdrant/SecretTargets/JSON-file-test] secret target JSON file "test": ${JSON.stringify(path.resolve('test'))} ` +
        'is a directory; give the path of a file inside it, such as "test/secrets.json"',
    ]);
  });

  test('two keys of one cluster in a target of several clusters: the qualified key entries collide, the URLs do not', () => {
    const stack = newStack();
    const env = SecretTarget.dotenv({ path: '.env' });
    accessIn(stack, {
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu', 'prod-us'], secretTargets: [env] },
        { name: 'ingest', clusters: ['prod-eu'], secretTargets: [env] },
      ],
    });
    expect(synthErrors(stack)).toEqual([
      '[test/Qdrant] secret target .env file ".env": entry "QDRANT_PROD_EU_API_KEY" would be written twice, for key "search-api" ' +
        '(API key of cluster "prod-eu") and for key "ingest" (API key of cluster "prod-eu"); give key "ingest" another name with its secretNaming (or addSecretTarget(target, naming)), ' +
        'e.g. names: { QDRANT_PROD_EU_API_KEY: "QDRANT_INGEST_PROD_EU_API_KEY" }, or a prefix',
    ]);
  });

  test('a rename onto another entry\'s name is a collision, whatever the kinds', () => {
    const stack = newStack();
    const env = SecretTarget.dotenv({ path: '.env' });
    accessIn(stack, {
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu'], secretTargets: [env] },
        { name: 'ingest', clusters: ['prod-us'], secretTargets: [env], secretNaming: { names: { QDRANT_PROD_US_URL: 'QDRANT_PROD_EU_URL' } } },
      ],
    });
    expect(synthErrors(stack)).toEqual([
      '[test/Qdrant] secret target .env file ".env": entry "QDRANT_PROD_EU_URL" would be written twice, for key "search-api" ' +
        '(REST URL of cluster "prod-eu") and for key "ingest" (REST URL of cluster "prod-us"); give key "ingest" another name with its secretNaming (or addSecretTarget(target, naming)), ' +
        'e.g. names: { QDRANT_PROD_US_URL: "QDRANT_INGEST_PROD_US_URL" }, or a prefix',
    ]);
  });

  test('a path that is whitespace, or a token, is refused', () => {
    const stack = newStack();
    const dir = new TerraformVariable(stack, 'secrets_dir', { type: 'string' });
    accessIn(stack, {
      apiKeys: [{
        name: 'search-api',
        clusters: ['prod-eu'],
        secretTargets: [SecretTarget.dotenv({ path: '  ' }), SecretTarget.json({ path: `${dir.stringValue}/s.json` })],
      }],
    });
    // NOTE (readability, reported): the token path is shown as cdktf's internal token text.
    expect(synthErrors(stack)).toEqual([
      '[test/Qdrant/SecretTargets/.env-file] secret target .env file "  ": the path is empty; give the path of a file, such as ".env"',
      expect.stringMatching(
        /^\[test\/Qdrant\/SecretTargets\/JSON-file-TfToken-TOKEN\.\d+-s\.json\] secret target JSON file "\$\{TfToken\[TOKEN\.\d+\]\}\/s\.json": the path is a token; give a path known at synth, such as "\.env"$/,
      ),
    ]);
  });

  test('a path that is a symbolic link is refused (the writer would replace the link)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-st-'));
    fs.writeFileSync(path.join(dir, 'real.env'), '');
    const link = path.join(dir, 'link.env');
    fs.symlinkSync(path.join(dir, 'real.env'), link);
    const dirLink = path.join(dir, 'dir-link');
    fs.symlinkSync(dir, dirLink);
    const stack = newStack();
    accessIn(stack, {
      apiKeys: [{
        name: 'search-api',
        clusters: ['prod-eu'],
        secretTargets: [SecretTarget.dotenv({ path: link }), SecretTarget.json({ path: dirLink }), SecretTarget.dotenv({ path: path.join(dir, 'real.env') })],
      }],
    });
    const errors = synthErrors(stack);
    expect(errors).toEqual([
      expect.stringMatching(/^\[test\/Qdrant\/SecretTargets\/\.env-file-[^\]]*-link\.env\] /),
      expect.stringMatching(/^\[test\/Qdrant\/SecretTargets\/JSON-file-[^\]]*-dir-link\] /),
    ]);
    expect(errors[0]).toContain(
      `] secret target .env file ${JSON.stringify(link)}: ${JSON.stringify(link)} is a symbolic link, which the writer refuses ` +
        '(it would replace the link with a file); give the path of the real file',
    );
    expect(errors[1]).toContain(
      `] secret target JSON file ${JSON.stringify(dirLink)}: ${JSON.stringify(dirLink)} is a symbolic link, which the writer refuses ` +
        '(it would replace the link with a file); give the path of the real file',
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('two file targets for the same file whose entries collide are reported, naming both', () => {
    const stack = newStack();
    accessIn(stack, {
      apiKeys: [
        { name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] },
        { name: 'b', clusters: ['prod-us'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] },
      ],
    });
    expect(synthErrors(stack)).toEqual([
      `[test/Qdrant/SecretTargets/.env-file-.env-2] secret target .env file ".env": entry "QDRANT_URL" (key "b") is already written to file ${path.resolve('.env')} ` +
        'by key "a" of test/Qdrant; attach both keys to one target, or give one of them a prefix (secretNaming: { prefix: "..." })',
    ]);
  });

  test('a "${" in a path is refused at synth (Terraform would read it as an expression)', () => {
    const stack = newStack();
    accessIn(stack, { apiKeys: [{ name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: 'x${y}.env' })] }] });
    expect(synthErrors(stack)).toEqual([
      expect.stringMatching(/^\[test\/Qdrant\/SecretTargets\/[^\]]+\] secret target \.env file "x\$\{y\}\.env": the path holds "\$\{" or "%\{", which Terraform would read as an expression; rename the file$/),
    ]);
  });

  test('a missing file is fine at synth (it is created at deploy)', () => {
    const stack = newStack();
    accessIn(stack, {
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: 'no-such-dir/.env' })] }],
    });
    expect(synthErrors(stack)).toEqual([]);
  });
});

describe('SecretTarget.dotenv() and SecretTarget.json()', () => {
  test('dotenv: a Registration that removes the entries on destroy, a Write that writes them', () => {
    const stack = newStack();
    accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: 'app/.env' })] }] });
    const synthesized = Testing.synth(stack, true);
    expect(synthesized).toHaveResource(resource.Resource);
    const json = JSON.parse(synthesized);
    const registration = oneResource(json, 'Qdrant_SecretTargets_', '_Registration_');
    const write = oneResource(json, 'Qdrant_SecretTargets_', '_Write_');
    const file = path.resolve('app/.env');

    const remove = registration.res.provisioner[0]['local-exec'];
    const cli = remove.command.match(/^node "([^"]+)"/)[1];
    expect(cli).toMatch(WRITER_CLI);
    expect(registration.res).toEqual({
      triggers: {
        file,
        format: 'dotenv',
        owner: 'test/Qdrant',
        names: JSON.stringify(['QDRANT_URL', 'QDRANT_GRPC_URL', 'QDRANT_API_KEY']),
      },
      provisioner: [{
        'local-exec': {
          when: 'destroy',
          command: `node "${cli}" remove --file "$QCA_FILE" --format "$QCA_FORMAT" --owner "$QCA_OWNER"`,
          environment: {
            QCA_FILE: '${self.triggers.file}',
            QCA_FORMAT: '${self.triggers.format}',
            QCA_OWNER: '${self.triggers.owner}',
            QCA_ENTRIES: '${self.triggers.names}',
          },
        },
      }],
    });
    expect(path.isAbsolute(registration.res.triggers.file)).toBe(true);

    expect(write.res).toEqual({
      triggers: {
        registration: `\${null_resource.${registration.id}.id}`,
        values_sha256: `\${sha256(jsonencode({"QDRANT_URL" = "${URL_EU}:6333", "QDRANT_GRPC_URL" = "${URL_EU}:6334", ` +
          '"QDRANT_API_KEY" = var.qdrant_api_key_search_api}))}',
        writer: expect.stringMatching(/^[0-9A-F]{32,}$/i),
      },
      provisioner: [{
        'local-exec': {
          command: `node "${cli}" write --file "$QCA_FILE" --format dotenv --owner "$QCA_OWNER"`,
          environment: {
            QCA_FILE: file,
            QCA_OWNER: 'test/Qdrant',
            // Only the URLs are literal; the key is read from the variable Terraform inherits.
            QCA_ENTRIES: JSON.stringify({ QDRANT_URL: `${URL_EU}:6333`, QDRANT_GRPC_URL: `${URL_EU}:6334` }),
            QCA_ENTRIES_FROM_ENV: JSON.stringify({ QDRANT_API_KEY: 'TF_VAR_qdrant_api_key_search_api' }),
          },
        },
      }],
    });
    expect(cli).toContain(write.res.triggers.writer);
    // The writer's provisioner holds nothing derived from the key (it would hide its output).
    expect(JSON.stringify(write.res.provisioner)).not.toContain('var.');
    expect(JSON.stringify(registration.res)).not.toContain('var.');
  });

  test('json: the same resources with format json, and names for several clusters', () => {
    const stack = newStack();
    accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu', 'prod-us'], secretTargets: [SecretTarget.json({ path: 'secrets.json' })] }] });
    const json = synthJson(stack);
    const registration = oneResource(json, '_Registration_').res;
    const write = oneResource(json, '_Write_').res;
    expect(registration.triggers).toEqual({
      file: path.resolve('secrets.json'),
      format: 'json',
      owner: 'test/Qdrant',
      names: JSON.stringify([EU.url, EU.grpc, EU.apiKey, US.url, US.grpc, US.apiKey]),
    });
    const exec = write.provisioner[0]['local-exec'];
    expect(exec.command).toMatch(/^node "assets\/QdrantClusterAccessWriter\/[0-9A-F]+\/cli\.js" write --file "\$QCA_FILE" --format json --owner "\$QCA_OWNER"$/i);
    expect(JSON.parse(exec.environment.QCA_ENTRIES)).toEqual({
      QDRANT_PROD_EU_URL: `${URL_EU}:6333`,
      QDRANT_PROD_EU_GRPC_URL: `${URL_EU}:6334`,
      QDRANT_PROD_US_URL: `${URL_US}:6333`,
      QDRANT_PROD_US_GRPC_URL: `${URL_US}:6334`,
    });
    expect(JSON.parse(exec.environment.QCA_ENTRIES_FROM_ENV)).toEqual({
      QDRANT_PROD_EU_API_KEY: 'TF_VAR_qdrant_api_key_search_api',
      QDRANT_PROD_US_API_KEY: 'TF_VAR_qdrant_api_key_search_api',
    });
    expect(write.triggers.values_sha256).toContain('"QDRANT_PROD_US_API_KEY" = var.qdrant_api_key_search_api');
  });

  test('a key from ApiKeySource.fromToken is handed over in QCA_SECRET_n', () => {
    const stack = newStack();
    const vault = new resource.Resource(stack, 'vault_lookup', {});
    const other = new resource.Resource(stack, 'other_lookup', {});
    new ClusterAccess(stack, 'Qdrant', {
      clusters: CLUSTERS,
      healthCheck: { enabled: false },
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu'], source: ApiKeySource.fromToken(vault.id), secretTargets: [SecretTarget.dotenv({ path: '.env' })] },
      ],
    });
    const access2 = new ClusterAccess(stack, 'Other', { clusters: CLUSTERS, healthCheck: { enabled: false } });
    const env = SecretTarget.json({ path: 'both.json' });
    access2.addApiKey({ name: 'a', clusters: ['prod-eu'], source: ApiKeySource.fromToken(vault.id), secretTargets: [env] });
    access2.addApiKey({ name: 'b', clusters: ['prod-us'], source: ApiKeySource.fromToken(other.id), secretTargets: [env] });
    access2.addApiKey({ name: 'c', clusters: ['prod-us'], secretTargets: [env], secretNaming: { prefix: 'C_' } });
    const json = synthJson(stack);

    const one = oneResource(json, 'Qdrant_SecretTargets_', '_Write_').res;
    expect(one.provisioner[0]['local-exec'].environment).toEqual({
      QCA_FILE: path.resolve('.env'),
      QCA_OWNER: 'test/Qdrant',
      QCA_ENTRIES: JSON.stringify({ QDRANT_URL: `${URL_EU}:6333`, QDRANT_GRPC_URL: `${URL_EU}:6334` }),
      QCA_ENTRIES_FROM_ENV: JSON.stringify({ QDRANT_API_KEY: 'QCA_SECRET_1' }),
      QCA_SECRET_1: '${null_resource.vault_lookup.id}',
    });
    expect(one.triggers.values_sha256).toContain('"QDRANT_API_KEY" = null_resource.vault_lookup.id');

    const both = oneResource(json, 'Other_SecretTargets_', '_Write_').res.provisioner[0]['local-exec'].environment;
    expect(JSON.parse(both.QCA_ENTRIES_FROM_ENV)).toEqual({
      QDRANT_PROD_EU_API_KEY: 'QCA_SECRET_1',
      QDRANT_PROD_US_API_KEY: 'QCA_SECRET_2',
      C_QDRANT_PROD_US_API_KEY: 'TF_VAR_qdrant_api_key_c',
    });
    expect(both.QCA_SECRET_1).toBe('${null_resource.vault_lookup.id}');
    expect(both.QCA_SECRET_2).toBe('${null_resource.other_lookup.id}');
    expect(both.QCA_OWNER).toBe('test/Other');
    expect(Object.keys(both).filter((k) => k.startsWith('QCA_SECRET_'))).toEqual(['QCA_SECRET_1', 'QCA_SECRET_2']);
  });

  test('a cluster URL that is a token makes QCA_ENTRIES a jsonencode() evaluated by Terraform', () => {
    const stack = newStack();
    const url = new TerraformVariable(stack, 'cluster_url', { type: 'string' });
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: url.stringValue }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }],
    });
    const env = oneResource(synthJson(stack), '_Write_').res.provisioner[0]['local-exec'].environment;
    expect(env.QCA_ENTRIES).toMatch(/^\$\{jsonencode\(\{"QDRANT_URL" = .*var\.cluster_url.*"QDRANT_GRPC_URL" = .*\}\)\}$/);
    expect(env.QCA_ENTRIES).not.toContain('qdrant_api_key');
    expect(env.QCA_ENTRIES_FROM_ENV).toBe(JSON.stringify({ QDRANT_API_KEY: 'TF_VAR_qdrant_api_key_search_api' }));
  });

  test('one writer asset per stack, even with two file targets in two accesses; one null provider', () => {
    const stack = newStack();
    for (const id of ['Qdrant', 'Other']) {
      new ClusterAccess(stack, id, {
        clusters: CLUSTERS,
        healthCheck: { enabled: false },
        apiKeys: [{
          name: 'search-api',
          clusters: ['prod-eu'],
          secretTargets: [SecretTarget.dotenv({ path: `${id}.env` }), SecretTarget.json({ path: `${id}.json` })],
        }],
      });
    }
    const synthesized = Testing.synth(stack, true);
    expect(synthesized).toHaveProvider(provider.NullProvider);
    const json = JSON.parse(synthesized);
    const writers = stack.node.findAll().filter((c) => c instanceof TerraformAsset && c.node.id === 'QdrantClusterAccessWriter');
    expect(writers).toHaveLength(1);
    expect(writers[0].node.scope).toBe(stack);
    const clis = new Set(nullResources(json, '_Write_').map(([, r]) => r.provisioner[0]['local-exec'].command.match(/^node "([^"]+)"/)[1]));
    expect(nullResources(json, '_Write_')).toHaveLength(4);
    expect([...clis]).toEqual([expect.stringMatching(WRITER_CLI)]);
    expect(Object.keys(json.provider.null)).toHaveLength(1);
  });

  test('an existing null provider is reused', () => {
    const stack = newStack();
    new provider.NullProvider(stack, 'mine', { alias: 'mine' });
    accessIn(stack, {
      healthCheck: { enabled: false },
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }],
    });
    expect(synthJson(stack).provider.null).toEqual([{ alias: 'mine' }]);
  });

  test('the writer is copied into the synthesized stack', () => {
    const stack = newStack();
    accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }] });
    const stackDir = path.join(Testing.fullSynth(stack), 'stacks', 'test');
    const json = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8'));
    const cli = oneResource(json, '_Write_').res.provisioner[0]['local-exec'].command.match(/^node "([^"]+)"/)[1];
    expect(fs.existsSync(path.join(stackDir, cli))).toBe(true);
  });
});

describe('SecretTarget.terraformOutputs()', () => {
  test('one sensitive output per entry, named exactly like the entry', () => {
    const stack = newStack();
    accessIn(stack, {
      apiKeys: [{
        name: 'search-api',
        clusters: ['prod-eu', 'prod-us'],
        secretTargets: [SecretTarget.terraformOutputs()],
        secretNaming: { names: { QDRANT_PROD_US_API_KEY: 'US_KEY' } },
      }],
    });
    const synthesized = Testing.synth(stack, true);
    const output = JSON.parse(synthesized).output;
    const ours = Object.keys(output).filter((n) => !/^qdrant_prod_(eu|us)_(rest|grpc)_endpoint$/.test(n));
    expect(ours.sort()).toEqual([EU.url, EU.grpc, EU.apiKey, US.url, US.grpc, 'US_KEY'].sort());
    expect(output.QDRANT_PROD_EU_URL).toEqual({
      value: `${URL_EU}:6333`,
      sensitive: true,
      description: 'REST endpoint of Qdrant cluster "prod-eu" (key "search-api")',
    });
    expect(output.QDRANT_PROD_US_GRPC_URL).toEqual({
      value: `${URL_US}:6334`,
      sensitive: true,
      description: 'gRPC endpoint of Qdrant cluster "prod-us" (key "search-api")',
    });
    expect(output.US_KEY).toEqual({
      value: '${var.qdrant_api_key_search_api}',
      sensitive: true,
      description: 'API key of Qdrant cluster "prod-us" (key "search-api")',
    });
    // No resources: nothing for the health checks to wait for.
    expect(synthesized).not.toHaveResourceWithProperties(resource.Resource, { triggers: { format: 'dotenv' } });
    expect(healthCheck(JSON.parse(synthesized), 'search-api', 'prod-eu').depends_on).toBeUndefined();
  });

  test('two outputs targets producing the same output name are reported, not silently merged', () => {
    const stack = newStack();
    accessIn(stack, {
      apiKeys: [
        { name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.terraformOutputs()] },
        { name: 'b', clusters: ['prod-us'], secretTargets: [SecretTarget.terraformOutputs()] },
      ],
    });
    expect(synthErrors(stack)).toEqual([
      '[test/Qdrant/SecretTargets/Terraform-outputs-2] secret target Terraform outputs: entry "QDRANT_URL" (key "b") is already written to ' +
        'the outputs by key "a" of test/Qdrant; attach both keys to one target, or give one of them a prefix (secretNaming: { prefix: "..." })',
    ]);
  });
});

describe('health checks and secret targets', () => {
  test('each health check depends on the Write resources of its own key\'s targets only', () => {
    const stack = newStack();
    const env = SecretTarget.dotenv({ path: '.env' });
    const json = SecretTarget.json({ path: 'secrets.json' });
    const store = new Recorder('store', true);
    accessIn(stack, {
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu', 'prod-us'], secretTargets: [env, json] },
        { name: 'ingest', clusters: ['prod-eu'], secretTargets: [json, store], secretNaming: { prefix: 'INGEST_' } },
        { name: 'outputs-only', clusters: ['prod-us'], secretTargets: [SecretTarget.terraformOutputs()] },
        { name: 'none', clusters: ['prod-eu'] },
      ],
    });
    const out = synthJson(stack);
    const writes = nullResources(out, '_Write_').map(([id]) => id);
    expect(writes).toHaveLength(2);
    const envWrite = writes.find((id) => id.includes('env-file'));
    const jsonWrite = writes.find((id) => id.includes('JSON-file'));
    // As cdktf renders `dependsOn: [resource]`: a bare reference.
    const ref = (id?: string) => `null_resource.${id}`;
    expect(healthCheck(out, 'search-api', 'prod-eu').depends_on).toEqual([ref(envWrite), ref(jsonWrite)]);
    expect(healthCheck(out, 'search-api', 'prod-us').depends_on).toEqual([ref(envWrite), ref(jsonWrite)]);
    const storeId = oneResource(out, '_recorder-store_', '_Store_').id;
    expect(healthCheck(out, 'ingest', 'prod-eu').depends_on).toEqual([ref(jsonWrite), ref(storeId)]);
    expect(healthCheck(out, 'outputs-only', 'prod-us').depends_on).toBeUndefined();
    expect(healthCheck(out, 'none', 'prod-eu').depends_on).toBeUndefined();
    // The Registration is never a dependency of a check: only the Write writes values.
    expect(JSON.stringify(out.resource.null_resource)).not.toMatch(/"(\$\{)?null_resource\.[^"]*_Registration_[^".]*\}?"/);
  });

  test('with health checks disabled, targets are still bound', () => {
    const stack = newStack();
    accessIn(stack, {
      healthCheck: { enabled: false },
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }],
    });
    const out = synthJson(stack);
    expect(Object.keys(out.resource.null_resource).map((id) => id.replace(/_[0-9A-F]{8}$/, ''))).toEqual([
      'Qdrant_SecretTargets_env-file-env_Registration',
      'Qdrant_SecretTargets_env-file-env_Write',
    ]);
  });
});

describe('late targets and grants; binding once', () => {
  test('a target added with addSecretTarget after construction, and a grant added after it, are both reflected', () => {
    const stack = newStack();
    const access = accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }] });
    const key = access.apiKeys[0];
    const rec = new Recorder('late');
    key.addSecretTarget(rec, { prefix: 'APP_' });
    const late = access.addApiKey({ name: 'ingest' });
    late.addSecretTarget(rec);
    late.grant(access.findCluster('prod-us')!);
    key.grant(access.findCluster('prod-us')!);
    expect(key.secretTargets).toEqual([rec]);

    const first = Testing.synth(stack, true);
    expect(names(JSON.parse(first), 'late')).toEqual([
      'APP_QDRANT_PROD_EU_URL', 'APP_QDRANT_PROD_EU_GRPC_URL', 'APP_QDRANT_PROD_EU_API_KEY',
      'APP_QDRANT_PROD_US_URL', 'APP_QDRANT_PROD_US_GRPC_URL', 'APP_QDRANT_PROD_US_API_KEY',
      'QDRANT_PROD_US_URL', 'QDRANT_PROD_US_GRPC_URL', 'QDRANT_PROD_US_API_KEY',
    ]);

    // A second synth binds nothing again: same JSON, one bind, one scope per target.
    expect(Testing.synth(stack, true)).toEqual(first);
    expect(rec.binds).toHaveLength(1);
    const scope = access.node.findChild('SecretTargets');
    expect(scope.node.children.map((c) => c.node.id)).toEqual(['recorder-late']);
  });

  test('file targets are bound once across two synths', () => {
    const stack = newStack();
    const access = accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }] });
    access.apiKeys[0].addSecretTarget(SecretTarget.dotenv({ path: '.env' }));
    access.apiKeys[0].grant(access.findCluster('prod-us')!);
    const first = Testing.synth(stack, true);
    const second = Testing.synth(stack, true);
    expect(second).toEqual(first);
    const json = JSON.parse(second);
    expect(nullResources(json, '_Registration_')).toHaveLength(1);
    expect(nullResources(json, '_Write_')).toHaveLength(1);
    expect(JSON.parse(oneResource(json, '_Registration_').res.triggers.names)).toEqual([EU.url, EU.grpc, EU.apiKey, US.url, US.grpc, US.apiKey]);
    expect(healthCheck(json, 'search-api', 'prod-us').depends_on).toHaveLength(1);
  });

  test('an override that no longer matches after a later grant is reported (names are decided at synth)', () => {
    const stack = newStack();
    const access = accessIn(stack, {
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })], secretNaming: { names: { QDRANT_API_KEY: 'KEY' } } }],
    });
    access.apiKeys[0].grant(access.findCluster('prod-us')!);
    expect(synthErrors(stack)).toEqual([
      '[test/Qdrant] secret target .env file ".env": key "search-api" renames "QDRANT_API_KEY", which is not one of its entries ' +
        '(QDRANT_PROD_EU_URL, QDRANT_PROD_EU_GRPC_URL, QDRANT_PROD_EU_API_KEY, QDRANT_PROD_US_URL, QDRANT_PROD_US_GRPC_URL, ' +
        'QDRANT_PROD_US_API_KEY); the keys of names are default names, without the prefix',
    ]);
  });
});

describe('the key never reaches the synthesized stack', () => {
  const CANARY = 'canary-qdrant-key-5f1e';
  const ENV_NAMES = ['TF_VAR_search_key', 'TF_VAR_qdrant_api_key_ingest'];
  const saved: Record<string, string | undefined> = {};

  beforeEach(() => {
    for (const name of ENV_NAMES) {
      saved[name] = process.env[name];
      process.env[name] = CANARY;
    }
  });
  afterEach(() => {
    for (const name of ENV_NAMES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  function build(stack: TerraformStack, extra: (access: ClusterAccess) => void = () => undefined): void {
    const variable = new TerraformVariable(stack, 'search_key', { type: 'string', sensitive: true });
    const access = accessIn(stack, {
      apiKeys: [
        {
          name: 'search-api',
          clusters: ['prod-eu', 'prod-us'],
          source: ApiKeySource.fromVariable(variable),
          secretTargets: [SecretTarget.dotenv({ path: '.env' }), SecretTarget.json({ path: 'secrets.json' }), SecretTarget.terraformOutputs()],
        },
        { name: 'ingest', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: 'ingest.env' })] },
      ],
    });
    extra(access);
  }

  test('a successful synth holds references only', () => {
    const stack = newStack();
    build(stack);
    const synthesized = Testing.synth(stack, true);
    expect(process.env.TF_VAR_search_key).toBe(CANARY);
    expect(synthesized).not.toContain(CANARY);
    expect(synthesized).toContain('TF_VAR_search_key');
    expect(synthesized).toContain('var.search_key');
    expect(synthesized).toContain('TF_VAR_qdrant_api_key_ingest');
  });

  test('a failing synth does not show it either', () => {
    const stack = newStack();
    build(stack, (access) => {
      access.apiKeys[1].addSecretTarget(SecretTarget.dotenv({ path: '' }));
      access.apiKeys[1].addSecretTarget(SecretTarget.terraformOutputs(), { prefix: 'bad-' });
      access.apiKeys[0].addSecretTarget(SecretTarget.json({ path: 'test' }), { names: { NOPE: 'X' } });
    });
    const message = synthMessage(stack);
    expect(message).toContain('the path is empty');
    expect(message).toContain('has prefix "bad-"');
    expect(message).toContain('renames "NOPE"');
    expect(message).toContain('is a directory');
    expect(message).not.toContain(CANARY);
  });
});
