/** The CA-file rule of healthCheck.caFile and --ca: a regular file of at most 1 MiB that holds a PEM certificate. */
import { codeOf, messageOf } from './errors';
import { readRegularFile } from './input-file';

/** The PEM text of a CA file, or why it cannot be one (`detail`: the error's code; `size`: of a file too large). */
export function readCaFile(file: string): { pem: string } | { problem: 'unreadable'; detail: string; missing: boolean } |
{ problem: 'not-regular' | 'no-certificate' } | { problem: 'too-large'; size: number } {
  let read;
  try {
    read = readRegularFile(file, 1024 * 1024);
  } catch (err) {
    return { problem: 'unreadable', detail: codeOf(err) || messageOf(err), missing: codeOf(err) === 'ENOENT' };
  }
  if (!Buffer.isBuffer(read)) return read;
  const pem = read.toString('utf8');
  return pem.includes('-----BEGIN CERTIFICATE-----') ? { pem } : { problem: 'no-certificate' };
}
