/**
 * Types of the low-level gRPC client of the checker (implemented in `grpc.js`): unary calls over
 * HTTP/2 with Node's built-in http2 and tls modules, and a protobuf reader for the answers of
 * `qdrant.Qdrant/HealthCheck` and `qdrant.Collections/List`.
 *
 * TLS is always verified (`rejectUnauthorized: true` is passed explicitly, so
 * NODE_TLS_REJECT_UNAUTHORIZED=0 cannot switch it off). No call is retried or followed anywhere.
 * The module never logs; a key goes only into the metadata it is given.
 */
import type { SecureContext } from 'node:tls';

/** gRPC status codes that matter to the checker. */
export declare const GrpcStatus: Readonly<{
  OK: 0;
  CANCELLED: 1;
  UNKNOWN: 2;
  INVALID_ARGUMENT: 3;
  DEADLINE_EXCEEDED: 4;
  NOT_FOUND: 5;
  PERMISSION_DENIED: 7;
  RESOURCE_EXHAUSTED: 8;
  UNIMPLEMENTED: 12;
  INTERNAL: 13;
  UNAVAILABLE: 14;
  UNAUTHENTICATED: 16;
}>;

/** At most this many bytes of one answer are read, and decoded; a larger answer rejects with code 'ERR_GRPC_TOO_LARGE'. */
export declare const MAX_RESPONSE_BYTES: number;

export interface GrpcClientOptions {
  /**
   * The trusted CAs: it replaces Node's default trust for this client, so to trust a CA in addition
   * to Node's roots give a context that holds them too (check.js's loadCa adds the CA to a default
   * context). Verification stays on either way. Default: Node's root CAs.
   */
  secureContext?: SecureContext;
  /** Default time limit of one call in ms: connect, TLS, the request and the whole answer. Required. */
  timeoutMs: number;
}

export interface GrpcCallOptions {
  /**
   * Metadata sent as HTTP/2 headers, e.g. `{ 'api-key': key }` or `{ authorization: 'Bearer ' + key }`.
   * Names are lower-cased; pseudo-headers and the transport's own headers (`content-type`, `te`,
   * `user-agent`, `grpc-timeout`, `grpc-encoding`, `grpc-accept-encoding`, `host`, `connection`)
   * are refused. Default: none.
   */
  metadata?: Readonly<Record<string, string>>;
  /** One framed message (see {@link encodeEmpty} and {@link frame}). Default: the empty message. */
  message?: Buffer;
  /** Time limit of this call in ms. Default: the client's `timeoutMs`. Also sent as `grpc-timeout`. */
  timeoutMs?: number;
}

export interface GrpcAnswer {
  /**
   * The gRPC status: from the trailers, or from the headers of a trailers-only answer, or (when the
   * answer had none, e.g. a proxy's HTTP error) mapped from the HTTP status as gRPC specifies
   * (400→13, 401→16, 403→7, 404→12, 429/502/503/504→14, 200→13, others→2); see {@link statusFromHttp}.
   */
  grpcStatus: number;
  /** `grpc-message`, percent-decoded; '' when absent. Untrusted server text: may echo what was sent. */
  grpcMessage: string;
  /** True when the answer carried no grpc-status and {@link grpcStatus} was mapped from the HTTP status. */
  statusFromHttp: boolean;
  /** True for a trailers-only answer (grpc-status in the response headers, no body). */
  trailersOnly: boolean;
  /** The HTTP `:status` (200 for every answer of a gRPC server). */
  httpStatus: number;
  /** The `content-type` of the answer ('' when absent); `application/grpc` from a gRPC server. */
  contentType: string;
  /**
   * The payloads of the length-prefixed messages of the body (without the 5-byte prefix). A call
   * accepts uncompressed messages only (grpc-accept-encoding: identity): a compressed one rejects
   * the call with code 'ERR_GRPC_FRAME'.
   * Empty unless the answer is HTTP 200 with content-type `application/grpc`.
   */
  messages: Buffer[];
}

export interface GrpcClient {
  /** The origin the client talks to, `https://host:port`. */
  readonly url: string;
  /**
   * One unary call on its own HTTP/2 stream; the connection is opened on first use and shared.
   * Resolves with every answer, whatever its status. Rejects with Node's error on network and TLS
   * failures (`err.code` kept, e.g. ECONNREFUSED, UNABLE_TO_VERIFY_LEAF_SIGNATURE), with an Error
   * of code 'CHECK_TIMEOUT' after the time limit, 'ERR_GRPC_TOO_LARGE' past {@link MAX_RESPONSE_BYTES},
   * 'ERR_GRPC_FRAME' for a malformed body, 'ERR_GRPC_USAGE' for bad arguments and 'ERR_GRPC_CLOSED'
   * after {@link close}.
   *
   * @param path `/package.Service/Method`, e.g. `/qdrant.Collections/List`
   */
  call(path: string, options?: GrpcCallOptions): Promise<GrpcAnswer>;
  /** Cancels pending calls (they reject with 'ERR_GRPC_CLOSED') and closes the connection. */
  close(): Promise<void>;
}

/**
 * A client for `https://host[:port]` (port 6334 when absent). `http://` is accepted for loopback
 * hosts only (tests). Throws an Error with code 'ERR_GRPC_USAGE' for anything else, or for a bad
 * `timeoutMs`. Does not connect yet.
 */
export declare function openGrpc(url: string, options: GrpcClientOptions): GrpcClient;

/** The parsed form of a gRPC URL. Throws an Error with code 'ERR_GRPC_USAGE'. */
export declare function parseGrpcUrl(url: string): {
  protocol: 'https:' | 'http:';
  /** Without IPv6 brackets. */
  hostname: string;
  port: number;
  /** `host:port`, IPv6 in brackets. */
  authority: string;
  /** `https://host:port`. */
  origin: string;
};

/** The framed empty message (`HealthCheckRequest{}`, `ListCollectionsRequest{}`): the 5 bytes 00 00 00 00 00. */
export declare function encodeEmpty(): Buffer;

/** Frames a serialized protobuf message: a 0 byte (not compressed), its length (4 bytes, big-endian), the bytes. */
export declare function frame(payload: Uint8Array): Buffer;

/**
 * Splits a response body into message payloads; a gzip-compressed message is inflated when
 * `encoding` is `gzip`, with at most {@link MAX_RESPONSE_BYTES} decoded in all (else an Error with
 * code 'ERR_GRPC_TOO_LARGE'). With `accepted` (the encodings a call advertised in
 * grpc-accept-encoding), a compressed message in any other encoding is refused. Throws an Error
 * with code 'ERR_GRPC_FRAME' on a malformed body.
 */
export declare function decodeFrames(body: Buffer, encoding?: string, accepted?: readonly string[]): Buffer[];

/** Percent-decodes a `grpc-message` value; malformed escapes are kept as they are. */
export declare function decodeGrpcMessage(value: string | string[] | undefined): string;

/** The gRPC status for an answer without grpc-status, from its HTTP status. */
export declare function statusFromHttp(httpStatus: number): number;

/** `qdrant.HealthCheckReply`. */
export interface HealthCheckReply {
  title: string;
  version: string;
  /** Absent when the server was built without a git commit id. */
  commit?: string;
}

/** Decodes a `HealthCheckReply` payload. Throws an Error with code 'ERR_PROTOBUF' on malformed input. */
export declare function decodeHealthCheckReply(payload: Uint8Array): HealthCheckReply;

/** Decodes a `ListCollectionsResponse` payload to the collection names, in order. Throws like {@link decodeHealthCheckReply}. */
export declare function decodeListCollections(payload: Uint8Array): string[];
