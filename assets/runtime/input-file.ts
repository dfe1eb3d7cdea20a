/**
 * Inputs that grow with the stack (the grants of a key, the entries of a file) reach the checker
 * and the writer in a JSON file that synth writes into the stack's directory, never in one
 * environment string: Linux refuses a string over 128 KiB (MAX_ARG_STRLEN) and bounds all of a
 * process's arguments and environment together (ARG_MAX), so about 840 clusters on one key failed
 * every deploy with "argument list too long". The file holds no secret.
 *
 * A value known only at deploy (a URL from a token, the hash of a key variable) cannot be in a file
 * written at synth: it travels in an environment variable of its own, small whatever the stack's
 * size, and the file holds `{"$env": "NAME"}` in its place.
 *
 * The file comes with its sha256 (from the configuration): a file that differs (edited, or written
 * by another synth) is refused, so the runtime reads exactly what synth meant. Node built-ins only.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { envValue } from './cli';
import { RuntimeError, codeOf, messageOf } from './errors';

/** In an input file, `{"$env": "NAME"}` stands for the value of environment variable NAME. */
export const ENV_REFERENCE = '$env';

/** Far above what any stack writes (2,000 grants are about 200 KB), and bounded all the same. */
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * The JSON value of input file `file` (relative to the working directory, the stack's), whose
 * sha256 must be `sha256` when given. `what` names the file in messages ("grants file"). Throws a
 * usage error naming the file and the fix.
 */
export function readInputFile(file: string, sha256: string | undefined, what: string): unknown {
  const shown = JSON.stringify(file);
  if (sha256 !== undefined && !/^[0-9a-f]{64}$/i.test(sha256)) {
    throw new RuntimeError(`the sha256 of ${what} ${shown} is not 64 hex digits; give the sha256 the file was written with`);
  }
  let fd: number | undefined;
  let bytes: Buffer;
  try {
    // Without blocking: a FIFO put in its place is refused, not waited on.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) throw new RuntimeError(`${what} ${shown} is not a regular file; synth writes it into the stack's directory: synthesize again`);
    if (st.size > MAX_BYTES) throw new RuntimeError(`${what} ${shown} is larger than ${MAX_BYTES / 1024 / 1024} MiB (${st.size} bytes); synth never writes one so large: synthesize again`);
    bytes = Buffer.alloc(st.size);
    let read = 0;
    while (read < st.size) {
      const n = readSync(fd, bytes, read, st.size - read, read);
      if (n === 0) break;
      read += n;
    }
    bytes = bytes.subarray(0, read);
  } catch (err) {
    if (err instanceof RuntimeError) throw err;
    throw new RuntimeError(`${what} ${shown} cannot be read (${codeOf(err) || messageOf(err)}): synth writes it into the stack's directory, ` +
      'where the deploy runs; synthesize again (a deploy through the CDK command line does), then deploy from that directory');
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (sha256 !== undefined && createHash('sha256').update(bytes).digest('hex') !== sha256.toLowerCase()) {
    throw new RuntimeError(`${what} ${shown} is not the file synth wrote for this configuration (its sha256 differs: it changed after synth); ` +
      'synthesize again (a deploy through the CDK command line does), then deploy');
  }
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new RuntimeError(`${what} ${shown} is not valid JSON; synthesize again`);
  }
}

/**
 * A value of an input file as it is meant: the environment variable's value for `{"$env": NAME}`,
 * else the value itself. `where` names the value in messages ("grant 3 url"). Throws a usage error
 * when the variable is not set.
 */
export function resolveValue(value: unknown, env: Readonly<Record<string, string | undefined>>, where: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== ENV_REFERENCE) return value;
  const name: unknown = (value as Record<string, unknown>)[ENV_REFERENCE];
  const resolved = typeof name === 'string' ? envValue(env, name) : undefined;
  if (resolved === undefined) {
    throw new RuntimeError(`${where} is the value of environment variable ${typeof name === 'string' ? JSON.stringify(name.slice(0, 64)) : '(not a name)'}, ` +
      'which is not set; the configuration sets it for this step: run the step through the deploy, not by hand');
  }
  return resolved;
}
