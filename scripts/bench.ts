/**
 * Benchmarks (`npx projen bench`), each against a baseline run side by side in the same process:
 *
 * 1. synth: ClusterAccess with N grants vs. raw cdktf with N null_resources carrying local-exec
 *    (what the library generates, written by hand), plus examples/multi-cluster on its own.
 * 2. apply: a 20-grant ClusterAccess against stand-in clusters vs. 20 null_resources whose
 *    local-exec runs `true`, both with real terraform (so the ratio is the cost of the checks).
 *
 * Prints medians and ratios; asserts nothing (tests do that).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { provider, resource } from '@cdktf/provider-null';
import { App, TerraformStack, TerraformVariable, Testing } from 'cdktf';
import { MultiClusterStack } from '../examples/multi-cluster/main';
import { ClusterAccess } from '../src';
import { StandInQdrant, canaryKey } from '../tools/testing/stand-in-qdrant';
import { initAndApply } from '../tools/testing/terraform';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(fn: () => void): number {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

/** Raw cdktf: what one health check is, without the library. */
function baselineStack(grants: number): TerraformStack {
  const stack = new TerraformStack(Testing.app(), 'baseline');
  new provider.NullProvider(stack, 'null');
  const key = new TerraformVariable(stack, 'key', { type: 'string', sensitive: true });
  for (let i = 0; i < grants; i++) {
    new resource.Resource(stack, `check${i}`, {
      triggers: { url: `https://c${i}.example.com:6333`, key: key.stringValue },
      provisioners: [{ type: 'local-exec', command: 'node check.js', environment: { URL: `https://c${i}.example.com:6333` } }],
    });
  }
  return stack;
}

function libraryStack(clusters: number, keys: number, urls?: string[], caFile?: string, app = Testing.app()): TerraformStack {
  const stack = new TerraformStack(app, 'library');
  const names = Array.from({ length: clusters }, (_, i) => `cluster-${i}`);
  new ClusterAccess(stack, 'Qdrant', {
    clusters: names.map((name, i) => ({ name, url: urls?.[i] ?? `https://${name}.example.com` })),
    apiKeys: Array.from({ length: keys }, (_, i) => ({ name: `key-${i}`, clusters: names })),
    healthCheck: { caFile },
  });
  return stack;
}

function benchSynth(): void {
  console.log('synth (Testing.synth with validations; median of 7, alternating runs)');
  for (const [clusters, keys] of [[10, 10], [40, 25]]) {
    const grants = clusters * keys;
    const base: number[] = [];
    const ours: number[] = [];
    for (let run = 0; run < 7; run++) {
      base.push(time(() => Testing.synth(baselineStack(grants), true)));
      ours.push(time(() => Testing.synth(libraryStack(clusters, keys), true)));
    }
    const b = median(base);
    const o = median(ours);
    console.log(`  ${String(grants).padStart(5)} grants: baseline ${b.toFixed(0)} ms, ClusterAccess ${o.toFixed(0)} ms, ratio ${(o / b).toFixed(2)}`);
  }
  const multi: number[] = [];
  for (let run = 0; run < 7; run++) {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-bench-'));
    multi.push(time(() => {
      const app = new App({ outdir: out });
      new MultiClusterStack(app, 'multi-cluster');
      app.synth();
    }));
    fs.rmSync(out, { recursive: true, force: true });
  }
  console.log(`  examples/multi-cluster, full app.synth() with assets: ${median(multi).toFixed(0)} ms (median of 7)`);
}

async function benchApply(): Promise<void> {
  console.log('apply (real terraform, 20 grants = 4 clusters x 5 keys; one run each, init excluded)');
  const key = canaryKey('bench');
  const servers = await Promise.all([0, 1, 2, 3].map(() => StandInQdrant.start({ apiKey: key })));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-bench-apply-'));
  try {
    const env: Record<string, string> = {};
    for (let i = 0; i < 5; i++) env[`TF_VAR_qdrant_api_key_key_${i}`] = key;

    const baseApp = new App({ outdir: path.join(tmp, 'base') });
    const baseStack = new TerraformStack(baseApp, 'baseline');
    new provider.NullProvider(baseStack, 'null');
    for (let i = 0; i < 20; i++) {
      new resource.Resource(baseStack, `check${i}`, { triggers: { i: String(i) }, provisioners: [{ type: 'local-exec', command: 'true' }] });
    }
    baseApp.synth();
    const baseline = await initAndApply(path.join(tmp, 'base', 'stacks', 'baseline'), env);

    const app = new App({ outdir: path.join(tmp, 'lib') });
    libraryStack(4, 5, servers.map((s) => s.url), servers[0].caFile, app);
    app.synth();
    const ours = await initAndApply(path.join(tmp, 'lib', 'stacks', 'library'), env);
    if (ours.exitCode !== 0) throw new Error(`apply failed:\n${ours.stderr}`);
    const passes = (ours.stdout.match(/\(local-exec\): ok /g) ?? []).length;
    const checkMs = [...ours.stdout.matchAll(/keys enforced +(\d+) ms/g)].map((m) => Number(m[1]));
    console.log(`  baseline (20 x local-exec true): ${baseline.ms} ms`);
    console.log(`  ClusterAccess (20 checks, ${passes} passed): ${ours.ms} ms, ratio ${(ours.ms / baseline.ms).toFixed(2)}`);
    console.log(`  one check as reported by the checker: median ${median(checkMs)} ms, max ${Math.max(...checkMs)} ms (terraform runs 10 at a time)`);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  benchSynth();
  await benchApply();
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
