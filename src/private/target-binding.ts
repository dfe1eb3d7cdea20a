/**
 * The binding of a `ClusterAccess`'s secret targets, at synth, when every key and grant is known
 * (the entry names depend on how many clusters each target receives): each target once, under
 * `SecretTargets/<its description>`, and whatever it creates or returns waits for the health checks
 * of its keys. Not exported.
 */
import { createHash } from 'crypto';
import { Annotations, ITerraformDependable, TerraformDataSource, TerraformModule, TerraformOutput, TerraformResource, TerraformStack, dependable } from 'cdktf';
import { Construct } from 'constructs';
import type { ApiKey } from '../api-key';
import { ISecretTarget, OutputsTarget, isGatedOutput } from '../secret-target';
import { errors } from './errors';
import { isObject } from './props';
import { resolveIn } from './references';
import { SecretTargetPlan } from './secret-plan';

/** A target, and the construct path where it was bound. */
export interface BoundTarget {
  readonly target: ISecretTarget;
  readonly path: string;
}

/**
 * Binds every planned target under `access`. `checksOf`: the health check of each key (none when
 * checks are disabled); `expiryGates`: the gate of each checked key's expiry output, which waits
 * for the key's targets too. Returns the targets as bound, and the problems of what they did.
 */
export function bindSecretTargets(access: Construct, plans: SecretTargetPlan[], checksOf: ReadonlyMap<ApiKey, TerraformResource>,
  expiryGates: ReadonlyMap<ApiKey, TerraformResource>): { bound: BoundTarget[]; problems: string[] } {
  const bound: BoundTarget[] = [];
  const problems: string[] = [];
  if (plans.length === 0) return { bound, problems };
  const scope = new Construct(access, 'SecretTargets');
  const stack = TerraformStack.of(access);
  const bases = baseIds(plans);
  for (const plan of plans) {
    const checks = plan.keys.map((k) => checksOf.get(k)).filter((c): c is TerraformResource => c !== undefined);
    const bindScope = new Construct(scope, uniqueId(scope, bases.get(plan)!));
    bound.push({ target: plan.target, path: bindScope.node.path });
    const config: unknown = plan.target.bind(bindScope, { entries: plan.entries, owner: access.node.path, dependsOn: checks });
    // Whatever the target did: the resources, data sources and modules it created here, and
    // those it returned, wait for the checks. The result is checked by value (any language).
    const waiting: Waiting[] = bindScope.node.findAll().filter(canWait);
    const returned = isObject(config) ? config.dependables : undefined;
    const description = plan.target.description;
    if (returned !== undefined && returned !== null && !Array.isArray(returned)) {
      problems.push(errors.dependablesNotList(description, returned));
    }
    for (const d of Array.isArray(returned) ? returned as unknown[] : []) {
      if (!canWait(d)) {
        // Nothing to wait for without checks (healthCheck.enabled false): accepted.
        if (checks.length > 0) problems.push(errors.dependableCannotWait(description, d));
      } else if (TerraformStack.of(d) !== stack) {
        // Silently dropped when that stack was synthesized already, else a depends_on to nothing it declares.
        if (checks.length > 0) problems.push(errors.dependableOtherStack(description, d, TerraformStack.of(d).node.path, stack.node.path));
      } else {
        waiting.push(d);
      }
    }
    if (checks.length > 0) {
      for (const node of waiting) waitFor(node, checks);
      // A key's expiry date shows once its targets hold it (a write can fail after the check passed).
      for (const k of plan.keys) {
        const gate = expiryGates.get(k);
        if (gate) waitFor(gate, waiting);
      }
      // Terraform writes an output even when a check fails (and after a failed apply, from the
      // prior state and the new variables), whatever resources its value also refers to: only
      // terraformOutputs() holds its values back, through its gate. One returned is reported above.
      for (const output of bindScope.node.findAll()) {
        if (TerraformOutput.isTerraformOutput(output) && !isGatedOutput(output) && !(Array.isArray(returned) && returned.includes(output))) {
          problems.push(errors.outputCannotWait(description, output));
        }
      }
    }
  }
  for (const group of clashingTargets(plans)) Annotations.of(scope).addWarning(errors.targetsByOrder(group));
  return { bound, problems };
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
export function targetSignature(plans: SecretTargetPlan[]): string {
  return JSON.stringify(plans.map((p) => [p.target.description, p.entries.map((e) => e.name)]));
}

/** A construct id from its base: unique within scope (`-2`, `-3` for targets of the same description). */
function uniqueId(scope: Construct, base: string): string {
  let id = base;
  // constructs keeps children in a plain object: "constructor" or "toString" is found there (and
  // refused as taken when added), so such an id, like a taken one, gets a number too.
  for (let n = 2; scope.node.tryFindChild(id) !== undefined; n++) id = `${base}-${n}`;
  return id;
}

/** The readable part of a target's construct id: its description, cleaned and cut to 60 characters. */
function baseId(description: string): string {
  return String(description).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'target';
}

/**
 * The base of each target's construct id (and so of its Terraform addresses): its description,
 * cleaned and cut to 60 characters. Different descriptions that give one base (alike in their first
 * 60 characters, or in characters the cleaning replaces) get the first 51 and 8 hex digits of the
 * description's SHA-256 instead: then no address depends on the order of the keys (with `-2`, a
 * reorder would swap two targets' addresses, and the replaced registrations' destroy steps could
 * take the entries out of the file the other target just wrote). Such a target's address moved
 * once from what it was before issue #29; a moved file target's old resources leave the state
 * without running their destroy step, and the new ones write the same entries.
 */
function baseIds(plans: SecretTargetPlan[]): Map<SecretTargetPlan, string> {
  const byBase = new Map<string, Set<string>>();
  for (const p of plans) {
    const base = baseId(p.target.description);
    byBase.set(base, (byBase.get(base) ?? new Set()).add(String(p.target.description)));
  }
  return new Map(plans.map((p) => {
    const description = String(p.target.description);
    const base = baseId(description);
    if (byBase.get(base)!.size === 1) return [p, base];
    const hash = createHash('sha256').update(description).digest('hex').slice(0, 8);
    return [p, `${base.slice(0, 51).replace(/-+$/, '')}-${hash}`];
  }));
}

/**
 * Descriptions of targets that share their description with another target: only their order
 * tells them apart (`…-2`), so reordering keys swaps their Terraform addresses. They are warned about.
 */
function clashingTargets(plans: SecretTargetPlan[]): string[][] {
  const byDescription = new Map<string, string[]>();
  // terraformOutputs() targets: their outputs are named by entry, and a moved gate replaces nothing that matters.
  for (const p of plans.filter((x) => !(x.target instanceof OutputsTarget))) {
    const description = String(p.target.description);
    byDescription.set(description, [...(byDescription.get(description) ?? []), description]);
  }
  return [...byDescription.values()].filter((group) => group.length > 1);
}
