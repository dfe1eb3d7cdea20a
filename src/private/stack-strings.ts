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
 * construct path in the default workspace (as ever), `<path>@<workspace>` in another. Two
 * workspaces of one stack are two states writing the same files: with one owner, each deploy
 * overwrote the other's block and a destroy in one removed both's entries. With an owner each,
 * the second to write names the first one's block in its refusal, and a destroy takes out only
 * its own. (The owner is validated as a literal at synth; the writer checks the whole at deploy.)
 */
export function stateOwner(owner: string): string {
  return `${owner}\${terraform.workspace == "default" ? "" : format("@%s", terraform.workspace)}`;
}
