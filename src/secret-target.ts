import * as fs from 'fs';
import * as path from 'path';
import { resource } from '@cdktf/provider-null';
import { AssetType, Fn, ITerraformDependable, TerraformAsset, TerraformOutput, TerraformStack, Token } from 'cdktf';
import { Construct } from 'constructs';
import { q } from './private/naming';
import { ensureNullProvider } from './private/null-provider';

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

  /** The key the entry belongs to. */
  readonly keyName: string;

  /** The cluster the entry belongs to. */
  readonly clusterName: string;

  /**
   * For a key read from a Terraform variable: the environment variable Terraform reads it from
   * (`TF_VAR_<name>`). A `local-exec` provisioner inherits it, so a provisioner that reads the key
   * from there keeps its output visible (Terraform hides the output of a provisioner whose
   * configuration holds a sensitive value).
   * @default - none (URLs, and keys from `ApiKeySource.fromToken`)
   */
  readonly inheritedEnvironmentVariable?: string;
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
}

/**
 * What `ISecretTarget.bind` returns.
 */
export interface SecretTargetConfig {
  /**
   * The resources that store the entries. The health checks of the target's keys depend on
   * them, so a deploy writes the entries before it checks the keys.
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
   */
  readonly description: string;

  /**
   * Create the resources that store the entries, under `scope`. Called once per `ClusterAccess`
   * that the target is attached to, at synth, when every key and grant is known.
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
   * Put in front of every default name: `APP_` gives `APP_QDRANT_URL`. Letters, digits and `_`.
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
   */
  readonly path: string;
}

/**
 * The built-in secret targets.
 */
export class SecretTarget {
  /**
   * Merge the entries into a `.env` file at deploy time, and remove them on destroy. Lines that
   * are not ours stay byte for byte; our entries are updated in place, or appended in a block
   * marked as managed. Values are quoted so that both the `dotenv` npm parser and python-dotenv
   * read them back exactly.
   */
  public static dotenv(options: FileSecretTargetOptions): ISecretTarget {
    return new FileTarget('dotenv', options);
  }

  /**
   * Merge the entries into the top-level object of a JSON file at deploy time, and remove them
   * on destroy. Other members and the file's formatting are kept.
   */
  public static json(options: FileSecretTargetOptions): ISecretTarget {
    return new FileTarget('json', options);
  }

  /**
   * One sensitive Terraform output per entry, named like the entry (`QDRANT_URL`), for pipelines
   * that read outputs (`terraform output -raw QDRANT_API_KEY`).
   */
  public static terraformOutputs(): ISecretTarget {
    return new OutputsTarget();
  }

  private constructor() {}
}

/** `SecretTarget.dotenv()` and `SecretTarget.json()`. */
class FileTarget implements ISecretTarget {
  public readonly description: string;

  constructor(private readonly format: 'dotenv' | 'json', private readonly options: FileSecretTargetOptions) {
    this.description = `${format === 'dotenv' ? '.env' : 'JSON'} file ${q(options.path)}`;
  }

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    const problem = this.pathProblem();
    if (problem) {
      scope.node.addValidation({ validate: () => [`secret target ${this.description}: ${problem}`] });
      return {};
    }
    const file = path.resolve(this.options.path);
    const clash = claimNames(scope, `file ${file}`, options);
    if (clash) {
      scope.node.addValidation({ validate: () => [`secret target ${this.description}: ${clash}`] });
      return {};
    }
    const writer = writerAsset(scope);
    const cli = `${writer.path}/cli.js`;
    const names = options.entries.map((e) => e.name);

    // Knows where our entries are; removes them on destroy. A destroy-time provisioner may only
    // read `self`, so everything it needs is in the triggers (none of it secret). The writer's
    // path is literal text: on a replacement, Terraform runs the current configuration's
    // provisioner, whose writer exists.
    const registration = new resource.Resource(scope, 'Registration', {
      triggers: { file, format: this.format, owner: options.owner, names: JSON.stringify(names) },
      provisioners: [{
        type: 'local-exec',
        when: 'destroy',
        command: `node "${cli}" remove --file "$QCA_FILE" --format "$QCA_FORMAT" --owner "$QCA_OWNER"`,
        environment: {
          QCA_FILE: '${self.triggers.file}',
          QCA_FORMAT: '${self.triggers.format}',
          QCA_OWNER: '${self.triggers.owner}',
          QCA_ENTRIES: '${self.triggers.names}',
        },
      }],
    });

    // Writes the values. Replaced when a value changes (a rotated key), which rewrites the
    // entries in place; it has no destroy step, so a rotation never removes them first.
    const plain: Record<string, string> = {};
    const fromEnv: Record<string, string> = {};
    const environment: Record<string, string> = {
      QCA_FILE: file,
      QCA_OWNER: options.owner,
    };
    let secrets = 0;
    for (const entry of options.entries) {
      if (entry.inheritedEnvironmentVariable) {
        fromEnv[entry.name] = entry.inheritedEnvironmentVariable;
      } else if (entry.sensitive) {
        // From another resource: Terraform must hand it over, which hides this step's output.
        const variable = `QCA_SECRET_${++secrets}`;
        environment[variable] = entry.value;
        fromEnv[entry.name] = variable;
      } else {
        plain[entry.name] = entry.value;
      }
    }
    environment.QCA_ENTRIES = jsonText(plain);
    environment.QCA_ENTRIES_FROM_ENV = JSON.stringify(fromEnv);
    const values = Object.fromEntries(options.entries.map((e) => [e.name, e.value]));
    const write = new resource.Resource(scope, 'Write', {
      triggers: {
        registration: registration.id,
        values_sha256: Fn.sha256(Fn.jsonencode(values)),
        writer: writer.assetHash,
      },
      provisioners: [{
        type: 'local-exec',
        command: `node "${cli}" write --file "$QCA_FILE" --format ${this.format} --owner "$QCA_OWNER"`,
        environment,
      }],
    });
    ensureNullProvider(scope);
    return { dependables: [write] };
  }

  private pathProblem(): string | undefined {
    const p = this.options.path;
    if (Token.isUnresolved(p)) return 'the path is a token; give a path known at synth, such as ".env"';
    if (p.trim() === '') return 'the path is empty; give the path of a file, such as ".env"';
    if (/[$%]\{/.test(p)) return 'the path holds "${" or "%{", which Terraform would read as an expression; rename the file';
    const resolved = path.resolve(p);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(resolved);
    } catch {
      return undefined; // created at deploy; a missing directory is reported then, with the path
    }
    if (stat.isDirectory()) {
      return `${q(resolved)} is a directory; give the path of a file inside it, such as ${q(path.join(p, this.format === 'dotenv' ? '.env' : 'secrets.json'))}`;
    }
    if (stat.isSymbolicLink()) {
      return `${q(resolved)} is a symbolic link, which the writer refuses (it would replace the link with a file); give the path of the real file`;
    }
    return undefined;
  }
}

/** `SecretTarget.terraformOutputs()`. */
class OutputsTarget implements ISecretTarget {
  public readonly description = 'Terraform outputs';

  public bind(scope: Construct, options: SecretTargetBindOptions): SecretTargetConfig {
    const clash = claimNames(scope, 'the outputs', options);
    if (clash) {
      scope.node.addValidation({ validate: () => [`secret target ${this.description}: ${clash}`] });
      return {};
    }
    for (const entry of options.entries) {
      const output = new TerraformOutput(scope, entry.name, {
        value: entry.value,
        sensitive: true,
        description: `${KIND_TEXT[entry.kind]} of Qdrant cluster "${entry.clusterName}" (key "${entry.keyName}")`,
      });
      output.overrideLogicalId(entry.name);
    }
    return {};
  }
}

const KIND_TEXT: Record<SecretEntryKind, string> = {
  [SecretEntryKind.REST_URL]: 'REST endpoint',
  [SecretEntryKind.GRPC_URL]: 'gRPC endpoint',
  [SecretEntryKind.API_KEY]: 'API key',
};

/** JSON text of a map whose values may be tokens (then Terraform encodes it at apply time). */
function jsonText(map: Record<string, string>): string {
  return Object.values(map).some((v) => Token.isUnresolved(v)) ? Fn.jsonencode(map) : JSON.stringify(map);
}

/** Per stack and store (a file, or the outputs): each entry name with who writes it. */
const claims = new WeakMap<TerraformStack, Map<string, Map<string, string>>>();

/**
 * Record the names a binding writes into a store shared by the whole stack. Returns a problem
 * when another binding already writes one of them there: two writers of one name would
 * overwrite each other, and the destroy of one would remove the other's entry.
 */
function claimNames(scope: Construct, store: string, options: SecretTargetBindOptions): string | undefined {
  const stack = TerraformStack.of(scope);
  const stores = claims.get(stack) ?? new Map<string, Map<string, string>>();
  claims.set(stack, stores);
  const names = stores.get(store) ?? new Map<string, string>();
  stores.set(store, names);
  for (const entry of options.entries) {
    const other = names.get(entry.name);
    if (other !== undefined) {
      return `entry ${q(entry.name)} (key ${q(entry.keyName)}) is already written to ${store} by ${other}; ` +
        'attach both keys to one target, or give one of them a prefix (secretNaming: { prefix: "..." })';
    }
  }
  for (const entry of options.entries) names.set(entry.name, `key ${q(entry.keyName)} of ${options.owner}`);
  return undefined;
}

const WRITER_ID = 'QdrantClusterAccessWriter';

/** The writer, copied once into each stack that uses a file target. */
function writerAsset(scope: Construct): TerraformAsset {
  const stack = TerraformStack.of(scope);
  return (stack.node.tryFindChild(WRITER_ID) as TerraformAsset | undefined)
    ?? new TerraformAsset(stack, WRITER_ID, { path: WRITER_DIR, type: AssetType.DIRECTORY });
}

/** The runtime writer, shipped in the package next to lib/. */
const WRITER_DIR = path.join(__dirname, '..', 'assets', 'writer');
