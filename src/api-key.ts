import { Lazy, TerraformVariable } from 'cdktf';
import { Construct } from 'constructs';
import { ApiKeySource, ApiKeySourceConfig } from './api-key-source';
import { Cluster } from './cluster';
import { NAME_RULE, defaultKeyVariableName, isValidName, q, snakeCase } from './private/naming';
import { DEFAULT_ROTATE_AFTER_DAYS, rotationProblems, warnIfRotationDue } from './private/rotation';
import { ISecretTarget, SecretNaming } from './secret-target';

/**
 * One API key, as passed to `ClusterAccess` or `ClusterAccess.addApiKey()`.
 */
export interface ApiKeyOptions {
  /**
   * Logical name of the key, unique within one `ClusterAccess` (for example `search-api`).
   * It names the Terraform variable `qdrant_api_key_<name>` when no `source` is given.
   */
  readonly name: string;

  /**
   * Names of the clusters this key is granted to. One key may cover several clusters, and a
   * cluster may appear in several keys. More can be added later with `ApiKey.grant()`.
   * @default - no clusters yet; call `grant()` before synth
   */
  readonly clusters?: string[];

  /**
   * Where the key's value comes from at deploy time.
   * @default - a new sensitive Terraform variable `qdrant_api_key_<name>`, set through `TF_VAR_qdrant_api_key_<name>`
   */
  readonly source?: ApiKeySource;

  /**
   * The day the key was created in the console, as `YYYY-MM-DD`. With `rotateAfterDays` it gives
   * the day the key is due for rotation, shown in the setup guide; synth warns once it is due
   * (today is the real date, or the context value `cdktf-qdrant-cluster-access:today` when set).
   * @default - not recorded: no due date and no warning
   */
  readonly createdOn?: string;

  /**
   * Days after `createdOn` when the key is due for rotation (1-3650).
   * @default 90
   */
  readonly rotateAfterDays?: number;

  /**
   * Where the app finds this key and the URLs of its clusters: `.env` or JSON files, Terraform
   * outputs, or your own stores (see `SecretTarget` and `ISecretTarget`). The entries are written
   * at deploy, before the health checks run. More can be added with `ApiKey.addSecretTarget()`.
   * @default - none: the key stays where the deploy reads it
   */
  readonly secretTargets?: ISecretTarget[];

  /**
   * How this key's entries are named in the targets of `secretTargets`.
   * @default - `QDRANT_URL`, `QDRANT_GRPC_URL`, `QDRANT_API_KEY` in a target that receives one cluster, `QDRANT_<CLUSTER>_...` in one that receives several
   */
  readonly secretNaming?: SecretNaming;
}

/**
 * Properties of an `ApiKey`.
 */
export interface ApiKeyProps {
  /** Logical name of the key. See `ApiKeyOptions.name`. */
  readonly name: string;

  /**
   * Where the key's value comes from at deploy time.
   * @default - a new sensitive Terraform variable `qdrant_api_key_<name>`
   */
  readonly source?: ApiKeySource;

  /**
   * The day the key was created, `YYYY-MM-DD`. See `ApiKeyOptions.createdOn`.
   * @default - not recorded
   */
  readonly createdOn?: string;

  /**
   * Days after `createdOn` when the key is due for rotation. See `ApiKeyOptions.rotateAfterDays`.
   * @default 90
   */
  readonly rotateAfterDays?: number;
}

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
 * Receives each new grant of a key (used by `ClusterAccess` to add a health check per grant).
 * @internal
 */
export interface IGrantListener {
  onGrant(grant: ApiKeyGrant): void;
}

/**
 * One Qdrant API key, created by a person in the Qdrant Cloud console and granted to one or
 * more clusters. The stack holds only a reference to it (see `ApiKeySource`).
 *
 * Usually created through `ClusterAccess` (`apiKeys: [...]` or `addApiKey()`).
 */
export class ApiKey extends Construct {
  /**
   * Return whether the given object is an `ApiKey` (works across copies of this package).
   */
  public static isApiKey(x: any): x is ApiKey {
    return x !== null && typeof x === 'object' && API_KEY_SYMBOL in x;
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

  /**
   * The day the key was created, `YYYY-MM-DD`.
   * @default - not recorded
   */
  public readonly createdOn?: string;

  /** Days after `createdOn` when the key is due for rotation. */
  public readonly rotateAfterDays: number;

  private readonly _clusters: Cluster[] = [];
  private readonly _listeners: IGrantListener[] = [];
  private readonly _errors: string[] = [];
  private readonly _unknownClusters: string[] = [];
  private readonly _targets: { target: ISecretTarget; naming: SecretNaming }[] = [];
  private _sourceConfig?: ApiKeySourceConfig;

  constructor(scope: Construct, id: string, props: ApiKeyProps) {
    super(scope, id);
    Object.defineProperty(this, API_KEY_SYMBOL, { value: true });
    this.keyName = props.name;
    this.createdOn = props.createdOn;
    this.rotateAfterDays = props.rotateAfterDays ?? DEFAULT_ROTATE_AFTER_DAYS;

    if (props.source) {
      this.source = props.source;
    } else {
      const variableName = isValidName(props.name) ? defaultKeyVariableName(props.name) : `qdrant_api_key_invalid_${snakeCase(id)}`;
      this.variable = new TerraformVariable(this, 'Variable', {
        type: 'string',
        sensitive: true,
        nullable: false,
        // Lazy: clusters can still be granted after the key is created.
        description: Lazy.stringValue({
          produce: () => `Qdrant API key "${props.name}" for clusters ${this._clusters.map((c) => c.clusterName).join(', ') || '(none yet)'}. ` +
            'Create it in the Qdrant Cloud console (Access Management > API Keys > Create, selecting exactly those ' +
            `clusters) and set TF_VAR_${variableName}; see qdrant-setup.md.`,
        }),
      });
      this.variable.overrideLogicalId(variableName);
      this.source = ApiKeySource.fromVariable(this.variable);
    }

    this.node.addValidation({ validate: () => this.validateKey() });
    this.node.addValidation({ validate: () => rotationProblems(this, this.keyName, this.createdOn, this.rotateAfterDays) });
    warnIfRotationDue(this, this.keyName, this.createdOn, this.rotateAfterDays);
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
   * Grant this key to one more cluster. A health check for the pair is added when the key
   * belongs to a `ClusterAccess` with health checks enabled. Granting the same cluster twice is
   * a validation error.
   */
  public grant(cluster: Cluster): ApiKeyGrant {
    const grant: ApiKeyGrant = { apiKey: this, cluster };
    if (this._clusters.includes(cluster)) {
      this._errors.push(
        `key ${q(this.keyName)} is granted to cluster ${q(cluster.clusterName)} twice; list each cluster once`,
      );
      return grant;
    }
    this._clusters.push(cluster);
    for (const listener of this._listeners) listener.onGrant(grant);
    return grant;
  }

  /** The secret targets of this key, in the order they were added. */
  public get secretTargets(): ISecretTarget[] {
    return this._targets.map((t) => t.target);
  }

  /**
   * Write this key and the URLs of its clusters into one more secret target at deploy. One
   * target may receive several keys; the entries are named when the stack is synthesized, once
   * every grant is known.
   * @param target where the entries go, e.g. `SecretTarget.dotenv({ path: '.env' })`
   * @param naming prefix and renames for this key's entries in this target
   */
  public addSecretTarget(target: ISecretTarget, naming?: SecretNaming): void {
    if (this._targets.some((t) => t.target === target)) {
      this._errors.push(`key ${q(this.keyName)} is given secret target ${target.description} twice; add each target once`);
      return;
    }
    this._targets.push({ target, naming: naming ?? {} });
  }

  /** @internal */
  public _secretAttachments(): { target: ISecretTarget; naming: SecretNaming }[] {
    return [...this._targets];
  }

  /** @internal */
  public _sourceConfigResolved(): ApiKeySourceConfig {
    this._sourceConfig ??= this.source._config();
    return this._sourceConfig;
  }

  /** @internal */
  public _addGrantListener(listener: IGrantListener): void {
    this._listeners.push(listener);
    for (const grant of this.grants) listener.onGrant(grant);
  }

  /**
   * Record a cluster name that `ClusterAccess` could not resolve.
   * @internal
   */
  public _addUnknownCluster(name: string, knownNames: string[]): void {
    this._unknownClusters.push(name);
    const known = knownNames.length > 0 ? knownNames.map((n) => q(n)).join(', ') : 'none yet';
    this._errors.push(
      `key ${q(this.keyName)} names unknown cluster ${q(name)} (known clusters: ${known}); ` +
        'fix the name, or add the cluster before the key',
    );
  }

  private validateKey(): string[] {
    const errors: string[] = [];
    if (!isValidName(this.keyName)) {
      errors.push(`key name ${q(this.keyName)} is invalid: ${NAME_RULE}; use a name like "search-api"`);
    }
    errors.push(...this._errors);
    errors.push(...this._sourceConfigResolved().problems.map((p) => `key ${q(this.keyName)}: ${p}`));
    if (this._clusters.length === 0 && this._unknownClusters.length === 0) {
      errors.push(
        `key ${q(this.keyName)} has no clusters; pass clusters: ["<cluster name>"] or call grant(cluster)`,
      );
    }
    return errors;
  }
}

const API_KEY_SYMBOL = Symbol.for('cdktf-qdrant-cluster-access.ApiKey');
