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
 * Owners are at most 128 characters of A-Z a-z 0-9 _ . : @ / + - (runtime/names.js), which
 * Terraform's workspace names need not be: a name with other characters, or too long for the
 * room left after the path, is replaced by 16 hex digits of its SHA-256. (A path that leaves less
 * room than that keeps one owner for all workspaces; the path is validated at synth.)
 */
export function stateOwner(owner: string): string {
  const room = 127 - owner.length;
  if (room < 16) return owner;
  const ws = 'terraform.workspace';
  const usable = `can(regex("^[A-Za-z0-9_.:+-]{1,${room}}$", ${ws}))`;
  return `${owner}\${${ws} == "default" ? "" : format("@%s", ${usable} ? ${ws} : substr(sha256(${ws}), 0, 16))}`;
}
