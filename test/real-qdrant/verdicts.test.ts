/**
 * The checker's verdicts against each real Qdrant version (TLS, jwt_rbac on, a read-only key): every
 * kind of key × every declared access, over REST alone and with gRPC, through checkClusterAccess
 * (assets/checker/check.ts). The expected verdicts are written once, in TABLE below. Then:
 * - the same matrix against the stand-in answers the same verdict, cell by cell (verdict parity:
 *   test/real-qdrant/parity.test.ts holds the HTTP-level parity);
 * - excess access with allowExcessAccess passes with one warning line per excess;
 * - a full run of the matrix leaves the server's collections, aliases and point counts as they were;
 * - every Qdrant version of the run gives every cell the same report (the version aside): an answer
 *   a check relies on that changes in a later release shows up as a difference between versions.
 */
import { isDeepStrictEqual } from 'node:util';
import { ACCESSES, COLLECTIONS, EXPECTED, GRPC_COLUMN, idOf, KEY, KEYS, MISSING, O, P, READ_ONLY_KEY, SECRETS, STEP_OF, Table } from './verdict-table';
import { checkClusterAccess, formatReport, formatWarnings } from '../../assets/checker';
import type * as Checker from '../../assets/checker';
import { FAILURES } from '../../assets/checker/failures';
import { describeRealQdrant, qdrantVariants, RealQdrant } from '../../tools/testing/real-qdrant';
import { canaryKey, StandInQdrant } from '../../tools/testing/stand-in-qdrant';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Bounds, not expectations: a few hundred checks against real servers on a busy machine.
jest.setTimeout(180_000);

/** A cell as the table writes it: `ok`, the id, or the id with the step when the step is not the expected one. */
function verdictOf(report: Checker.CheckReport): string {
  if (report.ok) return 'ok';
  const id = report.failureId ?? '(no failure id)';
  return report.failedStep === STEP_OF[id] ? id : `${id} (in step ${report.failedStep})`;
}

function grpcVerdictOf(report: Checker.CheckReport): string {
  const step = report.steps.find((s) => s.name === 'grpc');
  if (!step) return '(no grpc step)';
  return step.ok ? 'ok' : idOf(step.message);
}

interface Servers {
  readonly keyed: { url: string; grpcUrl: string; caFile: string };
  readonly open: { url: string; grpcUrl: string; caFile: string };
}

interface Cell {
  readonly key: string;
  readonly access: string;
  readonly grpc: boolean;
}

function cells(grpcToo: boolean): Cell[] {
  return Object.keys(KEYS).flatMap((key) => Object.keys(ACCESSES).flatMap((access) =>
    (grpcToo ? [false, true] : [false]).map((grpc) => ({ key, access, grpc }))));
}

/** Runs one cell: the report, checked for keys (none may appear in it or in its lines). */
async function runCell(servers: Servers, cell: Cell, extra: Partial<Checker.CheckOptions> = {}): Promise<Checker.CheckReport> {
  const k = KEYS[cell.key];
  const server = servers[k.server];
  const report = await checkClusterAccess({
    url: server.url,
    ...(cell.grpc ? { grpcUrl: server.grpcUrl } : {}),
    caFile: server.caFile,
    apiKey: k.apiKey,
    requireAuth: k.requireAuth ?? true,
    label: `${cell.key} / ${cell.access}`,
    ...ACCESSES[cell.access],
    ...extra,
  });
  const text = JSON.stringify(report) + formatReport(report) + formatWarnings(report).join('\n');
  const leaked = SECRETS.some((s) => text.includes(s));
  if (leaked) throw new Error(`a key appears in the report of ${cell.key} / ${cell.access}`);
  return report;
}

/** Runs cells a few at a time (the real server has two workers). Reports in the order of the cells. */
async function runAll(servers: Servers, list: Cell[], extra: Partial<Checker.CheckOptions> = {}): Promise<Checker.CheckReport[]> {
  const reports: Checker.CheckReport[] = new Array(list.length);
  let next = 0;
  const worker = async () => {
    while (next < list.length) {
      const i = next++;
      reports[i] = await runCell(servers, list[i], extra);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  return reports;
}

/** The verdict table of a run over REST alone or with gRPC (gRPC adds the gRPC step's column). */
function tableOf(list: Cell[], reports: Checker.CheckReport[], grpc: boolean): Table {
  const table: Table = {};
  list.forEach((cell, i) => {
    if (cell.grpc !== grpc) return;
    const row = (table[cell.key] ??= {});
    row[cell.access] = verdictOf(reports[i]);
    if (grpc) {
      const g = grpcVerdictOf(reports[i]);
      // One gRPC verdict per key: any access that disagrees shows up in the cell.
      row[GRPC_COLUMN] = row[GRPC_COLUMN] === undefined || row[GRPC_COLUMN] === g ? g : `${row[GRPC_COLUMN]} / ${g} (${cell.access})`;
    }
  });
  return table;
}

function withoutGrpcColumn(table: Table): Table {
  return Object.fromEntries(Object.entries(table).map(([k, row]) => {
    const { [GRPC_COLUMN]: _grpc, ...rest } = row;
    return [k, rest];
  }));
}

/** What may differ between two runs of one cell: the durations and the random name of the global-read probe. */
function comparable(report: Checker.CheckReport): unknown {
  const probeName = /qdrant-cluster-access-probe-[0-9a-f]+/g;
  const text = (s: string | undefined) => s?.replace(probeName, '<probe>');
  return {
    ok: report.ok,
    failedStep: report.failedStep,
    failureId: report.failureId,
    reason: text(report.reason),
    keyStatus: report.keyStatus,
    enforcement: report.enforcement,
    collectionCount: report.collectionCount,
    qdrantVersion: report.qdrantVersion,
    grpcVersion: report.grpcVersion,
    expiresAt: report.expiresAt,
    keyAccess: report.keyAccess,
    access: report.access && { ...report.access, excess: report.access.excess.map(text) },
    steps: report.steps.map((s) => ({ name: s.name, ok: s.ok, status: s.status, attempts: s.attempts, message: text(s.message) })),
    notes: report.notes,
    warnings: report.warnings.map(text),
  };
}

/** The name of a cell in the cross-version comparison. */
const cellName = (cell: Cell) => `${cell.key} / ${cell.access}${cell.grpc ? ' + gRPC' : ''}`;

/**
 * Each version's reports of the matrix, cell by cell, as {@link comparable} with the server's
 * version replaced by `<version>`: compared across the versions after every version's suite ran.
 */
const reportsByVersion = new Map<string, Record<string, unknown>>();

function versionless(list: Cell[], reports: Checker.CheckReport[], version: string): Record<string, unknown> {
  return Object.fromEntries(list.map((cell, i) => [cellName(cell), JSON.parse(JSON.stringify(comparable(reports[i])).split(version).join('<version>'))]));
}

describeRealQdrant('checker verdicts against real Qdrant: every key × every declared access', () => {
  let keyed: RealQdrant;
  let open: RealQdrant;
  let standIn: StandInQdrant;
  let openStandIn: StandInQdrant;
  let servers: Servers;
  /** The servers' state before any check ran (the side-effect test compares it at the end). */
  let before: unknown;
  const all = cells(true);
  let reports: Checker.CheckReport[];
  const report = (key: string, access: string, grpc: boolean) =>
    reports[all.findIndex((c) => c.key === key && c.access === access && c.grpc === grpc)];

  beforeAll(async () => {
    [keyed, open] = await Promise.all([
      RealQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, jwtRbac: true, collections: COLLECTIONS }),
      RealQdrant.start({ collections: COLLECTIONS }),
    ]);
    [standIn, openStandIn] = await Promise.all([
      StandInQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, jwtRbac: true, collections: COLLECTIONS, version: keyed.version }),
      StandInQdrant.start({ apiKey: canaryKey('canary-unused'), mode: 'open', collections: COLLECTIONS, version: open.version }),
    ]);
    servers = {
      keyed: { url: keyed.restUrl, grpcUrl: keyed.grpcUrl, caFile: keyed.caFile! },
      open: { url: open.restUrl, grpcUrl: open.grpcUrl, caFile: open.caFile! },
    };
    before = await Promise.all([keyed.snapshotState(), open.snapshotState()]);
    reports = await runAll(servers, all);
    expect(open.version).toBe(keyed.version);
    reportsByVersion.set(keyed.version, versionless(all, reports, keyed.version));
  });
  afterAll(async () => {
    await Promise.all([standIn?.stop(), openStandIn?.stop(), keyed?.stop(), open?.stop()]);
  });

  test('the table covers every key and every access', () => {
    expect(Object.keys(EXPECTED)).toEqual(Object.keys(KEYS));
    for (const row of Object.values(EXPECTED)) expect(Object.keys(row)).toEqual([...Object.keys(ACCESSES), GRPC_COLUMN]);
  });

  test('REST alone: every cell has the verdict of the table', () => {
    expect(tableOf(all, reports, false)).toEqual(withoutGrpcColumn(EXPECTED));
  });

  test('REST and gRPC: the same verdicts, and the gRPC step\'s own verdict per key', () => {
    expect(tableOf(all, reports, true)).toEqual(EXPECTED);
  });

  test('a passing cell ran every step, and says what was proven', () => {
    const scoped = report('JWT products rw', 'any', true);
    expect(scoped.steps.map((s) => [s.name, s.ok])).toEqual([['root', true], ['key', true], ['enforced', true], ['grpc', true], ['expiry', true]]);
    expect(scoped).toMatchObject({ keyStatus: 'accepted', collectionCount: 1, keyAccess: 'read-write on products', qdrantVersion: keyed.version, grpcVersion: keyed.version });

    const collections = report('JWT products r', 'read P', true);
    expect(collections.steps.map((s) => s.name)).toEqual(['root', 'key', 'enforced', 'access', 'grpc', 'expiry']);
    expect(formatReport(collections)).toMatch(
      new RegExp(`^ok {3}JWT products r / read P {2}qdrant ${escape(keyed.version)} {2}key accepted, keys enforced, access to 1 collection as declared, gRPC ok {2}expires \\d{4}-\\d\\d-\\d\\d \\(in less than a day\\) {2}\\d+ ms$`));
    expect(collections.access).toEqual({ declared: 'collections', readCollections: [P], writeCollections: [], excess: [] });

    const readOnly = report('read-only key', 'read-only', false);
    expect(readOnly.steps.find((s) => s.name === 'access')).toMatchObject({ ok: true, message: 'read-only as declared', attempts: 2 });
    expect(readOnly.expiresAt).toBeNull();
  });

  test('failure messages carry the server\'s answer and the fix', () => {
    const reason = (key: string, access: string) => report(key, access, false).reason;
    expect(reason('manage key', 'read-only')).toBe(
      'key has manage access but is declared read-only (200 ok to the empty alias batch); create a key with only that access');
    expect(reason('read-only key', 'manage')).toBe(
      'key cannot manage the cluster (403 Forbidden: Global manage access is required); create a key with manage access');
    expect(reason('read-only key', 'read P')).toBe('key has access to every collection but is declared for 1 collection only; create a key limited to them');
    expect(reason('JWT products r', 'read-only')).toBe(
      'key cannot read every collection (403 to a random collection name, which tests cluster-wide read); create a cluster-wide read-only key');
    expect(reason('JWT products r', 'rw P')).toBe(
      'key has no write access to collection "products" (403 Forbidden: Write access to collection products is required); create a key with read-write access to it');
    expect(reason('JWT products rw', 'read P')).toBe('key can write collection "products", which is declared read-only; create a key with read access to it');
    // A key scoped to more collections than declared: those the server lists, and those its token names that do not exist yet.
    const undeclared = '; create a key limited to the declared collections, or declare them too';
    const KEY_REJECTED_FIX = '; check the key\'s clusters in the console (setup guide, section 2), set the variable again (setup guide, section 3), or create a new key';
    expect(reason('JWT products r, orders rw', 'read P')).toBe(`key has access to undeclared collections: "orders"${undeclared}`);
    expect(reason('JWT products r, undeclared rw', 'read P')).toBe('key has access to undeclared collections: "a b" (not created yet), "ü" (not created yet); ' +
      'create them before the deploy and declare them too, or use a key without them, or allow excess access (healthCheck.allowExcessAccess, --allow-excess-access)');
    expect(report('JWT products r, orders rw', 'read P, rw O', false).steps.find((s) => s.name === 'access')?.message).toBe('access to 2 collections as declared');
    expect(reason('JWT products rw', 'rw missing')).toBe(`key has no access to collection "${MISSING}" (403 Forbidden: Access to collection ${MISSING} is required); ` +
      'create a key that includes this collection (the console\'s Collections tab), or fix the declared access');
    expect(reason('manage key', 'rw missing')).toBe(`collection does not exist: "${MISSING}"; create it before the deploy, or fix or remove its name in the declared access`);
    expect(reason('JWT expired 1 h ago', 'any')).toMatch(/^key expired on \d{4}-\d\d-\d\d \(403 ExpiredSignature\); create a new key and rotate to it$/);
    expect(reason('JWT bad signature', 'any')).toBe(`key rejected (403 InvalidSignature)${KEY_REJECTED_FIX}`);
    expect(reason('wrong key', 'any')).toBe(`key rejected (401 Invalid API key or JWT)${KEY_REJECTED_FIX}`);
    expect(reason('open cluster', 'any')).toMatch(/^cluster is open: GET \/collections without a key answered 200/);
  });

  test('on an open cluster that is allowed, excess access is one warning, not a failure the key cannot fix', () => {
    const r = report('open cluster, allow-open', 'read-only', true);
    expect(r).toMatchObject({ ok: true, enforcement: 'open', notes: ['cluster is open (allowed)', 'gRPC is open (allowed)'] });
    expect(r.warnings).toEqual(['cluster is open: any request may manage it, whatever the key, so the declared access (read-only) is not enforced']);
    expect(r.access?.excess).toEqual([expect.stringMatching(/^key has manage access but is declared read-only/)]);
    expect(r.steps.find((s) => s.name === 'grpc')?.message).toBe(`gRPC ok (qdrant ${open.version}, gRPC is open, key not verified)`);
  });

  test('gRPC: a key refused by both REST and gRPC is not said to be accepted by REST', () => {
    const wrong = report('wrong key', 'any', true);
    expect(wrong.steps.find((s) => s.name === 'grpc')?.message).toBe('gRPC refused the key (16 Invalid API key or JWT from /qdrant.Collections/List); ' +
      'check the cluster\'s gRPC address and port (setup guide, section 1)');
    const expired = report('JWT expired 1 h ago', 'any', true);
    expect(expired.steps.find((s) => s.name === 'grpc')?.message).toMatch(/^key expired on \d{4}-\d\d-\d\d \(gRPC 7 ExpiredSignature\); create a new key and rotate to it$/);
  });

  test('allowExcessAccess: every excess-only cell passes, with one warning line per excess', async () => {
    const excess = cells(false).filter((c) => /^excess-/.test(EXPECTED[c.key][c.access]));
    expect(excess.length).toBeGreaterThanOrEqual(10);
    const allowed = await runAll(servers, excess, { allowExcessAccess: true });
    allowed.forEach((r, i) => {
      const cell = excess[i];
      expect({ cell, ok: r.ok }).toEqual({ cell, ok: true });
      const lines = formatWarnings(r).filter((w) => w.endsWith('(allowed: allowExcessAccess)'));
      expect(lines.length).toBe(r.access!.excess.length);
      for (const line of lines) expect(line.startsWith(`warn ${r.label}  key `)).toBe(true);
    });
    // The manage key declared for some collections has all three kinds of excess.
    const manage = allowed[excess.findIndex((c) => c.key === 'manage key' && c.access === 'read P')];
    expect(manage.warnings.map((w) => FAILURES.find((f) => w.startsWith(f.phrase))?.id)).toEqual(['excess-manage', 'excess-global', 'excess-write']);
  });

  test('Bearer: the same verdicts for a sample of keys', async () => {
    const keys = ['manage key', 'JWT products r', 'JWT expired 1 h ago', 'wrong key'];
    const sample = all.filter((c) => c.grpc && keys.includes(c.key));
    const bearer = await runAll(servers, sample, { header: 'bearer' });
    expect(tableOf(sample, bearer, true)).toEqual(Object.fromEntries(keys.map((k) => [k, EXPECTED[k]])));
  });

  test('verdict parity: the stand-in gives the same verdict, steps, messages and report fields in every cell', async () => {
    const stand = await runAll({
      keyed: { url: standIn.url, grpcUrl: standIn.grpcUrl, caFile: standIn.caFile },
      open: { url: openStandIn.url, grpcUrl: openStandIn.grpcUrl, caFile: openStandIn.caFile },
    }, all);
    // The stand-in is held to the table too, so a difference below is in the details.
    expect(tableOf(all, stand, true)).toEqual(EXPECTED);
    const differences = all.map((cell, i) => ({ cell, real: comparable(reports[i]), standIn: comparable(stand[i]) }))
      .filter((d) => JSON.stringify(d.real) !== JSON.stringify(d.standIn));
    expect(differences).toEqual([]);
  });

  // Last: every check of this file has run against the real servers by now.
  test('side effects: after every key × every access (REST and gRPC, both headers, excess allowed), collections, aliases and point counts are unchanged', async () => {
    const seeded = { collections: [O, P], aliases: [], points: { [P]: 3, [O]: 3 } };
    expect(before).toEqual([seeded, seeded]);
    // The run exercised the probes: most cells have an access step, many of them passing.
    expect(reports.filter((r) => r.steps.some((s) => s.name === 'access')).length).toBeGreaterThan(all.length / 2);
    expect(reports.filter((r) => r.steps.some((s) => s.name === 'access' && s.ok)).length).toBeGreaterThanOrEqual(30);
    expect(await Promise.all([keyed.snapshotState(), open.snapshotState()])).toEqual(before);
  });
});

// After every version's suite: the same matrix, compared across the versions. Each version's suite
// holds its verdicts to TABLE; this holds every detail of every report (steps, messages with the
// server's answers, report fields) equal between versions, so a release that changes an answer
// shows up here as that cell's reports side by side.
describe('checker verdicts across the Qdrant versions of the run', () => {
  const versions = qdrantVariants().flatMap((v) => (v.value ? [v.value.version] : []));
  const enough = versions.length >= 2;
  (enough || process.env.CI ? test : test.skip)(
    `every version (${versions.join(', ') || 'none'}) gives every cell the same report${enough ? '' : ' (needs two versions)'}`, () => {
      expect(versions.length).toBeGreaterThanOrEqual(2);
      // Every version ran the matrix (a version whose servers did not start has no reports).
      expect([...reportsByVersion.keys()]).toEqual(versions);
      const [first, ...others] = versions;
      const cellsOfFirst = Object.keys(reportsByVersion.get(first)!);
      expect(cellsOfFirst).toHaveLength(cells(true).length);
      // One entry per report field that differs, with each version's value of it.
      const differences = cellsOfFirst.flatMap((cell) => {
        const reportOf = (v: string) => reportsByVersion.get(v)![cell] as Record<string, unknown>;
        const fields = [...new Set(versions.flatMap((v) => Object.keys(reportOf(v))))];
        return fields.filter((f) => others.some((v) => !isDeepStrictEqual(reportOf(v)[f], reportOf(first)[f])))
          .map((field) => ({ cell, field, ...Object.fromEntries(versions.map((v) => [v, reportOf(v)[field]])) }));
      });
      expect(differences).toEqual([]);
    });
});
