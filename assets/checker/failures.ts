/** The failure catalog: every message is built through failure(), the setup guide's troubleshooting table from this list. */

/** [id, phrase, cause, fix] of every failure: the catalog's rows. */
const CATALOG = [
  // The address
  ['not-qdrant', 'not a Qdrant endpoint', 'The address leads to something else: a web page, a proxy, the console, or the REST port of another service.',
    'Use the cluster URL from the cluster\'s details in the Qdrant Cloud console.'],
  ['redirect', 'redirected', 'The address redirects, for example from an old host name.',
    'Use the final URL as the cluster address; the check never follows redirects, so the key is not sent elsewhere.'],
  ['unexpected-answer', 'unexpected answer', 'The server answered with a status the check does not expect (often a 5xx that outlasted the retries, or a 404 from a proxy).',
    'Check the cluster\'s status in the console and the address; run the check again.'],
  // The key
  ['key-rejected', 'key rejected', 'A wrong or deleted key, a key for other clusters, or a damaged copy (401 from Qdrant, or 403 `{"error":"forbidden"}` from the Qdrant Cloud edge).',
    'Check the key\'s clusters in the console (section 2), set the variable again (section 3), or create a new key.'],
  ['key-not-received', 'key did not arrive', 'The check sent the key, but Qdrant answered that the request held none (401 "Must provide an API key…"): a proxy on the way drops the header it was sent in.',
    'Send it in the other header (`healthCheck.header`: `ApiKeyHeader.BEARER` or `API_KEY`; `--header bearer` or `api-key`), or let the proxy pass the header.'],
  ['key-expired', 'key expired', 'The key (a JWT) is past its expiry date: the server refuses it (403 ExpiredSignature), or still accepts it (Qdrant allows 30 s past the date) and the check fails it by the date.',
    'Create a new key and rotate to it (section 6).'],
  ['key-expires-soon', 'key expires too soon', 'The key expires sooner than `healthCheck.minValidityDays` (`--min-validity-days`) allows.',
    'Create a new key with a later expiry and rotate to it (section 6), or lower the threshold.'],
  ['key-whitespace', 'the key has whitespace or a newline', 'A copy-paste error: spaces or a line break around the key.',
    'Copy the key again, or create a new one if it is lost.'],
  ['key-bad-characters', 'the key contains a control character', 'A copy-paste error: a character that cannot be sent in an HTTP header.',
    'Copy the key again, or create a new one if it is lost.'],
  ['cluster-open', 'cluster is open', 'The cluster answers `GET /collections` without a key: keys are not enforced, anyone can read and write it.',
    'Enable API keys on the cluster. If an open cluster is intended (local development), set `healthCheck: { requireAuth: false }` (`--allow-open`).'],
  // Access (declared with KeyAccess)
  ['cannot-manage', 'key cannot manage the cluster', 'The key is read-only or limited to some collections, but the key is declared `KeyAccess.manage()`.',
    'Create a key with manage access (cluster-wide) in the console, or declare the access the app really needs.'],
  ['excess-manage', 'key has manage access', 'The key can manage the whole cluster, but it is declared read-only or limited to some collections: more access than the app needs.',
    'Create a key with only the declared access (read-only, or the listed collections), or set `healthCheck.allowExcessAccess` to accept it with a warning.'],
  ['no-global-read', 'key cannot read every collection', 'The key is limited to some collections, but it is declared `KeyAccess.readOnly()` (read access to the whole cluster).',
    'Create a cluster-wide read-only key, or declare the collections with `KeyAccess.collections(...)`.'],
  ['excess-global', 'key has access to every collection', 'The key is cluster-wide, but it is declared for some collections only: more access than the app needs.',
    'Create a key limited to the declared collections (the console\'s Collections tab), or set `healthCheck.allowExcessAccess`.'],
  ['collection-missing', 'collection does not exist', 'A declared collection is not on this cluster (a typo, or it was never created).',
    'Create the collection, or fix its name in the key\'s declared access.'],
  ['collection-no-access', 'key has no access to collection', 'The key is limited to other collections.',
    'Create a key that includes this collection (the console\'s Collections tab), or fix the declared access.'],
  ['collection-no-write', 'key has no write access to collection', 'The key may only read this collection, but the app is declared to write it.',
    'Create a key with read-write access to the collection, or declare it under `read`.'],
  ['excess-write', 'key can write collection', 'The key may write a collection that is declared read-only: more access than the app needs.',
    'Create a key with read access to that collection, or set `healthCheck.allowExcessAccess`.'],
  ['excess-collections', 'key has access to undeclared collections', 'The key is limited to some collections, but to more than the declared ones: the server lists them for the key, or the key\'s access names them (also collections not created yet). More access than the app needs.',
    'Create a key limited to the declared collections (the console\'s Collections tab), declare the others too (`KeyAccess.collections(...)`), or set `healthCheck.allowExcessAccess`.'],
  // gRPC
  ['grpc-not-qdrant', 'not a Qdrant gRPC endpoint', 'The gRPC address does not answer Qdrant\'s gRPC health check: a wrong port (REST is 6333, gRPC 6334), or a proxy that does not pass gRPC.',
    'Set the cluster\'s `grpcPort` (default 6334; `--grpc-url` with port 6334), or turn the gRPC check off with `healthCheck.grpc: false` (no `--grpc-url`) if the deploy machine cannot reach it.'],
  ['grpc-rejected', 'gRPC refused the key', 'REST accepted the key but gRPC did not: the gRPC port belongs to another cluster, or a proxy drops the `api-key` metadata.',
    'Check the cluster\'s gRPC address and port (section 1).'],
  ['grpc-open', 'gRPC is open', 'The gRPC endpoint answers `Collections/List` without a key.',
    'Enable API keys on the cluster (or set `healthCheck: { requireAuth: false }` if intended).'],
  ['grpc-unexpected', 'unexpected gRPC answer', 'The gRPC endpoint answered with a status the check does not expect.',
    'Check the cluster\'s status in the console and run the check again.'],
  // The network
  ['tls-untrusted', 'TLS certificate not trusted', 'The cluster (or a proxy) uses a certificate from a private CA.',
    'Trust that CA: `healthCheck: { caFile: \'ca.pem\' }` (`--ca FILE`). TLS verification cannot be turned off.'],
  ['tls-name', 'TLS certificate is not valid for', 'The certificate names another host: a wrong address, or a proxy.',
    'Use the host name the cluster\'s certificate is issued for.'],
  ['tls-expired', 'TLS certificate rejected', 'The server\'s certificate is expired or not yet valid.',
    'Renew the certificate, or check this machine\'s clock.'],
  ['tls-handshake', 'TLS handshake failed', 'The port does not speak TLS (an http:// port) or the TLS versions do not match.',
    'Check the port: Qdrant Cloud serves REST on 6333 and gRPC on 6334, both over TLS.'],
  ['timeout', 'no answer within', 'Network: a firewall or IP allow-list, a VPN, a slow link, or a proxy that this machine must use (the check connects directly).',
    'Check that this machine may reach the cluster directly (the check does not use `HTTPS_PROXY`); raise `healthCheck.timeoutSeconds` (`--timeout`) for slow links.'],
  ['deadline', 'overall deadline', 'Retries did not succeed within the time limit of one cluster\'s check.',
    'Check the network and the cluster\'s status; raise `healthCheck.timeoutSeconds` (`--timeout`; the deadline grows with it, unless `--deadline` is given).'],
  ['refused', 'connection refused', 'Nothing listens on that port: a wrong port or a stopped cluster.',
    'Check the port (REST 6333, gRPC 6334) and that the cluster is running.'],
  ['dns', 'host not found', 'DNS does not know the host: a typo, a deleted cluster, or a network where only a proxy resolves names (the check does not use `HTTPS_PROXY`).',
    'Copy the cluster URL from the console again.'],
  ['network', 'network error', 'The connection failed or was closed before an answer.',
    'Check the network path to the cluster (the check connects directly, not through `HTTPS_PROXY`), then run the check again.'],
  ['invalid-http', 'invalid HTTP answer', 'Something that is not an HTTP server answered on that port.',
    'Check the address and the port.'],
] as const;

/** The id of a failure in the catalog, e.g. `key-rejected`. */
export type FailureId = typeof CATALOG[number][0];

/** Every failure the checker can report: the fixed text its message starts with; the likely cause and the fix, for the setup guide (Markdown). */
export const FAILURES = Object.freeze(CATALOG.map(([id, phrase, cause, fix]) => ({ id, phrase, cause, fix })));

/** One entry of the catalog. */
export type FailureEntry = typeof FAILURES[number];

/** A failure: its id and its message, which starts with the catalog phrase. */
export interface Failure {
  readonly id: FailureId;
  readonly message: string;
  /** The message ends with a server's words and holds no fix of ours: withFix appends the catalog's whatever those words say. */
  readonly serverText?: true;
}

const BY_ID = new Map(FAILURES.map((f) => [f.id, f]));

const entry = (id: FailureId) => BY_ID.get(id) as FailureEntry;

/** A failure whose message is the catalog phrase of `id` then `detail`, e.g. " (401 Invalid API key or JWT)". */
export function failure(id: FailureId, detail = '', opts: { serverText?: boolean } = {}): Failure {
  return { id, message: `${entry(id).phrase}${detail}`, ...(opts.serverText ? { serverText: true as const } : {}) };
}

/** A catalog fix in a failure line's words: lower-case start, no period or backticks, "(setup guide, section 2)". */
function lineFix(id: FailureId): string {
  const fix = entry(id).fix.replace(/`/g, '').replace(/\(section (\d+)\)/g, '(setup guide, section $1)').replace(/\.$/, '');
  return fix.charAt(0).toLowerCase() + fix.slice(1);
}

/** Names the guide's path (`--guide`, given by the deploy) where a message says "(setup guide, section N)". */
export function inGuide(text: string, guide?: string): string {
  return guide ? text.replace(/\(setup guide, section (\d+)\)/g, (_, n: string) => `(${guide}, section ${n})`) : text;
}

/** Whether a message says what to do: a "; " or " — " outside parentheses and quotes, not before "last error:" or "last answer:". */
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

/** A failure whose message ends with a fix: its own hint, else the catalog's (always after a server's words). */
export function withFix(f: Failure): Failure {
  if (!f.serverText && hasHint(f.message)) return f;
  return { id: f.id, message: `${f.message}; ${lineFix(f.id)}` };
}

/** A failing verdict of the probe table (probes.ts): a catalog id, and a detail with placeholders. */
type TableVerdict = { readonly failure: string; readonly detail: string; readonly serverText?: true };

/** A failing verdict's failure, its placeholders filled (judge.ts) or not (messageTemplate). */
export function tableFailure(v: TableVerdict, detail = v.detail): Failure {
  if (!BY_ID.has(v.failure as FailureId)) throw new Error(`not in the failure catalog: ${JSON.stringify(v.failure)}`);
  return failure(v.failure as FailureId, detail, { serverText: v.serverText });
}

/** A failing verdict as a step's message, placeholders left for Terraform to fill; withFix decides as on the filled one. */
export const messageTemplate = (v: TableVerdict): string => withFix(tableFailure(v)).message;
