/**
 * What a key that is a JWT says about itself: expiry, access in words, the collections it names. The signature is NOT
 * verified: the server has verified the key by then, and the names only add to what its answers show.
 */
import { plural } from '../runtime/text';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Larger `exp` values (year 5138 and later) count as no expiry; they also keep the ISO date at four digits. */
const MAX_EXP = 1e11;

/** `expiresAt` null without a valid `exp`; `collections` raw (whoever shows them cleans them). */
export type KeyInfo = ReturnType<typeof keyInfo>;

function decodePart(part: string): unknown {
  if (!/^[A-Za-z0-9_-]+$/.test(part)) return undefined;
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

type Claims = { [name: string]: unknown };
const isClaims = (x: unknown): x is Claims => Boolean(x) && typeof x === 'object' && !Array.isArray(x);

export function keyInfo(key: unknown) {
  const parts = typeof key === 'string' ? key.split('.') : [];
  const header = parts.length === 3 ? decodePart(parts[0]) : undefined;
  const payload = isClaims(header) && typeof header.alg === 'string' ? decodePart(parts[1]) : undefined;
  if (!isClaims(payload)) return { jwt: false, expiresAt: null as Date | null };
  const exp = payload.exp;
  // Qdrant reads `exp` as whole seconds (u64): a fraction or a string is no expiry here either.
  const expiresAt = typeof exp === 'number' && Number.isSafeInteger(exp) && exp >= 0 && exp < MAX_EXP ? new Date(exp * 1000) : null;
  if (!Array.isArray(payload.access)) return { jwt: true, expiresAt, access: accessInWords(payload.access) };
  const listed = payload.access.filter((a): a is Claims & { collection: string } => isClaims(a) && typeof a.collection === 'string');
  return {
    jwt: true,
    expiresAt,
    access: accessInWords(payload.access),
    collections: [...new Set(listed.map((a) => a.collection))],
    // Each collection's access code (r, rw, prw): a `prw` key may write points, not manage the collection.
    collectionAccess: Object.fromEntries(listed.filter((a) => typeof a.access === 'string').map((a) => [a.collection, a.access as string])),
  };
}

// A Map: the key's claim is looked up by its value, which may be "constructor" as well as "r".
const WORDS = new Map([['r', 'read-only'], ['m', 'manage'], ['rw', 'read-write'], ['prw', 'points read-write']]);

/** `r` → "read-only"; a collection list → "read-only on products, read-write on orders". */
export function accessInWords(access: unknown): string {
  if (access === undefined) return 'manage (no access claim)';
  if (typeof access === 'string') return WORDS.get(access) ?? 'unknown access';
  if (!Array.isArray(access)) return 'unknown access';
  const parts = access.map((a) => {
    const name = isClaims(a) && typeof a.collection === 'string' ? a.collection.replace(/[^\w.-]/g, '?').slice(0, 64) : '?';
    return `${(isClaims(a) && WORDS.get(String(a.access))) || 'unknown access'} on ${name}`;
  });
  return parts.length ? parts.join(', ') : 'no collections';
}

/** Whole days from `now` until `date` (negative when past), rounded down. */
export function daysUntil(date: Date, now: Date): number {
  return Math.floor((date.getTime() - now.getTime()) / DAY_MS);
}

/** "expires 2027-02-20 (in 90 days)" / "expired 2026-11-01 (21 days ago)". Whole days, rounded down. */
export function describeExpiry(date: Date, now: Date): string {
  const day = date.toISOString().slice(0, 10);
  const days = daysUntil(date, now);
  if (date.getTime() <= now.getTime()) {
    const ago = daysUntil(now, date);
    return ago === 0 ? `expired ${day} (less than a day ago)` : `expired ${day} (${plural(ago, 'day')} ago)`;
  }
  if (days === 0) return `expires ${day} (in less than a day)`;
  return `expires ${day} (in ${plural(days, 'day')})`;
}
