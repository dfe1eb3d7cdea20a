/** The writer's lock file, temp-file names and dead writers' leftovers (see lock.js). */

export declare class LockError extends Error {
  readonly code?: string;
}

/** A held lock. */
export interface Lock {
  readonly lockPath: string;
  /** The exact line written to the lock file. */
  readonly content: string;
}

export interface LockOptions {
  readonly lockTimeoutMs: number;
  readonly staleLockMs: number;
}

/** This host's name as written in lock files, with its PID namespace (a pid means something only there). */
export declare const HOST: string;
/** 8 hex digits of sha256(HOST), part of every temp file name. */
export declare const HOST_TAG: string;
/** unlink(2) that ignores every error: whether the file was removed. */
export declare function unlinkQuiet(path: string): boolean;
/** close(2) that ignores every error. */
export declare function closeQuiet(fd: number): void;
/** Our temp files not yet renamed, and our locks: what a signal handler must undo. */
export declare const live: { readonly temps: Set<string>; readonly locks: Set<Lock> };

/** `.<basename>.qca-<hosttag>-<pid>-<12 hex>.tmp` next to `file`. */
export declare function tempPath(file: string): string;
/** True only when `pid` is provably not running (process.kill(pid, 0) fails with ESRCH). */
export declare function isDead(pid: number): boolean;
export declare function acquireLock(file: string, opts: LockOptions, warn: (message: string) => void): Promise<Lock>;
/** Throws LockError unless the lock file still holds `lock.content`; `file` names the target in the message. */
export declare function verifyLock(lock: Lock, file: string): void;
export declare function releaseLock(lock: Lock): void;
/** Deletes dead writers' temp files for `files` (and their locks) in their directory. */
export declare function cleanDeadTemps(files: string[], warn: (message: string) => void): void;
export declare function cleanupForExit(): void;
