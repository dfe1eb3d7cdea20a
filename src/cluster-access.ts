import * as path from 'path';
import { Annotations, AssetType, Aspects, ITerraformDependable, TerraformAsset, TerraformDataSource, TerraformModule, TerraformOutput, TerraformResource, TerraformStack, Token, dependable } from 'cdktf';
import { Construct } from 'constructs';
import { ApiKey, ApiKeyGrant, ApiKeyOptions } from './api-key';
import { Cluster, ClusterOptions } from './cluster';
import { ApiKeyHeader, HealthCheckOptions } from './health-check';
import { errors, nameShown, q } from './private/errors';
import { FileTarget } from './private/file-target';
import { DEPLOY_COMMAND } from './private/framework';
import { CheckSettings, KeyCheck } from './private/key-check';
import { NullResource } from './private/null-resource';
import { OutputsTarget, isGatedOutput } from './private/outputs-target';
import { checkStruct } from './private/props';
import { resolveIn } from './private/references';
import { CLI, names, protocol, readCaFile } from './private/runtime';
import { API_KEY_OPTIONS_IN_ACCESS, CLUSTER_ACCESS_PROPS, CLUSTER_ACCESS_SYMBOL, SECRET_NAMING } from './private/schemas';
import { SecretTargetPlan, planSecretTargets } from './private/secret-plan';
import { stateOwner, terraformLiteralProblem } from './private/stack-strings';
import { StackSupport } from './private/stack-support';
import type { SetupGuideOptions } from './setup-guide';
import { registerSetupGuide } from './setup-guide/writer';

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
 * Safe, verified access to Qdrant Cloud clusters.
 *
 * Models the clusters and the API keys granted to them (one key may cover many clusters) and,
 * for every key, adds a health check that runs during `cdktf deploy` and proves on every cluster
 * the key is granted to that the cluster is Qdrant, that it accepts the key, that it enforces
 * keys, and that the key has the access declared for it. Only then are the key's secret targets
 * written.
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

  /** The health-check options in force, with their defaults applied. */
  public readonly healthCheckOptions: HealthCheckOptions;

  /** The setup-guide options in force, with their defaults applied. */
  public readonly setupGuideOptions: SetupGuideOptions;

  private readonly _clusters: Cluster[] = [];
  private readonly _apiKeys: ApiKey[] = [];
  private readonly clusterScope: Construct;
  private readonly keyScope: Construct;
  private readonly problems: string[] = [];
  private readonly checks = new Map<ApiKey, KeyCheck>();
  /** The gate of each checked key's expiry output: it waits for the key's targets too. */
  private readonly expiryGates = new Map<ApiKey, TerraformResource>();
  private readonly settings: CheckSettings;
  /** The entry names of each target as bound at the first synth. */
  private boundTargets?: string;

  constructor(scope: Construct, id: string, props: ClusterAccessProps = {}) {
    super(scope, id);
    Object.defineProperty(this, CLUSTER_ACCESS_SYMBOL, { value: true });
    this.problems.push(...checkStruct(props ?? {}, CLUSTER_ACCESS_PROPS, 'ClusterAccess props'));
    const p: ClusterAccessProps = isObject(props) ? props : {};
    this.healthCheckOptions = withHealthCheckDefaults(isObject(p.healthCheck) ? p.healthCheck : {});
    this.setupGuideOptions = { enabled: true, ...(isObject(p.setupGuide) ? p.setupGuide : {}) };
    // Not an error: turning the guide off for a while should not make one remove its outputPath too.
    if (this.setupGuideOptions.enabled === false && typeof this.setupGuideOptions.outputPath === 'string') {
      Annotations.of(this).addWarning(errors.guideDisabledOutputPath(this.setupGuideOptions.outputPath));
    }
    this.problems.push(...healthCheckProblems(this.healthCheckOptions));
    this.clusterScope = new Construct(this, 'Clusters');
    this.keyScope = new Construct(this, 'ApiKeys');
    this.settings = {
      header: this.healthCheckOptions.header!,
      timeoutSeconds: this.healthCheckOptions.timeoutSeconds!,
      retries: this.healthCheckOptions.retries!,
      requireAuth: this.healthCheckOptions.requireAuth!,
      grpc: this.healthCheckOptions.grpc!,
      allowExcessAccess: this.healthCheckOptions.allowExcessAccess!,
      minValidityDays: this.healthCheckOptions.minValidityDays!,
      runOnEveryDeploy: this.healthCheckOptions.runOnEveryDeploy!,
      caFile: this.caAsset(),
      deployCommand: DEPLOY_COMMAND,
      guide: this.setupGuideOptions.enabled !== false,
    };

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
    // Secret targets are bound at synth, when every key and grant is known: the entry names
    // depend on how many clusters each target receives.
    Aspects.of(this).add({ visit: (node) => { if (node === this) this.bindSecretTargets(); } });
    if (this.setupGuideOptions.enabled !== false) registerSetupGuide(this);
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
    const name = isObject(options) ? options.name : undefined;
    const id = this.childId(name, this._clusters.map((c) => c.clusterName), 'cluster', this.clusterScope);
    const cluster = new Cluster(this.clusterScope, id, options);
    this._clusters.push(cluster);
    return cluster;
  }

  /**
   * Add an API key and grant it to the clusters named in `options.clusters`. Those clusters
   * must already be added.
   */
  public addApiKey(options: ApiKeyOptions): ApiKey {
    // A name that may be a key pasted in the wrong place is not shown.
    const name = isObject(options) && typeof options.name === 'string' && nameShown(options.name) ? options.name : undefined;
    return this.addKey(options, name === undefined ? 'addApiKey(options)' : `addApiKey(options) for key ${q(name)}`);
  }

  /** Add a key; `where` names its options in messages (they are checked here, once). */
  private addKey(options: ApiKeyOptions, where: string): ApiKey {
    const optionProblems = checkStruct(options, API_KEY_OPTIONS_IN_ACCESS, where);
    this.problems.push(...optionProblems);
    const isOptions = isObject(options);
    const o: ApiKeyOptions = isOptions ? options : ({} as ApiKeyOptions);
    const id = this.childId(o.name, this._apiKeys.map((k) => k.keyName), 'key', this.keyScope);
    const key = new ApiKey(this.keyScope, id, {
      name: o.name,
      source: o.source,
      createdOn: o.createdOn,
      rotateAfterDays: o.rotateAfterDays,
      access: o.access,
    });
    const clustersValid = o.clusters === undefined || (Array.isArray(o.clusters) && o.clusters.every((c) => typeof c === 'string'));
    key._adopt({
      optionsReported: !isOptions,
      clustersReported: !clustersValid,
      guideFile: this.settings.guide ? StackSupport.of(this).guideFile() : undefined,
    });
    this._apiKeys.push(key);
    if (Array.isArray(o.secretTargets)) {
      // A naming refused above: the targets are still checked, but not attached with another naming.
      const namingValid = o.secretNaming === undefined || checkStruct(o.secretNaming, SECRET_NAMING, 'secretNaming').length === 0;
      for (const target of o.secretTargets) {
        if (namingValid) key.addSecretTarget(target, o.secretNaming);
        else key._checkSecretTarget(target);
      }
    }
    if (isObject(o.secretNaming) && (o.secretTargets === undefined || (Array.isArray(o.secretTargets) && o.secretTargets.length === 0))) {
      // It would be dropped without a word: a later addSecretTarget(target) does not see it.
      this.problems.push(errors.namingWithoutTargets(where));
    }
    if (Array.isArray(o.clusters)) {
      // Names that are not strings are reported above, as the type of clusters.
      for (const name of o.clusters.filter((c): c is string => typeof c === 'string')) {
        const cluster = this.findCluster(name);
        if (cluster) key.grant(cluster);
        else key._addUnknownCluster(name, this._clusters.map((c) => c.clusterName));
      }
    }
    if (this.healthCheckOptions.enabled !== false) {
      const check = new KeyCheck(key, 'HealthCheck', key, this.settings);
      this.checks.set(key, check);
      this.expiryGates.set(key, key._gateExpiry(check.resource));
    }
    return key;
  }

  /**
   * The health check of a key, when checks are enabled: secret targets of the key depend on it.
   * @internal
   */
  public _checkOf(key: ApiKey): TerraformResource | undefined {
    return this.checks.get(key)?.resource;
  }

  /** Bind each secret target once, after the checks of its keys. */
  private bindSecretTargets(): void {
    if (this.boundTargets !== undefined) return;
    const plans = planSecretTargets(this._apiKeys);
    this.boundTargets = targetSignature(plans);
    // Where each target is bound (its construct path): the record of the files names it.
    const boundAt = new Map<SecretTargetPlan, string>();
    if (plans.length === 0) {
      this.recordFiles(plans, boundAt);
      return;
    }
    const scope = new Construct(this, 'SecretTargets');
    for (const plan of plans) {
      const checks: TerraformResource[] = [];
      for (const k of plan.keys) {
        const check = this.checks.get(k);
        if (check) checks.push(check.resource);
      }
      const bindScope = new Construct(scope, uniqueId(scope, plan.target.description));
      boundAt.set(plan, bindScope.node.path);
      const config: unknown = plan.target.bind(bindScope, { entries: plan.entries, owner: this.node.path, dependsOn: checks });
      // Whatever the target did: the resources, data sources and modules it created here, and
      // those it returned, wait for the checks. The result is checked by value (any language).
      const waiting: Waiting[] = bindScope.node.findAll().filter(canWait);
      const returned = isObject(config) ? config.dependables : undefined;
      const description = plan.target.description;
      if (returned !== undefined && returned !== null && !Array.isArray(returned)) {
        this.problems.push(errors.dependablesNotList(description, returned));
      }
      const stack = TerraformStack.of(this);
      for (const d of Array.isArray(returned) ? returned as unknown[] : []) {
        if (!canWait(d)) {
          // Nothing to wait for without checks (healthCheck.enabled false): accepted, as before.
          if (checks.length > 0) this.problems.push(errors.dependableCannotWait(description, d));
        } else if (TerraformStack.of(d) !== stack) {
          // Silently dropped when that stack was synthesized already, else a depends_on to nothing it declares.
          if (checks.length > 0) this.problems.push(errors.dependableOtherStack(description, d, TerraformStack.of(d).node.path, stack.node.path));
        } else {
          waiting.push(d);
        }
      }
      if (checks.length > 0) {
        for (const node of waiting) waitFor(node, checks);
        // A key's expiry date shows once its targets hold it (a write can fail after the check passed).
        for (const k of plan.keys) {
          const gate = this.expiryGates.get(k);
          if (gate) waitFor(gate, waiting);
        }
        // Terraform writes an output even when a check fails (and after a failed apply, from the
        // prior state and the new variables), whatever resources its value also refers to: only
        // terraformOutputs() holds its values back, through its gate. One returned is reported above.
        for (const output of bindScope.node.findAll()) {
          if (TerraformOutput.isTerraformOutput(output) && !isGatedOutput(output) && !(Array.isArray(returned) && returned.includes(output))) {
            this.problems.push(errors.outputCannotWait(description, output));
          }
        }
      }
    }
    for (const group of clashingTargets(plans)) Annotations.of(scope).addWarning(errors.targetsByOrder(group));
    this.recordFiles(plans, boundAt);
  }

  /**
   * The files this ClusterAccess writes to, in one resource (`Files`). A file that drops out (the
   * last key writing to it removed, its target removed or moved to another file or format) keeps
   * the owner's entries otherwise: its Registration left the configuration, and Terraform runs no
   * destroy step for that. A change of the list replaces this resource, and the destroy step of
   * the old one runs the current writer with the old list (from the state) and the current one:
   * it takes the owner's entries out of each file that is no longer listed. That runs early in the
   * deploy, before the checks (Terraform runs no destroy step for the deposed object of a
   * create_before_destroy replacement, so it cannot wait for them); it only touches files that no
   * target of this ClusterAccess writes to any more. Created even without file targets and
   * checks, so that removing the last file target (or every key) still cleans up.
   *
   * Each file is listed with the path of the target that writes it. A dropped file whose target
   * is still configured (the same target, now for another absolute path: the project moved) is
   * left to that target's Registration, which this deploy replaces, so its destroy step removes
   * the entries: both removing them made the second find nothing, and warn for a JSON file that
   * the record of what it wrote was missing.
   */
  private recordFiles(plans: SecretTargetPlan[], boundAt: Map<SecretTargetPlan, string>): void {
    const files = plans.filter((p) => p.target instanceof FileTarget)
      .map((p) => ({ file: path.resolve((p.target as FileTarget).path), format: (p.target as FileTarget).format, target: boundAt.get(p) }))
      .sort((a, b) => (`${a.format}:${a.file}` < `${b.format}:${b.file}` ? -1 : 1));
    // Without a valid owner the file targets are refused; the writer would refuse this one at destroy.
    if (!names.isOwner(this.node.path)) return;
    // A path Terraform or a shell would read as more than text is reported by its target.
    if (files.some((f) => terraformLiteralProblem(f.file))) return;
    const support = StackSupport.of(this);
    support.useNullProvider();
    const listed = JSON.stringify(files);
    const remove = protocol.invocation('remove-dropped', { owner: '${self.triggers.owner}' }, `${support.runtime.path}/${CLI.writer}`);
    new NullResource(this, 'Files', {
      triggers: { owner: stateOwner(this.node.path), files: listed },
      provisioners: [{
        type: 'local-exec',
        when: 'destroy',
        command: remove.command,
        environment: { ...remove.environment, [protocol.WRITER_ENV.files]: '${self.triggers.files}', [protocol.WRITER_ENV.keepFiles]: listed },
      }],
    });
  }

  private caAsset(): TerraformAsset | undefined {
    const file: unknown = this.healthCheckOptions.caFile;
    // Not a string (reported by the props check), a token (reported with the file's problems), or a
    // file with problems: nothing to copy.
    if (typeof file !== 'string' || Token.isUnresolved(file) || caFileProblems(file).length > 0) return undefined;
    const asset = new TerraformAsset(this, 'CaFile', { path: path.resolve(file), type: AssetType.FILE });
    if (terraformLiteralProblem(asset.path)) this.problems.push(errors.unsafePath('healthCheck.caFile, copied into the stack as', asset.path));
    return asset;
  }

  /**
   * The construct id for a new cluster or key: its name, unless the name is invalid or taken.
   * Such names get a placeholder id and a validation error instead of a constructs exception,
   * so that one synth reports every problem.
   */
  private childId(name: unknown, existing: string[], kind: 'cluster' | 'key', scope: Construct): string {
    let problem: string | undefined;
    if (typeof name === 'string' && existing.includes(name)) {
      problem = errors.duplicateName(kind, name);
    } else if (names.isValidName(name)) {
      const clash = existing.find((other) => names.collisionKey(other) === names.collisionKey(name));
      if (clash !== undefined) problem = errors.collidingNames(kind, clash, name);
    }
    if (problem) this.problems.push(problem);
    if (!problem && names.isValidName(name)) return name;
    // A "." is not allowed in names, so a placeholder never takes the id of a valid name.
    let n = 1;
    while (scope.node.tryFindChild(`${kind}.${n}`)) n++;
    return `${kind}.${n}`;
  }
}

function isObject(x: unknown): x is Record<string, any> {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

/** What can wait for the checks: a resource, a data source (read at apply, after them) or a module. */
type Waiting = TerraformResource | TerraformDataSource | TerraformModule;

/** An output cannot wait: Terraform writes it even when a dependency failed. */
function canWait(x: unknown): x is Waiting {
  return TerraformResource.isTerraformResource(x) || TerraformDataSource.isTerraformDataSource(x) || isModule(x);
}

/** A TerraformModule, possibly from another copy of cdktf (so by shape, not instanceof; resources and data sources carry a symbol). */
function isModule(x: unknown): x is TerraformModule {
  if (x instanceof TerraformModule) return true;
  const m = x as { source?: unknown; interpolationForOutput?: unknown; addProvider?: unknown; friendlyUniqueId?: unknown } | null;
  return m !== null && typeof m === 'object' && typeof m.source === 'string' && typeof m.interpolationForOutput === 'function' &&
    typeof m.addProvider === 'function' && typeof m.friendlyUniqueId === 'string';
}

/** Makes a resource, data source or module depend on these (the checks, or the targets' resources), each once. */
function waitFor(node: Waiting, on: ITerraformDependable[]): void {
  const stack = TerraformStack.of(node);
  const present = new Set((node.dependsOn ?? []).map((d) => resolveIn(stack, d)));
  const missing = on.map((c) => dependable(c)).filter((d) => {
    const ref = resolveIn(stack, d);
    if (present.has(ref)) return false;
    present.add(ref);
    return true;
  });
  if (missing.length > 0) node.dependsOn = [...(node.dependsOn ?? []), ...missing];
}

/** What the targets receive, to notice changes made after they were bound. */
function targetSignature(plans: SecretTargetPlan[]): string {
  return JSON.stringify(plans.map((p) => [p.target.description, p.entries.map((e) => e.name)]));
}

/** A construct id from a description: readable, stable across runs, unique within scope. */
function uniqueId(scope: Construct, description: string): string {
  const base = baseId(description);
  let id = base;
  for (let n = 2; scope.node.tryFindChild(id); n++) id = `${base}-${n}`;
  return id;
}

/** The readable part of a target's construct id: its description, cleaned and cut to 60 characters. */
function baseId(description: string): string {
  return String(description).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'target';
}

/**
 * Descriptions of targets that share their construct id's base with another target: only their
 * order tells them apart (`…-2`), so reordering keys swaps their Terraform addresses. Their ids
 * are kept as they are (changing them would move every such target once); they are warned about.
 */
function clashingTargets(plans: SecretTargetPlan[]): string[][] {
  const byBase = new Map<string, string[]>();
  // terraformOutputs() targets: their outputs are named by entry, and a moved gate replaces nothing that matters.
  for (const p of plans.filter((x) => !(x.target instanceof OutputsTarget))) {
    const base = baseId(p.target.description);
    byBase.set(base, [...(byBase.get(base) ?? []), String(p.target.description)]);
  }
  return [...byBase.values()].filter((group) => group.length > 1);
}

/** The health-check options with every default filled in. */
function withHealthCheckDefaults(o: HealthCheckOptions): HealthCheckOptions {
  return {
    enabled: o.enabled ?? true,
    header: o.header ?? ApiKeyHeader.API_KEY,
    timeoutSeconds: o.timeoutSeconds ?? protocol.CHECK_OPTIONS.timeout.default,
    retries: o.retries ?? protocol.CHECK_OPTIONS.retries.default,
    requireAuth: o.requireAuth ?? true,
    caFile: o.caFile,
    runOnEveryDeploy: o.runOnEveryDeploy ?? false,
    grpc: o.grpc ?? true,
    allowExcessAccess: o.allowExcessAccess ?? false,
    minValidityDays: o.minValidityDays ?? protocol.CHECK_OPTIONS.minValidityDays.default,
  };
}

/** Ranges from the checker's own option specs: synth and deploy cannot disagree. */
function healthCheckProblems(o: HealthCheckOptions): string[] {
  const problems: string[] = [];
  const specs = protocol.CHECK_OPTIONS;
  const ranged: [keyof HealthCheckOptions, typeof specs.timeout, boolean, number][] = [
    ['timeoutSeconds', specs.timeout, false, 10],
    ['retries', specs.retries, true, 3],
    ['minValidityDays', specs.minValidityDays, true, 14],
  ];
  for (const [prop, spec, integer, example] of ranged) {
    const v = o[prop];
    // Wrong types (NaN among them) are reported by the props check.
    if (typeof v !== 'number' || Number.isNaN(v)) continue;
    // The values go into the checker's options, its trigger hash and the setup guide: literals only.
    if (Token.isUnresolved(v)) {
      problems.push(errors.healthCheckToken(prop, example));
      continue;
    }
    if (!(v >= spec.min && v <= spec.max && (!integer || Number.isInteger(v)))) {
      problems.push(errors.healthCheckRange(prop, v, spec.min, spec.max, integer, example));
    }
  }
  if (typeof o.caFile === 'string') problems.push(...caFileProblems(o.caFile));
  return problems;
}

function caFileProblems(file: string): string[] {
  if (Token.isUnresolved(file)) return [errors.caFileToken()];
  const resolved = path.resolve(file);
  if (terraformLiteralProblem(resolved)) return [errors.unsafePath('healthCheck.caFile', resolved)];
  // The runtime's rule for a CA file (assets/runtime/ca-file.ts), the one --ca meets at deploy.
  const ca = readCaFile(resolved);
  if ('pem' in ca) return [];
  switch (ca.problem) {
    case 'unreadable': return [ca.missing ? errors.caFileMissing(file, resolved) : errors.caFileUnreadable(file, ca.detail)];
    case 'not-regular': return [errors.caFileNotRegular(file)];
    case 'too-large': return [errors.caFileTooLarge(file, ca.size)];
    default: return [errors.caFileNotPem(file)];
  }
}

