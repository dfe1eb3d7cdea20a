/** Section 6: when and how to rotate each key without downtime. */
import { STACKS_DIR, chdirOf, deployCommand } from './commands';
import { Heading, code, fence, list, table } from './markdown';
import { GuideModel } from './model';
import { SYNTH_COMMAND } from '../private/framework';

export function rotationSection(m: GuideModel, h: Heading): string[] {
  const out = h(1, '6. Rotation');
  const on = m.checks.enabled;
  if (m.keys.length > 0) {
    const read = !on
      ? 'Rotate a key before it expires. A key that is a JWT carries its expiry date; health checks are disabled (`healthCheck.enabled: false`), so no check reads it. '
      : 'Rotate a key before it expires. A key that is a JWT carries its expiry date: its check (section 3) reads it, shows it in the check line ' +
        'and warns when it is less than 14 days away' +
        (m.keys.some((k) => !k.variable) ? ' (Terraform hides these lines for a key from `ApiKeySource.fromToken` when its check passes)' : '') +
        (m.checks.runOnEveryDeploy ? '. ' : ', but the check runs only when the key or the options change. ');
    // An ephemeral key has no expiry output: Terraform stores nothing derived from it.
    const published = m.keys.filter((k) => k.expiresAtOutput !== undefined);
    out.push(read + (published.length === 0
      ? 'An ephemeral key has no expiry output (Terraform stores nothing derived from it): its check line is where the date shows.'
      : `Every deploy publishes the date as a non-secret output${on ? ' once the key\'s check passed (a key that failed it does not replace the date)' : ''}` +
        `${published.length < m.keys.length ? ' (not for an ephemeral key, whose check line is where the date shows)' : ''}, so monitoring can watch it. ` +
        `Read it from the project directory: these lines run Terraform in the stack's directory (under ${code(STACKS_DIR)} ` +
        'unless `cdktf.json` sets another `output`), whose backend configuration finds the state (cdktf\'s default: `terraform.<stack>.tfstate` in the project directory):'));
    if (published.length > 0) {
      const chdir = chdirOf(m);
      out.push(
        ...fence('bash', published.map((k) => `terraform ${chdir}output -raw ${k.expiresAtOutput}   # ${k.name}: the expiry from the last deploy, empty if none`)),
        `This works where the deploy ran. Elsewhere (a fresh checkout, another machine), run \`terraform ${chdir}init -input=false\` once after \`${SYNTH_COMMAND}\`, ` +
          'with the state reachable (the same backend, or the state file in the project directory).',
      );
    }
    out.push(
      '',
      'For a key without an expiry (an older admin key, or no expiration set), `createdOn` and `rotateAfterDays` give the due date, ' +
        'and synth warns once it has passed.',
      ...table(['Key', 'Expiry (read at deploy)', 'Created on', 'Rotate after', 'Due on (without an expiry)'], m.keys.map((k) => [
        code(k.name),
        k.expiresAtOutput === undefined ? 'check line (ephemeral: no output)' : `output ${code(k.expiresAtOutput)}`,
        k.createdOn === undefined ? 'not recorded: set `createdOn`' : code(k.createdOn),
        `${k.rotateAfterDays} days`,
        k.dueOn ?? 'unknown',
      ])),
    );
  }
  const tokens = m.keys.some((k) => !k.variable);
  const variables = m.keys.length === 0 || m.keys.some((k) => k.variable);
  const store = 'Store the new key in the resource that the key\'s token refers to (`ApiKeySource.fromToken`)';
  const hand = tokens && variables ? `${store}, or for a key from a variable set the variable to the new key (section 3),`
    : tokens ? store : 'Set the variable to the new key (section 3)';
  const proof = !on ? 'Nothing proves the new key (`healthCheck.enabled: false`): the deploy uses it without any check.'
    : 'The key\'s health check runs again, because the key changed, and proves the new key on every cluster it covers ' +
      (tokens && !variables ? '(Terraform hides its lines when it passes; a failure is shown).'
        : tokens ? '(and reads its expiry; for a key from `ApiKeySource.fromToken` Terraform hides the lines when it passes).' : '(and reads its expiry).');
  const deploy = deployCommand(m);
  // Per stack, not per access: another access of the stack may hold the other keys.
  const others = variables ? ' The deploy needs every key of the stack: keep the variables of any key you are not rotating set to its current value.' : '';
  const expiry = on && m.keys.some((k) => k.expiresAtOutput !== undefined)
    ? ' (for a key with an expiry, the output `qdrant_api_key_<name>_expires_at` now shows the new key\'s date: see the table)' : '';
  out.push(
    'To rotate a key without downtime:',
    '',
    '1. Create a new key for the same clusters, with the same access (section 2). Keep the old key: both work from now on.',
    `2. ${hand}, set \`createdOn\` of the key in the stack to the day you created the new key, and run \`${deploy}\`.${others} ${proof}`,
    m.targets.length > 0
      ? `3. The same deploy rewrote the key in its secret targets (section 4)${on ? ', after the check passed' : ', unchecked'}. ` +
        'Restart or reload your apps, and confirm that they work with it. A key without a secret target you give to your apps yourself.'
      : '3. Give the new key to your apps (section 4) and confirm that they work with it.',
    `4. Only once the deploy succeeded${expiry}, delete the old key in the console (the cluster's **API Keys** tab, or **Access Management**). ` +
      'A self-hosted cluster cannot delete a JWT: it stays valid until its expiry (one without an expiry never expires, and changing ' +
      'the server\'s api_key ends all of them), so give such keys a short one.',
    '',
    'A lost key cannot be retrieved: the console shows a key only once. Create a new key for the same clusters, rotate to it as above, and delete the lost one.',
    ...ephemeralRotation(m),
  );
  return out;
}

/** What step 2 means for an ephemeral key: nothing of it is stored, so only its keyVersion tells a new one. */
function ephemeralRotation(m: GuideModel): string[] {
  const eph = m.keys.filter((k) => k.ephemeral);
  if (eph.length === 0) return [];
  const versioned = eph.filter((k) => k.ephemeral!.keyVersion !== undefined).map((k) => code(k.name));
  const every = eph.filter((k) => k.ephemeral!.keyVersion === undefined).map((k) => code(k.name));
  const on = m.checks.enabled;
  return [
    '',
    `An ephemeral key (${list(eph.map((k) => code(k.name)))}) is in neither Terraform's plan nor its state, so no deploy can tell that it changed.`,
    ...(versioned.length === 0 ? [] : ['', `For ${list(versioned)}, step 2 also gives \`keyVersion\` the next number (the new key with the new number, in one deploy): ` +
      `the ${on ? 'check and the ' : ''}writes run again only when it changes. A new key deployed without it is ${on ? 'neither checked nor ' : 'not '}written ` +
      '(the plan shows nothing to do), and the apps keep the old key, which step 4 then deletes: that is the risk of a rotation without a bump.']),
    ...(every.length === 0 ? [] : ['', `${list(every)} ${every.length === 1 ? 'has' : 'have'} no \`keyVersion\`: ${on ? 'checked and ' : ''}written on every deploy, ` +
      'so step 2 needs nothing more. The cost: every plan shows those resources as replaced, and `terraform plan -detailed-exitcode` always exits 2.']),
  ];
}
