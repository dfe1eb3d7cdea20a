/**
 * Benchmarks (`npx projen bench`), each against a baseline measured in the same run, printed next
 * to its target (issue #11). Prints; asserts nothing (tests never time anything).
 *
 * 1. synth, 1,000 grants (100 clusters x 10 keys) vs raw cdktf with one null_resource + local-exec
 *    per grant (what one check per grant would be, written by hand); median of alternating runs.
 * 2. cdk.tf.json bytes per grant, same stack.
 * 3. synth, 10,000 grants (100 clusters x 100 keys) in a fresh process of the compiled library:
 *    wall time and peak RSS.
 * 4. apply, 100 grants (10 clusters x 10 keys) against stand-in clusters (REST and gRPC) vs the
 *    floor of 100 null_resources whose local-exec runs `node -e 0`; real terraform, init excluded.
 * 5. apply, 1,000 grants (100 clusters x 10 keys), against the 100-grant figure.
 * 6. the wire cost of one check (REST and gRPC) through a proxy that adds 50 ms of round-trip
 *    time, in round trips.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { provider, resource } from '@cdktf/provider-null';
import { App, TerraformStack, TerraformVariable, Testing } from 'cdktf';
import { ClusterAccess } from '../src';
import { DelayProxy } from '../tools/testing/delay-proxy';
import { StandInQdrant, canaryKey } from '../tools/testing/stand-in-qdrant';
import { initAndApply, terraform } from '../tools/testing/terraform';

const REPO = path.join(__dirname, '..');
const rows: { figure: string; measured: string; target: string; ok: boolean }[] = [];

function report(figure: string, measured: string, target: string, ok: boolean): void {
  rows.push({ figure, measured, target, ok });
  console.log(`  ${ok ? 'ok  ' : 'MISS'} ${figure}: ${measured} (target ${target})`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(fn: () => void): number {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

/** Raw cdktf: what one check per grant is, without the library. */
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

function libraryStack(clusters: number, keys: number, servers?: StandInQdrant[], app = Testing.app()): TerraformStack {
  const stack = new TerraformStack(app, 'library');
  const names = Array.from({ length: clusters }, (_, i) => `cluster-${i}`);
  new ClusterAccess(stack, 'Qdrant', {
    clusters: names.map((name, i) => (servers
      ? { name, url: servers[i].url, grpcPort: Number(new URL(servers[i].grpcUrl).port) }
      : { name, url: `https://${name}.example.com` })),
    apiKeys: Array.from({ length: keys }, (_, i) => ({ name: `key-${i}`, clusters: names })),
    healthCheck: { caFile: servers?.[0].caFile },
  });
  return stack;
}

function benchSynth(): void {
  console.log('synth (Testing.synth with validations; median of 7, alternating runs)');
  const base: number[] = [];
  const ours: number[] = [];
  let json = '';
  for (let run = 0; run < 7; run++) {
    base.push(time(() => Testing.synth(baselineStack(1000), true)));
    ours.push(time(() => { json = Testing.synth(libraryStack(100, 10), true); }));
  }
  const ratio = median(ours) / median(base);
  report('synth, 1,000 grants', `${median(ours).toFixed(0)} ms vs ${median(base).toFixed(0)} ms raw cdktf: ${ratio.toFixed(2)}x`, '<= 1.25x', ratio <= 1.25);
  const perGrant = Buffer.byteLength(json) / 1000;
  report('cdk.tf.json per grant', `${perGrant.toFixed(0)} bytes`, '<= 300 bytes', perGrant <= 300);
}

function benchSynth10k(): void {
  const lib = path.join(REPO, 'lib', 'index.js');
  if (!fs.existsSync(lib)) {
    console.log('  (synth, 10,000 grants: skipped, lib/ is not built: run npx projen compile)');
    return;
  }
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-bench-10k-'));
  try {
    const script = `
      const t0 = process.hrtime.bigint();
      const { App, TerraformStack } = require(${JSON.stringify(require.resolve('cdktf'))});
      const { ClusterAccess } = require(${JSON.stringify(lib)});
      const app = new App({ outdir: ${JSON.stringify(outdir)} });
      const stack = new TerraformStack(app, 'big');
      const names = Array.from({ length: 100 }, (_, i) => 'cluster-' + i);
      new ClusterAccess(stack, 'Qdrant', {
        clusters: names.map((name) => ({ name, url: 'https://' + name + '.example.com' })),
        apiKeys: Array.from({ length: 100 }, (_, i) => ({ name: 'key-' + i, clusters: names })),
      });
      app.synth();
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      process.stdout.write(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024 }));`;
    const runs = [0, 1, 2].map(() => JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { ms: number; maxRssMb: number });
    const ms = median(runs.map((r) => r.ms));
    const rss = Math.max(...runs.map((r) => r.maxRssMb));
    report('synth, 10,000 grants (require + build + app.synth, median of 3)', `${(ms / 1000).toFixed(2)} s`, '< 3 s', ms < 3000);
    report('synth, 10,000 grants, peak RSS', `${rss.toFixed(0)} MB`, '< 300 MB', rss < 300);
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

async function applyLibrary(tmp: string, name: string, clusters: number, keys: number, key: string): Promise<{ ms: number; passes: number }> {
  const servers = await Promise.all(Array.from({ length: clusters }, () => StandInQdrant.start({ apiKey: key })));
  try {
    const app = new App({ outdir: path.join(tmp, name) });
    libraryStack(clusters, keys, servers, app);
    app.synth();
    const dir = path.join(tmp, name, 'stacks', 'library');
    const env = Object.fromEntries(Array.from({ length: keys }, (_, i) => [`TF_VAR_qdrant_api_key_key_${i}`, key]));
    const init = await terraform(dir, ['init', '-input=false', '-no-color'], env);
    if (init.exitCode !== 0) throw new Error(`init failed:\n${init.stderr}`);
    const run = await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color'], env);
    if (run.exitCode !== 0) throw new Error(`apply failed:\n${run.stderr.slice(0, 2000)}`);
    return { ms: run.ms, passes: (run.stdout.match(/\(local-exec\): ok /g) ?? []).length };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

async function benchApply(): Promise<void> {
  console.log('apply (real terraform, init excluded; stand-in clusters on loopback, REST and gRPC)');
  const key = canaryKey('bench');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-bench-apply-'));
  try {
    const floorApp = new App({ outdir: path.join(tmp, 'floor') });
    const floorStack = new TerraformStack(floorApp, 'floor');
    new provider.NullProvider(floorStack, 'null');
    for (let i = 0; i < 100; i++) {
      new resource.Resource(floorStack, `check${i}`, { triggers: { i: String(i) }, provisioners: [{ type: 'local-exec', command: 'node -e 0' }] });
    }
    floorApp.synth();
    const floor = await initAndApply(path.join(tmp, 'floor', 'stacks', 'floor'), {});
    const hundred = await applyLibrary(tmp, 'hundred', 10, 10, key);
    const thousand = await applyLibrary(tmp, 'thousand', 100, 10, key);
    const r100 = hundred.ms / floor.ms;
    report('apply, 100 grants (10 keys x 10 clusters)', `${hundred.ms} ms (${hundred.passes} pass lines) vs ${floor.ms} ms for 100 x node -e 0: ${r100.toFixed(2)}x`, '<= 0.3x the floor', r100 <= 0.3);
    const r1000 = thousand.ms / hundred.ms;
    report('apply, 1,000 grants (10 keys x 100 clusters)', `${thousand.ms} ms (${thousand.passes} pass lines): ${r1000.toFixed(2)}x the 100-grant apply`, '<= 3x', r1000 <= 3);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function benchWire(): Promise<void> {
  console.log('wire cost of one check (REST + gRPC) with 50 ms of round-trip time (median of 5)');
  const key = canaryKey('bench-wire');
  const s = await StandInQdrant.start({ apiKey: key });
  const rest = await DelayProxy.start(Number(new URL(s.url).port), 50);
  const grpc = await DelayProxy.start(Number(new URL(s.grpcUrl).port), 50);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { checkClusterAccess } = require('../assets/checker/check.js');
  try {
    for (const [label, extra] of [
      ['any valid key', {}],
      ['declared access: 1 read + 1 read-write collection', { access: 'collections', readCollections: ['products'], writeCollections: ['support-tickets'] }],
    ] as const) {
      const runs: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await checkClusterAccess({ url: `https://127.0.0.1:${rest.port}`, grpcUrl: `https://127.0.0.1:${grpc.port}`, apiKey: key, caFile: s.caFile, allowExcessAccess: true, ...extra });
        if (!r.ok) throw new Error(`wire check failed: ${r.reason}`);
        runs.push(r.durationMs);
      }
      const ms = median(runs);
      report(`wire cost, ${label}`, `${ms} ms = ${(ms / 50).toFixed(1)} round trips`, '<= 5 round trips + 20 ms (270 ms)', ms <= 270);
    }
  } finally {
    await rest.stop();
    await grpc.stop();
    await s.stop();
  }
}

async function main(): Promise<void> {
  benchSynth();
  benchSynth10k();
  await benchWire();
  await benchApply();
  const missed = rows.filter((r) => !r.ok);
  console.log(missed.length === 0 ? `\nall ${rows.length} figures within their targets` : `\n${missed.length} of ${rows.length} figures miss their targets`);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
