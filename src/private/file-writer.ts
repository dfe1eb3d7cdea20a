/**
 * The writer (assets/writer) as the file targets run it (`SecretTarget.dotenv()` and
 * `SecretTarget.json()`, secret-target.ts): it merges the entries into a file at deploy and takes
 * them out again at destroy. Not exported.
 *
 * Two `null_resource`s per file and `ClusterAccess`:
 * - `Write` waits for the health checks of the target's keys, then sets the owner's entries in
 *   the file to exactly these (names it wrote before and no longer wants are dropped; the file
 *   records what each owner wrote, see assets/writer/cli.js). Its triggers hold a hash of the
 *   names and values, so any change to them replaces it; it has no destroy step, so a rotation or
 *   a rename never removes the entries first: a failed check leaves the file as it was. An
 *   ephemeral key stands in that hash by its keyVersion; without one, the write runs on every
 *   deploy (private/ephemeral.ts), and a guard of its own compares its TF_VAR_... first. Its
 *   writer reads the entries, however many, from a file of the stack (input-file.ts), where a key
 *   is only named: its value is in the environment.
 * - `Registration` is created only after a write succeeded (it depends on `Write`). Its identity
 *   is the file, the format and the owner, nothing else: the order or the set of names never
 *   replaces it. Its destroy step removes everything the owner wrote to the file. A deploy that
 *   failed before writing leaves no registration, so its destroy touches nothing.
 *
 * The file in the triggers is absolute: a deploy from another checkout or machine with the same
 * state replaces both, and the destroy step runs for the previous path on this machine. Where
 * that directory does not exist the writer has nothing to remove (file.js), so the deploy goes on
 * and writes the new path. (Relative triggers would replace every deployed registration.)
 *
 * Invariant: Registration's triggers are a subset of Write's (same keys, same values), so
 * Registration is never replaced (its destroy removing the entries) without Write being replaced
 * too, and Write always runs after that removal and writes the entries again.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Fn, ITerraformDependable, Lazy, Token } from 'cdktf';
import { Construct } from 'constructs';
import { everyDeploy, keyGuard, standIn } from './ephemeral';
import { errors } from './errors';
import { DEPLOY_COMMAND_OPTION } from './framework';
import { inputFile } from './input-file';
import { NullResource } from './null-resource';
import { CLI, fileNameProblem, protocol } from './runtime';
import { stateOwner, terraformLiteralProblem } from './stack-strings';
import { StackSupport } from './stack-support';

/** A key that Terraform reads from a variable: the writer reads the same `TF_VAR_...`. */
export interface InheritedKey {
  /** The `TF_VAR_...` that holds the key (a local-exec provisioner inherits it). */
  readonly environmentVariable: string;
  /** The sha256 of the value Terraform uses, which the writer compares (-var and .tfvars files win over TF_VAR_...). */
  readonly sha256: string;
}

/** One entry as the writer receives it. */
export interface WriterEntry {
  readonly name: string;
  /** Text, or a token that Terraform resolves (for a key, a sensitive reference). */
  readonly value: string;
  /** A key: it reaches the writer through the environment, never on its command line. */
  readonly sensitive: boolean;
  /** For a key from a variable: the writer reads it where Terraform does. */
  readonly inherited?: InheritedKey;
  /** The key of an ephemeral key: nothing derived from it may be stored. */
  readonly ephemeral?: boolean;
  /** Its keyVersion, if any. */
  readonly keyVersion?: number;
}

/** The file of a target, and whose entries it holds. */
export interface FileWrite {
  /** Absolute. */
  readonly file: string;
  readonly format: 'dotenv' | 'json';
  /** The construct path of the ClusterAccess (the state's owner adds the workspace). */
  readonly owner: string;
  readonly entries: readonly WriterEntry[];
  /** The health checks of the target's keys. */
  readonly dependsOn: ITerraformDependable[];
  /** The target's description, for messages. */
  readonly description: string;
}

/**
 * Adds `Write` and `Registration` under `scope` (see the header); returns `Write`, the resource
 * that stores the entries.
 */
export function writeFileEntries(scope: Construct, target: FileWrite): NullResource {
  const { file, format, entries } = target;
  const support = StackSupport.of(scope);
  support.useNullProvider();
  const cli = `${support.runtime.path}/${CLI.writer}`;

  // The values: plain text for the URLs; for a key, the name of the environment variable that
  // holds it (Terraform's own TF_VAR_..., or one the provisioner receives), never the key.
  // Maps: an entry's name is data, whatever it is (a plain object would take "__proto__" as its prototype).
  const plain = new Map<string, string>();
  const fromEnv = new Map<string, string>();
  // A key handed over by Terraform, once however many entries hold it: expression → variable.
  const secrets = new Map<string, string>();
  // For each TF_VAR_... read: the hash of Terraform's value, which the writer compares (as the check
  // does); for an ephemeral key, a guard ahead of the writer does.
  const hashes = new Map<string, string>();
  const guards = new Map<string, ReturnType<typeof keyGuard>>();
  for (const entry of entries) {
    const inherited = entry.inherited;
    if (inherited) {
      fromEnv.set(entry.name, inherited.environmentVariable);
      if (!entry.ephemeral) hashes.set(inherited.environmentVariable, inherited.sha256);
      else guards.set(inherited.environmentVariable, keyGuard(`${support.runtime.path}/${CLI.checker}`, inherited));
    } else if (entry.sensitive) {
      const variable = secrets.get(entry.value) ?? `QCA_SECRET_${secrets.size + 1}`;
      secrets.set(entry.value, variable);
      fromEnv.set(entry.name, variable);
    } else {
      plain.set(entry.name, entry.value);
    }
  }
  // The entries, however many, in a file of the stack (values from tokens in variables of their
  // own); the keys are only named there. Object.fromEntries makes each name an own property.
  const input = inputFile(scope, () => ({
    entries: Object.fromEntries(plain),
    entriesFromEnv: Object.fromEntries(fromEnv),
    ...(hashes.size > 0 ? { entriesSha256: Object.fromEntries(hashes) } : {}),
  }));
  const secretEnvironment = Object.fromEntries([...secrets].map(([expression, variable]) => [variable, expression]));
  scope.node.addValidation({
    validate: () => {
      const values = input.deployTimeValues() + secrets.size;
      if (values <= protocol.EXEC_LIMITS.deployTimeValues) return [];
      const urls = new Set([...plain.values()].filter((v) => Token.isUnresolved(v))).size;
      return [errors.target(target.description, errors.fileTooManyDeployValues(values, urls, values - urls, protocol.EXEC_LIMITS.deployTimeValues))];
    },
  });
  // The hint of a missing key names the deploy command.
  const owner = stateOwner(target.owner);
  const write = protocol.invocation('write', { file, format, owner, deployCommand: DEPLOY_COMMAND_OPTION }, cli);
  // Sorted by name, so that the order of the keys and clusters does not even show in the text.
  const values = Object.fromEntries(entries.map((e) => [e.name, e.ephemeral ? standIn(e.keyVersion) : e.value])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  // What identifies the registration; Write's triggers hold every one of these (see the header).
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
          ...secretEnvironment,
          [protocol.WRITER_ENV.entriesFile]: input.path,
          [protocol.WRITER_ENV.entriesFileSha256]: input.sha256,
          ...input.environment(),
        }),
      }) as unknown as Record<string, string>,
    }],
  });

  // A destroy-time provisioner may only read `self`: everything it needs is in the triggers
  // (none of it secret). The CLI path is literal: on a replacement, Terraform runs the current
  // configuration's provisioner, whose runtime exists. The writer removes every entry the file
  // records for the owner (its entries variable names none besides).
  const remove = protocol.invocation('remove', { file: '${self.triggers.file}', format: '${self.triggers.format}', owner: '${self.triggers.owner}' }, cli);
  new NullResource(scope, 'Registration', {
    triggers: identity,
    dependsOn: [writer],
    provisioners: [{
      type: 'local-exec',
      when: 'destroy',
      command: remove.command,
      environment: { ...remove.environment, [protocol.WRITER_ENV.entries]: '{}' },
    }],
  });
  return writer;
}

/** Problems of a file target's path (as given) that synth can see: what the writer would refuse at deploy. */
export function filePathProblems(p: string, format: 'dotenv' | 'json'): string[] {
  if (Token.isUnresolved(p)) return [errors.pathToken()];
  if (p.trim() === '') return [errors.pathEmpty()];
  const resolved = path.resolve(p);
  // The working directory is part of the path, and may hold what Terraform or a shell reads.
  const unsafe = terraformLiteralProblem(resolved);
  if (unsafe) return [errors.unsafePath('the file', resolved)];
  // The writer's rule: the names it makes next to the file must fit (its lock, temp and record files).
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
