/**
 * The health check of a key as the stack holds it: one null_resource per key, its command, its
 * environment and its triggers. The protocol test runs the emitted command through a real `sh`
 * and the checker's own parser, so that the two sides of the protocol cannot disagree.
 */
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { provider, resource } from '@cdktf/provider-null';
import { TerraformStack, TerraformVariable, Testing } from 'cdktf';
import * as protocol from '../assets/runtime/protocol';
import { ApiKeyHeader, ApiKeySource, ClusterAccess, HealthCheckOptions, KeyAccess } from '../src';
import { inputFileOf, newStack, synthJson, synthToDir } from './support/synth';

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';
const URL_US = 'https://def-456.us-east-1-0.aws.cloud.qdrant.io';

function stackWith(healthCheck?: HealthCheckOptions, stack: TerraformStack = newStack()) {
  new ClusterAccess(stack, 'Qdrant', {
    clusters: [{ name: 'prod-eu', url: URL_EU }, { name: 'prod-us', url: URL_US, grpcPort: 7334 }],
    apiKeys: [
      { name: 'search-api', clusters: ['prod-eu', 'prod-us'], access: KeyAccess.collections({ read: ['products'], readWrite: ['orders'] }) },
      { name: 'ingest', clusters: ['prod-eu'], access: KeyAccess.manage() },
    ],
    healthCheck,
  });
  return stack;
}

/** The check of one key, found by its label. */
function checkOf(json: any, key: string) {
  const res = Object.values<any>(json.resource.null_resource).find((r) => r.provisioner[0]['local-exec'].environment.QCA_LABEL === key);
  if (!res) throw new Error(`no check for ${key}`);
  return { res, exec: res.provisioner[0]['local-exec'] };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What the checker's own parser makes of a command and its environment, run through a real sh. */
function parsedByChecker({ exec, dir: cwd }: { exec: { command: string; environment: Record<string, string> }; dir: string },
  extraEnv: Record<string, string> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-protocol-'));
  try {
    // QCA_CLI points at a stand-in CLI that prints what the real parser parsed.
    const probe = path.join(dir, 'probe.js');
    fs.writeFileSync(probe, `const { parseCommandLine } = require(${JSON.stringify(path.join(__dirname, '..', 'assets', 'checker', 'cli.js'))});
      process.stdout.write(JSON.stringify(parseCommandLine(process.argv.slice(2), process.env)));`);
    const out = execFileSync('sh', ['-c', exec.command], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...exec.environment, QCA_CLI: probe, ...extraEnv },
      encoding: 'utf8',
    });
    return JSON.parse(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('the health check of a key', () => {
  test('one null_resource per key, whatever its number of clusters, and one null provider', () => {
    const synthesized = Testing.synth(stackWith(), true);
    expect(synthesized).toHaveResource(resource.Resource);
    expect(synthesized).toHaveProvider(provider.NullProvider);
    const json = JSON.parse(synthesized);
    expect(Object.keys(json.resource.null_resource).sort()).toEqual([
      expect.stringMatching(/^Qdrant_ApiKeys_ingest_HealthCheck_[0-9A-F]{8}$/),
      expect.stringMatching(/^Qdrant_ApiKeys_search-api_HealthCheck_[0-9A-F]{8}$/),
      // The record of the files this access writes to (none here), whose replacement cleans up a dropped one.
      expect.stringMatching(/^Qdrant_Files_[0-9A-F]{8}$/),
    ]);
    expect(json.provider.null).toHaveLength(1);
  });

  test('the command holds no value: every value is in the environment, quoted; the grants are in a file of the stack', () => {
    const { json, dir } = synthToDir(stackWith());
    const { exec, res } = checkOf(json, 'search-api');
    expect(exec.command).toBe(`command -v node >/dev/null 2>&1 || { echo '${protocol.NODE_MISSING.checker}' >&2; exit 127; }; ` +
      'node "$QCA_CLI" check --grants-file "$QCA_GRANTS_FILE" --grants-sha256 "$QCA_GRANTS_SHA256" ' +
      '--key-env "$QCA_KEY_ENV" --key-sha256-env "$QCA_KEY_SHA256_ENV" --header "$QCA_HEADER" ' +
      '--timeout "$QCA_TIMEOUT" --retries "$QCA_RETRIES" --access "$QCA_ACCESS" --read-collections "$QCA_READ_COLLECTIONS" ' +
      '--write-collections "$QCA_WRITE_COLLECTIONS" --label "$QCA_LABEL" --guide "$QCA_GUIDE"');
    const grants = JSON.stringify([
      { label: 'search-api → prod-eu', url: `${URL_EU}:6333`, grpcUrl: `${URL_EU}:6334` },
      { label: 'search-api → prod-us', url: `${URL_US}:6333`, grpcUrl: `${URL_US}:7334` },
    ]);
    // Named by its sha256, which the checker compares.
    expect(fs.readFileSync(path.join(dir, `qdrant-cluster-access-inputs/${sha256(grants)}.json`), 'utf8')).toBe(grants);
    expect(exec.environment).toEqual({
      QCA_CLI: expect.stringMatching(/^assets\/QdrantClusterAccess_Runtime_[0-9A-F]+\/[0-9A-F]+\/checker\/cli\.js$/),
      QCA_GRANTS_FILE: `qdrant-cluster-access-inputs/${sha256(grants)}.json`,
      QCA_GRANTS_SHA256: sha256(grants),
      QCA_KEY_ENV: 'TF_VAR_qdrant_api_key_search_api',
      // The hash of the value Terraform uses (-var or a .tfvars file may differ from TF_VAR_...).
      QCA_KEY_SHA256_ENV: 'QCA_KEY_SHA256',
      QCA_KEY_SHA256: '${nonsensitive(sha256((var.qdrant_api_key_search_api == null) ? "" : var.qdrant_api_key_search_api))}',
      QCA_HEADER: 'api-key',
      QCA_TIMEOUT: '10',
      QCA_RETRIES: '3',
      QCA_ACCESS: 'collections',
      QCA_READ_COLLECTIONS: 'products',
      QCA_WRITE_COLLECTIONS: 'orders',
      QCA_LABEL: 'search-api',
      QCA_GUIDE: 'qdrant-setup.md',
    });
    // Nothing derived from the key in the provisioner but that nonsensitive hash (the key, or
    // anything sensitive, would hide the check's output).
    const hash = JSON.stringify(exec.environment.QCA_KEY_SHA256).slice(1, -1);
    expect(JSON.stringify(res.provisioner).split(hash).join('')).not.toContain('var.');
  });

  test('protocol: what the constructs emit is what the checker parses, with the same defaults', () => {
    const synthesized = synthToDir(stackWith({
      header: ApiKeyHeader.BEARER, timeoutSeconds: 45, retries: 0, requireAuth: false, minValidityDays: 7, allowExcessAccess: true,
    }));
    const emitted = { exec: checkOf(synthesized.json, 'search-api').exec, dir: synthesized.dir };
    const parsed = parsedByChecker(emitted, { TF_VAR_qdrant_api_key_search_api: 'test-key-value', QCA_KEY_SHA256: sha256('test-key-value') });
    expect(parsed.options).toMatchObject({
      header: 'bearer',
      timeoutSeconds: 45,
      retries: 0,
      requireAuth: false,
      access: 'collections',
      readCollections: ['products'],
      writeCollections: ['orders'],
      allowExcessAccess: true,
      minValidityDays: 7,
      warnValidityDays: 14,
      deployCommand: 'cdktf deploy',
      label: 'search-api',
    });
    expect(parsed.grants.map((g: any) => g.label)).toEqual(['search-api → prod-eu', 'search-api → prod-us']);
    // Defaults: what the construct leaves out, the checker fills in with the same values.
    const defaults = synthToDir(stackWith());
    const plain = parsedByChecker({ exec: checkOf(defaults.json, 'ingest').exec, dir: defaults.dir }, { TF_VAR_qdrant_api_key_ingest: 'test-key-value', QCA_KEY_SHA256: sha256('test-key-value') });
    expect(plain.options).toMatchObject({ header: 'api-key', timeoutSeconds: 10, retries: 3, requireAuth: true, access: 'manage', minValidityDays: 0 });
  });

  test('protocol: the ranges are the checker\'s, at synth and at deploy', () => {
    const { CHECK_OPTIONS } = protocol;
    const errors = (o: HealthCheckOptions) => {
      try {
        Testing.synth(stackWith(o), true);
        return '';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(errors({ timeoutSeconds: CHECK_OPTIONS.timeout.max })).toBe('');
    expect(errors({ timeoutSeconds: CHECK_OPTIONS.timeout.max + 1 })).toMatch(/healthCheck\.timeoutSeconds 301 is not a number in 1-300/);
    expect(errors({ retries: CHECK_OPTIONS.retries.max + 1 })).toMatch(/healthCheck\.retries 11 is not a whole number in 0-10/);
    expect(errors({ minValidityDays: CHECK_OPTIONS.minValidityDays.max + 1 })).toMatch(/healthCheck\.minValidityDays 3651 is not a whole number in 0-3650/);
  });

  test('triggers: the grants, a hash of the key (null-safe), the runtime and the options; never the key', () => {
    const { res } = checkOf(synthJson(stackWith()), 'search-api');
    expect(res.triggers).toEqual({
      grants: expect.stringMatching(/^[0-9a-f]{64}$/),
      key_sha256: '${sha256((var.qdrant_api_key_search_api == null) ? "" : var.qdrant_api_key_search_api)}',
      runtime: expect.stringMatching(/^[0-9A-F]{32,}$/i),
      options: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });

  test('a key that is not set fails the deploy at once, naming the variable (a precondition) and where the setup guide is', () => {
    const { res } = checkOf(synthJson(stackWith()), 'ingest');
    expect(res.lifecycle.precondition).toEqual([{
      condition: '${(var.qdrant_api_key_ingest != null)}',
      error_message: 'Qdrant API key "ingest" has no value: run read -rs TF_VAR_qdrant_api_key_ingest && export TF_VAR_qdrant_api_key_ingest, ' +
        'paste the key (it is neither shown nor kept in the shell\'s history), then cdktf deploy (see qdrant-setup.md, section 3)',
    }]);
  });

  describe('the guide\'s path in that message', () => {
    const cwd = process.cwd();
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-guide-'));
      process.chdir(dir);
    });
    afterEach(() => {
      process.chdir(cwd);
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const message = (outdir: string) => {
      const stack = new TerraformStack(Testing.app({ outdir }), 'test');
      new ClusterAccess(stack, 'Qdrant', { clusters: [{ name: 'prod-eu', url: URL_EU }], apiKeys: [{ name: 'ingest', clusters: ['prod-eu'] }] });
      return checkOf(synthJson(stack), 'ingest').res.lifecycle.precondition[0].error_message as string;
    };

    test('under the directory synth runs in: the path from there, the same at every synth', () => {
      expect(message('cdktf.out')).toMatch(/, then cdktf deploy \(see cdktf\.out\/stacks\/test\/qdrant-setup\.md, section 3\)$/);
      expect(message(path.join(dir, 'out'))).toMatch(/\(see out\/stacks\/test\/qdrant-setup\.md, section 3\)$/);
    });

    test('elsewhere (Testing.app()\'s temp dirs), or with a space, "${" or "%{" in the path: the file name alone, so the stack is the same at every synth', () => {
      const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-elsewhere-'));
      try {
        for (const outdir of [elsewhere, 'out dir', 'out${x}', 'out%{x}']) {
          expect([outdir, message(outdir)]).toEqual([outdir, expect.stringMatching(/, then cdktf deploy \(see qdrant-setup\.md, section 3\)$/)]);
        }
      } finally {
        fs.rmSync(elsewhere, { recursive: true, force: true });
      }
      expect(synthJson(stackWith())).toEqual(synthJson(stackWith()));
    });
  });

  test('without a setup guide, the missing-key message points to none', () => {
    const stack = newStack();
    new ClusterAccess(stack, 'Qdrant', { clusters: [{ name: 'prod-eu', url: URL_EU }], apiKeys: [{ name: 'ingest', clusters: ['prod-eu'] }], setupGuide: { enabled: false } });
    const [condition] = checkOf(synthJson(stack), 'ingest').res.lifecycle.precondition;
    expect(condition.error_message).toMatch(/, then cdktf deploy$/);
  });

  test('the failure lines name the setup guide by its path (--guide), and none without a guide; the options trigger does not depend on it', () => {
    const withGuide = checkOf(synthJson(stackWith()), 'ingest');
    expect(withGuide.exec.environment.QCA_GUIDE).toBe('qdrant-setup.md'); // Testing.app()'s outdir is a temp dir: the file name alone
    expect(withGuide.exec.command).toContain('--guide "$QCA_GUIDE"');
    const stack = newStack();
    new ClusterAccess(stack, 'Qdrant', { clusters: [{ name: 'prod-eu', url: URL_EU }], apiKeys: [{ name: 'ingest', clusters: ['prod-eu'], access: KeyAccess.manage() }], setupGuide: { enabled: false } });
    const without = checkOf(synthJson(stack), 'ingest');
    expect(without.exec.environment.QCA_GUIDE).toBeUndefined();
    expect(without.exec.command).not.toContain('--guide');
    expect(without.res.triggers.options).toBe(withGuide.res.triggers.options);
  });

  test('options change the options trigger; runOnEveryDeploy adds a timestamp', () => {
    const changed = checkOf(synthJson(stackWith({ timeoutSeconds: 5, runOnEveryDeploy: true })), 'ingest').res;
    const plain = checkOf(synthJson(stackWith()), 'ingest').res;
    expect(changed.triggers.run).toBe('${timestamp()}');
    expect(changed.triggers.options).not.toBe(plain.triggers.options);
  });

  test('grpc: false leaves gRPC out of the grants', () => {
    const { json, dir } = synthToDir(stackWith({ grpc: false }));
    expect(inputFileOf(dir, checkOf(json, 'ingest').exec.environment, 'QCA_GRANTS_FILE')).toEqual([{ label: 'ingest → prod-eu', url: `${URL_EU}:6333` }]);
  });

  test('a key from another resource is handed over marked sensitive; a variable key is read from TF_VAR_', () => {
    const stack = newStack();
    const vault = new TerraformVariable(stack, 'vault_value', { type: 'string' });
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'ingest', clusters: ['prod-eu'], source: ApiKeySource.fromToken(vault.stringValue) }],
    });
    const { exec, res } = checkOf(synthJson(stack), 'ingest');
    expect(exec.environment.QCA_KEY_ENV).toBe('QDRANT_API_KEY');
    expect(exec.environment.QDRANT_API_KEY).toBe('${sensitive(var.vault_value)}');
    expect(res.triggers.key_sha256).toBe('${sha256(sensitive(var.vault_value))}');
    expect(res.lifecycle).toBeUndefined();
  });

  test('a CA file is copied into the stack and passed with --ca', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-ca-'));
    try {
      const ca = path.join(dir, 'ca.pem');
      fs.writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
      const { exec } = checkOf(synthJson(stackWith({ caFile: ca })), 'ingest');
      expect(exec.command).toContain('--ca "$QCA_CA"');
      expect(exec.environment.QCA_CA).toMatch(/^assets\/.+\/ca\.pem$/);
      expect(JSON.stringify(exec)).not.toContain(dir);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('disabled: no check; the Files record alone (removing a file target later still cleans up)', () => {
    const json = synthJson(stackWith({ enabled: false }));
    expect(Object.keys(json.resource)).toEqual(['null_resource']);
    expect(Object.keys(json.resource.null_resource).map((id) => id.replace(/_[0-9A-F]{8}$/, ''))).toEqual(['Qdrant_Files']);
    expect(json.provider.null).toHaveLength(1);
  });

  test('an existing null provider is reused, not duplicated, even when added after the constructs', () => {
    const before = newStack();
    new provider.NullProvider(before, 'mine');
    stackWith(undefined, before);
    expect(synthJson(before).provider.null).toHaveLength(1);
    const after = stackWith();
    new provider.NullProvider(after, 'mine');
    expect(synthJson(after).provider.null).toHaveLength(1);
  });

  test('the synthesized stack is self-contained: the runtime is copied in', () => {
    const outdir = Testing.fullSynth(stackWith());
    try {
      const stackDir = path.join(outdir, 'stacks', 'test');
      const json = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8'));
      const { exec } = checkOf(json, 'ingest');
      const cli = path.join(stackDir, exec.environment.QCA_CLI);
      expect(fs.existsSync(cli)).toBe(true);
      // The checker runs from there, with its shared runtime beside it.
      expect(execFileSync(process.execPath, [cli, '--help'], { encoding: 'utf8' })).toContain('Usage: qdrant-cluster-access check');
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });
});
