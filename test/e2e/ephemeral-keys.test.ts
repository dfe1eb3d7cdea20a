/**
 * End to end for ephemeral keys (issue #31), with real Terraform and OpenTofu against each real
 * Qdrant version (TLS, jwt_rbac on). One stack, two ephemeral keys, each with its own .env:
 * `versioned` (the library's variable, `ephemeral: true`, `keyVersion`) and `every` (a variable of
 * the user's, declared ephemeral by an override, no keyVersion: checked and written on every
 * deploy). The steps: a plan without the keys stops at the precondition; a saved plan is applied;
 * a plan shows `every`'s check and write replaced and `versioned`'s unchanged; a new key without a
 * bump reaches only `every`'s file; a bump rotates `versioned`; a key given with -var that differs
 * from TF_VAR_ is refused before the check; destroy needs no key. The .env files are read after
 * each step. Then a canary scan: neither the keys nor their SHA-256 in any output, the saved plans
 * (`show -json`), the state or the stack.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TerraformStack, TerraformVariable } from 'cdktf';
import { ApiKeySource, ClusterAccess, SecretTarget } from '../../src';
import { readJwt } from '../../tools/testing/jwt';
import { describeRealQdrant, RealQdrant } from '../../tools/testing/real-qdrant';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';
import { TerraformRun, engineVariants, synthStack, tempDir, terraform } from '../../tools/testing/terraform';
import { describeVariants } from '../../tools/testing/variants';

// Bounds, not expectations: init, three plans, four applies and a destroy per engine.
jest.setTimeout(300_000);

const MANAGE_KEY = canaryKey('canary-manage');
const DAY = 24 * 60 * 60;
const V1 = readJwt(MANAGE_KEY, 90 * DAY);
const V2 = readJwt(MANAGE_KEY, 60 * DAY);
const E1 = readJwt(MANAGE_KEY, 80 * DAY);
const E2 = readJwt(MANAGE_KEY, 70 * DAY);
const VERSIONED_VAR = 'qdrant_api_key_versioned';
const EVERY_VAR = 'every_key';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const oneLine = (text: string) => text.replace(/\s+/g, ' ');
const dateIn = (days: number) => new Date(Date.now() + days * DAY * 1000).toISOString().slice(0, 10);

describeRealQdrant('ephemeral keys (real Qdrant)', () => {
  let q: RealQdrant;
  beforeAll(async () => {
    q = await RealQdrant.start({ apiKey: MANAGE_KEY, jwtRbac: true });
  }, 60_000);
  afterAll(() => q?.stop());

  describeVariants('Terraform engine', engineVariants(), 'deploy, rotate and destroy', (binary) => {
    const runs: TerraformRun[] = [];
    const plans: string[] = [];
    let out: string;
    let dir: string;
    let versionedEnv: string;
    let everyEnv: string;

    const synth = (keyVersion: number) => {
      dir = synthStack(out, 'eph', (app, id) => {
        const stack = new TerraformStack(app, id);
        const every = new TerraformVariable(stack, EVERY_VAR, { type: 'string', sensitive: true });
        every.addOverride('ephemeral', true);
        new ClusterAccess(stack, 'Qdrant', {
          clusters: [{ name: 'eu', url: q.restUrl, grpcPort: q.grpcPort }],
          apiKeys: [
            { name: 'versioned', clusters: ['eu'], ephemeral: true, keyVersion, secretTargets: [SecretTarget.dotenv({ path: versionedEnv })] },
            { name: 'every', clusters: ['eu'], source: ApiKeySource.fromVariable(every), secretTargets: [SecretTarget.dotenv({ path: everyEnv })] },
          ],
          healthCheck: { caFile: q.caFile, retries: 0 },
          setupGuide: { enabled: false },
        });
        return stack;
      });
    };
    const tf = async (args: string[], keys: { versioned?: string; every?: string }) => {
      const flags = ['output', 'show'].includes(args[0]) ? ['-no-color'] : ['-no-color', '-input=false'];
      // Flags before a positional argument (a saved plan): Terraform reads none after it.
      const run = await terraform(dir, [args[0], ...flags, ...args.slice(1)], { [`TF_VAR_${VERSIONED_VAR}`]: keys.versioned, [`TF_VAR_${EVERY_VAR}`]: keys.every }, binary);
      runs.push(run);
      return run;
    };
    /** What each .env holds: which key, or "absent" when the file is gone. */
    const files = () => [versionedEnv, everyEnv].map((f) => {
      if (!fs.existsSync(f)) return 'absent';
      const text = fs.readFileSync(f, 'utf8');
      return Object.entries({ V1, V2, E1, E2 }).filter(([, k]) => text.includes(k)).map(([n]) => n).join(',') || 'no key';
    });
    /** The saved plan as JSON (kept for the canary scan), and each resource's actions, by address. */
    const showPlan = async (file: string) => {
      const shown = await tf(['show', '-json', file], {});
      expect(shown.exitCode).toBe(0);
      plans.push(shown.stdout);
      const changes = (JSON.parse(shown.stdout) as { resource_changes: { address: string; change: { actions: string[] } }[] }).resource_changes;
      return Object.fromEntries(changes.map((c) => [c.address, c.change.actions.join(',')]));
    };
    /** The addresses planned with `actions`, sorted. */
    const planned = (plan: Record<string, string>, actions: string) => Object.keys(plan).filter((a) => plan[a] === actions).sort();
    const checkLine = (key: string, days: number) => new RegExp(`ok +${key} → eu +qdrant ${q.version.replace(/\./g, '\\.')} +key accepted, keys enforced, gRPC ok +expires ${dateIn(days)}`);

    beforeAll(async () => {
      out = tempDir('qca-e2e-ephemeral-');
      versionedEnv = path.join(out, 'versioned.env');
      everyEnv = path.join(out, 'every.env');
      synth(1);
      const init = await tf(['init'], {});
      if (init.exitCode !== 0) throw new Error(`init failed:\n${init.stdout}\n${init.stderr}`);
    });
    afterAll(async () => {
      // A failed test may leave resources behind: destroy needs no key.
      if (dir && fs.existsSync(path.join(dir, 'terraform.tfstate'))) await tf(['destroy', '-auto-approve'], {});
    });

    test('without the keys, the plan stops at once with the export line', async () => {
      const plan = await tf(['plan'], {});
      expect(plan.exitCode).toBe(1);
      expect(oneLine(plan.stderr)).toContain(`Qdrant API key "versioned" has no value: run read -rs TF_VAR_${VERSIONED_VAR} && export TF_VAR_${VERSIONED_VAR}`);
      expect(oneLine(plan.stderr)).toContain(`Qdrant API key "every" has no value: run read -rs TF_VAR_${EVERY_VAR} && export TF_VAR_${EVERY_VAR}`);
    });

    test('a saved plan, applied: both checks show their lines (and the expiry), the files get the keys', async () => {
      const plan = await tf(['plan', '-out', 'first.plan'], { versioned: V1, every: E1 });
      expect(plan.exitCode).toBe(0);
      // Two checks, two Write and Registration pairs, the Files record: no gate (there is no expiry output).
      expect(Object.values(await showPlan('first.plan'))).toEqual(new Array(7).fill('create'));
      // An ephemeral value must be set again to apply a saved plan.
      const apply = await tf(['apply', 'first.plan'], { versioned: V1, every: E1 });
      expect(apply.stderr).toBe('');
      expect(apply.exitCode).toBe(0);
      expect(apply.stdout).toMatch(checkLine('versioned', 90));
      expect(apply.stdout).toMatch(checkLine('every', 80));
      // The guards (the -var comparison) print nothing when they pass; Terraform hides their command
      // line, one line each (two checks, two writes), and nothing else.
      expect(apply.stdout.match(/\(output suppressed[^)]*\)/g)).toHaveLength(4);
      expect(apply.stdout).toContain(`wrote 3 entries to ${versionedEnv} (0 updated, 3 added, file created)`);
      expect(files()).toEqual(['V1', 'E1']);
      // No expiry output: it would be derived from the key.
      const outputs = JSON.parse((await tf(['output', '-json'], {})).stdout) as Record<string, unknown>;
      expect(Object.keys(outputs).filter((o) => o.includes('expires'))).toEqual([]);
    });

    test('the next plan replaces the check and the write of the key without keyVersion, and only those', async () => {
      const plan = await tf(['plan', '-detailed-exitcode', '-out', 'second.plan'], { versioned: V1, every: E1 });
      expect(plan.exitCode).toBe(2);
      const second = await showPlan('second.plan');
      expect(planned(second, 'delete,create')).toEqual([expect.stringMatching(/^null_resource\.Qdrant_ApiKeys_every_HealthCheck_/), expect.stringMatching(/every.*_Write_/)]);
      expect(planned(second, 'no-op')).toHaveLength(5);
      // What the plan says about them.
      expect(plan.stdout).toMatch(/~ "run" += "[0-9TZ:-]+" -> \(known after apply\)/);
    });

    test('new keys without a bump: only the key without keyVersion is checked and written', async () => {
      const apply = await tf(['apply', '-auto-approve'], { versioned: V2, every: E2 });
      expect(apply.exitCode).toBe(0);
      expect(apply.stdout).toMatch(checkLine('every', 70));
      expect(apply.stdout).not.toMatch(/ok +versioned → eu/);
      // The versioned key's rotation without a bump is not seen (the user's risk, documented).
      expect(files()).toEqual(['V1', 'E2']);
    });

    test('a keyVersion bump checks and writes the new key', async () => {
      synth(2);
      const plan = await tf(['plan', '-out', 'third.plan'], { versioned: V2, every: E2 });
      expect(plan.stdout).toMatch(/~ "key_version" += "1" -> "2"/);
      expect(planned(await showPlan('third.plan'), 'delete,create')).toEqual([
        expect.stringMatching(/_every_HealthCheck_/), expect.stringMatching(/_versioned_HealthCheck_/), expect.stringMatching(/every.*_Write_/), expect.stringMatching(/versi.*_Write_/),
      ]);
      const apply = await tf(['apply', '-auto-approve'], { versioned: V2, every: E2 });
      expect(apply.exitCode).toBe(0);
      expect(apply.stdout).toMatch(checkLine('versioned', 60));
      expect(files()).toEqual(['V2', 'E2']);
    });

    test('a key given with -var that differs from TF_VAR_: refused before the check, shown in full, the file unchanged', async () => {
      synth(3);
      const apply = await tf(['apply', '-auto-approve', '-var', `${VERSIONED_VAR}=${V1}`], { versioned: V2, every: E2 });
      expect(apply.exitCode).toBe(1);
      expect(oneLine(apply.stderr)).toContain(`qdrant-cluster-access: error: TF_VAR_${VERSIONED_VAR} in the environment is not the value Terraform uses ` +
        `for variable ${VERSIONED_VAR} (it is also set by -var, a .tfvars or *.auto.tfvars file, or -var-file): give the key one way only, by exporting TF_VAR_${VERSIONED_VAR}`);
      expect(apply.stdout).not.toMatch(/ok +versioned → eu/);
      expect(files()[0]).toBe('V2');
    });

    test('destroy needs no key and takes the entries out (the files, created by the writer, are removed)', async () => {
      const destroy = await tf(['destroy', '-auto-approve'], {});
      expect(destroy.stderr).toBe('');
      expect(destroy.exitCode).toBe(0);
      expect(files()).toEqual(['absent', 'absent']);
    });

    test('canary scan: neither a key nor its SHA-256 in any output, saved plan, state or the stack', () => {
      expect(plans).toHaveLength(3);
      const stored = ['cdk.tf.json', 'terraform.tfstate', 'terraform.tfstate.backup', 'qdrant-ephemeral-keys.tf.json', 'qdrant-ephemeral-keys.tofu.json']
        .map((f) => path.join(dir, f)).filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f, 'utf8'));
      // The backup is the state as the last deploy left it: it records the checks.
      expect(stored.some((t) => t.includes('"key_version": "3"') || t.includes('"key_version":"3"'))).toBe(true);
      const texts = [...runs.flatMap((r) => [r.stdout, r.stderr]), ...plans, ...stored];
      const needles = Object.fromEntries(Object.entries({ V1, V2, E1, E2, MANAGE_KEY }).flatMap(([n, k]) => [[n, k], [`sha256(${n})`, sha256(k)]]));
      expect(Object.entries(needles).filter(([, n]) => texts.some((t) => t.includes(n))).map(([name]) => name)).toEqual([]);
      // Nothing derived from the key in the state, not even the hash the triggers of other keys hold.
      expect(stored.filter((t) => t.includes('key_sha256'))).toEqual([]);
    });
  });
});

/**
 * Terraform before 1.10 and OpenTofu before 1.11 have no ephemeral variables: the stack's version
 * files make them fail at init, with the line that says why. Run with each older binary found here:
 * OpenTofu 1.10.10 when scripts/offline-tofu.sh built it (`QCA_TOFU_VERSION=1.10.10`), and the
 * Terraform binary `QCA_OLD_TERRAFORM` names (none is built by the project's scripts).
 */
describe('older Terraform and OpenTofu fail at init, naming the version an ephemeral key needs', () => {
  const tofu = execFileSync('bash', [path.join(__dirname, '..', '..', 'scripts', 'offline-tofu.sh'), '--cached'],
    { encoding: 'utf8', env: { ...process.env, QCA_TOFU_VERSION: '1.10.10' } }).trim();
  const old = [
    { label: 'OpenTofu 1.10.10', binary: tofu, file: 'qdrant-ephemeral-keys.tofu.json', tool: 'OpenTofu', needs: 'OpenTofu 1.11 or later' },
    {
      label: `Terraform ${process.env.QCA_OLD_TERRAFORM ?? '(QCA_OLD_TERRAFORM not set)'}`,
      binary: process.env.QCA_OLD_TERRAFORM ?? '',
      file: 'qdrant-ephemeral-keys.tf.json',
      tool: 'Terraform',
      needs: 'Terraform 1.10 or later, or OpenTofu 1.11 or later',
    },
  ];
  let dir: string;
  beforeAll(() => {
    dir = synthStack(tempDir('qca-e2e-ephemeral-old-'), 'old', (app, id) => {
      const stack = new TerraformStack(app, id);
      new ClusterAccess(stack, 'Qdrant', {
        clusters: [{ name: 'eu', url: 'https://127.0.0.1:6333' }],
        apiKeys: [{ name: 'search-api', clusters: ['eu'], ephemeral: true, keyVersion: 1 }],
      });
      return stack;
    });
  });

  for (const o of old) {
    (o.binary && fs.existsSync(o.binary) ? test : test.skip)(`${o.label}: init fails on the version, quoting why`, async () => {
      const init = await terraform(dir, ['init', '-input=false', '-no-color'], {}, o.binary);
      expect(init.exitCode).toBe(1);
      const said = oneLine(init.stderr);
      expect(said).toContain(`Error: Unsupported ${o.tool} Core version on ${o.file} line 1, in terraform:`);
      expect(said).toContain(`Qdrant API keys declared ephemeral (search-api) need ${o.needs}`);
      expect(said).toMatch(new RegExp(`This configuration does not support ${o.tool} version 1\\.(9|10)\\.`));
      // The version error alone, before the configuration is read.
      expect(said).not.toContain('ephemeral" ');
      expect(init.stderr.match(/Error: /g)).toHaveLength(1);
    });
  }
});
