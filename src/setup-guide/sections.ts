/**
 * The sections of the setup guide, each a pure function of the model. Section 5 (client
 * snippets) is in snippets.ts. Not exported.
 */
import { Heading, code, fence, list, plural, shellWord, table } from './markdown';
import { ClusterView, GuideModel, KeyView, entryNamesIn, targetKind } from './model';
import { DEPLOY_COMMAND, DESTROY_COMMAND, SYNTH_COMMAND } from '../private/framework';
import { FAILURES, names, protocol } from '../private/runtime';
import { defaultEntryNames } from '../private/secret-plan';

const CONSOLE = '<https://cloud.qdrant.io>';
/** Where `cdktf synth` puts each stack's directory (its `cdk.tf.json` and state) by default. */
const STACKS_DIR = 'cdktf.out/stacks';
/** Qdrant Cloud's default expiry for a new database API key. */
const CONSOLE_DEFAULT_EXPIRY_DAYS = 90;

/** Whether the stack runs health checks (`healthCheck.enabled` is not `false`). */
function checksOn(m: GuideModel): boolean {
  return m.access.healthCheckOptions.enabled !== false;
}

/** `terraform -chdir=… ` for the stack's directory, or nothing when the stack is unknown. */
export function chdirOf(m: GuideModel): string {
  return m.stack ? `-chdir=${shellWord(`${STACKS_DIR}/${m.stack}`)} ` : '';
}

/** Where a new key goes once copied: the shell of section 3, or the resource a `fromToken` key reads. */
function keepKey(k: KeyView): string {
  return k.fromToken
    ? 'Then store it in the resource that the key\'s token refers to (`ApiKeySource.fromToken`, for example a secret store), not in a file or a chat.'
    : 'Paste it straight into the shell of section 3, not into a file or a chat.';
}

/** A name the console accepts (4-128 characters) for a key named `name` in the stack. */
function consoleName(name: string): string {
  return name.length >= 4 ? name : `${name}-key`;
}

/** A key's declared access in words, collection names as code. */
function accessInWords(k: KeyView): string {
  const a = k.access!;
  if (a.mode === 'read-only') return 'read-only (cluster-wide)';
  if (a.mode === 'manage') return 'manage (cluster-wide)';
  return `collections: ${[...a.read.map((c) => `read ${code(c)}`), ...a.readWrite.map((c) => `read-write ${code(c)}`)].join(', ')}`;
}

// 1 ---------------------------------------------------------------------------------------------

export function clustersSection(m: GuideModel, h: Heading): string[] {
  const out = h(1, '1. Clusters');
  if (m.clusters.length === 0) return [...out, 'No clusters yet: add them with `clusters: [...]` or `addCluster()`.'];
  out.push('The REST endpoint (port 6333 on Qdrant Cloud) serves the HTTP API and the REST clients; ' +
    'the gRPC endpoint (port 6334) serves the gRPC clients. Neither is secret.');
  out.push(...table(
    ['Cluster', 'Address', 'REST endpoint', 'gRPC endpoint', 'Keys'],
    m.clusters.map((c) => [
      code(c.name),
      c.known ? code(c.address) : `set at deploy (a token); see output ${code(`${c.outputPrefix}_rest_endpoint`)}`,
      c.known ? code(c.rest) : code(`${c.outputPrefix}_rest_endpoint`),
      c.known ? code(c.grpc) : code(`${c.outputPrefix}_grpc_endpoint`),
      list(c.keys.map((k) => code(k.name))),
    ]),
  ));
  return out;
}

// 2 ---------------------------------------------------------------------------------------------

/** What to select in the console for a key's declared access. */
function accessStep(k: KeyView, on: boolean): string {
  if (!k.access) {
    return on
      ? 'Access: the stack declares none for this key (`access` not set), so any valid key passes the check. Give it no more access than its apps need, ' +
        'and declare that access (`access: KeyAccess.readOnly()`, `manage()` or `collections({...})`) to have its check prove it.'
      : 'Access: the stack declares none for this key (`access` not set). Give it no more access than its apps need.';
  }
  const unchecked = 'with health checks disabled, nothing checks it';
  switch (k.access.mode) {
    case 'read-only': return `Access: choose **Read-only** for the whole cluster (the key is declared \`KeyAccess.readOnly()\`; ${on ? 'a key that can manage fails the deploy' : unchecked}).`;
    case 'manage': return 'Access: choose **Manage** (cluster-wide; the key is declared `KeyAccess.manage()`).';
    default: {
      const rows = [...k.access.read.map((c) => `${code(c)} read-only`), ...k.access.readWrite.map((c) => `${code(c)} read-write`)];
      return `Access: open the **Collections** tab and add exactly ${rows.join(', ')} (the key is declared \`KeyAccess.collections(...)\`; ` +
        `${on ? 'a key with more access fails the deploy' : unchecked}).`;
    }
  }
}

/** The multi-cluster flow creates keys without granular access (they can manage): fine for these. */
function multiClusterFlowFits(k: KeyView): boolean {
  return !k.access || k.access.mode === 'manage';
}

/** How a key of several clusters, as modelled, would be split: one key per cluster. */
function perClusterKey(k: KeyView, c: ClusterView): string {
  return `${code(`${k.name}-${c.name}`)} with ${code(`clusters: ['${c.name}']`)}`;
}

/**
 * Steps 2-5 in one cluster's **API Keys** tab (the flow with granular access and an expiry).
 * `name` is the name to give the key, in Markdown.
 */
function clusterTabSteps(m: GuideModel, k: KeyView, name: string, output = `the output ${code(k.expiresAtOutput)}`): string[] {
  const days = `Qdrant's default is ${CONSOLE_DEFAULT_EXPIRY_DAYS} days`;
  let expiry: string;
  if (!checksOn(m)) {
    expiry = `${days}. Health checks are disabled (\`healthCheck.enabled: false\`), so no check reads it; every deploy publishes it as ${output}.`;
  } else if (k.fromToken) {
    expiry = `${days}. The key comes from \`ApiKeySource.fromToken\`, so Terraform hides the lines of its check when it passes: no expiry line or warning appears. ` +
      `Every deploy publishes the date as ${output}; set \`healthCheck.minValidityDays\` to make a short expiry fail the deploy.`;
  } else {
    expiry = `${days}; the key's check (section 3) reads the real date from the key and warns when it is less than 14 days away, and every deploy publishes it as ${output}.`;
  }
  return [
    `2. Go to its **API Keys** tab, click **Create**, and name the key ${name} (the console asks for a name; the stack does not read it).`,
    `3. ${accessStep(k, checksOn(m))}`,
    `4. Expiration: set one. ${expiry}`,
    `5. Click **Create**, and copy the key now: it is shown only once. ${keepKey(k)}`,
  ];
}

export function consoleSection(m: GuideModel, h: Heading): string[] {
  const out = h(1, '2. Create the keys in the Qdrant Cloud console');
  if (m.keys.length === 0) return [...out, 'No keys yet: add them with `apiKeys: [...]` or `addApiKey()`.'];
  out.push(
    'Each key is created by hand in the Qdrant Cloud console; this library never creates or sees it. ' +
      'The console shows a new key **only once**, so have the shell of section 3 ' +
      (m.keys.some((k) => k.fromToken) ? '(or, for a key from `ApiKeySource.fromToken`, the resource it reads) ' : '') + 'ready before you create it.',
  );
  const on = checksOn(m);
  for (const k of m.keys) {
    const where = (c: ClusterView) => `${code(c.name)} (${c.known ? code(c.host) : 'address set at deploy'})`;
    const pick = k.clusters.map(where);
    out.push(...h(2, `Key ${code(k.name)}`));
    out.push(`Covers ${plural(k.clusters.length, 'cluster')}: ${list(k.clusters.map((c) => code(c.name)), 'none yet')}.`);
    if (k.clusters.length <= 1) {
      out.push(
        '',
        `1. Open the Qdrant Cloud dashboard at ${CONSOLE} and open the cluster ${list(pick, 'of this key')}.`,
        ...clusterTabSteps(m, k, code(consoleName(k.name))),
        '',
        'Such keys are JWTs (they start with `eyJhb`). Older clusters may still offer the **Access Management** flow, which creates a key without granular access or expiry; ' +
          (multiClusterFlowFits(k) ? 'it works too.'
            : on ? 'such a key can manage, so it fails the check of this key\'s declared access.' : 'such a key can manage, more than this key\'s declared access.'),
      );
    } else if (!multiClusterFlowFits(k)) {
      // The only flow that makes one key for several clusters has no access options: its keys can
      // manage, and the check of a key declared for less fails ("key has manage access ...").
      out.push(
        '',
        `This key is declared ${code(k.access!.mode === 'read-only' ? 'KeyAccess.readOnly()' : 'KeyAccess.collections(...)')}, which the multi-cluster flow (**Access Management**) cannot create: ` +
          'that flow creates keys without granular access, which can manage every cluster they cover' +
          (on ? ', so the check of such a key fails with `key has manage access …`. ' : '. ') +
          `Create one key per cluster instead, each in its cluster's **API Keys** tab, and model them in the stack as ${k.clusters.length} keys of one cluster each, ` +
          'in place of this one:',
        '',
        ...k.clusters.map((c) => `- ${perClusterKey(k, c)}: in the cluster ${where(c)}`),
        '',
        'For each of them:',
        '',
        `1. Open the Qdrant Cloud dashboard at ${CONSOLE} and open its cluster.`,
        ...clusterTabSteps(m, k, 'as in the list above', 'the output `qdrant_api_key_<name>_expires_at` of each key'),
      );
    } else {
      out.push(
        '',
        `1. Open the Qdrant Cloud dashboard at ${CONSOLE}.`,
        '2. Go to **Access Management**: the list of API keys, and click **Create**.',
        `3. In the cluster dropdown, select exactly these clusters: ${list(pick)}. The console may show other names for them: match them by host.`,
        '4. Access: this flow has no access options; its keys can manage every cluster they cover' + (k.access
          ? ', as this key is declared (`KeyAccess.manage()`).'
          : `. The stack declares no \`access\` for this key${on ? ', so its check accepts that' : ''}; if its apps need less, declare that access and create one key per cluster instead (below).`),
        `5. Click **OK**, and copy the key now: it is shown only once. ${keepKey(k)}`,
        '',
        `Newer consoles create keys per cluster, from each cluster's **API Keys** tab, with granular access and an expiry (default ${CONSOLE_DEFAULT_EXPIRY_DAYS} days): ` +
          `such a key covers one cluster only, and this key covers ${k.clusters.length}. Use the multi-cluster flow above if your console offers it. ` +
          `Otherwise create one key per cluster and model one key per cluster in the stack, for example ${perClusterKey(k, k.clusters[0])}.`,
      );
    }
  }
  return out;
}

// 3 ---------------------------------------------------------------------------------------------

export function deploySection(m: GuideModel, h: Heading): string[] {
  const out = h(1, '3. Hand the keys to the deploy');
  const exports = [...new Map(m.keys.filter((k) => k.envVar !== undefined).map((k) => [k.envVar!, k])).values()];
  out.push(exports.length > 0 || m.keys.length === 0
    ? `Set each key in the shell that runs \`${DEPLOY_COMMAND}\`: run each block below on its own (each \`read\` waits for its key), then the deploy. ` +
      'Setting the variable writes no file; section 4 says where the deploy writes the key.'
    : `No key is set in the shell: each is read from the resource its token refers to. Run \`${DEPLOY_COMMAND}\`.`);
  if (m.keys.length > 0) {
    out.push(...table(['Key', 'Set before the deploy', 'Source'], m.keys.map((k) => [
      code(k.name),
      k.envVar ? code(k.envVar) : 'nothing: read from the referenced resource at deploy',
      k.source,
    ])));
  }
  // One block per key and one for the deploy: pasted together, a `read` would take the next
  // pasted line as its key and the deploy would start at once.
  for (const k of exports) {
    // Only a plain name reaches the shell line: synth refuses any other, but SetupGuide.render()
    // and skipValidation do not stop, and the name is the user's (a variable's logical id).
    out.push(...fence('bash', [names.isEnvName(k.envVar)
      ? `read -rs ${k.envVar} && export ${k.envVar}   # paste the key, then Enter (nothing is shown)`
      : `# key ${k.name}: its variable's name is not a valid environment variable name (letters, digits and _, not starting with a digit); rename the variable`]));
  }
  out.push(...fence('bash', [`${DEPLOY_COMMAND}${m.stack ? ` ${shellWord(m.stack)}` : ''}`]));
  if (exports.length > 0) {
    out.push(`A deploy without the key stops at once with \`Qdrant API key "<name>" has no value: run read -rs TF_VAR_…\`; \`${DESTROY_COMMAND}\` needs no key. ` +
      (checksOn(m)
        ? 'A key given with `-var` or a `.tfvars` file does not reach the checks: export it, and only export it (a check refuses a key that a `.tfvars` file sets to another value).'
        : 'A key given with `-var` or a `.tfvars` file does not reach the file targets: export it, and only export it.'));
  }
  if (m.keys.some((k) => k.envVar === undefined)) {
    out.push('', 'A key from `ApiKeySource.fromToken` is read from the referenced resource (for example a secret store) at deploy: ' +
      'store the new key there, then deploy.');
  }

  const o = m.access.healthCheckOptions;
  out.push('');
  if (o.enabled === false) {
    out.push('Health checks are disabled (`healthCheck.enabled: false`): nothing verifies the keys during the deploy, and secret targets are written unverified.');
    return out;
  }
  const header = o.header === 'bearer' ? '`Authorization: Bearer`' : 'the `api-key` header';
  const declared = m.keys.filter((k) => k.access);
  out.push(
    `During the deploy, ${plural(m.keys.length, 'health check')} (one per key) prove each key on every cluster it covers, ` +
      'all clusters of a key at once. A check fails the deploy unless, for every cluster, these steps pass:',
    '',
    '1. `GET /`, sent without the key, answers with Qdrant\'s title and version: the address is a Qdrant endpoint, and only then ' +
      'is the key sent (an edge that asks for a key even there, as Qdrant Cloud\'s may, is asked again with it). ' +
      'Qdrant ignores the key on `GET /`, so this step alone proves nothing about the key.',
    `2. \`GET /collections\` with the key (sent in ${header}) is accepted (200): the key works on that cluster.`,
    o.requireAuth === false
      ? '3. `GET /collections` without a key: an open cluster (200) is accepted, because `healthCheck.requireAuth` is `false`.'
      : '3. `GET /collections` without a key is refused (401 or 403): the cluster enforces keys. ' +
        'Without this step, a cluster that accepts anyone would pass step 2 with any key.',
    declared.length === 0
      ? '4. Access: no key declares its `access`, so any valid key passes.'
      : `4. Access (${declared.map((k) => `${code(k.name)}: ${accessInWords(k)}`).join('; ')}): probes that change nothing (an empty alias batch, ` +
        '"does this collection exist", an empty delete) prove the declared access, and no more' +
        (o.allowExcessAccess ? ' (more access is a warning: `healthCheck.allowExcessAccess`).' : '.'),
    o.grpc === false
      ? '5. gRPC: not checked (`healthCheck.grpc: false`).'
      : '5. gRPC (port 6334 unless set): `Qdrant/HealthCheck`, then `Collections/List` with the key (accepted) and without it ' +
        (o.requireAuth === false ? '(refused; an open endpoint is accepted too, because `healthCheck.requireAuth` is `false`).' : '(refused).'),
    '6. Expiry: a key that is a JWT carries its expiry date; the check line shows it, warns when it is less than 14 days away' +
      (o.minValidityDays ? `, and fails when it is less than ${o.minValidityDays} days away (\`healthCheck.minValidityDays\`).` : '.') +
      hiddenChecks(m),
    '',
    o.runOnEveryDeploy
      ? 'Every deploy runs every check (`healthCheck.runOnEveryDeploy: true`), also when nothing changed.'
      : 'A key\'s check runs at the first deploy, and again only when the key, its clusters, its declared access, the checker or the `healthCheck` options change: ' +
        'a deploy that changes none of them runs no check, so it neither shows the expiry nor warns (section 6 has the output that every deploy refreshes). ' +
        'Set `healthCheck.runOnEveryDeploy: true` to run every check on every deploy.',
    '',
    'The checker reads the key from the environment, never prints it, always verifies TLS, and does not follow redirects (so the key is never sent elsewhere). ' +
      'A key\'s secret targets (section 4) are written only after its check has passed, so a failed deploy leaves them as they were.',
  );
  if (m.clusters.length === 0) out.push('', 'There are no clusters yet, so there is nothing to check.');
  return out;
}

/** For keys from `fromToken`: Terraform shows no line of their check when it passes. */
function hiddenChecks(m: GuideModel): string {
  const hidden = m.keys.filter((k) => k.fromToken);
  if (hidden.length === 0) return '';
  const o = m.access.healthCheckOptions;
  return ` Terraform hides the check's lines of a key from \`ApiKeySource.fromToken\` (${list(hidden.map((k) => code(k.name)))}) when it passes ` +
    '(a failure still fails the deploy and is shown), so no expiry line or warning appears for it: read its output ' +
    `${list(hidden.map((k) => code(k.expiresAtOutput)))} (section 6)` +
    (o.minValidityDays ? `; \`healthCheck.minValidityDays\` still fails the deploy when the expiry is closer than ${o.minValidityDays} days.`
      : ', or set `healthCheck.minValidityDays` to make a short expiry fail the deploy.');
}

// 4 ---------------------------------------------------------------------------------------------

export function deliverySection(m: GuideModel, h: Heading): string[] {
  const out = h(1, '4. Where the keys go');
  out.push(
    'Apps find each cluster\'s URLs and key under these names. The names follow the Qdrant convention (`QDRANT_URL`, `QDRANT_API_KEY`), ' +
      'with the cluster name when a target receives several clusters. The URLs carry their ports (section 1).',
  );
  if (m.plans.length > 0) {
    out.push('', `The deploy writes the entries into each secret target ${checksOn(m)
      ? 'after the key\'s health check has passed'
      : 'without any check (`healthCheck.enabled: false`): nothing proves the key first'}, and \`${DESTROY_COMMAND}\` removes them. ` +
      'A `.env` file keeps every line that is not ours; ours live in a block marked as managed. ' +
      'A JSON file keeps every member that is not ours, and records which are ours in a sidecar file next to it (`.<name>.qdrant-cluster-access`, names only). ' +
      'A name the file already defines, and not as ours, is refused, not overwritten. ' +
      'A rotated key (section 6) is rewritten in place by the next deploy.');
  }
  const rows: string[][] = [];
  for (const k of m.keys) {
    const own = m.plans.filter((p) => p.keys.includes(k.key));
    for (const c of k.clusters) {
      if (own.length === 0) {
        // The names the key would get in a target of its own.
        const n = defaultEntryNames(c.name, k.clusters.length);
        rows.push([code(k.name), code(c.name), code(n.url), code(n.grpcUrl), code(n.apiKey), 'you: the key has no secret target']);
      }
      for (const plan of own) {
        const n = entryNamesIn(plan, k, c);
        // A description is any text (a user's target, a file path): shown as code, never read as Markdown or HTML.
        rows.push([code(k.name), code(c.name), n.url ? code(n.url) : '-', n.grpcUrl ? code(n.grpcUrl) : '-', n.apiKey ? code(n.apiKey) : '-', code(plan.target.description)]);
      }
    }
  }
  if (rows.length === 0) return [...out, '', 'No key covers a cluster yet.'];
  out.push(...table(['Key', 'Cluster', 'REST URL', 'gRPC URL', 'Key', 'Written to'], rows));
  const stored = storedKeys(m);
  if (stored.length > 0) out.push('', ...stored.map((line) => `- ${line}`));
  return out;
}

/** What each built-in target leaves on disk or in the state: the keys, in plain text. */
function storedKeys(m: GuideModel): string[] {
  const lines: string[] = [];
  let outputs = false;
  for (const plan of m.plans) {
    const t = targetKind(plan.target);
    if (t?.kind === 'dotenv') {
      lines.push(`${code(t.path)} holds the keys in plain text: keep it out of version control (for example in \`.gitignore\`).`);
    } else if (t?.kind === 'json') {
      lines.push(`${code(t.path)} holds the keys in plain text: keep it and its sidecar ${code(t.sidecar)} out of version control (for example in \`.gitignore\`).`);
    } else if (t?.kind === 'outputs') {
      outputs = true;
    }
  }
  if (outputs) {
    lines.push('The Terraform outputs hold the keys: they are in the Terraform state (cdktf\'s default: `terraform.<stack>.tfstate` in the project directory), ' +
      'in plain text. Keep the state out of version control, or use a backend that stores it encrypted.');
  }
  return lines;
}

// 6 ---------------------------------------------------------------------------------------------

export function rotationSection(m: GuideModel, h: Heading): string[] {
  const out = h(1, '6. Rotation');
  if (m.keys.length > 0) {
    const o = m.access.healthCheckOptions;
    const read = !checksOn(m)
      ? 'Rotate a key before it expires. A key that is a JWT carries its expiry date; health checks are disabled (`healthCheck.enabled: false`), so no check reads it. '
      : 'Rotate a key before it expires. A key that is a JWT carries its expiry date: its check (section 3) reads it, shows it in the check line ' +
        'and warns when it is less than 14 days away' +
        (m.keys.some((k) => k.fromToken) ? ' (Terraform hides these lines for a key from `ApiKeySource.fromToken` when its check passes)' : '') +
        (o.runOnEveryDeploy ? '. ' : ', but the check runs only when the key or the options change. ');
    out.push(
      read +
        `Every deploy publishes the date as a non-secret output${checksOn(m) ? ' once the key\'s check passed (a key that failed it does not replace the date)' : ''}, so monitoring can watch it. ` +
        `Read it from the project directory: these lines run Terraform in the stack's directory (under ${code(STACKS_DIR)} ` +
        'unless `cdktf.json` sets another `output`), whose backend configuration finds the state (cdktf\'s default: `terraform.<stack>.tfstate` in the project directory):',
    );
    const chdir = chdirOf(m);
    out.push(...fence('bash', m.keys.map((k) => `terraform ${chdir}output -raw ${k.expiresAtOutput}   # ${k.name}: the expiry from the last deploy, empty if none`)));
    out.push(
      `This works where the deploy ran. Elsewhere (a fresh checkout, another machine), run \`terraform ${chdir}init -input=false\` once after \`${SYNTH_COMMAND}\`, ` +
        'with the state reachable (the same backend, or the state file in the project directory).',
      '',
    );
    out.push(
      'For a key without an expiry (an older admin key, or no expiration set), `createdOn` and `rotateAfterDays` give the due date, ' +
        'and synth warns once it has passed.',
    );
    out.push(...table(['Key', 'Expiry (read at deploy)', 'Created on', 'Rotate after', 'Due on (without an expiry)'], m.keys.map((k) => [
      code(k.name),
      `output ${code(k.expiresAtOutput)}`,
      k.key.createdOn === undefined ? 'not recorded: set `createdOn`' : code(String(k.key.createdOn)),
      `${k.key.rotateAfterDays} days`,
      k.dueOn ?? 'unknown',
    ])));
  }
  const on = checksOn(m);
  const tokens = m.keys.some((k) => k.fromToken);
  const variables = m.keys.length === 0 || m.keys.some((k) => !k.fromToken);
  const store = 'Store the new key in the resource that the key\'s token refers to (`ApiKeySource.fromToken`)';
  const hand = tokens && variables ? `${store}, or for a key from a variable set the variable to the new key (section 3),`
    : tokens ? store : 'Set the variable to the new key (section 3)';
  let proof: string;
  if (!on) {
    proof = 'Nothing proves the new key (`healthCheck.enabled: false`): the deploy uses it without any check.';
  } else {
    proof = 'The key\'s health check runs again, because the key changed, and proves the new key on every cluster it covers ' +
      (tokens && !variables ? '(Terraform hides its lines when it passes; a failure is shown).'
        : tokens ? '(and reads its expiry; for a key from `ApiKeySource.fromToken` Terraform hides the lines when it passes).' : '(and reads its expiry).');
  }
  const deploy = `${DEPLOY_COMMAND}${m.stack ? ` ${shellWord(m.stack)}` : ''}`;
  // Per stack, not per access: another access of the stack may hold the other keys.
  const others = variables ? ' The deploy needs every key of the stack: keep the variables of any key you are not rotating set to its current value.' : '';
  const expiry = on ? ' (for a key with an expiry, the output `qdrant_api_key_<name>_expires_at` now shows the new key\'s date: see the table)' : '';
  out.push(
    'To rotate a key without downtime:',
    '',
    '1. Create a new key for the same clusters, with the same access (section 2). Keep the old key: both work from now on.',
    `2. ${hand}, set \`createdOn\` of the key in the stack to the day you created the new key, and run \`${deploy}\`.${others} ${proof}`,
    m.plans.length > 0
      ? `3. The same deploy rewrote the key in its secret targets (section 4)${on ? ', after the check passed' : ', unchecked'}. ` +
        'Restart or reload your apps, and confirm that they work with it. A key without a secret target you give to your apps yourself.'
      : '3. Give the new key to your apps (section 4) and confirm that they work with it.',
    `4. Only once the deploy succeeded${expiry}, delete the old key in the console (the cluster's **API Keys** tab, or **Access Management**). ` +
      'A self-hosted cluster cannot delete a JWT: it stays valid until its expiry (one without an expiry never expires, and changing ' +
      'the server\'s api_key ends all of them), so give such keys a short one.',
    '',
    'A lost key cannot be retrieved: the console shows a key only once. Create a new key for the same clusters, rotate to it as above, and delete the lost one.',
  );
  return out;
}

// 7 ---------------------------------------------------------------------------------------------

/**
 * Generated from the checker's failure catalog (assets/checker/failures.js): every failure the
 * check can report has a row, in the catalog's words.
 */
export function troubleshootingSection(h: Heading): string[] {
  const out = h(1, '7. Troubleshooting');
  out.push('Each failed health check prints one line per cluster, `FAIL <key> → <cluster>  step <step>: <reason>`, and a summary of the failed clusters. ' +
    'The reason starts with one of these:');
  out.push(...table(['The check says', 'Likely cause', 'Fix'], FAILURES.map((f) => [code(f.phrase), f.cause, f.fix])));
  out.push(
    'A deploy can also stop with one of these messages, which come from no check:',
    '',
    ...table(['Message', 'When', 'Fix'], [
      ['`Qdrant API key "<name>" has no value: run read -rs TF_VAR_…`', 'before any check (the plan)',
        'Set the key in the shell that runs the deploy (the `read -rs` line of section 3), then deploy again.'],
      ['`environment variable TF_VAR_… is not set` (from the check or the writer)', 'when a check starts, or while writing a file target',
        'The key was given with `-var` or a `.tfvars` file, which the checks cannot read: export `TF_VAR_…` instead.'],
      ['`refusing to change <file>: line N: QDRANT_… is already defined outside the managed block`',
        'after the checks passed, while writing a file target; the file is left as it was',
        'The app\'s file already defines one of our names outside the managed block: remove that line, or rename our entry (`secretNaming`).'],
      ['`TF_VAR_… in the environment is not the value Terraform uses for variable …`', 'when a check starts, before any request',
        'The key is set twice: exported, and by `-var`, a `.tfvars` or `*.auto.tfvars` file, which wins in Terraform. Give it one way only: export it, and remove the other.'],
    ]),
  );
  // The option ranges, from the checker's own specs.
  const t = protocol.CHECK_OPTIONS.timeout;
  out.push(`Timeouts: \`healthCheck.timeoutSeconds\` is ${t.min}-${t.max} (default ${t.default}); each cluster's check ends after max(60, 4 × timeout) seconds, retries included.`);
  return out;
}
