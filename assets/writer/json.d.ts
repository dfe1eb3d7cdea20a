/** Editing a JSON file's top-level object with ownership in a sidecar file (see json.js). */

export declare class JsonError extends Error {
  readonly line?: number;
}

/** `.qdrant-cluster-access`: the sidecar of `dir/name.json` is `dir/.name.json.qdrant-cluster-access`. */
export declare const SIDECAR_SUFFIX: string;

/** The parsed sidecar. It holds no values. */
export interface Sidecar {
  /** This tool created the target file. */
  readonly created: boolean;
  /** The target's exact text before the first write, when it had no member; else null. */
  readonly originalWhenEmpty: string | null;
  /** Per owner, the member names it wrote. */
  readonly owners: Record<string, string[]>;
}

export interface JsonOptions {
  readonly owner: string;
  /** How messages name the sidecar (its path). */
  readonly sidecarName?: string;
}

export interface JsonRemoveOptions extends JsonOptions {
  /** Also remove every member the sidecar records for owner. */
  readonly all?: boolean;
}

export interface JsonMergePlan {
  readonly text: string | null;
  /** Committed before the target: records the names of before and after. */
  readonly sidecar: Sidecar | null;
  /** Committed after the target when it differs (only the names after); else null. */
  readonly sidecarAfter: Sidecar | null;
  readonly added: string[];
  readonly updated: string[];
  readonly unchanged: string[];
  /** Recorded for owner, no longer given: removed from the object and, after the target, from the record. */
  readonly dropped: string[];
}

export interface JsonRemovePlan {
  /** null: leave the target alone. */
  readonly text: string | null;
  /** null: delete the sidecar. */
  readonly sidecar: Sidecar | null;
  readonly removed: string[];
  readonly absent: string[];
  /** Members with these names exist but are not recorded for owner: left in place. */
  readonly notOurs: string[];
  /** The sidecar records nothing for owner: nothing changes. */
  readonly noRecord: boolean;
  /** No sidecar at all while the object has members: members this tool wrote may be among them, unnamed. */
  readonly noSidecar: boolean;
  /** Delete the target: this tool created it and no member is left. */
  readonly deleteFile: boolean;
}

export interface JsonObjectScan {
  readonly open: number;
  readonly close: number;
  readonly members: Array<{ readonly key: string; readonly start: number; readonly valStart: number; readonly valEnd: number }>;
}

export declare function sidecarPath(file: string): string;
export declare function scanJsonObject(text: string): JsonObjectScan;
export declare function parseSidecar(text: string | null, name: string): Sidecar | null;
export declare function renderSidecar(side: Sidecar): string;
/** Sets owner's members to exactly `entries`. */
export declare function planMerge(text: string | null, side: Sidecar | null, entries: Record<string, string>, opts: JsonOptions): JsonMergePlan;
export declare function planRemove(text: string | null, side: Sidecar | null, names: string[], opts: JsonRemoveOptions): JsonRemovePlan;
