/** The messages of the checker's gRPC calls: framing, statuses, and a tiny protobuf reader for its two answers. */
import { RuntimeError } from '../runtime/errors';
import { clip } from '../runtime/text';

/** At most this many bytes of one answer are read: Qdrant's answers to the checker are a few hundred bytes. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

/** gRPC status codes used here (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
export const GrpcStatus = Object.freeze({
  OK: 0,
  UNKNOWN: 2,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
});

/** Percent-decodes grpc-message (gRPC's HTTP/2 spec): each run of escapes as UTF-8 bytes; malformed escapes stay as they are. */
export function decodeGrpcMessage(value: string | string[] | undefined): string {
  if (value === undefined) return '';
  const text = Array.isArray(value) ? value.join(',') : String(value);
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}

/** The gRPC status for an answer without grpc-status (gRPC's "HTTP to gRPC status code mapping"). */
export function statusFromHttp(httpStatus: number): number {
  switch (httpStatus) {
    case 400: return GrpcStatus.INTERNAL;
    case 401: return GrpcStatus.UNAUTHENTICATED;
    case 403: return GrpcStatus.PERMISSION_DENIED;
    case 404: return GrpcStatus.UNIMPLEMENTED;
    case 429: case 502: case 503: case 504: return GrpcStatus.UNAVAILABLE;
    default: return httpStatus === 200 ? GrpcStatus.INTERNAL : GrpcStatus.UNKNOWN;
  }
}

/** Frames one serialized protobuf message: 1 byte "compressed" flag (0), 4 bytes big-endian length. */
export function frame(payload: Uint8Array): Buffer {
  const body = Buffer.from(payload);
  const head = Buffer.alloc(5);
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** The framed empty message (`HealthCheckRequest{}`, `ListCollectionsRequest{}`): 00 00 00 00 00. */
export function encodeEmpty(): Buffer {
  return Buffer.alloc(5);
}

/** The message encodings a call accepts (its grpc-accept-encoding): Qdrant's answers are small. */
export const ACCEPT_ENCODINGS = Object.freeze(['identity']);

/** A body's message payloads; a compressed message (the client accepts none) or a malformed one: ERR_GRPC_FRAME. */
export function decodeFrames(body: Buffer, encoding?: string): Buffer[] {
  const messages = [];
  let offset = 0;
  while (offset < body.length) {
    if (body.length - offset < 5) throw new RuntimeError('truncated gRPC message header', 'ERR_GRPC_FRAME');
    const compressed = body[offset];
    const length = body.readUInt32BE(offset + 1);
    offset += 5;
    if (length > body.length - offset) throw new RuntimeError('truncated gRPC message', 'ERR_GRPC_FRAME');
    if (compressed === 1) {
      const shown = JSON.stringify(clip(String(encoding ?? ''), 40));
      throw new RuntimeError(ACCEPT_ENCODINGS.includes(encoding as string) ? `compressed gRPC message with unsupported encoding ${shown}`
        : `a message compressed with ${shown} (grpc-encoding), but the checker accepts only uncompressed ones (grpc-accept-encoding: ` +
        `${ACCEPT_ENCODINGS.join(', ')}) — a server may compress only with an encoding the client accepts; check the gRPC address`, 'ERR_GRPC_FRAME');
    }
    if (compressed !== 0) throw new RuntimeError('invalid gRPC message flag', 'ERR_GRPC_FRAME');
    messages.push(Buffer.from(body.subarray(offset, offset + length)));
    offset += length;
  }
  return messages;
}

/** The fields of one protobuf message: a Buffer for wire type 2 (and the fixed types), a bigint for a varint. */
function readFields(buf: Buffer): { field: number; wireType: number; value: Buffer | bigint }[] {
  const fields = [];
  let pos = 0;
  const varint = () => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new RuntimeError('truncated protobuf varint', 'ERR_PROTOBUF');
      const b = buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return result;
      shift += 7n;
      if (shift > 63n) throw new RuntimeError('protobuf varint too long', 'ERR_PROTOBUF');
    }
  };
  const take = (n: number) => {
    if (n > buf.length - pos) throw new RuntimeError('truncated protobuf field', 'ERR_PROTOBUF');
    const out = buf.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  while (pos < buf.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wireType = Number(key & 7n);
    if (field === 0) throw new RuntimeError('protobuf field number 0', 'ERR_PROTOBUF');
    let value;
    switch (wireType) {
      case 0: value = varint(); break;
      case 1: value = take(8); break;
      case 2: value = take(Number(varint())); break;
      case 5: value = take(4); break;
      default: throw new RuntimeError(`unsupported protobuf wire type ${wireType}`, 'ERR_PROTOBUF');
    }
    fields.push({ field, wireType, value });
  }
  return fields;
}

/** The last value of string field `n` (proto3: the last one wins), or undefined. */
function stringField(fields: ReturnType<typeof readFields>, n: number): string | undefined {
  let out;
  for (const f of fields) if (f.field === n && f.wireType === 2) out = (f.value as Buffer).toString('utf8');
  return out;
}

/** Decodes `HealthCheckReply{ string title = 1; string version = 2; optional string commit = 3; }` (ERR_PROTOBUF when malformed). */
export function decodeHealthCheckReply(buf: Uint8Array): { title: string; version: string; commit?: string } {
  const fields = readFields(Buffer.from(buf));
  const commit = stringField(fields, 3);
  return {
    title: stringField(fields, 1) ?? '',
    version: stringField(fields, 2) ?? '',
    ...(commit === undefined ? {} : { commit }),
  };
}

/** Decodes `ListCollectionsResponse{ repeated CollectionDescription{ string name = 1; } collections = 1; double time = 2; }` to the names. */
export function decodeListCollections(buf: Uint8Array): string[] {
  return readFields(Buffer.from(buf))
    .filter((f) => f.field === 1 && f.wireType === 2)
    .map((f) => stringField(readFields(f.value as Buffer), 1) ?? '');
}
