import { Annotations, Aspects, TerraformResource } from 'cdktf';
import { Construct } from 'constructs';
import { ApiKey, ApiKeyGrant } from './api-key';
import type { ApiKeyOptions } from './api-key-options';
import { Cluster, ClusterOptions } from './cluster';
import { CheckEngine, CheckSettings, HealthCheck, HealthCheckOptions, healthCheckSettings } from './health-check';
import { errors, nameShown, q } from './private/errors';
import { recordFiles } from './private/file-record';
import { buildGuideModel } from './private/guide-model';
import { checkStruct, isObject } from './private/props';
import { names } from './private/runtime';
import { API_KEY_OPTIONS_IN_ACCESS, API_KEY_PROPS, CLUSTER_ACCESS_PROPS, CLUSTER_ACCESS_SYMBOL, SECRET_NAMING } from './private/schemas';
import { planSecretTargets } from './private/secret-plan';
import { bindSecretTargets, targetSignature } from './private/target-binding';
import { TerraformChecks } from './private/terraform-checks';
import { FileTarget } from './secret-target';
import type { SetupGuideOptions } from './setup-guide';
import { registerSetupGuide } from './setup-guide/writer';

/** Properties of `ClusterAccess`. */
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
   * The health checks that prove every key on every granted cluster during `cdktf deploy`.
   * @default - enabled, `api-key` header, 10 s timeout, 3 retries, keys must be enforced, gRPC
   * checked, no access in excess of the declared, no minimum validity, run when their inputs change
   */
  readonly healthCheck?: HealthCheckOptions;

  /**
   * The setup guide `qdrant-setup.md`, written next to the stack's `cdk.tf.json` at synth.
   * @default - enabled, no copy outside the synth output
   */
  readonly setupGuide?: SetupGuideOptions;
}

/**
 * Safe, verified access to Qdrant Cloud clusters: the clusters and the API keys granted to them.
 * Each key's health check proves it on every granted cluster during `cdktf deploy`; only then are
 * its secret targets written.
 *
 * @example
 * new ClusterAccess(stack, 'Qdrant', {
 *   clusters: [{ name: 'prod-eu', url: 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io' }],
 *   apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }],
 * });
 */
export class ClusterAccess extends Construct {
  /** Return whether the given object is a `ClusterAccess` (works across copies of this package). */
  public static isClusterAccess(x: any): x is ClusterAccess {
    return x !== null && typeof x === 'object' && CLUSTER_ACCESS_SYMBOL in x;
  }

  /** The health-check options in force, with their defaults applied. */
  public readonly healthCheckOptions: HealthCheckOptions;

  /** The setup-guide options in force, with their defaults applied. */
  public readonly setupGuideOptions: SetupGuideOptions;

  private readonly _clusters: Cluster[] = [];
  private readonly _apiKeys: ApiKey[] = [];
  private readonly clusterScope: Construct;
  private readonly keyScope: Construct;
  private readonly problems: string[] = [];
  /** Each key's check (its targets wait for it) and its expiry output's gate (waits for them too). */
  private readonly checks = new Map<ApiKey, TerraformResource>();
  private readonly expiryGates = new Map<ApiKey, TerraformResource>();
  private readonly settings: CheckSettings;
  private readonly terraformChecks?: TerraformChecks;
  /** The entry names of each target as bound at the first synth. */
  private boundTargets?: string;

  constructor(scope: Construct, id: string, props: ClusterAccessProps = {}) {
    super(scope, id);
    Object.defineProperty(this, CLUSTER_ACCESS_SYMBOL, { value: true });
    this.problems.push(...checkStruct(props ?? {}, CLUSTER_ACCESS_PROPS, 'ClusterAccess props'));
    const p: ClusterAccessProps = isObject(props) ? props : {};
    this.setupGuideOptions = { enabled: true, ...(isObject(p.setupGuide) ? p.setupGuide : {}) };
    // Not an error: turning the guide off for a while should not make one remove its outputPath too.
    if (this.setupGuideOptions.enabled === false && typeof this.setupGuideOptions.outputPath === 'string') {
      Annotations.of(this).addWarning(errors.guideDisabledOutputPath(this.setupGuideOptions.outputPath));
    }
    this.clusterScope = new Construct(this, 'Clusters');
    this.keyScope = new Construct(this, 'ApiKeys');
    const checks = healthCheckSettings(this, isObject(p.healthCheck) ? p.healthCheck : {}, this.setupGuideOptions.enabled !== false);
    this.healthCheckOptions = checks.options;
    this.settings = checks.settings;
    this.problems.push(...checks.problems);
    if (this.settings.engine === CheckEngine.TERRAFORM && this.settings.enabled) {
      this.terraformChecks = new TerraformChecks(this, 'TerraformChecks', this.settings);
    }

    for (const cluster of Array.isArray(p.clusters) ? p.clusters : []) this.addCluster(cluster);
    (Array.isArray(p.apiKeys) ? p.apiKeys : []).forEach((key, i) => this.addKey(key, `ClusterAccess props.apiKeys[${i}]`));

    this.node.addValidation({
      validate: () => {
        const plans = planSecretTargets(this._apiKeys);
        const problems = [...this.problems, ...plans.flatMap((plan) => plan.problems)];
        if (this.boundTargets !== undefined && this.boundTargets !== targetSignature(plans)) problems.push(errors.changedAfterBinding());
        return problems;
      },
    });
    // Bound once every grant is known: entry names depend on how many clusters a target receives.
    Aspects.of(this).add({ visit: (node) => { if (node === this) this.bindTargets(); } });
    if (this.setupGuideOptions.enabled !== false) registerSetupGuide(this, this.setupGuideOptions, () => buildGuideModel(this));
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
    const id = this.childId(isObject(options) ? options.name : undefined, this._clusters.map((c) => c.clusterName), 'cluster', this.clusterScope);
    const cluster = Cluster._create(this.clusterScope, id, options);
    this._clusters.push(cluster);
    return cluster;
  }

  /** Add an API key and grant it to the clusters (already added) named in `options.clusters`. */
  public addApiKey(options: ApiKeyOptions): ApiKey {
    // A name that may be a key pasted in the wrong place is not shown.
    const name = isObject(options) && typeof options.name === 'string' && nameShown(options.name) ? options.name : undefined;
    return this.addKey(options, name === undefined ? 'addApiKey(options)' : `addApiKey(options) for key ${q(name)}`);
  }

  /** Add a key; `where` names its options in messages (they are checked here, once). */
  private addKey(options: ApiKeyOptions, where: string): ApiKey {
    this.problems.push(...checkStruct(options, API_KEY_OPTIONS_IN_ACCESS, where));
    const isOptions = isObject(options);
    const o: ApiKeyOptions = isOptions ? options : ({} as ApiKeyOptions);
    const id = this.childId(o.name, this._apiKeys.map((k) => k.keyName), 'key', this.keyScope);
    const clustersValid = o.clusters === undefined || (Array.isArray(o.clusters) && o.clusters.every((c) => typeof c === 'string'));
    // The key's own options (API_KEY_PROPS), as given.
    const own = Object.fromEntries(Object.keys(API_KEY_PROPS.fields).map((k) => [k, o[k as keyof ApiKeyOptions]])) as unknown as ApiKeyOptions;
    const key = ApiKey._create(this.keyScope, id, own, {
      optionsReported: !isOptions,
      clustersReported: !clustersValid,
      guideFile: this.settings.guideFile,
    });
    this._apiKeys.push(key);
    if (Array.isArray(o.secretTargets)) {
      // A refused naming: the targets are still checked, but not attached.
      const namingValid = o.secretNaming === undefined || checkStruct(o.secretNaming, SECRET_NAMING, 'secretNaming').length === 0;
      for (const target of o.secretTargets) {
        if (namingValid) key.addSecretTarget(target, o.secretNaming);
        else key._checkSecretTarget(target);
      }
    }
    if (isObject(o.secretNaming) && (o.secretTargets === undefined || (Array.isArray(o.secretTargets) && o.secretTargets.length === 0))) {
      this.problems.push(errors.namingWithoutTargets(where));
    }
    if (Array.isArray(o.clusters)) {
      for (const name of o.clusters.filter((c): c is string => typeof c === 'string')) {
        const cluster = this.findCluster(name);
        if (cluster) key.grant(cluster);
        else key._addUnknownCluster(name, this._clusters.map((c) => c.clusterName));
      }
    }
    if (this.healthCheckOptions.enabled !== false) {
      // Terraform refuses an ephemeral value in request_headers (measured, Terraform 1.11.4 and OpenTofu 1.12.6).
      if (this.terraformChecks && key.ephemeral) this.problems.push(errors.terraformEngineEphemeral(key.keyName));
      const check = this.terraformChecks ? this.terraformChecks.addKey(key) : new HealthCheck(key, 'HealthCheck', key, this.settings).resource;
      this.checks.set(key, check);
      const gate = key._gateExpiry(check);
      if (gate) this.expiryGates.set(key, gate);
    }
    return key;
  }

  /** Builds the Terraform engine's checks, then binds each target once and records its files. */
  private bindTargets(): void {
    if (this.boundTargets !== undefined) return;
    this.terraformChecks?.build();
    const plans = planSecretTargets(this._apiKeys);
    this.boundTargets = targetSignature(plans);
    const terraformEngine = this.settings.engine === CheckEngine.TERRAFORM;
    const files = terraformEngine ? plans.filter((p) => p.target instanceof FileTarget) : [];
    this.problems.push(...files.map((p) => errors.terraformEngineFileTarget(p.target.description)));
    const { bound, problems } = bindSecretTargets(this, plans.filter((p) => !files.includes(p)), this.checks, this.expiryGates);
    this.problems.push(...problems);
    if (!terraformEngine) recordFiles(this, bound);
  }

  /** A new cluster's or key's construct id: its name, else a placeholder and a validation error (one synth reports all). */
  private childId(name: unknown, existing: string[], kind: 'cluster' | 'key', scope: Construct): string {
    let problem: string | undefined;
    if (typeof name === 'string' && existing.includes(name)) {
      problem = errors.duplicateName(kind, name);
    } else if (names.isValidName(name)) {
      const clash = existing.find((other) => names.collisionKey(other) === names.collisionKey(name));
      if (clash !== undefined) problem = errors.collidingNames(kind, clash, name);
    }
    if (problem) this.problems.push(problem);
    // A "." is not allowed in names, so placeholders never clash. constructs keeps children in a
    // plain object, where "constructor" or "toString" would be taken: such a name gets `<kind>.<name>`.
    if (!problem && names.isValidName(name)) return name in Object.prototype ? `${kind}.${name}` : name;
    let n = 1;
    while (scope.node.tryFindChild(`${kind}.${n}`)) n++;
    return `${kind}.${n}`;
  }
}
