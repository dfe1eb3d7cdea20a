/**
 * `Files`: the record of the files a `ClusterAccess` writes to. A file that drops out would keep
 * its entries (Terraform runs no destroy step for a removed Registration): a change of the list
 * replaces this resource, whose destroy step removes the owner's entries from files no longer
 * listed. That runs before the checks (a deposed object's destroy cannot wait). A file whose
 * target is still configured (the project moved) is left to that target's Registration.
 */
import * as path from 'path';
import { Construct } from 'constructs';
import { FileTarget } from '../secret-target';
import { NullResource, localExec } from './null-resource';
import { CLI, names, protocol } from './runtime';
import { stateOwner, terraformLiteralProblem } from './stack-strings';
import { StackSupport } from './stack-support';
import type { bindSecretTargets } from './target-binding';

/** Adds the `Files` record under `access`, listing the file targets as they were bound. */
export function recordFiles(access: Construct, bound: ReturnType<typeof bindSecretTargets>['bound']): void {
  const files = bound.filter((b): b is { target: FileTarget; path: string } => b.target instanceof FileTarget)
    .map((b) => ({ file: path.resolve(b.target.path), format: b.target.format, target: b.path }))
    .sort((a, b) => (`${a.format}:${a.file}` < `${b.format}:${b.file}` ? -1 : 1));
  // Both are reported by the targets.
  if (!names.isOwnerPath(access.node.path) || files.some((f) => terraformLiteralProblem(f.file))) return;
  const support = StackSupport.of(access);
  support.useProvider('null');
  const listed = JSON.stringify(files);
  const remove = protocol.invocation('remove-dropped', { owner: '${self.triggers.owner}' }, `${support.runtime.path}/${CLI.writer}`);
  new NullResource(access, 'Files', {
    triggers: { owner: stateOwner(access.node.path), files: listed },
    provisioners: [localExec(remove, { [protocol.WRITER_ENV.files]: '${self.triggers.files}', [protocol.WRITER_ENV.keepFiles]: listed }, 'destroy')],
  });
}

