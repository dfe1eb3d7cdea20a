/**
 * The TLS trust of a check with an extra CA file: Node's roots, NODE_EXTRA_CA_CERTS (which a `ca` option would drop) and the
 * file, added to the default context (~1 ms; `ca: [...rootCertificates]` costs ~20 ms a process) where Node has `addCACert`.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { ConnectionOptions, createSecureContext, rootCertificates, SecureContext } from 'node:tls';
import { readCaFile } from '../runtime/ca-file';
import { RuntimeError } from '../runtime/errors';
import { safeLine } from '../runtime/secrets';
import { quote } from '../runtime/text';

const PEM_BLOCK_RE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** TLS always verified (explicitly: NODE_TLS_REJECT_UNAUTHORIZED=0 cannot switch it off); SNI only for names. */
export function verifiedTls(hostname: string, secureContext: SecureContext | undefined): ConnectionOptions {
  return { rejectUnauthorized: true, ...(secureContext ? { secureContext } : {}), ...(isIP(hostname) ? {} : { servername: hostname }) };
}

/** The secure context that trusts `caFile` too. Throws a usage error for a file that cannot be one. */
export function loadTrust(caFile: string): SecureContext {
  const shown = quote(String(caFile));
  const read = readCaFile(caFile);
  if (!('pem' in read)) {
    switch (read.problem) {
      case 'unreadable': throw new RuntimeError(`cannot read CA file ${shown} (${read.detail}); give a PEM file with the CA certificate(s)`);
      case 'not-regular': throw new RuntimeError(`CA file ${shown} is not a regular file (a device, a FIFO or a directory); give a PEM file`);
      case 'too-large': throw new RuntimeError(`CA file ${shown} is larger than 1 MiB (${read.size} bytes); give a PEM file with the CA certificate(s)`);
      default: throw new RuntimeError(`CA file ${shown} has no PEM certificate (-----BEGIN CERTIFICATE-----); give a PEM file`);
    }
  }
  const { pem } = read;
  try {
    // OpenSSL silently skips a block it cannot parse: a damaged file must be an error.
    for (const block of pem.match(PEM_BLOCK_RE) || []) new X509Certificate(block); // eslint-disable-line no-new
    const extra = [];
    if (process.env.NODE_EXTRA_CA_CERTS) {
      try {
        extra.push(...notBundled(readFileSync(process.env.NODE_EXTRA_CA_CERTS, 'utf8')));
      } catch {
        // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS.
      }
    }
    const context = createSecureContext() as SecureContext & { context?: { addCACert?: (pem: string) => void } };
    if (typeof context.context?.addCACert !== 'function') return createSecureContext({ ca: [...rootCertificates, ...extra, pem] });
    context.context.addCACert([...extra, pem].join('\n'));
    return context;
  } catch (err) {
    throw new RuntimeError(`CA file ${shown} holds no usable certificate (${safeLine((err as Error).message, [], 80)})`);
  }
}

/** A bundle's certificates that are not Node's roots: NODE_EXTRA_CA_CERTS is often the system's whole bundle (~15 ms to parse). */
function notBundled(pem: string): string[] {
  const bare = (block: string) => block.replace(/\s+/g, '');
  const bundled = new Set(rootCertificates.map(bare));
  return (pem.match(PEM_BLOCK_RE) || []).filter((b) => !bundled.has(bare(b)));
}
