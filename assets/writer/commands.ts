/**
 * The writer's commands, each summed up in one line of counts, never values. Ours: what owner's block
 * (dotenv.ts) or sidecar (json.ts) records; a file this tool created goes once nothing else is in it.
 */
import * as dotenv from './dotenv';
import { DELETE, Next, SidecarPlan, updateFile, UpdateOptions } from './file';
import { fileNameProblem } from './file-names';
import { FileRecord } from './input';
import * as json from './json';
import { RUN, RuntimeError } from '../runtime/errors';

/** One write or remove of one file's entries for one owner. */
export type FileCommand = Pick<FileRecord, 'file' | 'format'> & { readonly command: 'write' | 'remove'; readonly owner: string };

function entriesWord(n: number): string {
  return `${n} ${n === 1 ? 'entry' : 'entries'}`;
}

/** Where a transform leaves its plan (dotenv.ts's or json.ts's) for the summary line. */
interface Planned {
  written?: ReturnType<typeof dotenv.planMerge | typeof json.planMerge>;
  /** Either format's removal plan: the name lists, and what the format can say about what it left. */
  removed?: Pick<ReturnType<typeof json.planRemove>, 'removed' | 'absent' | 'notOurs'> & Partial<ReturnType<typeof dotenv.planRemove> & ReturnType<typeof json.planRemove>>;
}

/** updateFile's transform for the format; it leaves its plan in `out` for the summary line. */
function transform({ command, format, owner }: FileCommand, entries: ReadonlyMap<string, string>, sidecarName: string, out: Planned) {
  const names = [...entries.keys()];
  if (format === 'dotenv') {
    return (text: string | null): Next => {
      if (command === 'write') return (out.written = dotenv.planMerge(text, entries, { owner })).text;
      const plan = out.removed = dotenv.planRemove(text, names, { owner, all: true });
      return plan.deleteFile ? DELETE : plan.text;
    };
  }
  const render = (side: json.Sidecar | null) => (side ? json.renderSidecar(side) : null);
  return (text: string | null, sideText: string | null): SidecarPlan => {
    const side = json.parseSidecar(sideText, sidecarName);
    if (command === 'write') {
      const plan = out.written = json.planMerge(text, side, entries, { owner, sidecarName });
      return { text: plan.text, sidecar: render(plan.sidecar), sidecarFirst: true, sidecarAfter: render(plan.sidecarAfter) };
    }
    const plan = out.removed = json.planRemove(text, side, names, { owner, sidecarName, all: true });
    const sidecar = (plan.sidecar || sideText == null) ? render(plan.sidecar) : DELETE;
    return { text: plan.deleteFile ? DELETE : plan.text, sidecar, sidecarFirst: false };
  };
}

/** Does one write or remove; returns the summary line. Throws a RuntimeError (one line) on failure. */
export async function apply({ command, format, file: target, owner }: FileCommand, entries: ReadonlyMap<string, string>,
  options: UpdateOptions & { warn: (message: string) => void }): Promise<string> {
  // A name too long for the files the writer makes next to it: said before anything is made.
  const nameProblem = command === 'write' ? fileNameProblem(target, format) : undefined;
  if (nameProblem) throw new RuntimeError(`cannot write ${target}: ${nameProblem}; the file was not changed`, 'ENAMETOOLONG');
  const out: Planned = {};
  const sidecarName = format === 'json' ? json.sidecarPath(target) : '';
  const fileOpts = { ...options, removing: command === 'remove', sidecar: sidecarName };
  const res = await updateFile(target, transform({ command, format, file: target, owner }, entries, sidecarName, out), fileOpts);
  if (command === 'write') {
    const p = out.written as NonNullable<Planned['written']>;
    const extra = [
      p.unchanged.length ? `${p.unchanged.length} unchanged` : '',
      p.dropped.length ? `${entriesWord(p.dropped.length)} no longer wanted removed` : '',
      res.existed || !res.changed ? '' : 'file created',
    ].filter(Boolean).map((x) => `, ${x}`).join('');
    return `wrote ${entriesWord(entries.size)} to ${target} (${p.updated.length} updated, ${p.added.length} added${extra})`;
  }
  const p = out.removed as NonNullable<Planned['removed']>;
  const notOurs = p.notOurs.length ? `, ${p.notOurs.length} not ours left in place` : '';
  let note = '';
  if (!res.existed) {note = ', file does not exist';} else if (p.noBlock) {note = `; no managed block of owner ${owner} in it, nothing changed`;} else if (p.noSidecar) {
    // The sidecar was deleted: members this tool wrote (keys among them) may be left, unnamed.
    // Not a failure (a destroy must go on), but said on stderr too.
    note = `; ${sidecarName} is missing, so nothing records which members owner ${owner} wrote: nothing changed, and members this tool wrote may still be in the file; delete them by hand`;
    options.warn(`warning: ${sidecarName}, the record of the members this tool wrote to ${target}, is missing: nothing was removed for owner ${owner}, ` +
      `and members this tool wrote (their names are unknown without the record) may still be in ${target}, with keys; delete them by hand`);
  } else if (p.noRecord) {note = `; ${sidecarName} records no entries of owner ${owner}, nothing changed`;} else if (res.deleted) {note = ', file deleted: this tool had created it';}
  if (p.keptLines) {
    const defining = p.keptNames && p.keptNames.length > 0 ? ` (defining ${p.keptNames.join(', ')})` : '';
    note += `; ${p.keptLines === 1 ? '1 line' : `${p.keptLines} lines`} inside the managed block of owner ${owner} that its record does not name ` +
      `${p.keptLines === 1 ? 'was' : 'were'} kept, and so were the block's markers${defining}`;
  }
  if (p.unrecorded && p.unrecorded.length > 0) {
    // The record line was removed by hand: what is left may hold a key.
    const left = `${entriesWord(p.unrecorded.length)} in it ${p.unrecorded.length === 1 ? 'was' : 'were'} left: ${p.unrecorded.join(', ')}; delete the ones this tool wrote by hand`;
    note += `; the managed block of owner ${owner} has no record line (# ${dotenv.TOOL} entries: ...), so ${left}`;
    options.warn(`warning: the managed block of owner ${owner} in ${target} has no record line, so ${left}`);
  }
  return `removed ${entriesWord(p.removed.length)} from ${target} (${p.absent.length} not present${notOurs}${note})`;
}

/**
 * remove-dropped: removes owner's entries from each file of `files` that `keep` does not list (a line
 * each), except one whose target `keep` lists: that target's replaced registration's destroy cleans it.
 */
export async function removeDropped(owner: string, files: FileRecord[], keep: FileRecord[], fileOpts: { warn: (message: string) => void }) {
  const kept = new Set(keep.map((f) => `${f.format}:${f.file}`));
  const dropped = files.filter((f) => !kept.has(`${f.format}:${f.file}`));
  const configured = new Set(keep.map((f) => f.target).filter((t) => t !== undefined));
  const lines = [];
  const failed = [];
  for (const f of dropped) {
    if (f.target !== undefined && configured.has(f.target)) {
      lines.push(`${f.file}: left to ${f.target}, whose replaced registration takes owner ${owner}'s entries out of it`);
      continue;
    }
    try {
      lines.push(await apply({ command: 'remove', format: f.format, file: f.file, owner }, new Map(), fileOpts));
    } catch (err) {
      if (!(err instanceof RuntimeError)) throw err;
      failed.push(err.message);
    }
  }
  if (failed.length > 0) {
    // The others are done; Terraform runs this again at the next deploy.
    throw new RuntimeError(`${failed.join('; ')}${lines.length ? ` (done: ${lines.length} other file${lines.length === 1 ? '' : 's'})` : ''}`, RUN);
  }
  return dropped.length === 0 ? [`no file dropped by owner ${owner}: nothing to clean up`] : lines;
}
