/**
 * The probe table: each request of the REST steps root, key, enforced and access, the answers it
 * expects, and what any other answer means. It is data: the Node checker interprets it (judge.ts),
 * the Terraform engine is emitted from it (src/); each implements each field below once.
 *
 * A request's `scope`: cluster (no key: once per cluster) or grant (per key and cluster); in its
 * `path`, {collection} is URL-encoded, {random} is RANDOM_COLLECTION_PREFIX and 12 hex digits; `body`: JSON.
 * An access probe is asked for the accesses in `appliesTo`, per declared read (write) collection
 * when `perCollection`; `askedAfter: 'edge'` only after root's verdict edge; `reuses`: the same
 * request as that probe's. The first case whose `when` matches decides (`then`: a verdict, or one
 * per access); none: OTHERWISE.
 *
 * Match (every field given holds): `status` and `text` (the trimmed body, whole) are one of those
 * listed; `has` (hasIgnoringCase) is in the body; the body is JSON whose value at each path ("a.b")
 * is a string (jsonStrings), a list (jsonList), objects with a string `name` (jsonNames), or ===
 * (jsonEquals). rule edge-refusal: a keyless refusal that may come from the Qdrant Cloud edge (or
 * Qdrant before 1.4.1): the host ends with EDGE.hostSuffix (any case), the trimmed body is one of
 * EDGE.qdrantTexts, or a JSON object whose only `error` is one of EDGE.errors. rule
 * only-declared-collections: global-read answered 200, or every collection the key reaches (the
 * names of `result.collections`, those its JWT names) is declared.
 *
 * Verdicts: pass; fail (the catalog's `failure`, its phrase, the detail, and its fix unless the
 * detail gives one; `serverText`: the detail ends with the server's words); excess (fails, warns
 * with allowExcessAccess, nothing on an open cluster); open (fails unless requireAuth is false);
 * edge (Node asks root-keyed; Terraform, which cannot ask on a condition, passes and lets the key
 * step prove the address); key-step (a refusal the key step reports: Terraform passes, Node skips).
 *
 * Placeholders in a detail: {answer} the status and the server's words (answers.ts answer());
 * {status}; {method} {path} as sent; {contentType} without parameters, or "no content-type";
 * {afterAttempts} " after N attempts" or nothing; {collection} as a JSON string clipped at 40 (text.ts
 * quote()); {declaredCount} "N collection(s)"; {header} Authorization or api-key; {keyExpiry}
 * " on YYYY-MM-DD" for a JWT with `exp`, or nothing; {undeclared} the collections reached beyond
 * the declared, sorted, UNDECLARED.max at most then " and N more", UNDECLARED.notCreated after one
 * only the JWT names; {undeclaredFix} UNDECLARED.fixes: `listed` when the server lists them all,
 * `notCreated` when none ({it}: "it" or "them"), else `some`. Node also hides a name that holds
 * part of the key (secrets.ts).
 */
import type { FailureId } from './failures';
import type { DeclaredAccess } from './options';

export type ProbeId = 'root' | 'root-keyed' | 'key' | 'enforced' | 'manage' | 'global-read' | 'read' | 'read-only' | 'write-exists' | 'write' | 'reach';

/** The table's failure ids and accesses: the catalog's and the options' where it is written, strings for its readers. */
export type Words = { readonly failure: string; readonly access: string };

export interface Match {
  readonly status?: readonly number[];
  readonly text?: readonly string[];
  readonly has?: string;
  readonly hasIgnoringCase?: string;
  readonly jsonStrings?: readonly string[];
  readonly jsonList?: string;
  readonly jsonNames?: string;
  readonly jsonEquals?: readonly [path: string, value: boolean];
  readonly rule?: 'edge-refusal' | 'only-declared-collections';
}

export type FailVerdict<W extends Words = Words> = { readonly kind: 'fail' | 'excess' | 'open'; readonly failure: W['failure']; readonly detail: string; readonly serverText?: true };

export type ProbeVerdict<W extends Words = Words> = { readonly kind: 'pass' | 'edge' | 'key-step' } | FailVerdict<W>;

export type Case<W extends Words = Words> = { readonly when: Match; readonly then: ProbeVerdict<W> | { readonly [A in W['access']]?: ProbeVerdict<W> } };

export interface Probe<W extends Words = Words> {
  readonly step: 'root' | 'key' | 'enforced' | 'access';
  readonly request: { readonly method: 'GET' | 'POST'; readonly path: string; readonly body?: string; readonly withKey: boolean; readonly scope: 'cluster' | 'grant' };
  readonly appliesTo?: readonly W['access'][];
  readonly perCollection?: 'read' | 'write';
  readonly askedAfter?: 'edge';
  readonly reuses?: ProbeId;
  readonly cases: readonly Case<W>[];
}

/** Qdrant's answer to a request without a key. */
export const NO_KEY_TEXT = 'Must provide an API key or an Authorization bearer token';

/** The edge-refusal rule's data: `qdrantTexts` are Qdrant's own for a missing or wrong key (1.8.2-1.8.4: "… JWT token"). */
export const EDGE = {
  hostSuffix: '.cloud.qdrant.io',
  qdrantTexts: [NO_KEY_TEXT, 'Invalid API key or JWT', 'Invalid API key or JWT token'],
  errors: ['forbidden', 'key doesn\'t exist'],
} as const;

export const RANDOM_COLLECTION_PREFIX = 'qdrant-cluster-access-probe-';

/** The words of {undeclared} and {undeclaredFix}. */
export const UNDECLARED = {
  max: 5,
  notCreated: ' (not created yet)',
  fixes: {
    listed: 'create a key limited to the declared collections, or declare them too',
    notCreated: 'create {it} before the deploy and declare {it} too, or use a key without {it}, or allow excess access (healthCheck.allowExcessAccess, --allow-excess-access)',
    some: 'create a key limited to the declared collections, or declare them too (and create those not created yet before the deploy)',
  },
} as const;

/** Where the table is written, its ids and accesses are checked against the catalog's and the options'. */
type Checked = { failure: FailureId; access: DeclaredAccess };

const PASS: ProbeVerdict<Checked> = { kind: 'pass' };
const failure = (id: FailureId, detail: string, kind: FailVerdict['kind'] = 'fail'): FailVerdict<Checked> => ({ kind, failure: id, detail });
/** The verdict when no case matches. */
export const OTHERWISE: FailVerdict = { ...failure('unexpected-answer', ' to {method} {path}: {answer}{afterAttempts}'), serverText: true };
const KEYED_GET = (path: string) => ({ method: 'GET', path, withKey: true, scope: 'grant' }) as const;
const DELETE_NONE = (path: string) => ({ method: 'POST', path, body: '{"points":[]}', withKey: true, scope: 'grant' }) as const;

/** The key step's refusals; `from` says where one came from, after the server's words. */
const keyRefusals = (from = ''): Case<Checked>[] => [
  { when: { status: [401], text: [NO_KEY_TEXT] }, then: failure('key-not-received', ` ({answer}, although it was sent in the {header} header)${from}`) },
  { when: { status: [403], has: 'ExpiredSignature' }, then: failure('key-expired', `{keyExpiry} ({answer})${from}; create a new key and rotate to it`) },
  { when: { status: [401, 403] }, then: failure('key-rejected', ` ({answer})${from}`) },
];
const QDRANT_ROOT: Case<Checked>[] = [
  { when: { status: [200], jsonStrings: ['title', 'version'] }, then: PASS },
  { when: { status: [200] }, then: failure('not-qdrant', ': GET / answered 200 ({contentType}) without Qdrant\'s title and version JSON') },
];
const KEY_STEP: Case<Checked>[] = [
  { when: { status: [401] }, then: { kind: 'key-step' } },
  { when: { status: [403], text: ['ExpiredSignature', 'InvalidSignature'] }, then: { kind: 'key-step' } },
];
const MAY_WRITE: Match = { status: [400], hasIgnoringCase: 'Empty update request' };
const EXISTS = (exists: boolean): Match => ({ status: [200], jsonEquals: ['result.exists', exists] });
const MISSING = failure('collection-missing', ': {collection}; create it before the deploy, or fix or remove its name in the declared access');
const NO_ACCESS = failure('collection-no-access', ' {collection} ({answer})');
const NO_WRITE = failure('collection-no-write', ' {collection} ({answer}); create a key with read-write access to it');
const EXCESS_MANAGE = (declared: string) => failure('excess-manage', ` but is declared ${declared} ({answer} to the empty alias batch); create a key with only that access`, 'excess');

const TABLE: { readonly [id in ProbeId]: Probe<Checked> } = {
  'root': {
    step: 'root',
    request: { method: 'GET', path: '/', withKey: false, scope: 'cluster' },
    cases: [
      ...QDRANT_ROOT,
      { when: { status: [401, 403], rule: 'edge-refusal' }, then: { kind: 'edge' } },
      { when: { status: [401, 403] }, then: failure('not-qdrant', ': GET / without a key answered {answer}, which is neither Qdrant\'s version JSON nor the Qdrant Cloud edge\'s refusal; the key was not sent there: check the URL') },
    ],
  },
  'root-keyed': {
    step: 'root',
    askedAfter: 'edge',
    request: KEYED_GET('/'),
    cases: [...keyRefusals(' from an endpoint that checks the key even on GET /, as the Qdrant Cloud edge does'), ...QDRANT_ROOT],
  },
  'key': {
    step: 'key',
    request: KEYED_GET('/collections'),
    cases: [
      { when: { status: [200], jsonList: 'result.collections' }, then: PASS },
      ...keyRefusals(),
      { when: { status: [200] }, then: failure('not-qdrant', ': GET /collections answered 200 without a collection list') },
    ],
  },
  'enforced': {
    step: 'enforced',
    request: { method: 'GET', path: '/collections', withKey: false, scope: 'cluster' },
    cases: [
      { when: { status: [401, 403] }, then: PASS },
      { when: { status: [200] }, then: failure('cluster-open', ': GET /collections without a key answered 200, so anyone can read and write it — enable an API key on the cluster (or, if that is intended, pass --allow-open; in a stack: healthCheck.requireAuth false)', 'open') },
    ],
  },
  'manage': {
    step: 'access',
    appliesTo: ['manage', 'read-only', 'collections'],
    request: { method: 'POST', path: '/collections/aliases', body: '{"actions":[]}', withKey: true, scope: 'grant' },
    cases: [
      ...KEY_STEP,
      { when: { status: [200] }, then: { 'manage': PASS, 'read-only': EXCESS_MANAGE('read-only'), 'collections': EXCESS_MANAGE('for some collections') } },
      { when: { status: [403] }, then: { 'manage': failure('cannot-manage', ' ({answer}); create a key with manage access'), 'read-only': PASS, 'collections': PASS } },
    ],
  },
  'global-read': {
    step: 'access',
    appliesTo: ['read-only', 'collections'],
    request: KEYED_GET('/collections/{random}/exists'),
    cases: [
      ...KEY_STEP,
      { when: { status: [200] }, then: { 'read-only': PASS, 'collections': failure('excess-global', ' but is declared for {declaredCount} only; create a key limited to them', 'excess') } },
      // Not {answer}: the server's words name the random collection, which would puzzle.
      { when: { status: [403] }, then: { 'read-only': failure('no-global-read', ' ({status} to a random collection name, which tests cluster-wide read); create a cluster-wide read-only key'), 'collections': PASS } },
    ],
  },
  'read': {
    step: 'access',
    appliesTo: ['any', 'read-only', 'manage', 'collections'],
    perCollection: 'read',
    request: KEYED_GET('/collections/{collection}/exists'),
    cases: [...KEY_STEP, { when: EXISTS(true), then: PASS }, { when: EXISTS(false), then: MISSING }, { when: { status: [403] }, then: NO_ACCESS }],
  },
  'read-only': {
    step: 'access',
    appliesTo: ['collections'],
    perCollection: 'read',
    request: DELETE_NONE('/collections/{collection}/points/delete'),
    cases: [
      ...KEY_STEP,
      { when: MAY_WRITE, then: failure('excess-write', ' {collection}, which is declared read-only; create a key with read access to it', 'excess') },
      { when: { status: [403, 404] }, then: PASS },
    ],
  },
  'write-exists': { // a manage key may write every collection: only whether it exists is in question
    step: 'access',
    appliesTo: ['manage'],
    perCollection: 'write',
    request: KEYED_GET('/collections/{collection}/exists'),
    cases: [...KEY_STEP, { when: EXISTS(true), then: PASS }, { when: EXISTS(false), then: MISSING }],
  },
  'write': {
    step: 'access',
    appliesTo: ['any', 'read-only', 'collections'],
    perCollection: 'write',
    request: DELETE_NONE('/collections/{collection}/points/delete'),
    cases: [
      ...KEY_STEP,
      { when: MAY_WRITE, then: PASS },
      { when: { status: [404] }, then: MISSING },
      { when: { status: [403], hasIgnoringCase: 'Write access' }, then: NO_WRITE },
      { when: { status: [403], hasIgnoringCase: 'Access to collection' }, then: NO_ACCESS },
      { when: { status: [403] }, then: NO_WRITE },
    ],
  },
  'reach': { // a scoped key's list holds only its collections; its JWT may name more, not created yet
    step: 'access',
    appliesTo: ['collections'],
    reuses: 'key',
    request: KEYED_GET('/collections'),
    cases: [
      ...KEY_STEP,
      { when: { status: [200], jsonNames: 'result.collections', rule: 'only-declared-collections' }, then: PASS },
      { when: { status: [200], jsonNames: 'result.collections' }, then: failure('excess-collections', ': {undeclared}; {undeclaredFix}', 'excess') },
    ],
  },
};

/** Characters a key may hold (a character class's body, read alike by JavaScript and RE2). */
export const HEADER_SAFE = '\\t\\x20-\\x7e\\x80-\\xff';

/** Hold before anything is sent (else the key step fails), checked in this order: every character in HEADER_SAFE for `header-safe`. */
export const KEY_RULES: readonly { readonly rule: 'trimmed' | 'header-safe'; readonly then: FailVerdict }[] = [
  { rule: 'trimmed', then: failure('key-whitespace', ' at its start or end — likely a copy-paste error; remove it') },
  { rule: 'header-safe', then: failure('key-bad-characters', ' or a character that cannot be sent in an HTTP header — likely a copy-paste error; copy the key again') },
];

/**
 * A JWT's `exp` once the key step passed, the first that holds deciding: `expired` (not after now),
 * `tooSoon` (minValidityDays set, and fewer whole days left), `warning` (fewer than warnValidityDays);
 * with {expiredAt} "YYYY-MM-DD at hh:mm:ss UTC", {expiry} (jwt.ts describeExpiry), {minValidityDays}.
 */
export const EXPIRY: { readonly expired: FailVerdict; readonly tooSoon: FailVerdict; readonly warning: string } = {
  expired: failure('key-expired', ' on {expiredAt} (by this machine\'s clock; Qdrant accepts a key for 30 s past its expiry); create a new key and rotate to it'),
  tooSoon: failure('key-expires-soon', ': it {expiry}, and at least {minValidityDays} days are required (healthCheck.minValidityDays, --min-validity-days); ' +
    'create a new key, deploy it, then delete the old one (setup guide, section 6)'),
  warning: 'key {expiry}: rotate it soon (setup guide, section 6)',
};

/** The warning of an allowed open cluster where the key showed more access than declared; {access}: the declared access. */
export const OPEN_NOT_ENFORCED = 'cluster is open: any request may manage it, whatever the key, so the declared access ({access}) is not enforced';

/** The table. Node judges an access step's probes in this order (the first failure is reported), a collection's together, read collections first. */
export const PROBES: { readonly [id in ProbeId]: Probe } = TABLE;
