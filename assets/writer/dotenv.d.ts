/** Line-preserving dotenv editing with owner blocks (see dotenv.js for the grammar and the markers). */

export declare const TOOL: 'cdktf-qdrant-cluster-access';

/** A refusal: names the line (when there is one), never a value. */
export declare class DotenvError extends Error {
  readonly line?: number;
}

export interface DotenvItem {
  readonly kind: 'blank' | 'comment' | 'assign';
  /** The exact original text, line terminator included. */
  readonly raw: string;
  readonly line: number;
  readonly endLine: number;
  readonly eol: '' | '\n' | '\r\n' | '\r';
  readonly key?: string;
}

export interface DotenvModel {
  readonly bom: '' | '\ufeff';
  /** The line terminator that ends the file's first item, outside any quoted value ('\n' when none does). */
  readonly eol: string;
  readonly items: DotenvItem[];
}

export interface OwnerOptions {
  readonly owner: string;
}

export interface RemoveOptions extends OwnerOptions {
  /** Also remove every name the block's `# cdktf-qdrant-cluster-access entries:` record holds for owner. */
  readonly all?: boolean;
}

export interface MergePlan {
  /** The new text; null when there was no file and nothing to write. */
  readonly text: string | null;
  readonly added: string[];
  readonly updated: string[];
  readonly unchanged: string[];
  /** Recorded for owner, no longer given: their lines were dropped from the block. */
  readonly dropped: string[];
}

export interface RemovePlan {
  readonly text: string | null;
  /** Removed from owner's block. */
  readonly removed: string[];
  /** Defined in the file, but not in owner's block: left in place. */
  readonly notOurs: string[];
  readonly absent: string[];
  /** The file has no block of owner: nothing changes. */
  readonly noBlock: boolean;
  /** With `all` and no names given, when the block has no record line: the names it defines, left in place. */
  readonly unrecorded: string[];
  /** This tool created the file and nothing but blank lines is left: delete it. */
  readonly deleteFile: boolean;
  /** Lines inside owner's block that its record does not name, once no recorded name is left: they, the markers and the record line stay. */
  readonly keptLines: number;
  /** The names those kept lines define. */
  readonly keptNames: string[];
}

/** opts.written: the text is what planMerge would write (an error then blames the entries of this write). */
export declare function parseDotenv(text: string, opts?: { written?: boolean }): DotenvModel;
/** The value as written after NAME=, read back unchanged by the dotenv package and python-dotenv. */
export declare function formatValue(value: string): string;
/** Sets owner's entries to exactly `entries`. `text` null: the file does not exist (the block then records that this tool created it). */
export declare function planMerge(text: string | null, entries: Record<string, string>, opts: OwnerOptions): MergePlan;
export declare function planRemove(text: string | null, names: string[], opts: RemoveOptions): RemovePlan;
export declare function mergeEntries(text: string | null, entries: Record<string, string>, opts: OwnerOptions): string | null;
export declare function removeEntries(text: string | null, names: string[], opts: RemoveOptions): string | null;
export declare function startMarker(owner: string, created?: boolean): string;
export declare function endMarker(owner: string): string;
/** The block's record of the names owner wrote: `# cdktf-qdrant-cluster-access entries: A B C` (sorted). */
export declare function recordLine(names: Iterable<string>): string;
