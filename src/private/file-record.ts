/**
 * The record of the files a `ClusterAccess` writes to, in one resource (`Files`). A file that drops
 * out (the last key writing to it removed, its target removed or moved to another file or format)
 * would keep the owner's entries otherwise: its Registration left the configuration, and Terraform runs no
 * destroy step for that. A change of the list replaces this resource, and the destroy step of
 * the old one runs the current writer with the old list (from the state) and the current one:
 * it takes the owner's entries out of each file that is no longer listed. That runs early in the
 * deploy, before the checks (Terraform runs no destroy step for the deposed object of a
 * create_before_destroy replacement, so it cannot wait for them); it only touches files that no
 * target of this ClusterAccess writes to any more. Created even without file targets and
 * checks, so that removing the last file target (or every key) still cleans up.
 *
 * Each file is listed with the path of the target that writes it. A dropped file whose target
 * is still configured (the same target, now for another absolute path: the project moved) is
 * left to that target's Registration, which this deploy replaces, so its destroy step removes
 * the entries: both removing them made the second find nothing, and warn for a JSON file that
 * the record of what it wrote was missing. Not exported.
 */
import * as path from 'path';
import { Construct } from 'constructs';
import { FileTarget } from '../secret-target';
import { NullResource } from './null-resource';
import { CLI, names, protocol } from './runtime';
import { stateOwner, terraformLiteralProblem } from './stack-strings';
import { StackSupport } from './stack-support';
import type { BoundTarget } from './target-binding';

/** Adds the `Files` record under `access`, listing the file targets as they were bound. */
export function recordFiles(access: Construct, bound: readonly BoundTarget[]): void {
  const files = bound.filter((b): b is { target: FileTarget; path: string } => b.target instanceof FileTarget)
    .map((b) => ({ file: path.resolve(b.target.path), format: b.target.format, target: b.path }))
    .sort((a, b) => (`${a.format}:${a.file}` < `${b.format}:${b.file}` ? -1 : 1));
  // Without a valid owner the file targets are refused; the writer would refuse this one at destroy.
  if (!names.isOwnerPath(access.node.path)) return;
  // A path Terraform or a shell would read as more than text is reported by its target.
  if (files.some((f) => terraformLiteralProblem(f.file))) return;
  const support = StackSupport.of(access);
  support.useNullProvider();
  const listed = JSON.stringify(files);
  const remove = protocol.invocation('remove-dropped', { owner: '${self.triggers.owner}' }, `${support.runtime.path}/${CLI.writer}`);
  new NullResource(access, 'Files', {
    triggers: { owner: stateOwner(access.node.path), files: listed },
    provisioners: [{
      type: 'local-exec',
      when: 'destroy',
      command: remove.command,
      environment: { ...remove.environment, [protocol.WRITER_ENV.files]: '${self.triggers.files}', [protocol.WRITER_ENV.keepFiles]: listed },
    }],
  });
}

