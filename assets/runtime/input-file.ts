/**
 * Inputs that grow with the stack (grants, entries) come in a JSON file written at synth, not one environment string (Linux
 * refuses one over 128 KiB). It holds no secret and comes with its sha256; a value known only at deploy is `{"$env": "NAME"}`.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { envValue } from './cli';
import { RuntimeError, codeOf, messageOf } from './errors';

/** In an input file, `{"$env": "NAME"}` stands for the value of environment variable NAME. */
export const ENV_REFERENCE = '$env';

/** Far above what any stack writes (2,000 grants are about 200 KB), and bounded all the same. */
const MAX_BYTES = 64 * 1024 * 1024;

/** A regular file's bytes, through one descriptor opened without blocking (a FIFO is refused, not waited on); throws Node's error. */
export function readRegularFile(file: string, maxBytes: number): Buffer | { problem: 'not-regular' } | { problem: 'too-large'; size: number } {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { problem: 'not-regular' };
    if (st.size > maxBytes) return { problem: 'too-large', size: st.size };
    const bytes = Buffer.alloc(st.size);
    let read = 0;
    while (read < st.size) {
      const n = readSync(fd, bytes, read, st.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/** The JSON value of input file `file`, whose sha256 must be `sha256` when given; `what` names it ("grants file"). */
export function readInputFile(file: string, sha256: string | undefined, what: string): unknown {
  const shown = JSON.stringify(file);
  if (sha256 !== undefined && !/^[0-9a-f]{64}$/i.test(sha256)) {
    throw new RuntimeError(`the sha256 of ${what} ${shown} is not 64 hex digits; give the sha256 the file was written with`);
  }
  let bytes;
  try {
    bytes = readRegularFile(file, MAX_BYTES);
  } catch (err) {
    throw new RuntimeError(`${what} ${shown} cannot be read (${codeOf(err) || messageOf(err)}): synth writes it into the stack's directory, ` +
      'where the deploy runs; synthesize again (a deploy through the CDK command line does), then deploy from that directory');
  }
  if (!Buffer.isBuffer(bytes)) {
    if (bytes.problem === 'not-regular') throw new RuntimeError(`${what} ${shown} is not a regular file; synth writes it into the stack's directory: synthesize again`);
    throw new RuntimeError(`${what} ${shown} is larger than ${MAX_BYTES / 1024 / 1024} MiB (${bytes.size} bytes); synth never writes one so large: synthesize again`);
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

/** Environment variable NAME's value for `{"$env": NAME}`, else `value`; `where` names it ("grant 3 url"); throws if NAME is not set. */
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
