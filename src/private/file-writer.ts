/**
 * The file targets' writer (assets/writer) at deploy: two `null_resource`s per file and access.
 * - `Write` waits for the checks, then sets the owner's entries in the file to exactly these. Its
 *   triggers hash the names and values (an ephemeral key: its keyVersion, or every deploy); it has
 *   no destroy step, so a rotation never removes entries first and a failed check leaves the file.
 * - `Registration` (after a write succeeded) is the file, format and owner only; its destroy step
 *   removes all the owner wrote. Its triggers are a subset of Write's, so it is never replaced
 *   without Write running again after the removal.
 * The file in the triggers is absolute: a deploy from another checkout replaces both.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Fn, Lazy, Token } from 'cdktf';
import { Construct } from 'constructs';
import { everyDeploy, keyGuard, standIn } from './ephemeral';
import { errors } from './errors';
import { DEPLOY_COMMAND_OPTION } from './framework';
import { inputFile } from './input-file';
import { NullResource, localExec } from './null-resource';
import { CLI, fileNameProblem, protocol } from './runtime';
import { stateOwner, terraformLiteralProblem } from './stack-strings';
import { StackSupport } from './stack-support';
import type { SecretEntry, SecretTargetBindOptions } from '../secret-target';

/** A key Terraform reads from a variable: the writer reads the same `TF_VAR_...`, and compares its sha256 (or keyGuard does). */
export type InheritedKey = Parameters<typeof keyGuard>[1];

/**
 * Adds `Write` and `Registration` under `scope` for the entries of the ClusterAccess `owner` in the
 * absolute `file`; returns `Write`. A key reaches the writer through the environment, never its command line.
 */
export function writeFileEntries(scope: Construct, target: Pick<SecretTargetBindOptions, 'owner' | 'dependsOn'> & {
  readonly file: string;
  readonly format: 'dotenv' | 'json';
  readonly description: string;
  readonly entries: readonly (Pick<SecretEntry, 'name' | 'value' | 'sensitive' | 'ephemeral' | 'keyVersion'> & { readonly inherited?: InheritedKey })[];
}): NullResource {
  const { file, format, entries } = target;
  const support = StackSupport.of(scope);
  support.useProvider('null');
  const cli = `${support.runtime.path}/${CLI.writer}`;

  // URLs as text; a key as the name of the environment variable that holds it, never the key.
  // Maps: a name such as "__proto__" is data.
  const plain = new Map<string, string>();
  const fromEnv = new Map<string, string>();
  // A key handed over by Terraform, once however many entries hold it: expression → variable.
  const secrets = new Map<string, string>();
  // TF_VAR_... → the sha256 the writer compares; an ephemeral key's guard compares instead.
  const hashes = new Map<string, string>();
  const guards = new Map<string, ReturnType<typeof keyGuard>>();
  for (const entry of entries) {
    if (entry.inherited) {
      fromEnv.set(entry.name, entry.inherited.environmentVariable);
      if (!entry.ephemeral) hashes.set(entry.inherited.environmentVariable, entry.inherited.sha256);
      else guards.set(entry.inherited.environmentVariable, keyGuard(`${support.runtime.path}/${CLI.checker}`, entry.inherited));
    } else if (entry.sensitive) {
      const variable = secrets.get(entry.value) ?? `QCA_SECRET_${secrets.size + 1}`;
      secrets.set(entry.value, variable);
      fromEnv.set(entry.name, variable);
    } else {
      plain.set(entry.name, entry.value);
    }
  }
  // Object.fromEntries makes each name an own property.
  const input = inputFile(scope, () => ({
    entries: Object.fromEntries(plain),
    entriesFromEnv: Object.fromEntries(fromEnv),
    ...(hashes.size > 0 ? { entriesSha256: Object.fromEntries(hashes) } : {}),
  }));
  scope.node.addValidation({
    validate: () => {
      const values = input.deployTimeValues() + secrets.size;
      if (values <= protocol.EXEC_LIMITS.deployTimeValues) return [];
      const urls = new Set([...plain.values()].filter((v) => Token.isUnresolved(v))).size;
      return [errors.target(target.description, errors.fileTooManyDeployValues(values, urls, values - urls, protocol.EXEC_LIMITS.deployTimeValues))];
    },
  });
  const owner = stateOwner(target.owner);
  const write = protocol.invocation('write', { file, format, owner, deployCommand: DEPLOY_COMMAND_OPTION }, cli);
  // Sorted: the order of keys and clusters does not replace Write.
  const values = Object.fromEntries(entries.map((e) => [e.name, e.ephemeral ? standIn(e.keyVersion) : e.value])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const identity = { file, format, owner };
  const writer = new NullResource(scope, 'Write', {
    triggers: {
      values_sha256: Fn.sha256(Fn.jsonencode(values)),
      writer: support.runtime.assetHash,
      ...identity,
      ...(entries.some((e) => e.ephemeral && e.keyVersion === undefined) ? everyDeploy() : {}),
    },
    dependsOn: target.dependsOn,
    provisioners: [...guards.values(), {
      type: 'local-exec',
      command: write.command,
      environment: Lazy.anyValue({
        produce: () => ({
          ...write.environment,
          ...Object.fromEntries([...secrets].map(([expression, variable]) => [variable, expression])),
          [protocol.WRITER_ENV.entriesFile]: input.path,
          [protocol.WRITER_ENV.entriesFileSha256]: input.sha256,
          ...input.environment(),
        }),
      }) as unknown as Record<string, string>,
    }],
  });

  // A destroy-time provisioner may only read `self`: all it needs is in the (non-secret) triggers.
  // The CLI path is literal: a replacement runs the current configuration's, whose runtime exists.
  const remove = protocol.invocation('remove', { file: '${self.triggers.file}', format: '${self.triggers.format}', owner: '${self.triggers.owner}' }, cli);
  new NullResource(scope, 'Registration', {
    triggers: identity,
    dependsOn: [writer],
    provisioners: [localExec(remove, { [protocol.WRITER_ENV.entries]: '{}' }, 'destroy')],
  });
  return writer;
}

/** What the writer would refuse of a file target's path, as far as synth can see. */
export function filePathProblems(p: string, format: 'dotenv' | 'json'): string[] {
  if (Token.isUnresolved(p)) return [errors.pathToken()];
  if (p.trim() === '') return [errors.pathEmpty()];
  const resolved = path.resolve(p);
  if (terraformLiteralProblem(resolved)) return [errors.unsafePath('the file', resolved)];
  // The writer's rule: its lock, temp and record files next to the file must fit.
  const tooLong = fileNameProblem(resolved, format);
  if (tooLong) return [tooLong];
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(resolved);
  } catch {
    return []; // created at deploy; a missing directory is reported then, with the path
  }
  if (stat.isDirectory()) return [errors.pathIsDirectory(resolved, path.join(p, format === 'dotenv' ? '.env' : 'secrets.json'))];
  if (stat.isSymbolicLink()) return [errors.pathIsSymlink(resolved)];
  if (stat.isFile() && stat.nlink > 1) return [errors.pathIsHardLink(resolved, stat.nlink)];
  return [];
}
