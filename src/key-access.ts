import { Token } from 'cdktf';
import { errors } from './private/errors';
import { checkStruct, onlyByFactory } from './private/props';
import { names as nameRules } from './private/runtime';
import { KEY_ACCESS_COLLECTIONS, KEY_ACCESS_SYMBOL } from './private/schemas';

/** Collections a key's apps read, and read and write. See `KeyAccess.collections()`. */
export interface CollectionAccessOptions {
  /**
   * Collections the apps only read: the key must read each one, and must not write it.
   * @default - none
   */
  readonly read?: string[];

  /**
   * Collections the apps read and write. The key must be able to write each one.
   * @default - none
   */
  readonly readWrite?: string[];
}

/**
 * The access a key's apps need: the health check proves it with probes that change nothing.
 *
 * @example
 * apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], access: KeyAccess.readOnly() }]
 */
export class KeyAccess {
  /** Read everything, write nothing: a cluster-wide read-only key. */
  public static readOnly(): KeyAccess {
    return new KeyAccess('read-only', [], [], FACTORY);
  }

  /** Manage the whole cluster: create and delete collections, write anywhere (a manage key). */
  public static manage(): KeyAccess {
    return new KeyAccess('manage', [], [], FACTORY);
  }

  /**
   * Exactly these collections (which must exist on every granted cluster), nothing cluster-wide.
   * Throws for no collection, a name listed twice or in both lists, or an invalid name (1-255
   * characters, none of `/ \ : * ? " < > | ,`, no `${`, no token or JWT).
   */
  public static collections(options: CollectionAccessOptions): KeyAccess {
    const problems = checkStruct(options, KEY_ACCESS_COLLECTIONS, 'KeyAccess.collections(options)');
    const read = Array.isArray(options?.read) ? options.read : [];
    const write = Array.isArray(options?.readWrite) ? options.readWrite : [];
    for (const [where, names] of [['read', read], ['readWrite', write]] as const) {
      for (const name of names) if (!isCollectionName(name)) problems.push(errors.collectionName(`KeyAccess.collections ${where}`, name));
      const repeated = new Set(names.filter((name, i) => typeof name === 'string' && names.indexOf(name) !== i));
      for (const name of repeated) problems.push(errors.collectionListedTwice(`KeyAccess.collections ${where}`, name));
    }
    if (problems.length === 0 && read.length + write.length === 0) problems.push(errors.collectionsEmpty());
    for (const name of new Set(read)) if (write.includes(name)) problems.push(errors.collectionTwice(name));
    // A value object has no scope to report to: it refuses at once.
    if (problems.length > 0) throw new Error(problems.join('; '));
    return new KeyAccess('collections', [...read], [...write], FACTORY);
  }

  /** Return whether the given object is a `KeyAccess` (works across copies of this package). */
  public static isKeyAccess(x: any): x is KeyAccess {
    return x !== null && typeof x === 'object' && KEY_ACCESS_SYMBOL in x;
  }

  /** In words, e.g. `read-only (cluster-wide)` or `collections: read products, read-write orders`. */
  public readonly description: string;

  private constructor(private readonly mode: string, private readonly read: string[], private readonly write: string[], factory: symbol) {
    onlyByFactory(factory, FACTORY, errors.accessWithNew());
    Object.defineProperty(this, KEY_ACCESS_SYMBOL, { value: true });
    this.description = mode === 'collections'
      ? `collections: ${[...read.map((c) => `read ${c}`), ...write.map((c) => `read-write ${c}`)].join(', ')}`
      : `${mode} (cluster-wide)`;
  }

  /** The collections the apps only read. */
  public get readCollections(): string[] {
    return [...this.read];
  }

  /** The collections the apps read and write. */
  public get readWriteCollections(): string[] {
    return [...this.write];
  }

  /** @internal The checker's `--access`. */
  public _checkerAccess(): string {
    return this.mode;
  }
}

const FACTORY = Symbol('KeyAccess');

/** The runtime's rule (runtime/names.ts), plus no token or "${" / "%{": the names reach Terraform strings. */
function isCollectionName(name: unknown): name is string {
  return nameRules.isCollectionName(name) && !Token.isUnresolved(name) && !/[$%]\{/.test(name);
}
