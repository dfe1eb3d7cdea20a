/**
 * Cluster addresses, one rule for synth and deploy: http[s]://<host>[:<port>][/] and nothing else, so no value holds credentials,
 * a path, a query or "${". Forms other parsers repair are refused, not guessed at; http:// only to loopback (the key travels in clear).
 */
import { isIPv4, isIPv6 } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';
import { clip, mayBeKey, stripControl } from './text';

export const DEFAULT_REST_PORT = 6333;
export const DEFAULT_GRPC_PORT = 6334;
const EXPECTED = 'expected https://<host> or https://<host>:<port>';

/** The URL for a message: credentials up to the last "@", the query and a tail that may be a key masked; quoted, one line. */
export function showUrl(raw: unknown): string {
  let masked = String(raw);
  const start = /^https?:\/*/i.exec(masked)?.[0].length ?? 0; // anything else may be a user name
  const at = masked.lastIndexOf('@');
  if (at >= start) {
    // An "@" after "/", "?" or "#" may end a password or sit in a path: nothing after the scheme is shown.
    const ambiguous = /[/?#]/.test(masked.slice(start, at));
    masked = ambiguous ? `${masked.slice(0, start)}***` : `${masked.slice(0, start)}***${masked.slice(at)}`;
  }
  masked = masked.replace(/\?[^#]*/, '?***');
  const authority = (/^(?:[A-Za-z][A-Za-z0-9+.-]*:\/*)?(?:[^@]*@)?(?:\[[^\]]*\]|[^:/?#\s]*)/.exec(masked) as RegExpExecArray)[0].length;
  masked = masked.slice(0, authority) + maskTail(masked.slice(authority));
  return JSON.stringify(clip(stripControl(masked), 200));
}

/** What follows a host: a port of digits kept; the rest, as a whole (a key may hold "/"), only when it cannot be a key. */
function maskTail(tail: string): string {
  const port = /^:[0-9]{1,5}(?=[/?#\s]|$)/.exec(tail)?.[0] ?? '';
  const rest = tail.slice(port.length);
  const text = rest.replace('?***', '').replace(/[/?#:\s]+/g, '');
  return port + (rest !== '' && mayBeKey(text) ? `${rest[0]}***` : rest);
}

/** A host for a message: quoted, invisible and control characters as \u escapes, clipped. */
function showHost(host: string): string {
  const code = (c: string) => (c.codePointAt(0) as number).toString(16).padStart(4, '0');
  return JSON.stringify(clip(host, 80)).replace(/[\p{C}\p{Z}]/gu, (c) => (c.length > 1 ? `\\u{${code(c)}}` : `\\u${code(c)}`));
}

/** Whether each label the URL parser read is the one written, lower-cased or in punycode: else (a zero-width space) it is another host. */
function onlyLowercasedOrPunycode(host: string, ascii: string): boolean {
  const written = host.split('.');
  const read = ascii.split('.');
  return written.length === read.length && written.every((label, i) => {
    const lower = label.toLowerCase();
    // JavaScript lower-cases a final capital sigma to "ς", the URL parser (UTS-46) to "σ".
    const sigma = (t: string) => t.replace(/ς/g, 'σ');
    return read[i] === lower || (read[i].startsWith('xn--') && sigma(domainToUnicode(read[i])) === sigma(lower));
  });
}

/** 127.0.0.0/8, ::1 or localhost; `ascii` as checkHost() gives it (lower case, IPv6 without brackets). */
function isLoopbackHost(ascii: string): boolean {
  return ascii === 'localhost' || ascii === '::1' || (isIPv4(ascii) && ascii.startsWith('127.'));
}

const LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The ASCII host, or a problem phrase. */
function checkHost(host: string): { ascii: string; forUrl: string } | { problem: string } {
  if (host === '') return { problem: `has no host; ${EXPECTED}` };
  if (host.startsWith('[')) {
    const inner = host.slice(1, -1);
    if (!host.endsWith(']') || inner.includes('%') || !isIPv6(inner)) return { problem: `has host ${showHost(host)}, which is not an IPv6 address` };
    return { ascii: inner.toLowerCase(), forUrl: `[${inner.toLowerCase()}]` };
  }
  if (/^[0-9.]+$/.test(host)) {
    if (!isIPv4(host)) return { problem: `has host ${JSON.stringify(host)}, which is not a valid IPv4 address` };
    return { ascii: host, forUrl: host };
  }
  if (host.includes('%')) {
    return { problem: `has host ${showHost(host)}, which holds "%" (percent-encoding); write the host itself, without %-escapes` };
  }
  const ascii = domainToASCII(host);
  if (ascii !== '' && !onlyLowercasedOrPunycode(host, ascii)) {
    return {
      problem: `has host ${showHost(host)}, which the URL parser would read as ${showHost(ascii)}; write the host as ${showHost(ascii)} if that is the one you mean`,
    };
  }
  const labels = ascii.split('.');
  const valid = ascii !== '' && ascii.length <= 253 && labels.every((l) => LABEL_RE.test(l)) && !/^[0-9]+$/.test(labels[labels.length - 1]);
  if (!valid) {
    return {
      problem: `has host ${showHost(host)}, which is not a DNS name (letters, digits and "-" in dot-separated labels) or an IP address`,
    };
  }
  return { ascii, forUrl: ascii };
}

/** A cluster address parsed by the rule above. */
export interface ParsedClusterUrl {
  /** Phrases that complete `url "<value>" …`; empty when the address is valid. */
  readonly problems: string[];
  /** The rest, when the structure could be read: `host` ASCII, lower case (IPv6 without brackets; `hostForUrl` with them), `origin` without port. */
  readonly protocol?: 'https:' | 'http:';
  readonly host?: string;
  readonly hostForUrl?: string;
  /** The port written in the address, if any (`https://h:443` gives 443). */
  readonly explicitPort?: number;
  readonly origin?: string;
}

/** The phrase for a valid address not written as `checked`: the targets get it as written, so only that form is checked. */
export function notAsChecked(checked: string): string {
  return `is not written as the check uses it, ${showUrl(checked)} (scheme and host in lower case, an IDN in punycode, the port written, ` +
    'no "/" at the end): the targets would get it as written, not as checked; give the cluster\'s address in that form';
}

/** Parses a cluster address by the rule above; never throws. */
export function parseClusterUrl(raw: unknown): ParsedClusterUrl {
  if (typeof raw !== 'string') return { problems: [`is not a string; ${EXPECTED}`] };
  if (raw === '') return { problems: [`is empty; ${EXPECTED}`] };
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(raw)) return { problems: [`holds whitespace or a control character; ${EXPECTED}`] };
  if (/[$%]\{/.test(raw)) {
    return { problems: ['holds "${" or "%{", which Terraform would evaluate as an expression; give the address itself, or a token with no text around it'] };
  }
  if (raw.includes('\\')) return { problems: [`holds a backslash; ${EXPECTED}`] };
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/.exec(raw);
  if (!m) return { problems: [`has no scheme; ${EXPECTED}`] };
  const scheme = `${m[1].toLowerCase()}:`;
  if (scheme !== 'https:' && scheme !== 'http:') {
    // A long "scheme", or one with no "//" before an "@", is more likely a key or a user:password.
    const shown = m[1].length <= 12 && (m[2].startsWith('//') || !raw.includes('@'));
    return { problems: [`has scheme ${shown ? JSON.stringify(m[1]) : '(not shown: it may be a key)'}; ${EXPECTED}`] };
  }
  const protocol: 'https:' | 'http:' = scheme;
  if (!m[2].startsWith('//') || m[2].startsWith('///')) {
    return { problems: [`is not written as ${protocol}//<host>[:<port>] (the "//" after the scheme is missing or doubled)`] };
  }
  // Credentials first, up to the last "@": a password may hold "/", "?" or "#".
  const problems = [];
  let afterSlashes = m[2].slice(2);
  if (afterSlashes.includes('@')) {
    const at = afterSlashes.lastIndexOf('@');
    if (/[/?#]/.test(afterSlashes.slice(0, at))) {
      // user:pa/ss@host, or host/?k=a@b: which one cannot be told, and either may hold a secret.
      return {
        problems: ['holds an "@" after a "/", "?" or "#": credentials (user:pass@) or a path or query (not shown: it may hold a key); ' +
          `remove them, the API key is passed separately; ${EXPECTED}`],
        protocol,
      };
    }
    problems.push('holds credentials (user:pass@); remove them, the API key is passed separately');
    afterSlashes = afterSlashes.slice(at + 1);
  }
  // Host, port, path, query, fragment; no line terminator is left for "." to miss (whitespace was refused).
  const parts: (string | undefined)[] = /^(\[[^\]/?#]*\]|[^:/?#]*)(?::([^/?#]*))?(\/[^?#]*)?(\?[^#]*)?(#.*)?$/.exec(afterSlashes) ?? [];
  const [, hostText = '', portText, pathPart = '', query, fragment] = parts;
  if (pathPart !== '' && pathPart !== '/') {
    const address = `${protocol}//${hostText}${portText === undefined ? '' : `:${mayBeKey(portText) ? '<port>' : portText}`}`;
    problems.push(`has a path ${JSON.stringify(clip(maskTail(pathPart), 80))}; give only the cluster address, e.g. ${JSON.stringify(address)}`);
  }
  if (query !== undefined) problems.push('has a query (not shown: it may hold a key); remove it, the API key is passed separately');
  if (fragment !== undefined) problems.push('has a fragment ("#..."); remove it');

  let explicitPort;
  if (portText !== undefined) {
    if (!/^[1-9][0-9]{0,4}$/.test(portText) || Number(portText) > 65535) {
      problems.push(`has port ${mayBeKey(portText) ? '(not shown: it may be a key)' : JSON.stringify(portText)}; a port is a number in 1-65535 without leading zeros`);
    } else {
      explicitPort = Number(portText);
    }
  }
  const host = checkHost(hostText);
  if ('problem' in host) return { problems: [...problems, host.problem], protocol };
  if (protocol === 'http:' && !isLoopbackHost(host.ascii)) {
    problems.push('uses http:// to a host that is not loopback, so the API key would travel in clear; use https://');
  }
  return { problems, protocol, host: host.ascii, hostForUrl: host.forUrl, explicitPort, origin: `${protocol}//${host.forUrl}` };
}
