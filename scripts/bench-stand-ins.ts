/**
 * Stand-in clusters in a process of their own, for scripts/bench.ts: starts QCA_BENCH_COUNT
 * stand-ins that accept the key in QCA_BENCH_KEY, prints one JSON line
 * ({ endpoints: [{ url, grpcUrl }], caFile }), and stops them when stdin closes.
 */
import { StandInQdrant } from '../tools/testing/stand-in-qdrant';

async function main(): Promise<void> {
  const count = Number(process.env.QCA_BENCH_COUNT);
  const key = process.env.QCA_BENCH_KEY ?? '';
  const servers = await Promise.all(Array.from({ length: count }, () => StandInQdrant.start({ apiKey: key })));
  process.stdout.write(JSON.stringify({ endpoints: servers.map((s) => ({ url: s.url, grpcUrl: s.grpcUrl })), caFile: servers[0].caFile }) + '\n');
  process.stdin.resume();
  process.stdin.on('end', () => {
    void Promise.all(servers.map((s) => s.stop())).then(() => process.exit(0));
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
