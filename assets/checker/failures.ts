/**
 * The failure catalog: every way a check can fail, with the phrase its line starts with, the
 * likely cause and the fix. The checker builds every failure message through failure(), and the
 * setup guide's troubleshooting table is generated from this list, so the two cannot drift apart
 * (a test runs the checker against every fault and requires each failure id to be listed here and
 * in the guide). Node built-ins only.
 *
 * Phrases are fixed text; the message adds details after the phrase (the server's answer, a date,
 * a host). Hints that name a file, a prop or a command use the construct's words, then the CLI's.
 */

const CATALOG = [
  // The address
  {
    id: 'not-qdrant',
    phrase: 'not a Qdrant endpoint',
    cause: 'The address leads to something else: a web page, a proxy, the console, or the REST port of another service.',
    fix: 'Use the cluster URL from the cluster\'s details in the Qdrant Cloud console.',
  },
  {
    id: 'redirect',
    phrase: 'redirected',
    cause: 'The address redirects, for example from an old host name.',
    fix: 'Use the final URL as the cluster address; the check never follows redirects, so the key is not sent elsewhere.',
  },
  {
    id: 'unexpected-answer',
    phrase: 'unexpected answer',
    cause: 'The server answered with a status the check does not expect (often a 5xx that outlasted the retries, or a 404 from a proxy).',
    fix: 'Check the cluster\'s status in the console and the address; run the check again.',
  },
  // The key
  {
    id: 'key-rejected',
    phrase: 'key rejected',
    cause: 'A wrong or deleted key, a key for other clusters, or a damaged copy (401 from Qdrant, or 403 `{"error":"forbidden"}` from the Qdrant Cloud edge).',
    fix: 'Check the key\'s clusters in the console (section 2), set the variable again (section 3), or create a new key.',
  },
  {
    id: 'key-not-received',
    phrase: 'key did not arrive',
    cause: 'The check sent the key, but Qdrant answered that the request held none (401 "Must provide an API key…"): a proxy on the way drops the header it was sent in.',
    fix: 'Send it in the other header (`healthCheck.header`: `ApiKeyHeader.BEARER` or `API_KEY`; `--header bearer` or `api-key`), or let the proxy pass the header.',
  },
  {
    id: 'key-expired',
    phrase: 'key expired',
    cause: 'The key (a JWT) is past its expiry date: the server refuses it (403 ExpiredSignature), or still accepts it (Qdrant allows 30 s past the date) and the check fails it by the date.',
    fix: 'Create a new key and rotate to it (section 6).',
  },
  {
    id: 'key-expires-soon',
    phrase: 'key expires too soon',
    cause: 'The key expires sooner than `healthCheck.minValidityDays` (`--min-validity-days`) allows.',
    fix: 'Create a new key with a later expiry and rotate to it (section 6), or lower the threshold.',
  },
  {
    id: 'key-whitespace',
    phrase: 'the key has whitespace or a newline',
    cause: 'A copy-paste error: spaces or a line break around the key.',
    fix: 'Copy the key again, or create a new one if it is lost.',
  },
  {
    id: 'key-bad-characters',
    phrase: 'the key contains a control character',
    cause: 'A copy-paste error: a character that cannot be sent in an HTTP header.',
    fix: 'Copy the key again, or create a new one if it is lost.',
  },
  {
    id: 'cluster-open',
    phrase: 'cluster is open',
    cause: 'The cluster answers `GET /collections` without a key: keys are not enforced, anyone can read and write it.',
    fix: 'Enable API keys on the cluster. If an open cluster is intended (local development), set `healthCheck: { requireAuth: false }` (`--allow-open`).',
  },
  // Access (declared with KeyAccess)
  {
    id: 'cannot-manage',
    phrase: 'key cannot manage the cluster',
    cause: 'The key is read-only or limited to some collections, but the key is declared `KeyAccess.manage()`.',
    fix: 'Create a key with manage access (cluster-wide) in the console, or declare the access the app really needs.',
  },
  {
    id: 'excess-manage',
    phrase: 'key has manage access',
    cause: 'The key can manage the whole cluster, but it is declared read-only or limited to some collections: more access than the app needs.',
    fix: 'Create a key with only the declared access (read-only, or the listed collections), or set `healthCheck.allowExcessAccess` to accept it with a warning.',
  },
  {
    id: 'no-global-read',
    phrase: 'key cannot read every collection',
    cause: 'The key is limited to some collections, but it is declared `KeyAccess.readOnly()` (read access to the whole cluster).',
    fix: 'Create a cluster-wide read-only key, or declare the collections with `KeyAccess.collections(...)`.',
  },
  {
    id: 'excess-global',
    phrase: 'key has access to every collection',
    cause: 'The key is cluster-wide, but it is declared for some collections only: more access than the app needs.',
    fix: 'Create a key limited to the declared collections (the console\'s Collections tab), or set `healthCheck.allowExcessAccess`.',
  },
  {
    id: 'collection-missing',
    phrase: 'collection does not exist',
    cause: 'A declared collection is not on this cluster (a typo, or it was never created).',
    fix: 'Create the collection, or fix its name in the key\'s declared access.',
  },
  {
    id: 'collection-no-access',
    phrase: 'key has no access to collection',
    cause: 'The key is limited to other collections.',
    fix: 'Create a key that includes this collection (the console\'s Collections tab), or fix the declared access.',
  },
  {
    id: 'collection-no-write',
    phrase: 'key has no write access to collection',
    cause: 'The key may only read this collection, but the app is declared to write it.',
    fix: 'Create a key with read-write access to the collection, or declare it under `read`.',
  },
  {
    id: 'excess-write',
    phrase: 'key can write collection',
    cause: 'The key may write a collection that is declared read-only: more access than the app needs.',
    fix: 'Create a key with read access to that collection, or set `healthCheck.allowExcessAccess`.',
  },
  {
    id: 'excess-collections',
    phrase: 'key has access to undeclared collections',
    cause: 'The key is limited to some collections, but to more than the declared ones: the server lists them for the key, or the key\'s access names them (also collections not created yet). More access than the app needs.',
    fix: 'Create a key limited to the declared collections (the console\'s Collections tab), declare the others too (`KeyAccess.collections(...)`), or set `healthCheck.allowExcessAccess`.',
  },
  // gRPC
  {
    id: 'grpc-not-qdrant',
    phrase: 'not a Qdrant gRPC endpoint',
    cause: 'The gRPC address does not answer Qdrant\'s gRPC health check: a wrong port (REST is 6333, gRPC 6334), or a proxy that does not pass gRPC.',
    fix: 'Set the cluster\'s `grpcPort` (default 6334; `--grpc-url` with port 6334), or turn the gRPC check off with `healthCheck.grpc: false` (no `--grpc-url`) if the deploy machine cannot reach it.',
  },
  {
    id: 'grpc-rejected',
    phrase: 'gRPC refused the key',
    cause: 'REST accepted the key but gRPC did not: the gRPC port belongs to another cluster, or a proxy drops the `api-key` metadata.',
    fix: 'Check the cluster\'s gRPC address and port (section 1).',
  },
  {
    id: 'grpc-open',
    phrase: 'gRPC is open',
    cause: 'The gRPC endpoint answers `Collections/List` without a key.',
    fix: 'Enable API keys on the cluster (or set `healthCheck: { requireAuth: false }` if intended).',
  },
  {
    id: 'grpc-unexpected',
    phrase: 'unexpected gRPC answer',
    cause: 'The gRPC endpoint answered with a status the check does not expect.',
    fix: 'Check the cluster\'s status in the console and run the check again.',
  },
  // The network
  {
    id: 'tls-untrusted',
    phrase: 'TLS certificate not trusted',
    cause: 'The cluster (or a proxy) uses a certificate from a private CA.',
    fix: 'Trust that CA: `healthCheck: { caFile: \'ca.pem\' }` (`--ca FILE`). TLS verification cannot be turned off.',
  },
  {
    id: 'tls-name',
    phrase: 'TLS certificate is not valid for',
    cause: 'The certificate names another host: a wrong address, or a proxy.',
    fix: 'Use the host name the cluster\'s certificate is issued for.',
  },
  {
    id: 'tls-expired',
    phrase: 'TLS certificate rejected',
    cause: 'The server\'s certificate is expired or not yet valid.',
    fix: 'Renew the certificate, or check this machine\'s clock.',
  },
  {
    id: 'tls-handshake',
    phrase: 'TLS handshake failed',
    cause: 'The port does not speak TLS (an http:// port) or the TLS versions do not match.',
    fix: 'Check the port: Qdrant Cloud serves REST on 6333 and gRPC on 6334, both over TLS.',
  },
  {
    id: 'timeout',
    phrase: 'no answer within',
    cause: 'Network: a firewall or IP allow-list, a VPN, a slow link, or a proxy that this machine must use (the check connects directly).',
    fix: 'Check that this machine may reach the cluster directly (the check does not use `HTTPS_PROXY`); raise `healthCheck.timeoutSeconds` (`--timeout`) for slow links.',
  },
  {
    id: 'deadline',
    phrase: 'overall deadline',
    cause: 'Retries did not succeed within the time limit of one cluster\'s check.',
    fix: 'Check the network and the cluster\'s status; raise `healthCheck.timeoutSeconds` (`--timeout`; the deadline grows with it, unless `--deadline` is given).',
  },
  {
    id: 'refused',
    phrase: 'connection refused',
    cause: 'Nothing listens on that port: a wrong port or a stopped cluster.',
    fix: 'Check the port (REST 6333, gRPC 6334) and that the cluster is running.',
  },
  {
    id: 'dns',
    phrase: 'host not found',
    cause: 'DNS does not know the host: a typo, a deleted cluster, or a network where only a proxy resolves names (the check does not use `HTTPS_PROXY`).',
    fix: 'Copy the cluster URL from the console again.',
  },
  {
    id: 'network',
    phrase: 'network error',
    cause: 'The connection failed or was closed before an answer.',
    fix: 'Check the network path to the cluster (the check connects directly, not through `HTTPS_PROXY`), then run the check again.',
  },
  {
    id: 'invalid-http',
    phrase: 'invalid HTTP answer',
    cause: 'Something that is not an HTTP server answered on that port.',
    fix: 'Check the address and the port.',
  },
] as const;

/** The id of a failure in the catalog, e.g. `key-rejected`. */
export type FailureId = typeof CATALOG[number]['id'];

/** One entry of the catalog. */
export interface FailureEntry {
  readonly id: FailureId;
  /** The fixed text the failure message starts with. */
  readonly phrase: string;
  /** The likely cause, for the setup guide (Markdown). */
  readonly cause: string;
  /** How to fix it, for the setup guide (Markdown). */
  readonly fix: string;
}

/** Every failure the checker can report. */
export const FAILURES: readonly FailureEntry[] = Object.freeze(CATALOG);

/** A failure: its id and its message, which starts with the catalog phrase. */
export interface Failure {
  readonly id: FailureId;
  readonly message: string;
  /** The message ends with a server's words and holds no fix of ours: withFix appends the catalog's whatever those words say. */
  readonly serverText?: true;
}

const BY_ID = new Map(FAILURES.map((f) => [f.id, f]));

/** The catalog entry of an id. */
function entry(id: FailureId): FailureEntry {
  return BY_ID.get(id) as FailureEntry;
}

/** A failure whose message is the catalog phrase of `id` then `detail`, e.g. " (401 Invalid API key or JWT)". */
export function failure(id: FailureId, detail = '', opts: { serverText?: boolean } = {}): Failure {
  return opts.serverText ? { id, message: `${entry(id).phrase}${detail}`, serverText: true } : { id, message: `${entry(id).phrase}${detail}` };
}

/**
 * A catalog fix in the words of a failure line: first letter lower-cased, no trailing period, no
 * backticks, and "(section 2)" as "(setup guide, section 2)" (the CLI user may not have it open).
 */
function lineFix(id: FailureId): string {
  const fix = entry(id).fix.replace(/`/g, '').replace(/\(section (\d+)\)/g, '(setup guide, section $1)').replace(/\.$/, '');
  return fix.charAt(0).toLowerCase() + fix.slice(1);
}

/**
 * Whether a message already says what to do: a "; " or " — " outside parentheses and quoted
 * strings (the server's words and names are shown in them), not followed by "last error:" or
 * "last answer:" (a deadline's details, not a hint).
 */
function hasHint(message: string): boolean {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < message.length; i++) {
    const c = message[i];
    if (quoted) {
      // quote() writes JSON strings (\" inside) and ends a clipped one with "…" instead of a quote.
      if (c === '\\') i++;
      else if (c === '"' || c === '…') quoted = false;
    } else if (c === '"') {quoted = true;} else if (c === '(') {depth++;} else if (c === ')') {depth = Math.max(0, depth - 1);} else if (depth === 0) {
      const rest = message.startsWith('; ', i) ? message.slice(i + 2) : message.startsWith(' — ', i) ? message.slice(i + 3) : undefined;
      if (rest !== undefined && !/^last (error|answer):/.test(rest)) return true;
    }
  }
  return false;
}

/**
 * A failure whose message ends with a fix: its own hint if it has one, else "; " + the catalog's
 * fix. A message that ends with a server's words (serverText) always gets the catalog's: a "; "
 * in those words is not ours.
 */
export function withFix(f: Failure): Failure {
  if (!f.serverText && hasHint(f.message)) return f;
  return { id: f.id, message: `${f.message}; ${lineFix(f.id)}` };
}
