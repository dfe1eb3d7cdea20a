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

/** What a secret entry holds. */
export enum SecretEntryKind {
  /** The cluster's REST endpoint with its port, e.g. `https://abc.cloud.qdrant.io:6333`. */
  REST_URL = 'rest-url',
  /** The cluster's gRPC endpoint with its port, e.g. `https://abc.cloud.qdrant.io:6334`. */
  GRPC_URL = 'grpc-url',
  /** The API key (a reference that Terraform resolves at apply time). */
  API_KEY = 'api-key',
}

/** One name/value pair that a secret target stores, e.g. `QDRANT_PROD_EU_API_KEY`. */
export interface SecretEntry {
  /** The name under which the app reads the value (after any prefix and override). */
  readonly name: string;

  /** What the entry holds. */
  readonly kind: SecretEntryKind;

  /** The value: an endpoint with its port, or for the key a token Terraform resolves at apply time. */
  readonly value: string;

  /** True for the key. A store must keep such a value secret (mark it sensitive). */
  readonly sensitive: boolean;

  /** True for the key of an ephemeral key: Terraform accepts `value` only in write-only attributes and provisioners. */
  readonly ephemeral: boolean;

  /**
   * The `keyVersion` of an ephemeral key, on its key entry: for the write-only attribute's version.
   * @default - none: not an ephemeral key, or one without a keyVersion
   */
  readonly keyVersion?: number;

  /** The key the entry belongs to. */
  readonly keyName: string;

  /** The cluster the entry belongs to. */
  readonly clusterName: string;
}

/** What `ISecretTarget.bind` receives. */
export interface SecretTargetBindOptions {
  /** Every entry from one `ClusterAccess`, each name once, in the order of keys and clusters. */
  readonly entries: SecretEntry[];

  /** The construct path of the `ClusterAccess`: tells its entries apart in a shared store. */
  readonly owner: string;

  /**
   * The health checks of the target's keys: whatever stores the entries depends on them, so a
   * failed check leaves the store as it was (docs/secret-targets.md: why not an output or a `terraform_data`).
   */
  readonly dependsOn: ITerraformDependable[];
}

/** What `ISecretTarget.bind` returns. */
export interface SecretTargetConfig {
  /**
   * Resources, data sources or modules of the `ClusterAccess`'s stack, created outside the bind
   * scope, that store the entries: they are made to wait for the health checks.
   * @default - none
   */
  readonly dependables?: ITerraformDependable[];
}

/** Where the app finds its Qdrant URLs and keys: a built-in `SecretTarget`, or a store of your own (implement `bind`). */
export interface ISecretTarget {
  /**
   * One line naming the store for messages and the setup guide, e.g. `.env file ".env"`; never a
   * secret. It also names the bind scope (so the Terraform addresses): keep it stable and distinct.
   */
  readonly description: string;

  /**
   * Create the resources that store the entries under `scope`, depending on `options.dependsOn`.
   * Called at synth once per `ClusterAccess` the target is attached to.
   */
  bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig;
}

/** How a key's entries are named in one target (defaults: `ApiKeyOptions.secretNaming`). */
export interface SecretNaming {
  /**
   * Put in front of every default name: `APP_` gives `APP_QDRANT_URL`.
   * @default - no prefix
   */
  readonly prefix?: string;

  /**
   * Replace names: default name (without prefix) → name used as is, e.g.
   * `{ QDRANT_PROD_EU_API_KEY: 'SEARCH_API_KEY' }`.
   * @default - the default names
   */
  readonly names?: { [defaultName: string]: string };
}

/** Options of the file targets `SecretTarget.dotenv()` and `SecretTarget.json()`. */
export interface FileSecretTargetOptions {
  /**
   * The file, relative to where synth runs, written on the deploying machine (created with mode
   * 0600 when missing, in a directory that must exist). docs/secret-targets.md has the details.
   */
  readonly path: string;
}

/** The built-in secret targets. */
export class SecretTarget {
  /**
   * Merge the entries into a managed block of a `.env` file once the health checks passed; remove
   * them on destroy. Other lines stay byte for byte.
   */
  public static dotenv(options: FileSecretTargetOptions): ISecretTarget {
    return new FileTarget('dotenv', options);
  }

  /**
   * Merge the entries into a JSON file's top-level object once the health checks passed; remove
   * them on destroy. Other members and the formatting are kept.
   */
  public static json(options: FileSecretTargetOptions): ISecretTarget {
    return new FileTarget('json', options);
  }

  /**
   * One sensitive Terraform output per entry, named like it, set only once the key's check
   * passed. Refused for an ephemeral key: Terraform keeps outputs in the state.
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

/** How the writer reads a key entry's variable: internal, so not part of `SecretEntry`. */
const INHERITED_KEYS = new WeakMap<SecretEntry, InheritedKey>();

export function withInheritedKey(entry: SecretEntry, key: InheritedKey | undefined): SecretEntry {
  if (key) INHERITED_KEYS.set(entry, key);
  return entry;
}

/** `SecretTarget.dotenv()` and `SecretTarget.json()` (private/file-writer.ts). */
export class FileTarget implements ISecretTarget {
  public readonly description: string;
  public readonly path: string;

  constructor(public readonly format: 'dotenv' | 'json', options: FileSecretTargetOptions) {
    const problems = checkStruct(options, FILE_SECRET_TARGET_OPTIONS, `SecretTarget.${format}(options)`);
    if (problems.length > 0) throw new Error(problems.join('; '));
    this.path = options.path;
    this.description = `${format === 'dotenv' ? '.env' : 'JSON'} file ${q(options.path)}`;
  }

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    const problems = filePathProblems(this.path, this.format);
    if (!names.isOwnerPath(options.owner)) problems.push(errors.ownerInvalid(options.owner));
    const file = path.resolve(this.path);
    if (problems.length === 0) {
      problems.push(...AppSupport.of(scope).claimFile(fileIdentity(file), file, this.format, scope.node.path, options.owner,
        options.entries.map((e) => ({ name: e.name, keyName: e.keyName }))));
    }
    if (problems.length > 0) return refused(scope, problems.map((p) => errors.target(this.description, p)));
    const entries = options.entries.map((e) => ({
      name: e.name, value: e.value, sensitive: e.sensitive, inherited: INHERITED_KEYS.get(e), ephemeral: e.ephemeral, keyVersion: e.keyVersion,
    }));
    const write = { file, format: this.format, owner: options.owner, entries, dependsOn: options.dependsOn, description: this.description };
    return { dependables: [writeFileEntries(scope, write)] };
  }
}

/** A binding refused: nothing stored, the problems reported at validation. */
function refused(scope: Construct, problems: string[]): SecretTargetConfig {
  scope.node.addValidation({ validate: () => problems });
  return {};
}

/** Outputs held back by a gate: a user's target may bind one inside its own. */
const GATED = new WeakSet<TerraformOutput>();

export function isGatedOutput(output: TerraformOutput): boolean {
  return GATED.has(output);
}

/**
 * `SecretTarget.terraformOutputs()`. Terraform writes outputs even when a dependency failed, so each
 * reads its value through a gate holding the values' hash (gate.ts; a hash, as a gate's output is not sensitive).
 */
export class OutputsTarget implements ISecretTarget {
  public readonly description = 'Terraform outputs';

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    const ephemeral = [...new Set(options.entries.filter((e) => e.ephemeral).map((e) => e.keyName))];
    if (ephemeral.length > 0) return refused(scope, ephemeral.map((k) => errors.target(this.description, errors.outputsEphemeral(k))));
    const support = StackSupport.of(scope);
    // One namespace with the library's own outputs and every other binding.
    const problems = [...new Set(options.entries
      .map((e) => ({ e, other: support.claim('output', e.name, `key "${e.keyName}" of ${scope.node.path}`) }))
      .filter((x) => x.other !== undefined)
      .map(({ e, other }) => ({ e, other: other!, sameAccess: other!.includes(` of ${options.owner}/`) }))
      // The same key in two outputs targets: one problem, not one per entry.
      .map(({ e, other, sameAccess }) => sameAccess && other.startsWith(`key "${e.keyName}" of `) ? errors.targetTwice(e.keyName, this.description)
        : errors.target(this.description, errors.entryClash(e.name, e.keyName, 'the outputs', other, sameAccess))))];
    if (problems.length > 0) return refused(scope, problems);
    const valuesSha256 = Fn.sha256(Fn.jsonencode(Object.fromEntries(options.entries.map((e) => [e.name, e.value]))));
    const gate = new Gate(scope, 'Verified', { input: { values_sha256: valuesSha256 }, dependsOn: options.dependsOn });
    // After a refresh-only apply the gate holds the checked hash: an unchecked value gives "", and
    // the precondition says why (an override: cdktf 0.21 does not write an output's precondition).
    const checked = [{ condition: gateHolds(gate, 'values_sha256', valuesSha256), error_message: errors.outputsNotChecked(DEPLOY_COMMAND) }];
    options.entries.forEach((entry, i) => {
      // A name may be "Verified", "" or hold "/": validation reports it, a constructs error would not.
      const id = scope.node.tryFindChild(`entry:${entry.name}`) ? `entry:${i}:${entry.name}` : `entry:${entry.name}`;
      const output = support.declared(new TerraformOutput(scope, id, {
        value: whenGateHolds(gate, 'values_sha256', valuesSha256, entry.value),
        sensitive: true,
        description: `${KIND_TEXT[entry.kind]} of Qdrant cluster "${entry.clusterName}" (key "${entry.keyName}"), once the key's health check passed`,
      }), entry.name);
      output.addOverride('precondition', checked);
      GATED.add(output);
    });
    if (options.entries.some((e) => e.sensitive)) warnKeysInLocalState(scope, 'outputs');
    return { dependables: [gate] };
  }
}
