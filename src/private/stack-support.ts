/**
 * What the constructs of one stack (and of one app) share: the runtime asset, the providers,
 * synthesis hooks, and the names unique across every `ClusterAccess` (outputs, variables, files).
 */
import * as fs from 'fs';
import * as path from 'path';
import { App, Aspects, IStackSynthesizer, ISynthesisSession, Lazy, Manifest, TerraformAsset, TerraformElement, TerraformOutput, TerraformStack, TerraformVariable } from 'cdktf';
import { Construct, IConstruct } from 'constructs';
import { writeVersionFiles } from './ephemeral';
import { errors } from './errors';
import { PROVIDERS, addProvider, dedupeProvider } from './providers';
import { names, runtimeAsset } from './runtime';
import { terraformLiteralProblem } from './stack-strings';
import { GUIDE_FILE_NAME } from '../setup-guide/markdown';

type AfterSynth = (stackDir: string) => void;

/** A per-stack or per-app singleton: a child with a fixed id (a static cache would leak between apps). */
function singleton<T extends IConstruct>(scope: IConstruct, create: (scope: IConstruct, id: string) => T): T {
  return (scope.node.tryFindChild('QdrantClusterAccess') as T | undefined) ?? create(scope, 'QdrantClusterAccess');
}

/** Per stack: created on first use as the stack's child `QdrantClusterAccess`. */
export class StackSupport extends Construct {
  public static of(scope: IConstruct): StackSupport {
    return singleton(TerraformStack.of(scope), (stack, id) => new StackSupport(stack as TerraformStack, id));
  }

  private asset?: TerraformAsset;
  private readonly after = new Map<string, AfterSynth>();
  private readonly done = new Set<string>();
  /** path in the stack's directory → text (input-file.ts) */
  private readonly inputs = new Map<string, string>();
  private readonly keys: { _plaintextProblems(): string[] }[] = [];
  /** `variable <name>` or `output <name>` → the path of its first claimant. */
  private readonly claims = new Map<string, string>();
  private readonly ephemeralKeys: string[] = [];
  /** The variables and outputs the library declared under a claimed name. */
  private readonly ours = new WeakSet<TerraformElement>();

  private constructor(stack: TerraformStack, id: string) {
    super(stack, id);
    const inner = stack.synthesizer;
    stack.synthesizer = {
      synthesize: (session: ISynthesisSession) => {
        this.inputs.clear();
        // Validation may be skipped (cdktf suggests it): a plaintext key must still never reach cdk.tf.json.
        if (session.skipValidation) {
          const problems = this.keys.flatMap((k) => k._plaintextProblems());
          if (problems.length > 0) throw new Error(errors.plaintextGuard(problems));
        }
        inner.synthesize(session);
        const dir = path.join(session.outdir, session.manifest.forStack(stack).workingDirectory);
        for (const [file, text] of this.inputs) {
          fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
          fs.writeFileSync(path.join(dir, file), text);
        }
        // Also when no key is ephemeral (any more): then the files are removed.
        writeVersionFiles(dir, this.ephemeralKeys);
        for (const hook of this.after.values()) hook(dir);
      },
    } satisfies IStackSynthesizer;
    // At synth, a provider the user added after our constructs replaces ours.
    Aspects.of(this).add({
      visit: (node) => {
        if (node !== this) return;
        for (const type of Object.keys(PROVIDERS) as (keyof typeof PROVIDERS)[]) dedupeProvider(stack, type);
      },
    });
    this.node.addValidation({ validate: () => this.sharedNames(stack) });
  }

  /**
   * Claimed names that a user's variable or output has too: Terraform would keep one of them.
   * Clashes among our own elements are the claims' to report.
   */
  private sharedNames(stack: TerraformStack): string[] {
    const holders = new Map<string, (TerraformVariable | TerraformOutput)[]>();
    for (const c of stack.node.findAll()) {
      if (!(c instanceof TerraformVariable || c instanceof TerraformOutput)) continue;
      const id = `${c instanceof TerraformVariable ? 'variable' : 'output'} ${c.friendlyUniqueId}`;
      if (this.claims.has(id)) holders.set(id, [...(holders.get(id) ?? []), c]);
    }
    return [...holders].filter(([, h]) => h.length > 1 && h.some((c) => !this.ours.has(c))).map(([id, h]) => {
      const [kind, name] = id.split(' ');
      return errors.sharedTerraformName(kind as 'variable' | 'output', name, h.map((c) => c.node.path));
    });
  }

  /** The runtime (checker and writer), copied once into the stack. */
  public get runtime(): TerraformAsset {
    return (this.asset ??= runtimeAsset(this, 'Runtime'));
  }

  /** The stack needs this provider (http: the Terraform check engine): ours is added unless the stack has one. */
  public useProvider(type: keyof typeof PROVIDERS): void {
    addProvider(TerraformStack.of(this), type);
  }

  /**
   * The stack's setup guide relative to where synth runs, for messages; just the file name when
   * outside it (a temp dir of `Testing.app()`: stable stacks) or not plain text.
   */
  public guideFile(): string {
    const stack = TerraformStack.of(this);
    return Lazy.stringValue({
      produce: () => {
        const file = path.relative(process.cwd(), path.resolve(App.of(stack).outdir, Manifest.stacksFolder, stack.node.id, GUIDE_FILE_NAME));
        const outside = file.startsWith('..') || path.isAbsolute(file);
        return outside || terraformLiteralProblem(file) || /\s/.test(file) ? GUIDE_FILE_NAME : file.split(path.sep).join('/');
      },
    });
  }

  /** Writes `text` into `file` (relative to the stack's directory) at this synthesis. */
  public addInputFile(file: string, text: string): void {
    this.inputs.set(file, text);
  }

  /** True the first time it is asked about `what` in this stack (a warning given once per stack). */
  public firstTime(what: string): boolean {
    if (this.done.has(what)) return false;
    this.done.add(what);
    return true;
  }

  /** Runs `hook` after each synthesis of the stack; one hook per id. */
  public afterSynth(id: string, hook: AfterSynth): void {
    if (!this.after.has(id)) this.after.set(id, hook);
  }

  /** The stack has an ephemeral key: older Terraform must fail at init saying so (ephemeral.ts). */
  public requireEphemeralVariables(name: string): void {
    this.ephemeralKeys.push(name);
  }

  /** A key whose plaintext problems are checked even when validation is skipped. */
  public guardKey(key: { _plaintextProblems(): string[] }): void {
    this.keys.push(key);
  }

  /** Records a variable or output the library declared under a claimed name (see sharedNames). */
  public declared<T extends TerraformVariable | TerraformOutput>(element: T, name: string): T {
    element.overrideLogicalId(name);
    this.ours.add(element);
    return element;
  }

  /** Claims a Terraform variable or output name (one namespace for all the library's outputs); returns an earlier owner's path. */
  public claim(kind: 'variable' | 'output', name: string, ownerPath: string): string | undefined {
    const id = `${kind} ${name}`;
    const first = this.claims.get(id);
    if (first === undefined) this.claims.set(id, ownerPath);
    return first === ownerPath ? undefined : first;
  }
}

/** Per app: created on first use as the app's child `QdrantClusterAccess`. */
export class AppSupport extends Construct {
  public static of(scope: IConstruct): AppSupport {
    return singleton(scope.node.root, (root, id) => new AppSupport(root, id));
  }

  /** File identity → format, first binding, each owner's binding, and the entry names claimed. */
  private readonly files = new Map<string, { format: string; path: string; owners: Map<string, string>; entries: Map<string, string> }>();

  /** A key variable → the first key (and its stack) that declared it. */
  private readonly keyVariables = new Map<string, { stack: string; key: string }>();

  private constructor(scope: IConstruct, id: string) {
    super(scope as Construct, id);
  }

  /** Returns the key of another stack that declared the same variable first (one `TF_VAR_...`). */
  public keyVariableInOtherStack(variable: string, key: IConstruct): string | undefined {
    const stack = TerraformStack.of(key).node.path;
    const first = this.keyVariables.get(variable);
    if (first === undefined) this.keyVariables.set(variable, { stack, key: key.node.path });
    return first?.stack === stack ? undefined : first?.key;
  }

  /** The construct path of the first secret target bound to this file, if any. */
  public secretFileOwner(identity: string): string | undefined {
    return this.files.get(identity)?.path;
  }

  /** Claims entry names in a file (whatever the stack); returns the problems. */
  public claimFile(
    identity: string, shownFile: string, format: string, bindingPath: string, owner: string, entries: { name: string; keyName: string }[],
  ): string[] {
    const file = this.files.get(identity) ?? { format, path: bindingPath, owners: new Map<string, string>(), entries: new Map<string, string>() };
    this.files.set(identity, file);
    if (file.format !== format) return [errors.fileFormatClash(shownFile, format, file.format, file.path)];
    // One owner has one block (or sidecar record) per file: a second binding would replace the first's entries.
    const ownBinding = file.owners.get(owner);
    if (ownBinding !== undefined) return [errors.fileTwiceInAccess(shownFile, format, ownBinding)];
    // Nor may two accesses share one owner in some workspace (`Q` there, `Q@<workspace>` in the default one).
    const problems: string[] = [];
    for (const other of file.owners.keys()) {
      for (const [one, elsewhere] of [[owner, other], [other, owner]]) {
        const workspace = names.workspaceSharingOwner(one, elsewhere);
        if (workspace !== undefined) problems.push(errors.ownerSharedInWorkspace(shownFile, one, elsewhere, workspace));
      }
    }
    if (problems.length > 0) return problems;
    file.owners.set(owner, bindingPath);
    for (const e of entries) {
      const other = file.entries.get(e.name);
      if (other !== undefined) problems.push(errors.entryClash(e.name, e.keyName, `file ${JSON.stringify(shownFile)}`, other, false));
    }
    if (problems.length === 0) for (const e of entries) file.entries.set(e.name, `key "${e.keyName}" of ${bindingPath}`);
    return problems;
  }
}

/** Whether the construct at `path` has the same parent as `c` (a clash its ClusterAccess reports itself). */
export function isSibling(c: IConstruct, otherPath: string): boolean {
  const parent = c.node.scope?.node.path;
  return parent !== undefined && otherPath.startsWith(`${parent}/`) && !otherPath.slice(parent.length + 1).includes('/');
}

/** One file however spelled: its directory's real path (if it exists yet) and its name. */
export function fileIdentity(file: string): string {
  let dir = path.dirname(file);
  try {
    dir = fs.realpathSync(dir);
  } catch {
    // a directory created later: its spelling is all there is
  }
  return path.join(dir, path.basename(file));
}
