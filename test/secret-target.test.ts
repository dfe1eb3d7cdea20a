/**
 * Secret targets as the stack holds them: which entries each target receives (names, prefixes,
 * renames), the errors one synth reports (collisions within an access, across accesses and across
 * the stacks of one app), the file targets' Write and Registration, the outputs gate, and the
 * rule that every store is written only after the health checks of its keys.
 *
 * Targets are bound in an aspect at synth: every test synthesizes with `Testing.synth(stack, true)`
 * (aspects, then validations) or `app.synth()`.
 */
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { provider, resource } from '@cdktf/provider-null';
import { TerraformAsset, TerraformLocal, TerraformResource, TerraformStack, TerraformVariable, Testing } from 'cdktf';
import { Construct } from 'constructs';
import * as dotenv from 'dotenv';
import {
  ApiKeyOptions,
  ApiKeySource,
  ClusterAccess,
  ClusterAccessProps,
  ISecretTarget,
  SecretEntryKind,
  SecretTarget,
  SecretTargetBindOptions,
  SecretTargetConfig,
} from '../src';
import { inDefaultWorkspace, inputFileOf, newStack, stateOwner, synthErrors, synthJson, synthMessage, synthToDir } from './support/synth';
import { NODE_MISSING } from '../assets/runtime/protocol';

/** What the writer's commands start with: without node on PATH, one line that says what to do. */
const NODE_GUARD = `command -v node >/dev/null 2>&1 || { echo '${NODE_MISSING.writer}' >&2; exit 127; }; `;

/** The owner of the entries a file target writes: the access's construct path, per Terraform workspace. */
const OWNER = stateOwner('test/Qdrant');

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';
const URL_US = 'https://def-456.us-east-1-0.aws.cloud.qdrant.io';
const CLUSTERS = [{ name: 'prod-eu', url: URL_EU }, { name: 'prod-us', url: URL_US }];
const REPO = path.join(__dirname, '..');

/**
 * A target of our own that records what `bind` receives, and puts the entries into one output
 * (`recorded_<label>`) so that their token values can be read back resolved from the JSON.
 */
class Recorder implements ISecretTarget {
  public readonly description: string;
  public readonly binds: SecretTargetBindOptions[] = [];

  constructor(private readonly label: string) {
    this.description = `recorder ${label}`;
  }

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    this.binds.push(options);
    // A local: written nowhere (an output would be refused: it cannot wait for the checks).
    new TerraformLocal(scope, 'Recorded', options.entries).overrideLogicalId(`recorded_${this.label}`);
    return {};
  }
}

/** The entries a recorder received, values resolved, from the synthesized JSON. */
function recorded(json: any, label: string): any[] {
  return json.locals[`recorded_${label}`];
}

/** Entry names only. */
function names(json: any, label: string): string[] {
  return recorded(json, label).map((e) => e.name);
}

/** The three entries of one key on one cluster, as `bind` receives them (resolved). */
function entriesOf(key: string, cluster: string, url: string, n: { url: string; grpc: string; apiKey: string }, ports = [6333, 6334]) {
  const variable = `qdrant_api_key_${key.replace(/-/g, '_')}`;
  return [
    { name: n.url, kind: SecretEntryKind.REST_URL, value: `${url}:${ports[0]}`, sensitive: false, ephemeral: false, keyName: key, clusterName: cluster },
    { name: n.grpc, kind: SecretEntryKind.GRPC_URL, value: `${url}:${ports[1]}`, sensitive: false, ephemeral: false, keyName: key, clusterName: cluster },
    { name: n.apiKey, kind: SecretEntryKind.API_KEY, value: `\${var.${variable}}`, sensitive: true, ephemeral: false, keyName: key, clusterName: cluster },
  ];
}

const PLAIN = { url: 'QDRANT_URL', grpc: 'QDRANT_GRPC_URL', apiKey: 'QDRANT_API_KEY' };
const EU = { url: 'QDRANT_PROD_EU_URL', grpc: 'QDRANT_PROD_EU_GRPC_URL', apiKey: 'QDRANT_PROD_EU_API_KEY' };
const US = { url: 'QDRANT_PROD_US_URL', grpc: 'QDRANT_PROD_US_GRPC_URL', apiKey: 'QDRANT_PROD_US_API_KEY' };

function accessIn(stack: TerraformStack, props: ClusterAccessProps, id = 'Qdrant'): ClusterAccess {
  return new ClusterAccess(stack, id, { clusters: CLUSTERS, ...props });
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

/** The health check of a key in the construct tree: `<access>/ApiKeys/<key>/HealthCheck/Resource`. */
function checkResource(access: ClusterAccess, key: string): TerraformResource {
  return access.node.findChild('ApiKeys').node.findChild(key).node.findChild('HealthCheck').node.findChild('Resource') as TerraformResource;
}

/** A resource's address, as cdktf writes it in `depends_on`. */
function ref(r: TerraformResource): string {
  return `${r.terraformResourceType}.${r.friendlyUniqueId}`;
}

/** `depends_on` without repeats, in first-seen order (that there are none is tested on its own). */
function deps(res: any): string[] | undefined {
  return res.depends_on === undefined ? undefined : [...new Set<string>(res.depends_on)];
}

/** The runtime's CLI in a stack: `assets/QdrantClusterAccess_Runtime_<hash>/<hash>/<cli>`. */
const RUNTIME_CLI = /^assets\/QdrantClusterAccess_Runtime_[0-9A-F]{8}\/[0-9A-F]{32}\/(checker|writer)\/cli\.js$/;

/** Every `"$VAR"` of a command is set in its environment (the command is usable as it stands). */
function expectEveryVariableSet(exec: { command: string; environment: Record<string, string> }): void {
  const used = [...exec.command.matchAll(/"\$([A-Z_][A-Z0-9_]*)"/g)].map((m) => m[1]);
  expect(used.length).toBeGreaterThan(0);
  expect(used.filter((v) => !(v in exec.environment))).toEqual([]);
}

/** A temp dir for one test, removed by the caller. */
function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

describe('naming: what each target receives', () => {
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
    expect(recorded(synthJson(stack), 'dedupe')).toEqual([
      ...entriesOf('search-api', 'prod-eu', URL_EU, EU),
      ...entriesOf('search-api', 'prod-us', URL_US, US),
      entriesOf('ingest', 'prod-eu', URL_EU, { ...EU, apiKey: 'INGEST_API_KEY' })[2],
    ]);
  });
});

describe('validation: one synth reports every error', () => {
  test('naming errors and path errors, each with its construct path', () => {
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
      '[test/Qdrant] secret target JSON file "secrets.json": key "admin" has prefix "app-", which is not a variable name: ' +
        'environment-variable names hold only letters, digits and "_", do not start with a digit, and have at most 256 characters, such as "APP_"',
      '[test/Qdrant] secret target JSON file "secrets.json": key "admin" renames "QDRANT_URL", which is not one of its entries ' +
        '(QDRANT_PROD_EU_URL, QDRANT_PROD_EU_GRPC_URL, QDRANT_PROD_EU_API_KEY, QDRANT_PROD_US_URL, QDRANT_PROD_US_GRPC_URL, ' +
        'QDRANT_PROD_US_API_KEY); the keys of names are default names, without the prefix',
      '[test/Qdrant] secret target JSON file "secrets.json": key "admin" renames "QDRANT_PROD_US_URL" to "prod us url", ' +
        'which is not a variable name the writers accept: entry names are environment-variable names (letters, digits and "_", not starting with a digit, ' +
        'at most 256 characters), and not "__proto__" (JavaScript readers such as the npm dotenv package drop it)',
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
        '(REST endpoint of cluster "prod-eu") and for key "ingest" (REST endpoint of cluster "prod-us"); give key "ingest" another name with its secretNaming (or addSecretTarget(target, naming)), ' +
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

  test('a file with more than one hard link is refused (the writer would split it from its other links)', () => {
    const dir = tempDir('qca-st-');
    try {
      const file = path.join(dir, 'app.env');
      fs.writeFileSync(file, 'A=1\n');
      fs.linkSync(file, path.join(dir, 'other.env'));
      const stack = newStack();
      accessIn(stack, {
        apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: file })] }],
      });
      expect(synthErrors(stack)).toEqual([expect.stringMatching(/^\[test\/Qdrant\/SecretTargets\/\.env-file-[^\]]*-app\.env\] secret target \.env file /)]);
      expect(synthErrors(stack)[0]).toContain(`: ${JSON.stringify(file)} has 2 hard links, which the writer refuses (it replaces the file, ` +
        'so the other links would keep the old content); give the path of a file with one link');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a path that is a symbolic link is refused (the writer would replace the link)', () => {
    const dir = tempDir('qca-st-');
    try {
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
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a "${" in the path is refused at synth (Terraform would read it as an expression)', () => {
    const stack = newStack();
    accessIn(stack, { apiKeys: [{ name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: 'x${y}.env' })] }] });
    expect(synthErrors(stack)).toEqual([
      `[test/Qdrant/SecretTargets/.env-file-x-y-.env] secret target .env file "x\${y}.env": the file ${JSON.stringify(path.resolve('x${y}.env'))} ` +
        'holds "${", "%{" or a control character, which Terraform would read as an expression or which breaks a command line; ' +
        'move or rename it (the check runs at deploy and destroy with this value)',
    ]);
  });

  test('a plain relative path is refused when the working directory holds "${" (the resolved path is what reaches Terraform)', () => {
    const root = tempDir('qca-cwd-');
    const cwd = process.cwd();
    try {
      const dir = path.join(root, 'x${y}');
      fs.mkdirSync(dir);
      process.chdir(dir);
      const stack = newStack();
      accessIn(stack, { apiKeys: [{ name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }] });
      const errors = synthErrors(stack);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^\[test\/Qdrant\/SecretTargets\/\.env-file-\.env\] secret target \.env file "\.env": the file "/);
      expect(errors[0]).toContain(`${JSON.stringify(path.join(fs.realpathSync(root), 'x${y}', '.env')).slice(1, -1)}" holds "\${"`);
    } finally {
      process.chdir(cwd);
      fs.rmSync(root, { recursive: true, force: true });
    }
    expect(process.cwd()).toBe(cwd);
  });

  test('an owner (the access\'s construct path) with a space, "$" or backticks is refused for a shared file', () => {
    const stack = new TerraformStack(Testing.app(), 'my$stack');
    accessIn(stack, { apiKeys: [{ name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }] }, 'Q drant`id`');
    expect(synthErrors(stack)).toEqual([
      '[my$stack/Q drant`id`/SecretTargets/.env-file-.env] secret target .env file ".env": this ClusterAccess\'s construct path ' +
        '"my$stack/Q drant`id`" cannot name its entries in a shared file: construct paths that own entries hold only A-Z a-z 0-9 _ . : @ / + - ' +
        '(starting with a letter, digit or _); give the stack and the construct simpler ids',
    ]);
  });

  test('a plain owner passes, and reaches the writer as it is', () => {
    const stack = new TerraformStack(Testing.app(), 'prod.eu-1');
    accessIn(stack, { apiKeys: [{ name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }] }, 'Qdrant_2');
    const write = oneResource(synthJson(stack), '_Write_').res;
    expect(write.provisioner[0]['local-exec'].environment.QCA_OWNER).toBe(stateOwner('prod.eu-1/Qdrant_2'));
  });

  test('file target options are checked by value, at once (a value object has no scope)', () => {
    const call = (o: unknown) => () => SecretTarget.json(o as any);
    expect(call({ pth: 'a.json' })).toThrow('SecretTarget.json(options) has unknown property "pth"; did you mean "path"?');
    expect(call({ path: 1 })).toThrow('SecretTarget.json(options).path must be a string; got 1');
    expect(call(null)).toThrow('SecretTarget.json(options) must be an object (FileSecretTargetOptions); got null');
    expect(() => SecretTarget.dotenv({ path: '.env', mode: 600 } as any)).toThrow('SecretTarget.dotenv(options) has unknown property "mode"; FileSecretTargetOptions has path');
  });

  test('secretNaming and secretTargets are checked by value: a typo gets "did you mean", a wrong type an error', () => {
    const stack = newStack();
    accessIn(stack, {
      apiKeys: [
        { name: 'k', clusters: ['prod-eu'], secretTargets: [SecretTarget.terraformOutputs()], secretNaming: { prefx: 'A_', names: { QDRANT_URL: 5 } } as any },
        { name: 'j', clusters: ['prod-eu'], secretTargets: ['.env' as any] },
      ],
    });
    const errors = synthErrors(stack).join('\n');
    expect(errors).toContain('secretNaming has unknown property "prefx"; did you mean "prefix"?');
    expect(errors).toContain('secretNaming.names must be a map of strings; got an object with key "QDRANT_URL" (values not shown: they may hold an API key)');
    expect(errors).toContain('key "j" secretTarget must be an ISecretTarget (e.g. SecretTarget.dotenv({ path })); got ".env"');
    expect(errors).not.toContain('@property'); // not a half target: no hint
  });

  test('an object with bind() but no description string: the message says a description is needed (in Python, a @property)', () => {
    const stack = newStack();
    // What a Python class with `self.description = "x"` in __init__ looks like from JavaScript.
    const halfTarget = { bind: () => ({}) } as any;
    accessIn(stack, { apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [halfTarget, { foo: 1 } as any] }] });
    expect(synthErrors(stack)).toEqual([
      '[test/Qdrant/ApiKeys/k] key "k" secretTarget must be an ISecretTarget (e.g. SecretTarget.dotenv({ path })); got an object with key "bind" ' +
        '(values not shown: they may hold an API key) (a target needs a description (text, not empty) besides bind(); in Python, declare description as a @property)',
      // Not a target at all: no word about descriptions.
      '[test/Qdrant/ApiKeys/k] key "k" secretTarget must be an ISecretTarget (e.g. SecretTarget.dotenv({ path })); got an object with key "foo" ' +
        '(values not shown: they may hold an API key)',
    ]);
  });

  test('an empty description is refused too (the setup guide names each target by it)', () => {
    const stack = newStack();
    accessIn(stack, { apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [{ description: ' ', bind: () => ({}) } as any] }] });
    expect(synthErrors(stack)).toEqual([expect.stringContaining('(a target needs a description (text, not empty) besides bind()')]);
  });

  // BUG (src/cluster-access.ts:174, src/api-key.ts:230): a key's props are checked twice, once as
  // `ClusterAccess props.apiKeys[i]` and again when addApiKey hands them to addSecretTarget (once
  // per target), so every secretNaming/secretTargets problem is reported at least twice.
  test('a wrong secretNaming is reported once', () => {
    const stack = newStack();
    accessIn(stack, { apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [SecretTarget.terraformOutputs()], secretNaming: { prefx: 'A_' } as any }] });
    expect(synthErrors(stack).filter((e) => e.includes('"prefx"'))).toHaveLength(1);
  });

  test('a missing file is fine at synth (it is created at deploy)', () => {
    const stack = newStack();
    accessIn(stack, {
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: 'no-such-dir/.env' })] }],
    });
    expect(synthErrors(stack)).toEqual([]);
  });
});

describe('collisions on one file, wherever the bindings are', () => {
  const clash = (name: string, key: string, file: string, otherKey: string, otherBinding: string) =>
    `entry "${name}" (key "${key}") is already written to file ${JSON.stringify(file)} by key "${otherKey}" of ${otherBinding}; ` +
    // Another ClusterAccess binds the file on its own: one target object is no fix there.
    'give one of the two keys a prefix (secretNaming: { prefix: "..." }), or the entry another name (secretNaming: { names: { ... } })';

  // Found by a review with real terraform: two targets for one file in one ClusterAccess passed synth
  // when their names differed, and each Write set the owner's entries to its own: the deploy
  // left one key's entries out of the file, and the next said "No changes".
  test.each([
    ['names that collide', {}, {}, 'dotenv', '.env', '.env'],
    ['distinct names (prefixes)', { prefix: 'EU_' }, { prefix: 'US_' }, 'dotenv', '.env', '.env'],
    ['distinct names, JSON', { prefix: 'EU_' }, { prefix: 'US_' }, 'json', 'secrets.json', 'secrets.json'],
    ['another spelling of the file', { prefix: 'EU_' }, { prefix: 'US_' }, 'dotenv', '.env', './.env'],
  ] as const)('within one access: two target objects for one file are an error (%s)', (_, namingA, namingB, format, pathA, pathB) => {
    const stack = newStack();
    const target = (p: string) => (format === 'json' ? SecretTarget.json({ path: p }) : SecretTarget.dotenv({ path: p }));
    accessIn(stack, {
      apiKeys: [
        { name: 'a', clusters: ['prod-eu'], secretTargets: [target(pathA)], secretNaming: namingA },
        { name: 'b', clusters: ['prod-us'], secretTargets: [target(pathB)], secretNaming: namingB },
      ],
    });
    const errs = synthErrors(stack);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(new RegExp(`^\\[test/Qdrant/SecretTargets/[^\\]]+\\] secret target ${format === 'json' ? 'JSON' : '\\.env'} file "${pathB.replace(/\./g, '\\.')}": ` +
      `file "${path.resolve(pathA).replace(/\./g, '\\.')}" is also the target of test/Qdrant/SecretTargets/[^ ]+, in the same ClusterAccess: ` +
      'each target would set this ClusterAccess\'s entries in the file to its own, dropping the other\'s; ' +
      `give every key that writes to this file the same SecretTarget\\.${format}\\(\\.\\.\\.\\) object, or use another file$`));
  });

  test('a file that another access writes too: two objects of a second access are still an error', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'A', {
      clusters: CLUSTERS,
      healthCheck: { enabled: false },
      apiKeys: [{ name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: 'shared.env' })], secretNaming: { prefix: 'A_' } }],
    });
    new ClusterAccess(stack, 'B', {
      clusters: [{ name: 'b-eu', url: URL_EU }, { name: 'b-us', url: URL_US }],
      healthCheck: { enabled: false },
      apiKeys: [
        { name: 'b1', clusters: ['b-eu'], secretTargets: [SecretTarget.dotenv({ path: 'shared.env' })], secretNaming: { prefix: 'B1_' } },
        { name: 'b2', clusters: ['b-us'], secretTargets: [SecretTarget.dotenv({ path: 'shared.env' })], secretNaming: { prefix: 'B2_' } },
      ],
    });
    const errs = synthErrors(stack);
    expect(errs).toEqual([expect.stringMatching(/^\[test\/B\/SecretTargets\/\.env-file-shared\.env-2\] secret target \.env file "shared\.env": file ".*shared\.env" is also the target of test\/B\/SecretTargets\/\.env-file-shared\.env, in the same ClusterAccess/)]);
  });

  test('within one access: one target object for both keys is fine', () => {
    const stack = newStack();
    const env = SecretTarget.dotenv({ path: '.env' });
    accessIn(stack, {
      apiKeys: [
        { name: 'a', clusters: ['prod-eu'], secretTargets: [env], secretNaming: { prefix: 'EU_' } },
        { name: 'b', clusters: ['prod-us'], secretTargets: [env], secretNaming: { prefix: 'US_' } },
      ],
    });
    expect(synthErrors(stack)).toEqual([]);
  });

  test('across two accesses of one stack', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Search', {
      clusters: [{ name: 'eu', url: URL_EU }],
      apiKeys: [{ name: 'search-api', clusters: ['eu'], secretTargets: [SecretTarget.json({ path: 'app.json' })] }],
    });
    new ClusterAccess(stack, 'Ingest', {
      clusters: [{ name: 'us', url: URL_US }],
      apiKeys: [{ name: 'ingest', clusters: ['us'], secretTargets: [SecretTarget.json({ path: 'app.json' })], secretNaming: { names: { QDRANT_GRPC_URL: 'INGEST_GRPC_URL' } } }],
    });
    const file = path.resolve('app.json');
    expect(synthErrors(stack)).toEqual(['QDRANT_URL', 'QDRANT_API_KEY'].map((n) =>
      `[test/Ingest/SecretTargets/JSON-file-app.json] secret target JSON file "app.json": ${clash(n, 'ingest', file, 'search-api', 'test/Search/SecretTargets/JSON-file-app.json')}`));
  });

  test('two accesses writing different names into one file is fine: each owns its entries', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Search', {
      clusters: [{ name: 'eu', url: URL_EU }],
      apiKeys: [{ name: 'search-api', clusters: ['eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }],
    });
    new ClusterAccess(stack, 'Ingest', {
      clusters: [{ name: 'us', url: URL_US }],
      apiKeys: [{ name: 'ingest', clusters: ['us'], secretTargets: [SecretTarget.dotenv({ path: '.env' })], secretNaming: { prefix: 'INGEST_' } }],
    });
    const { json, dir } = synthToDir(stack);
    const writes = nullResources(json, '_Write_').map(([, r]) => r.provisioner[0]['local-exec'].environment);
    expect(writes.map((e) => [e.QCA_FILE, e.QCA_OWNER, Object.keys(inputFileOf(dir, e, 'QCA_ENTRIES_FILE').entriesFromEnv)])).toEqual([
      [path.resolve('.env'), stateOwner('test/Ingest'), ['INGEST_QDRANT_API_KEY']],
      [path.resolve('.env'), stateOwner('test/Search'), ['QDRANT_API_KEY']],
    ]);
  });

  test('across two stacks of one app, spelled "./x/.env" and "x/.env"; dotenv and json on one file', () => {
    const app = Testing.app();
    accessIn(new TerraformStack(app, 'one'), {
      apiKeys: [{ name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: './x/.env' })] }],
    });
    accessIn(new TerraformStack(app, 'two'), {
      apiKeys: [{ name: 'b', clusters: ['prod-us'], secretTargets: [SecretTarget.dotenv({ path: 'x/.env' }), SecretTarget.json({ path: 'x/../x/.env' })] }],
    });
    const file = path.resolve('x/.env');
    const first = 'one/Qdrant/SecretTargets/.env-file-.-x-.env';
    let message = '';
    try {
      app.synth();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('['))).toEqual([
      ...['QDRANT_URL', 'QDRANT_GRPC_URL', 'QDRANT_API_KEY'].map((n) =>
        `[two/Qdrant/SecretTargets/.env-file-x-.env] secret target .env file "x/.env": ${clash(n, 'b', file, 'a', first)}`),
      // The other format on the same file: an error naming both construct paths.
      `[two/Qdrant/SecretTargets/JSON-file-x-..-x-.env] secret target JSON file "x/../x/.env": file ${JSON.stringify(file)} ` +
        `is written as json here and as dotenv by ${first}; one file has one format: use another file for one of them`,
    ]);
  });

  test('across two stacks of one app, through a symlinked directory', () => {
    const dir = tempDir('qca-link-');
    try {
      const real = path.join(dir, 'real');
      fs.mkdirSync(real);
      const linked = path.join(dir, 'linked');
      fs.symlinkSync(real, linked);
      const app = Testing.app();
      accessIn(new TerraformStack(app, 'one'), {
        apiKeys: [{ name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: path.join(real, '.env') })] }],
      });
      accessIn(new TerraformStack(app, 'two'), {
        apiKeys: [{ name: 'b', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: path.join(linked, '.env') })], secretNaming: { prefix: 'B_' } }],
      });
      accessIn(new TerraformStack(app, 'three'), {
        apiKeys: [{ name: 'c', clusters: ['prod-eu'], secretTargets: [SecretTarget.json({ path: path.join(linked, '.env') })], secretNaming: { prefix: 'C_' } }],
      });
      // Each stack is synthesized in order, as `cdktf synth` does: the first binding claims the file.
      expect(synthErrors(app.node.findChild('one') as TerraformStack)).toEqual([]);
      // Other names in the same file, through the link: fine.
      expect(synthErrors(app.node.findChild('two') as TerraformStack)).toEqual([]);
      // Another format, through the link: the same file.
      expect(synthErrors(app.node.findChild('three') as TerraformStack)).toEqual([
        expect.stringMatching(/^\[three\/Qdrant\/SecretTargets\/JSON-file-[^\]]*-linked-\.env\] secret target JSON file /),
      ]);
      expect(synthErrors(app.node.findChild('three') as TerraformStack)[0]).toContain(
        `: file ${JSON.stringify(path.join(linked, '.env'))} is written as json here and as dotenv by one/Qdrant/SecretTargets/`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('two apps never share claims (each app is one deployment)', () => {
    for (const key of ['a', 'b']) {
      const stack = newStack();
      accessIn(stack, { apiKeys: [{ name: key, clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }] });
      expect(synthErrors(stack)).toEqual([]);
    }
  });
});

describe('SecretTarget.dotenv() and SecretTarget.json(): Write and Registration', () => {
  test('dotenv: a Write that waits for the check, and a Registration that removes the entries on destroy', () => {
    const stack = newStack();
    const access = accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: 'app/.env' })] }] });
    expect(Testing.synth(stack, true)).toHaveResourceWithProperties(resource.Resource, { triggers: expect.objectContaining({ format: 'dotenv', owner: OWNER }) });
    const { json, dir } = synthToDir(stack);
    const registration = oneResource(json, 'Qdrant_SecretTargets_env-file-app-env_Registration_');
    const write = oneResource(json, 'Qdrant_SecretTargets_env-file-app-env_Write_');
    const check = ref(checkResource(access, 'search-api'));
    const file = path.resolve('app/.env');
    const cli = write.res.provisioner[0]['local-exec'].environment.QCA_CLI;
    expect(cli).toMatch(RUNTIME_CLI);
    expect(cli).toMatch(/\/writer\/cli\.js$/);

    // The entries, in a file of the stack named by its sha256: only the URLs are literal; the key
    // is read from the variable Terraform inherits; the hash of Terraform's value of it, known only
    // at deploy, is in a variable of its own (the writer refuses a TF_VAR_ that differs: -var, .tfvars).
    const inputs = fs.readFileSync(path.join(dir, write.res.provisioner[0]['local-exec'].environment.QCA_ENTRIES_FILE), 'utf8');
    expect(JSON.parse(inputs)).toEqual({
      entries: { QDRANT_URL: `${URL_EU}:6333`, QDRANT_GRPC_URL: `${URL_EU}:6334` },
      entriesFromEnv: { QDRANT_API_KEY: 'TF_VAR_qdrant_api_key_search_api' },
      entriesSha256: { TF_VAR_qdrant_api_key_search_api: { $env: 'QCA_VALUE_1' } },
    });
    const inputsSha256 = createHash('sha256').update(inputs).digest('hex');
    const { depends_on: writeDeps, ...writeRest } = write.res;
    expect([...new Set(writeDeps)]).toEqual([check]);
    expect(writeRest).toEqual({
      triggers: {
        // Sorted by name: the order of the entries does not show.
        values_sha256: '${sha256(jsonencode({"QDRANT_API_KEY" = var.qdrant_api_key_search_api, ' +
          `"QDRANT_GRPC_URL" = "${URL_EU}:6334", "QDRANT_URL" = "${URL_EU}:6333"}))}`,
        writer: expect.stringMatching(/^[0-9A-F]{32}$/),
        file,
        format: 'dotenv',
        owner: OWNER,
      },
      provisioner: [{
        'local-exec': {
          command: `${NODE_GUARD}node "$QCA_CLI" write --file "$QCA_FILE" --format "$QCA_FORMAT" --owner "$QCA_OWNER"`,
          environment: {
            QCA_CLI: cli,
            QCA_FILE: file,
            QCA_FORMAT: 'dotenv',
            QCA_OWNER: OWNER,
            QCA_ENTRIES_FILE: `qdrant-cluster-access-inputs/${inputsSha256}.json`,
            QCA_ENTRIES_FILE_SHA256: inputsSha256,
            QCA_VALUE_1: '${nonsensitive(sha256((var.qdrant_api_key_search_api == null) ? "" : var.qdrant_api_key_search_api))}',
          },
        },
      }],
    });
    expect(cli).toContain(`/${write.res.triggers.writer}/`);

    const { depends_on: regDeps, ...regRest } = registration.res;
    // Created only after a write succeeded; under the bind scope, so it waits for the check too.
    expect([...new Set(regDeps)]).toEqual([`null_resource.${write.id}`, check]);
    expect(regRest).toEqual({
      // Its identity only: neither the names nor their order replace it.
      triggers: { file, format: 'dotenv', owner: OWNER },
      provisioner: [{
        'local-exec': {
          when: 'destroy',
          command: `${NODE_GUARD}node "$QCA_CLI" remove --file "$QCA_FILE" --format "$QCA_FORMAT" --owner "$QCA_OWNER"`,
          environment: {
            QCA_CLI: cli,
            QCA_FILE: '${self.triggers.file}',
            QCA_FORMAT: '${self.triggers.format}',
            QCA_OWNER: '${self.triggers.owner}',
            // The writer removes every entry the file records for the owner, and no other name.
            QCA_ENTRIES: '{}',
          },
        },
      }],
    });
    expect(path.isAbsolute(registration.res.triggers.file)).toBe(true);
    expectEveryVariableSet(write.res.provisioner[0]['local-exec']);
    expectEveryVariableSet(registration.res.provisioner[0]['local-exec']);
  });

  test('no key in a command or a trigger, except its sha256; no key reference in the Write\'s environment for a variable key', () => {
    const stack = newStack();
    accessIn(stack, {
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu', 'prod-us'], secretTargets: [SecretTarget.dotenv({ path: '.env' }), SecretTarget.json({ path: 's.json' })] }],
    });
    const json = synthJson(stack);
    const targets = [...nullResources(json, '_Write_'), ...nullResources(json, '_Registration_')];
    expect(targets).toHaveLength(4);
    for (const [id, res] of targets) {
      const exec = res.provisioner[0]['local-exec'];
      expect([id, exec.command]).not.toEqual([id, expect.stringContaining('var.')]);
      for (const [name, value] of Object.entries<string>(res.triggers)) {
        if (name === 'values_sha256') expect(value).toMatch(/^\$\{sha256\(jsonencode\(\{.*\}\)\)\}$/);
        else expect(`${id}.${name}=${inDefaultWorkspace(value)}`).not.toMatch(/var\.|TF_VAR_|\$\{(?!self\.)/);
      }
      // The writer's provisioner holds nothing derived from the key (that would hide its output)
      // but the nonsensitive hash it compares with the TF_VAR_... it reads.
      const { QCA_VALUE_1: hashes, ...environment } = exec.environment;
      if (id.includes('_Write_')) {
        expect(hashes).toBe('${nonsensitive(sha256((var.qdrant_api_key_search_api == null) ? "" : var.qdrant_api_key_search_api))}');
      } else {
        expect(hashes).toBeUndefined();
      }
      expect(JSON.stringify({ ...exec, environment })).not.toContain('var.');
    }
  });

  test('json: the same resources with format json, and names for several clusters', () => {
    const stack = newStack();
    accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu', 'prod-us'], secretTargets: [SecretTarget.json({ path: 'secrets.json' })] }] });
    const { json, dir } = synthToDir(stack);
    const registration = oneResource(json, '_Registration_').res;
    const write = oneResource(json, '_Write_').res;
    expect(registration.triggers).toEqual({ file: path.resolve('secrets.json'), format: 'json', owner: OWNER });
    expect(write.triggers).toMatchObject({ file: path.resolve('secrets.json'), format: 'json', owner: OWNER });
    const exec = write.provisioner[0]['local-exec'];
    expect(exec.command).toBe(`${NODE_GUARD}node "$QCA_CLI" write --file "$QCA_FILE" --format "$QCA_FORMAT" --owner "$QCA_OWNER"`);
    expect(exec.environment.QCA_FORMAT).toBe('json');
    const inputs = inputFileOf(dir, exec.environment, 'QCA_ENTRIES_FILE');
    expect(inputs.entries).toEqual({
      QDRANT_PROD_EU_URL: `${URL_EU}:6333`,
      QDRANT_PROD_EU_GRPC_URL: `${URL_EU}:6334`,
      QDRANT_PROD_US_URL: `${URL_US}:6333`,
      QDRANT_PROD_US_GRPC_URL: `${URL_US}:6334`,
    });
    expect(inputs.entriesFromEnv).toEqual({
      QDRANT_PROD_EU_API_KEY: 'TF_VAR_qdrant_api_key_search_api',
      QDRANT_PROD_US_API_KEY: 'TF_VAR_qdrant_api_key_search_api',
    });
    expect(write.triggers.values_sha256).toContain('"QDRANT_PROD_US_API_KEY" = var.qdrant_api_key_search_api');
  });

  test('the order of keys and clusters changes no trigger; Registration\'s triggers are always a subset of Write\'s', () => {
    const triggers = (order: 'ab' | 'ba') => {
      const stack = newStack();
      const env = SecretTarget.dotenv({ path: '.env' });
      const json = SecretTarget.json({ path: 'secrets.json' });
      const keys = [
        { name: 'a', clusters: order === 'ab' ? ['prod-eu', 'prod-us'] : ['prod-us', 'prod-eu'], secretTargets: [env, json], secretNaming: { prefix: 'A_' } },
        { name: 'b', clusters: ['prod-eu'], secretTargets: [env, json], secretNaming: { prefix: 'B_' } },
      ];
      accessIn(stack, { apiKeys: order === 'ab' ? keys : keys.reverse() });
      const synthesized = synthJson(stack);
      return [...nullResources(synthesized, '_Write_'), ...nullResources(synthesized, '_Registration_')]
        .map(([id, res]) => [id, res.triggers] as const).sort(([x], [y]) => x.localeCompare(y));
    };
    const ab = triggers('ab');
    expect(ab).toHaveLength(4);
    expect(triggers('ba')).toEqual(ab);
    // Every trigger of a Registration is also a trigger of its Write, with the same value: a change
    // that replaces the Registration (its destroy step removes the entries) replaces the Write too
    // (which, created after that removal, writes them again).
    for (const [id, regTriggers] of ab.filter(([i]) => i.includes('_Registration_'))) {
      const writeTriggers = ab.find(([i]) => i.startsWith(id.slice(0, id.indexOf('_Registration_'))) && i.includes('_Write_'))![1];
      expect(writeTriggers).toMatchObject(regTriggers);
    }
  });

  test('a key from ApiKeySource.fromToken is handed over in QCA_SECRET_n, marked sensitive', () => {
    const stack = newStack();
    const vault = new resource.Resource(stack, 'vault_lookup', {});
    const other = new resource.Resource(stack, 'other_lookup', {});
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'eu', url: URL_EU }],
      healthCheck: { enabled: false },
      apiKeys: [
        { name: 'search-api', clusters: ['eu'], source: ApiKeySource.fromToken(vault.id), secretTargets: [SecretTarget.dotenv({ path: '.env' })] },
      ],
    });
    const access2 = new ClusterAccess(stack, 'Other', { clusters: CLUSTERS, healthCheck: { enabled: false } });
    const env = SecretTarget.json({ path: 'both.json' });
    access2.addApiKey({ name: 'a', clusters: ['prod-eu'], source: ApiKeySource.fromToken(vault.id), secretTargets: [env] });
    access2.addApiKey({ name: 'b', clusters: ['prod-us'], source: ApiKeySource.fromToken(other.id), secretTargets: [env] });
    access2.addApiKey({ name: 'c', clusters: ['prod-us'], secretTargets: [env], secretNaming: { prefix: 'C_' } });
    const { json, dir } = synthToDir(stack);

    const one = oneResource(json, 'Qdrant_SecretTargets_', '_Write_').res;
    expect(one.provisioner[0]['local-exec'].environment).toEqual({
      QCA_CLI: expect.stringMatching(RUNTIME_CLI),
      QCA_FILE: path.resolve('.env'),
      QCA_FORMAT: 'dotenv',
      QCA_OWNER: OWNER,
      QCA_ENTRIES_FILE: expect.stringMatching(/^qdrant-cluster-access-inputs\/[0-9a-f]{64}\.json$/),
      QCA_ENTRIES_FILE_SHA256: expect.stringMatching(/^[0-9a-f]{64}$/),
      QCA_SECRET_1: '${sensitive(null_resource.vault_lookup.id)}',
    });
    expect(inputFileOf(dir, one.provisioner[0]['local-exec'].environment, 'QCA_ENTRIES_FILE')).toEqual({
      entries: { QDRANT_URL: `${URL_EU}:6333`, QDRANT_GRPC_URL: `${URL_EU}:6334` },
      entriesFromEnv: { QDRANT_API_KEY: 'QCA_SECRET_1' },
    });
    expect(one.triggers.values_sha256).toContain('"QDRANT_API_KEY" = sensitive(null_resource.vault_lookup.id)');
    expect(one.provisioner[0]['local-exec'].command).not.toContain('vault_lookup');

    const both = oneResource(json, 'Other_SecretTargets_', '_Write_').res.provisioner[0]['local-exec'].environment;
    expect(inputFileOf(dir, both, 'QCA_ENTRIES_FILE').entriesFromEnv).toEqual({
      QDRANT_PROD_EU_API_KEY: 'QCA_SECRET_1',
      QDRANT_PROD_US_API_KEY: 'QCA_SECRET_2',
      C_QDRANT_PROD_US_API_KEY: 'TF_VAR_qdrant_api_key_c',
    });
    expect(both.QCA_SECRET_1).toBe('${sensitive(null_resource.vault_lookup.id)}');
    expect(both.QCA_SECRET_2).toBe('${sensitive(null_resource.other_lookup.id)}');
    expect(both.QCA_OWNER).toBe(stateOwner('test/Other'));
    expect(Object.keys(both).filter((k) => k.startsWith('QCA_SECRET_'))).toEqual(['QCA_SECRET_1', 'QCA_SECRET_2']);
  });

  test('a cluster URL that is a token reaches the writer in a variable of its own, which the entries file names', () => {
    const stack = newStack();
    const url = new TerraformVariable(stack, 'cluster_url', { type: 'string' });
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: url.stringValue }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }],
    });
    const { json, dir } = synthToDir(stack);
    const env = oneResource(json, '_Write_').res.provisioner[0]['local-exec'].environment;
    expect(inputFileOf(dir, env, 'QCA_ENTRIES_FILE')).toEqual({
      entries: { QDRANT_URL: { $env: 'QCA_VALUE_1' }, QDRANT_GRPC_URL: { $env: 'QCA_VALUE_2' } },
      entriesFromEnv: { QDRANT_API_KEY: 'TF_VAR_qdrant_api_key_search_api' },
      entriesSha256: { TF_VAR_qdrant_api_key_search_api: { $env: 'QCA_VALUE_3' } },
    });
    expect(env.QCA_VALUE_1).toMatch(/var\.cluster_url/);
    expect(env.QCA_VALUE_2).toMatch(/var\.cluster_url/);
    for (const v of [env.QCA_VALUE_1, env.QCA_VALUE_2]) expect(v).not.toContain('qdrant_api_key');
  });

  test('the commands work as written: Write merges the entries (key from TF_VAR_...), Registration\'s destroy step removes them', () => {
    const dir = tempDir('qca-run-');
    try {
      const file = path.join(dir, 'app.env');
      fs.writeFileSync(file, 'KEEP=me\n', { mode: 0o600 }); // a key file the writer need not warn about
      const stack = newStack();
      accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: file })] }] });
      const stackDir = path.join(Testing.fullSynth(stack), 'stacks', 'test');
      const json = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8'));
      const write = oneResource(json, '_Write_').res;
      const registration = oneResource(json, '_Registration_').res;
      // As Terraform runs local-exec: in the stack's directory, with the inherited environment.
      const run = (exec: { command: string; environment: Record<string, string> }, self: Record<string, string>) => {
        const environment = Object.fromEntries(Object.entries(exec.environment)
          .map(([k, v]) => [k, inDefaultWorkspace(v.replace(/^\$\{self\.triggers\.(\w+)\}$/, (_, t) => self[t])
            .replace(/^\$\{lookup\(self\.triggers, "(\w+)", "(.*)"\)\}$/, (_, t, d) => self[t] ?? d))]));
        // Terraform's value of the hash's expression: that of the same key as TF_VAR_.
        for (const [k, v] of Object.entries(environment)) {
          if (v.startsWith('${nonsensitive(sha256(')) environment[k] = createHash('sha256').update('canary-write-7d1f').digest('hex');
        }
        return execFileSync('sh', ['-c', exec.command], {
          cwd: stackDir,
          env: { PATH: process.env.PATH ?? '', TF_VAR_qdrant_api_key_search_api: 'canary-write-7d1f', ...environment },
          encoding: 'utf8',
        });
      };
      run(write.provisioner[0]['local-exec'], write.triggers);
      const written = fs.readFileSync(file, 'utf8');
      expect(written).toMatch(/^KEEP=me\n/);
      expect(written).toContain('(test/Qdrant)');
      expect(dotenv.parse(written)).toEqual({
        KEEP: 'me',
        QDRANT_URL: `${URL_EU}:6333`,
        QDRANT_GRPC_URL: `${URL_EU}:6334`,
        QDRANT_API_KEY: 'canary-write-7d1f',
      });

      run(registration.provisioner[0]['local-exec'], registration.triggers);
      expect(fs.readFileSync(file, 'utf8')).toBe('KEEP=me\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('one runtime and one null provider per stack', () => {
  test('checks and writers of two accesses share one runtime asset (checker/cli.js, writer/cli.js)', () => {
    const stack = newStack();
    for (const [id, cluster] of [['Qdrant', 'eu'], ['Other', 'us']]) {
      new ClusterAccess(stack, id, {
        clusters: [{ name: cluster, url: URL_EU }],
        apiKeys: [{
          name: `key-${cluster}`,
          clusters: [cluster],
          secretTargets: [SecretTarget.dotenv({ path: `${id}.env` }), SecretTarget.json({ path: `${id}.json` })],
        }],
      });
    }
    const synthesized = Testing.synth(stack, true);
    expect(synthesized).toHaveProvider(provider.NullProvider);
    const json = JSON.parse(synthesized);
    const assets = stack.node.findAll().filter((c): c is TerraformAsset => c instanceof TerraformAsset);
    expect(assets.map((a) => a.node.path)).toEqual(['test/QdrantClusterAccess/Runtime']);

    const execs = Object.values<any>(json.resource.null_resource).map((r) => r.provisioner[0]['local-exec']);
    expect(execs).toHaveLength(2 + 4 * 2 + 2); // two checks; a Write and a Registration per file; the Files record of each access
    const clis = new Set(execs.map((e) => e.environment.QCA_CLI));
    const dir = `${assets[0].path}/`;
    expect([...clis].sort()).toEqual([`${dir}checker/cli.js`, `${dir}writer/cli.js`]);
    for (const cli of clis) expect(cli).toMatch(RUNTIME_CLI);
    for (const [, w] of nullResources(json, '_Write_')) expect(w.triggers.writer).toBe(assets[0].assetHash);
    expect(json.provider.null).toHaveLength(1);
  });

  test('the runtime is copied into the synthesized stack, with both CLIs', () => {
    const stack = newStack();
    accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }] });
    const stackDir = path.join(Testing.fullSynth(stack), 'stacks', 'test');
    const json = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8'));
    const cli = oneResource(json, '_Write_').res.provisioner[0]['local-exec'].environment.QCA_CLI;
    expect(fs.existsSync(path.join(stackDir, cli))).toBe(true);
    expect(fs.existsSync(path.join(stackDir, cli.replace(/writer\/cli\.js$/, 'checker/cli.js')))).toBe(true);
  });

  test('a null provider of the user\'s, added before or after the access, is reused: ours is dropped', () => {
    for (const when of ['before', 'after']) {
      const stack = newStack();
      if (when === 'before') new provider.NullProvider(stack, 'mine', {});
      accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }] });
      if (when === 'after') new provider.NullProvider(stack, 'mine', { alias: 'mine' });
      const json = synthJson(stack);
      expect([when, json.provider.null]).toEqual([when, [when === 'after' ? { alias: 'mine' } : {}]]);
      expect(stack.node.tryFindChild('QdrantClusterAccessNullProvider')).toBeUndefined();
    }
  });
});

describe('SecretTarget.terraformOutputs(): a gate, then one sensitive output per entry', () => {
  test('the outputs read a terraform_data gate that waits for the check; the gate holds a hash of the values, not the values', () => {
    const stack = newStack();
    const access = accessIn(stack, {
      apiKeys: [{
        name: 'search-api',
        clusters: ['prod-eu', 'prod-us'],
        secretTargets: [SecretTarget.terraformOutputs()],
        secretNaming: { names: { QDRANT_PROD_US_API_KEY: 'US_KEY' } },
      }],
    });
    const synthesized = Testing.synth(stack, true);
    const json = JSON.parse(synthesized);
    // (The keys' expiry gates are terraform_data too.)
    const gates = Object.entries<any>(json.resource.terraform_data).filter(([id]) => !id.includes('_ExpiryChecked_'));
    expect(gates.map(([id]) => id)).toEqual([expect.stringMatching(/^Qdrant_SecretTargets_Terraform-outputs_Verified_[0-9A-F]{8}$/)]);
    const [gateId, gate] = gates[0];
    expect(deps(gate)).toEqual([ref(checkResource(access, 'search-api'))]);
    // A rotated key changes the gate (so the outputs wait for it again); Terraform would not keep
    // the sensitive mark on the gate's output, so the values themselves are not in it.
    const inputs = Object.values<string>(gate.input);
    expect(inputs.length).toBeGreaterThan(0);
    for (const input of inputs) expect(input).toMatch(/^\$\{sha256\(jsonencode\(\{.*\}\)\)\}$/);
    expect(JSON.stringify(gate.input)).toContain('"US_KEY\\" = var.qdrant_api_key_search_api');

    const values: Record<string, string> = {
      [EU.url]: `"${URL_EU}:6333"`,
      [EU.grpc]: `"${URL_EU}:6334"`,
      [EU.apiKey]: 'var.qdrant_api_key_search_api',
      [US.url]: `"${URL_US}:6333"`,
      [US.grpc]: `"${URL_US}:6334"`,
      US_KEY: 'var.qdrant_api_key_search_api',
    };
    const ours = Object.keys(json.output).filter((n) => !n.startsWith('qdrant_'));
    expect(ours.sort()).toEqual(Object.keys(values).sort());
    for (const name of ours) {
      const output = json.output[name];
      // Known only once the gate is applied, i.e. after the check passed.
      expect([name, output.value]).toEqual([name, expect.stringContaining(`terraform_data.${gateId}.output`)]);
      expect([name, output.value]).toEqual([name, expect.stringContaining(values[name])]);
      expect(output.sensitive).toBe(true);
    }
    expect(json.output.QDRANT_PROD_EU_URL.description).toBe('REST endpoint of Qdrant cluster "prod-eu" (key "search-api"), once the key\'s health check passed');
    expect(json.output.QDRANT_PROD_US_GRPC_URL.description).toBe('gRPC endpoint of Qdrant cluster "prod-us" (key "search-api"), once the key\'s health check passed');
    expect(json.output.US_KEY.description).toBe('API key of Qdrant cluster "prod-us" (key "search-api"), once the key\'s health check passed');
    // No file is involved, and the check waits for nothing.
    expect(synthesized).not.toHaveResourceWithProperties(resource.Resource, { triggers: expect.objectContaining({ format: 'dotenv' }) });
    expect(oneResource(json, 'Qdrant_ApiKeys_search-api_HealthCheck_').res.depends_on).toBeUndefined();
  });

  test('with health checks disabled the gate has nothing to wait for', () => {
    const stack = newStack();
    accessIn(stack, { healthCheck: { enabled: false }, apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [SecretTarget.terraformOutputs()] }] });
    const json = synthJson(stack);
    const gate = Object.values<any>(json.resource.terraform_data)[0];
    expect(deps(gate) ?? []).toEqual([]);
    expect(Object.keys(json.output).filter((n) => !n.startsWith('qdrant_'))).toEqual(['QDRANT_API_KEY', 'QDRANT_GRPC_URL', 'QDRANT_URL']);
  });

  test('one entry name twice in a stack\'s outputs is an error, within one access and across two', () => {
    const stack = newStack();
    accessIn(stack, {
      apiKeys: [
        { name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.terraformOutputs()] },
        { name: 'b', clusters: ['prod-us'], secretTargets: [SecretTarget.terraformOutputs()], secretNaming: { names: { QDRANT_GRPC_URL: 'B_GRPC_URL' } } },
      ],
    });
    new ClusterAccess(stack, 'Other', {
      clusters: [{ name: 'other', url: URL_EU }],
      apiKeys: [{ name: 'c', clusters: ['other'], secretTargets: [SecretTarget.terraformOutputs()], secretNaming: { prefix: 'C_', names: { QDRANT_URL: 'QDRANT_URL' } } }],
    });
    const tail = 'attach both keys to one target, or give one of them a prefix (secretNaming: { prefix: "..." })';
    const otherTail = 'give one of the two keys a prefix (secretNaming: { prefix: "..." }), or the entry another name (secretNaming: { names: { ... } })';
    expect(synthErrors(stack)).toEqual([
      `[test/Qdrant/SecretTargets/Terraform-outputs-2] secret target Terraform outputs: entry "QDRANT_URL" (key "b") is already written to the outputs by key "a" of test/Qdrant/SecretTargets/Terraform-outputs; ${tail}`,
      `[test/Qdrant/SecretTargets/Terraform-outputs-2] secret target Terraform outputs: entry "QDRANT_API_KEY" (key "b") is already written to the outputs by key "a" of test/Qdrant/SecretTargets/Terraform-outputs; ${tail}`,
      `[test/Other/SecretTargets/Terraform-outputs] secret target Terraform outputs: entry "QDRANT_URL" (key "c") is already written to the outputs by key "a" of test/Qdrant/SecretTargets/Terraform-outputs; ${otherTail}`,
    ]);
  });

  // BUG (src/private/outputs-target.ts:31, src/private/stack-support.ts:133): a claim is refused
  // only when the claimant's text differs, and the text is `key "<k>" of <access path>`. The same
  // key in two outputs targets claims with the same text, so both targets write QDRANT_URL... and
  // one TerraformOutput silently replaces the other (the stack keeps two gates, one output).
  test('the same key in two outputs targets: an error, not merged silently, and once (not once per entry)', () => {
    const stack = newStack();
    accessIn(stack, { apiKeys: [{ name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.terraformOutputs(), SecretTarget.terraformOutputs()] }] });
    expect(synthErrors(stack)).toEqual([
      '[test/Qdrant/SecretTargets/Terraform-outputs-2] key "a" is given secret target Terraform outputs twice; add each target once',
    ]);
  });

  test('a key of the same name in another access, in another outputs target: the clash is told as between two keys', () => {
    const stack = newStack();
    const target = { secretTargets: [SecretTarget.terraformOutputs()] };
    accessIn(stack, { apiKeys: [{ name: 'a', clusters: ['prod-eu'], ...target }] });
    accessIn(stack, { apiKeys: [{ name: 'a', clusters: ['prod-eu'], ...target }] }, 'Other');
    // (The clusters and the key clash too, each reported on its own.)
    const errors = synthErrors(stack).filter((e) => e.includes('/SecretTargets/'));
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(/^\[test\/Other\/SecretTargets\/Terraform-outputs\] secret target Terraform outputs: entry "QDRANT_URL" \(key "a"\) is already written to the outputs by key "a" of test\/Qdrant\//);
    expect(errors[0]).toContain('give one of the two keys a prefix');
  });

  // BUG (src/private/outputs-target.ts:31, src/private/stack-support.ts:78-85): entry names and
  // the library's own outputs (qdrant_<cluster>_rest_endpoint / _grpc_endpoint,
  // qdrant_api_key_<key>_expires_at) are claimed in different namespaces (`entry:<name>` vs the
  // cluster prefix), so an entry renamed onto one of them silently replaces that output: the
  // non-secret endpoint output becomes a sensitive one holding another value.
  test('an entry renamed onto one of the library\'s own output names is an error', () => {
    const stack = newStack();
    accessIn(stack, {
      apiKeys: [{
        name: 'a',
        clusters: ['prod-eu'],
        secretTargets: [SecretTarget.terraformOutputs()],
        secretNaming: { names: { QDRANT_URL: 'qdrant_prod_eu_grpc_endpoint', QDRANT_GRPC_URL: 'qdrant_api_key_a_expires_at' } },
      }],
    });
    const errors = synthErrors(stack);
    expect(errors).toEqual([expect.stringContaining('"qdrant_prod_eu_grpc_endpoint"'), expect.stringContaining('"qdrant_api_key_a_expires_at"')]);
  });
});

describe('targets are written after the checks of their keys', () => {
  test('a key\'s expiry gate waits for its check and for each of its targets (a write can fail after the check passed), each once', () => {
    const stack = newStack();
    const env = SecretTarget.dotenv({ path: '.env' });
    const access = accessIn(stack, {
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu'], secretTargets: [env, SecretTarget.terraformOutputs()] },
        { name: 'ingest', clusters: ['prod-eu'], secretTargets: [env], secretNaming: { prefix: 'INGEST_' } },
        { name: 'none', clusters: ['prod-eu'] },
      ],
    });
    const out = synthJson(stack);
    const gate = (key: string) => Object.entries<any>(out.resource.terraform_data).find(([id]) => id.startsWith(`Qdrant_ApiKeys_${key}_ExpiryChecked_`))![1];
    const write = `null_resource.${oneResource(out, 'env-file', '_Write_').id}`;
    const registration = `null_resource.${oneResource(out, 'env-file', '_Registration_').id}`;
    const verified = `terraform_data.${Object.keys(out.resource.terraform_data).find((id) => id.includes('_Verified_'))}`;
    const check = (key: string) => ref(checkResource(access, key));
    expect(gate('search-api').depends_on).toEqual([check('search-api'), write, registration, verified]);
    expect(gate('ingest').depends_on).toEqual([check('ingest'), write, registration]);
    expect(gate('none').depends_on).toEqual([check('none')]);
  });

  test('every store depends on the checks of its own keys; the checks depend on nothing', () => {
    const stack = newStack();
    const env = SecretTarget.dotenv({ path: '.env' });
    const jsonFile = SecretTarget.json({ path: 'secrets.json' });
    const access = accessIn(stack, {
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu', 'prod-us'], secretTargets: [env, jsonFile] },
        { name: 'ingest', clusters: ['prod-eu'], secretTargets: [jsonFile], secretNaming: { prefix: 'INGEST_' } },
        { name: 'outputs-only', clusters: ['prod-us'], secretTargets: [SecretTarget.terraformOutputs()] },
        { name: 'none', clusters: ['prod-eu'] },
      ],
    });
    const out = synthJson(stack);
    const check = (key: string) => ref(checkResource(access, key));
    expect(deps(oneResource(out, 'env-file', '_Write_').res)).toEqual([check('search-api')]);
    expect(deps(oneResource(out, 'JSON-file', '_Write_').res)).toEqual([check('search-api'), check('ingest')]);
    expect(deps(Object.entries<any>(out.resource.terraform_data).find(([id]) => id.includes('_Verified_'))![1])).toEqual([check('outputs-only')]);
    for (const key of ['search-api', 'ingest', 'outputs-only', 'none']) {
      expect([key, out.resource.null_resource[checkResource(access, key).friendlyUniqueId].depends_on]).toEqual([key, undefined]);
    }
  });

  test('the Files record lists every file of the access (absolute, by format and path): its replacement takes the owner\'s entries out of a dropped one', () => {
    const stack = newStack();
    accessIn(stack, {
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: 'b/.env' }), SecretTarget.json({ path: 'a.json' })] },
        { name: 'ingest', clusters: ['prod-eu'], secretTargets: [SecretTarget.terraformOutputs()] },
      ],
    });
    const { res } = oneResource(synthJson(stack), 'Qdrant_Files_');
    const files = JSON.stringify([
      { file: path.resolve('b/.env'), format: 'dotenv', target: 'test/Qdrant/SecretTargets/.env-file-b-.env' },
      { file: path.resolve('a.json'), format: 'json', target: 'test/Qdrant/SecretTargets/JSON-file-a.json' },
    ]);
    expect(res.triggers).toEqual({ owner: OWNER, files });
    expect(res.depends_on).toBeUndefined();
    expect(res.lifecycle).toBeUndefined();
    const exec = res.provisioner[0]['local-exec'];
    expect(exec.when).toBe('destroy');
    expect(exec.command).toBe(`${NODE_GUARD}node "$QCA_CLI" remove-dropped --owner "$QCA_OWNER"`);
    // The old list from the state, the current one as a literal: what only the old one names is dropped.
    expect(exec.environment).toMatchObject({ QCA_OWNER: '${self.triggers.owner}', QCA_FILES: '${self.triggers.files}', QCA_KEEP_FILES: files });
  });

  test('with health checks disabled, targets are still bound, and wait for nothing', () => {
    const stack = newStack();
    accessIn(stack, {
      healthCheck: { enabled: false },
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }],
    });
    const out = synthJson(stack);
    expect(Object.keys(out.resource.null_resource).map((id) => id.replace(/_[0-9A-F]{8}$/, ''))).toEqual([
      'Qdrant_Files',
      'Qdrant_SecretTargets_env-file-env_Registration',
      'Qdrant_SecretTargets_env-file-env_Write',
    ]);
    expect(deps(oneResource(out, '_Write_').res) ?? []).toEqual([]);
    expect(oneResource(out, '_Registration_').res.depends_on).toEqual([`null_resource.${oneResource(out, '_Write_').id}`]);
  });

  // A Write receives its checks three ways: its own dependsOn, as a resource of the bind scope, and
  // as a returned dependable. cdktf's dependable() makes a new token each time: waitFor compares
  // them resolved.
  test('depends_on lists each check once', () => {
    const stack = newStack();
    accessIn(stack, { apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' }), SecretTarget.terraformOutputs()] }] });
    const out = synthJson(stack);
    for (const res of [oneResource(out, '_Write_').res, oneResource(out, '_Registration_').res, ...Object.values<any>(out.resource.terraform_data)]) {
      expect(res.depends_on).toEqual(deps(res));
    }
  });
});

describe('a target of one\'s own receives the checks in dependsOn', () => {
  /**
   * A store written in the test: one resource in the bind scope that says nothing about
   * dependencies, one nested deeper, one outside the scope that it returns, and one outside that
   * it does not return.
   */
  class Store implements ISecretTarget {
    public readonly description = 'custom store';
    public readonly binds: SecretTargetBindOptions[] = [];
    public readonly made: Record<string, resource.Resource> = {};

    constructor(private readonly outside: Construct) {}

    public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
      this.binds.push(options);
      this.made.inside = new resource.Resource(scope, 'Inside', {});
      this.made.nested = new resource.Resource(new Construct(scope, 'Group'), 'Nested', {});
      this.made.returned = new resource.Resource(this.outside, 'Returned', {});
      this.made.notReturned = new resource.Resource(this.outside, 'NotReturned', {});
      return { dependables: [this.made.returned] };
    }
  }

  test('dependsOn holds the checks of the target\'s keys, in key order; what it creates or returns waits for them', () => {
    const stack = newStack();
    const store = new Store(stack);
    const access = accessIn(stack, {
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu'] },
        { name: 'ingest', clusters: ['prod-us'], secretTargets: [store] },
        { name: 'unrelated', clusters: ['prod-us'] },
      ],
    });
    access.apiKeys[0].addSecretTarget(store);
    const out = synthJson(stack);
    expect(store.binds).toHaveLength(1);
    const checks = [checkResource(access, 'search-api'), checkResource(access, 'ingest')];
    expect(store.binds[0].dependsOn).toHaveLength(2);
    store.binds[0].dependsOn.forEach((d, i) => expect(d).toBe(checks[i]));

    const resources = out.resource.null_resource;
    const expected = checks.map(ref);
    expect(deps(resources[store.made.inside.friendlyUniqueId])).toEqual(expected);
    expect(deps(resources[store.made.nested.friendlyUniqueId])).toEqual(expected);
    expect(deps(resources[store.made.returned.friendlyUniqueId])).toEqual(expected);
    // Outside the scope and not returned: left alone.
    expect(resources[store.made.notReturned.friendlyUniqueId].depends_on).toBeUndefined();
    expect(resources[checkResource(access, 'unrelated').friendlyUniqueId].depends_on).toBeUndefined();
  });

  test('dependencies the target sets itself are kept', () => {
    const stack = newStack();
    const own = new resource.Resource(stack, 'Own', {});
    const target: ISecretTarget = {
      description: 'keeps its own',
      bind: (scope, options) => {
        new resource.Resource(scope, 'Store', { dependsOn: [own, ...options.dependsOn] });
        return {};
      },
    };
    const access = accessIn(stack, { apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [target] }] });
    const out = synthJson(stack);
    const store = oneResource(out, '_keeps-its-own_Store_').res;
    expect(deps(store)).toEqual([`null_resource.${own.friendlyUniqueId}`, ref(checkResource(access, 'k'))]);
  });

  test('with health checks disabled, dependsOn is empty and nothing is added', () => {
    const stack = newStack();
    new provider.NullProvider(stack, 'null', {}); // the store's own resources need it; no check adds ours
    const store = new Store(stack);
    accessIn(stack, { healthCheck: { enabled: false }, apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [store] }] });
    const out = synthJson(stack);
    expect(store.binds[0].dependsOn).toEqual([]);
    for (const r of Object.values(store.made)) expect(out.resource.null_resource[r.friendlyUniqueId].depends_on).toBeUndefined();
  });
});

describe('targets whose construct ids share their base: addresses kept, and a warning', () => {
  /** A store of one's own that records, in its resource, which entries it holds. */
  const store = (description: string): ISecretTarget => ({
    description,
    bind: (scope, options) => {
      new resource.Resource(scope, 'Store', { triggers: { names: options.entries.map((e) => e.name).join(',') } });
      return {};
    },
  });
  /** The address of each store resource, by the entries it holds, and the warnings. */
  const synthOf = (keys: ApiKeyOptions[]): { addresses: Record<string, string>; warnings: string[] } => {
    const stack = newStack();
    const access = accessIn(stack, { apiKeys: keys });
    const out = synthJson(stack);
    return {
      addresses: Object.fromEntries(Object.entries<any>(out.resource.null_resource)
        .filter(([, r]) => r.triggers?.names !== undefined)
        .map(([address, r]) => [r.triggers.names, address])),
      warnings: access.node.findAll().flatMap((c) => c.node.metadata).filter((m) => m.type === '@cdktf/warn').map((m) => String(m.data)),
    };
  };
  const tail = 'reordering keys would swap their Terraform addresses and replace their resources; ' +
    'give each target a description of its own that names its store';
  const ids = (x: Record<string, string>) => Object.fromEntries(Object.entries(x).map(([k, v]) => [k.split(',')[0], v.replace(/_Store_[0-9A-F]{8}$/, '')]));

  test('the same description: the ids of before (base, base-2 in order), and one warning that says what to do', () => {
    const a = { name: 'eu-app', clusters: ['prod-eu'], secretTargets: [store('Kubernetes Secret')], secretNaming: { prefix: 'EU_' } };
    const b = { name: 'us-app', clusters: ['prod-us'], secretTargets: [store('Kubernetes Secret')], secretNaming: { prefix: 'US_' } };
    const { addresses, warnings } = synthOf([a, b]);
    // In key order: the first target gets the base, the second the base and -2.
    const base = 'Qdrant_SecretTargets_Kubernetes-Secret';
    expect(ids(addresses)).toEqual({ EU_QDRANT_URL: base, US_QDRANT_URL: `${base}-2` });
    expect(ids(synthOf([b, a]).addresses)).toEqual({ EU_QDRANT_URL: `${base}-2`, US_QDRANT_URL: base });
    expect(warnings).toEqual([`secret targets "Kubernetes Secret" have the same description, so only their order tells them apart (2 targets): ${tail}`]);
  });

  test('descriptions alike in their first 60 characters: ids of their first 51 and a hash of each, whatever the order; no warning', () => {
    const [eu, us] = ['eu', 'us'].map((r) => `Kubernetes Secret "${'search-'.repeat(7)}${r}"`);
    const a = { name: 'eu-app', clusters: ['prod-eu'], secretTargets: [store(eu)], secretNaming: { prefix: 'EU_' } };
    const b = { name: 'us-app', clusters: ['prod-us'], secretTargets: [store(us)], secretNaming: { prefix: 'US_' } };
    const { addresses, warnings } = synthOf([a, b]);
    const base = `Qdrant_SecretTargets_${`Kubernetes-Secret-${'search-'.repeat(7)}`.slice(0, 51).replace(/-+$/, '')}`;
    const hash = (d: string) => createHash('sha256').update(d).digest('hex').slice(0, 8);
    expect(ids(addresses)).toEqual({ EU_QDRANT_URL: `${base}-${hash(eu)}`, US_QDRANT_URL: `${base}-${hash(us)}` });
    expect(synthOf([b, a]).addresses).toEqual(addresses);
    expect(warnings).toEqual([]);
  });

  test('two terraformOutputs() targets: no warning about their order (their outputs are named by entry)', () => {
    const stack = newStack();
    const access = accessIn(stack, {
      apiKeys: [
        { name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.terraformOutputs()], secretNaming: { prefix: 'A_' } },
        { name: 'b', clusters: ['prod-us'], secretTargets: [SecretTarget.terraformOutputs()], secretNaming: { prefix: 'B_' } },
      ],
    });
    synthJson(stack);
    // (The one warning is about the local state that holds the outputs: test/adversarial/state-at-rest.test.ts.)
    expect(access.node.findAll().flatMap((c) => c.node.metadata).filter((m) => m.type === '@cdktf/warn' && !String(m.data).includes('.tfstate'))).toEqual([]);
  });

  test('a description of its own keeps the address it had, and no warning', () => {
    const { addresses, warnings } = synthOf([
      { name: 'a', clusters: ['prod-eu'], secretTargets: [store('Vault KV secret "kv/search"')] },
      { name: 'b', clusters: ['prod-us'], secretTargets: [store('Vault KV secret "kv/other"')], secretNaming: { prefix: 'B_' } },
    ]);
    expect(Object.values(addresses).sort()).toEqual([
      expect.stringMatching(/^Qdrant_SecretTargets_Vault-KV-secret-kv-other_Store_[0-9A-F]{8}$/),
      expect.stringMatching(/^Qdrant_SecretTargets_Vault-KV-secret-kv-search_Store_[0-9A-F]{8}$/),
    ]);
    expect(warnings).toEqual([]);
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

  test('file targets are bound once across two synths, and do not claim their file twice', () => {
    const stack = newStack();
    const access = accessIn(stack, { apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }] });
    access.apiKeys[0].addSecretTarget(SecretTarget.dotenv({ path: '.env' }));
    access.apiKeys[0].grant(access.findCluster('prod-us')!);
    const first = Testing.synth(stack, true);
    const second = Testing.synth(stack, true);
    expect(second).toEqual(first);
    const { json, dir } = synthToDir(stack);
    expect(nullResources(json, '_Registration_')).toHaveLength(1);
    expect(nullResources(json, '_Write_')).toHaveLength(1);
    const inputs = inputFileOf(dir, oneResource(json, '_Write_').res.provisioner[0]['local-exec'].environment, 'QCA_ENTRIES_FILE');
    expect([...Object.keys(inputs.entries), ...Object.keys(inputs.entriesFromEnv)].sort())
      .toEqual([EU.url, EU.grpc, EU.apiKey, US.url, US.grpc, US.apiKey].sort());
    expect(deps(oneResource(json, '_Write_').res)).toEqual([ref(checkResource(access, 'search-api'))]);
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

test('after the tests above, the working directory is the repository root again (relative paths resolve there)', () => {
  expect(fs.realpathSync(process.cwd())).toBe(fs.realpathSync(REPO));
});
