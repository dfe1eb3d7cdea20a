/** `createdOn` + `rotateAfterDays`: the day a key is due, in UTC calendar days (no time zone). */
import { Annotations, Token } from 'cdktf';
import { IConstruct } from 'constructs';
import { errors } from './errors';

export const DEFAULT_ROTATE_AFTER_DAYS = 90;
const MAX_ROTATE_AFTER_DAYS = 3650;

/** Fixes "today" (`YYYY-MM-DD`) for tests and reproducible builds. */
const TODAY_CONTEXT_KEY = 'cdktf-qdrant-cluster-access:today';

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Milliseconds since the epoch of a real calendar date `YYYY-MM-DD` (UTC), else undefined. */
function parseIsoDate(value: string): number | undefined {
  const m = ISO_DATE.exec(value);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC: that reads the years 0-99 as 1900-1999.
  const back = new Date(0);
  back.setUTCFullYear(y, mo - 1, d);
  // Rejects 2025-02-30 and friends, which Date.UTC would roll over into March.
  return back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d ? undefined : back.getTime();
}

function formatIsoDate(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

const validDays = (days: number) => Number.isInteger(days) && days >= 1 && days <= MAX_ROTATE_AFTER_DAYS;

/** The day a key is due for rotation (`YYYY-MM-DD`), or undefined when it cannot be known. */
export function rotationDueOn(createdOn: string | undefined, rotateAfterDays: number): string | undefined {
  const created = typeof createdOn === 'string' && !Token.isUnresolved(createdOn) ? parseIsoDate(createdOn) : undefined;
  if (created === undefined || Token.isUnresolved(rotateAfterDays) || !validDays(rotateAfterDays)) return undefined;
  return formatIsoDate(created + rotateAfterDays * DAY_MS);
}

/** "Today" for the overdue check: the context value when set, else the real date (UTC). */
export function today(scope: IConstruct): string {
  const fixed = scope.node.tryGetContext(TODAY_CONTEXT_KEY);
  return typeof fixed === 'string' ? fixed : formatIsoDate(Date.now());
}

/** Validation errors of a key's rotation settings (wrong types are the props check's). */
export function rotationProblems(scope: IConstruct, keyName: string, createdOn: string | undefined, rotateAfterDays: number): string[] {
  const problems: string[] = [];
  // Tokens: the due date would silently not be computed.
  if (typeof createdOn === 'string') {
    if (Token.isUnresolved(createdOn)) problems.push(errors.rotationToken(keyName, 'createdOn'));
    else if (parseIsoDate(createdOn) === undefined) problems.push(errors.createdOn(keyName, createdOn));
  }
  if (typeof rotateAfterDays === 'number' && !Number.isNaN(rotateAfterDays)) {
    if (Token.isUnresolved(rotateAfterDays)) problems.push(errors.rotationToken(keyName, 'rotateAfterDays'));
    else if (!validDays(rotateAfterDays)) problems.push(errors.rotateAfterDays(keyName, rotateAfterDays, DEFAULT_ROTATE_AFTER_DAYS));
  }
  const fixed = scope.node.tryGetContext(TODAY_CONTEXT_KEY);
  if (fixed !== undefined && (typeof fixed !== 'string' || parseIsoDate(fixed) === undefined)) {
    problems.push(errors.todayContext(TODAY_CONTEXT_KEY, fixed));
  } else if (typeof createdOn === 'string' && !Token.isUnresolved(createdOn)) {
    // A day of slack: the console's day may already be tomorrow in UTC. `now` parses: the context is unset or valid here.
    const now = today(scope);
    const created = parseIsoDate(createdOn);
    if (created !== undefined && created > parseIsoDate(now)! + DAY_MS) problems.push(errors.createdOnFuture(keyName, createdOn, now));
  }
  return problems;
}

/** Warns on the key when today is on or after its due date. */
export function warnIfRotationDue(scope: IConstruct, keyName: string, createdOn: string | undefined, rotateAfterDays: number): void {
  const due = rotationDueOn(createdOn, rotateAfterDays);
  const now = parseIsoDate(today(scope));
  if (due === undefined || now === undefined || now < parseIsoDate(due)!) return;
  Annotations.of(scope).addWarning(errors.rotationDue(keyName, createdOn!, due, rotateAfterDays));
}
