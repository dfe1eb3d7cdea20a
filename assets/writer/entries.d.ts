/** Entry-name and owner checks shared by the store editors (see entries.js). */
export declare class EntryError extends Error {
  readonly name: 'EntryError';
}
/** Returns the owner, or throws EntryError. */
export declare function checkOwner(owner: unknown): string;
/** Returns the name, or throws EntryError. */
export declare function checkName(name: unknown): string;
