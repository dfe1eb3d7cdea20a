/**
 * `SecretTarget.dotenv()` and `SecretTarget.json()`: the writer (assets/writer) merges the entries
 * into a file at deploy and takes them out again at destroy. Not exported.
 *
 * Two `null_resource`s per file and `ClusterAccess`:
 * - `Write` waits for the health checks of the target's keys, then merges the values. Its
 *   triggers hold a hash of the values, so a rotated key replaces it (and rewrites the entries in
 *   place); it has no destroy step, so a rotation never removes the entries first.
 * - `Registration` is created only after a write succeeded (it depends on `Write`) and knows the
 *   file, the format, the owner and the names; its destroy step removes what was written. A
 *   deploy that failed before writing leaves no registration, so its destroy touches nothing.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Fn, Token } from 'cdktf';
import { Construct } from 'constructs';
import { errors, q } from './errors';
import { DEPLOY_COMMAND } from './framework';
import { NullResource } from './null-resource';
import { checkStruct } from './props';
import { CLI, names, protocol } from './runtime';
import { FILE_SECRET_TARGET_OPTIONS } from './schemas';
import { terraformLiteralProblem } from './stack-strings';
import { AppSupport, StackSupport } from './stack-support';
import type { FileSecretTargetOptions, ISecretTarget, SecretTargetBindOptions, SecretTargetConfig } from '../secret-target';

export class FileTarget implements ISecretTarget {
  public readonly description: string;
  private readonly problems: string[];

  constructor(private readonly format: 'dotenv' | 'json', private readonly options: FileSecretTargetOptions) {
    this.problems = checkStruct(options, FILE_SECRET_TARGET_OPTIONS, `SecretTarget.${format}(options)`);
    // A value object with no scope: a wrong type is refused at once.
    if (this.problems.length > 0) throw new Error(this.problems.join('; '));
    this.description = `${format === 'dotenv' ? '.env' : 'JSON'} file ${q(options.path)}`;
  }

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    const problems = this.pathProblems();
    if (!names.isOwner(options.owner)) problems.push(errors.ownerInvalid(options.owner));
    const file = path.resolve(this.options.path);
    if (problems.length === 0) {
      problems.push(...AppSupport.of(scope).claimFile(fileIdentity(file), file, this.format, scope.node.path,
        options.entries.map((e) => ({ name: e.name, keyName: e.keyName }))));
    }
    if (problems.length > 0) {
      scope.node.addValidation({ validate: () => problems.map((p) => errors.target(this.description, p)) });
      return {};
    }

    const support = StackSupport.of(scope);
    support.useNullProvider();
    const cli = `${support.runtime.path}/${CLI.writer}`;

    // The values: plain text for the URLs; for a key, the name of the environment variable that
    // holds it (Terraform's own TF_VAR_..., or one the provisioner receives), never the key.
    const plain: Record<string, string> = {};
    const fromEnv: Record<string, string> = {};
    const secrets: Record<string, string> = {};
    for (const entry of options.entries) {
      if (entry.inheritedEnvironmentVariable) {
        fromEnv[entry.name] = entry.inheritedEnvironmentVariable;
      } else if (entry.sensitive) {
        const variable = `QCA_SECRET_${Object.keys(secrets).length + 1}`;
        secrets[variable] = entry.value;
        fromEnv[entry.name] = variable;
      } else {
        plain[entry.name] = entry.value;
      }
    }
    // The hint of a missing key names the deploy command (omitted when it is the runtime's default).
    const deployCommand = DEPLOY_COMMAND === protocol.CHECK_OPTIONS.deployCommand.default ? undefined : DEPLOY_COMMAND;
    const write = protocol.invocation('write', { file, format: this.format, owner: options.owner, deployCommand }, cli);
    const values = Object.fromEntries(options.entries.map((e) => [e.name, e.value]));
    const writer = new NullResource(scope, 'Write', {
      triggers: {
        values_sha256: Fn.sha256(Fn.jsonencode(values)),
        writer: support.runtime.assetHash,
        file,
        format: this.format,
        owner: options.owner,
      },
      dependsOn: options.dependsOn,
      provisioners: [{
        type: 'local-exec',
        command: write.command,
        environment: {
          ...write.environment,
          ...secrets,
          [protocol.WRITER_ENV.entries]: jsonText(plain),
          [protocol.WRITER_ENV.entriesFromEnv]: JSON.stringify(fromEnv),
        },
      }],
    });

    // A destroy-time provisioner may only read `self`: everything it needs is in the triggers
    // (none of it secret). The CLI path is literal: on a replacement, Terraform runs the current
    // configuration's provisioner, whose runtime exists.
    const remove = protocol.invocation('remove', { file: '${self.triggers.file}', format: '${self.triggers.format}', owner: '${self.triggers.owner}' }, cli);
    new NullResource(scope, 'Registration', {
      triggers: { file, format: this.format, owner: options.owner, names: JSON.stringify(options.entries.map((e) => e.name)) },
      dependsOn: [writer],
      provisioners: [{
        type: 'local-exec',
        when: 'destroy',
        command: remove.command,
        environment: { ...remove.environment, [protocol.WRITER_ENV.entries]: '${self.triggers.names}' },
      }],
    });
    return { dependables: [writer] };
  }

  private pathProblems(): string[] {
    const p = this.options.path;
    if (Token.isUnresolved(p)) return [errors.pathToken()];
    if (p.trim() === '') return [errors.pathEmpty()];
    const resolved = path.resolve(p);
    // The working directory is part of the path, and may hold what Terraform or a shell reads.
    const unsafe = terraformLiteralProblem(resolved);
    if (unsafe) return [errors.unsafePath('the file', resolved)];
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(resolved);
    } catch {
      return []; // created at deploy; a missing directory is reported then, with the path
    }
    if (stat.isDirectory()) return [errors.pathIsDirectory(resolved, path.join(p, this.format === 'dotenv' ? '.env' : 'secrets.json'))];
    if (stat.isSymbolicLink()) return [errors.pathIsSymlink(resolved)];
    return [];
  }
}

/** One file however it is spelled: the real path of its directory (symlinks resolved) and its name. */
function fileIdentity(file: string): string {
  let dir = path.dirname(file);
  try {
    dir = fs.realpathSync(dir);
  } catch {
    // a directory created later: its spelling is all there is
  }
  return path.join(dir, path.basename(file));
}

/** JSON text of a map whose values may be tokens (then Terraform encodes it at apply time). */
function jsonText(map: Record<string, string>): string {
  return Object.values(map).some((v) => Token.isUnresolved(v)) ? Fn.jsonencode(map) : JSON.stringify(map);
}
