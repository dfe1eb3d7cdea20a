/**
 * Builds the setup guide's read-only model (src/setup-guide/model.ts) from a `ClusterAccess`, by
 * shape (`GuideSubject`): cluster-access.ts imports this file, which must not import it back.
 */
import * as path from 'path';
import { TerraformStack, Token } from 'cdktf';
import { IConstruct } from 'constructs';
import { plainName } from './errors';
import { rotationDueOn } from './rotation';
import { FAILURES, SIDECAR_SUFFIX, names, urls } from './runtime';
import { SecretTargetPlan, planSecretTargets } from './secret-plan';
import { terraformFailureIds } from './terraform-verdicts';
import type { ApiKey } from '../api-key';
import type { Cluster } from '../cluster';
import { CheckEngine, HealthCheckOptions } from '../health-check';
import { FileTarget, OutputsTarget, SecretEntryKind } from '../secret-target';
import type { GuideAccess, GuideCluster, GuideKey, GuideModel, GuideNames, GuideTarget } from '../setup-guide/model';

export interface GuideSubject extends IConstruct {
  readonly clusters: Cluster[];
  readonly apiKeys: ApiKey[];
  readonly healthCheckOptions: HealthCheckOptions;
}

export function buildGuideModel(access: GuideSubject): GuideModel {
  const byCluster = new Map<Cluster, GuideCluster>(access.clusters.map((c) => [c, clusterOf(c)]));
  const plans = planSecretTargets(access.apiKeys);
  const targets = new Map<SecretTargetPlan, GuideTarget>(plans.map((p) => [p, targetOf(p)]));
  const keys: GuideKey[] = access.apiKeys.map((key) => {
    const env = key.source._config().inheritedEnvironmentVariable;
    const a = key.access;
    // The access's clusters, in its order (a cluster of another access is reported by synth).
    const clusters = access.clusters.filter((c) => key.clusters.includes(c));
    return {
      name: plainName(key.keyName, 'invalid-name'),
      grants: clusters.map((c) => ({
        cluster: byCluster.get(c)!,
        deliveries: plans.filter((p) => p.keys.includes(key)).map((p) => ({ target: targets.get(p)!, names: entryNames(p, key, c) })),
        ownNames: names.clusterEnvNames(plainName(c.clusterName, 'invalid-name'), clusters.length === 1),
      })),
      variable: env === undefined ? undefined : { name: env.replace(/^TF_VAR_/, ''), environmentVariable: env, declaredByLibrary: key.variable !== undefined },
      access: a ? { mode: a._checkerAccess() as GuideAccess['mode'], read: a.readCollections, readWrite: a.readWriteCollections } : undefined,
      expiresAtOutput: key.expiresAtOutputName,
      ephemeral: key.ephemeral ? { keyVersion: key.keyVersion } : undefined,
      createdOn: key.createdOn === undefined ? undefined : String(key.createdOn),
      rotateAfterDays: key.rotateAfterDays,
      dueOn: rotationDueOn(key.createdOn, key.rotateAfterDays),
    };
  });
  const o = access.healthCheckOptions; // its defaults applied (healthCheckSettings)
  const terraform = o.engine === CheckEngine.TERRAFORM;
  return {
    path: access.node.path,
    // The nearest stack, as TerraformStack.of finds it; none outside a stack.
    stack: [...access.node.scopes].reverse().find((c) => TerraformStack.isStack(c))?.node.id,
    clusters: [...byCluster.values()],
    keys,
    targets: [...targets.values()],
    checks: {
      enabled: o.enabled !== false,
      engine: terraform ? 'terraform' : 'node',
      failureIds: terraform ? terraformFailureIds() : FAILURES.map((f) => f.id),
      header: String(o.header),
      requireAuth: o.requireAuth !== false,
      grpc: o.grpc !== false,
      allowExcessAccess: o.allowExcessAccess === true,
      minValidityDays: o.minValidityDays!,
      runOnEveryDeploy: o.runOnEveryDeploy === true,
    },
  };
}

function clusterOf(cluster: Cluster): GuideCluster {
  const name = plainName(cluster.clusterName, 'invalid-name');
  const parsed = cluster._parsedUrl;
  const known = parsed !== undefined && parsed.problems.length === 0;
  return {
    name,
    known,
    address: known ? cluster.url : `<${name} address>`,
    restEndpoint: known ? cluster.restEndpoint : `<${name} REST endpoint>`,
    grpcEndpoint: known ? cluster.grpcEndpoint : `<${name} gRPC endpoint>`,
    host: known ? parsed.host! : `<${name} host>`,
    restPort: Token.isUnresolved(cluster.restPort) ? urls.DEFAULT_REST_PORT : cluster.restPort,
    grpcPort: Token.isUnresolved(cluster.grpcPort) ? urls.DEFAULT_GRPC_PORT : cluster.grpcPort,
    restOutput: `${cluster.outputPrefix}_rest_endpoint`,
    grpcOutput: `${cluster.outputPrefix}_grpc_endpoint`,
  };
}

function targetOf(plan: SecretTargetPlan): GuideTarget {
  const target = plan.target;
  const description = String(target.description);
  if (target instanceof OutputsTarget) return { description, kind: 'outputs' };
  if (!(target instanceof FileTarget)) return { description, kind: 'custom' };
  const file = target.path;
  if (target.format === 'dotenv') return { description, kind: 'dotenv', file };
  // As the writer names it (assets/writer/json.js sidecarPath), with / as the separator.
  return { description, kind: 'json', file, sidecar: path.posix.join(path.posix.dirname(file), `.${path.posix.basename(file)}${SIDECAR_SUFFIX}`) };
}

/** The names a plan gives a key's entries on a cluster (a URL shared by two keys is written once). */
function entryNames(plan: SecretTargetPlan, key: ApiKey, cluster: Cluster): Partial<GuideNames> {
  const mine = plan.entries.filter((e) => e.clusterName === cluster.clusterName);
  const name = (kind: SecretEntryKind) =>
    (mine.find((x) => x.kind === kind && x.keyName === key.keyName) ?? mine.find((x) => x.kind === kind))?.name;
  return { url: name(SecretEntryKind.REST_URL), grpcUrl: name(SecretEntryKind.GRPC_URL), apiKey: name(SecretEntryKind.API_KEY) };
}
