import { Annotations, Lazy, TerraformResource, TerraformStack, TerraformVariable } from 'cdktf';
import { Construct } from 'constructs';
import type { ApiKeyOptions } from './api-key-options';
import { ApiKeySource, ApiKeySourceConfig } from './api-key-source';
import { Cluster } from './cluster';
import { KeyAccess } from './key-access';
import { ephemeralProblems, isEphemeralVariable, keyTriggers, makeEphemeral } from './private/ephemeral';
import { errors, nameShown } from './private/errors';
import { KeyExpiry } from './private/key-expiry';
import { checkStruct, onlyByFactory } from './private/props';
import { DEFAULT_ROTATE_AFTER_DAYS, rotationProblems, warnIfRotationDue } from './private/rotation';
import { names } from './private/runtime';
import { API_KEY_PROPS, CLUSTER_ACCESS_SYMBOL, SECRET_NAMING, TARGET_ARGUMENT, isApiKeySource, isKeyAccess } from './private/schemas';
import { AppSupport, StackSupport, isSibling } from './private/stack-support';
import { ISecretTarget, SecretNaming } from './secret-target';

/**
 * One (key, cluster) pair: the key is granted to the cluster.
 */
export interface ApiKeyGrant {
  /** The key. */
  readonly apiKey: ApiKey;
  /** The cluster the key is granted to. */
  readonly cluster: Cluster;
}

/**
 * One Qdrant API key, created by a person in the Qdrant Cloud console and granted to one or
 * more clusters. The stack holds only a reference to it (see `ApiKeySource`).
 *
 * Unless it is ephemeral, it adds one non-secret output, `qdrant_api_key_<name>_expires_at` (`<name>` in lower case, `-` as
 * `_`; see `expiresAtOutputName`): when the key is a JWT (keys
 * with granular access are), the date in its `exp` claim (ISO 8601), decoded by Terraform at
 * deploy; empty for a key without an expiry. Monitoring can read it with `terraform output`.
 *
 * Created through `ClusterAccess` (`apiKeys: [...]` or `addApiKey()`), which checks it and writes
 * its secret targets.
 */
export class ApiKey extends Construct {
  /**
   * Return whether the given object is an `ApiKey` (works across copies of this package).
   */
  public static isApiKey(x: any): x is ApiKey {
    return x !== null && typeof x === 'object' && API_KEY_SYMBOL in x;
  }

  /**
   * A key of a `ClusterAccess`, which adds its check and binds its targets. `props`: the key's own
   * options (name, source, createdOn, rotateAfterDays, access), which the key checks;
   * `reported`: what the ClusterAccess reported of the options already (they are not an object,
   * or `clusters` is not a list of names), so that the key does not report it again, nor "no
   * clusters"; `guideFile`: the setup guide, when it is written.
   * @internal
   */
  public static _create(scope: Construct, id: string, props: ApiKeyOptions,
    reported: { optionsReported: boolean; clustersReported: boolean; guideFile?: string }): ApiKey {
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
   * The name of the output that tells when the key expires, e.g. `qdrant_api_key_search_api_expires_at`.
   * @default - none for an ephemeral key: the date is derived from the key, and Terraform stores no output of an ephemeral value
   */
  public readonly expiresAtOutputName?: string;

  private readonly _clusters: Cluster[] = [];
  private readonly _errors: string[] = [];
  private readonly _unknownClusters: string[] = [];
  private readonly _targets: { target: ISecretTarget; naming: SecretNaming }[] = [];
  /** Problems of the props themselves (left out when ClusterAccess reported its options instead). */
  private readonly _propProblems: string[];
  /** The setup guide that explains the key's creation, when its ClusterAccess writes one. */
  private readonly _guideFile?: string;
  /** Whether the ClusterAccess reported this key's options as not an object. */
  private readonly _optionsReported: boolean;
  /**
   * Whether a problem with the clusters was reported already (not a list of names, an argument
   * grant() refused): "no clusters" would only repeat it.
   */
  private _clustersReported: boolean;
  /** Whether the multi-cluster access warning was added (validations may run more than once). */
  private _consoleWarned = false;
  /** The name as given (any type): errors describe a list or an object by its shape only. */
  private readonly _nameGiven: unknown;
  /** The expiry output (none for an ephemeral key). */
  private readonly _expiry?: KeyExpiry;

  private constructor(scope: Construct, id: string, props: ApiKeyOptions,
    reported: { optionsReported: boolean; clustersReported: boolean; guideFile?: string }, factory: symbol) {
    onlyByFactory(factory, FACTORY, errors.keyWithNew());
    super(scope, id);
    Object.defineProperty(this, API_KEY_SYMBOL, { value: true });
    this._guideFile = reported.guideFile;
    this._optionsReported = reported.optionsReported;
    this._clustersReported = reported.clustersReported || reported.optionsReported;
    const p = props ?? ({} as ApiKeyOptions);
    // A name that is not text is reported by its type alone (a list or object may hold the key);
    // one that may be a key (long, or a JWT) is not shown: the construct id stands in.
    const where = `key ${JSON.stringify(typeof p.name === 'string' && nameShown(p.name) ? p.name : id)} props`;
    this._propProblems = checkStruct(props, API_KEY_PROPS, where);
    // A name that is not text (a list or dict from Python) may hold the key: its construct id stands
    // in (invalid as a name, so every derived name is a placeholder), and errors describe its shape.
    this.keyName = typeof p.name === 'string' ? p.name : id;
    this._nameGiven = p.name;
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
            `${this._clusters.map((c) => (names.isValidName(c.clusterName) ? c.clusterName : '(invalid name)')).join(', ') || '(none yet)'}. ` +
            `Create it in the Qdrant Cloud console${this._guideFile === undefined ? '' : ` (see ${this._guideFile}, section 2)`} ` +
            `and set TF_VAR_${variableName}.`,
        }),
      }), variableName);
      if (this.ephemeral) makeEphemeral(this.variable);
      this.source = ApiKeySource.fromVariable(this.variable);
      const other = AppSupport.of(this).keyVariableInOtherStack(variableName, this);
      if (other !== undefined) Annotations.of(this).addWarning(errors.keyVariableShared(this.keyName, `TF_VAR_${variableName}`, other, TerraformStack.of(this).node.id));
    }
    this.keyVersion = typeof p.keyVersion === 'number' ? p.keyVersion : undefined;
    const outputName = names.keyExpiryOutputName(snake);
    support.guardKey(this);
    const clash = support.claimVariable(variableName, this.node.path) ?? support.claimOutput(outputName, this.node.path);
    if (clash && !isSibling(this, clash)) this._errors.push(errors.keyNameClash(this.keyName, variableName, clash));

    if (this.ephemeral) {
      support.requireEphemeralVariables(valid ? this.keyName : snake);
    } else {
      this.expiresAtOutputName = outputName;
      this._expiry = new KeyExpiry(this, outputName, this._sourceConfig().expression, valid ? this.keyName : snake);
    }
    const ephemeral = { given: p.ephemeral, keyVersion: p.keyVersion, ephemeral: this.ephemeral, variable: this._sourceConfig().variable };
    this.node.addValidation({ validate: () => ephemeralProblems(this.keyName, { ...ephemeral, usersVariable: !this.variable }) });
    this.node.addValidation({ validate: () => this.validateKey() });
    this.node.addValidation({ validate: () => rotationProblems(this, this.keyName, this.createdOn, this.rotateAfterDays) });
    warnIfRotationDue(this, this.keyName, this.createdOn, this.rotateAfterDays);
  }

  /**
   * Makes the expiry output wait for the key's check (see KeyExpiry.gateOn); returns the gate
   * (none for an ephemeral key, which has no expiry output).
   * @internal
   */
  public _gateExpiry(check: TerraformResource): TerraformResource | undefined {
    return this._expiry?.gateOn(check);
  }

  /**
   * What replaces the key's check (and so runs it again): a hash of the key, or for an ephemeral
   * key its keyVersion, or every deploy.
   * @internal
   */
  public _keyTriggers(): Record<string, string> {
    return this.ephemeral ? keyTriggers(this.keyVersion) : { key_sha256: this._sourceConfig().sha256 };
  }

  /** The clusters this key is granted to, in the order they were granted. */
  public get clusters(): Cluster[] {
    return [...this._clusters];
  }

  /** The grants of this key: one per cluster. */
  public get grants(): ApiKeyGrant[] {
    return this._clusters.map((cluster) => ({ apiKey: this, cluster }));
  }

  /**
   * Grant this key to one more cluster. The key's health check (when the key belongs to a
   * `ClusterAccess` with health checks enabled) then proves it on that cluster too. Granting the
   * same cluster twice is a validation error.
   */
  public grant(cluster: Cluster): ApiKeyGrant {
    const grant: ApiKeyGrant = { apiKey: this, cluster };
    // Any value can come from JavaScript or another language (a cluster name, a dict, None).
    if (!Cluster.isCluster(cluster)) {
      this._errors.push(errors.grantNotCluster(this.keyName, cluster));
      this._clustersReported = true;
      return grant;
    }
    if (this._clusters.includes(cluster)) {
      const problem = errors.grantedTwice(this.keyName, cluster.clusterName);
      if (!this._errors.includes(problem)) this._errors.push(problem); // once, however often
      return grant;
    }
    this._clusters.push(cluster);
    return grant;
  }

  /** The secret targets of this key, in the order they were added. */
  public get secretTargets(): ISecretTarget[] {
    return this._targets.map((t) => t.target);
  }

  /**
   * Write this key and the URLs of its clusters into one more secret target at deploy, after the
   * key's health check has passed. One target may receive several keys; the entries are named
   * when the stack is synthesized, once every grant is known.
   * @param target where the entries go, e.g. `SecretTarget.dotenv({ path: '.env' })`
   * @param naming prefix and renames for this key's entries in this target
   */
  public addSecretTarget(target: ISecretTarget, naming?: SecretNaming): void {
    const problems = [
      ...this.targetProblems(target),
      ...(naming === undefined ? [] : checkStruct(naming, SECRET_NAMING, `${this.keyWhere()} secretNaming`)),
    ];
    if (problems.length > 0) {
      this._errors.push(...problems);
      return;
    }
    if (this._targets.some((t) => t.target === target)) {
      this._errors.push(errors.targetTwice(this.keyName, target.description));
      return;
    }
    this._targets.push({ target, naming: naming ?? {} });
  }

  /**
   * Check a target without attaching it: its naming was refused where it was given (reported
   * once there, not once per target).
   * @internal
   */
  public _checkSecretTarget(target: ISecretTarget): void {
    this._errors.push(...this.targetProblems(target));
  }

  /** @internal */
  public _secretAttachments(): { target: ISecretTarget; naming: SecretNaming }[] {
    return [...this._targets];
  }

  /** @internal */
  public _sourceConfig(): ApiKeySourceConfig {
    return this.source._config();
  }

  /**
   * Record a cluster name that `ClusterAccess` could not resolve.
   * @internal
   */
  public _addUnknownCluster(name: string, knownNames: string[]): void {
    this._unknownClusters.push(name);
    this._errors.push(errors.unknownCluster(this.keyName, name, knownNames));
  }

  /**
   * Problems that would put this key into the stack in plain text (checked even when validation
   * is skipped).
   * @internal
   */
  public _plaintextProblems(): string[] {
    return this.source._problems(this).filter((p) => p.plaintext).map((p) => errors.keySource(this.keyName, p.message));
  }

  private validateKey(): string[] {
    const problems: string[] = [];
    if (!this._optionsReported) {
      // A name that is not text is reported by the props' type check alone.
      if (typeof this._nameGiven === 'string' && !names.isValidName(this.keyName)) problems.push(errors.invalidName('key', this._nameGiven));
      problems.push(...this._propProblems);
    }
    problems.push(...this._errors);
    problems.push(...this.source._problems(this).map((p) => errors.keySource(this.keyName, p.message)));
    if (this._clusters.length === 0 && this._unknownClusters.length === 0 && !this._clustersReported) {
      problems.push(errors.noClusters(this.keyName));
    } else {
      problems.push(...this.foreignClusterProblems());
    }
    this.warnIfNoConsoleMakesIt();
    return problems;
  }

  /**
   * A key on several clusters with read-only or per-collection access is not one Qdrant Cloud's
   * console makes: its keys with granular access are per cluster, and its multi-cluster flow makes
   * keys that can manage. A warning, not an error: self-hosted clusters may accept the same JWT.
   * Added while the validations run (the clusters are all granted by then), once.
   */
  private warnIfNoConsoleMakesIt(): void {
    const mode = this.access?._checkerAccess();
    if (this._consoleWarned || this._clusters.length < 2 || (mode !== 'read-only' && mode !== 'collections')) return;
    this._consoleWarned = true;
    Annotations.of(this).addWarning(errors.multiClusterGranularKey(this.keyName, this._clusters.length, mode));
  }

  /**
   * Clusters granted with grant() that are not its ClusterAccess's (created elsewhere): the check
   * and the outputs would cover them, the setup guide would not.
   */
  private foreignClusterProblems(): string[] {
    // The owner is the ClusterAccess whose ApiKeys scope holds the key (it adopted it).
    const owner = this.node.scope?.node.scope as unknown as { clusters?: unknown; node: { path: string } } | undefined;
    if (owner === undefined || !(CLUSTER_ACCESS_SYMBOL in owner) || !Array.isArray(owner.clusters)) return [];
    const own = owner.clusters as Cluster[];
    return this._clusters.filter((c) => !own.includes(c))
      .map((c) => errors.grantForeignCluster(this.keyName, c.clusterName, c.node.path, owner.node.path));
  }

  private targetProblems(target: ISecretTarget): string[] {
    return checkStruct({ secretTarget: target }, TARGET_ARGUMENT, this.keyWhere());
  }

  /** The key in a `where` of checkStruct: its name, or its construct id when the name may be a key. */
  private keyWhere(): string {
    return `key ${JSON.stringify(nameShown(this.keyName) ? this.keyName : this.node.id)}`;
  }
}

const API_KEY_SYMBOL = Symbol.for('cdktf-qdrant-cluster-access.ApiKey');

/** What `_create` passes to the constructor (see onlyByFactory). */
const FACTORY = Symbol('ApiKey._create');
