/**
 * The verdict matrix through both check engines (issue 30), against each real Qdrant version (TLS,
 * jwt_rbac on, a read-only key): every key of verdict-table.ts × every declared access that
 * `KeyAccess` can express (the others name collections beside a cluster-wide access, which only
 * the checker's CLI can), through
 * - the Node engine: the checker as a deploy runs it (`Authorization: Bearer`, the declared access);
 * - the Terraform engine: all cells in one stack and one `terraform plan -json` (Terraform reports
 *   every failed postcondition of a plan), each cell a key of its own.
 * Both give every cell the table's verdict, with the same failure id in the same step and the same
 * message, word for word, and the same warnings. Terraform reports every failed probe where Node
 * reports the first failed step (and in the access step, a lack of access before an excess): the
 * Terraform cell's verdict is its first failure in that order.
 *
 * And an address that is not Qdrant (a web page, a JSON API: what the real server cannot be): both
 * engines fail root with the same message, and neither sends the key there.
 *
 * The cells are split into a few stacks, planned two at a time: Terraform's time for a plan grows
 * with the number of its messages times the size of its configuration (each message quotes its
 * line), and most cells here fail.
 */
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { ACCESSES, COLLECTIONS, EXPECTED, idOf, KEY, KEYS, READ_ONLY_KEY, SECRETS, STEP_OF } from './verdict-table';
import { checkClusterAccess } from '../../assets/checker';
import type * as Checker from '../../assets/checker';
import { PROBES } from '../../assets/checker/probes';
import { ClusterAccess, CheckEngine, KeyAccess } from '../../src';
import { describeRealQdrant, RealQdrant } from '../../tools/testing/real-qdrant';
import { LoopbackServer } from '../../tools/testing/stand-in-qdrant';
import { synthStack, tempDir, terraform, terraformBinary } from '../../tools/testing/terraform';

// Bounds, not expectations: terraform init and one plan of a few hundred reads, on a busy machine.
jest.setTimeout(600_000);

/** What the library's KeyAccess says for a column; null when it cannot say it. */
function keyAccessOf(column: string): KeyAccess | undefined | null {
  const { access, readCollections: read = [], writeCollections: readWrite = [] } = ACCESSES[column];
  if (access === 'collections') return KeyAccess.collections({ read, readWrite });
  if (read.length + readWrite.length > 0) return null;
  return access === 'read-only' ? KeyAccess.readOnly() : access === 'manage' ? KeyAccess.manage() : undefined;
}

const COLUMNS = Object.keys(ACCESSES).filter((c) => keyAccessOf(c) !== null);
const CELLS = Object.keys(KEYS).flatMap((key) => COLUMNS.map((access) => ({ key, access })));
const name = (i: number) => `cell${i}`;
const STEPS: Checker.StepName[] = ['root', 'key', 'enforced', 'access', 'expiry'];
/** The failure ids in the order of the probes that report them: Node judges an access step's probes in the table's order. */
const PROBE_OF = [...new Set(Object.values(PROBES).flatMap((p) => p.cases.flatMap((c) => ('kind' in c.then ? [c.then] : Object.values(c.then)))
  .flatMap((v) => (v && 'failure' in v ? [v.failure] : []))))];

/** A cell's verdict: `ok`, the id, or the id with its step when that is not the table's. */
const verdict = (f?: { step: string; id: string }) => (!f ? 'ok' : f.step === STEP_OF[f.id] ? f.id : `${f.id} (in step ${f.step})`);
const byCell = (values: string[]) => {
  const table: Record<string, Record<string, string>> = {};
  CELLS.forEach((c, i) => { (table[c.key] ??= {})[c.access] = values[i]; });
  return table;
};

const GROUPS = 4;
const groupOf = (i: number) => Math.floor(i / Math.ceil(CELLS.length / GROUPS));

/** One stack of the cells of a group: a strict access, and one that allows an open cluster for the cells that do. */
function buildStack(app: App, id: string, group: number, servers: { keyed: RealQdrant; open: RealQdrant }): TerraformStack {
  const stack = new TerraformStack(app, id);
  const accesses = [false, true].map((allowOpen) => new ClusterAccess(stack, allowOpen ? 'AllowOpen' : 'Strict', {
    healthCheck: { engine: CheckEngine.TERRAFORM, grpc: false, requireAuth: !allowOpen, caFile: servers.keyed.caFile, retries: 0 },
    // Cluster names are the stack's output names: one access's differ from the other's.
    clusters: [{ name: `keyed${allowOpen ? '-2' : ''}`, url: servers.keyed.restUrl }, { name: `open${allowOpen ? '-2' : ''}`, url: servers.open.restUrl }],
    setupGuide: { enabled: false },
  }));
  CELLS.forEach((c, i) => {
    if (groupOf(i) !== group) return;
    const k = KEYS[c.key];
    const allowOpen = k.requireAuth === false;
    accesses[allowOpen ? 1 : 0].addApiKey({ name: name(i), clusters: [`${k.server}${allowOpen ? '-2' : ''}`], access: keyAccessOf(c.access) ?? undefined });
  });
  return stack;
}

interface Found { step: string; id: string; message: string }

/** Each cell's failures (in Node's step order) and warnings, from the diagnostics of `plan -json`. */
function diagnostics(stdout: string): { failures: Found[][]; warnings: string[][]; other: string[] } {
  const failures: Found[][] = CELLS.map(() => []);
  const warnings: string[][] = CELLS.map(() => []);
  const other: string[] = [];
  for (const line of stdout.split('\n')) {
    let d: { severity: string; summary: string; detail?: string } | undefined;
    try {
      d = JSON.parse(line).diagnostic;
    } catch {
      continue;
    }
    if (!d) continue;
    // A cluster's own steps (root, enforced) name every key granted to it: "FAIL cell1, cell2 → open  step …".
    const m = /^(FAIL|warn) (cell\d+(?:, cell\d+)*)(?: → \S+)?  (?:step (\w+): )?(.*)$/s.exec(d.detail ?? '');
    if (!m) other.push(`${d.severity}: ${d.summary}: ${d.detail}`);
    for (const cell of m ? m[2].split(', ').map((c) => Number(c.slice('cell'.length))) : []) {
      if (m![1] === 'warn') warnings[cell].push(m![4]);
      else failures[cell].push({ step: m![3], id: idOf(m![4]), message: m![4] });
    }
  }
  const order = (f: Found) => [STEPS.indexOf(f.step as Checker.StepName), f.id.startsWith('excess-') ? 1 : 0, PROBE_OF.indexOf(f.id)];
  for (const f of failures) f.sort((a, b) => order(a).map((x, i) => x - order(b)[i]).find((x) => x !== 0) ?? 0);
  return { failures, warnings, other };
}

describeRealQdrant('both check engines against real Qdrant: every key × every declared access', () => {
  let keyed: RealQdrant;
  let open: RealQdrant;
  let node: Checker.CheckReport[];
  let plans: { ms: number; stdout: string; stderr: string; exitCode: number }[];
  let found: ReturnType<typeof diagnostics>;

  beforeAll(async () => {
    [keyed, open] = await Promise.all([
      RealQdrant.start({ apiKey: KEY, readOnlyApiKey: READ_ONLY_KEY, jwtRbac: true, collections: COLLECTIONS }),
      RealQdrant.start({ collections: COLLECTIONS }),
    ]);
    node = [];
    for (const [i, c] of CELLS.entries()) {
      const k = KEYS[c.key];
      const server = k.server === 'keyed' ? keyed : open;
      node[i] = await checkClusterAccess({
        url: server.restUrl,
        caFile: server.caFile,
        apiKey: k.apiKey,
        header: 'bearer',
        retries: 0,
        requireAuth: k.requireAuth ?? true,
        label: name(i),
        ...ACCESSES[c.access],
      });
    }
    const env = Object.fromEntries(CELLS.map((c, i) => [`TF_VAR_qdrant_api_key_${name(i)}`, KEYS[c.key].apiKey]));
    const started = Date.now();
    const planGroup = async (g: number) => {
      const dir = synthStack(tempDir('qca-engines-'), `engines${g}`, (app, id) => buildStack(app, id, g, { keyed, open }));
      const init = await terraform(dir, ['init', '-input=false', '-no-color']);
      if (init.exitCode !== 0) throw new Error(`init failed:\n${init.stdout}\n${init.stderr}`);
      return terraform(dir, ['plan', '-input=false', '-no-color', '-json', '-lock=false'], env);
    };
    plans = [];
    for (let g = 0; g < GROUPS; g += 2) plans.push(...await Promise.all([g, g + 1].filter((x) => x < GROUPS).map(planGroup)));
    found = diagnostics(plans.map((p) => p.stdout).join('\n'));
    process.stderr.write(`${path.basename(terraformBinary())}: ${CELLS.length} cells against qdrant ${keyed.version} in ${GROUPS} plans: ` +
      `${plans.map((p) => p.ms).join(', ')} ms (${Date.now() - started} ms with synth and init)\n`);
  });
  afterAll(async () => {
    await Promise.all([keyed?.stop(), open?.stop()]);
  });

  test('the Node engine gives every cell the table\'s verdict', () => {
    const expected = byCell(CELLS.map((c) => EXPECTED[c.key][c.access]));
    expect(byCell(node.map((r) => verdict(r.ok ? undefined : { step: r.failedStep as string, id: r.failureId as string })))).toEqual(expected);
  });

  test('the Terraform engine: one plan, every cell the table\'s verdict, nothing but the checks\' messages', () => {
    expect(found.other).toEqual([]);
    expect(plans.map((p) => p.exitCode)).toEqual(plans.map(() => 1)); // every group has failing cells
    expect(byCell(found.failures.map((f) => verdict(f[0])))).toEqual(byCell(CELLS.map((c) => EXPECTED[c.key][c.access])));
  });

  test('both engines word every failure the same', () => {
    const differences = CELLS.flatMap((c, i) => {
      const tf = found.failures[i][0]?.message;
      const nodeReason = node[i].reason;
      return tf === nodeReason ? [] : [{ cell: `${c.key} / ${c.access}`, node: nodeReason, terraform: tf }];
    });
    expect(differences).toEqual([]);
  });

  test('a passing cell warns as Node does (an expiry within 14 days; an open cluster that does not enforce the declared access)', () => {
    const passing = CELLS.map((_, i) => i).filter((i) => node[i].ok);
    expect(passing.length).toBeGreaterThan(20);
    expect(passing.map((i) => found.warnings[i])).toEqual(passing.map((i) => node[i].warnings));
  });

  test('an address that is not Qdrant: root fails alike in both engines, and the key goes nowhere', async () => {
    const pages = { page: ['text/html', '<html><title>Welcome</title></html>'], api: ['application/json', '{"ok":true}'] };
    const sentKey: string[] = [];
    const servers = await Promise.all(Object.values(pages).map(([type, body]) => LoopbackServer.start('https', (req, res) => {
      if (req.headers.authorization !== undefined || req.headers['api-key'] !== undefined) sentKey.push(String(req.url));
      res.writeHead(200, { 'content-type': type }).end(body);
    })));
    try {
      const names = Object.keys(pages);
      const nodeReasons = await Promise.all(servers.map(async (server, i) => {
        const r = await checkClusterAccess({ url: server.url, caFile: keyed.caFile, apiKey: KEY, header: 'bearer', retries: 0, label: `cell0 → ${names[i]}` });
        return { step: r.failedStep, id: r.failureId, message: r.reason };
      }));
      const dir = synthStack(tempDir('qca-engines-'), 'pages', (app, id) => {
        const stack = new TerraformStack(app, id);
        new ClusterAccess(stack, 'Pages', {
          healthCheck: { engine: CheckEngine.TERRAFORM, grpc: false, caFile: keyed.caFile, retries: 0 },
          clusters: servers.map((server, i) => ({ name: names[i], url: server.url })),
          apiKeys: [{ name: 'cell0', clusters: names }],
          setupGuide: { enabled: false },
        });
        return stack;
      });
      const init = await terraform(dir, ['init', '-input=false', '-no-color']);
      expect(init.exitCode).toBe(0);
      const plan = await terraform(dir, ['plan', '-input=false', '-no-color', '-json', '-lock=false'], { TF_VAR_qdrant_api_key_cell0: KEY });
      expect(plan.exitCode).toBe(1);
      // The test CA signs the pages' certificates and the real servers' alike (one caFile).
      const tf = diagnostics(plan.stdout).failures[0].map(({ step, id, message }) => ({ step, id, message }))
        .sort((a, b) => a.message.localeCompare(b.message));
      expect(nodeReasons.map((r) => [r.step, r.id])).toEqual([['root', 'not-qdrant'], ['root', 'not-qdrant']]);
      expect(tf).toEqual(nodeReasons.sort((a, b) => String(a.message).localeCompare(String(b.message))));
      expect(sentKey).toEqual([]);
      expect(plan.stdout + plan.stderr).not.toContain(KEY);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });

  test('no key in the plan\'s output', () => {
    const out = plans.map((p) => p.stdout + p.stderr).join('\n');
    expect(SECRETS.filter((s) => out.includes(s))).toEqual([]);
  });
});
