/**
 * End to end: the checks of eight keys, run by real Terraform, share their connections
 * (assets/checker/share.js, which the constructs turn on for keys from variables): every grant
 * gets its own pass line, the clusters see a few connections instead of one pair per key, the
 * sockets are gone after the apply, and a rotation runs that key's check only, alone.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TerraformStack } from 'cdktf';
import { ClusterAccess } from '../../src';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { initAndApply, synthStack, terraform } from '../../tools/testing/terraform';

jest.setTimeout(180_000);

const KEYS = Array.from({ length: 8 }, (_, i) => canaryKey(`canary-e2e-share-${i}`));
const ROTATED = canaryKey('canary-e2e-share-rotated');
/** Leaders at a time (one per core, up to 4). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SLOTS } = require('../../assets/checker/share.js') as { SLOTS: number };

describe('the checks of eight keys deployed with real terraform', () => {
  let out: string;
  let dir: string;
  let clusters: StandInQdrant[];
  const seen: string[] = [];
  const env = (overrides: Record<string, string> = {}): Record<string, string> => ({
    ...Object.fromEntries(KEYS.map((k, i) => [`TF_VAR_qdrant_api_key_k${i}`, k])),
    ...overrides,
  });
  const connections = (): number => clusters.reduce((n, c) => n + c.restConnections + c.grpcConnections, 0);
  const passLines = (stdout: string): string[] => (stdout.match(/\(local-exec\): ok +k\d → c\d/g) ?? []).map((l) => l.replace(/^.*ok +/, '')).sort();

  beforeAll(async () => {
    // Slow answers: the eight checks Terraform starts together are all still running when the last starts.
    clusters = await Promise.all([0, 1].map(() => StandInQdrant.start({ apiKey: KEYS[0], moreApiKeys: [...KEYS.slice(1), ROTATED], mode: 'slow', params: { slowMs: 300 } })));
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-e2e-share-'));
    dir = synthStack(out, 'shared', (app, id) => {
      const stack = new TerraformStack(app, id);
      new ClusterAccess(stack, 'Qdrant', {
        clusters: clusters.map((c, j) => ({ name: `c${j}`, url: c.url, grpcPort: Number(new URL(c.grpcUrl).port) })),
        apiKeys: KEYS.map((_, i) => ({ name: `k${i}`, clusters: ['c0', 'c1'] })),
        healthCheck: { caFile: clusters[0].caFile },
      });
      return stack;
    });
  });

  afterAll(async () => {
    try {
      if (dir) {
        const destroy = await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], env());
        seen.push(destroy.stdout, destroy.stderr);
        expect(destroy.exitCode).toBe(0);
      }
      const state = dir && fs.existsSync(path.join(dir, 'terraform.tfstate')) ? fs.readFileSync(path.join(dir, 'terraform.tfstate'), 'utf8') : '';
      for (const text of [...seen, state]) expect([...KEYS, ROTATED].filter((k) => text.includes(k))).toEqual([]);
    } finally {
      await Promise.all((clusters ?? []).map((c) => c.stop()));
      if (out) fs.rmSync(out, { recursive: true, force: true });
    }
  });

  test('eight keys\' checks: a pass line per grant, a few connections per cluster, no socket left', async () => {
    const run = await initAndApply(dir, env());
    seen.push(run.stdout, run.stderr);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(passLines(run.stdout)).toEqual(KEYS.flatMap((_, i) => [`k${i} → c0`, `k${i} → c1`]).sort());
    // Alone, each check makes a REST and a gRPC connection per cluster (32 here); shared, one per leader.
    expect(connections()).toBeLessThanOrEqual(SLOTS * 2 * clusters.length);
    const shareDirs = fs.readdirSync(path.join(dir, 'assets'), { recursive: true, encoding: 'utf8' }).filter((p) => path.basename(p) === '.share');
    expect(shareDirs).toHaveLength(1);
    expect(fs.readdirSync(path.join(dir, 'assets', shareDirs[0]))).toEqual([]);
  });

  test('a rotation runs that key\'s check only, alone', async () => {
    const before = connections();
    const run = await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color'], env({ TF_VAR_qdrant_api_key_k3: ROTATED }));
    seen.push(run.stdout, run.stderr);
    expect(run.exitCode).toBe(0);
    expect(passLines(run.stdout)).toEqual(['k3 → c0', 'k3 → c1']);
    expect(connections() - before).toBe(2 * clusters.length);
  });
});
