/**
 * Which entries each secret target receives: default names (runtime/names.ts), then the key's
 * prefix and renames, one entry per name. Pure: for binding, validation and the setup guide.
 */
import type { ApiKey } from '../api-key';
import { ISecretTarget, KIND_TEXT, SecretEntry, SecretEntryKind, SecretNaming, withInheritedKey } from '../secret-target';
import { errors, q } from './errors';
import type { InheritedKey } from './file-writer';
import { names } from './runtime';

/** A target, its keys, and its entries (each name once). */
export type SecretTargetPlan = ReturnType<typeof planTarget>;

interface Candidate extends SecretEntry {
  readonly defaultName: string;
  readonly inherited?: InheritedKey;
}

function describe(c: SecretEntry): string {
  return `key ${q(c.keyName)} (${KIND_TEXT[c.kind]} of cluster ${q(c.clusterName)})`;
}

export function planSecretTargets(keys: ApiKey[]): SecretTargetPlan[] {
  const byTarget = new Map<ISecretTarget, { key: ApiKey; naming: SecretNaming }[]>();
  for (const key of keys) {
    for (const attachment of key._secretAttachments()) {
      byTarget.set(attachment.target, [...(byTarget.get(attachment.target) ?? []), { key, naming: attachment.naming }]);
    }
  }
  return [...byTarget.entries()].map(([target, attachments]) => planTarget(target, attachments));
}

function planTarget(target: ISecretTarget, attachments: { key: ApiKey; naming: SecretNaming }[]) {
  const problems: string[] = [];
  const say = (text: string) => problems.push(errors.target(target.description, text));
  const clusters = new Set(attachments.flatMap((a) => a.key.clusters));

  const candidates: Candidate[] = [];
  for (const { key, naming } of attachments) {
    const prefix = naming.prefix ?? '';
    if (prefix !== '' && !names.isEnvName(prefix)) say(errors.prefixInvalid(key.keyName, prefix));
    const overrides = naming.names ?? {};
    const renamed = (name: string) => Object.prototype.hasOwnProperty.call(overrides, name);
    const source = key.source._config();
    const own: Candidate[] = [];
    for (const cluster of key.clusters) {
      // The names before prefix and renames: without the cluster's name when the target has one cluster.
      const entryNames = names.clusterEnvNames(cluster.clusterName, clusters.size === 1);
      const parts: [SecretEntryKind, string, string][] = [
        [SecretEntryKind.REST_URL, entryNames.url, cluster.restEndpoint],
        [SecretEntryKind.GRPC_URL, entryNames.grpcUrl, cluster.grpcEndpoint],
        [SecretEntryKind.API_KEY, entryNames.apiKey, source.expression],
      ];
      for (const [kind, defaultName, value] of parts) {
        const isKey = kind === SecretEntryKind.API_KEY;
        own.push({
          name: renamed(defaultName) ? overrides[defaultName] : `${prefix}${defaultName}`,
          defaultName,
          kind,
          value,
          sensitive: isKey,
          ephemeral: isKey && key.ephemeral,
          ...(isKey && key.ephemeral && key.keyVersion !== undefined ? { keyVersion: key.keyVersion } : {}),
          keyName: key.keyName,
          clusterName: cluster.clusterName,
          inherited: isKey && source.inheritedEnvironmentVariable
            ? { environmentVariable: source.inheritedEnvironmentVariable, sha256: source.inheritedSha256! } : undefined,
        });
      }
    }
    for (const [from, to] of Object.entries(overrides)) {
      if (!own.some((c) => c.defaultName === from)) {
        say(errors.renameUnknown(key.keyName, from, [...new Set(own.map((c) => c.defaultName))]));
      } else if (!names.isEntryName(to)) {
        say(errors.renameInvalid(key.keyName, from, to));
      }
    }
    // A valid prefix and a default name can still make a name too long (renames are checked above).
    const tooLong = own.filter((c) => (prefix === '' || names.isEnvName(prefix)) && !renamed(c.defaultName) && !names.isEntryName(c.name));
    for (const c of tooLong) say(errors.entryNameTooLong(key.keyName, c.defaultName, c.name.length));
    candidates.push(...own);
  }

  const byName = new Map<string, Candidate>();
  for (const c of candidates) {
    const first = byName.get(c.name);
    if (!first) {
      byName.set(c.name, c);
      continue;
    }
    // Two keys of one cluster give the same URL: one entry is enough.
    if (first.kind === c.kind && c.kind !== SecretEntryKind.API_KEY && first.clusterName === c.clusterName) continue;
    say(errors.entryTwice(c.name, describe(first), describe(c), c.keyName, c.defaultName,
      c.defaultName.replace(/^QDRANT_/, `QDRANT_${names.envCase(c.keyName)}_`)));
  }
  const entries: SecretEntry[] = [...byName.values()].map(({ defaultName, inherited, ...entry }) => withInheritedKey(entry, inherited));
  return { target, keys: attachments.map((a) => a.key), entries, problems };
}
