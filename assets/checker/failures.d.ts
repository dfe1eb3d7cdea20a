/** The failure catalog (see failures.js). */

export type FailureId =
  | 'not-qdrant' | 'redirect' | 'unexpected-answer'
  | 'key-rejected' | 'key-not-received' | 'key-expired' | 'key-expires-soon' | 'key-whitespace' | 'key-bad-characters' | 'cluster-open'
  | 'cannot-manage' | 'excess-manage' | 'no-global-read' | 'excess-global'
  | 'collection-missing' | 'collection-no-access' | 'collection-no-write' | 'excess-write' | 'excess-collections'
  | 'grpc-not-qdrant' | 'grpc-rejected' | 'grpc-open' | 'grpc-unexpected'
  | 'tls-untrusted' | 'tls-name' | 'tls-expired' | 'tls-handshake'
  | 'timeout' | 'deadline' | 'refused' | 'dns' | 'network' | 'invalid-http';

export interface FailureEntry {
  readonly id: FailureId;
  /** The fixed text the failure message starts with. */
  readonly phrase: string;
  /** The likely cause, for the setup guide (Markdown). */
  readonly cause: string;
  /** How to fix it, for the setup guide (Markdown). */
  readonly fix: string;
}

/** Every failure the checker can report. */
export declare const FAILURES: readonly FailureEntry[];
/** A failure with its message (`phrase` + `detail`). */
export declare function failure(id: FailureId, detail?: string, opts?: { serverText?: boolean }): { id: FailureId; message: string; serverText?: true };
/** The catalog entry of an id. */
export declare function entry(id: FailureId): FailureEntry;
/** A catalog fix in the words of a failure line ("(section 2)" becomes "(setup guide, section 2)"). */
export declare function lineFix(id: FailureId): string;
/** The failure with a fix at the end of its message: its own hint if it has one, else the catalog's. */
export declare function withFix<F extends { id: FailureId; message: string }>(f: F): F;
