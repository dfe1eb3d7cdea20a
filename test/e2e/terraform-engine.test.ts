/**
 * End to end for the Terraform check engine (issue 30), with Terraform and with OpenTofu, against
 * a real Qdrant (TLS, jwt_rbac), every run with no `node` on PATH (the PATH holds the engine's
 * binary alone):
 * - a plan without the key stops at once with the Node engine's export line;
 * - an apply with the right key proves it (read-only, as declared) and writes the outputs;
 * - a wrong key fails the plan itself with the key step's message, and leaves the outputs as they were;
 * - the key shows where docs/engines.md says (the state, once per keyed data source; `show -json` of
 *   the state and of a saved plan; the saved plan), never in any run's output;
 * - a destroy needs no key, and sends none.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TerraformStack } from 'cdktf';
import { CheckEngine, ClusterAccess, KeyAccess, SecretTarget } from '../../src';
import { readJwt } from '../../tools/testing/jwt';
import { qdrantVariants, RealQdrant } from '../../tools/testing/real-qdrant';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';
import { engineVariants, synthStack, tempDir, terraform, terraformBinary, TerraformRun } from '../../tools/testing/terraform';
import { describeVariants } from '../../tools/testing/variants';

// Bounds, not expectations: init, plans, an apply and a destroy with real tools on a busy machine.
jest.setTimeout(300_000);

const MANAGE_KEY = canaryKey('canary-manage');
const KEY = readJwt(MANAGE_KEY, 90 * 24 * 3600);
const WRONG = canaryKey('canary-wrong');
const QDRANT = qdrantVariants().find((v) => v.value)?.value;
const ENV = 'TF_VAR_qdrant_api_key_search';

const variants = engineVariants().map((v) => (QDRANT || !v.value ? v : { label: v.label, unavailable: 'no Qdrant binary (scripts/qdrant-servers.sh)' }));

describeVariants('Terraform engine', variants, 'CheckEngine.TERRAFORM deployed with no node on PATH, against real Qdrant', (engine) => {
  const runs: TerraformRun[] = [];
  let q: RealQdrant;
  let dir: string;
  let noNode: string;
  /** terraform (or tofu) in `dir`, with only the engine on PATH; `key`: the key variable's value, if any. */
  const tf = async (args: string[], key?: string) => {
    const input = ['init', 'plan', 'apply', 'destroy'].includes(args[0]) ? ['-input=false'] : [];
    const run = await terraform(dir, [...args, ...input, '-no-color'], { PATH: noNode, [ENV]: key }, path.join(noNode, path.basename(engine)));
    runs.push(run);
    return run;
  };
  const outputs = async () => JSON.parse((await tf(['output', '-json'])).stdout);

  beforeAll(async () => {
    q = await RealQdrant.start({ binary: QDRANT, apiKey: MANAGE_KEY, jwtRbac: true, collections: ['products'] });
    const out = tempDir('qca-e2e-engine-');
    noNode = fs.mkdtempSync(path.join(out, 'path-'));
    const binary = terraformBinary(engine);
    fs.symlinkSync(path.isAbsolute(binary) ? binary : spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' }).stdout.trim(), path.join(noNode, path.basename(engine)));
    dir = synthStack(out, 'engine', (app, id) => {
      const stack = new TerraformStack(app, id);
      new ClusterAccess(stack, 'Qdrant', {
        clusters: [{ name: 'prod', url: q.restUrl }],
        apiKeys: [{ name: 'search', clusters: ['prod'], access: KeyAccess.readOnly(), secretTargets: [SecretTarget.terraformOutputs()] }],
        healthCheck: { engine: CheckEngine.TERRAFORM, grpc: false, caFile: q.caFile },
      });
      return stack;
    });
    const init = await tf(['init']);
    if (init.exitCode !== 0) throw new Error(`init failed:\n${init.stdout}\n${init.stderr}`);
  });
  afterAll(() => q?.stop());

  test('the runs have no node on PATH', () => {
    expect(spawnSync('sh', ['-c', 'command -v node'], { env: { PATH: noNode } }).status).not.toBe(0);
    expect(fs.readdirSync(noNode)).toEqual([path.basename(engine)]);
  });

  test('without the key, the plan stops at once with the export line, and sends nothing keyed', async () => {
    const run = await tf(['plan']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr.replace(/\s+/g, ' ')).toContain('Qdrant API key "search" has no value: run read -rs TF_VAR_qdrant_api_key_search');
    expect(run.stdout).not.toMatch(/_key_[0-9A-F]{8}\[0\]: Reading/);
  });

  test('apply with the right key: proven as declared (read-only), the outputs written', async () => {
    const run = await tf(['apply', '-auto-approve'], KEY);
    expect({ code: run.exitCode, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    // root and enforced without the key, then the key step and the read-only probes (manage, global-read).
    expect((run.stdout.match(/data\.http\.\S+: Read complete/g) ?? []).length).toBe(5);
    const out = await outputs();
    expect(out.QDRANT_URL).toEqual({ sensitive: true, type: 'string', value: q.restUrl });
    expect(out.QDRANT_API_KEY).toEqual({ sensitive: true, type: 'string', value: KEY });
    expect(out.qdrant_api_key_search_expires_at.value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('a wrong key fails the plan itself with the key step\'s message; a failed apply leaves the outputs as they were', async () => {
    const before = await outputs();
    const plan = await tf(['plan'], WRONG);
    expect(plan.exitCode).toBe(1);
    const message = 'FAIL search → prod step key: key rejected (401 Invalid API key or JWT); check the key\'s clusters in the console (setup guide, section 2), ' +
      'set the variable again (setup guide, section 3), or create a new key';
    expect(plan.stderr.replace(/\s+/g, ' ')).toContain(message);
    // One message: the access probes leave the key's refusal to the key step.
    expect(plan.stderr.match(/Resource postcondition failed/g)).toHaveLength(1);
    const apply = await tf(['apply', '-auto-approve'], WRONG);
    expect(apply.exitCode).toBe(1);
    expect(apply.stderr.replace(/\s+/g, ' ')).toContain(message);
    expect(apply.stdout).not.toMatch(/Apply complete/);
    expect(await outputs()).toEqual(before);
  });

  test('the key is in the state (once per keyed data source, and in its outputs target), in show -json and the saved plan; in no output', async () => {
    const state = JSON.parse(fs.readFileSync(path.join(dir, 'terraform.tfstate'), 'utf8'));
    const holding = state.resources.filter((r: any) => JSON.stringify(r).includes(KEY)).map((r: any) => `${r.mode}.${r.type}`);
    expect(holding.sort()).toEqual(['data.http', 'data.http', 'data.http']);
    expect(Object.entries<any>(state.outputs).filter(([, o]) => JSON.stringify(o).includes(KEY)).map(([n]) => n)).toEqual(['QDRANT_API_KEY']);
    expect((await tf(['show', '-json'])).stdout).toContain(KEY);
    expect((await tf(['show'])).stdout).not.toContain(KEY);
    const plan = await tf(['plan', '-out=saved.tfplan'], KEY);
    expect(plan.exitCode).toBe(0);
    expect((await tf(['show', '-json', 'saved.tfplan'])).stdout).toContain(KEY);
    const shown = runs.filter((r) => !r.stdout.startsWith('{'));
    expect(shown.length).toBeGreaterThan(5);
    for (const r of shown) expect([KEY, WRONG, MANAGE_KEY].filter((k) => `${r.stdout}${r.stderr}`.includes(k))).toEqual([]);
    expect(JSON.stringify(state).includes(WRONG)).toBe(false);
  });

  test('destroy needs no key, and sends none', async () => {
    const run = await tf(['destroy', '-auto-approve']);
    expect({ code: run.exitCode, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).not.toMatch(/_key_[0-9A-F]{8}\[0\]: Read/);
    expect(run.stdout).toMatch(/Destroy complete!/);
  });
});
