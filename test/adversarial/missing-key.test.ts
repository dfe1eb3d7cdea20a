/**
 * Class 7: a missing key never hangs a deploy. With real Terraform: `apply` without the key's
 * TF_VAR_ fails within seconds with one line naming the variable and the export line (it used to
 * wait at Terraform's variable prompt forever, even with stdin closed or never written to, as in
 * CI); `destroy` needs no key at all.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BasicStack } from '../../examples/basic/main';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { initAndApply, offlineTerraformEnv, synthStack, terraform } from '../../tools/testing/terraform';

jest.setTimeout(120_000);

const KEY = canaryKey('canary-missing');
const MESSAGE = /Qdrant API key "search-api" has no value: export\s+TF_VAR_qdrant_api_key_search_api='<the key>'\s+before\s+cdktf\s+deploy/;

/** terraform apply as a user runs it: interactive input allowed, stdin a pipe that is never written to. */
function applyWithOpenStdin(cwd: string): Promise<{ code: number | null; output: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const env: Record<string, string | undefined> = { ...process.env, ...offlineTerraformEnv() };
    delete env.TF_VAR_qdrant_api_key_search_api;
    delete env.TF_INPUT;
    const child = spawn('terraform', ['apply', '-auto-approve', '-no-color'], { cwd, env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, output, ms: Date.now() - started });
    });
  });
}

let cluster: StandInQdrant;
let out: string;
let dir: string;

beforeAll(async () => {
  cluster = await StandInQdrant.start({ apiKey: KEY });
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-e2e-missing-'));
  dir = synthStack(out, 'basic', (app, id) => new BasicStack(app, id, { url: cluster.url, caFile: cluster.caFile, grpcPort: Number(new URL(cluster.grpcUrl).port) }));
  const init = await terraform(dir, ['init', '-input=false', '-no-color']);
  if (init.exitCode !== 0) throw new Error(init.stderr);
});
afterAll(async () => {
  await cluster?.stop();
  fs.rmSync(out, { recursive: true, force: true });
});

test('apply without the key fails at once, with stdin open and never written to, naming the variable', async () => {
  const r = await applyWithOpenStdin(dir);
  expect(r.code).not.toBe(0);
  expect(r.output.replace(/\s+/g, ' ')).toMatch(MESSAGE);
  expect(r.output).not.toMatch(/Enter a value/);
  expect(r.ms).toBeLessThan(30_000); // a hang would be killed at 60 s
  // Nothing was checked, so nothing was sent.
  expect(cluster.requests).toEqual([]);
});

test('apply without the key with stdin closed: the same line', async () => {
  const r = await terraform(dir, ['apply', '-auto-approve', '-no-color'], { TF_VAR_qdrant_api_key_search_api: undefined });
  expect(r.exitCode).not.toBe(0);
  expect(r.stderr.replace(/\s+/g, ' ')).toMatch(MESSAGE);
});

test('destroy needs no key: after a real deploy, destroy without TF_VAR_ succeeds', async () => {
  const deployed = await initAndApply(dir, { TF_VAR_qdrant_api_key_search_api: KEY });
  expect(deployed.exitCode).toBe(0);
  const destroy = await terraform(dir, ['destroy', '-auto-approve', '-no-color'], { TF_VAR_qdrant_api_key_search_api: undefined });
  expect(destroy.exitCode).toBe(0);
  expect(destroy.stdout).toMatch(/Destroy complete! Resources: 1 destroyed\./);
  for (const text of [deployed.stdout, deployed.stderr, destroy.stdout, destroy.stderr]) expect(text).not.toContain(KEY);
});
