/** Safe, kill-proof read-modify-write of one file and an optional sidecar, under one lock (see file.js). */
import type { Stats } from 'node:fs';

/** One line: what was wrong, the path, how to fix it. Never file contents. */
export declare class FileError extends Error {
  readonly code?: string;
}

/** The lock could not be taken, or was lost before a commit (see lock.js). One line. */
export declare class LockError extends Error {
  readonly code?: string;
}

/** Returned by a transform: delete the file. */
export declare const DELETE: unique symbol;
export type Next = string | null | typeof DELETE;

export declare const DEFAULTS: { readonly lockTimeoutMs: number; readonly staleLockMs: number; readonly maxBytes: number };
/** This host's name as written in lock files, with its PID namespace (a pid means something only there). */
export declare const HOST: string;
/** 8 hex digits of sha256(HOST), part of every temp file name. */
export declare const HOST_TAG: string;

export interface UpdateOptions {
  /** Where warnings and notes go (one line each; e.g. nothing to remove: the directory is missing). @default - stderr */
  readonly warn?: (message: string) => void;
  /** @default 15000 */
  readonly lockTimeoutMs?: number;
  /** @default 30000 */
  readonly staleLockMs?: number;
  /** @default 4 MiB */
  readonly maxBytes?: number;
  /**
   * A removal (the destroy step): a missing directory means there is nothing to remove, and is
   * not an error. @default false
   */
  readonly removing?: boolean;
  /** A sidecar path: the transform then gets (text, sidecarText) and returns a SidecarPlan. */
  readonly sidecar?: string;
  /**
   * For tests only. beforeRename runs for the target's temp file (written, not yet renamed), on
   * each read of the target when another program changed it meanwhile.
   */
  readonly testHooks?: { readonly beforeRename?: (tempPath: string) => void };
}

export interface SidecarPlan {
  readonly text: Next;
  readonly sidecar: Next;
  /** Commit the sidecar before the target (else after). */
  readonly sidecarFirst: boolean;
  /** Committed to the sidecar last, after both (a write that dropped members records only the new names then). */
  readonly sidecarAfter?: string | null;
}

export interface UpdateResult {
  readonly existed: boolean;
  readonly changed: boolean;
  readonly deleted: boolean;
}

export declare function updateFile(file: string, transform: (text: string | null) => Next, options?: UpdateOptions): Promise<UpdateResult>;
export declare function updateFile(file: string, transform: (text: string | null, sidecarText: string | null) => SidecarPlan, options: UpdateOptions & { readonly sidecar: string }): Promise<UpdateResult>;

/** What identifies the contents read: compared with the file just before a commit (see file.js). */
export interface Snapshot {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

/**
 * Reads `file` without following a link or blocking, checking it is the file `expected` described.
 * `snap` is taken before the read.
 */
export declare function readVerified(file: string, expected: Stats | null, maxBytes?: number): { buf: Buffer; stat: Stats; snap: Snapshot };

/** For a signal handler: deletes our temp files, releases our locks. */
export declare function cleanupForExit(): void;
