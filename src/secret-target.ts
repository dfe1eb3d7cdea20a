import * as path from 'path';
import { Fn, ITerraformDependable, TerraformOutput } from 'cdktf';
import { Construct } from 'constructs';
import { errors, q } from './private/errors';
import { InheritedKey, filePathProblems, writeFileEntries } from './private/file-writer';
import { DEPLOY_COMMAND } from './private/framework';
import { Gate, gateHolds, whenGateHolds } from './private/gate';
import { warnKeysInLocalState } from './private/local-state';
import { checkStruct } from './private/props';
import { names } from './private/runtime';
import { FILE_SECRET_TARGET_OPTIONS } from './private/schemas';
import { AppSupport, StackSupport, fileIdentity } from './private/stack-support';

/**
 * What a secret entry holds.
 */
export enum SecretEntryKind {
  /** The cluster's REST endpoint with its port, e.g. `https://abc.cloud.qdrant.io:6333`. */
  REST_URL = 'rest-url',
  /** The cluster's gRPC endpoint with its port, e.g. `https://abc.cloud.qdrant.io:6334`. */
  GRPC_URL = 'grpc-url',
  /** The API key (a reference that Terraform resolves at apply time). */
  API_KEY = 'api-key',
}

/**
 * One name/value pair that a secret target stores, e.g. `QDRANT_PROD_EU_API_KEY`.
 */
export interface SecretEntry {
  /** The name under which the app reads the value (after any prefix and override). */
  readonly name: string;

  /** What the entry holds. */
  readonly kind: SecretEntryKind;

  /**
   * The value. For URLs, the endpoint with its port (a token when the cluster's URL is one). For
   * the key, always a token (a sensitive variable or another resource's attribute) that Terraform
   * resolves at apply time: never a plaintext key.
   */
  readonly value: string;

  /** True for the key. A store must keep such a value secret (mark it sensitive). */
  readonly sensitive: boolean;

  /**
   * True for the key of an ephemeral key (`ApiKeyOptions.ephemeral`): `value` is then an ephemeral
   * value, which Terraform accepts only in write-only attributes (such as `data_wo` of
   * `kubernetes_secret_v1`, `secret_string_wo` of `aws_secretsmanager_secret_version`) and in
   * provisioner configuration; anywhere else the plan fails with Terraform's "Ephemeral values
   * are not valid for …".
   */
  readonly ephemeral: boolean;

  /**
   * The `keyVersion` of an ephemeral key, on its key entry: give it to the write-only attribute's
   * version (`data_wo_revision`, `secret_string_wo_version`), so that a new key is written.
   * @default - none: not the key of an ephemeral key, or one without a keyVersion (which a
   * write-only attribute cannot follow: it is written again only when its version changes)
   */
  readonly keyVersion?: number;

  /** The key the entry belongs to. */
  readonly keyName: string;

  /** The cluster the entry belongs to. */
  readonly clusterName: string;
}

/**
 * What `ISecretTarget.bind` receives.
 */
export interface SecretTargetBindOptions {
  /**
   * Every entry the target receives from one `ClusterAccess`, across all of its keys, each name
   * once, in the order of the keys and their clusters.
   */
  readonly entries: SecretEntry[];

  /**
   * A stable label for this binding: the construct path of the `ClusterAccess`. Use it to tell
   * these entries apart from those of another `ClusterAccess` writing to the same store.
   */
  readonly owner: string;

  /**
   * The health checks of the target's keys. Make every resource that stores the entries depend
   * on them (`dependsOn: options.dependsOn`), so that nothing is written before the keys are
   * proven: a failed check then leaves the store as it was. Resources, data sources and modules
   * created under `scope`, and the `dependables` returned, are made to depend on them in any case.
   * (A Terraform output cannot wait: Terraform writes outputs even when a dependency failed,
   * whatever resources the value refers to. With health checks on, an output created under
   * `scope`, or returned, is a validation error: use `SecretTarget.terraformOutputs()` (which
   * holds its values back; it may also be bound under `scope`). Never pass
   * a key to a `terraform_data`: it does not keep the sensitive mark on its output, so plans print
   * the key in clear.)
   */
  readonly dependsOn: ITerraformDependable[];
}

/**
 * What `ISecretTarget.bind` returns.
 */
export interface SecretTargetConfig {
  /**
   * The resources that store the entries. They are made to wait for the health checks of the
   * target's keys (as every resource, data source and module created under the bind scope is), so
   * that a key is written only once it is proven. Return resources created outside the bind scope
   * here. A list of resources, data sources or modules of the stack of the `ClusterAccess`;
   * with health checks on, anything else (an output, another stack's resource) is a validation error.
   * @default - none
   */
  readonly dependables?: ITerraformDependable[];
}

/**
 * A place where the app finds its Qdrant URLs and keys: a `.env` file, a JSON file, Terraform
 * outputs (see `SecretTarget`), or a store of your own, such as a Kubernetes Secret. Implement
 * this interface for your own store: `bind` creates the resources that hold the entries.
 *
 * Attach a target to a key with `apiKeys: [{ ..., secretTargets: [target] }]` or
 * `apiKey.addSecretTarget(target)`. One target may receive several keys.
 */
export interface ISecretTarget {
  /**
   * One line naming the store, for error messages and the setup guide, e.g. `.env file ".env"`.
   * Never a secret.
   *
   * It also names the bind scope, and so the Terraform addresses of the target's resources: keep
   * it stable, and distinct for each store. The construct id is the description cut to 60
   * characters (letters, digits, `.`, `_` and `-`; other characters count as `-`), or, when two
   * descriptions would give one id, their first 51 and a hash of the whole. Targets of the same
   * description are told apart by their order only, and get a synth warning.
   */
  readonly description: string;

  /**
   * Create the resources that store the entries, under `scope`, depending on
   * `options.dependsOn`. Called once per `ClusterAccess` that the target is attached to, at synth,
   * when every key and grant is known.
   */
  bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig;
}

/**
 * How a key's entries are named in one target. By default a target that receives one cluster
 * gets `QDRANT_URL`, `QDRANT_GRPC_URL` and `QDRANT_API_KEY`; a target that receives several gets
 * `QDRANT_<CLUSTER>_URL`, `QDRANT_<CLUSTER>_GRPC_URL` and `QDRANT_<CLUSTER>_API_KEY`.
 */
export interface SecretNaming {
  /**
   * Put in front of every default name: `APP_` gives `APP_QDRANT_URL`. Letters, digits and `_`, not starting
   * with a digit.
   * @default - no prefix
   */
  readonly prefix?: string;

  /**
   * Replace names: the default name (without prefix) → the name to use as is, e.g.
   * `{ QDRANT_PROD_EU_API_KEY: 'SEARCH_API_KEY' }`. A default name that the key does not produce
   * is an error.
   * @default - the default names
   */
  readonly names?: { [defaultName: string]: string };
}

/**
 * Options of the file targets `SecretTarget.dotenv()` and `SecretTarget.json()`.
 */
export interface FileSecretTargetOptions {
  /**
   * The file. A relative path is resolved against the directory where synth runs (the project
   * directory of `cdktf deploy`). Its directory must exist at deploy time; the file is created
   * (mode 0600) when missing.
   *
   * The file is written on the machine that runs the deploy, and its absolute path is part of
   * the target's identity in the Terraform state. With state shared between machines or
   * checkouts, a deploy from elsewhere moves the entries: it removes them from the file at the
   * previous path when that file exists on the deploying machine (nothing to remove otherwise),
   * and writes them to the file at the new path. The entries in the file belong to the
   * `ClusterAccess`'s construct path and the Terraform workspace (`<path>@<workspace>` outside
   * `default`): a second workspace that would write the same names into the file is refused.
   */
  readonly path: string;
}

/**
 * The built-in secret targets.
 */
export class SecretTarget {
  /**
   * Merge the entries into a `.env` file at deploy time, once the keys' health checks have
   * passed, and remove them on destroy. Our entries live in a block marked as managed; every
   * other line stays byte for byte, and a name the file already defines outside that block is
   * refused, not overwritten. Values are quoted so that both the `dotenv` npm parser and
   * python-dotenv read them back exactly. The file is written on the machine that deploys, and
   * its absolute path is part of its identity: a deploy from another checkout or machine with the
   * same state moves the entries (see `FileSecretTargetOptions.path`).
   */
  public static dotenv(options: FileSecretTargetOptions): ISecretTarget {
    return new FileTarget('dotenv', options);
  }

  /**
   * Merge the entries into the top-level object of a JSON file at deploy time, once the keys'
   * health checks have passed, and remove them on destroy. Other members and the file's
   * formatting are kept; a member of the same name that this library did not write is refused.
   * The file is written on the machine that deploys, and its absolute path is part of its
   * identity: a deploy from another checkout or machine with the same state moves the entries
   * (see `FileSecretTargetOptions.path`).
   */
  public static json(options: FileSecretTargetOptions): ISecretTarget {
    return new FileTarget('json', options);
  }

  /**
   * One sensitive Terraform output per entry, named like the entry (`QDRANT_URL`), for pipelines
   * that read outputs (`terraform output -raw QDRANT_API_KEY`). The outputs take a key's value
   * only once its health check has passed: a failed check leaves them as they were. Refused for an
   * ephemeral key: Terraform keeps outputs in the state.
   */
  public static terraformOutputs(): ISecretTarget {
    return new OutputsTarget();
  }

  private constructor() {}
}

// ---- not exported from the package ------------------------------------------------------------

/** What an entry holds, in words. */
export const KIND_TEXT: Record<SecretEntryKind, string> = {
  [SecretEntryKind.REST_URL]: 'REST endpoint',
  [SecretEntryKind.GRPC_URL]: 'gRPC endpoint',
  [SecretEntryKind.API_KEY]: 'API key',
};

/**
 * For a key entry whose key Terraform reads from a variable: how the writer reads it too. How keys
 * reach the library's processes is no part of `SecretEntry`: the plan records it here, by entry.
 */
const INHERITED_KEYS = new WeakMap<SecretEntry, InheritedKey>();

/** Records that `entry`'s key is read from a variable; returns the entry. */
export function withInheritedKey(entry: SecretEntry, key: InheritedKey | undefined): SecretEntry {
  if (key) INHERITED_KEYS.set(entry, key);
  return entry;
}

/**
 * `SecretTarget.dotenv()` and `SecretTarget.json()`: the writer merges the entries into a file at
 * deploy, once the checks passed, and takes them out again at destroy (private/file-writer.ts).
 */
export class FileTarget implements ISecretTarget {
  public readonly description: string;

  /** The file's format and its path as given (the setup guide names them). */
  constructor(public readonly format: 'dotenv' | 'json', private readonly options: FileSecretTargetOptions) {
    const problems = checkStruct(options, FILE_SECRET_TARGET_OPTIONS, `SecretTarget.${format}(options)`);
    // A value object with no scope: a wrong type is refused at once.
    if (problems.length > 0) throw new Error(problems.join('; '));
    this.description = `${format === 'dotenv' ? '.env' : 'JSON'} file ${q(options.path)}`;
  }

  /** The path as given (relative to the working directory at synth). */
  public get path(): string {
    return this.options.path;
  }

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    const problems = filePathProblems(this.options.path, this.format);
    if (!names.isOwnerPath(options.owner)) problems.push(errors.ownerInvalid(options.owner));
    const file = path.resolve(this.options.path);
    if (problems.length === 0) {
      problems.push(...AppSupport.of(scope).claimFile(fileIdentity(file), file, this.format, scope.node.path, options.owner,
        options.entries.map((e) => ({ name: e.name, keyName: e.keyName }))));
    }
    if (problems.length > 0) {
      scope.node.addValidation({ validate: () => problems.map((p) => errors.target(this.description, p)) });
      return {};
    }
    const entries = options.entries.map((e) => ({
      name: e.name, value: e.value, sensitive: e.sensitive, inherited: INHERITED_KEYS.get(e), ephemeral: e.ephemeral, keyVersion: e.keyVersion,
    }));
    const write = { file, format: this.format, owner: options.owner, entries, dependsOn: options.dependsOn, description: this.description };
    return { dependables: [writeFileEntries(scope, write)] };
  }
}

/** The outputs an outputs target made (held back by its gate): a user's target may bind one inside its own. */
const GATED = new WeakSet<TerraformOutput>();

/** Whether `output` was made by an outputs target (its value shows only once the checks passed). */
export function isGatedOutput(output: TerraformOutput): boolean {
  return GATED.has(output);
}

/**
 * `SecretTarget.terraformOutputs()`: one sensitive output per entry.
 *
 * Terraform writes outputs even when a resource they depend on failed, so each output is tied to a
 * `terraform_data` gate that waits for the health checks: the gate holds a hash of the values,
 * which a change (a rotated key) makes unknown until the gate is applied, and each output reads
 * `gate.output["values_sha256"] == <the hash of the values> ? value : ""` (gate.ts, with a
 * precondition on the same comparison). A failed check leaves the gate unapplied, the outputs unknown,
 * and so Terraform keeps them as they were. The values themselves stay out of the gate, because
 * Terraform does not keep the sensitive mark on a terraform_data's output (a destroy plan would
 * print them).
 */
export class OutputsTarget implements ISecretTarget {
  public readonly description = 'Terraform outputs';

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    const ephemeral = [...new Set(options.entries.filter((e) => e.ephemeral).map((e) => e.keyName))];
    if (ephemeral.length > 0) {
      scope.node.addValidation({ validate: () => ephemeral.map((k) => errors.target(this.description, errors.outputsEphemeral(k))) });
      return {};
    }
    const support = StackSupport.of(scope);
    // One namespace with the library's own outputs (cluster endpoints, key expiry) and every other binding.
    const problems = [...new Set(options.entries
      .map((e) => ({ e, other: support.claimOutput(e.name, `key "${e.keyName}" of ${scope.node.path}`) }))
      .filter((x) => x.other !== undefined)
      .map(({ e, other }) => ({ e, other: other!, sameAccess: other!.includes(` of ${options.owner}/`) }))
      // The same key (names are unique in one access) in two outputs targets: one problem, not one per entry.
      .map(({ e, other, sameAccess }) => sameAccess && other.startsWith(`key "${e.keyName}" of `) ? errors.targetTwice(e.keyName, this.description)
        : errors.target(this.description, errors.entryClash(e.name, e.keyName, 'the outputs', other, sameAccess))))];
    if (problems.length > 0) {
      scope.node.addValidation({ validate: () => problems });
      return {};
    }
    const valuesSha256 = Fn.sha256(Fn.jsonencode(Object.fromEntries(options.entries.map((e) => [e.name, e.value]))));
    const gate = new Gate(scope, 'Verified', { input: { values_sha256: valuesSha256 }, dependsOn: options.dependsOn });
    // A refresh (apply -refresh-only) applies no resource, so the gate keeps the checked values' hash
    // while the outputs would take the variables' values of now: such an output is "" (Terraform
    // writes outputs despite a failed precondition), and the precondition says why. (Through an
    // override: cdktf 0.21 keeps an output's `precondition` but does not write it.)
    const checked = [{ condition: gateHolds(gate, 'values_sha256', valuesSha256), error_message: errors.outputsNotChecked(DEPLOY_COMMAND) }];
    options.entries.forEach((entry, i) => {
      // Not the name alone as the id: a name may be "Verified", "" or hold "/" (invalid names are
      // reported by validation, which a constructs exception here would cut short).
      const id = scope.node.tryFindChild(`entry:${entry.name}`) ? `entry:${i}:${entry.name}` : `entry:${entry.name}`;
      const output = support.declared(new TerraformOutput(scope, id, {
        value: whenGateHolds(gate, 'values_sha256', valuesSha256, entry.value),
        sensitive: true,
        description: `${KIND_TEXT[entry.kind]} of Qdrant cluster "${entry.clusterName}" (key "${entry.keyName}"), once the key's health check passed`,
      }), entry.name);
      output.addOverride('precondition', checked);
      GATED.add(output);
    });
    // The keys are now in the state: say where, when that is a file the user may not look at.
    if (options.entries.some((e) => e.sensitive)) warnKeysInLocalState(scope, 'outputs');
    return { dependables: [gate] };
  }
}
