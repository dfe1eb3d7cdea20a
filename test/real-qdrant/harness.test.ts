/**
 * The real-Qdrant harness itself (tools/testing/real-qdrant.ts): it finds one binary per version
 * (each suite runs once per version, named in its title), starts a server configured only
 * by its own QDRANT__ variables, on loopback, with TLS; stop() leaves no process and no temp dir;
 * a server that does not get ready fails with its log and leaves nothing behind; the state
 * snapshot sees changes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeRealQdrant, findQdrantBinaries, RealQdrant } from '../../tools/testing/real-qdrant';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';

// Bounds, not expectations: starting real servers and running the matrices takes a few seconds on a busy machine.
jest.setTimeout(120_000);

const KEY = canaryKey();

describe('finding the binaries', () => {
  let dir: string;
  /** A stand-in for a Qdrant binary: a script that answers `--version` with `said`. */
  const fakeQdrant = (name: string, said: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `#!/bin/sh\n[ "$1" = --version ] && echo '${said}'\n`, { mode: 0o755 });
    return file;
  };
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-real-qdrant-test-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('QDRANT_BINS: one variant per path, labelled with the version the binary says it is', () => {
    const a = fakeQdrant('a', 'qdrant 7.1.0');
    const b = fakeQdrant('b', 'qdrant 7.2.0');
    expect(findQdrantBinaries({ QDRANT_BINS: `${a}:${b}` })).toEqual([
      { label: 'qdrant 7.1.0', value: { path: a, version: '7.1.0' } },
      { label: 'qdrant 7.2.0', value: { path: b, version: '7.2.0' } },
    ]);
  });

  test('QDRANT_BINS naming a version twice: the second is a reason, not a second suite of the same title', () => {
    const a = fakeQdrant('a', 'qdrant 7.1.0');
    const again = fakeQdrant('again', 'qdrant 7.1.0');
    expect(findQdrantBinaries({ QDRANT_BINS: `${a}:${again}` })).toEqual([
      { label: 'qdrant 7.1.0', value: { path: a, version: '7.1.0' } },
      { label: `qdrant 7.1.0 at ${again}`, unavailable: `QDRANT_BINS: ${again} is version 7.1.0 again` },
    ]);
  });

  test('QDRANT_BIN that is not executable, or not Qdrant: a one-line reason', () => {
    const file = path.join(dir, 'not-executable');
    fs.writeFileSync(file, '', { mode: 0o644 });
    expect(findQdrantBinaries({ QDRANT_BIN: file })).toEqual([{ label: `qdrant at ${file}`, unavailable: `QDRANT_BIN: ${file} is not an executable file` }]);
    const other = fakeQdrant('other', 'something 2.0');
    expect(findQdrantBinaries({ QDRANT_BIN: other })).toEqual([
      { label: `qdrant at ${other}`, unavailable: `QDRANT_BIN: ${other} --version printed 'something 2.0', not 'qdrant <version>'` },
    ]);
  });

  test('no QDRANT_BINS or QDRANT_BIN, and no servers script: a one-line reason', () => {
    const script = path.join(dir, 'missing.sh');
    expect(findQdrantBinaries({}, script)).toEqual([
      { label: 'qdrant', unavailable: `no QDRANT_BINS or QDRANT_BIN, and ${script} --versions failed: bash: ${script}: No such file or directory` },
    ]);
  });

  test('the servers script: each version it lists, built by it; a failed build or a binary of another version is that version\'s reason', () => {
    const ok = fakeQdrant('ok', 'qdrant 7.1.0');
    const wrong = fakeQdrant('wrong', 'qdrant 6.9.0');
    const script = path.join(dir, 'servers.sh');
    fs.writeFileSync(script, [
      'case "$1 $2" in',
      '  "--versions ") printf "7.1.0\\n7.2.0\\n7.3.0\\n" ;;',
      `  "--build 7.1.0") echo building >&2; echo noise; echo ${ok} ;;`,
      '  "--build 7.2.0") echo "[qdrant-servers] ERROR: Qdrant 7.2.0: cargo not found" >&2; exit 1 ;;',
      `  "--build 7.3.0") echo ${wrong} ;;`,
      'esac',
    ].join('\n'));
    expect(findQdrantBinaries({}, script)).toEqual([
      { label: 'qdrant 7.1.0', value: { path: ok, version: '7.1.0' } },
      { label: 'qdrant 7.2.0', unavailable: `${script} --build 7.2.0 failed: [qdrant-servers] ERROR: Qdrant 7.2.0: cargo not found` },
      { label: 'qdrant 7.3.0', unavailable: `${script} --build 7.3.0 printed ${wrong}, which says it is 6.9.0` },
    ]);
  });

  test('outside a describeRealQdrant block, a start without a binary is refused', async () => {
    await expect(RealQdrant.start()).rejects.toThrow('RealQdrant.start outside a describeRealQdrant block: pass options.binary (one of qdrantVariants())');
  });
});

describeRealQdrant('RealQdrant', (qdrant) => {
  test('starts on loopback with TLS and the test CA; stop() ends the process and removes the temp dir', async () => {
    const q = await RealQdrant.start({ apiKey: KEY, collections: ['products'], pointsPerCollection: 2 });
    try {
      expect(path.basename(q.dir)).toMatch(/^qca-real-qdrant-/);
      expect(path.dirname(q.dir)).toBe(os.tmpdir());
      expect(q.restUrl).toBe(`https://127.0.0.1:${q.restPort}`);
      expect(q.grpcUrl).toBe(`https://127.0.0.1:${q.grpcPort}`);
      expect(q.caFile!.startsWith(q.dir)).toBe(true);
      // The version the server answers is the one its binary says, and the one the suite's title names.
      expect(q.version).toBe(qdrant.version);
      expect(expect.getState().currentTestName).toContain(`[qdrant ${q.version}]`);
      expect(q.alive).toBe(true);
      expect(await q.snapshotState()).toEqual({ collections: ['products'], aliases: [], points: { products: 2 } });
      expect(fs.readFileSync(q.logFile, 'utf8')).not.toContain(KEY);
    } finally {
      await q.stop();
    }
    expect(q.alive).toBe(false);
    expect(fs.existsSync(q.dir)).toBe(false);
  });

  test('nothing from the caller\'s QDRANT__ variables reaches the server', async () => {
    const saved = process.env.QDRANT__SERVICE__API_KEY;
    process.env.QDRANT__SERVICE__API_KEY = KEY;
    let q: RealQdrant | undefined;
    try {
      q = await RealQdrant.start({ tls: false });
      expect(q.restUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await q.request('GET', '/collections')).status).toBe(200); // open: the caller's key was not passed on
    } finally {
      if (saved === undefined) delete process.env.QDRANT__SERVICE__API_KEY;
      else process.env.QDRANT__SERVICE__API_KEY = saved;
      await q?.stop();
    }
  });

  test('the state snapshot sees a change of points', async () => {
    const q = await RealQdrant.start({ apiKey: KEY, collections: ['products'] });
    try {
      const before = await q.snapshotState();
      const r = await q.request('PUT', '/collections/products/points?wait=true', { key: KEY, body: { points: [{ id: 99, vector: [1, 0, 0, 0] }] } });
      expect(r.status).toBe(200);
      expect(await q.snapshotState()).toEqual({ ...before, points: { products: 4 } });
    } finally {
      await q.stop();
    }
  });

  test('a server that is not ready in time: the error carries the log tail; no process or temp dir is left', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-real-qdrant-test-'));
    try {
      const start = RealQdrant.start({ apiKey: KEY, startTimeoutMs: 1, tmpDir: parent });
      await expect(start).rejects.toThrow(/was not ready within 1 ms[\s\S]*log tail:/);
      expect(fs.readdirSync(parent)).toEqual([]);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});
