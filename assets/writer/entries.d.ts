/** Entry-name and owner checks shared by the store editors (see entries.js). */
export declare class EntryError extends Error {
  readonly name: 'EntryError';
}
/** Returns the owner, or throws EntryError. */
export declare function checkOwner(owner: unknown): string;
/** Returns the name, or throws EntryError. */
export declare function checkName(name: unknown): string;
/** Whether owners `a` and `b` are one ClusterAccess in two Terraform workspaces (`<path>` and `<path>@<workspace>`). */
export declare function otherWorkspace(a: string, b: string): boolean;
/** What a refusal says after naming the other workspace's owner, with the fix (starts with ", "). */
export declare function anotherWorkspace(owner: string): string;
