/**
 * The checker's gRPC client: unary calls over HTTP/2, TLS always verified (trust.ts); one call is one stream, no retries.
 * Errors keep Node's code, or: CHECK_TIMEOUT, ERR_GRPC_TOO_LARGE, ERR_GRPC_FRAME, ERR_GRPC_USAGE (the URL), ERR_GRPC_CLOSED.
 */
import * as http2 from 'node:http2';
import { connect as tlsConnect, SecureContext } from 'node:tls';
import { ACCEPT_ENCODINGS, decodeFrames, decodeGrpcMessage, encodeEmpty, MAX_RESPONSE_BYTES, statusFromHttp } from './grpc-messages';
import { USER_AGENT } from './rest';
import { verifiedTls } from './trust';
import { RuntimeError } from '../runtime/errors';
import { DEFAULT_GRPC_PORT, ParsedClusterUrl, parseClusterUrl, showUrl } from '../runtime/url';

export { decodeHealthCheckReply, decodeListCollections, encodeEmpty, GrpcStatus } from './grpc-messages';

export type GrpcAnswer = ReturnType<typeof answerOf>;

/** `url`: the origin it talks to, `https://host:port`. */
export type GrpcClient = ReturnType<typeof openGrpc>;

type CallOptions = { metadata?: Readonly<Record<string, string>>; message?: Buffer; timeoutMs?: number };

/** A gRPC base URL by the address rule (runtime/url.ts), port 6334 when absent. Throws with the code 'ERR_GRPC_USAGE'. */
export function parseGrpcUrl(input: string): { protocol: string; hostname: string; port: number; authority: string; origin: string } {
  const parsed = parseClusterUrl(String(input));
  if (parsed.problems.length > 0) throw new RuntimeError(`gRPC URL ${showUrl(input)} ${parsed.problems[0]}`, 'ERR_GRPC_USAGE');
  const { protocol, host, hostForUrl, explicitPort } = parsed as Required<ParsedClusterUrl>;
  const port = explicitPort ?? DEFAULT_GRPC_PORT;
  return { protocol, hostname: host, port, authority: `${hostForUrl}:${port}`, origin: `${protocol}//${hostForUrl}:${port}` };
}

/** `grpc-timeout` header value: at most 8 digits, in the smallest unit that fits. */
function grpcTimeoutHeader(ms: number): string {
  const whole = Math.max(1, Math.ceil(ms));
  return whole < 1e8 ? `${whole}m` : `${Math.ceil(whole / 1000)}S`;
}

function parseStatus(value: unknown): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return /^\d{1,3}$/.test(String(text)) ? Number(text) : undefined;
}

/**
 * An answer, whatever its status: grpc-status from the trailers or a trailers-only answer's headers,
 * else mapped from the HTTP status (`statusFromHttp`); grpc-message decoded (server text); the
 * messages (only for HTTP 200 `application/grpc`).
 */
function answerOf(head: http2.IncomingHttpHeaders, trailers: http2.IncomingHttpHeaders, chunks: Buffer[]) {
  const httpStatus = Number(head[':status']);
  const contentType = String(head['content-type'] || '');
  const encoding = head['grpc-encoding'];
  const trailersOnly = head['grpc-status'] !== undefined;
  const from = parseStatus(trailers['grpc-status']) !== undefined ? trailers : trailersOnly ? head : {};
  const status = parseStatus(from['grpc-status']);
  const framed = httpStatus === 200 && /^application\/grpc(?:[+;]|$)/.test(contentType);
  return {
    grpcStatus: status !== undefined ? status : statusFromHttp(httpStatus),
    grpcMessage: decodeGrpcMessage(from['grpc-message']),
    statusFromHttp: status === undefined,
    trailersOnly,
    httpStatus,
    contentType,
    messages: framed ? decodeFrames(Buffer.concat(chunks), Array.isArray(encoding) ? encoding[0] : encoding) : [],
  };
}

/** A client for `url`; `timeoutMs`: one call's default limit, connect to last byte. Connects on the first call, anew after a failure. */
export function openGrpc(url: string, options: { secureContext?: SecureContext; timeoutMs: number }) {
  const target = parseGrpcUrl(url);
  let session: http2.ClientHttp2Session | undefined;
  let sessionError: Error | undefined;
  let closed = false;
  const pending = new Set<{ cancel(err: Error): void }>();

  function connect(): http2.ClientHttp2Session {
    if (session && !session.closed && !session.destroyed) return session;
    sessionError = undefined;
    // TLS made here, not by http2.connect: Node 18's http2 sends an IP address as SNI (warning DEP0123).
    const tlsOptions = { host: target.hostname, port: target.port, ALPNProtocols: ['h2'], ...verifiedTls(target.hostname, options.secureContext) };
    const s = http2.connect(target.origin, target.protocol === 'https:' ? { createConnection: () => tlsConnect(tlsOptions) } : {});
    // Reported through the calls it fails (and a listener keeps it from throwing).
    s.on('error', (err) => {
      sessionError = err;
    });
    session = s;
    return s;
  }

  /** One unary call on its own stream; metadata: headers such as `{ 'api-key': key }`; message: default the empty one. */
  const call = (path: string, callOptions: CallOptions = {}) => new Promise<GrpcAnswer>((resolve, reject) => {
    if (closed) throw new RuntimeError('the gRPC client is closed', 'ERR_GRPC_CLOSED');
    const timeoutMs = callOptions.timeoutMs ?? options.timeoutMs;
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': path,
      ':authority': target.authority,
      'content-type': 'application/grpc',
      'te': 'trailers',
      'user-agent': USER_AGENT,
      'grpc-timeout': grpcTimeoutHeader(timeoutMs),
      'grpc-accept-encoding': ACCEPT_ENCODINGS.join(','),
      ...callOptions.metadata,
    };

    const s = connect();
    let settled = false;
    let stream: http2.ClientHttp2Stream | undefined;
    const finish = (err: unknown, result?: GrpcAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      pending.delete(entry);
      if (err) reject(err);
      else resolve(result as GrpcAnswer);
    };
    const entry = {
      cancel: (err: Error) => {
        if (stream && !stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
        finish(err);
      },
    };
    pending.add(entry);
    const timer = setTimeout(() => {
      entry.cancel(new RuntimeError(`no answer to ${path} from ${target.authority} within ${timeoutMs} ms`, 'CHECK_TIMEOUT'));
      s.destroy();
    }, timeoutMs);

    try {
      stream = s.request(headers, { endStream: false });
    } catch (err) {
      finish(sessionError || err);
      return;
    }
    const st = stream;
    let head: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    let size = 0;
    const chunks: Buffer[] = [];

    st.on('response', (h) => {
      head = h;
    });
    st.on('trailers', (t) => {
      trailers = t;
    });
    st.on('data', (d: Buffer) => {
      size += d.length;
      if (size > MAX_RESPONSE_BYTES) {
        entry.cancel(new RuntimeError(`the answer to ${path} is larger than ${MAX_RESPONSE_BYTES} bytes`, 'ERR_GRPC_TOO_LARGE'));
        return;
      }
      chunks.push(d);
    });
    // A failed connection cancels its streams first: report its cause.
    st.on('error', (err: Error & { code?: string }) => finish(sessionError || (err && err.code === 'ERR_HTTP2_STREAM_CANCEL' && err.cause) || err));
    st.on('close', () => {
      if (settled) return;
      if (!Number(head[':status'])) {
        finish(sessionError || new RuntimeError(`the stream of ${path} was closed without an answer (HTTP/2 code ${st.rstCode})`, 'ERR_HTTP2_STREAM_ERROR'));
        return;
      }
      try {
        finish(undefined, answerOf(head, trailers, chunks));
      } catch (err) {
        finish(err); // messages that cannot be used (grpc-messages.ts decodeFrames)
      }
    });
    st.end(callOptions.message ?? encodeEmpty());
  });

  /** Cancels pending calls (they reject with 'ERR_GRPC_CLOSED') and closes the connection. */
  function close(): Promise<void> {
    closed = true;
    for (const p of [...pending]) p.cancel(new RuntimeError('the gRPC client was closed', 'ERR_GRPC_CLOSED'));
    const s = session;
    session = undefined;
    if (!s || s.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      s.close(() => resolve());
      // Do not wait for a peer that never acknowledges.
      setTimeout(() => s.destroy(), 1000).unref();
    });
  }

  return { url: target.origin, call, close };
}
