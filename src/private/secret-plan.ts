/**
 * Which entries each secret target receives: names by the ecosystem's convention (see
 * env-names.ts), then the key's prefix and overrides, then one entry per name. Pure: used by
 * `ClusterAccess` to bind the targets and validate, and by the setup guide. Not exported.
 */
import type { ApiKey } from '../api-key';
import { ISecretTarget, SecretEntry, SecretEntryKind, SecretNaming } from '../secret-target';
import { clusterEnvNames } from './env-names';
import { envCase, q } from './naming';

export interface SecretTargetPlan {
  readonly target: ISecretTarget;
  /** The keys attached to the target, in order. */
  readonly keys: ApiKey[];
  /** Each name once. */
  readonly entries: SecretEntry[];
  readonly problems: string[];
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Candidate extends SecretEntry {
  readonly defaultName: string;
}

const KIND_TEXT: Record<SecretEntryKind, string> = {
  [SecretEntryKind.REST_URL]: 'REST URL',
  [SecretEntryKind.GRPC_URL]: 'gRPC URL',
  [SecretEntryKind.API_KEY]: 'API key',
};

function describe(c: SecretEntry): string {
  return `key ${q(c.keyName)} (${KIND_TEXT[c.kind]} of cluster ${q(c.clusterName)})`;
}

export function planSecretTargets(keys: ApiKey[]): SecretTargetPlan[] {
  const byTarget = new Map<ISecretTarget, { key: ApiKey; naming: SecretNaming }[]>();
  for (const key of keys) {
    for (const attachment of key._secretAttachments()) {
      const list = byTarget.get(attachment.target) ?? [];
      list.push({ key, naming: attachment.naming });
      byTarget.set(attachment.target, list);
    }
  }
  return [...byTarget.entries()].map(([target, attachments]) => planTarget(target, attachments));
}

function planTarget(target: ISecretTarget, attachments: { key: ApiKey; naming: SecretNaming }[]): SecretTargetPlan {
  const problems: string[] = [];
  const say = (text: string) => problems.push(`secret target ${target.description}: ${text}`);
  const clusters = new Set(attachments.flatMap((a) => a.key.clusters));
  const single = clusters.size === 1;

  const candidates: Candidate[] = [];
  for (const { key, naming } of attachments) {
    const prefix = naming.prefix ?? '';
    if (prefix !== '' && !ENV_NAME.test(prefix)) {
      say(`key ${q(key.keyName)} has prefix ${q(prefix)}, which is not a variable name; use letters, digits and "_", such as "APP_"`);
    }
    const overrides = naming.names ?? {};
    const source = key._sourceConfigResolved();
    const own: Candidate[] = [];
    for (const cluster of key.clusters) {
      const names = clusterEnvNames(cluster.clusterName, single);
      const parts: [SecretEntryKind, string, string][] = [
        [SecretEntryKind.REST_URL, names.url, cluster.restEndpoint],
        [SecretEntryKind.GRPC_URL, names.grpcUrl, cluster.grpcEndpoint],
        [SecretEntryKind.API_KEY, names.apiKey, source.expression],
      ];
      for (const [kind, defaultName, value] of parts) {
        const isKey = kind === SecretEntryKind.API_KEY;
        own.push({
          name: Object.prototype.hasOwnProperty.call(overrides, defaultName) ? overrides[defaultName] : `${prefix}${defaultName}`,
          defaultName,
          kind,
          value,
          sensitive: isKey,
          keyName: key.keyName,
          clusterName: cluster.clusterName,
          inheritedEnvironmentVariable: isKey ? source.inheritedEnvironmentVariable : undefined,
        });
      }
    }
    for (const [from, to] of Object.entries(overrides)) {
      if (!own.some((c) => c.defaultName === from)) {
        const known = [...new Set(own.map((c) => c.defaultName))].join(', ') || 'none';
        say(`key ${q(key.keyName)} renames ${q(from)}, which is not one of its entries (${known}); ` +
          'the keys of names are default names, without the prefix');
      } else if (typeof to !== 'string' || !ENV_NAME.test(to)) {
        say(`key ${q(key.keyName)} renames ${q(from)} to ${q(to)}, which is not a variable name; use letters, digits and "_"`);
      }
    }
    candidates.push(...own);
  }

  const entries: SecretEntry[] = [];
  const byName = new Map<string, Candidate>();
  for (const c of candidates) {
    const first = byName.get(c.name);
    if (!first) {
      byName.set(c.name, c);
      const { defaultName, ...entry } = c;
      entries.push(entry);
      continue;
    }
    // Two keys of one cluster give the same URL: one entry is enough.
    if (first.kind === c.kind && c.kind !== SecretEntryKind.API_KEY && first.clusterName === c.clusterName) continue;
    say(`entry ${q(c.name)} would be written twice, for ${describe(first)} and for ${describe(c)}; ` +
      `give key ${q(c.keyName)} another name with its secretNaming (or addSecretTarget(target, naming)), ` +
      `e.g. names: { ${c.defaultName}: "${c.defaultName.replace(/^QDRANT_/, `QDRANT_${envCase(c.keyName)}_`)}" }, or a prefix`);
  }
  return { target, keys: attachments.map((a) => a.key), entries, problems };
}
