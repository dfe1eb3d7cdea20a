import { names } from './runtime';

/**
 * Strings the library builds at synth and places in the stack (paths, file names): Terraform reads
 * "${" and "%{" in them as expressions, and a control character breaks a command line or a log
 * line. Such a string is refused at synth, because at deploy it would fail the deploy and the
 * destroy alike, and leave the resource stuck in the state. Not exported.
 */
export function terraformLiteralProblem(value: string): string | undefined {
  if (/[$%]\{/.test(value)) return 'holds "${" or "%{"';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'holds a control character';
  return undefined;
}

/**
 * The owner of a ClusterAccess's entries in a file, as the deploy's Terraform state knows it: the
 * construct path in the default workspace, `<path>@<workspace>` in another. Two workspaces of
 * one stack are two states writing the same files: with one owner, each deploy would overwrite
 * the other's block and a destroy in one would remove both's entries. With an owner each,
 * the second to write names the first one's block in its refusal, and a destroy takes out only
 * its own.
 *
 * Owners are at most 128 characters of A-Z a-z 0-9 _ . : @ / + - (assets/runtime/names.ts, which
 * owns the rule and how a long path is shortened), which Terraform's workspace names need not
 * be: a name with other characters, or too long for the room left after the path, is replaced by
 * 16 hex digits of its SHA-256. A path too long to leave room for that (or, in the default
 * workspace, too long to be an owner) stands as its first 80 characters, "+" and a hash of it.
 * The path is validated at synth (names.isOwnerPath).
 */
export function stateOwner(path: string): string {
  const ws = 'terraform.workspace';
  const base = names.workspaceOwnerBase(path);
  const room = names.MAX_OWNER_LENGTH - 1 - base.length;
  const usable = `can(regex("^[${names.WORKSPACE_NAME_CHARS}]{1,${room}}$", ${ws}))`;
  const workspace = `${usable} ? ${ws} : substr(sha256(${ws}), 0, 16)`;
  // The owners of paths that fit are written as they always were (the state holds them).
  if (base === path) return `${path}\${${ws} == "default" ? "" : format("@%s", ${workspace})}`;
  return `\${${ws} == "default" ? "${names.defaultWorkspaceOwner(path)}" : format("${base}@%s", ${workspace})}`;
}
