import * as fs from 'fs';
import * as path from 'path';
import { Aspects, AssetType, TerraformAsset, Token, dependable } from 'cdktf';
import { Construct } from 'constructs';
import { ApiKey, ApiKeyGrant, ApiKeyOptions } from './api-key';
import { Cluster, ClusterOptions } from './cluster';
import { HealthCheck, HealthCheckOptions } from './health-check';
import { registerSetupGuide } from './private/guide-writer';
import { collisionKey, isValidName, q } from './private/naming';
import { SecretTargetPlan, planSecretTargets } from './private/secret-plan';
import { SetupGuideOptions } from './setup-guide';

/**
 * Properties of `ClusterAccess`.
 */
export interface ClusterAccessProps {
  /**
   * The clusters. More can be added with `addCluster()`.
   * @default - none
   */
  readonly clusters?: ClusterOptions[];

  /**
   * The API keys and the clusters each one is granted to. More can be added with `addApiKey()`.
   * @default - none
   */
  readonly apiKeys?: ApiKeyOptions[];

  /**
   * The health check that proves every key on every granted cluster during `cdktf deploy`.
   * @default - enabled, `api-key` header, 10 s timeout, 3 retries, keys must be enforced
   */
  readonly healthCheck?: HealthCheckOptions;

  /**
   * The setup guide `qdrant-setup.md`, written next to the stack's `cdk.tf.json` at synth.
   * @default - enabled, no copy outside the synth output
   */
  readonly setupGuide?: SetupGuideOptions;
}

/**
 * Safe, verified access to Qdrant Cloud clusters.
 *
 * Models the clusters and the API keys granted to them (one key may cover many clusters) and,
 * for every (key, cluster) grant, adds a health check that runs during `cdktf deploy` and
 * proves that the cluster is Qdrant, that it accepts the key, and that it enforces keys.
 *
 * @example
 * new ClusterAccess(stack, 'Qdrant', {
 *   clusters: [{ name: 'prod-eu', url: 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io' }],
 *   apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }],
 * });
 */
export class ClusterAccess extends Construct {
  /**
   * Return whether the given object is a `ClusterAccess` (works across copies of this package).
   */
  public static isClusterAccess(x: any): x is ClusterAccess {
    return x !== null && typeof x === 'object' && CLUSTER_ACCESS_SYMBOL in x;
  }

  /** The health-check options in force. */
  public readonly healthCheckOptions: HealthCheckOptions;

  private readonly _clusters: Cluster[] = [];
  private readonly _apiKeys: ApiKey[] = [];
  private readonly clusterScope: Construct;
  private readonly keyScope: Construct;
  private readonly problems: string[] = [];
  private readonly healthChecks = new Map<ApiKey, HealthCheck[]>();
  /** The entry names of each target as bound at the first synth. */
  private boundTargets?: string;
  private checkerAsset?: TerraformAsset;
  private caAsset?: TerraformAsset;

  constructor(scope: Construct, id: string, props: ClusterAccessProps = {}) {
    super(scope, id);
    Object.defineProperty(this, CLUSTER_ACCESS_SYMBOL, { value: true });
    this.healthCheckOptions = props.healthCheck ?? {};
    this.clusterScope = new Construct(this, 'Clusters');
    this.keyScope = new Construct(this, 'ApiKeys');
    this.problems.push(...validateHealthCheckOptions(this.healthCheckOptions));

    for (const cluster of props.clusters ?? []) this.addCluster(cluster);
    for (const key of props.apiKeys ?? []) this.addApiKey(key);

    this.node.addValidation({
      validate: () => {
        const plans = planSecretTargets(this._apiKeys);
        const errors = [...this.problems, ...plans.flatMap((p) => p.problems)];
        if (this.boundTargets !== undefined && this.boundTargets !== targetSignature(plans)) {
          errors.push('keys, grants or secret targets changed after this stack was first synthesized, so the targets were bound ' +
            'with other entries; make every change before the first synth (or build a new stack)');
        }
        return errors;
      },
    });
    // Secret targets are bound at synth, when every key and grant is known: the entry names
    // depend on how many clusters each target receives.
    Aspects.of(this).add({ visit: (node) => { if (node === this) this.bindSecretTargets(); } });
    if (props.setupGuide?.enabled !== false) registerSetupGuide(this, props.setupGuide ?? {});
  }

  /** The clusters, in the order they were added. */
  public get clusters(): Cluster[] {
    return [...this._clusters];
  }

  /** The API keys, in the order they were added. */
  public get apiKeys(): ApiKey[] {
    return [...this._apiKeys];
  }

  /** Every (key, cluster) pair, by key then cluster. */
  public get grants(): ApiKeyGrant[] {
    return this._apiKeys.flatMap((key) => key.grants);
  }

  /**
   * Find a cluster by its name.
   * @returns the cluster, or undefined when there is none of that name
   */
  public findCluster(name: string): Cluster | undefined {
    return this._clusters.find((c) => c.clusterName === name);
  }

  /** Add a cluster. */
  public addCluster(options: ClusterOptions): Cluster {
    const id = this.childId(options.name, this._clusters.map((c) => c.clusterName), 'cluster', this.clusterScope);
    const cluster = new Cluster(this.clusterScope, id, options);
    this._clusters.push(cluster);
    return cluster;
  }

  /**
   * Add an API key and grant it to the clusters named in `options.clusters`. Those clusters
   * must already be added.
   */
  public addApiKey(options: ApiKeyOptions): ApiKey {
    const id = this.childId(options.name, this._apiKeys.map((k) => k.keyName), 'key', this.keyScope);
    const key = new ApiKey(this.keyScope, id, {
      name: options.name,
      source: options.source,
      createdOn: options.createdOn,
      rotateAfterDays: options.rotateAfterDays,
    });
    this._apiKeys.push(key);
    for (const target of options.secretTargets ?? []) key.addSecretTarget(target, options.secretNaming);
    for (const name of options.clusters ?? []) {
      const cluster = this.findCluster(name);
      if (cluster) key.grant(cluster);
      else key._addUnknownCluster(name, this._clusters.map((c) => c.clusterName));
    }
    if (this.healthCheckOptions.enabled !== false) {
      key._addGrantListener({ onGrant: (grant) => this.addHealthCheck(grant) });
    }
    return key;
  }

  private addHealthCheck(grant: ApiKeyGrant): void {
    const checks = (grant.apiKey.node.tryFindChild('HealthChecks') as Construct | undefined)
      ?? new Construct(grant.apiKey, 'HealthChecks');
    const check = new HealthCheck(checks, grant.cluster.node.id, {
      grant,
      checker: this.checker(),
      caFile: this.caFile(),
      options: this.healthCheckOptions,
    });
    this.healthChecks.set(grant.apiKey, [...(this.healthChecks.get(grant.apiKey) ?? []), check]);
  }

  /** Bind each secret target once, and make the health checks of its keys wait for it. */
  private bindSecretTargets(): void {
    if (this.boundTargets !== undefined) return;
    const plans = planSecretTargets(this._apiKeys);
    this.boundTargets = targetSignature(plans);
    if (plans.length === 0) return;
    const scope = new Construct(this, 'SecretTargets');
    for (const plan of plans) {
      const id = uniqueId(scope, plan.target.description);
      const config = plan.target.bind(new Construct(scope, id), { entries: plan.entries, owner: this.node.path });
      const deps = (config.dependables ?? []).map((d) => dependable(d));
      if (deps.length === 0) continue;
      for (const key of plan.keys) {
        for (const check of this.healthChecks.get(key) ?? []) {
          check.resource.dependsOn = [...(check.resource.dependsOn ?? []), ...deps];
        }
      }
    }
  }

  private checker(): TerraformAsset {
    this.checkerAsset ??= new TerraformAsset(this, 'Checker', {
      path: CHECKER_DIR,
      type: AssetType.DIRECTORY,
    });
    return this.checkerAsset;
  }

  private caFile(): TerraformAsset | undefined {
    const file = this.healthCheckOptions.caFile;
    if (file === undefined || this.caAsset || !fs.existsSync(path.resolve(file))) return this.caAsset;
    this.caAsset = new TerraformAsset(this, 'CaFile', { path: path.resolve(file), type: AssetType.FILE });
    return this.caAsset;
  }

  /**
   * The construct id for a new cluster or key: its name, unless the name is invalid or taken.
   * Such names get a placeholder id and a validation error instead of a constructs exception,
   * so that one synth reports every problem.
   */
  private childId(name: string, existing: string[], kind: string, scope: Construct): string {
    let problem: string | undefined;
    if (existing.includes(name)) {
      problem = `duplicate ${kind} name ${q(name)}: each ${kind} needs a unique name within one ClusterAccess; rename or remove one`;
    } else {
      const clash = existing.find((other) => isValidName(name) && collisionKey(other) === collisionKey(name));
      if (clash !== undefined) {
        problem = `${kind} names ${q(clash)} and ${q(name)} collide: names that differ only in case or "-"/"_" ` +
          'give the same Terraform and environment-variable names; rename one of them';
      }
    }
    if (problem) this.problems.push(problem);
    if (!problem && isValidName(name)) return name;
    let n = 1;
    while (scope.node.tryFindChild(`${kind}-${n}`)) n++;
    return `${kind}-${n}`;
  }
}

/** What the targets receive, to notice changes made after they were bound. */
function targetSignature(plans: SecretTargetPlan[]): string {
  return JSON.stringify(plans.map((p) => [p.target.description, p.entries.map((e) => e.name)]));
}

/** A construct id from a description: readable, stable across runs, unique within scope. */
function uniqueId(scope: Construct, description: string): string {
  const base = description.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'target';
  let id = base;
  for (let n = 2; scope.node.tryFindChild(id); n++) id = `${base}-${n}`;
  return id;
}

function validateHealthCheckOptions(o: HealthCheckOptions): string[] {
  const errors: string[] = [];
  const t = o.timeoutSeconds;
  if (t !== undefined && !Token.isUnresolved(t) && !(t >= 1 && t <= 300)) {
    errors.push(`healthCheck.timeoutSeconds ${t} is outside 1-300; use a number of seconds such as 10`);
  }
  const r = o.retries;
  if (r !== undefined && !Token.isUnresolved(r) && !(Number.isInteger(r) && r >= 0 && r <= 10)) {
    errors.push(`healthCheck.retries ${r} is not a whole number in 0-10; use e.g. 3`);
  }
  if (o.caFile !== undefined && !fs.existsSync(path.resolve(o.caFile))) {
    errors.push(`healthCheck.caFile ${q(o.caFile)} does not exist (resolved to ${q(path.resolve(o.caFile))}); give the path of a PEM file`);
  }
  return errors;
}

/** The runtime checker, shipped in the package next to lib/ (assets/ is never compiled by jsii). */
const CHECKER_DIR = path.join(__dirname, '..', 'assets', 'checker');

const CLUSTER_ACCESS_SYMBOL = Symbol.for('cdktf-qdrant-cluster-access.ClusterAccess');
