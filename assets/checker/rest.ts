/**
 * The checker's REST transport: node:http(s) directly, so redirects are never followed and TLS is always verified. One TLS
 * connection per cluster offers HTTP/2 (Qdrant speaks it): every request is a stream on it, one handshake for them all.
 */
import * as http from 'node:http';
import * as http2 from 'node:http2';
import * as https from 'node:https';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, ConnectionOptions, SecureContext, TLSSocket } from 'node:tls';
import { Answer, retryAfterSeconds, seconds } from './answers';
import type { BaseUrl } from './options';
import type { Probe } from './probes';
import { DEADLINE_TIMEOUT, Outcome, withRetries } from './retry';
import type { CheckContext } from './steps';
import { verifiedTls } from './trust';
import { RuntimeError, codeOf, messageOf } from '../runtime/errors';

const MAX_BODY_BYTES = 1024 * 1024; // a larger answer fails the step: a status, a version and a count are a few KB
export const USER_AGENT = 'qdrant-cluster-access-checker';
/** HTTP/1.1 connections of one cluster's check (a server without HTTP/2): its parallel requests. */
const MAX_SOCKETS = 6;

/** HTTP/2 stream and session failures that a new attempt may get past (as a reset connection). */
const H2_RESET_CODES = new Set(['ERR_HTTP2_STREAM_ERROR', 'ERR_HTTP2_STREAM_CANCEL', 'ERR_HTTP2_GOAWAY_SESSION', 'ERR_HTTP2_SESSION_ERROR', 'ERR_HTTP2_INVALID_SESSION']);

function closedError(message = 'connection closed while reading the answer'): RuntimeError {
  return new RuntimeError(message, 'ECONNRESET');
}

/** An HTTP/2 reset as a reset connection (retried), with Node's words; any other error as it is. */
export function h2Error(err: unknown): unknown {
  return H2_RESET_CODES.has(codeOf(err)) ? closedError(messageOf(err)) : err;
}

/** One cluster's REST connection, made on the first request: HTTP/2, else a keep-alive agent that starts with it (and for http://). */
export class RestClient {
  private readonly tlsOptions: ConnectionOptions;
  session?: http2.ClientHttp2Session;
  agent?: http.Agent;
  /** The first connection while it is made; then, for HTTP/1.1, the socket given to the agent. */
  private connecting?: { socket: TLSSocket; ready: Promise<'h1' | 'h2'> };
  private firstSocket?: TLSSocket;
  private closed = false;

  constructor(readonly target: BaseUrl, secureContext: SecureContext | undefined) {
    this.tlsOptions = verifiedTls(target.hostname, secureContext);
    if (target.protocol === 'http:') this.agent = new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });
  }

  /** Resolves 'h2' or 'h1' once requests can be sent; rejects with the connection's error. */
  ready(): Promise<'h1' | 'h2'> {
    if (this.closed) return Promise.reject(closedError());
    if (this.agent) return Promise.resolve('h1');
    if (this.session && !this.session.closed && !this.session.destroyed) return Promise.resolve('h2');
    if (this.connecting) return this.connecting.ready;
    const socket = tlsConnect({ host: this.target.hostname, port: this.target.port, ALPNProtocols: ['h2', 'http/1.1'], ...this.tlsOptions });
    const ready = new Promise<'h1' | 'h2'>((resolve, reject) => {
      const failed = (err: Error) => {
        this.connecting = undefined;
        socket.destroy();
        reject(err);
      };
      socket.once('error', failed);
      socket.once('secureConnect', () => {
        socket.removeListener('error', failed); // from here on, the session's or the agent's
        this.connecting = undefined;
        if (this.closed) {
          socket.destroy();
          reject(closedError());
        } else if (socket.alpnProtocol === 'h2') {
          const session = http2.connect(this.target.url, { createConnection: () => socket });
          session.on('error', () => undefined); // reported by the streams it ends
          session.on('close', () => {
            if (this.session === session) this.session = undefined;
          });
          this.session = session;
          resolve('h2');
        } else {
          // Until a request takes it (or destroy() ends it), an error on it must not be uncaught.
          socket.on('error', () => undefined);
          this.firstSocket = socket;
          this.agent = agentStartingWith(socket, this.tlsOptions);
          resolve('h1');
        }
      });
    });
    this.connecting = { socket, ready };
    return ready;
  }

  /** Gives up a connection still being made (a request timed out waiting for it): the next attempt makes a new one. */
  abandonConnecting(err: Error): void {
    if (this.connecting) this.connecting.socket.destroy(err);
  }

  destroy(): void {
    this.closed = true;
    this.connecting?.socket.destroy();
    this.session?.destroy();
    this.agent?.destroy();
    this.firstSocket?.destroy();
  }
}

/** A keep-alive HTTPS agent whose first socket is `socket` (already connected and verified). */
function agentStartingWith(socket: TLSSocket, tlsOptions: ConnectionOptions): https.Agent {
  const agent = new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, ...tlsOptions });
  let first: TLSSocket | undefined = socket;
  const base = agent as unknown as { createConnection(...args: unknown[]): Duplex };
  const create = base.createConnection;
  base.createConnection = function createConnection(this: unknown, ...args: unknown[]) {
    const s = first;
    first = undefined;
    return s && !s.destroyed ? s : create.apply(this, args);
  };
  return agent;
}

/** How an answer is taken in: settled once (a stream that closes after its answer rejects nothing). */
interface Answered {
  resolve(value: Answer): void;
  reject(err: unknown): void;
  tooLarge(): void;
}

/** The key's one credential header (Qdrant reads api-key first, even when it is empty), or gRPC metadata. */
export function credential(ctx: Pick<CheckContext, 'header' | 'key'>): Record<string, string> {
  return ctx.header === 'bearer' ? { authorization: `Bearer ${ctx.key}` } : { 'api-key': ctx.key };
}

/** One request of a probe (probes.ts). Resolves the answer; rejects on network/TLS errors and on timeout. */
function send(ctx: CheckContext, { method, withKey, body }: Probe['request'], path: string, timeoutMs: number, byDeadline: boolean): Promise<Answer> {
  const payload = body === undefined ? undefined : Buffer.from(body);
  const ofBody: Record<string, string> = payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {};
  const headers = { 'accept': 'application/json', 'user-agent': USER_AGENT, ...(withKey ? credential(ctx) : {}), ...ofBody };
  return new Promise((resolve, reject) => {
    let settled = false;
    let abort = (err: Error) => ctx.rest.abandonConnecting(err); // until the request is sent
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done();
    };
    // One timer for the whole request (connect + TLS + answer), not just socket idleness.
    const timer = setTimeout(() => {
      const err = new RuntimeError(`no answer within ${seconds(timeoutMs)}`, byDeadline ? DEADLINE_TIMEOUT : 'CHECK_TIMEOUT');
      settle(() => reject(err));
      abort(err);
    }, timeoutMs);
    const answered: Answered = {
      resolve: (value) => settle(() => resolve(value)),
      reject: (e) => settle(() => reject(e)),
      tooLarge: () => settle(() => reject(Object.assign(new RuntimeError(`answer larger than 1 MiB (${MAX_BODY_BYTES} bytes); stopped reading`,
        'ERR_ANSWER_TOO_LARGE'), { request: `${method} ${path}` }))),
    };
    ctx.rest.ready().then((protocol) => {
      if (settled) return;
      abort = protocol === 'h2'
        ? sendH2(ctx.rest.session, method, path, headers, payload, answered)
        : sendH1(ctx, method, path, headers, payload, answered);
    }, answered.reject).catch(answered.reject);
  });
}

/** Reads an answer; past MAX_BODY_BYTES the request fails and `abort` ends the stream (a server could send for ever). */
function readAnswer(stream: NodeJS.ReadableStream, status: number, headers: Answer['headers'], answered: Answered, abort: () => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) {
      chunks.push(chunk);
      return;
    }
    chunks.length = 0;
    answered.tooLarge();
    abort();
  });
  stream.on('end', () => answered.resolve({ status, headers, body: Buffer.concat(chunks).toString('utf8') }));
}

/** A request over HTTP/1.1 (keep-alive agent). Returns what aborts it. */
function sendH1(ctx: CheckContext, method: string, path: string, headers: Record<string, string>, payload: Buffer | undefined, answered: Answered) {
  const t = ctx.target;
  const transport = t.protocol === 'https:' ? https : http;
  const req = transport.request({
    host: t.hostname,
    port: t.port,
    path,
    method,
    headers,
    agent: ctx.rest.agent,
    ...(t.protocol === 'https:' ? { rejectUnauthorized: true } : {}),
  }, (res) => {
    readAnswer(res, res.statusCode as number, res.headers, answered, () => req.destroy());
    res.on('error', answered.reject);
    res.on('close', () => answered.reject(closedError()));
  });
  req.on('error', answered.reject);
  req.end(payload);
  return (err?: Error) => req.destroy(err);
}

/** A request as one stream of the HTTP/2 session. Returns what aborts it. */
function sendH2(session: http2.ClientHttp2Session | undefined, method: string, path: string, headers: Record<string, string>,
  payload: Buffer | undefined, answered: Answered): () => void {
  if (!session || session.closed || session.destroyed) {
    answered.reject(closedError()); // it went away between ready() and now: a new attempt connects anew
    return () => undefined;
  }
  let stream: http2.ClientHttp2Stream;
  try {
    stream = session.request({ ':method': method, ':path': path, ...headers }, { endStream: payload === undefined });
  } catch (err) {
    answered.reject(h2Error(err));
    return () => undefined;
  }
  const cancel = () => {
    if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
  };
  stream.on('response', (h) => {
    // Without a prototype: a header is data whatever its name (a server may send "__proto__").
    const resHeaders: Answer['headers'] = Object.create(null);
    for (const [name, value] of Object.entries(h)) if (!name.startsWith(':')) resHeaders[name] = value as string | string[] | undefined;
    readAnswer(stream, Number(h[':status']), resHeaders, answered, cancel);
  });
  stream.on('error', (err) => answered.reject(h2Error(err)));
  stream.on('close', () => answered.reject(closedError()));
  if (payload !== undefined) stream.end(payload);
  return cancel;
}

/** Delay before the next attempt, or undefined when this answer must not be retried. */
function retryDelay(res: Answer, backoffMs: number): number | undefined {
  const retryAfter = retryAfterSeconds(res); // a 429's only; bounded by the deadline
  if (retryAfter !== undefined) return retryAfter * 1000;
  return res.status === 429 || res.status >= 500 ? backoffMs : undefined; // never 401/403: a rejected key is not retried
}

/** A probe's request to `path` with retries, bounded by the check's deadline. */
export function attempt(ctx: CheckContext, request: Probe['request'], path: string): Promise<Outcome<Answer>> {
  return withRetries(ctx, (timeoutMs, byDeadline) => send(ctx, request, path, timeoutMs, byDeadline), retryDelay);
}
