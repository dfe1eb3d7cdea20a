/**
 * Line-preserving dotenv editing with owner blocks (dotenv-syntax.ts, dotenv-blocks.ts; pure functions).
 * Merge then remove gives an untouched file back byte for byte, or deletes it if this tool created it.
 */
import { readBlocks, inBlock, recordLine, startMarker, endMarker } from './dotenv-blocks';
import { DotenvItem, formatValue, lineOf, parseDotenv, PARTIAL_LINE_ENDS } from './dotenv-syntax';
import { anotherWorkspace, checkEntries, checkName, checkOwner, REFUSED, SECRET_NAMING_FIX } from './entries';
import { RuntimeError } from '../runtime/errors';
import { sameAccessOwners } from '../runtime/names';

export { TOOL, startMarker, endMarker, recordLine } from './dotenv-blocks';
export { parseDotenv, formatValue } from './dotenv-syntax';

/**
 * Sets owner's entries to exactly `entries` (`text` null: no file yet; the start marker records
 * that). Refuses, naming the line, a name defined outside owner's block (for any reader), and a
 * block line that not every reader starts. In the block, values are replaced in place, new names go
 * before the end marker, recorded names no longer given are dropped; no block: one is appended.
 */
export function planMerge(text: string | null, entries: Readonly<Record<string, string>> | ReadonlyMap<string, string>, opts: { owner: string }):
{ text: string | null; added: string[]; updated: string[]; unchanged: string[]; dropped: string[] } {
  const owner = checkOwner(opts && opts.owner);
  const formatted = checkEntries(entries, formatValue);
  const names = [...formatted.keys()];
  const creating = text == null;
  const model = parseDotenv(text ?? '');
  const items = model.items.slice();
  const { block, ownerAt } = readBlocks(items, owner);
  // Nothing to write and no block: nothing to change (no file is created, no empty block added).
  if (names.length === 0 && !block) return { text: creating ? null : text, added: [], updated: [], unchanged: [], dropped: [] };
  items.forEach((it, idx) => {
    if (it.kind !== 'assign' || !formatted.has(it.key as string) || inBlock(block, idx)) return;
    const who = ownerAt[idx];
    const where = who ? `in the managed block of owner ${who}` : `outside the managed block of owner ${owner}`;
    const fix = who && sameAccessOwners(who, owner) ? anotherWorkspace(owner) : `; remove that line, or ${SECRET_NAMING_FIX}`;
    throw new RuntimeError(`${lineOf(it)}: ${it.key} is already defined ${where}${fix}`, REFUSED, { line: it.line });
  });
  // No quoted value's line defines our name for Node's parser; each block line starts one for all.
  for (const it of items) {
    const inner = (it.inner ?? []).find((d) => formatted.has(d.key));
    if (inner) {
      throw new RuntimeError(`line ${inner.line}: ${inner.key}= starts a line inside the quoted value of ${it.key} (line ${it.line}), which Node's --env-file reads as a definition if it ends that value sooner (at the first ${it.quote}, backslash or not); remove that line, or ${SECRET_NAMING_FIX}`, REFUSED, { line: inner.line });
    }
  }
  for (let idx = block ? block.start + 1 : 0; block && idx <= block.end; idx++) {
    const [prev, it] = [items[idx - 1], items[idx]];
    if (prev.eol !== '\n' && prev.eol !== '\r\n') {
      throw new RuntimeError(`line ${it.line}: a line of the managed block of owner ${owner} starts after ${PARTIAL_LINE_ENDS[prev.eol as string]}, so not every reader reads it as a line; replace that character with a newline`, REFUSED, { line: it.line });
    }
    // Node's parser reads on into the next line after NAME= and spaces (22 and later), and after a
    // line with no = that starts with a space or a tab (20).
    const readOn = prev.kind === 'assign'
      ? prev.quote === '' && prev.valueRaw === '' && /[ \t]$/.test(`${prev.prefix}${prev.suffix}`) && !prev.suffix?.includes('#')
        && `${prev.key}= has only spaces after it, so Node's --env-file (22 and later) reads the next line as its value`
      : /^[ \t]/.test(prev.content ?? '') && 'this line starts with a space or a tab, so Node 20\'s --env-file reads the next line as part of it';
    if (readOn) throw new RuntimeError(`${lineOf(prev)}: inside the managed block of owner ${owner}, ${readOn}; remove those spaces`, REFUSED, { line: prev.line });
  }
  const seen = new Set<string>();
  const changed = new Set<string>();
  const dropped = new Set<string>();
  const eol = model.eol;
  const lines = () => names.filter((n) => !seen.has(n)).map((n) => `${n}=${formatted.get(n)}`);
  let out: DotenvItem[] = items;
  if (block) {
    const recorded = new Set(block.record ? block.record.names : []);
    const record = (lineEol: string): DotenvItem => ({ kind: 'comment', content: recordLine(names), raw: recordLine(names) + lineEol, eol: lineEol });
    out = items.flatMap((it, idx): DotenvItem[] => {
      const key = it.key as string;
      if (inBlock(block, idx) && it.kind === 'assign' && formatted.has(key)) {
        seen.add(key);
        const f = formatted.get(key) as string;
        // An unquoted value needs whitespace before a comment, or python-dotenv keeps the comment.
        const suffix = it.suffix !== '' && !/^[ \t]/.test(it.suffix as string) ? ' ' + it.suffix : it.suffix as string;
        const raw = it.prefix + f + suffix + it.eol;
        if (raw === it.raw) return [it];
        changed.add(key);
        return [{ ...it, raw, valueRaw: f, suffix, quote: /^['"]/.test(f) ? f[0] : '' }];
      }
      if (inBlock(block, idx) && it.kind === 'assign' && recorded.has(key)) {
        dropped.add(key);
        return [];
      }
      // Kept when empty too: a block without a record line would read as one whose record was deleted by hand.
      if (block.record && idx === block.record.idx) return [it.content === recordLine(names) ? it : record(it.eol ?? '')];
      if (idx === block.end) return [...lines().map((l): DotenvItem => ({ kind: 'assign', raw: l + eol })), it];
      return idx === block.start && !block.record && names.length > 0 ? [it, record(it.eol ?? '')] : [it];
    });
  } else {
    const all = [startMarker(owner, creating), recordLine(names), ...lines(), endMarker(owner)];
    const last = items[items.length - 1];
    // A file without a final newline keeps it that way (removal undoes this exactly).
    const noFinal = last !== undefined && last.eol === '';
    if (noFinal) items[items.length - 1] = { ...last, raw: last.raw + eol, eol };
    all.forEach((l, n) => items.push({ kind: 'comment', raw: l + (noFinal && n === all.length - 1 ? '' : eol) }));
  }
  const result = model.bom + out.map((it) => it.raw).join('');
  // Our lines may hold a quote that a value ending in a backslash must not have after it.
  parseDotenv(result, { written: true });
  return {
    text: result,
    added: names.filter((n) => !seen.has(n)),
    updated: names.filter((n) => changed.has(n)),
    unchanged: names.filter((n) => seen.has(n) && !changed.has(n)),
    dropped: block && block.record ? block.record.names.filter((n) => dropped.has(n)) : [],
  };
}

/**
 * Removes the given names (with opts.all, also the recorded ones) from owner's block, and nothing
 * else; `notOurs` are defined only outside it. `keptLines`/`keptNames`: lines the record does not
 * name, left with the markers when no recorded name is. Empty markers and record go; a "created
 * this file" tag then moves to the next block; with none, a file of blank lines is deleted (`deleteFile`).
 */
export function planRemove(text: string | null, names: string[] | Record<string, unknown>, opts: { owner: string; all?: boolean }) {
  const owner = checkOwner(opts && opts.owner);
  const given = Array.isArray(names) ? names : Object.keys(names || {});
  given.forEach(checkName);
  const model = parseDotenv(text ?? '');
  const { block } = readBlocks(model.items, owner);
  const recorded = block && block.record ? block.record.names : [];
  const list = opts && opts.all ? [...new Set([...given, ...recorded])] : given;
  const wanted = new Set(list);
  const removed = new Set<string>();
  const elsewhere = new Set<string>();
  // With all, no names given and no record (removed by hand): nothing says whose; they stay, named.
  const unrecorded = new Set<string>();
  const orphans = Boolean(block && !block.record && opts && opts.all && given.length === 0);
  model.items.forEach((it, idx) => {
    const key = it.key as string;
    if (it.kind !== 'assign') return;
    if (wanted.has(key)) (inBlock(block, idx) ? removed : elsewhere).add(key);
    else if (orphans && inBlock(block, idx)) unrecorded.add(key);
  });
  const result = (out: string | null, deleteFile: boolean, kept: DotenvItem[] = []) => ({
    text: out,
    removed: list.filter((n) => removed.has(n)),
    notOurs: list.filter((n) => !removed.has(n) && elsewhere.has(n)),
    absent: list.filter((n) => !removed.has(n) && !elsewhere.has(n)),
    noBlock: !block,
    unrecorded: [...unrecorded],
    deleteFile,
    keptLines: kept.length,
    keptNames: kept.filter((it) => it.kind === 'assign').map((it) => it.key as string),
  });
  if (!block) return result(text, false);

  const left = recorded.filter((n) => !wanted.has(n));
  const was = block.record && model.items[block.record.idx];
  const record = was && (left.length === recorded.length ? was : { ...was, content: recordLine(left), raw: recordLine(left) + (was.eol ?? '') });
  let items = model.items
    .filter((it, idx) => !(it.kind === 'assign' && wanted.has(it.key as string) && inBlock(block, idx)))
    .map((it) => (it === was ? record as DotenvItem : it));
  const start = items.indexOf(model.items[block.start]);
  const end = items.indexOf(model.items[block.end]);
  const inner = items.slice(start + 1, end).filter((it) => it !== record);
  let deleteFile = false;
  if (inner.length === 0) {
    items = items.filter((_, idx) => idx < start || idx > end);
    if (block.created) {
      const next = readBlocks(items, owner).blocks[0];
      if (next) {
        const it = items[next.start];
        items[next.start] = { ...it, content: startMarker(next.owner, true), raw: startMarker(next.owner, true) + (it.eol ?? '') };
      } else {
        deleteFile = items.every((it) => it.kind === 'blank');
      }
    }
  }
  const origLast = model.items[model.items.length - 1];
  const newLast = items[items.length - 1];
  if (origLast && origLast.eol === '' && newLast && newLast !== origLast && newLast.eol !== '') {
    // The original had no final newline and its last line is gone: keep "no final newline".
    items[items.length - 1] = { ...newLast, raw: newLast.raw.slice(0, -(newLast.eol as string).length), eol: '' };
  }
  // No recorded name is left, but a user's lines are: they, the markers and the empty record stay.
  const kept = block.record && left.length === 0 ? inner : [];
  return result(model.bom + items.map((it) => it.raw).join(''), deleteFile, kept);
}
