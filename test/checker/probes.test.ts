/**
 * The probe table (assets/checker/probes.ts) as another engine reads it, through the runtime's
 * bridge (src/private/runtime.ts): it is data, each per-access verdict names every access the probe
 * applies to, and a failing verdict's message template, filled with the values Node saw, is Node's
 * message (judge.ts, then withFix as check.ts words a failed step).
 */
import * as fs from 'fs';
import * as path from 'path';
import { Answer } from '../../assets/checker/answers';
import { withFix } from '../../assets/checker/failures';
import { ask, judge, JudgeContext } from '../../assets/checker/judge';
import { keyInfo } from '../../assets/checker/jwt';
import { parseBaseUrl } from '../../assets/checker/options';
import { messageTemplate, probes } from '../../src/private/runtime';
import { collectionJwt, signJwt, expIn } from '../../tools/testing/jwt';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';

const { PROBES, OTHERWISE, UNDECLARED, NO_KEY_TEXT } = probes;
type Id = probes.ProbeId;
const ids = Object.keys(PROBES) as Id[];
const KEY = canaryKey();

function verdictsOf(p: probes.Probe): probes.ProbeVerdict[] {
  return p.cases.flatMap((c) => ('kind' in c.then ? [c.then as probes.ProbeVerdict] : Object.values(c.then) as probes.ProbeVerdict[]));
}

test('the table is data: nothing in it is lost to JSON', () => {
  expect(JSON.parse(JSON.stringify({ PROBES, OTHERWISE }))).toEqual({ PROBES, OTHERWISE });
});

test('a per-access verdict names each access the probe applies to, and only those', () => {
  for (const id of ids) {
    for (const c of PROBES[id].cases) {
      if ('kind' in c.then) continue;
      expect({ id, accesses: Object.keys(c.then).sort() }).toEqual({ id, accesses: [...(PROBES[id].appliesTo ?? [])].sort() });
    }
  }
});

test('every placeholder of the table is documented in its header, and every failure id is the catalog\'s', () => {
  const header = fs.readFileSync(path.join(__dirname, '..', '..', 'assets', 'checker', 'probes.ts'), 'utf8').split('*/')[0];
  const failing = [...ids.flatMap((id) => verdictsOf(PROBES[id])), OTHERWISE].filter((v): v is probes.FailVerdict => 'failure' in v);
  const used = new Set(failing.flatMap((v) => [...v.detail.matchAll(/\{(\w+)\}/g)].map((m) => m[1])));
  expect(used.size).toBeGreaterThan(10);
  for (const name of used) expect({ name, documented: header.includes(`{${name}}`) }).toEqual({ name, documented: true });
  for (const v of failing) expect(() => messageTemplate(v)).not.toThrow();
  expect(() => messageTemplate({ failure: 'no-such-failure', detail: '' })).toThrow('not in the failure catalog: "no-such-failure"');
});

const jwtSecret = 'probe-table-test-secret';
const EXPIRED_JWT = signJwt(jwtSecret, { exp: expIn(-86400, Date.UTC(2026, 10, 27, 12)) });

interface Seen {
  /** The probe, its collection, the answer and the attempts it took. */
  id: Id;
  collection?: string;
  res: Partial<Answer>;
  attempts?: number;
  ctx?: Partial<JudgeContext>;
  key?: string;
  /** The values Node filled in, as the Terraform engine would give them. */
  values: Record<string, string>;
}

const cases: Array<[string, Seen]> = [
  ['key rejected: the catalog fix follows', { id: 'key', res: { status: 401, body: 'Invalid API key or JWT' }, values: { answer: '401 Invalid API key or JWT' } }],
  ['key expired: its own hint, the date of the JWT', {
    id: 'key', key: EXPIRED_JWT, res: { status: 403, body: 'ExpiredSignature' }, values: { keyExpiry: ' on 2026-11-26', answer: '403 ExpiredSignature' },
  }],
  ['key not received behind the edge (root with the key)', {
    id: 'root-keyed', ctx: { header: 'bearer' }, res: { status: 401, body: NO_KEY_TEXT }, values: { answer: `401 ${NO_KEY_TEXT}`, header: 'Authorization' },
  }],
  ['not Qdrant: a web page on GET /', { id: 'root', res: { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html></html>' }, values: { contentType: 'text/html' } }],
  ['unexpected answer after retries: the catalog fix follows the server\'s words', {
    id: 'root', attempts: 3, res: { status: 503, body: 'busy; try later — or not' }, values: { method: 'GET', path: '/', answer: '503 busy; try later — or not', afterAttempts: ' after 3 attempts' },
  }],
  ['cluster open', { id: 'enforced', res: { status: 200, body: '{"result":{"collections":[]}}' }, values: {} }],
  ['excess manage, declared read-only', { id: 'manage', ctx: { access: 'read-only' }, res: { status: 200, body: '{"result":true,"status":"ok"}' }, values: { answer: '200 ok' } }],
  ['excess global, declared for two collections', {
    id: 'global-read', ctx: { access: 'collections', read: ['a'], write: ['b'] }, res: { status: 200, body: '{"result":{"exists":false}}' }, values: { declaredCount: '2 collections' },
  }],
  ['no global read, declared read-only', { id: 'global-read', ctx: { access: 'read-only' }, res: { status: 403, body: '{"status":{"error":"Forbidden"}}' }, values: { status: '403' } }],
  ['no write access to a collection', {
    id: 'write',
    collection: 'products',
    res: { status: 403, body: '{"status":{"error":"Forbidden: Write access to collection products is required"}}' },
    values: { collection: '"products"', answer: '403 Forbidden: Write access to collection products is required' },
  }],
  ['no access to a collection: the catalog fix follows', {
    id: 'read',
    collection: 'products',
    res: { status: 403, body: '{"status":{"error":"Forbidden: Access to collection products is required"}}' },
    values: { collection: '"products"', answer: '403 Forbidden: Access to collection products is required' },
  }],
  ['collection missing', { id: 'read', collection: 'ghost', res: { status: 200, body: '{"result":{"exists":false}}' }, values: { collection: '"ghost"' } }],
  ['undeclared collections, one not created yet', {
    id: 'reach',
    key: collectionJwt(jwtSecret, [{ collection: 'products', access: 'r' }, { collection: 'ghost', access: 'r' }]),
    ctx: { access: 'collections', read: ['products'] },
    res: { status: 200, body: '{"result":{"collections":[{"name":"products"},{"name":"orders"}]}}' },
    values: { undeclared: '"ghost" (not created yet), "orders"', undeclaredFix: UNDECLARED.fixes.some },
  }],
];

test.each(cases)('%s: the template filled with the values Node saw is Node\'s message', (_, seen) => {
  const key = seen.key ?? KEY;
  const ctx: JudgeContext = {
    target: parseBaseUrl('https://qdrant.example.com:6333'), secrets: [key], access: 'any', read: [], write: [], keyInfo: keyInfo(key), header: 'api-key', ...seen.ctx,
  };
  const res: Answer = { status: 0, headers: {}, body: '', ...seen.res };
  const judged = judge(ask(seen.id, seen.collection), { value: res, attempts: seen.attempts ?? 1, deadlineHit: false }, ctx);
  expect(judged.failure).toBeDefined();
  const node = withFix(judged.failure!);
  // The verdict the table gives that answer for the declared access (the emitter's): the one with Node's failure id.
  const forAccess = PROBES[seen.id].cases.map((c) => ('kind' in c.then ? c.then : c.then[ctx.access]) as probes.ProbeVerdict);
  const verdict = [...forAccess, OTHERWISE].find((v): v is probes.FailVerdict => 'failure' in v && v.failure === node.id);
  const filled = messageTemplate(verdict!).replace(/\{(\w+)\}/g, (m, name: string) => seen.values[name] ?? m);
  expect(filled).toBe(node.message);
});
