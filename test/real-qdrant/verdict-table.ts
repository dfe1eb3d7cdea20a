/**
 * The verdict matrix of the real-Qdrant suites, written once: the keys (rows), the declared
 * accesses (columns) and the expected verdict of every cell, for the checker's own suite
 * (verdicts.test.ts) and for the comparison of the two check engines (engines.test.ts).
 */
import type * as Checker from '../../assets/checker';
import { FAILURES } from '../../assets/checker/failures';
import { collectionJwt, makeClaims, manageJwt, readJwt, signJwt } from '../../tools/testing/jwt';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';

export const KEY = canaryKey();
export const READ_ONLY_KEY = canaryKey('canary-ro');
export const WRONG_KEY = canaryKey('canary-wrong');
export const OPEN_KEY = canaryKey('canary-open');
export const P = 'products';
export const O = 'orders';
export const MISSING = 'missing-collection';
export const COLLECTIONS = [P, O];

/** The declared accesses (the table's columns): what `KeyAccess` turns into checker options. */
export const ACCESSES: Record<string, Pick<Checker.CheckOptions, 'access' | 'readCollections' | 'writeCollections'>> = {
  'any': { access: 'any' },
  'read-only': { access: 'read-only' },
  'manage': { access: 'manage' },
  'read P': { access: 'collections', readCollections: [P] },
  'rw P': { access: 'collections', writeCollections: [P] },
  'read P, rw O': { access: 'collections', readCollections: [P], writeCollections: [O] },
  'rw missing': { access: 'collections', writeCollections: [MISSING] },
  'read-only, read missing': { access: 'read-only', readCollections: [MISSING] },
  'manage, rw missing': { access: 'manage', writeCollections: [MISSING] },
  'any, read P, rw O': { access: 'any', readCollections: [P], writeCollections: [O] },
};

/** The keys (the table's rows). JWTs are signed with the manage key, as Qdrant's jwt_rbac wants. */
export interface KeyCase {
  readonly apiKey: string;
  /** `open`: a server with no key configured. */
  readonly server: 'keyed' | 'open';
  readonly requireAuth?: boolean;
}
export const KEYS: Record<string, KeyCase> = {
  'manage key': { apiKey: KEY, server: 'keyed' },
  'read-only key': { apiKey: READ_ONLY_KEY, server: 'keyed' },
  'JWT r': { apiKey: readJwt(KEY), server: 'keyed' },
  'JWT m': { apiKey: manageJwt(KEY), server: 'keyed' },
  'JWT products r': { apiKey: collectionJwt(KEY, [{ collection: P, access: 'r' }]), server: 'keyed' },
  'JWT products rw': { apiKey: collectionJwt(KEY, [{ collection: P, access: 'rw' }]), server: 'keyed' },
  'JWT products r, orders rw': { apiKey: collectionJwt(KEY, [{ collection: P, access: 'r' }, { collection: O, access: 'rw' }]), server: 'keyed' },
  // Collections that do not exist (yet): the server lists only products, the token names all three.
  'JWT products r, undeclared rw': { apiKey: collectionJwt(KEY, [{ collection: P, access: 'r' }, { collection: 'a b', access: 'rw' }, { collection: 'ü', access: 'rw' }]), server: 'keyed' },
  'JWT expired 1 h ago': { apiKey: readJwt(KEY, -3600), server: 'keyed' },
  'JWT bad signature': { apiKey: signJwt(`not-${KEY}`, makeClaims({ access: 'r', expiresIn: 3600 })), server: 'keyed' },
  'wrong key': { apiKey: WRONG_KEY, server: 'keyed' },
  'open cluster': { apiKey: OPEN_KEY, server: 'open' },
  'open cluster, allow-open': { apiKey: OPEN_KEY, server: 'open', requireAuth: false },
};
export const SECRETS = [KEY, READ_ONLY_KEY, WRONG_KEY, OPEN_KEY, ...Object.values(KEYS).map((k) => k.apiKey)];

/**
 * The expected verdict of every cell: `ok` or the failure id. The failed step follows from the id
 * (STEP_OF). P = products, O = orders (both exist), missing = a collection that does not exist.
 * The last column is the gRPC step's own verdict when gRPC is checked too; the verdict of the
 * check is then the same as over REST alone (every REST step comes before it).
 */
const TABLE = `
                              | any          | read-only      | manage        | read P             | rw P                | read P, rw O         | rw missing           | read-only, read missing | manage, rw missing | any, read P, rw O    | gRPC step
manage key                    | ok           | excess-manage  | ok            | excess-manage      | excess-manage       | excess-manage        | collection-missing   | collection-missing      | collection-missing | ok                   | ok
read-only key                 | ok           | ok             | cannot-manage | excess-global      | collection-no-write | collection-no-write  | collection-missing   | collection-missing      | cannot-manage      | collection-no-write  | ok
JWT r                         | ok           | ok             | cannot-manage | excess-global      | collection-no-write | collection-no-write  | collection-missing   | collection-missing      | cannot-manage      | collection-no-write  | ok
JWT m                         | ok           | excess-manage  | ok            | excess-manage      | excess-manage       | excess-manage        | collection-missing   | collection-missing      | collection-missing | ok                   | ok
JWT products r                | ok           | no-global-read | cannot-manage | ok                 | collection-no-write | collection-no-access | collection-no-access | no-global-read          | cannot-manage      | collection-no-access | ok
JWT products rw               | ok           | no-global-read | cannot-manage | excess-write       | ok                  | collection-no-access | collection-no-access | no-global-read          | cannot-manage      | collection-no-access | ok
JWT products r, orders rw     | ok           | no-global-read | cannot-manage | excess-collections | collection-no-write | ok                   | collection-no-access | no-global-read          | cannot-manage      | ok                   | ok
JWT products r, undeclared rw | ok           | no-global-read | cannot-manage | excess-collections | collection-no-write | collection-no-access | collection-no-access | no-global-read          | cannot-manage      | collection-no-access | ok
JWT expired 1 h ago           | key-expired  | key-expired    | key-expired   | key-expired        | key-expired         | key-expired          | key-expired          | key-expired             | key-expired        | key-expired          | key-expired
JWT bad signature             | key-rejected | key-rejected   | key-rejected  | key-rejected       | key-rejected        | key-rejected         | key-rejected         | key-rejected            | key-rejected       | key-rejected         | grpc-rejected
wrong key                     | key-rejected | key-rejected   | key-rejected  | key-rejected       | key-rejected        | key-rejected         | key-rejected         | key-rejected            | key-rejected       | key-rejected         | grpc-rejected
open cluster                  | cluster-open | cluster-open   | cluster-open  | cluster-open       | cluster-open        | cluster-open         | cluster-open         | cluster-open            | cluster-open       | cluster-open         | grpc-open
open cluster, allow-open      | ok           | ok             | ok            | ok                 | ok                  | ok                   | collection-missing   | collection-missing      | collection-missing | ok                   | ok
`;

export const GRPC_COLUMN = 'gRPC step';


/** The step each failure of the table is reported in. */
export const STEP_OF: Record<string, Checker.StepName> = {
  'key-expired': 'key',
  'key-rejected': 'key',
  'cluster-open': 'enforced',
  'excess-manage': 'access',
  'excess-global': 'access',
  'excess-write': 'access',
  'excess-collections': 'access',
  'cannot-manage': 'access',
  'no-global-read': 'access',
  'collection-missing': 'access',
  'collection-no-access': 'access',
  'collection-no-write': 'access',
};

export type Table = Record<string, Record<string, string>>;

export function parseTable(text: string): Table {
  const [head, ...rows] = text.trim().split('\n').map((line) => line.split('|').map((c) => c.trim()));
  const table: Table = {};
  for (const [name, ...row] of rows) table[name] = Object.fromEntries(head.slice(1).map((column, i) => [column, row[i]]));
  return table;
}

export const EXPECTED = parseTable(TABLE);

/** The catalog id of a failure message: the longest catalog phrase it starts with. */
export function idOf(message: string): string {
  const matches = FAILURES.filter((f) => message.startsWith(f.phrase)).sort((a, b) => b.phrase.length - a.phrase.length);
  return matches[0]?.id ?? `(not in the catalog: ${message})`;
}
