/**
 * What the setup guide shows, read from a `ClusterAccess` once: a view per cluster and per key.
 * Values that are tokens (known only at deploy) become placeholders. Not exported.
 */
import * as path from 'path';
import { TerraformStack, Token } from 'cdktf';
import { IConstruct } from 'constructs';
import type { ApiKey } from '../api-key';
import type { Cluster } from '../cluster';
import type { ClusterAccess } from '../cluster-access';
import { code } from './markdown';
import { FileTarget } from '../private/file-target';
import { OutputsTarget } from '../private/outputs-target';
import { rotationDueOn } from '../private/rotation';
import { names, SIDECAR_SUFFIX } from '../private/runtime';
import { SecretTargetPlan, defaultEntryNames, planSecretTargets } from '../private/secret-plan';
import { ISecretTarget, SecretEntryKind } from '../secret-target';

export interface ClusterView {
  readonly cluster: Cluster;
  /** The name, or a placeholder when it is invalid (synth fails then; the guide still renders). */
  readonly name: string;
  /** Known at synth (not a token). */
  readonly known: boolean;
  readonly address: string;
  readonly rest: string;
  readonly grpc: string;
  /** ASCII host. */
  readonly host: string;
  /** The origin (`https://host`), for clients that take the port apart. */
  readonly origin?: string;
  readonly tls: boolean;
  readonly restPort: number;
  readonly grpcPort: number;
  readonly outputPrefix: string;
  readonly keys: KeyView[];
}

export interface KeyView {
  readonly key: ApiKey;
  readonly name: string;
  /** `TF_VAR_…`, or undefined for `fromToken`. */
  readonly envVar?: string;
  /** From `ApiKeySource.fromToken`: no variable to set, and Terraform hides its check's lines on success. */
  readonly fromToken: boolean;
  /** Where the value comes from, in Markdown; never the value. */
  readonly source: string;
  /** Declared access, for the console: what to select. */
  readonly access?: { readonly words: string; readonly read: string[]; readonly readWrite: string[]; readonly mode: string };
  readonly expiresAtOutput: string;
  readonly dueOn?: string;
  readonly clusters: ClusterView[];
}

export interface GuideModel {
  readonly access: ClusterAccess;
  readonly path: string;
  readonly stack?: string;
  readonly clusters: ClusterView[];
  readonly keys: KeyView[];
  readonly plans: SecretTargetPlan[];
}

function plainName(name: string): string {
  return names.isValidName(name) ? name : 'invalid-name';
}

export function stackOf(scope: IConstruct): string | undefined {
  try {
    return TerraformStack.of(scope).node.id;
  } catch {
    return undefined;
  }
}

export function buildModel(access: ClusterAccess): GuideModel {
  const clusters: ClusterView[] = access.clusters.map((cluster) => {
    const name = plainName(cluster.clusterName);
    const parsed = cluster._parsedUrl;
    const known = parsed !== undefined && parsed.problems.length === 0;
    return {
      cluster,
      name,
      known,
      address: known ? cluster.url : `<${name} address>`,
      rest: known ? cluster.restEndpoint : `<${name} REST endpoint>`,
      grpc: known ? cluster.grpcEndpoint : `<${name} gRPC endpoint>`,
      host: known ? parsed.host! : `<${name} host>`,
      origin: known ? parsed.origin : undefined,
      tls: known ? parsed.protocol === 'https:' : true,
      restPort: Token.isUnresolved(cluster.restPort) ? 6333 : cluster.restPort,
      grpcPort: Token.isUnresolved(cluster.grpcPort) ? 6334 : cluster.grpcPort,
      outputPrefix: cluster.outputPrefix,
      keys: [],
    };
  });
  const keys: KeyView[] = access.apiKeys.map((key) => {
    const envVar = key._sourceConfig().inheritedEnvironmentVariable;
    const variable = envVar?.replace(/^TF_VAR_/, '');
    const a = key.access;
    return {
      key,
      name: plainName(key.keyName),
      envVar,
      fromToken: envVar === undefined,
      source: envVar === undefined
        ? 'a value from another resource (`ApiKeySource.fromToken`)'
        : `${key.variable ? 'sensitive variable' : 'your sensitive variable'} ${code(variable!)}${key.variable ? ', declared by this library' : ''}`,
      access: a ? { words: a.description, read: a.readCollections, readWrite: a.readWriteCollections, mode: a._checkerAccess() } : undefined,
      expiresAtOutput: key.expiresAtOutputName,
      dueOn: rotationDueOn(key.createdOn, key.rotateAfterDays),
      clusters: clusters.filter((c) => key.clusters.includes(c.cluster)),
    };
  });
  for (const c of clusters) (c.keys as KeyView[]).push(...keys.filter((k) => k.clusters.includes(c)));
  return { access, path: access.node.path, stack: stackOf(access), clusters, keys, plans: planSecretTargets(access.apiKeys) };
}

/** The names a plan gives a key's entries on a cluster (a URL shared by two keys is written once). */
export function entryNamesIn(plan: SecretTargetPlan, k: KeyView, c: ClusterView): { url?: string; grpcUrl?: string; apiKey?: string } {
  const mine = plan.entries.filter((e) => e.clusterName === c.cluster.clusterName);
  const name = (kind: SecretEntryKind) =>
    (mine.find((x) => x.kind === kind && x.keyName === k.key.keyName) ?? mine.find((x) => x.kind === kind))?.name;
  return { url: name(SecretEntryKind.REST_URL), grpcUrl: name(SecretEntryKind.GRPC_URL), apiKey: name(SecretEntryKind.API_KEY) };
}

/** What a built-in target is, for what the guide says about it; undefined for a user's own target. */
export type TargetKind =
  | { readonly kind: 'dotenv'; readonly path: string }
  | { readonly kind: 'json'; readonly path: string; readonly sidecar: string }
  | { readonly kind: 'outputs' };

export function targetKind(target: ISecretTarget): TargetKind | undefined {
  if (target instanceof OutputsTarget) return { kind: 'outputs' };
  if (!(target instanceof FileTarget)) return undefined;
  const file = target.path;
  if (target.format === 'dotenv') return { kind: 'dotenv', path: file };
  // As the writer names it (assets/writer/json.js sidecarPath), with / as the separator.
  return { kind: 'json', path: file, sidecar: path.posix.join(path.posix.dirname(file), `.${path.posix.basename(file)}${SIDECAR_SUFFIX}`) };
}

/**
 * The names an app reads for a cluster, as section 4 lists them first: the cluster's first key,
 * in its first secret target, else as a target of the key's own would name them. `target` is
 * that secret target, if any.
 */
export function appNamesFor(m: GuideModel, c: ClusterView): { url: string; grpcUrl: string; apiKey: string; target?: ISecretTarget } {
  const k = c.keys[0];
  if (!k) return defaultEntryNames(c.name, 1);
  const plan = m.plans.find((p) => p.keys.includes(k.key));
  const fallback = defaultEntryNames(c.name, k.clusters.length);
  if (!plan) return fallback;
  const n = entryNamesIn(plan, k, c);
  return { url: n.url ?? fallback.url, grpcUrl: n.grpcUrl ?? fallback.grpcUrl, apiKey: n.apiKey ?? fallback.apiKey, target: plan.target };
}
