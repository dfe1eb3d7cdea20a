/**
 * Ephemeral keys at synth (issue #31): what the stack holds for them, and every refusal. Real
 * Terraform and OpenTofu run the same stacks in test/e2e/ephemeral-keys.test.ts.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as kubernetes from '@cdktf/provider-kubernetes';
import { Fn, TerraformStack, TerraformVariable, Testing, Token } from 'cdktf';
import { Construct } from 'constructs';
import * as protocol from '../assets/runtime/protocol';
import { ApiKeyOptions, ApiKeySource, ClusterAccess, ISecretTarget, SecretEntry, SecretTarget, SecretTargetBindOptions, SecretTargetConfig, SetupGuide } from '../src';
import { newStack, synthErrors, synthJson, validationErrors } from './support/synth';
import { KubernetesSecretTarget } from '../examples/custom-targets/kubernetes-secret-target';
import { CustomTargetsStack } from '../examples/custom-targets/main';

const URL = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';

function access(stack: TerraformStack, keys: ApiKeyOptions[]): ClusterAccess {
  return new ClusterAccess(stack, 'Qdrant', { clusters: [{ name: 'prod-eu', url: URL }], apiKeys: keys });
}

/** A variable of the user's, declared ephemeral through an override (cdktf 0.21 has no option for it). */
function ephemeralVariable(stack: TerraformStack, id = 'search_key'): TerraformVariable {
  const v = new TerraformVariable(stack, id, { type: 'string', sensitive: true });
  v.addOverride('ephemeral', true);
  return v;
}

/** The null_resources of a stack by their logical ids without the hash (`Qdrant_ApiKeys_search-api_HealthCheck`). */
function resources(json: any): Record<string, any> {
  return Object.fromEntries(Object.entries<any>(json.resource.null_resource).map(([id, r]) => [id.replace(/_[0-9A-F]{8}$/, ''), r]));
}

/** Where the stack refers to a variable: the JSON paths of the strings that do. */
function referencesTo(json: any, variable: string): string[] {
  const found: string[] = [];
  const walk = (x: unknown, at: string): void => {
    if (typeof x === 'string' && x.includes(`var.${variable}`)) found.push(at);
    else if (x !== null && typeof x === 'object') for (const [k, v] of Object.entries(x)) walk(v, `${at}/${k}`);
  };
  walk(json, '');
  return found.map((p) => p.replace(/_[0-9A-F]{8}\//, '/').replace(/\/\/\/metadata.*/, ''));
}

describe('an ephemeral key in the stack', () => {
  const stackWith = (keyVersion?: number) => {
    const stack = newStack();
    const env = SecretTarget.dotenv({ path: 'app.env' });
    access(stack, [{ name: 'search-api', clusters: ['prod-eu'], ephemeral: true, keyVersion, secretTargets: [env] }]);
    return synthJson(stack);
  };

  test('its variable is ephemeral, sensitive and optional (the precondition names the missing key)', () => {
    const json = stackWith(1);
    expect(json.variable.qdrant_api_key_search_api).toMatchObject({ type: 'string', ephemeral: true, sensitive: true, default: null });
    const check = resources(json)['Qdrant_ApiKeys_search-api_HealthCheck'];
    expect(check.lifecycle.precondition[0].error_message).toMatch(/^Qdrant API key "search-api" has no value: run read -rs TF_VAR_qdrant_api_key_search_api /);
  });

  test('with keyVersion: the check is replaced by its version, nothing derived from the key is stored', () => {
    const json = stackWith(7);
    const { 'Qdrant_ApiKeys_search-api_HealthCheck': check, 'Qdrant_SecretTargets_env-file-appenv_Write': write } = resources(json);
    expect(Object.keys(check.triggers).sort()).toEqual(['grants', 'key_version', 'options', 'runtime']);
    expect(check.triggers.key_version).toBe('7');
    // The Write hashes a stand-in for the key, never the key.
    expect(write.triggers.values_sha256).toContain('"QDRANT_API_KEY" = "ephemeral key, keyVersion 7"');
    expect(write.triggers.run).toBeUndefined();
    for (const r of [check, write]) expect(JSON.stringify(r.triggers)).not.toContain('var.');
    // No expiry output, and so no gate.
    expect(Object.keys(json.output ?? {}).filter((o) => o.includes('expires'))).toEqual([]);
    expect(json.resource.terraform_data).toBeUndefined();
  });

  test('without keyVersion: the check and the write run on every deploy', () => {
    const { 'Qdrant_ApiKeys_search-api_HealthCheck': check, 'Qdrant_SecretTargets_env-file-appenv_Write': write } = resources(stackWith());
    expect(check.triggers.run).toBe('${timestamp()}');
    expect(check.triggers.key_version).toBeUndefined();
    expect(write.triggers.run).toBe('${timestamp()}');
    expect(write.triggers.values_sha256).toContain('"QDRANT_API_KEY" = "ephemeral key, written on every deploy"');
  });

  test('the sha256 of the key goes only into a guard ahead of the check and of the write, never to the check or the writer', () => {
    const json = stackWith(1);
    const { 'Qdrant_ApiKeys_search-api_HealthCheck': check, 'Qdrant_SecretTargets_env-file-appenv_Write': write } = resources(json);
    const guard = {
      command: `command -v node >/dev/null 2>&1 || { echo '${protocol.NODE_MISSING.verifier}' >&2; exit 127; }; ` + 'node "$QCA_CLI" verify-key --key-env "$QCA_KEY_ENV" --key-sha256-env "$QCA_KEY_SHA256_ENV"',
      environment: expect.objectContaining({
        QCA_KEY_ENV: 'TF_VAR_qdrant_api_key_search_api',
        QCA_KEY_SHA256_ENV: 'QCA_KEY_SHA256',
        QCA_KEY_SHA256: '${nonsensitive(sha256((var.qdrant_api_key_search_api == null) ? "" : var.qdrant_api_key_search_api))}',
      }),
    };
    for (const r of [check, write]) {
      expect(r.provisioner).toHaveLength(2);
      expect(r.provisioner[0]['local-exec']).toEqual(guard);
      expect(r.provisioner[0]['local-exec'].environment.QCA_CLI).toMatch(/\/checker\/cli\.js$/);
    }
    expect(check.provisioner[1]['local-exec'].command).not.toContain('--key-sha256-env');
    expect(check.provisioner[1]['local-exec'].environment.QCA_KEY_SHA256).toBeUndefined();
    // (A hash the writer compares would be a value known only at deploy, in a QCA_VALUE_n.)
    expect(Object.keys(write.provisioner[1]['local-exec'].environment).filter((k) => k.startsWith('QCA_VALUE_'))).toEqual([]);
    // The key is referred to there and in the precondition, nowhere else.
    expect(referencesTo(json, 'qdrant_api_key_search_api')).toEqual([
      '/resource/null_resource/Qdrant_ApiKeys_search-api_HealthCheck/lifecycle/precondition/0/condition',
      '/resource/null_resource/Qdrant_ApiKeys_search-api_HealthCheck/provisioner/0/local-exec/environment/QCA_KEY_SHA256',
      '/resource/null_resource/Qdrant_SecretTargets_env-file-appenv_Write/provisioner/0/local-exec/environment/QCA_KEY_SHA256',
    ]);
  });

  test('the key says what it is', () => {
    const stack = newStack();
    const a = access(stack, [
      { name: 'eph', clusters: ['prod-eu'], ephemeral: true, keyVersion: 2 },
      { name: 'plain', clusters: ['prod-eu'] },
    ]);
    const [eph, plain] = a.apiKeys;
    expect([eph.ephemeral, eph.keyVersion, eph.expiresAtOutputName]).toEqual([true, 2, undefined]);
    expect([plain.ephemeral, plain.keyVersion, plain.expiresAtOutputName]).toEqual([false, undefined, 'qdrant_api_key_plain_expires_at']);
    // The key that is not ephemeral is as before: a hash in the triggers, the check compares it.
    const checks = resources(synthJson(stack));
    expect(checks.Qdrant_ApiKeys_plain_HealthCheck.triggers.key_sha256).toBe('${sha256((var.qdrant_api_key_plain == null) ? "" : var.qdrant_api_key_plain)}');
    expect(checks.Qdrant_ApiKeys_eph_HealthCheck.triggers.key_sha256).toBeUndefined();
  });

  test('a keyVersion from a variable of the user\'s: a token in the triggers', () => {
    const stack = newStack();
    const version = new TerraformVariable(stack, 'key_version', { type: 'number' });
    access(stack, [{ name: 'search-api', clusters: ['prod-eu'], ephemeral: true, keyVersion: version.numberValue }]);
    expect(resources(synthJson(stack))['Qdrant_ApiKeys_search-api_HealthCheck'].triggers.key_version).toBe('${var.key_version}');
  });
});

describe('a variable of the user\'s that is ephemeral', () => {
  test('is recognized without ephemeral: true, and treated the same', () => {
    const build = (given: boolean) => {
      const stack = newStack();
      const v = ephemeralVariable(stack);
      access(stack, [{ name: 'search-api', clusters: ['prod-eu'], source: ApiKeySource.fromVariable(v), keyVersion: 3, ...(given ? { ephemeral: true } : {}) }]);
      return synthJson(stack);
    };
    const json = build(false);
    expect(json.variable.search_key).toMatchObject({ ephemeral: true, sensitive: true, default: null });
    const check = resources(json)['Qdrant_ApiKeys_search-api_HealthCheck'];
    expect(check.triggers.key_version).toBe('3');
    expect(check.provisioner[0]['local-exec'].environment.QCA_KEY_ENV).toBe('TF_VAR_search_key');
    expect(json.output).toBeDefined();
    expect(Object.keys(json.output).filter((o) => o.includes('expires'))).toEqual([]);
    expect(build(true)).toEqual(json);
  });
});

describe('refused at synth, each with the reason', () => {
  test('SecretTarget.terraformOutputs() for an ephemeral key: outputs are kept in the state', () => {
    const stack = newStack();
    access(stack, [{ name: 'search-api', clusters: ['prod-eu'], ephemeral: true, secretTargets: [SecretTarget.terraformOutputs()] }]);
    expect(synthErrors(stack)).toEqual([
      '[test/Qdrant/SecretTargets/Terraform-outputs] secret target Terraform outputs: key "search-api" is ephemeral, and Terraform keeps outputs in the state, ' +
        'so it refuses an ephemeral value in one ("Ephemeral value not allowed"); write the key to a .env or JSON file target, or to a write-only attribute ' +
        'in a target of your own, or make the key non-ephemeral',
    ]);
  });

  test('ephemeral: true with a variable of the user\'s that is not ephemeral: declare it so (the library does not change it)', () => {
    const stack = newStack();
    const v = new TerraformVariable(stack, 'search_key', { type: 'string', sensitive: true });
    access(stack, [{ name: 'search-api', clusters: ['prod-eu'], source: ApiKeySource.fromVariable(v), ephemeral: true }]);
    expect(validationErrors(stack)).toEqual([
      '[test/Qdrant/ApiKeys/search-api] key "search-api" is ephemeral: true, but its variable "search_key" is not ephemeral; declare the variable so with ' +
        'variable.addOverride("ephemeral", true) (Terraform then refuses it wherever your stack would store it, not only here), or remove ephemeral: true',
    ]);
    expect(Testing.synth(stack)).not.toContain('"ephemeral"');
  });

  test('ephemeral: false with a variable of the user\'s that is ephemeral', () => {
    const stack = newStack();
    access(stack, [{ name: 'search-api', clusters: ['prod-eu'], source: ApiKeySource.fromVariable(ephemeralVariable(stack)), ephemeral: false }]);
    expect(validationErrors(stack)).toEqual([
      '[test/Qdrant/ApiKeys/search-api] key "search-api" is ephemeral: false, but its variable "search_key" is ephemeral (an override), so nothing of the key ' +
        'may be stored; remove ephemeral: false (the key is ephemeral because its variable is), or the override',
    ]);
  });

  test('a variable made ephemeral after the key was created', () => {
    const stack = newStack();
    const v = new TerraformVariable(stack, 'search_key', { type: 'string', sensitive: true });
    access(stack, [{ name: 'search-api', clusters: ['prod-eu'], source: ApiKeySource.fromVariable(v) }]);
    v.addOverride('ephemeral', true);
    expect(validationErrors(stack)).toEqual([
      '[test/Qdrant/ApiKeys/search-api] variable "search_key" of key "search-api" became ephemeral after the key was created, which was built for a ' +
        'non-ephemeral key (its check\'s triggers, its expiry output); give the key ephemeral: true, or override the variable before passing it to ApiKeySource.fromVariable',
    ]);
  });

  test('keyVersion on a key that is not ephemeral', () => {
    const stack = newStack();
    access(stack, [{ name: 'search-api', clusters: ['prod-eu'], keyVersion: 2 }]);
    expect(validationErrors(stack)).toEqual([
      '[test/Qdrant/ApiKeys/search-api] key "search-api" has a keyVersion but is not ephemeral: a key that is not ephemeral runs its check and writes again ' +
        'when its hash changes; remove keyVersion, or set ephemeral: true',
    ]);
  });

  test.each([[-1], [1.5], [Number.MAX_SAFE_INTEGER + 2]])('keyVersion %p', (keyVersion) => {
    const stack = newStack();
    access(stack, [{ name: 'search-api', clusters: ['prod-eu'], ephemeral: true, keyVersion }]);
    expect(validationErrors(stack)).toEqual([
      `[test/Qdrant/ApiKeys/search-api] key "search-api" keyVersion ${keyVersion} is not a whole number of 0 or more; ` +
        'number the key\'s versions 1, 2, 3 … and give the next one with each new key',
    ]);
  });

  test('wrong types (any language): reported by the props check, once', () => {
    const stack = newStack();
    access(stack, [{ name: 'search-api', clusters: ['prod-eu'], ephemeral: 'yes', keyVersion: '2' } as unknown as ApiKeyOptions]);
    expect(validationErrors(stack)).toEqual([
      '[test/Qdrant/ApiKeys/search-api] key "search-api" props.ephemeral must be a boolean; got "yes"',
      '[test/Qdrant/ApiKeys/search-api] key "search-api" props.keyVersion must be a number; got "2"',
    ]);
    const nan = newStack();
    access(nan, [{ name: 'search-api', clusters: ['prod-eu'], keyVersion: NaN }]);
    expect(validationErrors(nan)).toEqual(['[test/Qdrant/ApiKeys/search-api] key "search-api" props.keyVersion must be a number; got NaN']);
  });
});

describe('a key from ApiKeySource.fromToken, ephemeral (an ephemeral resource\'s attribute)', () => {
  test('is handed to the check in its environment; nothing derived from it is stored', () => {
    const stack = newStack();
    const v = ephemeralVariable(stack);
    access(stack, [{
      name: 'search-api',
      clusters: ['prod-eu'],
      ephemeral: true,
      keyVersion: 1,
      source: ApiKeySource.fromToken(Token.asString(Fn.trimspace(v.stringValue))),
      secretTargets: [SecretTarget.json({ path: 'app.json' })],
    }]);
    const json = synthJson(stack);
    const { 'Qdrant_ApiKeys_search-api_HealthCheck': check, 'Qdrant_SecretTargets_JSON-file-appjson_Write': write } = resources(json);
    expect(check.provisioner).toHaveLength(1);
    expect(check.provisioner[0]['local-exec'].environment.QDRANT_API_KEY).toBe('${sensitive(trimspace(var.search_key))}');
    expect(write.provisioner[0]['local-exec'].environment.QCA_SECRET_1).toBe('${sensitive(trimspace(var.search_key))}');
    expect(JSON.stringify([check.triggers, write.triggers])).not.toContain('var.');
    expect(Object.keys(json.output ?? {}).filter((o) => o.includes('expires'))).toEqual([]);
  });
});

describe('a target of your own', () => {
  test('gets the key as an ephemeral entry, with its keyVersion', () => {
    const seen: SecretEntry[][] = [];
    const target: ISecretTarget = {
      description: 'recorder',
      bind(_scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
        seen.push(options.entries);
        return {};
      },
    };
    const stack = newStack();
    access(stack, [
      { name: 'eph', clusters: ['prod-eu'], ephemeral: true, keyVersion: 4, secretTargets: [target], secretNaming: { prefix: 'E_' } },
      { name: 'plain', clusters: ['prod-eu'], secretTargets: [target], secretNaming: { prefix: 'P_' } },
    ]);
    synthJson(stack);
    expect(seen[0].map((e) => [e.name, e.ephemeral, e.keyVersion])).toEqual([
      ['E_QDRANT_URL', false, undefined], ['E_QDRANT_GRPC_URL', false, undefined], ['E_QDRANT_API_KEY', true, 4],
      ['P_QDRANT_URL', false, undefined], ['P_QDRANT_GRPC_URL', false, undefined], ['P_QDRANT_API_KEY', false, undefined],
    ]);
  });
});

describe('examples/custom-targets: an ephemeral key in a Kubernetes Secret', () => {
  const US = 'https://def-456.us-east-1-0.aws.cloud.qdrant.io';

  test('an ephemeral key (reports): the entries go into the write-only data_wo, revised by the keyVersion', () => {
    const json = JSON.parse(Testing.synth(new CustomTargetsStack(Testing.app(), 'custom-targets'), true));
    const [res] = Object.values<any>(json.resource.kubernetes_secret).filter((r) => r.metadata.name === 'reports-qdrant');
    expect(res.metadata.namespace).toBe('reports');
    expect(res.data).toBeUndefined();
    expect(res.data_wo).toEqual({ QDRANT_URL: `${US}:6333`, QDRANT_GRPC_URL: `${US}:6334`, QDRANT_API_KEY: '${var.qdrant_api_key_reports}' });
    expect(res.data_wo_revision).toBe(1);
  });

  test('an ephemeral key without keyVersion: the target refuses it (data_wo is written only when its revision changes)', () => {
    const stack = new TerraformStack(Testing.app(), 'unversioned');
    new kubernetes.provider.KubernetesProvider(stack, 'kubernetes', {});
    new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: URL }],
      apiKeys: [{ name: 'reports', clusters: ['prod-eu'], ephemeral: true, secretTargets: [new KubernetesSecretTarget({ name: 'reports-qdrant' })] }],
    });
    expect(() => Testing.synth(stack, true)).toThrow('Kubernetes Secret "default/reports-qdrant": key "reports" is ephemeral without a keyVersion, ' +
      'and data_wo is written only when its revision changes; give the key a keyVersion (and the next number with each new key)');
  });
});

describe('the version files beside cdk.tf.json', () => {
  test('written when a key is ephemeral (each line says why), removed when none is', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-ephemeral-versions-'));
    try {
      const synth = (ephemeral: boolean) => {
        const app = Testing.app({ outdir } as any);
        const stack = new TerraformStack(app, 'eph');
        access(stack, [
          { name: 'search-api', clusters: ['prod-eu'], ephemeral, keyVersion: ephemeral ? 1 : undefined },
          { name: 'ingest', clusters: ['prod-eu'], ephemeral },
        ]);
        app.synth();
        return path.join(outdir, 'stacks', 'eph');
      };
      const dir = synth(true);
      expect(fs.readFileSync(path.join(dir, 'qdrant-ephemeral-keys.tf.json'), 'utf8')).toBe(
        '{"terraform":{"//":"Qdrant API keys declared ephemeral (search-api, ingest) need Terraform 1.10 or later, or OpenTofu 1.11 or later","required_version":">= 1.10"}}\n');
      expect(fs.readFileSync(path.join(dir, 'qdrant-ephemeral-keys.tofu.json'), 'utf8')).toBe(
        '{"terraform":{"//":"Qdrant API keys declared ephemeral (search-api, ingest) need OpenTofu 1.11 or later","required_version":">= 1.11"}}\n');
      // The stack's own terraform block is left alone (a required_version of the user's stays).
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8')).terraform.required_version).toBeUndefined();
      synth(false);
      expect(fs.readdirSync(dir).filter((f) => f.startsWith('qdrant-ephemeral-keys'))).toEqual([]);
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });
});

describe('the setup guide', () => {
  test('says how to rotate an ephemeral key, and where its expiry shows', () => {
    const stack = newStack();
    const guide = SetupGuide.render(access(stack, [
      { name: 'versioned', clusters: ['prod-eu'], ephemeral: true, keyVersion: 1 },
      { name: 'every', clusters: ['prod-eu'], ephemeral: true },
    ])).replace(/\s+/g, ' ');
    expect(guide).toContain('For `versioned`, step 2 also gives `keyVersion` the next number (the new key with the new number, in one deploy)');
    expect(guide).toContain('A new key deployed without it is neither checked nor written (the plan shows nothing to do)');
    expect(guide).toContain('`every` has no `keyVersion`: checked and written on every deploy, so step 2 needs nothing more. ' +
      'The cost: every plan shows those resources as replaced, and `terraform plan -detailed-exitcode` always exits 2.');
    expect(guide).toContain('| `versioned` | check line (ephemeral: no output) |');
    expect(guide).not.toContain('_expires_at`');
    expect(guide).toContain('An ephemeral key has no expiry output (Terraform stores nothing derived from it): its check line is where the date shows.');
  });
});
