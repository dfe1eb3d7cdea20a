/**
 * The real-Qdrant harness itself (tools/testing/real-qdrant.ts): it starts a server configured only
 * by its own QDRANT__ variables, on loopback, with TLS; stop() leaves no process and no temp dir;
 * a server that does not get ready fails with its log and leaves nothing behind; the state
 * snapshot sees changes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeRealQdrant, findRealQdrantBinary, RealQdrant } from '../../tools/testing/real-qdrant';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';

// Bounds, not expectations: starting real servers and running the matrices takes a few seconds on a busy machine.
jest.setTimeout(120_000);

const KEY = canaryKey();

describe('finding the binary', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-real-qdrant-test-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('QDRANT_BIN that is not executable: a one-line reason', () => {
    const file = path.join(dir, 'not-executable');
    fs.writeFileSync(file, '', { mode: 0o644 });
    expect(findRealQdrantBinary({ QDRANT_BIN: file })).toEqual({ reason: `QDRANT_BIN=${file} is not an executable file` });
  });

  test('no QDRANT_BIN and no build script: a one-line reason', () => {
    expect(findRealQdrantBinary({}, path.join(dir, 'build.sh'))).toEqual({ reason: `no QDRANT_BIN and no build script at ${path.join(dir, 'build.sh')}` });
  });

  test('a build script: the last line it prints, if executable; its last stderr line if it fails', () => {
    const script = path.join(dir, 'build-ok.sh');
    fs.writeFileSync(script, `echo building >&2\necho noise\necho ${process.execPath}\n`);
    expect(findRealQdrantBinary({}, script)).toEqual({ path: process.execPath });
    const failing = path.join(dir, 'build-fail.sh');
    fs.writeFileSync(failing, 'echo "[qdrant-build] cargo not found" >&2\nexit 1\n');
    expect(findRealQdrantBinary({}, failing)).toEqual({ reason: `${failing} failed: [qdrant-build] cargo not found` });
  });
});

describeRealQdrant('RealQdrant', () => {
  test('starts on loopback with TLS and the test CA; stop() ends the process and removes the temp dir', async () => {
    const q = await RealQdrant.start({ apiKey: KEY, collections: ['products'], pointsPerCollection: 2 });
    try {
      expect(path.basename(q.dir)).toMatch(/^qca-real-qdrant-/);
      expect(path.dirname(q.dir)).toBe(os.tmpdir());
      expect(q.restUrl).toBe(`https://127.0.0.1:${q.restPort}`);
      expect(q.grpcUrl).toBe(`https://127.0.0.1:${q.grpcPort}`);
      expect(q.caFile!.startsWith(q.dir)).toBe(true);
      expect(q.version).toBe('1.18.3');
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
