/**
 * The managed blocks of a dotenv file: what in it is whose (pure functions). Owner's entries live
 * only inside its block, between two comment lines (exact text; \u2014 is the em dash; OWNER holds no
 * space or parenthesis):
 *   start   # >>> managed by cdktf-qdrant-cluster-access (OWNER) \u2014 do not edit[ \u2014 created this file]
 *   end     # <<< managed by cdktf-qdrant-cluster-access (OWNER)
 *   record  # cdktf-qdrant-cluster-access entries: NAME NAME ...
 * One block per owner, not nested. The record (the first line of its form in the block) lists the
 * names owner last wrote; the tool's name in it keeps a note like "# entries: see README" from
 * reading as one. Every other line, inside the block too, is someone else's.
 */
import { DotenvItem, lineOf } from './dotenv-syntax';
import { REFUSED } from './entries';
import { RuntimeError } from '../runtime/errors';

export const TOOL = 'cdktf-qdrant-cluster-access';
const CREATED_TAG = ' \u2014 created this file';

export function startMarker(owner: string, created?: boolean): string {
  return `# >>> managed by ${TOOL} (${owner}) \u2014 do not edit${created ? CREATED_TAG : ''}`;
}

export function endMarker(owner: string): string {
  return `# <<< managed by ${TOOL} (${owner})`;
}

/** The record line of the names owner wrote (sorted, so the order of the entries never shows). */
export function recordLine(names: Iterable<string>): string {
  return `# ${TOOL} entries:${[...names].sort().map((n) => ` ${n}`).join('')}`;
}
const RECORD_RE = /^# cdktf-qdrant-cluster-access entries:((?: [A-Za-z_][A-Za-z0-9_]*)*)$/;

// Any owner's markers, for reading a file that holds several blocks.
const START_RE = /^# >>> managed by cdktf-qdrant-cluster-access \(([^()\s]+)\) \u2014 do not edit( \u2014 created this file)?$/;
const END_RE = /^# <<< managed by cdktf-qdrant-cluster-access \(([^()\s]+)\)$/;

/** A block: the item indexes of its markers, whether this tool created the file, its record line. */
type Block = { owner: string; start: number; end: number; created: boolean };
type OwnBlock = Omit<Block, 'owner'> & { record: { idx: number; names: string[] } | null };

/**
 * Owner's block (or null), every well-formed block in file order, and each item's block owner (null:
 * outside). Refuses, naming the line, a start marker without an end and any damage to owner's own
 * block; other damage in other blocks only makes their lines count as outside.
 */
export function readBlocks(items: readonly DotenvItem[], owner: string): { block: OwnBlock | null; blocks: Block[]; ownerAt: (string | null)[] } {
  const blocks: Block[] = [];
  const ownerAt: (string | null)[] = new Array(items.length).fill(null);
  let open: { owner: string; start: number; created: boolean } | null = null;
  for (const [idx, it] of items.entries()) {
    const s = it.kind === 'comment' ? START_RE.exec(it.content ?? '') : null;
    const e = it.kind !== 'comment' || s ? null : END_RE.exec(it.content ?? '');
    if (s && !open) {
      open = { owner: s[1], start: idx, created: Boolean(s[2]) };
    } else if (e && open && e[1] === open.owner) {
      blocks.push({ ...open, end: idx });
      open = null;
    } else if (open) {
      ownerAt[idx] = open.owner;
    }
  }
  const refuse = (idx: number, why: string) => new RuntimeError(`${lineOf(items[idx])}: ${why}`, REFUSED, { line: items[idx].line });
  if (open) {
    // Any owner's: every line after it would count as that block's, an appended block inside it.
    throw refuse(open.start, `managed block for owner ${open.owner} has no end marker; restore the line "${endMarker(open.owner)}" after its entries, or delete this line`);
  }
  const S = startMarker(owner);
  const E = endMarker(owner);
  const marked = (is: (content?: string) => boolean) => items.flatMap((it, idx) => (it.kind === 'comment' && is(it.content) ? [idx] : []));
  const starts = marked((c) => c === S || c === S + CREATED_TAG);
  const ends = marked((c) => c === E);
  if (starts.length === 0 && ends.length === 0) return { block: null, blocks, ownerAt };
  if (starts.length === 0 || ends[0] < starts[0]) {
    throw refuse(ends[0], `end marker of the managed block for owner ${owner} has no start marker before it; restore the line "${S}" above it, or delete this line`);
  }
  const start = starts[0];
  const end = ends.find((idx) => idx > start);
  if (end === undefined) throw refuse(start, `managed block for owner ${owner} has no end marker; restore the line "${E}" after its entries, or delete this line`);
  const extra = [...starts.slice(1), ...ends.filter((idx) => idx !== end)][0];
  if (extra !== undefined) {
    throw refuse(extra, `a second marker of the managed block for owner ${owner} (the block starts on line ${items[start].line}); merge the two blocks into one, or delete this line`);
  }
  const nested = items.findIndex((it, idx) => idx > start && idx < end && it.kind === 'comment'
    && (START_RE.test(it.content ?? '') || END_RE.test(it.content ?? '')));
  if (nested >= 0) {
    throw refuse(nested, `a marker of another managed block inside the block for owner ${owner} (lines ${items[start].line}-${items[end].line}); move that block out of it`);
  }
  if (ownerAt[start] !== null) throw refuse(start, `the managed block for owner ${owner} starts inside the block of owner ${ownerAt[start]}; move it out of that block`);
  const created = items[start].content !== S;
  // The record: the first comment of its form (a line the user inserted above it does not hide it).
  const at = items.findIndex((it, idx) => idx > start && idx < end && it.kind === 'comment' && RECORD_RE.test(it.content ?? ''));
  const record = at < 0 ? null : { idx: at, names: (RECORD_RE.exec(items[at].content ?? '') as RegExpExecArray)[1].split(' ').filter(Boolean) };
  return { block: { start, end, created, record }, blocks, ownerAt };
}

export function inBlock(block: OwnBlock | null, idx: number): boolean {
  return block !== null && idx > block.start && idx < block.end;
}
