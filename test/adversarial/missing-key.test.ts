/**
 * Class 7: a missing key never hangs a deploy. With real Terraform: `apply` without the key's
 * TF_VAR_ fails on its own with one line naming the variable and the export line (it used to
 * wait at Terraform's variable prompt forever, even with stdin closed or never written to, as in
 * CI); `destroy` needs no key at all. A watchdog kills a hung run; the tests assert it was not
 * needed, never how long a run took.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BasicStack } from '../../examples/basic/main';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { initAndApply, synthStack, terraform } from '../../tools/testing/terraform';

jest.setTimeout(120_000);

const KEY = canaryKey('canary-missing');
const MESSAGE = /Qdrant API key "search-api" has no value: run\s+read\s+-rs\s+TF_VAR_qdrant_api_key_search_api\s+&&\s+export\s+TF_VAR_qdrant_api_key_search_api,\s+paste\s+the\s+key/;
/** Kills a run that hangs (at the variable prompt); far above what a failing apply needs. */
const WATCHDOG_MS = 60_000;

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

test('apply without the key fails on its own, with stdin open and never written to, naming the variable', async () => {
  // As a user runs it: interactive input allowed (no -input=false), stdin a pipe no one writes to.
  const r = await terraform(dir, ['apply', '-auto-approve', '-no-color'], { TF_VAR_qdrant_api_key_search_api: undefined }, undefined,
    { stdin: 'pipe', deadlineMs: WATCHDOG_MS });
  expect(r.signal).toBeNull(); // it ended by itself: the watchdog did not have to kill it
  expect(r.exitCode).not.toBe(0);
  const output = r.stdout + r.stderr;
  expect(output.replace(/\s+/g, ' ')).toMatch(MESSAGE);
  expect(output).not.toMatch(/Enter a value/);
  expect(output).not.toContain(KEY);
  // Nothing was checked, so nothing was sent.
  expect(cluster.requests).toEqual([]);
});

test('apply without the key with stdin closed: the same line', async () => {
  const r = await terraform(dir, ['apply', '-auto-approve', '-no-color'], { TF_VAR_qdrant_api_key_search_api: undefined }, undefined, { deadlineMs: WATCHDOG_MS });
  expect(r.signal).toBeNull();
  expect(r.exitCode).not.toBe(0);
  expect(r.stderr.replace(/\s+/g, ' ')).toMatch(MESSAGE);
  expect(r.stdout + r.stderr).not.toContain(KEY);
});

test('destroy needs no key: after a real deploy, destroy without TF_VAR_ succeeds', async () => {
  const deployed = await initAndApply(dir, { TF_VAR_qdrant_api_key_search_api: KEY });
  expect(deployed.exitCode).toBe(0);
  const destroy = await terraform(dir, ['destroy', '-auto-approve', '-no-color'], { TF_VAR_qdrant_api_key_search_api: undefined });
  expect(destroy.exitCode).toBe(0);
  // The check, the gate its expiry output waits for, and the record of the access's files.
  expect(destroy.stdout).toMatch(/Destroy complete! Resources: 3 destroyed\./);
  for (const text of [deployed.stdout, deployed.stderr, destroy.stdout, destroy.stderr]) expect(text).not.toContain(KEY);
});
