/**
 * The CLI toolkit (assets/runtime/cli.js) and the protocol (assets/runtime/protocol.js).
 */
import { RunError, UsageError, parseArgs, runCli, withDefaults } from '../../assets/runtime/cli';
import { CHECK_OPTIONS, invocation } from '../../assets/runtime/protocol';

describe('parseArgs', () => {
  test('typed values, --flag=value, booleans and defaults', () => {
    const { values } = parseArgs(CHECK_OPTIONS, ['--timeout', '2.5', '--retries=0', '--allow-open', '--read-collections', 'a, b,,c']);
    expect(values).toEqual({ timeout: 2.5, retries: 0, allowOpen: true, readCollections: ['a', 'b', 'c'] });
    expect(withDefaults(CHECK_OPTIONS, values)).toMatchObject({ timeout: 2.5, header: 'api-key', keyEnv: 'QDRANT_API_KEY', access: 'any' });
  });

  test.each([
    [['--nope'], 'unknown option "--nope" (see --help)'],
    [['--timeout'], 'option --timeout needs a value (see --help)'],
    [['--json=yes'], 'option --json takes no value'],
    [['--json', '--json'], 'option --json given twice'],
    [['--timeout', '0'], '--timeout needs a number of seconds in 1-300; got "0"'],
    [['--retries', '2.5'], '--retries needs a whole number in 0-10; got "2.5"'],
    [['--header', '$(id)'], '--header must be one of api-key, bearer; got "$(id)"'],
  ])('%j → %s', (argv, message) => {
    expect(() => parseArgs(CHECK_OPTIONS, argv)).toThrow(new UsageError(message));
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

  test('exit codes: 2 for UsageError, 1 for RunError and the unexpected; secrets redacted everywhere', async () => {
    const a = io();
    expect(await runCli('prog', (r) => { r.addSecret('super-secret-key'); r.stdout('got super-secret-key\n'); throw new UsageError('bad super-secret-key'); }, a.io)).toBe(2);
    expect(a.out).toEqual({ stdout: 'got [redacted]\n', stderr: 'prog: error: bad [redacted]\n', code: 2 });
    const b = io();
    expect(await runCli('prog', () => { throw new RunError('cannot write'); }, b.io)).toBe(1);
    expect(b.out.stderr).toBe('prog: error: cannot write\n');
    const c = io();
    expect(await runCli('prog', () => { throw new TypeError('boom\nsecond line'); }, c.io)).toBe(1);
    expect(c.out.stderr).toBe('prog: error: unexpected failure: boom second line\n');
  });
});

describe('invocation: every value reaches the shell quoted, through the environment', () => {
  test('values go into QCA_* variables; booleans are bare flags', () => {
    const inv = invocation('check', { grantsEnv: 'QCA_GRANTS', header: 'bearer', timeout: 10, allowOpen: true, allowExcessAccess: false, readCollections: ['a', 'b'] }, 'assets/x/checker/cli.js');
    expect(inv.command).toBe('node "$QCA_CLI" check --grants-env "$QCA_GRANTS_ENV" --header "$QCA_HEADER" --timeout "$QCA_TIMEOUT" --allow-open --read-collections "$QCA_READ_COLLECTIONS"');
    expect(inv.environment).toEqual({
      QCA_CLI: 'assets/x/checker/cli.js', QCA_GRANTS_ENV: 'QCA_GRANTS', QCA_HEADER: 'bearer', QCA_TIMEOUT: '10', QCA_READ_COLLECTIONS: 'a,b',
    });
  });

  test('a hostile value never enters the command', () => {
    const inv = invocation('write', { file: '/tmp/a"; touch /tmp/pwned; echo "', owner: 'x', format: 'dotenv' }, 'cli.js');
    expect(inv.command).toBe('node "$QCA_CLI" write --file "$QCA_FILE" --format "$QCA_FORMAT" --owner "$QCA_OWNER"');
  });

  test('an unknown option is a programming error', () => {
    expect(() => invocation('check', { nope: 1 } as never, 'cli.js')).toThrow(/has no option nope/);
  });
});
