/**
 * Every validation message of the constructs (lower case, no trailing period; what was wrong, the
 * value received, how to fix it). Text where a key may have been pasted (names, dates, addresses
 * without a scheme) goes through qName, qShort or qUrl, which show it only when it cannot be a key.
 */
import { Token } from 'cdktf';
import { names, plural, setKeyHint, showable, text, urls } from './runtime';

/** A value quoted for a message, one line; a construct as its class and path. */
export function q(value: unknown): string {
  const o = value as { constructor?: { name?: string }; node?: { path?: unknown } } | null;
  if (o !== null && typeof o === 'object' && typeof o.node?.path === 'string') {
    return text.clip(`(${o.constructor?.name || 'construct'} at ${o.node.path})`, 160);
  }
  return text.quote(value, 160);
}

/** A value where the key is easily given by mistake: a string, or what may hold one, by its shape only. */
function qMaybeKey(value: unknown): string {
  if (typeof value === 'string') return 'a string (not shown: it may be an API key)';
  if (value === null || value === undefined || ['number', 'boolean', 'bigint'].includes(typeof value)) return q(value);
  if (Array.isArray(value)) {
    return value.length === 0 ? '[]' : `a list of ${plural(value.length, 'item')} (not shown: ${value.length === 1 ? 'it' : 'they'} may hold an API key)`;
  }
  if (typeof value !== 'object') return `a ${typeof value} (not shown: it may hold an API key)`;
  if (typeof (value as { node?: { path?: unknown } }).node?.path === 'string') return q(value);
  const keys = Object.keys(value);
  const cls = Object.getPrototypeOf(value)?.constructor?.name;
  const what = typeof cls === 'string' && cls !== '' && cls !== 'Object' ? `${/^[AEIOU]/.test(cls) ? 'an' : 'a'} ${cls} object` : 'an object';
  // A Date or an instance with no own properties is named by its class, not shown as "{}".
  if (keys.length === 0) return what === 'an object' ? '{}' : what;
  const shown = text.clip(`${what} with ${keys.length === 1 ? 'key' : 'keys'} ${keys.map((k) => q(k)).join(', ')}`, 160);
  return `${shown} (values not shown: they may hold an API key)`;
}

const NOT_SHOWN = '(not shown: it may be an API key)';

/** Text where a key is easily pasted: shown only when the runtime's `showable` says it cannot be one. */
function qShort(value: unknown): string {
  return typeof value === 'string' ? showable(value) ?? NOT_SHOWN : qMaybeKey(value);
}

/** Whether a cluster or key name may be shown: a valid one, or one that cannot be a key. */
export function nameShown(name: unknown): boolean {
  return names.isValidName(name) || (typeof name === 'string' && showable(name) !== undefined);
}

/** A name for a message or the stack: itself when valid, else a placeholder (synth fails then). */
export function plainName(name: string, placeholder = '(invalid name)'): string {
  return names.isValidName(name) ? name : placeholder;
}

/** A grant's label, for the check's messages: placeholders for invalid names. */
export function grantLabel(keyName: string, clusterName: string): string {
  return names.grantLabel(plainName(keyName, 'invalid-key-name'), plainName(clusterName, 'invalid-cluster-name'));
}

/** A cluster or key name for a message: quoted when {@link nameShown}, else described (see qShort). */
function qName(name: unknown): string {
  return nameShown(name) ? q(name) : typeof name === 'string' ? '(name not shown: it may be an API key)' : qShort(name);
}

/** A cluster address without its scheme (host, port, path); no key looks like this. */
const HOST_LIKE = /^(?![\s\S]*eyJ)[A-Za-z0-9_-]{1,63}(\.[A-Za-z0-9_-]{1,63})+(:[0-9]{1,5})?(\/[A-Za-z0-9._~-]{0,30}){0,4}\/?$/;

/**
 * A cluster address: with a scheme, shown with credentials and query masked; without one (it may
 * be a key, or `api-key: <key>`), only when it looks like a host, or is short and holds no "@".
 */
function qUrl(url: string): string {
  if (/^[A-Za-z][A-Za-z0-9+.-]{0,11}:\/\//.test(url) || (/^https?:/i.test(url) && !url.includes('@')) || HOST_LIKE.test(url)) return urls.showUrl(url);
  return url.includes('@') ? NOT_SHOWN : qShort(url);
}

/** Words a date may hold (months, weekdays, "at noon", time zones), for qDate. */
const DATE_WORDS = /\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sept?(ember)?|oct(ober)?|nov(ember)?|dec(ember)?|mon(day)?|tue(sday)?|wed(nesday)?|thu(rsday)?|fri(day)?|sat(urday)?|sun(day)?|at|noon|midnight|am|pm|utc|gmt)\b/gi;

/** A date in another format (digits, separators and date words only: no key), else qShort. */
function qDate(value: unknown): string {
  if (typeof value !== 'string' || value.length > 60) return qShort(value);
  const rest = value.replace(/(\d)(st|nd|rd|th)\b/gi, '$1').replace(DATE_WORDS, ' ').replace(/(\d)T(\d)/g, '$1 $2').replace(/(\d)Z$/, '$1');
  return /\d/.test(value) && !/\d{9,}/.test(value) && /[-/:., ]/.test(value) && /^[0-9:.,+\-/ ]*$/.test(rest) ? q(value) : qShort(value);
}

/** A value's type, in words, for a message that must not show the value. */
function typeOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  const token = Token.isUnresolved(value) ? ' token' : '';
  if (Array.isArray(value)) return `a list${token}`;
  if (typeof value === 'number') return `a number${token}`;
  return `${/^[aeiou]/.test(typeof value) ? 'an' : 'a'} ${typeof value}`;
}

export const errors = {
  // ---- props, by value ------------------------------------------------------------------------
  notAnObject: (where: string, struct: string, value: unknown, mayBeKey = false) =>
    `${where} must be an object (${struct}); got ${mayBeKey ? qMaybeKey(value) : q(value)}`,
  unknownProperty: (where: string, key: string, struct: string, suggestion: string | undefined, known: readonly string[]) =>
    `${where} has unknown property ${q(key)}` +
    (suggestion ? `; did you mean ${q(suggestion)}?` : `; ${struct} has ${known.join(', ')}`) +
    (key.includes('_') ? ' (in Python, pass struct classes or camelCase keys: a dict with snake_case keys is not converted)' : ''),
  missingProperty: (where: string, key: string, struct: string) => `${where} has no ${q(key)}, which ${struct} requires`,
  // A list, an object or a long string where it does not belong may be (or hold) a key: shown by its shape.
  wrongType: (where: string, expected: string, value: unknown, mayBeKey = false) =>
    `${where} must be ${expected}; got ${mayBeKey ? qMaybeKey(value) : qShort(value)}`,

  // ---- names ----------------------------------------------------------------------------------
  invalidName: (kind: 'cluster' | 'key', name: unknown) =>
    `${kind} name ${qName(name)} is invalid: ${names.NAME_RULE}; use a name like ${kind === 'cluster' ? '"prod-eu"' : '"search-api"'}`,
  duplicateName: (kind: 'cluster' | 'key', name: string) =>
    `duplicate ${kind} name ${qName(name)}: each ${kind} needs a unique name within one ClusterAccess; rename or remove one`,
  collidingNames: (kind: 'cluster' | 'key', first: string, second: string) =>
    `${kind} names ${q(first)} and ${q(second)} collide: names that differ only in case or "-"/"_" ` +
    'give the same Terraform and environment-variable names; rename one of them',
  clusterOutputClash: (name: string, prefix: string, otherPath: string) =>
    `cluster ${qName(name)} would write the outputs ${prefix}_rest_endpoint and ${prefix}_grpc_endpoint, which the cluster at ${otherPath} ` +
    'writes too (one would silently overwrite the other); give one of the clusters another name',
  sharedTerraformName: (kind: 'variable' | 'output', name: string, paths: readonly string[]) =>
    `the stack has ${paths.length} Terraform ${kind}s named ${name} (${paths.join(', ')}), and Terraform would keep only one ` +
    `(${kind === 'variable' ? "a key would silently read another key's variable" : 'one would silently overwrite the other'}); ` +
    `rename yours (its construct id, or overrideLogicalId), or the cluster or key whose ${kind} it is`,
  keyNameClash: (name: string, prefix: string, otherPath: string) =>
    `key ${qName(name)} would declare ${prefix} (its variable, unless a source is given) and the output ${prefix}_expires_at, which the key at ${otherPath} ` +
    'declares too (one variable would be shared silently, one output overwritten); give one of the keys another name',

  // ---- clusters -------------------------------------------------------------------------------
  clusterWithNew: () => 'Cluster cannot be created with new; add clusters through ClusterAccess (clusters: [...] or addCluster())',
  clusterUrl: (name: string, url: string, problem: string) => `cluster ${qName(name)} url ${qUrl(url)} ${problem}`,
  clusterUrlMixedToken: (name: string) =>
    `cluster ${qName(name)} url mixes literal text with a token; pass the token alone (e.g. cluster.url) or a literal address, ` +
    'so that the address can be checked',
  clusterPort: (name: string, what: 'restPort' | 'grpcPort', port: unknown) =>
    `cluster ${qName(name)} ${what} ${q(port)} is not a port in 1-65535; use a TCP port such as ${what === 'restPort' ? 6333 : 6334}`,
  clusterPortToken: (name: string, what: 'restPort' | 'grpcPort') =>
    `cluster ${qName(name)} ${what} is a token; give a port known at synth, such as ${what === 'restPort' ? 6333 : 6334}`,
  clusterSamePorts: (name: string, port: number) =>
    `cluster ${qName(name)} REST and gRPC ports are both ${port}; they must differ (Qdrant Cloud uses 6333 for REST and 6334 for gRPC)`,

  // ---- keys -----------------------------------------------------------------------------------
  unknownCluster: (key: string, cluster: string, known: readonly string[]) =>
    `key ${qName(key)} names unknown cluster ${qName(cluster)} (known clusters: ${known.length > 0 ? [...new Set(known)].map((k) => qName(k)).join(', ') : 'none yet'}); ` +
    'fix the name, or add the cluster before the key',
  grantNotCluster: (key: string, value: unknown) =>
    `key ${qName(key)} grant needs a Cluster (from ClusterAccess.addCluster or clusters[]); got ${qShort(value)}`,
  grantForeignCluster: (key: string, cluster: string, clusterPath: string, accessPath: string) =>
    `key ${qName(key)} is granted to cluster ${qName(cluster)} at ${clusterPath}, which is not a cluster of its ClusterAccess at ${accessPath} ` +
    '(its check and outputs would cover it, its setup guide would not); add the cluster to that ClusterAccess ' +
    '(clusters: [...] or addCluster()) and grant the Cluster it returns',
  keyWithNew: () =>
    'ApiKey cannot be created with new: nothing would check its grants or write its secret targets; ' +
    'add keys through ClusterAccess (apiKeys: [...] or addApiKey())',
  grantedTwice: (key: string, cluster: string) => `key ${qName(key)} is granted to cluster ${qName(cluster)} twice; list each cluster once`,
  noClusters: (key: string) => `key ${qName(key)} has no clusters; pass clusters: ["<cluster name>"] or call grant(cluster)`,
  targetTwice: (key: string, target: string) => `key ${qName(key)} is given secret target ${target} twice; add each target once`,
  keySource: (key: string, problem: string) => `key ${qName(key)}: ${problem}`,
  createdOn: (key: string, value: unknown) =>
    `key ${qName(key)} createdOn ${qDate(value)} is not a date; expected YYYY-MM-DD (the day the key was created in the console), e.g. "2026-01-31"`,
  keyVariableShared: (key: string, variable: string, other: string, stack: string) =>
    `key ${qName(key)} reads ${variable}, as ${other} in another stack does: one exported value feeds both, ` +
    'and one deploy of both stacks cannot give them different keys; if the keys differ, give them distinct names ' +
    `(${names.isValidName(key) && names.isValidName(`${stack}-${key}`) ? `e.g. "${stack}-${key}"` : 'e.g. with the stack\'s name in front'}; ` +
    'a new name gives the key new variable and output names), or pass a variable of your own with ApiKeySource.fromVariable',
  createdOnFuture: (key: string, value: string, today: string) =>
    `key ${qName(key)} createdOn ${q(value)} is in the future (today is ${today}), which would keep the rotation reminder quiet; ` +
    'set the day the key was created in the console, as YYYY-MM-DD',
  rotateAfterDays: (key: string, value: unknown, fallback: number) =>
    `key ${qName(key)} rotateAfterDays ${qShort(value)} is not a whole number of days in 1-3650; use e.g. ${fallback}`,
  rotationToken: (key: string, prop: 'createdOn' | 'rotateAfterDays') =>
    `key ${qName(key)} ${prop} is a token; the due date is computed at synth (setup guide, warnings), so give ` +
    (prop === 'createdOn' ? 'the date as text, e.g. "2026-01-31"' : 'a number of days, e.g. 90'),
  todayContext: (contextKey: string, value: unknown) =>
    `context ${q(contextKey)} is ${q(value)}, not a date; set it to YYYY-MM-DD or remove it to use the real date`,
  rotationDue: (key: string, createdOn: string, due: string, days: number) =>
    `key ${qName(key)} was created on ${createdOn} and was due for rotation on ${due} (rotateAfterDays: ${days}); ` +
    'create a new key for the same clusters, set createdOn to that day, deploy it, then delete the old one (see qdrant-setup.md, section 6)',
  changedAfterBinding: () =>
    'keys, grants or secret targets changed after this stack was first synthesized, so the targets were bound ' +
    'with other entries; make every change before the first synth (or build a new stack)',

  // ---- ephemeral keys -------------------------------------------------------------------------
  keyVersionRange: (key: string, value: number) =>
    `key ${qName(key)} keyVersion ${q(value)} is not a whole number of 0 or more; number the key's versions 1, 2, 3 … and give the next one with each new key`,
  keyVersionNotEphemeral: (key: string) =>
    `key ${qName(key)} has a keyVersion but is not ephemeral: a key that is not ephemeral runs its check and writes again when its hash changes; ` +
    'remove keyVersion, or set ephemeral: true',
  ephemeralVariableNot: (key: string, variable: string) =>
    `key ${qName(key)} is ephemeral: true, but its variable "${variable}" is not ephemeral; declare the variable so with ` +
    'variable.addOverride("ephemeral", true) (Terraform then refuses it wherever your stack would store it, not only here), or remove ephemeral: true',
  ephemeralFalseVariable: (key: string, variable: string) =>
    `key ${qName(key)} is ephemeral: false, but its variable "${variable}" is ephemeral (an override), so nothing of the key may be stored; ` +
    'remove ephemeral: false (the key is ephemeral because its variable is), or the override',
  ephemeralChangedLater: (key: string, variable: string, now: boolean) =>
    `variable "${variable}" of key ${qName(key)} became ${now ? '' : 'non-'}ephemeral after the key was created, which was built for a ` +
    `${now ? 'non-' : ''}ephemeral key (its check's triggers, its expiry output); ` +
    (now ? 'give the key ephemeral: true, or override the variable before passing it to ApiKeySource.fromVariable' : 'override the variable once, before passing it to ApiKeySource.fromVariable'),
  outputsEphemeral: (key: string) =>
    `key ${qName(key)} is ephemeral, and Terraform keeps outputs in the state, so it refuses an ephemeral value in one ("Ephemeral value not allowed"); ` +
    'write the key to a .env or JSON file target, or to a write-only attribute in a target of your own, or make the key non-ephemeral',

  // ---- key sources ----------------------------------------------------------------------------
  variableNotSensitive: (name: string, sensitive: unknown) =>
    `key source variable "${name}" is not sensitive (sensitive: ${String(sensitive)}), so Terraform would print the key in plans and logs; ` +
    'declare it with sensitive: true',
  variableBadName: (name: string) =>
    `key source variable "${name}" cannot be set as TF_VAR_${name} from a shell; rename it with letters, digits and "_" only`,
  variableDefault: (name: string) =>
    `key source variable "${name}" has a default value, which would put a plaintext key into the stack; ` +
    `remove the default and set TF_VAR_${name} when deploying`,
  variableNotNullable: (name: string) =>
    `key source variable "${name}" is declared nullable: false, so Terraform would stop at a prompt when TF_VAR_${name} is not set; ` +
    'remove nullable: false (the library gives it a null default and fails the deploy with a clear message instead)',
  notAVariable: (value: unknown) => `ApiKeySource.fromVariable needs a TerraformVariable (declared with sensitive: true); got ${qMaybeKey(value)}`,
  tokenNotString: (value: unknown) =>
    `ApiKeySource.fromToken needs a string token, a reference to another resource (e.g. secret.value, or Token.asString(reference)); got ${typeOf(value)}`,
  variableOtherStack: (name: string, variableStack: string, keyStack: string) =>
    `key source variable "${name}" is declared in stack ${q(variableStack)}, not in the key's stack ${q(keyStack)}: cdktf would hand the key over ` +
    `through an output, which keeps it in the state of stack ${q(variableStack)}; declare the variable in stack ${q(keyStack)}`,
  sourceWithNew: () =>
    'ApiKeySource cannot be created with new or subclassed; use ApiKeySource.fromVariable(variable) or ApiKeySource.fromToken(reference)',
  tokenLiteral: () =>
    'ApiKeySource.fromToken got a literal string (value not shown): plaintext keys are refused; ' +
    'use ApiKeySource.fromVariable with a sensitive variable, or fromToken with a reference to another resource (e.g. secret.value)',
  tokenMixed: () =>
    'ApiKeySource.fromToken got literal text mixed with a token (value not shown); pass the token alone, e.g. secret.value',
  tokenResolvesToLiteral: (resolved: string) =>
    `key source resolves to ${resolved}, so the key would be plaintext in the stack; ` +
    'pass a reference to the secret store (e.g. a data source attribute), or use ApiKeySource.fromVariable',
  plaintextGuard: (problems: readonly string[]) =>
    `refusing to synthesize: a Qdrant API key would be written into the stack in plain text (validation was skipped): ${problems.join('; ')}`,
  outputsNotChecked: (deployCommand: string) =>
    'this output would get a value the last deploy did not check (a key variable changed, and this run applies nothing: ' +
    `terraform apply -refresh-only, say), so it is empty; run ${deployCommand} to check the key and write the outputs again`,
  keyNotSet: (key: string, variable: string, deployCommand: string, guide?: string) =>
    `Qdrant API key ${qName(key)} has no value: ${setKeyHint(`TF_VAR_${variable}`, deployCommand)}${guide === undefined ? '' : ` (see ${guide}, section 3)`}`,

  keyTokenEmpty: (key: string) =>
    `Qdrant API key ${qName(key)} has no value: its source (ApiKeySource.fromToken) gave null or an empty string at plan, so nothing was checked; ` +
    'check the secret it reads',

  // ---- health check and setup guide -----------------------------------------------------------
  terraformEngineHeader: () =>
    'healthCheck.header ApiKeyHeader.API_KEY cannot be used with CheckEngine.TERRAFORM: hashicorp/http follows redirects and sends an api-key header ' +
    'on to another host, where it drops Authorization; remove header (the default with this engine is ApiKeyHeader.BEARER), or use CheckEngine.NODE',
  terraformEngineFileTarget: (description: string) =>
    `secret target ${description} cannot be used with CheckEngine.TERRAFORM: a file target needs Node.js (its writer runs on the machine that applies, ` +
    'and would write the file there, on a shared runner, not next to the app); use SecretTarget.terraformOutputs() or a target of your own ' +
    '(a Kubernetes Secret, Vault, a cloud secret manager), or CheckEngine.NODE',
  terraformEngineGrpc: () =>
    'CheckEngine.TERRAFORM does not check gRPC (Terraform has no gRPC client): the keys are proven over REST only; ' +
    'set healthCheck.grpc to false to say so, or use CheckEngine.NODE to check gRPC too',
  terraformEngineEphemeral: (key: string) =>
    `key ${qName(key)} is ephemeral, and CheckEngine.TERRAFORM cannot check an ephemeral key: its checks send the key in the request_headers of data "http", ` +
    'which Terraform keeps in the state and so refuses for an ephemeral value; ' +
    'use CheckEngine.NODE (it checks an ephemeral key without storing it), or make the key not ephemeral (ephemeral: false)',
  terraformEngineEveryDeploy: () =>
    'healthCheck.runOnEveryDeploy has no effect with CheckEngine.TERRAFORM: its checks run at every plan; remove runOnEveryDeploy',
  terraformEngineCa: (file: string) =>
    `healthCheck.caFile ${q(file)} is embedded in the stack, and with CheckEngine.TERRAFORM it replaces the trusted roots of the checks' requests ` +
    '(hashicorp/http trusts only these CAs): it must hold every CA the clusters\' certificate chains need',

  guideDisabledOutputPath: (outputPath: string) =>
    `setupGuide.outputPath ${q(outputPath)} is ignored: setupGuide.enabled is false, so no guide is written there or anywhere else; ` +
    'remove outputPath, or remove enabled: false',
  renderNotAccess: (value: unknown) => `SetupGuide.render needs a ClusterAccess; got ${qMaybeKey(value)}`,
  healthCheckRange: (prop: string, value: unknown, min: number, max: number, integer: boolean, example: number) =>
    `healthCheck.${prop} ${q(value)} is not a ${integer ? 'whole ' : ''}number in ${min}-${max}; use e.g. ${example}`,
  healthCheckToken: (prop: string, example: number) => `healthCheck.${prop} is a token; give a number known at synth, e.g. ${example}`,
  caFileMissing: (file: string, resolved: string) =>
    `healthCheck.caFile ${q(file)} does not exist (resolved to ${q(resolved)}); give the path of a PEM file`,
  caFileNotRegular: (file: string) => `healthCheck.caFile ${q(file)} is not a regular file; give the path of a PEM file`,
  caFileTooLarge: (file: string, size: number) => `healthCheck.caFile ${q(file)} is ${size} bytes, more than 1 MiB; give a PEM file with the CA certificate(s)`,
  caFileUnreadable: (file: string, code: string) => `healthCheck.caFile ${q(file)} cannot be read (${code}); give the path of a PEM file that can be read`,
  caFileNotPem: (file: string) => `healthCheck.caFile ${q(file)} has no PEM certificate (-----BEGIN CERTIFICATE-----); give the path of a PEM file`,
  unsafePath: (what: string, value: string) =>
    `${what} ${q(value)} holds "\${", "%{" or a control character, which Terraform would read as an expression or which breaks a command line; ` +
    'move or rename it (the check runs at deploy and destroy with this value)',
  checkTooManyDeployValues: (key: string, values: number, clusters: number, limit: number) =>
    `key ${qName(key)}: its health check would receive ${values.toLocaleString('en-US')} values known only at deploy ` +
    `(the REST and gRPC endpoints of its ${clusters.toLocaleString('en-US')} clusters whose url is a token, and the key), each in an environment variable of its own, ` +
    `and Linux bounds a process's environment (ARG_MAX): at most ${limit.toLocaleString('en-US')} fit; ` +
    'give some of these clusters their url as text, or grant them to several keys',
  checkCollectionsTooLong: (key: string, kind: 'read' | 'write', count: number, bytes: number, limit: number) =>
    `key ${qName(key)}: its ${count.toLocaleString('en-US')} ${kind} collections make one environment string of ${bytes.toLocaleString('en-US')} bytes for its health check, ` +
    `more than the ${limit.toLocaleString('en-US')} Linux accepts (MAX_ARG_STRLEN), so every deploy would fail; ` +
    'declare fewer collections (KeyAccess.readOnly() or manage() cover them all), or split them across keys',
  fileTooManyDeployValues: (values: number, endpoints: number, keys: number, limit: number) =>
    `its writer would receive ${values.toLocaleString('en-US')} values known only at deploy (${endpoints.toLocaleString('en-US')} endpoints of clusters whose url is a token, ` +
    `and ${keys.toLocaleString('en-US')} ${keys === 1 ? 'key or its hash' : 'keys or their hashes'}), each in an environment variable of its own, and Linux bounds a process's environment (ARG_MAX): ` +
    `at most ${limit.toLocaleString('en-US')} fit; give some of these clusters their url as text, or split the keys across several files`,
  keysInLocalState: (why: string, state: string, workspaceState: string, destroyCommand: string) =>
    `${why}, which its local backend keeps in clear in ${state} and its backup ` +
    `${state}.backup (in a workspace other than "default": ${workspaceState} and its .backup); ` +
    'both files get the mode your umask gives when Terraform creates them (0644 under umask 022: any local user can read them), ' +
    `and the backup outlives a destroy: after ${destroyCommand} it still holds the last key; keep the state in a remote backend with ` +
    'encryption and access control, or restrict the files (chmod 600, which Terraform keeps) and delete the backup after a destroy, ' +
    'or write the keys to a .env or JSON file instead (SecretTarget.dotenv(), SecretTarget.json(): mode 0600)',
  ownerSharedInWorkspace: (file: string, path: string, other: string, workspace: string) =>
    `in Terraform workspace ${q(workspace)}, ${other} writes as ${path}, the owner of ${path} in the default workspace: both ClusterAccesses ` +
    `write file ${q(file)}, and there one's deploy would replace the other's entries and its destroy remove them; give one of them a construct id without "@"`,
  ownerInvalid: (path: string) =>
    `this ClusterAccess's construct path ${q(path)} cannot name its entries in a shared file: ${names.OWNER_PATH_RULE}; ` +
    'give the stack and the construct simpler ids',

  // ---- access ---------------------------------------------------------------------------------
  collectionName: (where: string, name: unknown) => (Token.isUnresolved(name)
    ? `${where}: a token is not allowed as a collection name (the health check and the setup guide need the names at synth); give the name as text`
    : `${where}: ${qShort(name)} is not a collection name (${names.COLLECTION_RULE}, no "\${" or "%{")`),
  multiClusterGranularKey: (key: string, clusters: number, mode: string) =>
    `key ${qName(key)} covers ${clusters} clusters with ${mode === 'read-only' ? 'read-only' : 'per-collection'} access, which Qdrant Cloud's console ` +
    'does not make (keys with granular access cover one cluster; its multi-cluster flow makes keys that can manage, which fail this check): ' +
    'declare one key per cluster (see the setup guide), unless your clusters are self-hosted and accept the same JWT',
  accessWithNew: () =>
    'KeyAccess cannot be created with new or subclassed; use KeyAccess.readOnly(), KeyAccess.manage() or KeyAccess.collections({ read, readWrite })',
  collectionsEmpty: () => 'KeyAccess.collections needs at least one collection in read or readWrite',
  collectionListedTwice: (where: string, name: string) => `${where} lists ${q(name)} twice; list each collection once`,
  collectionTwice: (name: string) => `KeyAccess.collections lists ${q(name)} in both read and readWrite; list it once (readWrite includes read)`,

  // ---- secret targets -------------------------------------------------------------------------
  target: (description: string, problem: string) => `secret target ${description}: ${problem}`,
  targetsByOrder: (descriptions: readonly string[]) =>
    `secret targets ${[...new Set(descriptions)].map((d) => q(d)).join(' and ')} have the same description, ` +
    `so only their order tells them apart (${descriptions.length} targets): reordering keys would swap their Terraform addresses and ` +
    'replace their resources; give each target a description of its own that names its store',
  namingWithoutTargets: (where: string) =>
    `${where}: secretNaming applies only to the targets of the same options' secretTargets, and there are none; ` +
    'add the targets there, or give the naming to addSecretTarget(target, naming)',
  prefixInvalid: (key: string, prefix: unknown) =>
    `key ${qName(key)} has prefix ${qShort(prefix)}, which is not a variable name: ${names.ENV_NAME_RULE}, such as "APP_"`,
  renameUnknown: (key: string, from: string, known: readonly string[]) =>
    `key ${qName(key)} renames ${names.isEnvName(from) ? q(from) : qShort(from)}, which is not one of its entries (${known.join(', ') || 'none'}); ` +
    'the keys of names are default names, without the prefix',
  renameInvalid: (key: string, from: string, to: unknown) =>
    `key ${qName(key)} renames ${q(from)} to ${qShort(to)}, which is not a variable name the writers accept: ${names.ENTRY_NAME_RULE}`,
  entryNameTooLong: (key: string, defaultName: string, length: number) =>
    `key ${qName(key)}: its entry ${defaultName} with the prefix is ${length} characters, longer than a variable name may be: ` +
    `${names.ENTRY_NAME_RULE}; give the key a shorter prefix, or rename the entry with secretNaming names`,
  entryTwice: (name: string, first: string, second: string, key: string, defaultName: string, suggestion: string) =>
    `entry ${q(name)} would be written twice, for ${first} and for ${second}; ` +
    `give key ${qName(key)} another name with its secretNaming (or addSecretTarget(target, naming)), ` +
    `e.g. names: { ${defaultName}: "${suggestion}" }, or a prefix`,
  pathToken: () => 'the path is a token; give a path known at synth, such as ".env"',
  caFileToken: () => 'healthCheck.caFile is a token; give the path of the PEM file known at synth, such as "certs/qdrant-ca.pem"',
  pathEmpty: () => 'the path is empty; give the path of a file, such as ".env"',
  pathIsDirectory: (resolved: string, example: string) => `${q(resolved)} is a directory; give the path of a file inside it, such as ${q(example)}`,
  pathIsSymlink: (resolved: string) =>
    `${q(resolved)} is a symbolic link, which the writer refuses (it would replace the link with a file); give the path of the real file`,
  pathIsHardLink: (resolved: string, links: number) =>
    `${q(resolved)} has ${links} hard links, which the writer refuses (it replaces the file, so the other links would keep the old content); ` +
    'give the path of a file with one link',
  fileTwiceInAccess: (file: string, format: string, otherPath: string) =>
    `file ${q(file)} is also the target of ${otherPath}, in the same ClusterAccess: each target would set this ClusterAccess's entries ` +
    `in the file to its own, dropping the other's; give every key that writes to this file the same SecretTarget.${format}(...) object, or use another file`,
  fileFormatClash: (file: string, format: string, otherFormat: string, otherPath: string) =>
    `file ${q(file)} is written as ${format} here and as ${otherFormat} by ${otherPath}; one file has one format: use another file for one of them`,
  dependablesNotList: (target: string, value: unknown) =>
    `bind() of secret target ${target} returned dependables that is not a list (got ${q(value)}); return { dependables: [resource, ...] }`,
  dependableCannotWait: (target: string, value: unknown) =>
    `bind() of secret target ${target} returned ${q(value)} in dependables, which cannot wait for the health checks ` +
    '(only resources, data sources and modules can); return only those, and write outputs with SecretTarget.terraformOutputs()',
  outputCannotWait: (target: string, output: unknown) =>
    `bind() of secret target ${target} created ${q(output)} under its scope: an output cannot wait for the health ` +
    'checks (Terraform writes it even when a check fails, whatever resources its value refers to, so a rejected key would reach it); ' +
    'write outputs with SecretTarget.terraformOutputs(), which holds them back, and leave them out of the target',
  dependableOtherStack: (target: string, value: unknown, otherStack: string, checksStack: string) =>
    `bind() of secret target ${target} returned ${q(value)}, which is in stack ${q(otherStack)}; the health checks it must wait for ` +
    `are in stack ${q(checksStack)}, and Terraform cannot make a resource depend on one in another stack; ` +
    `create it in stack ${q(checksStack)} (under the bind scope)`,
  entryClash: (name: string, key: string, store: string, other: string, sameAccess: boolean) =>
    `entry ${q(name)} (key ${qName(key)}) is already written to ${store} by ${other}; ` +
    (sameAccess ? 'attach both keys to one target, or give one of them a prefix (secretNaming: { prefix: "..." })'
      // Another ClusterAccess binds the target on its own: one target object cannot help.
      : 'give one of the two keys a prefix (secretNaming: { prefix: "..." }), or the entry another name (secretNaming: { names: { ... } })'),
};
