/**
 * Issue #29, class 3: names are plain data. `__proto__`, `constructor`, `prototype`, `toString` and
 * `hasOwnProperty` as cluster names, key names, entry names (renames), prefixes, owners and
 * property names: each is refused with a clear message, or works end to end. Before, a rename to
 * `__proto__` passed synth and its entry vanished from the writer's input (the deploy wrote every
 * entry but the key and reported success); the writer crashed on a JSON file's record when the
 * owner was `constructor` or `toString`; `--key-env constructor` crashed the check; a key whose
 * access claim read `constructor` was described as the source of Object; clusters and keys named
 * `constructor`, `toString` or `hasOwnProperty` failed in constructs ("There is already a
 * Construct with name ..."); and a property named so in the props passed as if it were known.
 *
 * Why `__proto__` is refused as an entry name rather than written: the npm `dotenv` parser (and
 * any JavaScript reader that copies names into an object) drops it, so a Node app would never
 * see the entry the deploy wrote. The other four names are ordinary variable names: written,
 * read back by `dotenv` and `JSON.parse`, and removed by the destroy, with real Terraform.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TerraformStack } from 'cdktf';
import * as dotenv from 'dotenv';
import { accessInWords } from '../../assets/checker/jwt';
import { ClusterAccess, SecretTarget } from '../../src';
import { runNode } from '../../tools/testing/run-node';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, initAndApply, synthStack, tempDir, terraform } from '../../tools/testing/terraform';
import { appFiles } from '../support/app-files';
import { inputFileOf, newStack, synthErrors, synthToDir, validationErrors } from '../support/synth';
import { runCli } from '../writer/run-cli';

jest.setTimeout(300_000);

const ODD = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];
const VALID = ODD.filter((n) => n !== '__proto__');
const CHECKER = path.join(__dirname, '..', '..', 'assets', 'checker', 'cli.js');
const OFF = { healthCheck: { enabled: false }, setupGuide: { enabled: false } };
const url = (n: number) => `https://abc-${n}.eu-central-1-0.aws.cloud.qdrant.io`;

/** The names in the entries file of each file target's Write resource: { plain: entries, fromEnv: entriesFromEnv }. */
function writerNames(stack: TerraformStack): { plain: string[]; fromEnv: string[] }[] {
  const { json, dir } = synthToDir(stack);
  const resources = json.resource.null_resource as Record<string, { provisioner: { 'local-exec': { environment: Record<string, string> } }[] }>;
  return Object.entries(resources).filter(([id]) => /_Write_/.test(id)).map(([, r]) => {
    const input = inputFileOf(dir, r.provisioner[0]['local-exec'].environment, 'QCA_ENTRIES_FILE');
    return { plain: Object.keys(input.entries).sort(), fromEnv: Object.keys(input.entriesFromEnv).sort() };
  });
}

describe('at synth', () => {
  test.each(ODD)('%s as a cluster name and as a key name: refused with the name rule, or every entry reaches the writer', (name) => {
    const stack = newStack('app');
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name, url: url(1) }, { name: 'other', url: url(2) }],
      apiKeys: [{ name, clusters: [name, 'other'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }],
      ...OFF,
    });
    if (name === '__proto__') {
      const errors = synthErrors(stack).join('\n');
      expect(errors).toContain('cluster name "__proto__" is invalid: names start with a letter');
      expect(errors).toContain('key name "__proto__" is invalid: names start with a letter');
      return;
    }
    const env = name.toUpperCase();
    expect(writerNames(stack)).toEqual([{
      plain: [`QDRANT_${env}_GRPC_URL`, `QDRANT_${env}_URL`, 'QDRANT_OTHER_GRPC_URL', 'QDRANT_OTHER_URL'].sort(),
      fromEnv: [`QDRANT_${env}_API_KEY`, 'QDRANT_OTHER_API_KEY'].sort(),
    }]);
  });

  test.each(ODD)('%s as an entry name (a rename of the URL and of the key): refused with the rule, or both entries reach the writer', (name) => {
    for (const renamed of ['QDRANT_URL', 'QDRANT_API_KEY']) {
      const stack = newStack('app');
      new ClusterAccess(stack, 'Qdrant', {
        clusters: [{ name: 'prod', url: url(1) }],
        apiKeys: [{ name: 'k', clusters: ['prod'], secretTargets: [SecretTarget.dotenv({ path: '.env' }), SecretTarget.json({ path: 'a.json' })], secretNaming: { names: { [renamed]: name } } }],
        ...OFF,
      });
      if (name === '__proto__') {
        const errors = synthErrors(stack);
        expect(errors).toHaveLength(2); // once per target
        for (const e of errors) expect(e).toContain(`key "k" renames "${renamed}" to "__proto__", which is not a variable name the writers accept: `);
        expect(errors[0]).toContain('not "__proto__"');
        continue;
      }
      const expected = renamed === 'QDRANT_URL'
        ? { plain: ['QDRANT_GRPC_URL', name].sort(), fromEnv: ['QDRANT_API_KEY'] }
        : { plain: ['QDRANT_GRPC_URL', 'QDRANT_URL'], fromEnv: [name] };
      expect(writerNames(stack)).toEqual([expected, expected]);
    }
  });

  test.each(ODD)('%s as a prefix: every entry reaches the writer', (name) => {
    const stack = newStack('app');
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod', url: url(1) }],
      apiKeys: [{ name: 'k', clusters: ['prod'], secretTargets: [SecretTarget.dotenv({ path: '.env' })], secretNaming: { prefix: name } }],
      ...OFF,
    });
    expect(writerNames(stack)).toEqual([{ plain: [`${name}QDRANT_GRPC_URL`, `${name}QDRANT_URL`], fromEnv: [`${name}QDRANT_API_KEY`] }]);
  });

  test.each(ODD)('%s as a property name of the props, of a cluster\'s and of a key\'s options is an unknown property', (name) => {
    const stack = newStack('app');
    const odd = <T extends object>(o: T): T => Object.defineProperty(o, name, { value: 1, enumerable: true });
    new ClusterAccess(stack, 'Qdrant', odd({ clusters: [odd({ name: 'prod', url: url(1) })], apiKeys: [odd({ name: 'k', clusters: ['prod'] })], ...OFF }));
    const errors = validationErrors(stack).filter((e) => e.includes('unknown property'));
    expect(errors).toEqual([
      expect.stringContaining(`[app/Qdrant] ClusterAccess props has unknown property "${name}"`),
      expect.stringContaining(`[app/Qdrant] ClusterAccess props.apiKeys[0] has unknown property "${name}"`),
      expect.stringContaining(`[app/Qdrant/Clusters/prod] cluster "prod" options has unknown property "${name}"`),
    ]);
  });
});

describe('the writer and the check, given these names directly', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('qca-proto-');
  });

  test('"__proto__" as an entry name is refused, whether given as a value or as a key from the environment; the file is unchanged', async () => {
    const file = path.join(dir, '.env');
    fs.writeFileSync(file, 'A=1\n', { mode: 0o600 });
    const asValue = await runCli(['write', '--file', file, '--owner', 'app/Qdrant'], '{"QDRANT_URL":"https://x","__proto__":"https://y"}');
    const secret = canaryKey();
    const asKey = await runCli(['write', '--file', file, '--owner', 'app/Qdrant'], { QDRANT_URL: 'https://x' },
      { env: { QCA_ENTRIES_FROM_ENV: '{"__proto__":"QCA_SECRET_1"}', QCA_SECRET_1: secret } });
    for (const [r, variable] of [[asValue, 'QCA_ENTRIES'], [asKey, 'QCA_ENTRIES_FROM_ENV']] as const) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${variable}: entry name __proto__ is not a valid variable name: entry names are `);
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('A=1\n');
  });

  test.each(['dotenv', 'json'] as const)('%s: entries and owners named like Object.prototype members are written and removed', async (format) => {
    const file = path.join(dir, format === 'dotenv' ? '.env' : 'a.json');
    const user = format === 'dotenv' ? 'A=1\n' : '{\n  "a": 1\n}\n';
    fs.writeFileSync(file, user, { mode: 0o600 });
    const args = (command: string, owner: string) => [command, '--file', file, '--format', format, '--owner', owner];
    const secret = canaryKey();
    const keyEnv = (names: string[]) => ({ env: { QCA_ENTRIES_FROM_ENV: JSON.stringify(Object.fromEntries(names.map((n) => [n, 'QCA_SECRET_1']))), QCA_SECRET_1: secret } });
    // An ordinary owner first, writing the bare names (two as values, two as keys), so that the
    // file's record holds an owner when the odd owners look themselves up in it.
    const first = await runCli(args('write', 'app/Qdrant'), { constructor: 'https://c', prototype: 'https://p' }, keyEnv(['toString', 'hasOwnProperty']));
    expect([first.code, first.stderr]).toEqual([0, '']);
    for (const owner of ODD) {
      const w = await runCli(args('write', owner), Object.fromEntries(VALID.map((n) => [`${owner}_${n}`, `https://${n}`])), keyEnv([`${owner}_KEY`]));
      expect([w.code, w.stderr]).toEqual([0, '']);
    }
    const read = (): Record<string, string> => (format === 'dotenv' ? dotenv.parse(fs.readFileSync(file, 'utf8')) : JSON.parse(fs.readFileSync(file, 'utf8')));
    const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
    const all = read();
    expect([all.constructor, all.prototype, all.toString, all.hasOwnProperty]).toEqual(['https://c', 'https://p', secret, secret]);
    for (const owner of ODD) {
      for (const n of VALID) expect([owner, n, own(all, `${owner}_${n}`) && all[`${owner}_${n}`]]).toEqual([owner, n, `https://${n}`]);
      expect(all[`${owner}_KEY`]).toBe(secret);
    }
    for (const owner of [...ODD].reverse()) {
      const r = await runCli(args('remove', owner), []);
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toContain(`removed ${VALID.length + 1} entries`);
      expect(Object.keys(read()).filter((k) => k.startsWith(`${owner}_`))).toEqual([]);
    }
    expect((await runCli(args('remove', 'app/Qdrant'), [])).code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(user);
    expect(fs.readdirSync(dir)).toEqual([path.basename(file)]);
  });

  test('a remove for an owner named like an Object.prototype member, which the record does not hold, changes nothing', async () => {
    const file = path.join(dir, 'a.json');
    expect((await runCli(['write', '--file', file, '--format', 'json', '--owner', 'app/Qdrant'], { QDRANT_URL: 'https://q' })).code).toBe(0);
    const before = fs.readFileSync(file, 'utf8');
    for (const owner of ODD) {
      const r = await runCli(['remove', '--file', file, '--format', 'json', '--owner', owner], []);
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toContain(`records no entries of owner ${owner}, nothing changed`);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  test('a key whose access claim reads "constructor" or "toString" has an unknown access, in words', () => {
    for (const name of ODD) {
      expect(accessInWords(name)).toBe('unknown access');
      expect(accessInWords([{ collection: 'products', access: name }])).toBe('unknown access on products');
    }
  });

  test.each(VALID)('the check with --key-env %s: an unset variable is said to be unset', async (name) => {
    const env: Record<string, string | undefined> = { ...process.env };
    delete env[name];
    const r = await runNode([CHECKER, 'check', '--url', 'https://abc-1.eu-central-1-0.aws.cloud.qdrant.io', '--key-env', name], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^qdrant-cluster-access: error: environment variable .* is not set/);
  });
});

describe('end to end with real Terraform', () => {
  // Canaries without the names in them: a line naming the key would read as holding part of it.
  const KEYS = new Map([...VALID, 'extra'].map((k, i) => [k, canaryKey(`canary-proto-${i}`)]));
  const runs: TerraformRun[] = [];
  const clusters = new Map<string, StandInQdrant>();
  beforeAll(async () => {
    for (const name of VALID) clusters.set(name, await StandInQdrant.start({ apiKey: KEYS.get('extra')!, moreApiKeys: [...KEYS.values()] }));
  });
  afterAll(async () => {
    await Promise.all([...clusters.values()].map((c) => c.stop()));
    for (const run of runs) for (const k of KEYS.values()) expect(run.stdout.includes(k) || run.stderr.includes(k)).toBe(false);
  });

  /** Keys named constructor, prototype, toString, hasOwnProperty (and extra), on clusters named so; every prefix; every rename. */
  const SPEC = [
    { name: 'constructor', clusters: ['constructor', 'prototype'], naming: { prefix: 'constructor' } },
    { name: 'prototype', clusters: ['prototype', 'toString'], naming: { prefix: '__proto__' } },
    { name: 'toString', clusters: ['toString', 'hasOwnProperty'], naming: { prefix: 'toString' } },
    {
      name: 'hasOwnProperty',
      clusters: ['hasOwnProperty', 'constructor'],
      naming: {
        prefix: 'hasOwnProperty',
        names: { QDRANT_HASOWNPROPERTY_URL: 'constructor', QDRANT_HASOWNPROPERTY_GRPC_URL: 'prototype', QDRANT_HASOWNPROPERTY_API_KEY: 'toString', QDRANT_CONSTRUCTOR_API_KEY: 'hasOwnProperty' },
      },
    },
    { name: 'extra', clusters: ['prototype'], naming: { prefix: 'prototype' } },
  ];

  /** What the app must read: every entry name and its value. */
  function expected(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const k of SPEC) {
      for (const c of k.clusters) {
        const standIn = clusters.get(c)!;
        const names: Record<string, string> = (k.naming as { names?: Record<string, string> }).names ?? {};
        const entry = (kind: string) => {
          const def = `QDRANT_${c.toUpperCase()}_${kind}`;
          return Object.prototype.hasOwnProperty.call(names, def) ? names[def] : `${k.naming.prefix}${def}`;
        };
        Object.defineProperty(out, entry('URL'), { value: standIn.url, enumerable: true });
        Object.defineProperty(out, entry('GRPC_URL'), { value: standIn.grpcUrl, enumerable: true });
        Object.defineProperty(out, entry('API_KEY'), { value: KEYS.get(k.name), enumerable: true });
      }
    }
    return out;
  }

  test('the deploy writes every entry to the .env, the JSON file and the outputs, checked first; the destroy removes them all', async () => {
    const USER_ENV = '# app\nDATABASE_URL=postgres://db/app\n';
    const USER_JSON = '{\n  "region": "eu"\n}\n';
    const files = appFiles(tempDir('qca-proto-e2e-'), 'app', USER_ENV, USER_JSON);
    const dir = synthStack(path.join(files.base, 'cdktf.out'), 'proto', (app, id) => {
      const stack = new TerraformStack(app, id);
      const targets = [SecretTarget.dotenv({ path: files.envFile }), SecretTarget.json({ path: files.jsonFile }), SecretTarget.terraformOutputs()];
      const caFile = clusters.get('constructor')!.caFile;
      new ClusterAccess(stack, 'Qdrant', {
        clusters: VALID.map((name) => ({ name, url: clusters.get(name)!.url, grpcPort: Number(new URL(clusters.get(name)!.grpcUrl).port) })),
        apiKeys: SPEC.map((k) => ({ name: k.name, clusters: k.clusters, secretTargets: targets, secretNaming: k.naming })),
        healthCheck: { caFile, retries: 0 },
        setupGuide: { enabled: false },
      });
      return stack;
    });
    const env = Object.fromEntries([...KEYS].map(([k, v]) => [`TF_VAR_qdrant_api_key_${k.toLowerCase()}`, v]));
    const apply = await initAndApply(dir, env);
    runs.push(apply);
    expect([apply.exitCode, apply.stderr]).toEqual([0, '']);
    expect(apply.stdout).toMatch(/ok {3}constructor → constructor/);
    expect(apply.stdout).toMatch(/ok {3}hasOwnProperty → hasOwnProperty/);

    const want = expected();
    expect(Object.keys(want)).toHaveLength(27); // 5 keys, 9 grants, 3 entries each
    const fromEnv = dotenv.parse(fs.readFileSync(files.envFile, 'utf8'));
    const fromJson = JSON.parse(fs.readFileSync(files.jsonFile, 'utf8'));
    for (const got of [fromEnv, fromJson]) {
      const ours = Object.fromEntries(Object.entries(got).filter(([k]) => k !== 'DATABASE_URL' && k !== 'region'));
      expect(ours).toEqual(want);
    }
    // The outputs too (read here, and not scanned for the canaries: they hold the keys).
    const outputs = JSON.parse((await terraform(dir, ['output', '-json', '-no-color'], env)).stdout) as Record<string, { value: string }>;
    for (const [name, value] of Object.entries(want)) {
      expect([name, Object.prototype.hasOwnProperty.call(outputs, name) && outputs[name].value]).toEqual([name, value]);
    }

    const plan = await terraform(dir, ['plan', '-detailed-exitcode', '-input=false', '-no-color'], env);
    runs.push(plan);
    expect(plan.exitCode).toBe(0);
    const destroy = await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], env);
    runs.push(destroy);
    expect(destroy.exitCode).toBe(0);
    expect(fs.readFileSync(files.envFile, 'utf8')).toBe(USER_ENV);
    expect(fs.readFileSync(files.jsonFile, 'utf8')).toBe(USER_JSON);
  });
});
