/**
 * Class 1 of issue 29: the readers disagree on what a line is.
 *
 * An app reads the .env with one of the parsers the docs name: the npm `dotenv` package,
 * python-dotenv, or Node's own (`node --env-file`, process.loadEnvFile, util.parseEnv). They end
 * lines at different characters (pinned by the first test). A definition of one of our names that
 * any of them finds outside our block, hidden behind such a character in a comment, a trailing
 * comment or a value, reaches the app unchecked when it follows our block. So every hostile file
 * here is read by each of them for real: npm dotenv in-process, python-dotenv through python3,
 * `node --env-file` on the Node that runs the tests, and util.parseEnv (the same C++ parser) on
 * each other Node line that scripts/runtime-node-versions.sh cached. Whenever one of them sees
 * one of our names defined outside our block, the writer must refuse the file, naming the line as
 * an editor numbers it; a file it accepts must give every reader exactly the checked values.
 */
import * as dotenv from 'dotenv';
import { cachedNodeLines, Env, nodeEnvFile, nodeParseEnv, pythonDotenv } from '../writer/readers';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const w = require('../../assets/writer/dotenv.js');

const OWNER = 'shop/Qdrant';
const CHECKED: Record<string, string> = { QDRANT_URL: 'https://checked.example:6333', QDRANT_API_KEY: 'canary-readers-key-3b1f9e' };
const OURS = Object.keys(CHECKED);
const EVIL = 'https://elsewhere.example:6333';

/** Every character some program takes as a line end (Python's str.splitlines takes them all). */
const ENDS: Record<string, string> = Object.fromEntries([
  ['LF', '\n'], ['CRLF', '\r\n'], ['CR', '\r'], ['U+2028', '\u2028'], ['U+2029', '\u2029'],
  ['NEL', '\u0085'], ['VT', '\v'], ['FF', '\f'], ['U+001C', '\x1c'], ['U+001D', '\x1d'], ['U+001E', '\x1e'],
]);

type Reader = { name: string; read: (texts: string[]) => Promise<Env[]> };
const NODE = `node ${process.version} --env-file`;
const READERS: Reader[] = [
  { name: 'npm dotenv', read: async (texts) => texts.map((t) => dotenv.parse(t)) },
  { name: 'python-dotenv', read: async (texts) => pythonDotenv(texts, { allowWarnings: true }) },
  { name: NODE, read: (texts) => nodeEnvFile(process.execPath, texts) },
  ...cachedNodeLines().map(({ version, bin }) => ({ name: `node v${version} util.parseEnv`, read: (texts: string[]) => nodeParseEnv(bin, texts) })),
];

/** What every reader makes of each text: results[reader][text]. */
async function readAll(texts: string[]): Promise<Record<string, Env[]>> {
  const out: Record<string, Env[]> = {};
  for (const r of READERS) out[r.name] = await r.read(texts);
  return out;
}

/** The line an editor shows `index` on (\r\n, \n and a lone \r end a line, as python-dotenv counts too). */
const editorLine = (text: string, index: number) => 1 + (text.slice(0, index).match(/\r\n|\r|\n/g) ?? []).length;

const merge = (text: string, entries = CHECKED) => w.planMerge(text, entries, { owner: OWNER }).text as string;

test('the readers\' line ends, as each parser reads "# note<c>B=2" and "A=1<c>B=2"', async () => {
  const names = Object.keys(ENDS);
  const texts = names.flatMap((n) => [`# note${ENDS[n]}B=2\n`, `A=1${ENDS[n]}B=2\n`]);
  const read = await readAll(texts);
  const table = (reader: string) => names.filter((_, i) => read[reader][2 * i].B === '2');
  expect(table('npm dotenv')).toEqual(['LF', 'CRLF', 'CR', 'U+2028', 'U+2029']);
  expect(table('python-dotenv')).toEqual(['LF', 'CRLF', 'CR']);
  for (const r of READERS.slice(2)) {
    expect([r.name, table(r.name)]).toEqual([r.name, ['LF', 'CRLF']]);
    // Node deletes every \r: a lone one joins two lines.
    expect([r.name, read[r.name][2 * names.indexOf('CR') + 1]]).toEqual([r.name, { A: '1B=2' }]);
  }
});

// Where a definition may hide behind the character c: each builds one line of the user's
// (several, where c is a line end for all).
const HIDE: Record<string, (c: string) => string> = {
  'a comment line': (c) => `# copied from staging${c}QDRANT_URL=${EVIL}`,
  'a trailing comment': (c) => `APP_MODE=prod # note${c}QDRANT_URL=${EVIL}`,
  'a quoted value\'s trailing comment': (c) => `APP_MODE='prod' # note${c}export QDRANT_API_KEY=${EVIL}`,
  'an unquoted value': (c) => `APP_MODE=prod${c}QDRANT_URL=${EVIL}`,
  'an unquoted value with a #': (c) => `APP_MODE=prod#1${c}QDRANT_URL=${EVIL}`,
  'a quoted value with an escaped quote': (c) => `APP_MODE="say \\"hi${c}QDRANT_URL=${EVIL}${c}"`,
  'a quoted value after a tab': (c) => `APP_MODE=\t'multi${c}  QDRANT_URL=${EVIL}${c}'`,
  'the NAME: form, in a comment': (c) => `# note${c}QDRANT_URL: ${EVIL}`,
};
const HIDDEN_BY_NO_READER = ['NEL', 'VT', 'FF', 'U+001C', 'U+001D', 'U+001E'];

const USER = 'APP_NAME=shop\n';
const BLOCK = merge(USER).slice(USER.length);

type Case = { ctx: string; where: 'after' | 'before' | 'inside'; text: string; read: string; line: number };
function cases(c: string): Case[] {
  return Object.entries(HIDE).flatMap(([ctx, hide]) => {
    const line = hide(c) + '\n';
    const end = BLOCK.lastIndexOf('# <<<');
    const texts = {
      after: USER + BLOCK + line,
      before: USER + line + BLOCK,
      inside: USER + BLOCK.slice(0, end) + line + BLOCK.slice(end),
    };
    return (['after', 'before', 'inside'] as const).map((where) => {
      const text = texts[where];
      // Before our block, the readers read the user's part alone: our block would hide what they see there.
      return { ctx, where, text, read: where === 'before' ? USER + line : text, line: editorLine(text, text.indexOf(EVIL)) };
    });
  });
}

/** What is wrong, for each reader, with our names in `env` (read from `c.read`): [] when nothing. */
function wrong(c: Case, env: Env): string[] {
  if (c.where === 'before') return OURS.filter((n) => n in env).map((n) => `defines ${n}`);
  return OURS.filter((n) => env[n] !== CHECKED[n]).map((n) => `reads ${n} as ${JSON.stringify(env[n])}`);
}

describe.each(Object.keys(ENDS))('a definition hidden behind %s', (end) => {
  test('is refused, with its line, whenever a reader would see it; a file the writer accepts reads the same everywhere', async () => {
    const all = cases(ENDS[end]);
    const read = await readAll(all.map((c) => c.read));
    const problems: string[] = [];
    const accepted: { c: Case; out: string }[] = [];
    all.forEach((c, i) => {
      const seen = READERS.flatMap((r) => wrong(c, read[r.name][i]).map((s) => `${r.name} ${s}`));
      let out: string | undefined;
      let error = '';
      try {
        out = merge(c.text);
      } catch (e) {
        error = (e as Error).message;
      }
      const label = `${c.ctx}, ${c.where} our block`;
      if (out === undefined) {
        if (!new RegExp(`^line ${c.line}\\b`).test(error)) problems.push(`${label}: refused without naming line ${c.line}: ${error}`);
        if (error.includes(EVIL) || error.includes(CHECKED.QDRANT_API_KEY)) problems.push(`${label}: the message holds a value`);
        if (HIDDEN_BY_NO_READER.includes(end)) problems.push(`${label}: refused, though no reader ends a line at ${end}: ${error}`);
      } else {
        // Inside our block, the writer may instead set the definition to the checked value (read again below).
        if (seen.length > 0 && (c.where !== 'inside' || out === c.text)) {
          problems.push(`${label}: accepted${out === c.text ? ' as unchanged' : ''}, but ${seen.join('; ')}`);
        }
        accepted.push({ c, out });
      }
    });
    // What the writer accepted and changed (a definition inside our block set to the checked
    // value), every reader reads as checked, and no reader finds our names outside the block.
    const changed = accepted.filter(({ c, out }) => out !== c.text);
    const reread = await readAll(changed.map(({ out }) => out));
    changed.forEach(({ c, out }, i) => {
      for (const r of READERS) {
        const bad = wrong({ ...c, where: 'after', text: out, read: out }, reread[r.name][i]);
        if (bad.length > 0) problems.push(`${c.ctx}, ${c.where} our block: written, but ${r.name} ${bad.join('; ')}`);
      }
    });
    expect(problems).toEqual([]);
    expect(accepted.length + problems.length).toBeGreaterThan(0);
  }, 120_000);
});

test('our block reads the same in every reader, whatever the line ends of the file around it', async () => {
  const more: Record<string, string> = { ...CHECKED, QDRANT_GRPC_URL: 'https://checked.example:6334' };
  const block = merge(USER);
  const end = block.lastIndexOf('# <<<');
  const files: Record<string, string> = {
    'LF': 'A=1\nB=2\n',
    'CRLF': 'A=1\r\nB=2\r\n',
    'CR': 'A=1\rB=2\r',
    'CR, no final line end': 'A=1\rB=2',
    'CR, then LF': 'A=1\rB=2\n',
    'a U+2028 at the end': 'A=1\n# note\u2028',
    'a comment ending in U+2028 inside our block': block.slice(0, end) + '# note\u2028' + block.slice(end),
    'a comment ending in a lone CR inside our block': block.slice(0, end) + '# note\r' + block.slice(end),
    'a comment ending in U+2029 before our end marker, our block CRLF': merge('A=1\r\n').replace('\r\n# <<<', '\r\n# note\u2029# <<<'),
    // Node 22 and later read `X= ` on into the next line that is not blank; Node 20 an indented comment.
    'an empty value and a space inside our block': block.slice(0, end) + 'X= \n\n' + block.slice(end),
    'an indented comment inside our block': block.slice(0, end) + '  # note\n' + block.slice(end),
  };
  const written: { name: string; text: string }[] = [];
  const problems: string[] = [];
  for (const [name, text] of Object.entries(files)) {
    try {
      written.push({ name, text: merge(text, more) });
    } catch (e) {
      const m = /^line (\d+)\b/.exec((e as Error).message);
      if (!m) problems.push(`${name}: refused without a line: ${(e as Error).message}`);
    }
  }
  const read = await readAll(written.map((x) => x.text));
  written.forEach(({ name }, i) => {
    for (const r of READERS) {
      const env = read[r.name][i];
      const bad = Object.keys(more).filter((n) => env[n] !== more[n]);
      if (bad.length > 0) problems.push(`${name}: ${r.name} reads ${bad.map((n) => `${n} as ${JSON.stringify(env[n])}`).join(', ')}`);
    }
  });
  expect(problems).toEqual([]);
  // Files whose line ends every reader takes are written, not refused.
  expect(written.map((x) => x.name)).toEqual(expect.arrayContaining(['LF', 'CRLF', 'CR', 'CR, no final line end', 'CR, then LF', 'a U+2028 at the end']));
}, 120_000);
