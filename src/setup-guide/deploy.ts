/** Section 3: how each key reaches the deploy, and what the health checks prove. */
import { deployCommand, readLine } from './commands';
import { Heading, code, fence, list, table } from './markdown';
import { GuideKey, GuideModel } from './model';
import { DEPLOY_COMMAND, DESTROY_COMMAND, FRAMEWORK } from '../private/framework';
import { plural } from '../private/runtime';

export function deploySection(m: GuideModel, h: Heading): string[] {
  const out = h(1, '3. Hand the keys to the deploy');
  const o = m.checks;
  const tf = o.engine === 'terraform';
  // One block per variable, named after its last key.
  const exports = [...new Map(m.keys.filter((k) => k.variable).map((k) => [k.variable!.environmentVariable, k])).values()];
  out.push(exports.length > 0 || m.keys.length === 0
    ? `Set each key in the shell that runs \`${DEPLOY_COMMAND}\`: run each block below on its own (each \`read\` waits for its key), then the deploy. ` +
      'Setting the variable writes no file; section 4 says where the deploy writes the key.'
    : `No key is set in the shell: each is read from the resource its token refers to. Run \`${DEPLOY_COMMAND}\`.`);
  if (m.keys.length > 0) {
    out.push(...table(['Key', 'Set before the deploy', 'Source'], m.keys.map((k) => [
      code(k.name),
      k.variable ? code(k.variable.environmentVariable) : 'nothing: read from the referenced resource at deploy',
      // Where its value comes from; never the value.
      !k.variable ? 'a value from another resource (`ApiKeySource.fromToken`)'
        : k.variable.declaredByLibrary ? `sensitive variable ${code(k.variable.name)}, declared by this library`
          : `your sensitive variable ${code(k.variable.name)}`,
    ])));
  }
  // One block per key and one for the deploy: pasted together, a `read` would take the next
  // pasted line as its key and the deploy would start at once.
  for (const k of exports) {
    const env = k.variable!.environmentVariable;
    // Only a plain name reaches the shell line: synth refuses any other, but SetupGuide.render()
    // and skipValidation do not stop, and the name is the user's (a variable's logical id).
    out.push(...fence('bash', [readLine(env,
      `# key ${k.name}: its variable's name is not a valid environment variable name (letters, digits and _, not starting with a digit); rename the variable`)]));
  }
  out.push(...fence('bash', [deployCommand(m)]));
  if (exports.length > 0) {
    out.push(`A deploy without the key stops at once with \`Qdrant API key "<name>" has no value: run read -rs TF_VAR_…\`; \`${DESTROY_COMMAND}\` needs no key.` +
      (o.enabled && tf ? '' : o.enabled
        ? ' A key given with `-var` or a `.tfvars` file does not reach the checks: export it, and only export it (a check refuses a key that a `.tfvars` file sets to another value).'
        : ' A key given with `-var` or a `.tfvars` file does not reach the file targets: export it, and only export it.'));
  }
  if (m.keys.some((k) => !k.variable)) {
    out.push('', 'A key from `ApiKeySource.fromToken` is read from the referenced resource (for example a secret store) at deploy: ' +
      'store the new key there, then deploy.');
  }

  out.push('');
  if (!o.enabled) {
    return [...out, 'Health checks are disabled (`healthCheck.enabled: false`): nothing verifies the keys during the deploy, and secret targets are written unverified.'];
  }
  const header = o.header === 'bearer' ? '`Authorization: Bearer`' : 'the `api-key` header';
  const declared = m.keys.filter((k) => k.access);
  out.push(
    tf
      ? 'At every plan (so at every deploy), Terraform itself proves each key on every cluster it covers (`CheckEngine.TERRAFORM`: `data "http"` reads, no Node). ' +
        'A check fails the plan unless, for every cluster, these steps pass:'
      : `During the deploy, ${plural(m.keys.length, 'health check')} (one per key) prove each key on every cluster it covers, ` +
        'all clusters of a key at once. A check fails the deploy unless, for every cluster, these steps pass:',
    '',
    '1. `GET /`, sent without the key, answers with Qdrant\'s title and version: the address is a Qdrant endpoint, and only then ' +
      (tf
        ? 'is the key sent (behind an edge that asks for a key even there, as Qdrant Cloud\'s may, step 2 proves the address). '
        : 'is the key sent (an edge that asks for a key even there, as Qdrant Cloud\'s may, is asked again with it). ') +
      'Qdrant ignores the key on `GET /`, so this step alone proves nothing about the key.',
    `2. \`GET /collections\` with the key (sent in ${header}) is accepted (200): the key works on that cluster.`,
    !o.requireAuth
      ? '3. `GET /collections` without a key: an open cluster (200) is accepted, because `healthCheck.requireAuth` is `false`.'
      : '3. `GET /collections` without a key is refused (401 or 403): the cluster enforces keys. ' +
        'Without this step, a cluster that accepts anyone would pass step 2 with any key.',
    declared.length === 0
      ? '4. Access: no key declares its `access`, so any valid key passes.'
      : `4. Access (${declared.map((k) => `${code(k.name)}: ${accessInWords(k)}`).join('; ')}): probes that change nothing (an empty alias batch, ` +
        '"does this collection exist", an empty delete) prove the declared access, and no more' +
        (o.allowExcessAccess ? ' (more access is a warning: `healthCheck.allowExcessAccess`).' : '.'),
    tf
      ? '5. gRPC: not checked (`CheckEngine.TERRAFORM`: Terraform has no gRPC client).'
      : !o.grpc
        ? '5. gRPC: not checked (`healthCheck.grpc: false`).'
        : '5. gRPC (port 6334 unless set): `Qdrant/HealthCheck`, then `Collections/List` with the key (accepted) and without it ' +
        (!o.requireAuth ? '(refused; an open endpoint is accepted too, because `healthCheck.requireAuth` is `false`).' : '(refused).'),
    (tf
      ? '6. Expiry: a key that is a JWT carries its expiry date; an expired key fails, and one less than 14 days away gets a `Check block assertion failed` warning at every plan'
      : '6. Expiry: a key that is a JWT carries its expiry date; the check line shows it, warns when it is less than 14 days away') +
      (o.minValidityDays ? `, and fails when it is less than ${o.minValidityDays} days away (\`healthCheck.minValidityDays\`).` : '.') +
      (tf ? '' : hiddenChecks(m)),
    '',
    ...(tf ? TERRAFORM_ENGINE : nodeEngine(m)),
  );
  if (m.clusters.length === 0) out.push('', 'There are no clusters yet, so there is nothing to check.');
  return out;
}

/** When the checks of the Terraform engine run, and where the key goes. */
const TERRAFORM_ENGINE = [
  `The checks run at every plan (\`${FRAMEWORK.cli} diff\` too): a wrong, revoked or expired key fails the plan with the step's message before anything changes, ` +
    'so a scheduled plan notices it. Each failure is an `Error: Resource postcondition failed` (section 7).',
  '',
  'Terraform sends the key in `Authorization: Bearer`, always verifies TLS, and follows redirects (one to the same host receives the key, even over `http://`). ' +
    'No plan or apply output shows the key, but **the Terraform state holds it in clear** (in every keyed `data "http"`), and so does a saved plan file: ' +
    'protect them as you protect the key. ' +
    'A key\'s secret targets (section 4) are written only after its checks have passed, so a failed deploy leaves them as they were.',
];

/** When the checks of the Node engine run, and how the checker handles the key. */
function nodeEngine(m: GuideModel): string[] {
  const o = m.checks;
  return [
    o.runOnEveryDeploy
      ? 'Every deploy runs every check (`healthCheck.runOnEveryDeploy: true`), also when nothing changed.'
      : 'A key\'s check runs at the first deploy, and again only when the key, its clusters, its declared access, the checker or the `healthCheck` options change: ' +
        'a deploy that changes none of them runs no check, so it neither shows the expiry nor warns (section 6 has the output that every deploy refreshes). ' +
        'Set `healthCheck.runOnEveryDeploy: true` to run every check on every deploy.' + ephemeralRuns(m),
    '',
    'The checker reads the key from the environment, never prints it, always verifies TLS, and does not follow redirects (so the key is never sent elsewhere). ' +
      'A key\'s secret targets (section 4) are written only after its check has passed, so a failed deploy leaves them as they were.',
  ];
}

/** For keys from `fromToken`: Terraform shows no line of their check when it passes. */
function hiddenChecks(m: GuideModel): string {
  const hidden = m.keys.filter((k) => !k.variable);
  if (hidden.length === 0) return '';
  // An ephemeral key has no output.
  const outputs = hidden.flatMap((k) => (k.expiresAtOutput === undefined ? [] : [code(k.expiresAtOutput)]));
  return ` Terraform hides the check's lines of a key from \`ApiKeySource.fromToken\` (${list(hidden.map((k) => code(k.name)))}) when it passes ` +
    '(a failure still fails the deploy and is shown), so no expiry line or warning appears for it' +
    (outputs.length > 0 ? `: read its output ${list(outputs)} (section 6)` : '') +
    (m.checks.minValidityDays ? `; \`healthCheck.minValidityDays\` still fails the deploy when the expiry is closer than ${m.checks.minValidityDays} days.`
      : `${outputs.length > 0 ? ', or' : ';'} set \`healthCheck.minValidityDays\` to make a short expiry fail the deploy.`);
}

/** When the check of an ephemeral key runs: Terraform keeps nothing of the key by which a new one could be noticed. */
function ephemeralRuns(m: GuideModel): string {
  const eph = m.keys.filter((k) => k.ephemeral);
  if (eph.length === 0) return '';
  const versioned = eph.filter((k) => k.ephemeral!.keyVersion !== undefined);
  const every = eph.filter((k) => k.ephemeral!.keyVersion === undefined);
  return ' An ephemeral key\'s check (`ephemeral: true`) cannot notice a new key, as Terraform keeps nothing of it: ' +
    [versioned.length > 0 ? `that of ${list(versioned.map((k) => code(k.name)))} runs again when its \`keyVersion\` changes, and only then` : '',
      every.length > 0 ? `that of ${list(every.map((k) => code(k.name)))} (no \`keyVersion\`) runs on every deploy` : ''].filter((x) => x).join('; ') + '.';
}

/** A key's declared access in words, collection names as code. */
function accessInWords(k: GuideKey): string {
  const a = k.access!;
  if (a.mode !== 'collections') return `${a.mode} (cluster-wide)`;
  return `collections: ${[...a.read.map((c) => `read ${code(c)}`), ...a.readWrite.map((c) => `read-write ${code(c)}`)].join(', ')}`;
}
