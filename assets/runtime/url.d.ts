/** Cluster addresses: the one rule (see url.js). */

/** Qdrant's REST port. */
export declare const DEFAULT_REST_PORT: 6333;
/** Qdrant's gRPC port. */
export declare const DEFAULT_GRPC_PORT: 6334;

/** The address quoted for a message, with everything up to the last `@` (credentials) and the query masked. */
export declare function showUrl(raw: string): string;
/** 127.0.0.0/8, ::1 or localhost. */
export declare function isLoopbackHost(host: string): boolean;

export interface ParsedClusterUrl {
  /** Phrases that complete `url "<value>" …`; empty when the address is valid. */
  readonly problems: string[];
  /** `https:` or `http:` (set when the scheme could be read). */
  readonly protocol?: 'https:' | 'http:';
  /** ASCII host, lower case; IPv6 without brackets. */
  readonly host?: string;
  /** The host as written in a URL (IPv6 in brackets). */
  readonly hostForUrl?: string;
  /** The port written in the address, if any (`https://h:443` gives 443). */
  readonly explicitPort?: number;
  /** `https://host`, without port. */
  readonly origin?: string;
}

/** Parses an address by the rule; never throws. */
export declare function parseClusterUrl(raw: unknown): ParsedClusterUrl;
/** `https://host:port`. */
export declare function endpoint(parsed: ParsedClusterUrl, port: number): string;
