/** How both CLIs run: main(io) returns an exit code (0 done, 1 failed, 2 usage error); what they print is redacted. */
import { RuntimeError, USAGE, messageOf } from './errors';
import { redact, safeLine } from './secrets';

/** What a CLI reads and writes: the real process, or a test's. */
export interface CliIo {
  readonly argv: string[];
  readonly env: Record<string, string | undefined>;
  stdout(text: string): void;
  stderr(text: string): void;
  setExitCode?(code: number): void;
}

/** The value of environment variable `name`: an own one only (never Object.prototype's `constructor`). */
export function envValue(env: CliIo['env'], name: string): string | undefined {
  const value = Object.prototype.hasOwnProperty.call(env, name) ? env[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** What main() gets: the io, and a way to register a secret (redacted from everything written afterwards). */
export interface RunIo extends CliIo {
  addSecret(secret: string | undefined): void;
}

/** Runs a CLI, redacting the secrets given to io.addSecret; a usage error exits 2, any other 1. Resolves the exit code. */
export async function runCli(prog: string, main: (io: RunIo) => number | Promise<number>, io: CliIo = processIo()): Promise<number> {
  const secrets: string[] = [];
  const wrapped: RunIo = {
    argv: io.argv,
    env: io.env,
    addSecret: (s) => { if (typeof s === 'string' && s !== '') secrets.push(s); },
    stdout: (text) => io.stdout(redact(text, secrets)),
    stderr: (text) => io.stderr(redact(text, secrets)),
  };
  let code;
  try {
    code = await main(wrapped);
  } catch (err) {
    const known = err instanceof RuntimeError;
    const line = known ? safeLine(err.message, secrets, 1000) : `unexpected failure: ${safeLine(messageOf(err), secrets)}`;
    wrapped.stderr(`${prog}: error: ${line}\n`);
    code = known && err.code === USAGE ? 2 : 1;
  }
  io.setExitCode?.(code);
  return code;
}

function processIo(): CliIo {
  // A reader that goes away (`... | head -1`) makes the next write fail with EPIPE, uncaught in Node: drop the rest.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err && err.code === 'EPIPE') return;
      throw err;
    });
  }
  return {
    argv: process.argv.slice(2),
    env: process.env,
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    setExitCode: (c) => { process.exitCode = c; },
  };
}
