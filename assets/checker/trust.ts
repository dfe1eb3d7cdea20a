/**
 * The TLS trust of a check given an extra CA file (--ca, healthCheck.caFile): Node's bundled roots
 * + NODE_EXTRA_CA_CERTS (which a `ca` option would otherwise drop) + the file. What a CA file may
 * be is runtime/ca-file.ts's rule. Node built-ins only.
 *
 * Node's default context holds its bundled roots (parsed once, in C++); adding NODE_EXTRA_CA_CERTS
 * and the file to it costs ~1 ms, where `ca: [...tls.rootCertificates, pem]` parses ~150 PEM
 * roots in JavaScript in every check process (~20 ms). The explicit list stays as the fallback
 * for a Node without `SecureContext.context.addCACert`.
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

/**
 * How the checker's connections to `hostname` verify TLS: always (rejectUnauthorized is explicit,
 * so NODE_TLS_REJECT_UNAUTHORIZED=0 cannot switch it off), with the extra CAs of `secureContext`
 * if given; SNI only for names (the certificate is still matched against an IP address).
 */
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
    // OpenSSL skips a PEM block it cannot parse without a word: parse each one here, so that a
    // damaged file is an error and not a silent fallback to the default roots.
    for (const block of pem.match(PEM_BLOCK_RE) || []) new X509Certificate(block); // eslint-disable-line no-new
    const extra = [];
    if (process.env.NODE_EXTRA_CA_CERTS) {
      try {
        extra.push(...notBundled(readFileSync(process.env.NODE_EXTRA_CA_CERTS, 'utf8')));
      } catch {
        // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS; do the same (silently).
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

/**
 * The certificates of a PEM bundle that are not among Node's bundled roots. NODE_EXTRA_CA_CERTS
 * often names the system's whole bundle (about 140 certificates, most of them Node's own roots):
 * parsing them all again costs a check process ~15 ms, the few that differ ~1 ms.
 */
function notBundled(pem: string): string[] {
  const bare = (block: string) => block.replace(/\s+/g, '');
  const bundled = new Set(rootCertificates.map(bare));
  return (pem.match(PEM_BLOCK_RE) || []).filter((b) => !bundled.has(bare(b)));
}
