/**
 * The only code that writes the setup guide to disk. Not exported from the package.
 *
 * After the stack's own synthesis (aspects, validations, `cdk.tf.json`), the guide of every
 * `ClusterAccess` in the stack is written next to `cdk.tf.json`, and copied to each access's
 * `outputPath`. This works with `app.synth()`, `cdktf synth` and `Testing.fullSynth()`, and needs
 * no internal cdktf API (`addCustomSynthesis` is documented as framework-only).
 *
 * An `outputPath` is checked by a validation of its access, reported with all other errors: a
 * token, a directory, or a file that another guide of the app claimed first is refused. The copy
 * of a path that fails the check is not written, even when validation is skipped.
 */
import * as fs from 'fs';
import * as path from 'path';
import { TerraformStack, Token } from 'cdktf';
import { IConstruct } from 'constructs';
import type { ClusterAccess } from '../cluster-access';
import { GUIDE_FILE_NAME } from './markdown';
import { renderAccessGuide, renderStackGuide } from './render';
import { q } from '../private/errors';
import { CLUSTER_ACCESS_SYMBOL } from '../private/schemas';
import { AppSupport, StackSupport, fileIdentity } from '../private/stack-support';

/** Registers the guide of an access's stack (once per stack; the accesses are found at synth). */
export function registerSetupGuide(access: ClusterAccess): void {
  const stack = TerraformStack.of(access);
  // Reported with every other validation error, at the access's path, before anything is written.
  access.node.addValidation({ validate: () => outputPathProblems(access) });
  StackSupport.of(access).afterSynth('setup-guide', (dir) => {
    // In construct-tree order, which is creation order among siblings: deterministic.
    const accesses = guidesIn(stack);
    if (accesses.length === 0) return;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, GUIDE_FILE_NAME), renderStackGuide(accesses));
    for (const a of accesses) {
      // With validation skipped, a path that failed it is not written either (nor one claimed first by another guide).
      if (a.setupGuideOptions.outputPath === undefined || outputPathProblems(a).length > 0) continue;
      const target = path.resolve(a.setupGuideOptions.outputPath);
      // The validation cannot see a file target of a stack synthesized later (its targets are bound
      // then): whatever the order, a file that is not a guide is never overwritten.
      const refusal = notAGuide(target);
      if (refusal !== undefined) throw new Error(`[${a.node.path}] setupGuide.outputPath ${q(a.setupGuideOptions.outputPath)} ${refusal}`);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, renderAccessGuide(a));
    }
  });
}

/** The accesses under `scope` whose guide is written, in construct-tree order. */
function guidesIn(scope: IConstruct): ClusterAccess[] {
  return scope.node.findAll().filter((c) => CLUSTER_ACCESS_SYMBOL in c)
    .map((c) => c as unknown as ClusterAccess)
    .filter((a) => a.setupGuideOptions.enabled !== false);
}

/**
 * What is wrong with an access's `outputPath`: the copy is written at synth, so the path must be
 * plain text, must not be a directory, and must be no other guide's copy in the whole app (the
 * last one written would silently win). A wrong type is the props schema's to report.
 */
function outputPathProblems(access: ClusterAccess): string[] {
  const p = access.setupGuideOptions.outputPath;
  if (typeof p !== 'string') return [];
  const shown = `setupGuide.outputPath ${q(p)}`;
  const example = (dir: string) => q(`${dir.replace(/[\\/]+$/, '') || '.'}/${GUIDE_FILE_NAME}`);
  if (Token.isUnresolved(p) || p.includes('${')) {
    return [`${shown} is a token or holds "\${": the guide is written at synth, when nothing has a value yet; pass a plain path such as ${example('docs')}`];
  }
  if (p === '' || /[\\/]$/.test(p)) return [`${shown} names a directory; pass the path of a file, such as ${example(p || 'docs')}`];
  const mine = fileIdentity(path.resolve(p));
  if (isDirectory(mine)) return [`${shown} is a directory; pass the path of a file, such as ${example(p)}`];
  const first = guidesIn(access.node.root).find((a) => typeof a.setupGuideOptions.outputPath === 'string'
    && !Token.isUnresolved(a.setupGuideOptions.outputPath) && fileIdentity(path.resolve(a.setupGuideOptions.outputPath)) === mine);
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

