/**
 * Class 8: every time bound holds. The deadline grows with the timeout, so a timeout above 60 s is
 * not cut short; every numeric flag has bounds; the CA file is read with a size limit and never
 * from a device or a FIFO, so reading it cannot outlast the deadline.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { checkClusterAccess, checkGrant } from '../../assets/checker/check';
import { prepare } from '../../assets/checker/options';
import { NodeRun, runNode } from '../../tools/testing/run-node';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';

const CLI = path.join(__dirname, '..', '..', 'assets', 'checker', 'cli.js');
const KEY = canaryKey('canary-bounds');

/** Kills a CLI run that hangs (e.g. blocked reading a FIFO); far above what any run here needs. */
const WATCHDOG_MS = 30_000;

async function cli(args: string[], env: Record<string, string> = {}): Promise<NodeRun> {
  const r = await runNode([CLI, ...args], { env: { PATH: process.env.PATH ?? '', QDRANT_API_KEY: KEY, ...env }, deadlineMs: WATCHDOG_MS });
  // Whatever happened, the key was not printed.
  expect(r.stdout + r.stderr).not.toContain(KEY);
  return r;
}

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-bounds-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the deadline follows the timeout', () => {
  test.each([[10, 60], [15, 60], [16, 64], [90, 360], [300, 1200]])('timeout %i s: deadline %i s', (timeout, deadline) => {
    const shared = prepare({ apiKey: KEY, timeoutSeconds: timeout });
    expect(shared.timeoutMs).toBe(timeout * 1000);
    expect(shared.deadlineMs).toBe(deadline * 1000);
  });

  test('an answer slower than the old fixed budget per attempt still passes (timeout 2 s, no deadline given)', async () => {
    const s = await StandInQdrant.start({ apiKey: KEY, mode: 'slow', params: { slowMs: 1500 } });
    try {
      const r = await checkClusterAccess({ url: s.url, apiKey: KEY, caFile: s.caFile, timeoutSeconds: 2, retries: 0 });
      expect(r.ok).toBe(true);
    } finally {
      await s.stop();
    }
  }, 60_000); // two slow answers in a row: more than jest's default 5 s on a loaded machine
});

describe('every numeric flag has bounds', () => {
  test.each([
    ['--timeout', '0'], ['--timeout', '301'], ['--timeout', '1e9'], ['--timeout', 'Infinity'], ['--retries', '11'], ['--retries', '-1'],
    ['--deadline', '3601'], ['--deadline', '0'], ['--concurrency', '0'], ['--concurrency', '65'], ['--min-validity-days', '3651'], ['--warn-validity-days', '-3'],
  ])('%s %s is a usage error', async (flag, value) => {
    const r = await cli(['check', '--url', 'https://h.example', flag, value]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^qdrant-cluster-access: error: ${flag} needs a (whole )?number`));
  });
});

describe('the CA file', () => {
  test('a FIFO is refused at once (a blocking read would outlast any deadline)', async () => {
    const fifo = path.join(dir, 'ca.fifo');
    execFileSync('mkfifo', [fifo]);
    const r = await cli(['check', '--url', 'https://h.example', '--ca', fifo, '--deadline', '5']);
    expect(r.signal).toBeNull(); // it ended by itself: a read blocked on the FIFO would be killed by the watchdog
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`CA file ${JSON.stringify(fifo)} is not a regular file (a device, a FIFO or a directory); give a PEM file`);
  }, WATCHDOG_MS + 10_000);

  test('a device is refused', async () => {
    const r = await cli(['check', '--url', 'https://h.example', '--ca', '/dev/zero']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('CA file "/dev/zero" is not a regular file');
  });

  test('a file larger than 1 MiB is refused without reading it whole', async () => {
    const big = path.join(dir, 'big.pem');
    fs.writeFileSync(big, Buffer.alloc(2 * 1024 * 1024, 'A'));
    const r = await cli(['check', '--url', 'https://h.example', '--ca', big]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`CA file ${JSON.stringify(big)} is larger than 1 MiB (2097152 bytes)`);
  });

  test('the time spent preparing (reading the CA) counts against each cluster\'s deadline', async () => {
    const s = await StandInQdrant.start({ apiKey: KEY });
    try {
      const shared = prepare({ apiKey: KEY, caFile: s.caFile, deadlineSeconds: 1 }) as any;
      // As if reading the CA had taken the whole second: nothing is left for the requests.
      shared.prepareMs = 1000;
      const report = await checkGrant(shared, { url: s.url });
      expect(report).toMatchObject({ ok: false, failedStep: 'root', failureId: 'deadline' });
      expect(report.steps[0].attempts).toBe(0);
      expect(s.requests).toHaveLength(0);
    } finally {
      await s.stop();
    }
  });
});
