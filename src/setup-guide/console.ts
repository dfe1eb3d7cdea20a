/** Section 2: each key's one console procedure: the multi-cluster flow for several clusters and no access, else the API Keys tab. */
import { Heading, code, list } from './markdown';
import { GuideAccess, GuideCluster, GuideKey, GuideModel, clustersOf } from './model';
import { plural } from '../private/runtime';

const CONSOLE = '<https://cloud.qdrant.io>';
const CONSOLE_DEFAULT_EXPIRY_DAYS = 90;

export function consoleSection(m: GuideModel, h: Heading): string[] {
  const out = h(1, '2. Create the keys in the Qdrant Cloud console');
  if (m.keys.length === 0) return [...out, 'No keys yet: add them with `apiKeys: [...]` or `addApiKey()`.'];
  out.push(
    'Each key is created by hand in the Qdrant Cloud console (why, and how a key made elsewhere plugs in: the end of this section). ' +
      'The console shows a new key **only once**, so have the shell of section 3 ' +
      (m.keys.some((k) => !k.variable) ? '(or, for a key from `ApiKeySource.fromToken`, the resource it reads) ' : '') + 'ready before you create it.',
  );
  for (const k of m.keys) {
    const clusters = clustersOf(k);
    out.push(...h(2, `Key ${code(k.name)}`));
    out.push(`Covers ${plural(clusters.length, 'cluster')}: ${list(clusters.map((c) => code(c.name)), 'none yet')}.`);
    if (clusters.length > 1 && !k.access) out.push(...multiClusterFlow(m, k, clusters));
    else if (clusters.length > 1) out.push(...keyPerCluster(m, k, clusters));
    else out.push('', ...tabSteps(m, k, `the cluster ${clusters[0] ? where(clusters[0]) : 'of this key'}`, code(consoleName(k.name))));
  }
  return [...out, ...madeElsewhere(h)];
}

/** A cluster as the console shows it: its name here, and the host to match it by. */
function where(c: GuideCluster): string {
  return `${code(c.name)} (${c.known ? code(c.host) : 'address set at deploy'})`;
}

/** Where a new key goes once copied: the shell of section 3, or the resource a `fromToken` key reads. */
function keepKey(k: GuideKey): string {
  return k.variable
    ? 'Paste it straight into the shell of section 3, not into a file or a chat.'
    : 'Then store it in the resource that the key\'s token refers to (`ApiKeySource.fromToken`, for example a secret store), not in a file or a chat.';
}

/** A name the console accepts (4-128 characters) for a key named `name` in the stack. */
function consoleName(name: string): string {
  return name.length >= 4 ? name : `${name}-key`;
}

/** The `KeyAccess` factory of each declared access. */
const FACTORY: Record<GuideAccess['mode'], string> = {
  'read-only': '`KeyAccess.readOnly()`',
  'manage': '`KeyAccess.manage()`',
  'collections': '`KeyAccess.collections(...)`',
};

/** What to select in the API Keys tab for a key's declared access. */
function accessStep(m: GuideModel, k: GuideKey): string {
  const on = m.checks.enabled;
  if (!k.access) {
    return on
      ? 'Access: the stack declares none for this key (`access` not set), so any valid key passes the check. Give it no more access than its apps need, ' +
        'and declare that access (`access: KeyAccess.readOnly()`, `manage()` or `collections({...})`) to have its check prove it.'
      : 'Access: the stack declares none for this key (`access` not set). Give it no more access than its apps need.';
  }
  const unchecked = 'with health checks disabled, nothing checks it';
  const declared = FACTORY[k.access.mode];
  switch (k.access.mode) {
    case 'read-only': return `Access: choose **Read-only** for the whole cluster (the key is declared ${declared}; ${on ? 'a key that can manage fails the deploy' : unchecked}).`;
    case 'manage': return `Access: choose **Manage** (cluster-wide; the key is declared ${declared}).`;
    default: {
      const rows = [...k.access.read.map((c) => `${code(c)} read-only`), ...k.access.readWrite.map((c) => `${code(c)} read-write`)];
      return `Access: open the **Collections** tab and add exactly ${rows.join(', ')} (the key is declared ${declared}; ` +
        `${on ? 'a key with more access fails the deploy' : unchecked}).`;
    }
  }
}

/** The steps in one cluster's **API Keys** tab, and its note; `output`: where the expiry is published. */
function tabSteps(m: GuideModel, k: GuideKey, cluster: string, name: string, output = `the output ${code(k.expiresAtOutput ?? '')}`): string[] {
  const days = `Qdrant's default is ${CONSOLE_DEFAULT_EXPIRY_DAYS} days`;
  const none = 'the key is ephemeral, so no output publishes it';
  const expiry = !m.checks.enabled
    ? `${days}. Health checks are disabled (\`healthCheck.enabled: false\`), so no check reads it; ` +
      `${k.ephemeral ? none : `every deploy publishes it as ${output}`}.`
    : !k.variable
      ? `${days}. The key comes from \`ApiKeySource.fromToken\`, so Terraform hides the lines of its check when it passes: no expiry line or warning appears. ` +
        `${k.ephemeral ? 'As the key is ephemeral, no output publishes the date either' : `Every deploy publishes the date as ${output}`}; ` +
        'set `healthCheck.minValidityDays` to make a short expiry fail the deploy.'
      : `${days}; the key's check (section 3) reads the real date from the key and warns when it is less than 14 days away` +
        `${k.ephemeral ? ` (${none})` : `, and every deploy publishes it as ${output}`}.`;
  return [
    `1. Open the Qdrant Cloud dashboard at ${CONSOLE} and open ${cluster}.`,
    `2. Go to its **API Keys** tab, click **Create**, and name the key ${name} (the console asks for a name; the stack does not read it).`,
    `3. ${accessStep(m, k)}`,
    `4. Expiration: set one. ${expiry}`,
    `5. Click **Create**, and copy the key now: it is shown only once. ${keepKey(k)}`,
    '',
    // What an older cluster makes instead of a granular key.
    'The key is a JWT (it starts with `eyJhb`).' + (k.access?.mode === 'read-only' || k.access?.mode === 'collections'
      ? ' A cluster created before 2025-01-27 makes keys with granular access only once they are enabled for it (enabling restarts the cluster); ' +
        `until then its keys can manage${m.checks.enabled ? ', which fails the check of this key' : ', more than this key is declared for'}.`
      : ''),
  ];
}

/** A key of several clusters that declares no access: one admin key for all of them. */
function multiClusterFlow(m: GuideModel, k: GuideKey, clusters: GuideCluster[]): string[] {
  return [
    '',
    `The stack declares no \`access\` for this key, so one key covers all ${clusters.length} clusters: the console's multi-cluster flow makes it.`,
    '',
    `1. Open the Qdrant Cloud dashboard at ${CONSOLE} and go to **Access Management**: the list of API keys. Click **Create**.`,
    `2. In the cluster dropdown, select exactly these clusters: ${list(clusters.map(where))}. The console may show other names for them: match them by host.`,
    '3. Access: this flow has no access options; its keys can manage every cluster they cover' +
      (m.checks.enabled ? ', which the check of this key accepts (it declares no `access`). ' : '. ') +
      'If its apps need less, declare that access (`access: KeyAccess.readOnly()` or `collections({...})`): this section then shows how to create one key per cluster with it.',
    `4. Click **OK**, and copy the key now: it is shown only once. ${keepKey(k)}`,
    '',
    'Such a key may carry no expiry: set `createdOn` of the key in the stack to the day you create it, and synth warns once `rotateAfterDays` have passed (section 6).',
  ];
}

/** A key of several clusters that declares access: the API Keys tab makes such keys one cluster at a time. */
function keyPerCluster(m: GuideModel, k: GuideKey, clusters: GuideCluster[]): string[] {
  const tab = 'The cluster\'s **API Keys** tab makes a key with an access and an expiry for that one cluster';
  const why = k.access!.mode === 'manage'
    ? `${tab}: create one key per cluster, and declare them in the stack as ${clusters.length} keys of one cluster each, in place of this one. ` +
      '(The multi-cluster flow under **Access Management** makes one admin key for all of them, which can manage them, without access options: ' +
      'to use it instead, leave `access` undeclared, and this section shows that flow.)'
    : `No single key from the console can be that: ${tab.charAt(0).toLowerCase()}${tab.slice(1)} only, and the multi-cluster flow under **Access Management** ` +
      `makes keys that can manage${m.checks.enabled ? ', which fail this key\'s check with `key has manage access …`' : ''}. ` +
      `Create one key per cluster, and declare them in the stack as ${clusters.length} keys of one cluster each, in place of this one ` +
      '(synth warns about this key until then, unless your clusters are self-hosted and accept the same JWT).';
  return [
    '',
    `This key is declared ${FACTORY[k.access!.mode]} for ${clusters.length} clusters. ${why}`,
    '',
    ...clusters.map((c) => `- ${code(`${k.name}-${c.name}`)} with ${code(`clusters: ['${c.name}']`)}: in the cluster ${where(c)}`),
    '',
    'For each of them:',
    '',
    ...tabSteps(m, k, 'its cluster', 'as in the list above', 'the output `qdrant_api_key_<name>_expires_at` of each key'),
  ];
}

/** Why keys are made by a person here, and how a key made by something else plugs in. */
function madeElsewhere(h: Heading): string[] {
  return [
    ...h(2, 'Why the console, and keys made elsewhere'),
    'This library never creates a key: the stack holds only a reference to it (a sensitive variable, or a token), so no key is in its synthesized files. ' +
      'The console shows a new key once, to the person who creates it, who hands it to the deploy (section 3) without writing it down anywhere.',
    '',
    'A key that something else creates plugs in through `ApiKeySource.fromToken(...)`, which marks the value sensitive, so that plans never print it. ' +
      'For example, the Qdrant Cloud Terraform provider (`qdrant/qdrant-cloud`) creates a key with its resource `qdrant-cloud_accounts_database_api_key_v2`: ' +
      'one cluster each, with an access rule and an expiry, as the **API Keys** tab does (without an access rule, the key can manage). ' +
      'The provider leaves that resource\'s `key` attribute unmarked (not `Sensitive`): pass it as `source: ApiKeySource.fromToken(<resource>.key)`, never to an output of your own. ' +
      'The key then sits in clear in the Terraform state of the stack that holds that resource: keep that state in a backend that encrypts it. ' +
      'The provider fills `key` only when it creates the key (after `terraform import` it is empty), and replaces the key when any of its arguments changes.',
  ];
}
