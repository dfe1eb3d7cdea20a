/**
 * Read-modify-write of one small text file, and an optional sidecar, under one lock (target.ts reads,
 * commit.ts commits, lock.ts locks). Errors are one line, never with contents; the target is unchanged.
 */
import { dirname, resolve } from 'node:path';
import { checkpoint, CommitConfig, ownerChange, removeFile, replaceFile, rootChown } from './commit';
import { REFUSED } from './entries';
import { Lock, acquireLock, cleanDeadTemps, releaseLock } from './lock';
import { ReadFile, Snapshot, changedMessage, checkKind, checkTarget, directoryProblem, lstatOrNull, MAX_BYTES, modeString, readText, shellWord } from './target';
import { RuntimeError, codeOf, messageOf } from '../runtime/errors';

/** Returned by a transform: delete the file. */
export const DELETE: unique symbol = Symbol.for('cdktf-qdrant-cluster-access.writer.delete') as never;
/** What a transform returns for a file: its new text, null (leave it alone) or DELETE. */
export type Next = string | null | typeof DELETE;

/** What a transform with a sidecar returns: `sidecarFirst` says which file is committed first. */
export interface SidecarPlan {
  readonly text: Next;
  readonly sidecar?: Next;
  readonly sidecarFirst: boolean;
  readonly sidecarAfter?: string | null;
}

const DEFAULTS = { lockTimeoutMs: 15000, staleLockMs: 30000, maxBytes: MAX_BYTES };

/** updateFile's options; warnings and notes go to `warn`, one line each (default: stderr). */
export type UpdateOptions = Partial<typeof DEFAULTS> & {
  readonly warn?: (message: string) => void;
  readonly removing?: boolean;
  readonly sidecar?: string;
  readonly testHooks?: CommitConfig['hooks'];
};
/** How many times the target is read and planned when another program keeps changing it. */
const CHANGE_ATTEMPTS = 4;
/** The target changed after a sidecar was committed and that sidecar could not be put back: no new plan may be made on it. */
const CHANGED_FOR_GOOD = 'ECHANGED_FINAL';

type Transform = (text: string | null, sidecarText: string | null) => Next | SidecarPlan;
type Options = typeof DEFAULTS & UpdateOptions & { warn: (message: string) => void };

/** The plan of a transform, or its refusal as the writer's message. */
function planOf(file: string, transform: Transform, side: string | null, text: string | null, sideText: string | null): SidecarPlan {
  try {
    return side ? transform(text, sideText) as SidecarPlan : { text: (transform as (text: string | null) => Next)(text), sidecarFirst: false };
  } catch (err) {
    throw new RuntimeError(`refusing to change ${file}: ${messageOf(err)}; the file was not changed`, REFUSED, { cause: err });
  }
}

/**
 * Under the target's lock (after removing a dead writer's leftovers), reads the target and commits
 * what transform(text | null) returns: new text, null (leave it) or DELETE; with opts.sidecar,
 * transform(text, sidecarText) returns a SidecarPlan. A throwing transform changes nothing; a text
 * over maxBytes and larger than the file is refused (no later run could read it). Another program's
 * write after the read (unless it keeps size and times) starts the work over, up to CHANGE_ATTEMPTS
 * times. Removing, a missing directory means no file (another machine's path): no lock is taken.
 */
export async function updateFile(file: string, transform: Transform, options: UpdateOptions = {}) {
  const said = new Set<string>();
  const warn = options.warn || ((msg: string) => process.stderr.write(msg + '\n'));
  // Called at most once with each message: a re-read must not repeat its warnings.
  const once = (msg: string) => {
    if (!said.has(msg)) warn(msg);
    said.add(msg);
  };
  const opts: Options = { ...DEFAULTS, ...options, warn: once };
  const side = opts.sidecar || null;
  const noDirectory = directoryProblem(file);
  if (noDirectory && opts.removing) return withoutDirectory(file, transform, side, noDirectory, opts.warn);
  checkTarget(file);
  const lock = await acquireLock(file, opts, opts.warn);
  try {
    cleanDeadTemps(side ? [file, side] : [file], opts.warn);
    await checkpoint();
    for (let attempt = 1; ; attempt++) {
      try {
        return await updateOnce(file, transform, opts, side, lock);
      } catch (err) {
        if (codeOf(err) !== 'ECHANGED' && codeOf(err) !== CHANGED_FOR_GOOD) throw err;
        if (codeOf(err) === CHANGED_FOR_GOOD || attempt >= CHANGE_ATTEMPTS) throw new RuntimeError(changedMessage(file, attempt, opts.removing), 'ECHANGED', { cause: err });
        await new Promise((done) => setTimeout(done, 10 * attempt));
      }
    }
  } finally {
    releaseLock(lock);
  }
}

/** One read, plan and commit under the lock; ECHANGED (nothing changed) when another program wrote the target. */
async function updateOnce(file: string, transform: Transform, opts: Options, side: string | null, lock: Lock) {
  const { warn } = opts;
  const st = checkTarget(file); // again, under the lock
  const cur = st ? readText(file, st, opts.maxBytes) : null;
  const sst = side ? lstatOrNull(side) : null;
  if (sst) checkKind(side as string, sst);
  const sideCur = sst ? readText(side as string, sst, opts.maxBytes) : null;
  const plan = planOf(file, transform, side, cur ? cur.text : null, sideCur ? sideCur.text : null);
  // No file may grow past what a read accepts (a later run could not remove our entries from it).
  for (const [p, next, before] of [[file, plan.text, cur], [side, plan.sidecar, sideCur], [side, plan.sidecarAfter, sideCur]] as const) {
    if (typeof next !== 'string') continue;
    const bytes = Buffer.byteLength(next, 'utf8');
    const now = before ? before.stat.size : 0;
    if (bytes > opts.maxBytes && bytes > now) {
      const was = before ? `it is ${now} bytes now` : 'it does not exist yet';
      throw new RuntimeError(`refusing to change ${p}: the new text would be ${bytes} bytes, over the bound of ${opts.maxBytes} bytes for a file of keys (${was}); move other content out of this file or write the keys to another file; the file was not changed`, 'ETOOBIG');
    }
  }
  // `read`: the snapshot the target must still match (undefined: the sidecar, only ours, locked).
  const step = (p: string, cur0: ReadFile | null, next: Next | undefined, config: () => Omit<CommitConfig, 'lock' | 'label'>, read?: Snapshot | null) => {
    if (next == null) return null;
    if (next === DELETE) return cur0 ? () => removeFile(p, cur0.stat, lock, file, warn, read) : null;
    if (cur0 && next === cur0.text) return null;
    return () => replaceFile(p, next, { ...config(), lock, label: file, read }, warn);
  };
  const targetStep = step(file, cur, plan.text, () => ({
    mode: cur ? cur.stat.mode & 0o7777 : 0o600,
    ...ownerChange(file, cur && cur.stat, warn),
    hooks: opts.testHooks,
  }), cur ? cur.snap : null);
  // The sidecar belongs with the target: 0600 always, and (as root) the target's owner.
  const sideCommit: CommitConfig = {
    mode: 0o600,
    chown: rootChown(cur && cur.stat),
    lock,
    label: file,
  };
  const sideStep = side ? step(side, sideCur, plan.sidecar, () => sideCommit) : null;
  // A second sidecar text, committed last (a write that drops names: see json.ts).
  const sideBefore = plan.sidecar == null ? (sideCur ? sideCur.text : null) : plan.sidecar;
  const after = plan.sidecarAfter;
  const afterStep = side && typeof after === 'string' && after !== sideBefore ? () => replaceFile(side, after, sideCommit, warn) : null;
  // Not when removing: the file is left without our keys.
  if (targetStep && !opts.removing && plan.text !== DELETE && cur && (cur.stat.mode & 0o004)) {
    warn(`warning: ${file} is readable by all users (mode ${modeString(cur.stat.mode)}) and holds API keys; consider chmod 600 ${shellWord(file)}`);
  }
  // The target not replaced after its sidecar was: the sidecar is put back, or a member the user
  // adds later under a name it records would count as ours. Not after a lost lock (it may be
  // another writer's now). A new plan needs the sidecar as it was: without it, none.
  const targetAfterSide = side && sideStep && targetStep && (async () => {
    try {
      await targetStep();
    } catch (err) {
      if (codeOf(err) !== 'ELOCKLOST' && !(await restoreSidecar(side, sideCur, sideCommit, warn)) && codeOf(err) === 'ECHANGED') {
        throw new RuntimeError(messageOf(err), CHANGED_FOR_GOOD, { cause: err });
      }
      throw err;
    }
  });
  const steps = plan.sidecarFirst ? [sideStep, targetAfterSide || targetStep, afterStep] : [targetStep, sideStep, afterStep];
  for (const s of steps) if (s) await s();
  return { existed: Boolean(st), changed: Boolean(targetStep), deleted: Boolean(targetStep) && plan.text === DELETE };
}

/** The file's directory is missing: nothing to do if the transform leaves it so, else `problem`. */
function withoutDirectory(file: string, transform: Transform, side: string | null, problem: RuntimeError, warn: (message: string) => void) {
  const dir = dirname(resolve(file));
  // A sidecar elsewhere may exist: not judged here.
  if (side && dirname(resolve(side)) !== dir) throw problem;
  const plan = planOf(file, transform, side, null, null);
  const none = (x: Next | undefined) => x == null || x === DELETE;
  if (!none(plan.text) || (side && (!none(plan.sidecar) || typeof plan.sidecarAfter === 'string'))) throw problem;
  warn(`nothing to remove from ${file}: its directory ${dir} does not exist`);
  return { existed: false, changed: false, deleted: false };
}

/** Puts the sidecar back as it was before this run; false (and a warning) when it cannot. */
async function restoreSidecar(side: string, before: ReadFile | null, config: CommitConfig, warn: (message: string) => void): Promise<boolean> {
  try {
    const now = before ? null : lstatOrNull(side);
    if (before) await replaceFile(side, before.text, config, warn);
    else if (now) await removeFile(side, now, config.lock, config.label, warn);
    return true;
  } catch (err) {
    warn(`warning: could not put ${side} back as it was (${codeOf(err) || messageOf(err)}); it may record names that ${config.label} does not hold`);
    return false;
  }
}
