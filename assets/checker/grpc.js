'use strict';
/**
 * A low-level gRPC client for the Qdrant cluster access checker: unary calls over HTTP/2 with
 * Node's built-in http2 and tls modules, and a tiny protobuf reader for the two answers the checker
 * needs (`qdrant.Qdrant/HealthCheck`, `qdrant.Collections/List`). Types and contract: grpc.d.ts.
 *
 * What it promises:
 *   - TLS is always verified: `rejectUnauthorized: true` is passed explicitly, so
 *     NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment cannot turn verification off. Extra CAs come
 *     only through a tls.SecureContext. `http://` is accepted for loopback hosts only (tests).
 *   - One call is one HTTP/2 stream: no retries, nothing followed; every answer is returned as read
 *     (trailers-only answers included), with grpc-status taken from the trailers, or from the
 *     headers of a trailers-only answer, or mapped from the HTTP status when there is none.
 *   - Network and TLS errors reject with Node's own error (its `code` kept); a call that does not
 *     finish in time rejects with an Error whose `code` is 'CHECK_TIMEOUT'.
 *   - At most MAX_RESPONSE_BYTES of an answer are read, and at most as many decoded. Calls accept
 *     uncompressed answers only (grpc-accept-encoding: identity): a compressed message fails the call.
 *   - Credentials go only into the metadata the caller passes; this module never logs.
 *
 * Node built-ins only: this file is copied next to Terraform stacks and run with plain `node`.
 */
const http2 = require('node:http2');
const net = require('node:net');
const tls = require('node:tls');
const { clip } = require('../runtime/text.js');
// Masks user:password@ (up to the last "@": a password may hold "/" or "#") and the query; quoted.
const { isLoopbackHost, showUrl } = require('../runtime/url.js');

const DEFAULT_PORT = 6334;
const MAX_RESPONSE_BYTES = 1024 * 1024; // Qdrant's answers to the checker are a few hundred bytes
const USER_AGENT = 'qdrant-cluster-access-checker';
/** The message encodings a call accepts (its grpc-accept-encoding): Qdrant's answers are small. */
const ACCEPT_ENCODINGS = Object.freeze(['identity']);
const { NGHTTP2_CANCEL } = http2.constants;

/** Metadata names the transport owns; a caller may not set them. */
const RESERVED_METADATA = new Set(['content-type', 'te', 'user-agent', 'grpc-timeout', 'grpc-encoding', 'grpc-accept-encoding', 'host', 'connection']);

/** gRPC status codes used here (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
const GrpcStatus = Object.freeze({
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
});

function codedError(message, code) {
  const e = new Error(message);
  e.code = code;
  return e;
}

/**
 * Validates a gRPC base URL: `https://host[:port]` (port 6334 when absent), or `http://` for a
 * loopback host. Throws an Error with code 'ERR_GRPC_USAGE'.
 */
function parseGrpcUrl(input) {
  const shown = showUrl(input);
  let u;
  try {
    u = new URL(String(input));
  } catch {
    throw codedError(`invalid gRPC URL ${shown}: expected https://host:port`, 'ERR_GRPC_USAGE');
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && isLoopbackHost(u.hostname))) {
    throw codedError(`gRPC URL ${shown} must start with https:// (http:// only for loopback hosts)`, 'ERR_GRPC_USAGE');
  }
  if (u.username || u.password || u.pathname !== '/' || u.search || u.hash) {
    throw codedError(`gRPC URL ${shown} must be https://host:port without user, path, query or fragment`, 'ERR_GRPC_USAGE');
  }
  // WHATWG URL hides an explicit default port (https://h:443 has port ''), so read it from the text.
  const explicit = /^[a-z][a-z0-9+.-]*:\/\/(?:\[[^\]]*\]|[^/?#:]*)(?::(\d+))?/i.exec(String(input));
  const port = explicit && explicit[1] ? Number(explicit[1]) : DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw codedError(`gRPC URL ${shown} has an invalid port`, 'ERR_GRPC_USAGE');
  }
  const hostname = u.hostname.replace(/^\[|\]$/g, '');
  const hostForUrl = net.isIPv6(hostname) ? `[${hostname}]` : hostname;
  return { protocol: u.protocol, hostname, port, authority: `${hostForUrl}:${port}`, origin: `${u.protocol}//${hostForUrl}:${port}` };
}

function positiveTimeout(value, name) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw codedError(`${name} must be a positive number of milliseconds, got ${String(value)}`, 'ERR_GRPC_USAGE');
  }
  return value;
}

/** `grpc-timeout` header value: at most 8 digits, in the smallest unit that fits. */
function grpcTimeoutHeader(ms) {
  const whole = Math.max(1, Math.ceil(ms));
  return whole < 1e8 ? `${whole}m` : `${Math.ceil(whole / 1000)}S`;
}

/** Percent-decodes grpc-message (gRPC's HTTP/2 spec); malformed escapes stay as they are. */
function decodeGrpcMessage(value) {
  if (value === undefined) return '';
  const text = Array.isArray(value) ? value.join(',') : String(value);
  if (!text.includes('%')) return text;
  const bytes = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3);
    if (text[i] === '%' && /^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      for (const b of Buffer.from(text[i], 'utf8')) bytes.push(b);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The gRPC status for an answer without grpc-status (gRPC's "HTTP to gRPC status code mapping"). */
function statusFromHttp(httpStatus) {
  switch (httpStatus) {
    case 400: return GrpcStatus.INTERNAL;
    case 401: return GrpcStatus.UNAUTHENTICATED;
    case 403: return GrpcStatus.PERMISSION_DENIED;
    case 404: return GrpcStatus.UNIMPLEMENTED;
    case 429: case 502: case 503: case 504: return GrpcStatus.UNAVAILABLE;
    default: return httpStatus === 200 ? GrpcStatus.INTERNAL : GrpcStatus.UNKNOWN;
  }
}

function parseStatus(value) {
  const text = Array.isArray(value) ? value[0] : value;
  return /^\d{1,3}$/.test(String(text)) ? Number(text) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Messages

/** Frames one serialized protobuf message: 1 byte "compressed" flag (0), 4 bytes big-endian length. */
function frame(payload) {
  const body = Buffer.from(payload);
  const head = Buffer.alloc(5);
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** The framed empty message (`HealthCheckRequest{}`, `ListCollectionsRequest{}`): 00 00 00 00 00. */
function encodeEmpty() {
  return Buffer.alloc(5);
}

function tooLarge() {
  return codedError(`the decoded answer is more than 1 MiB (${MAX_RESPONSE_BYTES} bytes)`, 'ERR_GRPC_TOO_LARGE');
}

/**
 * Splits a response body into message payloads, gzip undone when `encoding` is 'gzip'; at most
 * MAX_RESPONSE_BYTES decoded in all (code 'ERR_GRPC_TOO_LARGE': a few KB of gzip can hold a GB).
 * With `accepted` (the encodings the call advertised), a compressed message in another encoding
 * is refused. Throws (code 'ERR_GRPC_FRAME') on a malformed body.
 */
function decodeFrames(body, encoding, accepted) {
  const messages = [];
  let offset = 0;
  let total = 0;
  while (offset < body.length) {
    if (body.length - offset < 5) throw codedError('truncated gRPC message header', 'ERR_GRPC_FRAME');
    const compressed = body[offset];
    const length = body.readUInt32BE(offset + 1);
    offset += 5;
    if (length > body.length - offset) throw codedError('truncated gRPC message', 'ERR_GRPC_FRAME');
    let payload = body.subarray(offset, offset + length);
    offset += length;
    if (compressed === 1) {
      const shown = JSON.stringify(clip(String(encoding ?? ''), 40));
      if (accepted && !accepted.includes(encoding)) {
        throw codedError(`a message compressed with ${shown} (grpc-encoding), but the checker accepts only uncompressed ones ` +
          `(grpc-accept-encoding: ${accepted.join(', ')}) — a server may compress only with an encoding the client accepts; check the gRPC address`, 'ERR_GRPC_FRAME');
      }
      if (encoding !== 'gzip') throw codedError(`compressed gRPC message with unsupported encoding ${shown}`, 'ERR_GRPC_FRAME');
      // zlib is loaded only for a compressed message (Qdrant sends none): it costs every check process ~2 ms to load.
      try {
        payload = require('node:zlib').gunzipSync(payload, { maxOutputLength: Math.max(1, MAX_RESPONSE_BYTES - total) });
      } catch (err) {
        if (err && err.code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
        throw codedError(`a gzip-compressed gRPC message that does not decompress (${clip(String(err && err.code || err), 40)})`, 'ERR_GRPC_FRAME');
      }
    } else if (compressed !== 0) {
      throw codedError('invalid gRPC message flag', 'ERR_GRPC_FRAME');
    }
    total += payload.length;
    if (total > MAX_RESPONSE_BYTES) throw tooLarge();
    messages.push(Buffer.from(payload));
  }
  return messages;
}

/** Reads the fields of one protobuf message: { field, wireType, value } with value a Buffer (type 2) or a number/bigint. */
function readFields(buf) {
  const fields = [];
  let pos = 0;
  const varint = () => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw codedError('truncated protobuf varint', 'ERR_PROTOBUF');
      const b = buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return result;
      shift += 7n;
      if (shift > 63n) throw codedError('protobuf varint too long', 'ERR_PROTOBUF');
    }
  };
  const take = (n) => {
    if (n > buf.length - pos) throw codedError('truncated protobuf field', 'ERR_PROTOBUF');
    const out = buf.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  while (pos < buf.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wireType = Number(key & 7n);
    if (field === 0) throw codedError('protobuf field number 0', 'ERR_PROTOBUF');
    let value;
    switch (wireType) {
      case 0: value = varint(); break;
      case 1: value = take(8); break;
      case 2: value = take(Number(varint())); break;
      case 5: value = take(4); break;
      default: throw codedError(`unsupported protobuf wire type ${wireType}`, 'ERR_PROTOBUF');
    }
    fields.push({ field, wireType, value });
  }
  return fields;
}

/** The last value of string field `n` (proto3: the last one wins), or undefined. */
function stringField(fields, n) {
  let out;
  for (const f of fields) if (f.field === n && f.wireType === 2) out = f.value.toString('utf8');
  return out;
}

/** Decodes `HealthCheckReply{ string title = 1; string version = 2; optional string commit = 3; }`. */
function decodeHealthCheckReply(buf) {
  const fields = readFields(Buffer.from(buf));
  const commit = stringField(fields, 3);
  return {
    title: stringField(fields, 1) ?? '',
    version: stringField(fields, 2) ?? '',
    ...(commit === undefined ? {} : { commit }),
  };
}

/** Decodes `ListCollectionsResponse{ repeated CollectionDescription{ string name = 1; } collections = 1; double time = 2; }` to the names. */
function decodeListCollections(buf) {
  return readFields(Buffer.from(buf))
    .filter((f) => f.field === 1 && f.wireType === 2)
    .map((f) => stringField(readFields(f.value), 1) ?? '');
}

// ---------------------------------------------------------------------------------------------
// The client

/**
 * Opens a client for one gRPC server. Connects lazily, on the first call; a failed connection is
 * made anew by the next call (the caller decides whether to retry).
 */
function openGrpc(url, options = {}) {
  const target = parseGrpcUrl(url);
  const defaultTimeout = positiveTimeout(options.timeoutMs, 'timeoutMs');
  const secureContext = options.secureContext;
  let session;
  let sessionError;
  let closed = false;
  const pending = new Set();

  function connect() {
    if (session && !session.closed && !session.destroyed) return session;
    sessionError = undefined;
    // The TLS connection is made here, not by http2.connect: Node 18's http2 sets an IP address
    // as the SNI server name, and prints a deprecation warning (DEP0123) for it.
    const tlsOptions = {
      host: target.hostname,
      port: target.port,
      ALPNProtocols: ['h2'],
      rejectUnauthorized: true, // explicit: NODE_TLS_REJECT_UNAUTHORIZED cannot change it
      ...(secureContext ? { secureContext } : {}),
      // SNI only for names; checkServerIdentity still matches IP addresses against the certificate.
      ...(net.isIP(target.hostname) ? {} : { servername: target.hostname }),
    };
    const s = target.protocol === 'https:'
      ? http2.connect(target.origin, { createConnection: () => tls.connect(tlsOptions) })
      : http2.connect(target.origin);
    // A connection failure is reported through the calls it fails (and a listener keeps it from throwing).
    s.on('error', (err) => {
      sessionError = err;
    });
    session = s;
    return s;
  }

  function call(path, callOptions = {}) {
    return new Promise((resolve, reject) => {
      if (closed) throw codedError('the gRPC client is closed', 'ERR_GRPC_CLOSED');
      if (typeof path !== 'string' || !/^\/[A-Za-z0-9_.]+\/[A-Za-z0-9_]+$/.test(path)) {
        throw codedError(`invalid gRPC method path '${clip(String(path), 100)}': expected /package.Service/Method`, 'ERR_GRPC_USAGE');
      }
      const timeoutMs = callOptions.timeoutMs === undefined ? defaultTimeout : positiveTimeout(callOptions.timeoutMs, 'timeoutMs');
      const message = callOptions.message === undefined ? encodeEmpty() : callOptions.message;
      if (!Buffer.isBuffer(message) || message.length < 5 || message.readUInt32BE(1) !== message.length - 5) {
        throw codedError('message must be one framed gRPC message (see encodeEmpty and frame)', 'ERR_GRPC_USAGE');
      }
      const headers = {
        ':method': 'POST',
        ':path': path,
        ':authority': target.authority,
        'content-type': 'application/grpc',
        'te': 'trailers',
        'user-agent': USER_AGENT,
        'grpc-timeout': grpcTimeoutHeader(timeoutMs),
        'grpc-accept-encoding': ACCEPT_ENCODINGS.join(','),
      };
      for (const [name, value] of Object.entries(callOptions.metadata || {})) {
        const lower = name.toLowerCase();
        if (lower.startsWith(':') || RESERVED_METADATA.has(lower) || !/^[0-9a-z_.-]+$/.test(lower)) {
          throw codedError(`metadata name '${clip(name, 60)}' is reserved or invalid`, 'ERR_GRPC_USAGE');
        }
        if (typeof value !== 'string') throw codedError(`metadata '${lower}' must be a string`, 'ERR_GRPC_USAGE');
        headers[lower] = value;
      }

      const s = connect();
      let settled = false;
      let stream;
      let timer;
      const finish = (err, result) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        pending.delete(entry);
        if (err) reject(err);
        else resolve(result);
      };
      const entry = { cancel: (err) => {
        if (stream && !stream.destroyed) stream.close(NGHTTP2_CANCEL);
        finish(err);
      } };
      pending.add(entry);
      timer = setTimeout(() => {
        entry.cancel(codedError(`no answer to ${path} from ${target.authority} within ${timeoutMs} ms`, 'CHECK_TIMEOUT'));
        // A connection that never completed (or a server that answers nothing) is not worth keeping.
        if (!s.connected || pending.size === 0) s.destroy();
      }, timeoutMs);

      try {
        stream = s.request(headers, { endStream: false });
      } catch (err) {
        finish(sessionError || err);
        return;
      }
      let httpStatus = 0;
      let contentType = '';
      let grpcEncoding;
      let headerStatus;
      let headerMessage;
      let trailerStatus;
      let trailerMessage;
      let trailersOnly = false;
      let size = 0;
      const chunks = [];

      stream.on('response', (h) => {
        httpStatus = Number(h[':status']) || 0;
        contentType = String(h['content-type'] || '');
        grpcEncoding = h['grpc-encoding'];
        if (h['grpc-status'] !== undefined) {
          trailersOnly = true;
          headerStatus = parseStatus(h['grpc-status']);
          headerMessage = h['grpc-message'];
        }
      });
      stream.on('trailers', (t) => {
        trailerStatus = parseStatus(t['grpc-status']);
        trailerMessage = t['grpc-message'];
      });
      stream.on('data', (d) => {
        size += d.length;
        if (size > MAX_RESPONSE_BYTES) {
          entry.cancel(codedError(`the answer to ${path} is larger than ${MAX_RESPONSE_BYTES} bytes`, 'ERR_GRPC_TOO_LARGE'));
          return;
        }
        chunks.push(d);
      });
      // A failed connection cancels its pending streams first; report the cause (ECONNREFUSED, a TLS error).
      stream.on('error', (err) => finish(sessionError || (err && err.code === 'ERR_HTTP2_STREAM_CANCEL' && err.cause) || err));
      stream.on('close', () => {
        if (settled) return;
        if (httpStatus === 0) {
          // Closed before any answer: a reset stream or a dead connection.
          finish(sessionError || codedError(`the stream of ${path} was closed without an answer (HTTP/2 code ${stream.rstCode})`, 'ERR_HTTP2_STREAM_ERROR'));
          return;
        }
        const status = trailerStatus !== undefined ? trailerStatus : headerStatus;
        const rawMessage = trailerStatus !== undefined ? trailerMessage : headerMessage;
        // Only a gRPC answer has length-prefixed messages; a proxy's error page or a web page has none.
        let messages = [];
        if (httpStatus === 200 && /^application\/grpc(?:[+;]|$)/.test(contentType)) {
          try {
            messages = decodeFrames(Buffer.concat(chunks), Array.isArray(grpcEncoding) ? grpcEncoding[0] : grpcEncoding, ACCEPT_ENCODINGS);
          } catch (err) {
            finish(err);
            return;
          }
        }
        finish(undefined, {
          grpcStatus: status !== undefined ? status : statusFromHttp(httpStatus),
          grpcMessage: decodeGrpcMessage(rawMessage),
          statusFromHttp: status === undefined,
          trailersOnly,
          httpStatus,
          contentType,
          messages,
        });
      });
      stream.end(message);
    });
  }

  function close() {
    closed = true;
    for (const p of [...pending]) p.cancel(codedError('the gRPC client was closed', 'ERR_GRPC_CLOSED'));
    const s = session;
    session = undefined;
    if (!s || s.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      s.close(() => resolve());
      // Nothing should be in flight any more; do not wait for a peer that never acknowledges.
      setTimeout(() => s.destroy(), 1000).unref();
    });
  }

  return { url: target.origin, call, close };
}

module.exports = {
  GrpcStatus,
  MAX_RESPONSE_BYTES,
  openGrpc,
  parseGrpcUrl,
  encodeEmpty,
  frame,
  decodeFrames,
  decodeGrpcMessage,
  statusFromHttp,
  decodeHealthCheckReply,
  decodeListCollections,
};
