/**
 * The CLI toolkit (assets/runtime/cli.js) and the protocol (assets/runtime/protocol.js).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs, withDefaults } from '../../assets/runtime/args';
import { runCli } from '../../assets/runtime/cli';
import { RUN, RuntimeError } from '../../assets/runtime/errors';
import { CHECK_OPTIONS, FILE_OPTIONS, invocation, NODE_MISSING } from '../../assets/runtime/protocol';
import { runNode } from '../../tools/testing/run-node';

/** Canary keys: none may ever be printed (checked in afterAll, over every message and output). */
const KEY = 'Sup3rS3cretKeyValue0123456789';
const DASH_KEY = '-QxT7s9Kd2LmN4pR6vW8yZ1aB3cE5fG7hJ9kL';
const JWT = 'eyJhbGciOi';
const CANARIES = [KEY, DASH_KEY.slice(1), JWT];
const printed: string[] = [];
afterAll(() => {
  expect(printed.length).toBeGreaterThan(10);
  for (const p of printed) for (const c of CANARIES) expect(p).not.toContain(c);
});

/** The usage error's message parseArgs throws (recorded for the canary scan). */
function usageError(options: Parameters<typeof parseArgs>[0], argv: string[], hint?: string): string {
  try {
    parseArgs(options, argv, hint);
  } catch (e) {
    expect(e).toBeInstanceOf(RuntimeError);
    expect(e).toMatchObject({ code: 'ERR_QDRANT_USAGE' });
    printed.push((e as Error).message);
    return (e as Error).message;
  }
  throw new Error(`parseArgs accepted ${JSON.stringify(argv)}`);
}

describe('parseArgs', () => {
  test('typed values, --flag=value, booleans and defaults', () => {
    const { values } = parseArgs(CHECK_OPTIONS, [
      '--timeout', '2.5', '--retries=0', '--deadline', '12.25', '--concurrency', '10', '--allow-open', '--read-collections', 'a,b,,c,', '--label=--json',
    ]);
    expect(values).toEqual({ timeout: 2.5, retries: 0, deadline: 12.25, concurrency: 10, allowOpen: true, readCollections: ['a', 'b', 'c'], label: '--json' });
    expect(withDefaults(CHECK_OPTIONS, values)).toMatchObject({ timeout: 2.5, header: 'api-key', keyEnv: 'QDRANT_API_KEY', access: 'any' });
  });

  test.each([
    [['--nope'], 'unknown option "--nope" (see --help)'],
    [['--timeout'], 'option --timeout needs a value (see --help)'],
    [['--json=yes'], 'option --json takes no value'],
    [['--json', '--json'], 'option --json given twice'],
    [['--timeout', '0'], '--timeout needs a number of seconds in 1-300; got "0"'],
    [['--retries', '2.5'], '--retries needs a whole number in 0-10; got "2.5"; write plain decimal digits without leading zeros, e.g. 3'],
    [['--header', '$(id)'], '--header must be one of api-key, bearer; got "$(id)"'],
  ])('%j → %s', (argv, message) => {
    expect(() => parseArgs(CHECK_OPTIONS, argv)).toThrow(new RuntimeError(message));
  });

  test('a value for an env-name option that is not a name is never echoed', () => {
    expect(() => parseArgs(CHECK_OPTIONS, ['--key-env', 'sk-live-123'])).toThrow(/not shown/);
    try {
      parseArgs(CHECK_OPTIONS, ['--key-env', 'sk-live-123']);
    } catch (e) {
      expect((e as Error).message).not.toContain('sk-live-123');
    }
  });
});

describe('a value that may be a key is never echoed: long (over 20 characters) or a JWT (eyJ...)', () => {
  const HINT = 'keys are never taken as arguments';
  test.each([
    [['-api-key=' + KEY], 'unknown option "-api-key": keys are never taken as arguments'],
    [['--api-key=' + KEY], 'unknown option "--api-key": keys are never taken as arguments'],
    [['-x=' + KEY], 'unknown option "-x" (see --help)'],
    [[DASH_KEY], 'unknown option (not shown: it may be a key); see --help for the options; keys are never taken as arguments'],
    [['--' + JWT], 'unknown option (not shown: it may be a key); see --help for the options; keys are never taken as arguments'],
    [['--access', KEY], '--access must be one of any, read-only, manage, collections; got a value (not shown: it may be a key)'],
    [['--header', JWT], '--header must be one of api-key, bearer; got a value (not shown: it may be a key)'],
    [['--deploy-command=' + KEY], '--deploy-command must be one of cdktf deploy, cdktn deploy, terraform apply, tofu apply; got a value (not shown: it may be a key)'],
    [['--timeout', KEY], '--timeout needs a number of seconds in 1-300; got a value (not shown: it may be a key); write plain decimal digits, e.g. 10 or 2.5'],
    [['--retries', KEY], '--retries needs a whole number in 0-10; got a value (not shown: it may be a key); write plain decimal digits without leading zeros, e.g. 3'],
    [['--read-collections', ` ${KEY}`], '--read-collections: a name (not shown: it may be a key) starts or ends with whitespace; ' +
      'names are not trimmed (Qdrant allows spaces in them): write A,B, not A, B'],
  ])('%j', (argv, message) => {
    expect(usageError(CHECK_OPTIONS, argv, HINT)).toBe(message);
  });

  test('the writer\'s options too (no secret hint there)', () => {
    expect(usageError(FILE_OPTIONS, ['--format', KEY])).toBe('--format must be one of dotenv, json; got a value (not shown: it may be a key)');
    expect(usageError(FILE_OPTIONS, [DASH_KEY])).toBe('unknown option (not shown: it may be a key); see --help for the options');
  });

  test('the checker CLI, as Terraform runs it: one line saying what is wrong, exit 2, no key', async () => {
    const cli = path.join(__dirname, '..', '..', 'assets', 'checker', 'cli.js');
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.QDRANT_API_KEY;
    const cases: Array<[string[], string]> = [
      [['-api-key=' + KEY], 'unknown option "-api-key": keys are never taken as arguments'],
      [[DASH_KEY], 'unknown option (not shown: it may be a key); see --help for the options; keys are never taken as arguments'],
      [['--access', KEY], '--access must be one of any, read-only, manage, collections; got a value (not shown: it may be a key)'],
      [['--timeout', KEY], '--timeout needs a number of seconds in 1-300; got a value (not shown: it may be a key)'],
    ];
    for (const [argv, message] of cases) {
      const r = await runNode([cli, 'check', '--url', 'https://h.example', ...argv], { env, outputs: printed });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')).toHaveLength(2);
      expect(r.stderr).toContain(`qdrant-cluster-access: error: ${message}`);
    }
  });
});

describe('numbers are plain decimals', () => {
  test.each([
    [['--timeout', '0x10'], '--timeout needs a number of seconds in 1-300; got "0x10"; write plain decimal digits, e.g. 10 or 2.5'],
    [['--timeout', ' 5'], '--timeout needs a number of seconds in 1-300; got " 5"; write plain decimal digits, e.g. 10 or 2.5'],
    [['--timeout', '1e1'], '--timeout needs a number of seconds in 1-300; got "1e1"; write plain decimal digits, e.g. 10 or 2.5'],
    [['--deadline', '0b101'], '--deadline needs a number of seconds in 1-3600; got "0b101"; write plain decimal digits, e.g. 10 or 2.5'],
    [['--timeout', '5.'], '--timeout needs a number of seconds in 1-300; got "5."; write plain decimal digits, e.g. 10 or 2.5'],
    [['--retries', '01'], '--retries needs a whole number in 0-10; got "01"; write plain decimal digits without leading zeros, e.g. 3'],
    [['--concurrency', '+4'], '--concurrency needs a whole number in 1-64; got "+4"; write plain decimal digits without leading zeros, e.g. 3'],
  ])('%j', (argv, message) => {
    expect(usageError(CHECK_OPTIONS, argv)).toBe(message);
  });
});

describe('collection lists', () => {
  test.each([
    [['--read-collections', ' lead'], '--read-collections: name " lead" starts or ends with whitespace; names are not trimmed (Qdrant allows spaces in them): write A,B, not A, B'],
    [['--write-collections', 'a, b'], '--write-collections: name " b" starts or ends with whitespace; names are not trimmed (Qdrant allows spaces in them): write A,B, not A, B'],
    [['--read-collections', ' , '], '--read-collections is an empty list; give one or more names separated by commas (A,B), or leave the option out'],
    [['--read-collections', ''], '--read-collections is an empty list; give one or more names separated by commas (A,B), or leave the option out'],
    [['--read-collections', 'a,orders', '--write-collections', 'orders'],
      '"orders" is in both --read-collections and --write-collections; give it in one of them only (--write-collections if the apps write it)'],
  ])('%j', (argv, message) => {
    expect(usageError(CHECK_OPTIONS, argv)).toBe(message);
  });
});

describe('"--" and values that are options', () => {
  test('"--" ends the options: what follows is a positional', () => {
    expect(parseArgs(CHECK_OPTIONS, ['--json', '--']).positionals).toEqual([]);
    expect(parseArgs(CHECK_OPTIONS, ['--json', '--', '--label']).positionals).toEqual(['--label']);
  });

  test.each([
    [['--label', '--json'], 'option --label needs a value; the next argument is the option --json (see --help)'],
    [['--url', '-h'], 'option --url needs a value; the next argument is the option -h (see --help)'],
    [['--label', '--'], 'option --label needs a value; the next argument is the option -- (see --help)'],
  ])('%j', (argv, message) => {
    expect(usageError(CHECK_OPTIONS, argv)).toBe(message);
  });
});

describe('runCli', () => {
  function io() {
    const out = { stdout: '', stderr: '', code: -1 };
    return {
      out,
      io: {
        argv: [],
        env: {},
        stdout: (t: string) => (out.stdout += t),
        stderr: (t: string) => (out.stderr += t),
        setExitCode: (c: number) => (out.code = c),
      },
    };
  }

  test('exit codes: 2 for a usage error, 1 for a failed run and the unexpected; secrets redacted everywhere', async () => {
    const a = io();
    expect(await runCli('prog', (r) => { r.addSecret('super-secret-key'); r.stdout('got super-secret-key\n'); throw new RuntimeError('bad super-secret-key'); }, a.io)).toBe(2);
    expect(a.out).toEqual({ stdout: 'got [redacted]\n', stderr: 'prog: error: bad [redacted]\n', code: 2 });
    const b = io();
    expect(await runCli('prog', () => { throw new RuntimeError('cannot write', RUN); }, b.io)).toBe(1);
    expect(b.out.stderr).toBe('prog: error: cannot write\n');
    const c = io();
    expect(await runCli('prog', () => { throw new TypeError('boom\nsecond line'); }, c.io)).toBe(1);
    expect(c.out.stderr).toBe('prog: error: unexpected failure: boom second line\n');
  });
});

describe('invocation: every value reaches the shell quoted, through the environment', () => {
  test('values go into QCA_* variables; booleans are bare flags', () => {
    const inv = invocation('check', { grantsEnv: 'QCA_GRANTS', header: 'bearer', timeout: 10, allowOpen: true, allowExcessAccess: false, readCollections: ['a', 'b'] }, 'assets/x/checker/cli.js');
    expect(inv.command).toBe(`command -v node >/dev/null 2>&1 || { echo '${NODE_MISSING.checker}' >&2; exit 127; }; ` +
      'node "$QCA_CLI" check --grants-env "$QCA_GRANTS_ENV" --header "$QCA_HEADER" --timeout "$QCA_TIMEOUT" --allow-open --read-collections "$QCA_READ_COLLECTIONS"');
    expect(inv.environment).toEqual({
      QCA_CLI: 'assets/x/checker/cli.js', QCA_GRANTS_ENV: 'QCA_GRANTS', QCA_HEADER: 'bearer', QCA_TIMEOUT: '10', QCA_READ_COLLECTIONS: 'a,b',
    });
  });

  test('a hostile value never enters the command', () => {
    const inv = invocation('write', { file: '/tmp/a"; touch /tmp/pwned; echo "', owner: 'x', format: 'dotenv' }, 'cli.js');
    expect(inv.command).toMatch(/; node "\$QCA_CLI" write --file "\$QCA_FILE" --format "\$QCA_FORMAT" --owner "\$QCA_OWNER"$/);
  });

  test.each([['check', 'checker'], ['write', 'writer'], ['remove', 'writer'], ['remove-dropped', 'writer']] as const)(
    'without node on PATH, %s fails with one line that says what to do', (command, who) => {
      const inv = invocation(command, {}, 'cli.js');
      // Plain text in single quotes: nothing the shell or Terraform would read.
      expect(NODE_MISSING[who]).not.toMatch(/['\\]|\$\{|%\{/);
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'qca-no-node-'));
      try {
        const r = spawnSync('/bin/sh', ['-c', inv.command], { env: { ...inv.environment, PATH: empty }, encoding: 'utf8' });
        expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status: 127, stdout: '', stderr: `${NODE_MISSING[who]}\n` });
      } finally {
        fs.rmSync(empty, { recursive: true, force: true });
      }
      expect(NODE_MISSING.checker).toContain('CheckEngine.TERRAFORM');
    });

  test('with node on PATH, the command runs the CLI', () => {
    const inv = invocation('check', { help: true }, path.join(__dirname, '..', '..', 'assets', 'checker', 'cli.js'));
    const r = spawnSync('/bin/sh', ['-c', inv.command], { env: { ...inv.environment, PATH: path.dirname(process.execPath) }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--grants-env');
  });

  test('an unknown option is a programming error', () => {
    expect(() => invocation('check', { nope: 1 } as never, 'cli.js')).toThrow(/has no option nope/);
  });
});
