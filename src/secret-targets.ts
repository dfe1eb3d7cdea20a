import { FileTarget } from './private/file-target';
import { OutputsTarget } from './private/outputs-target';
import { FileSecretTargetOptions, ISecretTarget } from './secret-target';

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
   * only once its health check has passed: a failed check leaves them as they were.
   */
  public static terraformOutputs(): ISecretTarget {
    return new OutputsTarget();
  }

  private constructor() {}
}

