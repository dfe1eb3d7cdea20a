/**
 * HS256 JSON Web Tokens for tests, the kind Qdrant accepts when `jwt_rbac` is on: signed with the
 * server's manage key (`service.api_key`), claims `exp` (unix seconds, 30 s leeway on the server)
 * and `access` (see the Qdrant auth reference, §1.9). Signing for tests, and verification as Qdrant
 * does it for the stand-in. node:crypto only.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Access to one collection: `r` read, `rw` read and write. */
export interface CollectionAccess {
  readonly collection: string;
  readonly access: 'r' | 'rw';
}

/** Global read (`r`), global manage (`m`), or a list of collections. A token without `access` manages everything. */
export type JwtAccess = 'r' | 'm' | readonly CollectionAccess[];

/** The claims these helpers make; any other claim can be added by passing a plain object to {@link signJwt}. */
export interface QdrantClaims {
  /** Expiry, in unix seconds. */
  readonly exp?: number;
  readonly access?: JwtAccess;
  readonly [claim: string]: unknown;
}

export interface ClaimsOptions {
  /** Seconds from now until `exp`; negative for a token that expired that long ago. Default: no `exp`. */
  readonly expiresIn?: number;
  /** Default: no `access` claim (full manage access). */
  readonly access?: JwtAccess;
  /** The clock, in ms since the epoch. Default `Date.now()`. */
  readonly now?: number;
}

/** base64url without padding (RFC 7515 §2). */
export function base64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Signs `claims` with HS256 under `secret`: `<header>.<claims>.<signature>`, header `{"alg":"HS256","typ":"JWT"}`. */
export function signJwt(secret: string, claims: object): string {
  const signingInput = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${base64url(createHmac('sha256', secret).update(signingInput).digest())}`;
}

/** Unix seconds `offsetSeconds` from now (or from `now`, in ms). */
export function expIn(offsetSeconds: number, now: number = Date.now()): number {
  return Math.floor(now / 1000) + offsetSeconds;
}

/** Claims with an optional `exp` (relative to now) and an optional `access`. */
export function makeClaims(options: ClaimsOptions = {}): QdrantClaims {
  return {
    ...(options.expiresIn === undefined ? {} : { exp: expIn(options.expiresIn, options.now) }),
    ...(options.access === undefined ? {} : { access: options.access }),
  };
}

/** A token for global read (`r`), valid for an hour unless `expiresIn` says otherwise. */
export function readJwt(secret: string, expiresIn = 3600): string {
  return signJwt(secret, makeClaims({ access: 'r', expiresIn }));
}

/** A token for global manage (`m`), valid for an hour unless `expiresIn` says otherwise. */
export function manageJwt(secret: string, expiresIn = 3600): string {
  return signJwt(secret, makeClaims({ access: 'm', expiresIn }));
}

/** A token limited to the given collections, valid for an hour unless `expiresIn` says otherwise. */
export function collectionJwt(secret: string, collections: readonly CollectionAccess[], expiresIn = 3600): string {
  return signJwt(secret, makeClaims({ access: collections, expiresIn }));
}

/** The decoded claims of a token (no signature check), for assertions. */
export function decodeJwtClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  return parts.length === 3 ? decodePart(parts[1]) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Verification, as Qdrant's `jwt_rbac` does it (for the stand-in)

/** What a valid token may do: global read or manage, or read / read-write on some collections. */
export type Grant =
  | { readonly global: 'm' | 'r' }
  | { readonly collections: ReadonlyMap<string, 'r' | 'rw'> };

/** A valid token's grant, or the auth layer's rejection: status and plain-text body. */
export type JwtVerdict =
  | { readonly ok: true; readonly grant: Grant }
  | { readonly ok: false; readonly status: 401 | 403; readonly text: string };

/** Qdrant gives `exp` 30 s of leeway. */
export const JWT_LEEWAY_SECONDS = 30;
const INVALID = 'Invalid API key or JWT';

/**
 * Verifies `token` against `secrets` in the order Qdrant 1.18.3 (jsonwebtoken) does, with the answers
 * measured on a real server:
 *   1. not three base64url parts, or `alg` is not HS256            → 401 `Invalid API key or JWT`
 *   2. no secret gives the signature                                → 403 `InvalidSignature`
 *   3. claims do not fit (`exp` not a whole number ≥ 0; `access`
 *      not `r`, `m` or a list of `{collection, access: r|rw|prw}`)  → 401 `Invalid API key or JWT`
 *      (a deprecated `payload` constraint                           → 401 with Qdrant's validator message)
 *   4. `exp` + 30 s is in the past                                  → 403 `ExpiredSignature`
 * No `access` means global manage; no `exp` means no expiry; other claims are ignored.
 */
export function verifyJwt(token: string, secrets: readonly string[], nowMs: number = Date.now()): JwtVerdict {
  const invalid: JwtVerdict = { ok: false, status: 401, text: INVALID };
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every(isBase64url)) return invalid;
  const header = decodePart(parts[0]);
  if (header?.alg !== 'HS256') return invalid;
  const signature = Buffer.from(parts[2], 'base64url');
  const signingInput = `${parts[0]}.${parts[1]}`;
  const signed = secrets.some((secret) => {
    const mac = createHmac('sha256', secret).update(signingInput).digest();
    return mac.length === signature.length && timingSafeEqual(mac, signature);
  });
  if (!signed) return { ok: false, status: 403, text: 'InvalidSignature' };
  const payload = decodePart(parts[1]);
  if (!payload) return invalid;
  const exp = payload.exp;
  if (exp !== undefined && exp !== null && !(typeof exp === 'number' && Number.isSafeInteger(exp) && exp >= 0)) return invalid;
  if (payload.value_exists !== undefined) return { ok: false, status: 401, text: 'value_exists is not modelled by this verifier' };
  const grant = grantOf(payload.access);
  if (typeof grant === 'string') return { ok: false, status: 401, text: grant };
  if (grant === undefined) return invalid;
  if (typeof exp === 'number' && exp + JWT_LEEWAY_SECONDS < Math.floor(nowMs / 1000)) return { ok: false, status: 403, text: 'ExpiredSignature' };
  return { ok: true, grant };
}

/** The grant of an `access` claim; undefined when it does not parse; a string for a validation message. */
function grantOf(claim: unknown): Grant | string | undefined {
  if (claim === undefined || claim === null || claim === 'm') return { global: 'm' };
  if (claim === 'r') return { global: 'r' };
  if (!Array.isArray(claim)) return undefined;
  const collections = new Map<string, 'r' | 'rw'>();
  for (const [i, entry] of claim.entries()) {
    const e = entry as { collection?: unknown; access?: unknown; payload?: unknown } | null;
    if (e === null || typeof e !== 'object' || typeof e.collection !== 'string') return undefined;
    if (e.access !== 'r' && e.access !== 'rw' && e.access !== 'prw') return undefined;
    if (e.payload !== undefined) return `access[${i}].payload: The 'payload' constraint is deprecated and should not be used`;
    // `prw` (points read-write) may write points like `rw`: the probes make no other difference.
    collections.set(e.collection, e.access === 'r' && collections.get(e.collection) !== 'rw' ? 'r' : 'rw');
  }
  return { collections };
}

function isBase64url(part: string): boolean {
  return /^[A-Za-z0-9_-]*$/.test(part) && part.length % 4 !== 1;
}

function decodePart(part: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}
