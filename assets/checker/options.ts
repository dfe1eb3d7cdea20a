/** The options of a check, validated before anything is sent: a usage error holds no form of the key. */
import { keyInfo } from './jwt';
import { BACKOFF } from './retry';
import { loadTrust } from './trust';
import { RuntimeError } from '../runtime/errors';
import { COLLECTION_RULE, isCollectionName, repeatedName } from '../runtime/names';
import { CHECK_OPTIONS, defaultDeadlineSeconds, OptionSpec } from '../runtime/protocol';
import { holdsPart, redact } from '../runtime/secrets';
import { quote } from '../runtime/text';
import { DEFAULT_GRPC_PORT, DEFAULT_REST_PORT, parseClusterUrl, showUrl } from '../runtime/url';

/** What is shown in place of a collection name that holds part of the key. */
export const NAME_HIDDEN = '(a name not shown: it holds part of the API key)';

/** How the key is sent: `api-key: <key>` (default) or `Authorization: Bearer <key>`. Exactly one header is ever sent. */
export type KeyHeader = typeof CHECK_OPTIONS.header.values[number];
/** The access a key must have: any valid key (default), global read-only, manage, or exactly the listed collections. */
export type DeclaredAccess = typeof CHECK_OPTIONS.access.values[number];

/** What all grants of one key share: the CLI's options of the same meaning (CHECK_OPTIONS), `caFile` --ca, `requireAuth` false --allow-open. */
export interface SharedCheckOptions {
  apiKey: string;
  header?: KeyHeader;
  caFile?: string;
  timeoutSeconds?: number;
  deadlineSeconds?: number;
  retries?: number;
  requireAuth?: boolean;
  access?: DeclaredAccess;
  readCollections?: string[];
  writeCollections?: string[];
  allowExcessAccess?: boolean;
  minValidityDays?: number;
  warnValidityDays?: number;
  deployCommand?: typeof CHECK_OPTIONS.deployCommand.values[number];
  /** The setup guide's path, named in failure lines (e.g. cdktf.out/stacks/search/qdrant-setup.md). */
  guide?: string;
  /** The exponential backoff's base and the cap of one wait, in ms (default 200 and 5000; Retry-After is bounded by the deadline only). */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** "Now", for the expiry (tests). */
  now?: Date;
}

/** One cluster to check: its REST URL (no port: 6333; http:// only for loopback hosts), its gRPC URL (no port: 6334; checked when given), the label of its lines (default: the URL host). */
export interface Grant {
  url: string;
  grpcUrl?: string;
  label?: string;
}

export interface CheckOptions extends SharedCheckOptions, Grant {}

export type BaseUrl = ReturnType<typeof parseBaseUrl>;

export type Prepared = ReturnType<typeof prepare>;

/** Validates a base URL as the check does (no network); a usage error, also for a host that holds part of `secrets`. */
export function parseBaseUrl(input: unknown, defaultPort = DEFAULT_REST_PORT, secrets: readonly (string | undefined)[] = []) {
  const what = defaultPort === DEFAULT_GRPC_PORT ? 'gRPC URL' : 'url';
  if (typeof input !== 'string' || input.trim() === '') {
    throw new RuntimeError(`missing ${what}: give the cluster's base URL, e.g. https://xyz.eu-central.aws.cloud.qdrant.io:${defaultPort}`);
  }
  // Never trimmed or otherwise repaired: the address rule (runtime/url.ts) is the one place that reads it.
  const parsed = parseClusterUrl(input);
  if (parsed.problems.length > 0) throw new RuntimeError(`${what} ${showUrl(input)} ${parsed.problems[0]}`);
  const { protocol, host, hostForUrl, origin, explicitPort } = parsed as Required<typeof parsed>;
  // A key pasted into the host would go to a DNS resolver with the lookup, before any check.
  if (holdsPart(host, secrets)) {
    throw new RuntimeError(`${what}: its host holds part of the API key (not shown; a copy-paste error?), so nothing was sent to it; give the cluster's URL`);
  }
  const port = explicitPort === undefined ? defaultPort : explicitPort;
  return {
    protocol,
    /** For net.connect: IPv6 without brackets. */
    hostname: host,
    port,
    /** Normalised, with the port, e.g. `https://host:6333`. */
    url: `${origin}:${port}`,
    /** The host as written (with the port only if one was given): the default label. */
    host: explicitPort === undefined ? hostForUrl : `${hostForUrl}:${port}`,
  };
}

/** An option's value for a message, quoted and clipped: redacted first, so no clip can leave a part of the key. */
function shownValue(value: unknown, options: SharedCheckOptions, max = 40): string {
  return quote(typeof value === 'string' ? redact(value, [options.apiKey]) : value, max);
}

/** What `run` returns; a usage error it throws holds no form of the secrets (a key pasted into another option), any other is as it is. */
export async function withoutSecrets<T>(secrets: readonly (string | undefined)[], run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof RuntimeError)) throw err;
    const message = redact(err.message, secrets);
    throw message === err.message ? err : new RuntimeError(message, err.code);
  }
}

function numberOption(options: SharedCheckOptions, name: 'timeoutSeconds' | 'deadlineSeconds' | 'retries' | 'minValidityDays' | 'warnValidityDays',
  spec: OptionSpec & { min: number; max: number }): number | undefined {
  const value: unknown = options[name];
  if (value === undefined) return undefined;
  const integer = spec.type === 'integer';
  const ok = typeof value === 'number' && Number.isFinite(value) && (!integer || Number.isInteger(value)) && value >= spec.min && value <= spec.max;
  if (!ok) throw new RuntimeError(`${name} must be a ${integer ? 'whole ' : ''}number in ${spec.min}-${spec.max}; got ${shownValue(value, options)}`);
  return value;
}

/** The guide's path: one line of text (it is printed in failure lines). */
function guideOption(options: SharedCheckOptions): string | undefined {
  const g: unknown = options.guide;
  if (g === undefined) return undefined;
  if (typeof g !== 'string' || g === '' || g.length > 400 || /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(g)) {
    throw new RuntimeError(`guide must be the path of the setup guide, one line of at most 400 characters; got ${shownValue(g, options)}`);
  }
  return g;
}

function enumOption<V extends string>(options: SharedCheckOptions, name: 'header' | 'access' | 'deployCommand', spec: { values: readonly V[]; default: V }): V {
  const value = options[name] === undefined ? spec.default : options[name];
  if (!spec.values.includes(value as V)) throw new RuntimeError(`${name} must be one of ${spec.values.join(', ')}; got ${shownValue(value, options)}`);
  return value as V;
}

/** Qdrant's rule for collection names (runtime/names.ts), plus no comma (the CLI lists them comma-separated). */
function checkCollections(list: unknown, name: string, options: SharedCheckOptions): string[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new RuntimeError(`${name} must be a list of collection names`);
  const shown = (c: unknown) => (typeof c === 'string' && holdsPart(c, [options.apiKey]) ? NAME_HIDDEN : shownValue(c, options, 60));
  for (const c of list) {
    if (!isCollectionName(c)) throw new RuntimeError(`${name}: ${shown(c)} is not a collection name (${COLLECTION_RULE})`);
  }
  // As at synth (KeyAccess.collections): a repeat is a slip, and would be probed twice.
  const twice = repeatedName(list);
  if (twice !== undefined) throw new RuntimeError(`${name} lists ${shown(twice)} twice; list each collection once`);
  return [...list];
}

/** Validates what all grants of one key share and prepares it (the CA is read once). Throws a usage error for bad options. */
export function prepare(options: SharedCheckOptions) {
  const started = Date.now();
  if (!options || typeof options !== 'object') throw new RuntimeError('options are required');
  if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new RuntimeError('the API key is empty or missing');
  const timeoutSeconds = numberOption(options, 'timeoutSeconds', CHECK_OPTIONS.timeout) ?? CHECK_OPTIONS.timeout.default;
  const access = enumOption(options, 'access', CHECK_OPTIONS.access);
  const read = checkCollections(options.readCollections, 'readCollections', options);
  const write = checkCollections(options.writeCollections, 'writeCollections', options);
  if (access === 'read-only' && write.length > 0) {
    throw new RuntimeError('access read-only and write collections contradict each other; declare the collections with access collections');
  }
  if (access === 'collections' && read.length + write.length === 0) {
    throw new RuntimeError('access collections needs --read-collections or --write-collections');
  }
  for (const name of ['backoffBaseMs', 'backoffCapMs'] as const) {
    const v: unknown = options[name];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) throw new RuntimeError(`${name} must be a number >= 0; got ${shownValue(v, options)}`);
  }
  const prepared = {
    started,
    key: options.apiKey,
    secrets: [options.apiKey],
    header: enumOption(options, 'header', CHECK_OPTIONS.header),
    timeoutMs: timeoutSeconds * 1000,
    deadlineMs: (numberOption(options, 'deadlineSeconds', CHECK_OPTIONS.deadline) ?? defaultDeadlineSeconds(timeoutSeconds)) * 1000,
    retries: numberOption(options, 'retries', CHECK_OPTIONS.retries) ?? CHECK_OPTIONS.retries.default,
    requireAuth: options.requireAuth === undefined ? true : Boolean(options.requireAuth),
    access,
    read,
    write,
    allowExcessAccess: Boolean(options.allowExcessAccess),
    minValidityDays: numberOption(options, 'minValidityDays', CHECK_OPTIONS.minValidityDays) ?? CHECK_OPTIONS.minValidityDays.default,
    warnValidityDays: numberOption(options, 'warnValidityDays', CHECK_OPTIONS.warnValidityDays) ?? CHECK_OPTIONS.warnValidityDays.default,
    deployCommand: enumOption(options, 'deployCommand', CHECK_OPTIONS.deployCommand),
    guide: guideOption(options),
    backoffBaseMs: options.backoffBaseMs ?? BACKOFF.baseMs,
    backoffCapMs: options.backoffCapMs ?? BACKOFF.capMs,
    secureContext: options.caFile === undefined ? undefined : loadTrust(options.caFile),
    keyInfo: keyInfo(options.apiKey),
    now: options.now instanceof Date ? options.now : new Date(),
  };
  return { ...prepared, prepareMs: Date.now() - started };
}
