/**
 * Editing a JSON file's top-level object in place (json-text.ts; pure functions; messages never
 * hold values): every byte not of our members is kept; new members follow the file's line ends and
 * indent. No file, or only a BOM and whitespace, is accepted. Ownership is recorded, without values, in the sidecar
 * `.<basename>.qdrant-cluster-access` next to the target:
 *   { "writer": "cdktf-qdrant-cluster-access", "version": 1,
 *     "created": false,              this tool created the target
 *     "originalWhenEmpty": "{ }\n",  the text before the first write if it had no member, else null
 *     "owners": { "<owner>": ["NAME", ...] } }
 * Removing the last owner restores the file (deleted, or that text): merge then remove gives back
 * the original bytes. The sidecar is committed before the target on write and after it on remove,
 * so a crash can leave a recorded member missing, never one of ours unrecorded; a write that drops
 * members records the old and new names first (`sidecar`), then only the new (`sidecarAfter`).
 */
import { basename, dirname, join } from 'node:path';
import { TOOL } from './dotenv-blocks';
import { anotherWorkspace, checkEntries, checkName, checkOwner, REFUSED, SECRET_NAMING_FIX } from './entries';
import { JsonObjectScan, lineAt, removeMembers, scanJsonObject } from './json-text';
import { RuntimeError } from '../runtime/errors';
import { isEntryName, isOwner, sameAccessOwners } from '../runtime/names';
import { quote } from '../runtime/text';

export const SIDECAR_SUFFIX = '.qdrant-cluster-access';
const SIDECAR_VERSION = 1;
const BLANK_RE = /^\ufeff?[ \t\r\n]*$/;
const EMPTY_OBJECT_RE = /^\ufeff?[ \t\r\n]*(\{[ \t\r\n]*\}[ \t\r\n]*)?$/;

/** The parsed sidecar (see the header). It holds no values. */
export interface Sidecar {
  readonly created: boolean;
  readonly originalWhenEmpty: string | null;
  /** Owner → the names it wrote; without a prototype (sidecars made here), so any owner is data. */
  readonly owners: Record<string, string[]>;
}

/** A copy of `owners` without a prototype: `__proto__` or `constructor` is an owner like any other. */
const ownersCopy = (owners: Readonly<Record<string, string[]>>): Record<string, string[]> => Object.assign(Object.create(null), owners);

/** The names the sidecar records for `owner` (its own entry only), or undefined. */
function recordedFor(side: Sidecar | null, owner: string): string[] | undefined {
  return side && Object.prototype.hasOwnProperty.call(side.owners, owner) ? side.owners[owner] : undefined;
}

/** The sidecar of `file`: `.<basename>.qdrant-cluster-access` in the same directory. */
export function sidecarPath(file: string): string {
  return join(dirname(file), `.${basename(file)}${SIDECAR_SUFFIX}`);
}

/** Parses sidecar text (null: no sidecar); refuses, naming it (`name`), one not of this tool. */
export function parseSidecar(text: string | null, name: string): Sidecar | null {
  if (text == null) return null;
  const damaged = (what: string) => new RuntimeError(
    `the ownership record ${name} ${what}; restore it, or delete it and remove the members it listed from the file by hand`, REFUSED);
  let obj;
  try {
    obj = JSON.parse(text);
  } catch {
    throw damaged('is not valid JSON');
  }
  if (!obj || typeof obj !== 'object' || obj.writer !== TOOL) throw damaged(`was not written by ${TOOL}`);
  if (obj.version !== SIDECAR_VERSION) throw damaged(`has version ${JSON.stringify(obj.version)}, expected ${SIDECAR_VERSION} (written by another version of this tool)`);
  if (typeof obj.created !== 'boolean') throw damaged('has no boolean "created"');
  const orig = obj.originalWhenEmpty;
  if (orig !== null && (typeof orig !== 'string' || !EMPTY_OBJECT_RE.test(orig))) {
    throw damaged('has an "originalWhenEmpty" that is not null or an empty object');
  }
  if (!obj.owners || typeof obj.owners !== 'object' || Array.isArray(obj.owners)) throw damaged('has no "owners" object');
  const owners: Record<string, string[]> = Object.create(null);
  // JSON.parse makes every member an own property, "__proto__" too.
  for (const [owner, names] of Object.entries(obj.owners as Record<string, unknown>)) {
    if (!isOwner(owner) || !Array.isArray(names) || !names.every(isEntryName)) throw damaged(`has an invalid entry for owner ${quote(owner, 80)}`);
    owners[owner] = [...names];
  }
  return { created: obj.created, originalWhenEmpty: orig, owners };
}

/** Sidecar text: stable key order, two-space indent, final newline. */
export function renderSidecar(side: Sidecar): string {
  return JSON.stringify({
    writer: TOOL,
    version: SIDECAR_VERSION,
    created: side.created,
    originalWhenEmpty: side.originalWhenEmpty,
    owners: side.owners,
  }, null, 2) + '\n';
}

const recordedOwnerOf = (side: Sidecar | null, name: string) => (side && Object.keys(side.owners).find((o) => side.owners[o].includes(name))) || null;

/** How a refusal of a name recorded for owner `who` ends: the same access in another workspace, or the fix. */
function takenBy(who: string, owner: string): string {
  return sameAccessOwners(who, owner) ? anotherWorkspace(owner) : `; ${SECRET_NAMING_FIX}, or remove owner ${who}'s entries first`;
}

function foreignMemberError(text: string, m: JsonObjectScan['members'][number], owner: string, side: Sidecar | null, sidecarName: string,
  others: JsonObjectScan['members'] = []): RuntimeError {
  const who = recordedOwnerOf(side, m.key);
  const key = JSON.stringify(m.key);
  const line = lineAt(text, m.start);
  // The others that the same fix clears: all of them in one message, not one a deploy.
  // (A member given twice in the file is named once, at its first line.)
  const same = others.filter((o, i) => o.key !== m.key && others.findIndex((x) => x.key === o.key) === i && recordedOwnerOf(side, o.key) === who);
  const also = same.length === 0 ? '' : ` (so ${same.length === 1 ? 'does' : 'do'} ${same.map((o) => `${JSON.stringify(o.key)} on line ${lineAt(text, o.start)}`).join(', ')})`;
  const those = same.length === 0 ? 'that member' : 'those members';
  if (who) return new RuntimeError(`line ${line}: member ${key}${also} was written for owner ${who} (recorded in ${sidecarName})${takenBy(who, owner)}`, REFUSED, { line });
  const why = side
    ? `and ${sidecarName} does not record it as written for owner ${owner}`
    : `and there is no ownership record ${sidecarName} saying this tool wrote it (if an earlier version of this tool wrote it, deleting it is safe: the next deploy writes it again)`;
  return new RuntimeError(`line ${line}: member ${key}${also} already exists ${why}; remove ${those}, or ${SECRET_NAMING_FIX}`, REFUSED, { line });
}

/**
 * Sets owner's members to exactly `entries` (text, side: null when missing); refuses such a member the
 * sidecar does not record for owner, or records for another. `sidecarAfter`: null if equal to `sidecar`.
 */
export function planMerge(text: string | null, side: Sidecar | null, entries: Readonly<Record<string, string>> | ReadonlyMap<string, string>,
  opts: { owner: string; sidecarName?: string }) {
  const owner = checkOwner(opts && opts.owner);
  const sidecarName = (opts && opts.sidecarName) || 'the sidecar file';
  const given = checkEntries(entries, JSON.stringify);
  const names = [...given.keys()];
  const blank = text == null || BLANK_RE.test(text);
  const mine = new Set(recordedFor(side, owner) ?? []);
  // Nothing to write and nothing of ours in the file: nothing to change (no file is created).
  if (names.length === 0 && (mine.size === 0 || blank)) {
    const none: string[] = [];
    return { text: null, sidecar: side, sidecarAfter: null as Sidecar | null, added: none, updated: none, unchanged: none, dropped: none };
  }
  // No file, or only a BOM and whitespace: written as a new object.
  const source = blank ? '{}\n' : text as string;
  let scan = scanJsonObject(source);
  const foreign = scan.members.filter((m) => given.has(m.key) && !mine.has(m.key));
  if (foreign.length > 0) throw foreignMemberError(text as string, foreign[0], owner, side, sidecarName, foreign.slice(1));
  for (const n of names) {
    // Recorded for another owner but not in the file (removed by hand, or a crash): still theirs.
    const who = recordedOwnerOf(side, n);
    if (who && who !== owner) throw new RuntimeError(`member ${JSON.stringify(n)} is recorded in ${sidecarName} as written for owner ${who}${takenBy(who, owner)}`, REFUSED);
  }
  const next: Sidecar = { created: false, originalWhenEmpty: null, ...side, owners: ownersCopy(side ? side.owners : {}) };
  next.owners[owner] = [...mine, ...names.filter((n) => !mine.has(n))];
  const fresh = !side || Object.keys(side.owners).length === 0;
  if (text == null) Object.assign(next, { created: true, originalWhenEmpty: null });
  else if (fresh) Object.assign(next, { created: false, originalWhenEmpty: scan.members.length === 0 ? text : null });
  // Recorded names no longer given: they leave the file and then the record.
  const gone = [...mine].filter((n) => !given.has(n));
  const after: Sidecar | null = gone.length ? { ...next, owners: ownersCopy(next.owners) } : null;
  if (after) after.owners[owner] = after.owners[owner].filter((n) => !gone.includes(n));

  let out = source;
  const dropped = new Set(scan.members.filter((m) => gone.includes(m.key)).map((m) => m.key));
  if (dropped.size) {
    out = removeMembers(source, scan, dropped).text;
    scan = scanJsonObject(out);
  }
  const seen = new Set();
  const changed = new Set();
  // Replace existing values from the end so earlier offsets stay valid.
  for (const m of [...scan.members].reverse()) {
    if (!given.has(m.key)) continue;
    seen.add(m.key);
    const v = given.get(m.key);
    if (out.slice(m.valStart, m.valEnd) !== v) {
      changed.add(m.key);
      out = out.slice(0, m.valStart) + v + out.slice(m.valEnd);
    }
  }
  const added = names.filter((n) => !seen.has(n));
  if (added.length) {
    const s2 = scanJsonObject(out);
    const nl = out.includes('\r\n') ? '\r\n' : '\n';
    const indent = (s2.members.length ? /\n([ \t]*)$/.exec(out.slice(0, s2.members[0].start))?.[1] : undefined) ?? '  ';
    const lines = added.map((n) => `${indent}${JSON.stringify(n)}: ${given.get(n)}`);
    if (s2.members.length) {
      const at = s2.members[s2.members.length - 1].valEnd;
      out = out.slice(0, at) + lines.map((l) => ',' + nl + l).join('') + out.slice(at);
    } else {
      out = out.slice(0, s2.open + 1) + nl + lines.join(',' + nl) + nl + out.slice(s2.close);
    }
  }
  return {
    text: out,
    sidecar: next,
    sidecarAfter: after,
    added,
    updated: names.filter((n) => changed.has(n)),
    unchanged: names.filter((n) => seen.has(n) && !changed.has(n)),
    dropped: gone.filter((n) => dropped.has(n)),
  };
}

/**
 * Removes owner's recorded members named in `names` (opts.all: every recorded one); text null: leave
 * the target, sidecar null: delete it. noSidecar: none, yet the object has members (ours may be some).
 */
export function planRemove(text: string | null, side: Sidecar | null, names: string[] | Record<string, unknown>,
  opts: { owner: string; sidecarName?: string; all?: boolean }) {
  const owner = checkOwner(opts && opts.owner);
  const given = Array.isArray(names) ? names : Object.keys(names || {});
  given.forEach(checkName);
  const recorded = recordedFor(side, owner) ?? [];
  const list = opts && opts.all ? [...new Set([...given, ...recorded])] : given;
  const scan = text != null && !BLANK_RE.test(text) ? scanJsonObject(text) : null;
  const present = new Set(scan ? scan.members.map((m) => m.key) : []);
  const mine = new Set(recorded);
  const base = {
    text: null as string | null,
    sidecar: side,
    removed: [] as string[],
    absent: list.filter((n) => !present.has(n)),
    notOurs: list.filter((n) => present.has(n) && !mine.has(n)),
    noRecord: false,
    noSidecar: false,
    deleteFile: false,
  };
  const result = (extra: Partial<typeof base>) => ({ ...base, ...extra });
  if (!side || recordedFor(side, owner) === undefined) return result({ noRecord: true, noSidecar: !side && present.size > 0 });

  const next = { ...side, owners: ownersCopy(side.owners) };
  const left = recorded.filter((n) => !list.includes(n));
  if (left.length) next.owners[owner] = left;
  else delete next.owners[owner];
  const last = Object.keys(next.owners).length === 0;
  const sidecar = last ? null : next;
  if (text == null) return result({ sidecar });

  const targets = new Set(list.filter((n) => mine.has(n) && present.has(n)));
  let out = text;
  let members = 0;
  if (scan) ({ text: out, members } = removeMembers(text, scan, targets));
  // The last owner's last member gone: the file this tool created goes, an empty one gets its text back.
  const restore = last && members === 0;
  if (restore && !side.created && side.originalWhenEmpty !== null) out = side.originalWhenEmpty;
  return result({
    text: out === text ? null : out,
    sidecar,
    removed: list.filter((n) => targets.has(n)),
    deleteFile: restore && side.created,
  });
}
