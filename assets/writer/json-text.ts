/**
 * The top-level object of a JSON file (after an optional BOM), edited in place by its members' offsets
 * (pure functions): every byte not ours is kept. Anything else is refused, naming the line.
 */
import { TOOL } from './dotenv-blocks';
import { REFUSED } from './entries';
import { RuntimeError } from '../runtime/errors';

/** Where the object and each of its members are in the text (scanJsonObject). */
export type JsonObjectScan = ReturnType<typeof scanJsonObject>;

export function lineAt(text: string, offset: number): number {
  return (text.slice(0, offset).match(/\r\n|\r|\n/g) || []).length + 1;
}

/** Whether `prefix` can still start valid JSON: it parses, or fails only where it ends. */
function viablePrefix(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return true;
  } catch (err) {
    const message = (err as Error).message;
    const m = /position (\d+)/.exec(message);
    return /Unexpected end of JSON input/.test(message) || (m !== null && Number(m[1]) === prefix.length);
  }
}

/** " (line N)" of the first character making `text` invalid JSON (where V8 names none: the shortest non-viable prefix's). */
function jsonLineOf(text: string, err: unknown): string {
  const m = /position (\d+)/.exec(err instanceof Error ? err.message : '');
  const end = text.trimEnd().length;
  const endsEarly = ` (it ends early, at line ${lineAt(text, end)})`;
  if (m) return Number(m[1]) >= end ? endsEarly : ` (line ${lineAt(text, Number(m[1]))})`;
  let lo = 0; // viable
  let hi = text.length; // not viable
  if (viablePrefix(text)) return endsEarly;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (viablePrefix(text.slice(0, mid))) lo = mid;
    else hi = mid;
  }
  return ` (line ${lineAt(text, hi - 1)})`;
}

function skipWs(text: string, i: number): number {
  while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
  return i;
}

function skipString(text: string, i: number): number {
  i++; // opening quote
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

/** The end of the (valid) JSON value at `i`: a string, an object or array to its matching bracket, or a literal. */
function skipValue(text: string, i: number): number {
  if (!'"{['.includes(text[i])) {
    while (i < text.length && !',}] \t\r\n'.includes(text[i])) i++;
    return i;
  }
  let depth = 0;
  do {
    if (text[i] === '"') {
      i = skipString(text, i);
      continue;
    }
    if (text[i] === '{' || text[i] === '[') depth++;
    else if (text[i] === '}' || text[i] === ']') depth--;
    i++;
  } while (depth > 0);
  return i;
}

/** The offsets of a JSON object and its members; refuses text that is not valid JSON or not an object. */
export function scanJsonObject(text: string) {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let parsed;
  try {
    parsed = JSON.parse(text.slice(bom));
  } catch (err) {
    // A .env file with our block: a target switched from dotenv() to json() on the same path.
    const block = new RegExp(`^# >>> managed by ${TOOL} \\(([^)\\n]*)\\)`, 'm').exec(text);
    if (block) {
      throw new RuntimeError(`not valid JSON: it is a .env file holding a block managed by ${TOOL} (owner ${block[1].slice(0, 200)}), with keys; ` +
        'give the JSON target another file, or remove that block by hand (or switch the target back to SecretTarget.dotenv())', REFUSED);
    }
    throw new RuntimeError(`not valid JSON${jsonLineOf(text.slice(bom), err)}; fix it or choose another file`, REFUSED);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new RuntimeError('the JSON file does not hold an object at the top level; give the path of a file holding an object ({ ... })', REFUSED);
  }
  const open = skipWs(text, bom);
  const members: { key: string; start: number; valStart: number; valEnd: number }[] = [];
  let i = skipWs(text, open + 1);
  if (text[i] === '}') return { open, close: i, members };
  for (;;) {
    const start = i;
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(start, keyEnd));
    i = skipWs(text, keyEnd) + 1; // ':'
    const valStart = skipWs(text, i);
    const valEnd = skipValue(text, valStart);
    members.push({ key, start, valStart, valEnd });
    i = skipWs(text, valEnd);
    if (text[i] !== ',') return { open, close: i, members };
    i = skipWs(text, i + 1);
  }
}

/**
 * Removes the members whose key is in `names`, and the separator before each (undoing what planMerge
 * appended; the first's after it); `members`: how many are left.
 */
export function removeMembers(text: string, scan: JsonObjectScan, names: Set<string>): { text: string; members: number } {
  const doomed = scan.members.map((m, idx) => (names.has(m.key) ? idx : -1)).filter((idx) => idx >= 0);
  let out = text;
  // From the last to the second member, so the earlier offsets stay valid.
  for (const idx of doomed.filter((i) => i > 0).reverse()) {
    out = out.slice(0, scan.members[idx - 1].valEnd) + out.slice(scan.members[idx].valEnd);
  }
  const left = scan.members.length - doomed.length;
  if (doomed[0] === 0) {
    const s2 = scanJsonObject(out);
    const [m, next] = s2.members;
    out = next ? out.slice(0, m.start) + out.slice(next.start) : out.slice(0, s2.open + 1) + out.slice(s2.close);
  }
  return { text: out, members: left };
}
