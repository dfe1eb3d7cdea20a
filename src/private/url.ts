/**
 * Cluster address parsing for synth-time validation. The runtime checker has its own
 * copy of these rules (it must not import construct code), and checks token URLs at deploy.
 */

export interface ParsedClusterUrl {
  /** `https:` or `http:` */
  readonly protocol: string;
  /** Host as written, without brackets for IPv6. */
  readonly host: string;
  /** `https://host` (no port, no trailing slash). */
  readonly origin: string;
  /** The port written in the URL, if any (`https://h:443` gives 443, unlike WHATWG `URL.port`). */
  readonly explicitPort?: number;
}

export interface UrlCheck {
  readonly parsed?: ParsedClusterUrl;
  /** Problems, each a phrase that completes `url "<value>" ...`. */
  readonly problems: string[];
}

const AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^/:?#]*)(?::(\d*))?/;

/** The URL for an error message, with `user:password@` and the query masked (either may hold a key). */
export function showUrl(raw: string): string {
  return JSON.stringify(raw.replace(/\/\/[^/?#]*@/, '//***@').replace(/\?[^#]*/, '?***'));
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

export function checkClusterUrl(raw: string): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problems: ['does not parse as a URL; expected https://<host> or https://<host>:<port>'] };
  }
  const problems: string[] = [];
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    problems.push(`has scheme "${url.protocol.replace(/:$/, '')}"; expected https://<host>`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol === 'http:' && !isLoopbackHost(host)) {
    problems.push('uses http:// to a host that is not loopback, so the API key would travel in clear; use https://');
  }
  if (url.username || url.password) {
    problems.push('holds credentials (user:pass@); remove them, the API key is passed separately');
  }
  if (url.pathname !== '/' && url.pathname !== '') {
    problems.push(`has a path "${url.pathname}"; give only the cluster address, e.g. "${url.protocol}//${url.host}"`);
  }
  if (url.search) {
    problems.push('has a query (not shown: it may hold a key); remove it, the API key is passed separately');
  }
  if (url.hash || raw.includes('#')) {
    problems.push('has a fragment ("#..."); remove it');
  }
  const m = AUTHORITY.exec(raw);
  const portText = m?.[2];
  const explicitPort = portText ? Number(portText) : undefined;
  if (explicitPort !== undefined && (explicitPort < 1 || explicitPort > 65535)) {
    problems.push(`has port ${explicitPort}, outside 1-65535`);
  }
  const origin = `${url.protocol}//${url.hostname}`;
  return { parsed: { protocol: url.protocol, host, origin, explicitPort }, problems };
}
