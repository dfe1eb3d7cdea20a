/**
 * The only code that writes the setup guide to disk. Not exported from the package.
 *
 * After the stack's own synthesis (aspects, validations, `cdk.tf.json`), the guide of every
 * `ClusterAccess` in the stack is written next to `cdk.tf.json`, and copied to each access's
 * `outputPath`. This works with `app.synth()`, `cdktf synth` and `Testing.fullSynth()`, and needs
 * no internal cdktf API (`addCustomSynthesis` is documented as framework-only).
 *
 * An access registers its guide with its options and a function that builds its model; the
 * writer knows nothing else of it. The registration is kept on the access under a `Symbol.for`
 * key, so that the guides of a stack are found in construct-tree order, by any copy of the
 * package.
 *
 * An `outputPath` is checked by a validation of its access, reported with all other errors: a
 * token, a directory, or a file that another guide of the app claimed first is refused. The copy
 * of a path that fails the check is not written, even when validation is skipped.
 */
import * as fs from 'fs';
import * as path from 'path';
import { TerraformStack, Token } from 'cdktf';
import { IConstruct } from 'constructs';
import type { SetupGuideOptions } from './index';
import { GUIDE_FILE_NAME } from './markdown';
import type { GuideModel } from './model';
import { renderAccessGuide, renderStackGuide } from './render';
import { q } from '../private/errors';
import { AppSupport, StackSupport, fileIdentity } from '../private/stack-support';

/** What an access registers: its guide's options and how to build its model (at synth, when every key is known). */
interface Registration {
  readonly options: SetupGuideOptions;
  readonly model: () => GuideModel;
}

const REGISTRATION = Symbol.for('cdktf-qdrant-cluster-access.SetupGuide');

/**
 * Registers the guide of an access (a `ClusterAccess`), written with its stack's guide at synth
 * (the accesses of a stack are found then).
 */
export function registerSetupGuide(access: IConstruct, options: SetupGuideOptions, model: () => GuideModel): void {
  const registration: Registration = { options, model };
  Object.defineProperty(access, REGISTRATION, { value: registration });
  const stack = TerraformStack.of(access);
  // Reported with every other validation error, at the access's path, before anything is written.
  access.node.addValidation({ validate: () => outputPathProblems(access) });
  StackSupport.of(access).afterSynth('setup-guide', (dir) => {
    // In construct-tree order, which is creation order among siblings: deterministic.
    const accesses = guidesIn(stack);
    if (accesses.length === 0) return;
    const models = new Map(accesses.map((a) => [a, registrationOf(a).model()]));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, GUIDE_FILE_NAME), renderStackGuide([...models.values()]));
    for (const a of accesses) {
      const outputPath = registrationOf(a).options.outputPath;
      // With validation skipped, a path that failed it is not written either (nor one claimed first by another guide).
      if (outputPath === undefined || outputPathProblems(a).length > 0) continue;
      const target = path.resolve(outputPath);
      // The validation cannot see a file target of a stack synthesized later (its targets are bound
      // then): whatever the order, a file that is not a guide is never overwritten.
      const refusal = notAGuide(target);
      if (refusal !== undefined) throw new Error(`[${a.node.path}] setupGuide.outputPath ${q(outputPath)} ${refusal}`);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, renderAccessGuide(models.get(a)!));
    }
  });
}

function registrationOf(access: IConstruct): Registration {
  return (access as unknown as { [REGISTRATION]: Registration })[REGISTRATION];
}

/** The accesses under `scope` whose guide is written, in construct-tree order. */
function guidesIn(scope: IConstruct): IConstruct[] {
  return scope.node.findAll().filter((c) => REGISTRATION in c && registrationOf(c).options.enabled !== false);
}

/**
 * What is wrong with an access's `outputPath`: the copy is written at synth, so the path must be
 * plain text, must not be a directory, and must be no other guide's copy in the whole app (the
 * last one written would silently win). A wrong type is the props schema's to report.
 */
function outputPathProblems(access: IConstruct): string[] {
  const p = registrationOf(access).options.outputPath;
  if (typeof p !== 'string') return [];
  const shown = `setupGuide.outputPath ${q(p)}`;
  const example = (dir: string) => q(`${dir.replace(/[\\/]+$/, '') || '.'}/${GUIDE_FILE_NAME}`);
  if (Token.isUnresolved(p) || p.includes('${')) {
    return [`${shown} is a token or holds "\${": the guide is written at synth, when nothing has a value yet; pass a plain path such as ${example('docs')}`];
  }
  if (p === '' || /[\\/]$/.test(p)) return [`${shown} names a directory; pass the path of a file, such as ${example(p || 'docs')}`];
  const mine = fileIdentity(path.resolve(p));
  if (isDirectory(mine)) return [`${shown} is a directory; pass the path of a file, such as ${example(p)}`];
  const first = guidesIn(access.node.root).find((a) => {
    const other = registrationOf(a).options.outputPath;
    return typeof other === 'string' && !Token.isUnresolved(other) && fileIdentity(path.resolve(other)) === mine;
  });
  if (first !== undefined && first !== access) {
    return [`${shown} is also the outputPath of ${first.node.path}: each guide needs a file of its own; give one of them another outputPath`];
  }
  // The guide would overwrite the app's file (and the library's entries in it) at every synth.
  const target = AppSupport.of(access).secretFileOwner(mine);
  if (target !== undefined) {
    return [`${shown} is also a file secret target of ${target}: the guide would overwrite it at synth; give the guide another outputPath`];
  }
  return [];
}

/** What every guide says near its top (with either framework's package name). */
const GUIDE_MARK = /^Generated by [a-z]+-qdrant-cluster-access at synth: /m;

/** Why `file` must not be overwritten by a guide: it exists and is not one. */
function notAGuide(file: string): string | undefined {
  let head: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(4096);
      head = buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined; // no such file (a directory or an unreadable path fails at the write, as before)
  }
  if (GUIDE_MARK.test(head)) return undefined;
  return 'names a file that is not a setup guide (it lacks the "Generated by … at synth" line): the guide would overwrite it, ' +
    'so nothing was written there; give the guide another outputPath (a file secret target of another stack, say, is refused ' +
    'this way), or delete that file if it is yours to lose';
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

