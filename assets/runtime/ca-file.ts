/**
 * The rule for a CA file, for healthCheck.caFile at synth and --ca at deploy: a regular file of at
 * most 1 MiB that holds a PEM certificate. It is opened without blocking (a FIFO or a device is
 * refused, not waited on) and read through that one descriptor. Each side words the problem for
 * its own option. Node built-ins only.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { codeOf, messageOf } from './errors';

/** The PEM text of a CA file, or why it cannot be one (`detail`: the error's code; `size`: of a file too large). */
export function readCaFile(file: string): { pem: string } | { problem: 'unreadable'; detail: string; missing: boolean } |
{ problem: 'not-regular' | 'no-certificate' } | { problem: 'too-large'; size: number } {
  let fd: number | undefined;
  let pem: string;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) return { problem: 'not-regular' };
    if (st.size > 1024 * 1024) return { problem: 'too-large', size: st.size };
    const buf = Buffer.alloc(st.size);
    let read = 0;
    while (read < st.size) {
      const n = readSync(fd, buf, read, st.size - read, read);
      if (n === 0) break;
      read += n;
    }
    pem = buf.subarray(0, read).toString('utf8');
  } catch (err) {
    return { problem: 'unreadable', detail: codeOf(err) || messageOf(err), missing: codeOf(err) === 'ENOENT' };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return pem.includes('-----BEGIN CERTIFICATE-----') ? { pem } : { problem: 'no-certificate' };
}
