import { names } from './runtime';

/**
 * A path or name placed in the stack: "${" and "%{" are Terraform expressions, a control character
 * breaks a command line. Refused at synth: at deploy it would fail deploy and destroy alike.
 */
export function terraformLiteralProblem(value: string): string | undefined {
  if (/[$%]\{/.test(value)) return 'holds "${" or "%{"';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'holds a control character';
  return undefined;
}

/**
 * The owner of a ClusterAccess's entries in a file: its path, `<path>@<workspace>` outside the
 * default workspace, so that two workspaces' states never share a block. A workspace name that
 * does not fit the owner rule (assets/runtime/names.ts) is replaced by a hash.
 */
export function stateOwner(path: string): string {
  const ws = 'terraform.workspace';
  const base = names.workspaceOwnerBase(path);
  const room = names.MAX_OWNER_LENGTH - 1 - base.length;
  const usable = `can(regex("^[${names.WORKSPACE_NAME_CHARS}]{1,${room}}$", ${ws}))`;
  const workspace = `${usable} ? ${ws} : substr(sha256(${ws}), 0, 16)`;
  if (base === path) return `${path}\${${ws} == "default" ? "" : format("@%s", ${workspace})}`;
  return `\${${ws} == "default" ? "${names.defaultWorkspaceOwner(path)}" : format("${base}@%s", ${workspace})}`;
}
