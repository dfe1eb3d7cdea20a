/** Section 4: the names under which each key's URLs and key are written, and where. */
import { Heading, code, table } from './markdown';
import { GuideModel, GuideNames } from './model';
import { DESTROY_COMMAND } from '../private/framework';

export function deliverySection(m: GuideModel, h: Heading): string[] {
  const out = h(1, '4. Where the keys go');
  out.push(
    'Apps find each cluster\'s URLs and key under these names. The names follow the Qdrant convention (`QDRANT_URL`, `QDRANT_API_KEY`), ' +
      'with the cluster name when a target receives several clusters. The URLs carry their ports (section 1).',
  );
  if (m.targets.length > 0) {
    out.push('', `The deploy writes the entries into each secret target ${m.checks.enabled
      ? 'after the key\'s health check has passed'
      : 'without any check (`healthCheck.enabled: false`): nothing proves the key first'}, and \`${DESTROY_COMMAND}\` removes them. ` +
      'A `.env` file keeps every line that is not ours; ours live in a block marked as managed. ' +
      'A JSON file keeps every member that is not ours, and records which are ours in a sidecar file next to it (`.<name>.qdrant-cluster-access`, names only). ' +
      'A name the file already defines, and not as ours, is refused, not overwritten. ' +
      'A rotated key (section 6) is rewritten in place by the next deploy.');
  }
  // Without a target, the names the key would get in a target of its own. A description is any text
  // (a user's target, a file path): shown as code, never read as Markdown or HTML.
  const rows = m.keys.flatMap((k) => k.grants.flatMap((g) => (g.deliveries.length === 0
    ? [{ names: g.ownNames as Partial<GuideNames>, where: 'you: the key has no secret target' }]
    : g.deliveries.map((d) => ({ names: d.names, where: code(d.target.description) })))
    .map(({ names: n, where }) => [code(k.name), code(g.cluster.name), ...[n.url, n.grpcUrl, n.apiKey].map((v) => (v ? code(v) : '-')), where])));
  if (rows.length === 0) return [...out, '', 'No key covers a cluster yet.'];
  out.push(...table(['Key', 'Cluster', 'REST URL', 'gRPC URL', 'Key', 'Written to'], rows));
  const stored = storedKeys(m);
  if (stored.length > 0) out.push('', ...stored.map((line) => `- ${line}`));
  return out;
}

/** What each built-in target leaves on disk or in the state: the keys, in plain text. */
function storedKeys(m: GuideModel): string[] {
  const lines = m.targets.filter((t) => t.kind === 'dotenv' || t.kind === 'json').map((t) => `${code(t.file!)} holds the keys in plain text: ` +
    `keep it${t.sidecar ? ` and its sidecar ${code(t.sidecar)}` : ''} out of version control (for example in \`.gitignore\`).`);
  if (m.targets.some((t) => t.kind === 'outputs')) {
    lines.push('The Terraform outputs hold the keys: they are in the Terraform state (cdktf\'s default: `terraform.<stack>.tfstate` in the project directory), ' +
      'in plain text. Keep the state out of version control, or use a backend that stores it encrypted.');
  }
  return lines;
}
