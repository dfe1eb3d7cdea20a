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
