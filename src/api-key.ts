import { Annotations, Lazy, TerraformResource, TerraformStack, TerraformVariable } from 'cdktf';
import { Construct } from 'constructs';
import type { ApiKeyOptions } from './api-key-options';
import { ApiKeySource } from './api-key-source';
import { Cluster } from './cluster';
import { KeyAccess } from './key-access';
import { ephemeralProblems, isEphemeralVariable, keyTriggers } from './private/ephemeral';
import { errors, nameShown, plainName } from './private/errors';
import { KeyExpiry } from './private/key-expiry';
import { checkStruct, onlyByFactory } from './private/props';
import { DEFAULT_ROTATE_AFTER_DAYS, rotationProblems, warnIfRotationDue } from './private/rotation';
import { names } from './private/runtime';
import { API_KEY_PROPS, CLUSTER_ACCESS_SYMBOL, SECRET_NAMING, TARGET_ARGUMENT, isApiKeySource, isKeyAccess } from './private/schemas';
import { AppSupport, StackSupport, isSibling } from './private/stack-support';
import { ISecretTarget, SecretNaming } from './secret-target';

/** One (key, cluster) pair: the key is granted to the cluster. */
export interface ApiKeyGrant {
  /** The key. */
  readonly apiKey: ApiKey;
  /** The cluster the key is granted to. */
  readonly cluster: Cluster;
}

/**
 * One Qdrant API key, created in the Qdrant Cloud console and granted to clusters; the stack holds
 * only a reference to it (`ApiKeySource`). Created through `ClusterAccess`.
 */
export class ApiKey extends Construct {
  /** Return whether the given object is an `ApiKey` (works across copies of this package). */
  public static isApiKey(x: any): x is ApiKey {
    return x !== null && typeof x === 'object' && API_KEY_SYMBOL in x;
  }

  /** @internal A key of a `ClusterAccess`; `reported`: what the ClusterAccess reported already (not repeated). */
  public static _create(scope: Construct, id: string, props: ApiKeyOptions, reported: Reported): ApiKey {
    return new ApiKey(scope, id, props, reported, FACTORY);
  }

  /** The logical name, e.g. `search-api`. */
  public readonly keyName: string;

  /** Where the key comes from. */
  public readonly source: ApiKeySource;

  /**
   * The sensitive variable created for this key when no `source` was given.
   * @default - none when a `source` was given
   */
  public readonly variable?: TerraformVariable;

  /** Whether the key is kept out of Terraform's plan and state (see `ApiKeyOptions.ephemeral`). */
  public readonly ephemeral: boolean;

  /**
   * The version of an ephemeral key: its check and writes run again when it changes.
   * @default - none
   */
  public readonly keyVersion?: number;

  /**
   * The day the key was created, `YYYY-MM-DD`.
   * @default - not recorded
   */
  public readonly createdOn?: string;

  /** Days after `createdOn` when the key is due for rotation. */
  public readonly rotateAfterDays: number;

  /**
   * The access the key's apps need.
   * @default - any valid key
   */
  public readonly access?: KeyAccess;

  /**
   * The non-secret output of when the key expires (a JWT's `exp` in ISO 8601, or empty without one).
   * @default - none for an ephemeral key (Terraform stores no output of an ephemeral value)
   */
  public readonly expiresAtOutputName?: string;

  private readonly _clusters: Cluster[] = [];
  private readonly _errors: string[] = [];
  private readonly _targets: { target: ISecretTarget; naming: SecretNaming }[] = [];
  /** Problems of the props that the ClusterAccess did not report already. */
  private readonly _propProblems: string[];
  private readonly _guideFile?: string;
  /** A problem with the clusters was reported already: "no clusters" would only repeat it. */
  private _clustersReported: boolean;
  /** Validations may run more than once: the warning is added once. */
  private _consoleWarned = false;
  private readonly _expiry?: KeyExpiry;

  private constructor(scope: Construct, id: string, props: ApiKeyOptions, reported: Reported, factory: symbol) {
    onlyByFactory(factory, FACTORY, errors.keyWithNew());
    super(scope, id);
    Object.defineProperty(this, API_KEY_SYMBOL, { value: true });
    this._guideFile = reported.guideFile;
    this._clustersReported = reported.clustersReported || reported.optionsReported;
    const p = props ?? ({} as ApiKeyOptions);
    this.keyName = typeof p.name === 'string' ? p.name : id;
    this._propProblems = reported.optionsReported ? [] : [
      ...(typeof p.name === 'string' && !names.isValidName(p.name) ? [errors.invalidName('key', p.name)] : []),
      ...checkStruct(props, API_KEY_PROPS, `${this.keyWhere()} props`),
    ];
    this.createdOn = p.createdOn;
    this.rotateAfterDays = p.rotateAfterDays ?? DEFAULT_ROTATE_AFTER_DAYS;
    this.access = isKeyAccess(p.access) ? p.access : undefined;
    const valid = names.isValidName(this.keyName);
    const snake = valid ? names.snakeCase(this.keyName) : `invalid_${names.snakeCase(id.replace(/[^A-Za-z0-9_-]/g, '_'))}`;
    const variableName = names.keyVariableName(snake);

    const support = StackSupport.of(this);
    if (isApiKeySource(p.source)) {
      this.source = p.source as ApiKeySource;
      const own = this.source._config().variable;
      this.ephemeral = p.ephemeral === true || (p.ephemeral === undefined && own !== undefined && isEphemeralVariable(own));
    } else {
      this.ephemeral = p.ephemeral === true;
      this.variable = support.declared(new TerraformVariable(this, 'Variable', {
        type: 'string',
        sensitive: true,
        // Lazy: clusters can still be granted after the key is created.
        description: Lazy.stringValue({
          produce: () => `Qdrant API key "${valid ? this.keyName : snake}" for clusters ` +
            `${this._clusters.map((c) => plainName(c.clusterName)).join(', ') || '(none yet)'}. ` +
            `Create it in the Qdrant Cloud console${this._guideFile === undefined ? '' : ` (see ${this._guideFile}, section 2)`} ` +
            `and set TF_VAR_${variableName}.`,
        }),
      }), variableName);
      if (this.ephemeral) this.variable.addOverride('ephemeral', true);
      this.source = ApiKeySource.fromVariable(this.variable);
      const other = AppSupport.of(this).keyVariableInOtherStack(variableName, this);
      if (other !== undefined) Annotations.of(this).addWarning(errors.keyVariableShared(this.keyName, `TF_VAR_${variableName}`, other, TerraformStack.of(this).node.id));
    }
    this.keyVersion = typeof p.keyVersion === 'number' ? p.keyVersion : undefined;
    const outputName = names.keyExpiryOutputName(snake);
    support.guardKey(this);
    const clash = support.claim('variable', variableName, this.node.path) ?? support.claim('output', outputName, this.node.path);
    if (clash && !isSibling(this, clash)) this._errors.push(errors.keyNameClash(this.keyName, variableName, clash));

    if (this.ephemeral) {
      support.requireEphemeralVariables(valid ? this.keyName : snake);
    } else {
      this.expiresAtOutputName = outputName;
      this._expiry = new KeyExpiry(this, outputName, this.source._config().expression, valid ? this.keyName : snake);
    }
    const ephemeral = { given: p.ephemeral, keyVersion: p.keyVersion, ephemeral: this.ephemeral, variable: this.source._config().variable };
    this.node.addValidation({ validate: () => ephemeralProblems(this.keyName, { ...ephemeral, usersVariable: !this.variable }) });
    this.node.addValidation({ validate: () => this.validateKey() });
    this.node.addValidation({ validate: () => rotationProblems(this, this.keyName, this.createdOn, this.rotateAfterDays) });
    warnIfRotationDue(this, this.keyName, this.createdOn, this.rotateAfterDays);
  }

  /** @internal Makes the expiry output wait for the key's check; returns the gate (none when ephemeral). */
  public _gateExpiry(check: TerraformResource): TerraformResource | undefined {
    return this._expiry?.gateOn(check);
  }

  /** @internal What re-runs the key's check: its hash, or an ephemeral key's keyVersion (else every deploy). */
  public _keyTriggers(): Record<string, string> {
    return this.ephemeral ? keyTriggers(this.keyVersion) : { key_sha256: this.source._config().sha256 };
  }

  /** The clusters this key is granted to, in the order they were granted. */
  public get clusters(): Cluster[] {
    return [...this._clusters];
  }

  /** The grants of this key: one per cluster. */
  public get grants(): ApiKeyGrant[] {
    return this._clusters.map((cluster) => ({ apiKey: this, cluster }));
  }

  /** Grant this key to one more cluster; its health check then proves it there too. */
  public grant(cluster: Cluster): ApiKeyGrant {
    if (!Cluster.isCluster(cluster)) {
      this._errors.push(errors.grantNotCluster(this.keyName, cluster));
      this._clustersReported = true;
    } else if (!this._clusters.includes(cluster)) {
      this._clusters.push(cluster);
    } else if (!this._errors.includes(errors.grantedTwice(this.keyName, cluster.clusterName))) {
      this._errors.push(errors.grantedTwice(this.keyName, cluster.clusterName)); // once, however often
    }
    return { apiKey: this, cluster };
  }

  /** The secret targets of this key, in the order they were added. */
  public get secretTargets(): ISecretTarget[] {
    return this._targets.map((t) => t.target);
  }

  /**
   * Write this key and its clusters' URLs into one more secret target at deploy, once its health
   * check passed. The entries are named at synth, once every grant is known.
   * @param target where the entries go, e.g. `SecretTarget.dotenv({ path: '.env' })`
   * @param naming prefix and renames for this key's entries in this target
   */
  public addSecretTarget(target: ISecretTarget, naming?: SecretNaming): void {
    const problems = [
      ...this.targetProblems(target),
      ...(naming === undefined ? [] : checkStruct(naming, SECRET_NAMING, `${this.keyWhere()} secretNaming`)),
    ];
    if (problems.length === 0 && this._targets.some((t) => t.target === target)) problems.push(errors.targetTwice(this.keyName, target.description));
    if (problems.length > 0) this._errors.push(...problems);
    else this._targets.push({ target, naming: naming ?? {} });
  }

  /** @internal Check a target without attaching it (its naming was refused, and reported once). */
  public _checkSecretTarget(target: ISecretTarget): void {
    this._errors.push(...this.targetProblems(target));
  }

  /** @internal */
  public _secretAttachments(): { target: ISecretTarget; naming: SecretNaming }[] {
    return [...this._targets];
  }

  /** @internal */
  public _addUnknownCluster(name: string, knownNames: string[]): void {
    this._clustersReported = true;
    this._errors.push(errors.unknownCluster(this.keyName, name, knownNames));
  }

  /** @internal Problems that would put the key into the stack in plain text (checked even without validation). */
  public _plaintextProblems(): string[] {
    return this.source._problems(this).filter((p) => p.plaintext).map((p) => errors.keySource(this.keyName, p.message));
  }

  private validateKey(): string[] {
    this.warnIfNoConsoleMakesIt();
    return [
      ...this._propProblems,
      ...this._errors,
      ...this.source._problems(this).map((p) => errors.keySource(this.keyName, p.message)),
      ...(this._clusters.length === 0 && !this._clustersReported ? [errors.noClusters(this.keyName)] : this.foreignClusterProblems()),
    ];
  }

  /** Qdrant Cloud's console makes granular keys per cluster: a warning, since self-hosted clusters may accept the same JWT. */
  private warnIfNoConsoleMakesIt(): void {
    const mode = this.access?._checkerAccess();
    if (this._consoleWarned || this._clusters.length < 2 || (mode !== 'read-only' && mode !== 'collections')) return;
    this._consoleWarned = true;
    Annotations.of(this).addWarning(errors.multiClusterGranularKey(this.keyName, this._clusters.length, mode));
  }

  /** Clusters not of its ClusterAccess: the check would cover them, the setup guide would not. */
  private foreignClusterProblems(): string[] {
    const owner = this.node.scope?.node.scope as unknown as { clusters?: unknown; node: { path: string } } | undefined;
    if (owner === undefined || !(CLUSTER_ACCESS_SYMBOL in owner) || !Array.isArray(owner.clusters)) return [];
    const own = owner.clusters as Cluster[];
    return this._clusters.filter((c) => !own.includes(c))
      .map((c) => errors.grantForeignCluster(this.keyName, c.clusterName, c.node.path, owner.node.path));
  }

  private targetProblems(target: ISecretTarget): string[] {
    return checkStruct({ secretTarget: target }, TARGET_ARGUMENT, this.keyWhere());
  }

  /** The key in checkStruct's `where`: the construct id stands in for a name that is not text or may be a key. */
  private keyWhere(): string {
    return `key ${JSON.stringify(nameShown(this.keyName) ? this.keyName : this.node.id)}`;
  }
}

type Reported = { optionsReported: boolean; clustersReported: boolean; guideFile?: string };

const API_KEY_SYMBOL = Symbol.for('cdktf-qdrant-cluster-access.ApiKey');
const FACTORY = Symbol('ApiKey._create');
