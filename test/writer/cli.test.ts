/**
 * assets/writer/cli.js as a real child process: the output line, exit codes, JSON files,
 * usage and failure paths, and parallel writers on one file. Every run's stdout/stderr is
 * scanned for the canary secrets: none may ever be printed.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as dotenv from 'dotenv';
import { runNode } from '../../tools/testing/run-node';

const CLI = path.join(__dirname, '..', '..', 'assets', 'writer', 'cli.js');
const SECRET = 'canary-secret-cli-9d41e0';
const SECRET2 = 'canary-secret-cli-second-77aa';
/** Short enough to be shown if it were not registered as a secret before the command line is read. */
const SHORT_SECRET = 'sh0rt-k3y';
const CANARIES = [SECRET, SECRET2, SHORT_SECRET];
const outputs: string[] = [];

interface Run { code: number | null; stdout: string; stderr: string }

async function cli(args: string[], entries?: unknown, extraEnv: Record<string, string> = {}): Promise<Run> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.QCA_ENTRIES;
  delete env.QCA_ENTRIES_FROM_ENV;
  delete env.QCA_ENTRIES_SHA256;
  Object.assign(env, extraEnv);
  if (entries !== undefined) env.QCA_ENTRIES = typeof entries === 'string' ? entries : JSON.stringify(entries);
  const { code, stdout, stderr } = await runNode([CLI, ...args], { env, outputs });
  return { code, stdout, stderr };
}

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-cli-'));
});
afterEach(() => {
  // Nothing may be left behind: no temp files, no lock files.
  expect(fs.readdirSync(dir).filter((n) => /\.(tmp|lock)$|\.lock\.stale/.test(n))).toEqual([]);
  fs.rmSync(dir, { recursive: true, force: true });
});
afterAll(() => {
  expect(outputs.length).toBeGreaterThan(20);
  for (const o of outputs) for (const c of CANARIES) expect(o).not.toContain(c);
});

const FOREIGN = '# my app\r\nexport DATABASE_URL="postgres://u:p@h/db" # keep\r\n\r\nMULTI="a\r\nb"\r\nTRAIL=x';
const ENTRIES = { QDRANT_PROD_EU_URL: 'https://h:6333', QDRANT_PROD_EU_API_KEY: SECRET };

describe('values from the environment (QCA_ENTRIES_FROM_ENV)', () => {
  test('a key read from TF_VAR_... lands in the file and never in the output', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, FOREIGN, { mode: 0o600 });
    const r = await cli(['write', '--file', f, '--owner', 'o'], { QDRANT_URL: 'https://h:6333' }, {
      QCA_ENTRIES_FROM_ENV: JSON.stringify({ QDRANT_API_KEY: 'TF_VAR_qdrant_api_key_search' }),
      TF_VAR_qdrant_api_key_search: SECRET,
    });
    expect(r).toEqual({ code: 0, stdout: `wrote 2 entries to ${f} (0 updated, 2 added)\n`, stderr: '' });
    expect(dotenv.parse(fs.readFileSync(f, 'utf8'))).toMatchObject({ QDRANT_URL: 'https://h:6333', QDRANT_API_KEY: SECRET });
  });

  test('an unset variable fails naming it and how to set it; the file is unchanged', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, FOREIGN, { mode: 0o600 });
    const r = await cli(['write', '--file', f, '--owner', 'o'], { QDRANT_URL: 'https://h:6333' }, {
      QCA_ENTRIES_FROM_ENV: JSON.stringify({ QDRANT_API_KEY: 'TF_VAR_qdrant_api_key_unset_here' }),
    });
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: 'qdrant-cluster-access-writer: error: entry QDRANT_API_KEY: environment variable TF_VAR_qdrant_api_key_unset_here is not set or empty; ' +
        'run read -rs TF_VAR_qdrant_api_key_unset_here && export TF_VAR_qdrant_api_key_unset_here, paste the key (it is neither shown nor kept in the shell\'s history), ' +
        `then cdktf deploy (a value given with -var or a .tfvars file does not reach this step); ${f} was not changed\n`,
    });
    expect(fs.readFileSync(f, 'utf8')).toBe(FOREIGN);
  });

  test('a reference that is not a variable name is a usage error', async () => {
    const r = await cli(['write', '--file', path.join(dir, '.env'), '--owner', 'o'], {}, {
      QCA_ENTRIES_FROM_ENV: JSON.stringify({ QDRANT_API_KEY: 'not a name' }),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^qdrant-cluster-access-writer: error: QCA_ENTRIES_FROM_ENV: entry QDRANT_API_KEY must name an environment variable\n/);
  });

  test('a name that is not a variable name (a usage error, named as QCA_ENTRIES_FROM_ENV\'s), or that may be a key (not shown)', async () => {
    for (const [name, code] of [['not a name', 2], ['Zq8vR2mX9pL4tW7yB3nK6cF1hJ5dG0sA8eU2iO4rT6wY9x', 1]] as const) {
      const r = await cli(['write', '--file', path.join(dir, '.env'), '--owner', 'o'], {}, { QCA_ENTRIES_FROM_ENV: JSON.stringify({ [name]: 'TF_VAR_unset_here' }) });
      expect(r.code).toBe(code);
      expect(r.stderr).toMatch(/^qdrant-cluster-access-writer: error: (QCA_ENTRIES_FROM_ENV: entry name "not a name" is not a valid variable name|entry \(not shown: it may be a key\): environment)/);
      expect(r.stderr).not.toContain('Zq8vR2');
    }
    // A long name of short upper-case words is the library's (several clusters): shown.
    const r = await cli(['write', '--file', path.join(dir, '.env'), '--owner', 'o'], {}, {
      QCA_ENTRIES_FROM_ENV: JSON.stringify({ QDRANT_PROD_EU_WEST_API_KEY: 'TF_VAR_qdrant_api_key_unset_here' }),
    });
    expect(r.stderr).toMatch(/^qdrant-cluster-access-writer: error: entry QDRANT_PROD_EU_WEST_API_KEY: environment variable TF_VAR_qdrant_api_key_unset_here is not set/);
  });
});

describe('dotenv format', () => {
  test('write, rewrite, update, remove: counts only, and the original comes back exactly', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, FOREIGN, { mode: 0o600 });
    const base = ['--file', f, '--format', 'dotenv', '--owner', 'prod-eu'];

    let r = await cli(['write', ...base], ENTRIES);
    expect(r).toEqual({ code: 0, stdout: `wrote 2 entries to ${f} (0 updated, 2 added)\n`, stderr: '' });
    const parsed = dotenv.parse(fs.readFileSync(f, 'utf8'));
    expect(parsed).toMatchObject({ ...ENTRIES, DATABASE_URL: 'postgres://u:p@h/db', MULTI: 'a\nb', TRAIL: 'x' });
    expect(fs.statSync(f).mode % 0o1000).toBe(0o600);

    r = await cli(['write', ...base], ENTRIES);
    expect(r.stdout).toBe(`wrote 2 entries to ${f} (0 updated, 0 added, 2 unchanged)\n`);

    r = await cli(['write', ...base], { ...ENTRIES, QDRANT_PROD_EU_API_KEY: SECRET2 });
    expect(r.stdout).toBe(`wrote 2 entries to ${f} (1 updated, 0 added, 1 unchanged)\n`);
    expect(dotenv.parse(fs.readFileSync(f, 'utf8')).QDRANT_PROD_EU_API_KEY).toBe(SECRET2);

    r = await cli(['remove', ...base], ENTRIES);
    expect(r).toEqual({ code: 0, stdout: `removed 2 entries from ${f} (0 not present)\n`, stderr: '' });
    expect(fs.readFileSync(f, 'utf8')).toBe(FOREIGN);
  });

  test('a new file is created with mode 0600 and deleted again by remove; remove on a missing file does not create it', async () => {
    const f = path.join(dir, '.env');
    let r = await cli(['remove', '--file', f, '--owner', 'o'], ['QDRANT_X']);
    expect(r).toEqual({ code: 0, stdout: `removed 0 entries from ${f} (1 not present, file does not exist)\n`, stderr: '' });
    expect(fs.existsSync(f)).toBe(false);
    r = await cli(['write', `--file=${f}`, '--owner=o'], ENTRIES);
    expect(r).toEqual({ code: 0, stdout: `wrote 2 entries to ${f} (0 updated, 2 added, file created)\n`, stderr: '' });
    expect(fs.statSync(f).mode % 0o1000).toBe(0o600);
    r = await cli(['remove', `--file=${f}`, '--owner=o'], ENTRIES);
    expect(r).toEqual({ code: 0, stdout: `removed 2 entries from ${f} (0 not present, file deleted: this tool had created it)\n`, stderr: '' });
    expect(fs.existsSync(f)).toBe(false);
  });

  test('remove of a block whose record line was deleted by hand leaves its lines and names them (a key may be among them)', async () => {
    const f = path.join(dir, '.env');
    await cli(['write', '--file', f, '--owner', 'o'], ENTRIES);
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/^# cdktf-qdrant-cluster-access entries: .*\n/m, ''));
    const before = fs.readFileSync(f, 'utf8');
    const r = await cli(['remove', '--file', f, '--owner', 'o'], []);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`removed 0 entries from ${f} (0 not present; the managed block of owner o has no record line ` +
      `(# cdktf-qdrant-cluster-access entries: ...), so 2 entries in it were left: ${Object.keys(ENTRIES).join(', ')}; delete the ones this tool wrote by hand)\n`);
    expect(fs.readFileSync(f, 'utf8')).toBe(before);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  test('remove without a block of ours changes nothing and says so; our names outside it are left in place', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, FOREIGN + '\nQDRANT_PROD_EU_URL=mine\n');
    const before = fs.readFileSync(f);
    const r = await cli(['remove', '--file', f, '--owner', 'o'], Object.keys(ENTRIES));
    expect(r).toEqual({
      code: 0,
      stdout: `removed 0 entries from ${f} (1 not present, 1 not ours left in place; no managed block of owner o in it, nothing changed)\n`,
      stderr: '',
    });
    expect(fs.readFileSync(f).equals(before)).toBe(true);
  });

  test('write refuses a name the user already defined, naming file, line and name, and changes nothing', async () => {
    const f = path.join(dir, '.env');
    const text = FOREIGN + '\r\nQDRANT_PROD_EU_API_KEY=user-value\r\n';
    fs.writeFileSync(f, text);
    const r = await cli(['write', '--file', f, '--owner', 'o'], ENTRIES);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `qdrant-cluster-access-writer: error: refusing to change ${f}: line 7: QDRANT_PROD_EU_API_KEY is already defined outside the managed block of owner o; ` +
        'remove that line, or give our entry another name with the secretNaming of the key that writes it (e.g. secretNaming: { prefix: "APP_" }); the file was not changed\n',
    });
    expect(fs.readFileSync(f, 'utf8')).toBe(text);
  });

  // A world-readable file gets a warning without values. Its path reaches the terminal with an
  // escape sequence or a newline as spaces, and the suggested command quotes it as one word.
  test.each([
    ['.env', '.env', (p: string) => p],
    ['my \u001b[31mred\nfile.env', 'my  [31mred file.env', (p: string) => `'${p}'`],
    ["it's my.env", "it's my.env", (p: string) => `'${p.replace("'", "'\\''")}'`],
  ])('a world-readable file %j: a warning without values', async (name, shownName, word) => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, 'A=1\n');
    fs.chmodSync(f, 0o644);
    const r = await cli(['write', '--file', f, '--owner', 'o'], ENTRIES);
    expect(r.code).toBe(0);
    const shown = path.join(dir, shownName);
    expect(r.stdout).toBe(`wrote 2 entries to ${shown} (0 updated, 2 added)\n`);
    expect(r.stderr).toBe(`warning: ${shown} is readable by all users (mode 0644) and holds API keys; consider chmod 600 ${word(shown)}\n`);
  });

  test.each([
    ['invalid dotenv', (f: string) => fs.writeFileSync(f, `A=1\nB='${SECRET}\n`),
      (f: string) => `qdrant-cluster-access-writer: error: refusing to change ${f}: line 2: unterminated single-quoted value (the closing ' is missing); the file was not changed\n`],
    ['symlink', (f: string) => { fs.writeFileSync(f + '.real', 'A=1\n'); fs.symlinkSync(f + '.real', f); },
      (f: string) => `qdrant-cluster-access-writer: error: refusing to write ${f}: it is a symbolic link; point the path at the real file instead\n`],
    ['directory', (f: string) => fs.mkdirSync(f),
      (f: string) => `qdrant-cluster-access-writer: error: cannot write ${f}: it is a directory; give the path of a file inside it (e.g. ${path.join(f, '.env')})\n`],
  ])('fails (exit 1) on %s without changing anything', async (_name, setup, message) => {
    const f = path.join(dir, '.env');
    setup(f);
    const before = fs.lstatSync(f).isFile() ? fs.readFileSync(f, 'utf8') : null;
    const r = await cli(['write', '--file', f, '--owner', 'o'], ENTRIES);
    expect(r).toEqual({ code: 1, stdout: '', stderr: message(f) });
    if (before !== null) expect(fs.readFileSync(f, 'utf8')).toBe(before);
  });

  test('a value that cannot be written fails naming the entry, not the value', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n');
    const r = await cli(['write', '--file', f, '--owner', 'o'], { QDRANT_K: `${SECRET}\n${SECRET}` });
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `qdrant-cluster-access-writer: error: refusing to change ${f}: entry QDRANT_K: value contains a line break; only single-line values can be written; the file was not changed\n`,
    });
    expect(fs.readFileSync(f, 'utf8')).toBe('A=1\n');
  });
});

describe('json format', () => {
  const ORIGINAL = '{\n  "b": 1,\n  "2": "int-like key",\n  "big": 12345678901234567890,\n  "nested": {"x": [1, "}", {"y": null}]}\n}\n';

  test('merges into an existing object keeping foreign members byte for byte; remove restores it', async () => {
    const f = path.join(dir, 'keys.json');
    fs.writeFileSync(f, ORIGINAL);
    const base = ['--file', f, '--format', 'json', '--owner', 'o'];
    let r = await cli(['write', ...base], ENTRIES);
    expect(r.stdout).toBe(`wrote 2 entries to ${f} (0 updated, 2 added)\n`);
    const text = fs.readFileSync(f, 'utf8');
    expect(text).toBe(ORIGINAL.replace('}]}\n}', `}]},\n  "QDRANT_PROD_EU_URL": "https://h:6333",\n  "QDRANT_PROD_EU_API_KEY": "${SECRET}"\n}`));
    r = await cli(['write', ...base], { ...ENTRIES, QDRANT_PROD_EU_URL: 'https://other:6333' });
    expect(r.stdout).toBe(`wrote 2 entries to ${f} (1 updated, 0 added, 1 unchanged)\n`);
    expect(JSON.parse(fs.readFileSync(f, 'utf8')).QDRANT_PROD_EU_URL).toBe('https://other:6333');
    r = await cli(['remove', ...base], ENTRIES);
    expect(r.stdout).toBe(`removed 2 entries from ${f} (0 not present)\n`);
    expect(fs.readFileSync(f, 'utf8')).toBe(ORIGINAL);
    expect(fs.readdirSync(dir)).toEqual(['keys.json']);
  });

  test('write sets the owner\'s members to exactly the given ones; remove with no names takes out every recorded one', async () => {
    const f = path.join(dir, 'keys.json');
    fs.writeFileSync(f, ORIGINAL, { mode: 0o600 });
    const base = ['--file', f, '--format', 'json', '--owner', 'o'];
    expect((await cli(['write', ...base], ENTRIES)).code).toBe(0);
    let r = await cli(['write', ...base], { QDRANT_PROD_EU_URL: 'https://h:6333', QDRANT_PROD_US_URL: 'https://us:6333' });
    expect(r).toEqual({ code: 0, stdout: `wrote 2 entries to ${f} (0 updated, 1 added, 1 unchanged, 1 entry no longer wanted removed)\n`, stderr: '' });
    expect(fs.readFileSync(f, 'utf8')).toBe(ORIGINAL.replace('}]}\n}', '}]},\n  "QDRANT_PROD_EU_URL": "https://h:6333",\n  "QDRANT_PROD_US_URL": "https://us:6333"\n}'));
    const sidecar = JSON.parse(fs.readFileSync(path.join(dir, '.keys.json.qdrant-cluster-access'), 'utf8'));
    expect(sidecar.owners).toEqual({ o: ['QDRANT_PROD_EU_URL', 'QDRANT_PROD_US_URL'] });
    r = await cli(['remove', ...base], []);
    expect(r).toEqual({ code: 0, stdout: `removed 2 entries from ${f} (0 not present)\n`, stderr: '' });
    expect(fs.readFileSync(f, 'utf8')).toBe(ORIGINAL);
    expect(fs.readdirSync(dir)).toEqual(['keys.json']);
  });

  test('creates a new file with 2-space indent, and deletes it again with its sidecar', async () => {
    const f = path.join(dir, 'keys.json');
    let r = await cli(['write', '--file', f, '--format', 'json', '--owner', 'o'], ENTRIES);
    expect(r.stdout).toBe(`wrote 2 entries to ${f} (0 updated, 2 added, file created)\n`);
    expect(fs.readFileSync(f, 'utf8')).toBe(`{\n  "QDRANT_PROD_EU_URL": "https://h:6333",\n  "QDRANT_PROD_EU_API_KEY": "${SECRET}"\n}\n`);
    expect(fs.readdirSync(dir).sort()).toEqual(['.keys.json.qdrant-cluster-access', 'keys.json']);
    r = await cli(['remove', '--file', f, '--format', 'json', '--owner', 'o'], ENTRIES);
    expect(r.stdout).toBe(`removed 2 entries from ${f} (0 not present, file deleted: this tool had created it)\n`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  test('an existing {} round-trips', async () => {
    const f = path.join(dir, 'keys.json');
    fs.writeFileSync(f, '{}\n');
    await cli(['write', '--file', f, '--format', 'json', '--owner', 'o'], ENTRIES);
    expect(JSON.parse(fs.readFileSync(f, 'utf8'))).toEqual(ENTRIES);
    await cli(['remove', '--file', f, '--format', 'json', '--owner', 'o'], ENTRIES);
    expect(fs.readFileSync(f, 'utf8')).toBe('{}\n');
    expect(fs.readdirSync(dir)).toEqual(['keys.json']);
  });

  test.each([
    ['{\n  "a": 1,\n}\n', 'not valid JSON (line 3); fix it or choose another file'],
    ['[1, 2]\n', 'the JSON file does not hold an object at the top level; give the path of a file holding an object ({ ... })'],
  ])('refuses %j without changing it', async (content, reason) => {
    const f = path.join(dir, 'keys.json');
    fs.writeFileSync(f, content);
    const r = await cli(['write', '--file', f, '--format', 'json', '--owner', 'o'], ENTRIES);
    expect(r).toEqual({ code: 1, stdout: '', stderr: `qdrant-cluster-access-writer: error: refusing to change ${f}: ${reason}; the file was not changed\n` });
    expect(fs.readFileSync(f, 'utf8')).toBe(content);
  });
});

describe('a key from TF_VAR_ that is not the value Terraform uses (QCA_ENTRIES_SHA256)', () => {
  const hash = (t: string) => createHash('sha256').update(t).digest('hex');
  const fromEnv = { QCA_ENTRIES_FROM_ENV: JSON.stringify({ QDRANT_API_KEY: 'TF_VAR_qdrant_api_key_app' }) };
  const run = (tfVar: string, hashes: string) => cli(['write', '--file', path.join(dir, '.env'), '--owner', 'o'], {},
    { ...fromEnv, TF_VAR_qdrant_api_key_app: tfVar, QCA_ENTRIES_SHA256: hashes });

  test('the same key: written', async () => {
    const r = await run(SECRET, JSON.stringify({ TF_VAR_qdrant_api_key_app: hash(SECRET) }));
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(dir, '.env'), 'utf8')).toContain(SECRET);
  });

  test('another key: refused in one line, nothing written, no value or hash shown', async () => {
    const r = await run(SECRET, JSON.stringify({ TF_VAR_qdrant_api_key_app: hash('the-value-terraform-uses') }));
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: 'qdrant-cluster-access-writer: error: entry QDRANT_API_KEY: TF_VAR_qdrant_api_key_app in the environment ' +
      'is not the value Terraform uses for variable qdrant_api_key_app (it is also set by -var, a .tfvars or *.auto.tfvars file, or -var-file): ' +
      `give the key one way only, by exporting TF_VAR_qdrant_api_key_app; ${path.join(dir, '.env')} was not changed\n`,
    });
    expect(r.stderr).not.toContain(hash(SECRET));
    expect(fs.existsSync(path.join(dir, '.env'))).toBe(false);
  });

  test('a hash that is not 64 hex digits: a usage error that says so (not "set twice"), the value not shown', async () => {
    const r = await run(SECRET, JSON.stringify({ TF_VAR_qdrant_api_key_app: '123abc' }));
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'qdrant-cluster-access-writer: error: QCA_ENTRIES_SHA256: the value for TF_VAR_qdrant_api_key_app is not a sha256 of 64 hex digits (value not shown)\n',
    });
    expect(fs.existsSync(path.join(dir, '.env'))).toBe(false);
  });

  test('not a JSON object: a usage error', async () => {
    const r = await run(SECRET, '[1]');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('qdrant-cluster-access-writer: error: QCA_ENTRIES_SHA256 must be a JSON object of ENV_VAR: sha256 hex\n');
  });
});

describe('usage errors exit 2', () => {
  const f = () => path.join(dir, '.env');
  test.each([
    [[], ENTRIES, 'expected the command write, remove or remove-dropped; got ""'],
    [['write', '--owner', 'o'], ENTRIES, '--file is required'],
    [['write', '--file', 'F'], ENTRIES, '--owner is required'],
    [['write', '--file', 'F', '--owner', 'o', '--format', 'yaml'], ENTRIES, '--format must be one of dotenv, json; got "yaml"'],
    [['write', '--file', 'F', '--owner', 'o', '--key', SECRET], ENTRIES, 'unknown option "--key" (see --help)'],
    [['write', '--file', 'F', '--owner', 'o', SECRET], ENTRIES, 'unexpected extra argument (not shown, it may be a secret)'],
    [['write', '--file', 'F', '--owner', 'bad owner'], ENTRIES, '--owner "bad owner" is not valid: owners are 1-128 characters'],
    [['write', '--file', 'F', '--owner', 'o'], undefined, 'environment variable QCA_ENTRIES is not set'],
    [['write', '--file', 'F', '--owner', 'o'], `{"K": "${SECRET}"`, 'QCA_ENTRIES is not valid JSON'],
    [['write', '--file', 'F', '--owner', 'o'], [SECRET], 'QCA_ENTRIES must be a JSON object of NAME: value'],
    [['write', '--file', 'F', '--owner', 'o'], { K: 42 }, 'QCA_ENTRIES: entry K must be a string'],
    [['write', '--file', 'F', '--owner', 'o'], { 'BAD NAME': SECRET }, 'QCA_ENTRIES: entry name "BAD NAME" is not a valid variable name'],
    // A key pasted where a name goes is not a registered value: it must not come back either.
    [['write', '--file', 'F', '--owner', 'o'], { [SECRET]: 'y' }, 'QCA_ENTRIES: entry name (not shown: it may be a key) is not a valid variable name'],
    [['write', '--file', 'F', '--owner', 'o'], { Zq8vR2mX9pL4tW7yB3nK6cF1: 5 }, 'QCA_ENTRIES: entry (not shown: it may be a key) must be a string'],
    [['write', '--file', 'F', '--owner', 'o'], { [`F${'0A9C'.repeat(8)}`]: 5 }, 'QCA_ENTRIES: entry (not shown: it may be a key) must be a string'], // upper-case hex
    [['write', '--file', 'F', '--owner', 'o'], { SK_LIVE_4EC39HQLYJWDARJTT1ZDP7DC: 5 }, 'QCA_ENTRIES: entry (not shown: it may be a key) must be a string'],
    [['write', '--file', 'F', '--owner', 'o'], { QDRANT_URL_SEARCH_PROD_EU_WEST: 5 }, 'QCA_ENTRIES: entry QDRANT_URL_SEARCH_PROD_EU_WEST must be a string'],
    [['remove', '--file', 'F', '--owner', 'o'], [SECRET], 'QCA_ENTRIES: entry name (not shown: it may be a key) is not a valid variable name'],
    [['remove', '--file', 'F', '--owner', 'o'], [{ a: 1 }], 'QCA_ENTRIES must be a JSON object of NAME: value, or for remove a list of names\n'],
    [['remove', '--file', 'F', '--owner', 'o'], [null], 'QCA_ENTRIES must be a JSON object of NAME: value, or for remove a list of names\n'],
    [[SECRET], ENTRIES, 'expected the command write, remove or remove-dropped; got an argument (not shown: it may be a key)\n'],
    [['write', '--file', 'F', '--owner', 'o', '--format', SECRET], ENTRIES, '--format must be one of dotenv, json; got a value (not shown: it may be a key)\n'],
    [['remove', '--file', 'F', '--owner', 'o', `--format=${SECRET}`], ENTRIES, '--format must be one of dotenv, json; got a value (not shown: it may be a key)\n'],
    [['write', '--file', 'F', '--owner', 'o', `-api-key=${SECRET}`], ENTRIES, 'unknown option "-api-key" (see --help)\n'],
    [['write', '--file', 'F', '--owner', 'o', `-${SECRET}`], ENTRIES, 'unknown option (not shown: it may be a key); see --help for the options\n'],
    [['write', '--file', '', '--owner', 'o'], ENTRIES, '--file is empty; give the path of the .env or JSON file\n'],
    [['write', '--file', 'F', '--owner', ''], ENTRIES, '--owner is empty; give the construct path of the ClusterAccess that owns the entries\n'],
    [['write', '--file', 'F', '--owner', '--format', 'json'], ENTRIES, 'option --owner needs a value; the next argument is the option --format (see --help)\n'],
  ])('%j', async (args, entries, message) => {
    const r = await cli((args as string[]).map((a) => (a === 'F' ? f() : a)), entries);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`qdrant-cluster-access-writer: error: ${message}`);
    expect(r.stderr).not.toContain(SECRET);
    expect(fs.existsSync(f())).toBe(false);
  });
});

describe('entry values are secrets before the command line is read', () => {
  test.each([
    [[SHORT_SECRET], 'expected the command write, remove or remove-dropped; got "[redacted]"'],
    [['write', '--file', 'F', '--owner', 'o', '--format', SHORT_SECRET], '--format must be one of dotenv, json; got "[redacted]"'],
  ])('%j', async (args, message) => {
    const f = path.join(dir, '.env');
    const r = await cli(args.map((a) => (a === 'F' ? f : a)), { QDRANT_URL: 'https://h:6333', QDRANT_API_KEY: SHORT_SECRET });
    expect(r).toEqual({ code: 2, stdout: '', stderr: `qdrant-cluster-access-writer: error: ${message}\n` });
    expect(fs.existsSync(f)).toBe(false);
  });
});

describe('parallel writers', () => {
  test('8 concurrent writers on one file: no update is lost, foreign lines intact; 8 concurrent removers restore it', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, FOREIGN, { mode: 0o600 });
    const n = 8;
    const entriesOf = (i: number) => ({ [`QDRANT_C${i}_URL`]: `https://c${i}:6333`, [`QDRANT_C${i}_API_KEY`]: `${SECRET}-${i}` });
    const writes = await Promise.all(Array.from({ length: n }, (_, i) => cli(['write', '--file', f, '--owner', `cluster-${i}`], entriesOf(i))));
    for (const r of writes) expect([r.code, r.stderr]).toEqual([0, '']);
    const text = fs.readFileSync(f, 'utf8');
    expect(text.startsWith(FOREIGN + '\r\n')).toBe(true);
    const parsed = dotenv.parse(text);
    for (let i = 0; i < n; i++) expect(parsed).toMatchObject(entriesOf(i));
    expect(parsed).toMatchObject({ DATABASE_URL: 'postgres://u:p@h/db', MULTI: 'a\nb', TRAIL: 'x' });

    const removes = await Promise.all(Array.from({ length: n }, (_, i) => cli(['remove', '--file', f, '--owner', `cluster-${i}`], entriesOf(i))));
    for (const r of removes) expect([r.code, r.stdout]).toEqual([0, expect.stringMatching(/^removed 2 entries from .* \(0 not present\)\n$/)]);
    expect(fs.readFileSync(f, 'utf8')).toBe(FOREIGN);
  }, 30_000);

  test('8 concurrent writers on one JSON file', async () => {
    const f = path.join(dir, 'keys.json');
    fs.writeFileSync(f, '{"keep": true}\n');
    const n = 8;
    const rs = await Promise.all(Array.from({ length: n }, (_, i) => cli(['write', '--file', f, '--format', 'json', '--owner', `c${i}`], { [`QDRANT_J${i}`]: `${SECRET}-${i}` })));
    for (const r of rs) expect(r.code).toBe(0);
    const obj = JSON.parse(fs.readFileSync(f, 'utf8'));
    expect(Object.keys(obj)).toHaveLength(n + 1);
    expect(obj.keep).toBe(true);
    for (let i = 0; i < n; i++) expect(obj[`QDRANT_J${i}`]).toBe(`${SECRET}-${i}`);
    const side = JSON.parse(fs.readFileSync(path.join(dir, '.keys.json.qdrant-cluster-access'), 'utf8'));
    expect(Object.keys(side.owners).sort()).toEqual(Array.from({ length: n }, (_, i) => `c${i}`));

    const removes = await Promise.all(Array.from({ length: n }, (_, i) => cli(['remove', '--file', f, '--format', 'json', '--owner', `c${i}`], [`QDRANT_J${i}`])));
    for (const r of removes) expect([r.code, r.stdout]).toEqual([0, expect.stringMatching(/^removed 1 entry from .* \(0 not present\)\n$/)]);
    expect(fs.readFileSync(f, 'utf8')).toBe('{"keep": true}\n');
    expect(fs.readdirSync(dir)).toEqual(['keys.json']);
  }, 30_000);
});

describe('found by running the CLI', () => {
  test('a value followed by 200,000 spaces is written around and removed within the default test timeout (the parse is linear)', async () => {
    const f = path.join(dir, '.env');
    const text = `A=a${' '.repeat(200_000)}x\n`;
    fs.writeFileSync(f, text, { mode: 0o600 });
    const w = await cli(['write', '--file', f, '--owner', 'o'], ENTRIES);
    expect(w).toEqual({ code: 0, stdout: `wrote 2 entries to ${f} (0 updated, 2 added)\n`, stderr: '' });
    const r = await cli(['remove', '--file', f, '--owner', 'o'], []);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(f, 'utf8')).toBe(text);
  });

  test('a double-quoted value ending in an escaped backslash (DIR="C:\\\\temp\\\\") is kept byte for byte through write and remove', async () => {
    const f = path.join(dir, '.env');
    const text = '# windows\r\nDIR="C:\\\\temp\\\\"\r\n';
    fs.writeFileSync(f, text, { mode: 0o600 });
    const w = await cli(['write', '--file', f, '--owner', 'o'], ENTRIES);
    expect(w).toEqual({ code: 0, stdout: `wrote 2 entries to ${f} (0 updated, 2 added)\n`, stderr: '' });
    expect(dotenv.parse(fs.readFileSync(f, 'utf8'))).toMatchObject(ENTRIES);
    const r = await cli(['remove', '--file', f, '--owner', 'o'], []);
    expect(r).toEqual({ code: 0, stdout: `removed 2 entries from ${f} (0 not present)\n`, stderr: '' });
    expect(fs.readFileSync(f, 'utf8')).toBe(text);
  });

  test('a JSON file whose sidecar was deleted: remove exits 0, changes nothing and warns that members this tool wrote may be left', async () => {
    const f = path.join(dir, 'keys.json');
    const base = ['--file', f, '--format', 'json', '--owner', 'o'];
    fs.writeFileSync(f, '{\n  "a": 1\n}\n', { mode: 0o600 });
    expect((await cli(['write', ...base], ENTRIES)).code).toBe(0);
    const side = path.join(dir, '.keys.json.qdrant-cluster-access');
    fs.unlinkSync(side);
    const before = fs.readFileSync(f, 'utf8');
    const r = await cli(['remove', ...base], []);
    expect(r).toEqual({
      code: 0,
      stdout: `removed 0 entries from ${f} (0 not present; ${side} is missing, so nothing records which members owner o wrote: nothing changed, ` +
        'and members this tool wrote may still be in the file; delete them by hand)\n',
      stderr: `warning: ${side}, the record of the members this tool wrote to ${f}, is missing: nothing was removed for owner o, ` +
        `and members this tool wrote (their names are unknown without the record) may still be in ${f}, with keys; delete them by hand\n`,
    });
    expect(fs.readFileSync(f, 'utf8')).toBe(before);
  });

  test('a JSON file without a sidecar and without members: nothing to warn about', async () => {
    const f = path.join(dir, 'keys.json');
    fs.writeFileSync(f, '{}\n', { mode: 0o600 });
    const r = await cli(['remove', '--file', f, '--format', 'json', '--owner', 'o'], []);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  test('a .env block without its record line: remove exits 0 and also warns on stderr, naming the entries left', async () => {
    const f = path.join(dir, '.env');
    await cli(['write', '--file', f, '--owner', 'o'], ENTRIES);
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/^# cdktf-qdrant-cluster-access entries: .*\n/m, ''));
    const r = await cli(['remove', '--file', f, '--owner', 'o'], []);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`warning: the managed block of owner o in ${f} has no record line, so 2 entries in it were left: ` +
      `${Object.keys(ENTRIES).join(', ')}; delete the ones this tool wrote by hand\n`);
  });

  test('a line of the user inside our block stays on remove, with the markers and an empty record; the summary names it, and says it again', async () => {
    const f = path.join(dir, '.env');
    fs.writeFileSync(f, 'A=1\n');
    await cli(['write', '--file', f, '--owner', 'o'], ENTRIES);
    const written = fs.readFileSync(f, 'utf8');
    fs.writeFileSync(f, written.replace(/^(QDRANT_PROD_EU_URL=.*\n)/m, '$1MINE=1\n# my note\n'));
    const kept = `removed 0 entries from ${f} (0 not present; 2 lines inside the managed block of owner o that its record does not name ` +
      'were kept, and so were the block\'s markers (defining MINE))\n';
    const r = await cli(['remove', '--file', f, '--owner', 'o'], []);
    expect([r.code, r.stdout.replace('removed 2 entries', 'removed 0 entries'), r.stderr]).toEqual([0, kept, '']);
    const left = fs.readFileSync(f, 'utf8');
    expect(left.split('\n').filter((l) => !l.startsWith('# >>>') && !l.startsWith('# <<<')))
      .toEqual(['A=1', '# cdktf-qdrant-cluster-access entries:', 'MINE=1', '# my note', '']);
    // The empty record tells the next run that nothing in the block is ours: no warning about keys left.
    const again = await cli(['remove', '--file', f, '--owner', 'o'], []);
    expect([again.code, again.stdout, again.stderr]).toEqual([0, kept, '']);
    expect(fs.readFileSync(f, 'utf8')).toBe(left);
    // Without a line of the user's inside, the block goes and nothing more is said.
    const g = path.join(dir, 'other.env');
    fs.writeFileSync(g, 'A=1\n');
    await cli(['write', '--file', g, '--owner', 'p'], { QDRANT_OTHER_URL: 'https://o:6333' });
    expect((await cli(['remove', '--file', g, '--owner', 'p'], [])).stdout).toBe(`removed 1 entry from ${g} (0 not present)\n`);
    expect(fs.readFileSync(g, 'utf8')).toBe('A=1\n');
  });
});

describe('found by running the CLI: the size bound', () => {
  test('a write that would push the file over 4 MiB is refused in one line with the sizes in bytes; the file is unchanged', async () => {
    const f = path.join(dir, '.env');
    const text = `A=${'x'.repeat(4 * 1024 * 1024 - 10)}\n`;
    fs.writeFileSync(f, text, { mode: 0o600 });
    const r = await cli(['write', '--file', f, '--owner', 'o'], ENTRIES);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^qdrant-cluster-access-writer: error: refusing to change ${f.replace(/[.]/g, '\\.')}: the new text would be \\d+ bytes, ` +
      'over the bound of 4194304 bytes for a file of keys \\(it is 4194297 bytes now\\); move other content out of this file or write the keys to another file; the file was not changed\\n$'));
    expect(fs.readFileSync(f, 'utf8')).toBe(text);
  });
});

describe('remove-dropped: the owner\'s entries leave the files it no longer writes to', () => {
  const list = (...files: [string, 'dotenv' | 'json'][]) => JSON.stringify(files.map(([file, format]) => ({ file, format })));

  test('takes out the owner\'s entries from each dropped file, byte for byte, and leaves kept files and other owners alone', async () => {
    const kept = path.join(dir, 'kept.env');
    const dropped = path.join(dir, 'dropped.env');
    const json = path.join(dir, 'dropped.json');
    fs.writeFileSync(kept, 'K=1\n');
    fs.writeFileSync(dropped, FOREIGN);
    fs.writeFileSync(json, '{ "a": 1 }\n');
    for (const f of [kept, dropped]) expect((await cli(['write', '--file', f, '--owner', 'app/Q'], ENTRIES)).code).toBe(0);
    expect((await cli(['write', '--file', dropped, '--owner', 'app/Other'], { OTHER_URL: 'https://o:6333' })).code).toBe(0);
    expect((await cli(['write', '--file', json, '--format', 'json', '--owner', 'app/Q'], ENTRIES)).code).toBe(0);
    const keptBefore = fs.readFileSync(kept, 'utf8');

    const r = await cli(['remove-dropped', '--owner', 'app/Q'], undefined, {
      QCA_FILES: list([kept, 'dotenv'], [dropped, 'dotenv'], [json, 'json'], [path.join(dir, 'gone', '.env'), 'dotenv']),
      QCA_KEEP_FILES: list([kept, 'dotenv']),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`removed 2 entries from ${dropped} (0 not present)\nremoved 2 entries from ${json} (0 not present)\n` +
      `removed 0 entries from ${path.join(dir, 'gone', '.env')} (0 not present, file does not exist)\n`);
    expect(fs.readFileSync(kept, 'utf8')).toBe(keptBefore);
    expect(dotenv.parse(fs.readFileSync(dropped, 'utf8'))).toMatchObject({ OTHER_URL: 'https://o:6333' });
    expect(fs.readFileSync(dropped, 'utf8')).not.toContain('QDRANT_PROD_EU');
    expect(fs.readFileSync(json, 'utf8')).toBe('{ "a": 1 }\n');
    expect(fs.existsSync(path.join(dir, '.dropped.json.qdrant-cluster-access'))).toBe(false);
  });

  test('a dropped file whose target is still configured (for another path) is left to that target\'s registration; one whose target left is cleaned', async () => {
    const moved = path.join(dir, 'old', 'app.json');
    const gone = path.join(dir, 'gone.json');
    fs.mkdirSync(path.dirname(moved));
    for (const f of [moved, gone]) {
      fs.writeFileSync(f, '{ "a": 1 }\n');
      expect((await cli(['write', '--file', f, '--format', 'json', '--owner', 'app/Q'], ENTRIES)).code).toBe(0);
    }
    const entry = (file: string, target: string) => ({ file, format: 'json', target });
    const r = await cli(['remove-dropped', '--owner', 'app/Q'], undefined, {
      QCA_FILES: JSON.stringify([entry(moved, 'app/Q/SecretTargets/JSON-file-app.json'), entry(gone, 'app/Q/SecretTargets/JSON-file-gone.json')]),
      QCA_KEEP_FILES: JSON.stringify([entry(path.join(dir, 'new', 'app.json'), 'app/Q/SecretTargets/JSON-file-app.json')]),
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(`${moved}: left to app/Q/SecretTargets/JSON-file-app.json, whose replaced registration takes owner app/Q's entries out of it\n` +
      `removed 2 entries from ${gone} (0 not present)\n`);
    // The registration's own removal then finds the record and warns of nothing.
    expect(fs.readFileSync(moved, 'utf8')).toContain('QDRANT_PROD_EU_URL');
    const own = await cli(['remove', '--file', moved, '--format', 'json', '--owner', 'app/Q'], []);
    expect([own.code, own.stdout, own.stderr]).toEqual([0, `removed 2 entries from ${moved} (0 not present)\n`, '']);
    expect(fs.readFileSync(moved, 'utf8')).toBe('{ "a": 1 }\n');
    expect(fs.readFileSync(gone, 'utf8')).toBe('{ "a": 1 }\n');
  });

  test('a dropped path with an escape sequence or a newline is shown with spaces in its line', async () => {
    const dropped = path.join(dir, 'x\u001b[2Jy\nz.env');
    expect((await cli(['write', '--file', dropped, '--owner', 'app/Q'], ENTRIES)).code).toBe(0);
    const r = await cli(['remove-dropped', '--owner', 'app/Q'], undefined, { QCA_FILES: list([dropped, 'dotenv']), QCA_KEEP_FILES: list() });
    expect(r).toMatchObject({ code: 0, stdout: `removed 2 entries from ${path.join(dir, 'x [2Jy z.env')} (0 not present, file deleted: this tool had created it)\n` });
  });

  test('nothing dropped: one line, nothing changed; a bad list or no owner: exit 2', async () => {
    const f = path.join(dir, '.env');
    expect(await cli(['remove-dropped', '--owner', 'app/Q'], undefined, { QCA_FILES: list([f, 'dotenv']), QCA_KEEP_FILES: list([f, 'dotenv']) }))
      .toMatchObject({ code: 0, stdout: 'no file dropped by owner app/Q: nothing to clean up\n' });
    expect(fs.existsSync(f)).toBe(false);
    const bad = await cli(['remove-dropped', '--owner', 'app/Q'], undefined, { QCA_FILES: '[{"file":"x","format":"yaml"}]' });
    expect(bad).toMatchObject({ code: 2, stderr: 'qdrant-cluster-access-writer: error: QCA_FILES must be a JSON list of {"file": PATH, "format": "dotenv" or "json", "target": PATH (optional)}\n' });
    const badTarget = await cli(['remove-dropped', '--owner', 'app/Q'], undefined, { QCA_FILES: '[{"file":"x","format":"json","target":7}]' });
    expect(badTarget.code).toBe(2);
    expect((await cli(['remove-dropped'])).stderr).toContain('--owner is required');
  });
});
