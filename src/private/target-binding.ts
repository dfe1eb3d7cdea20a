/**
 * Binds a `ClusterAccess`'s secret targets at synth, each once under `SecretTargets/<description>`;
 * whatever a target creates or returns waits for its keys' health checks.
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

/** Binds every planned target under `access` (`bound`: each with its bind scope's path); the expiry gates wait for the keys' targets too. */
export function bindSecretTargets(access: Construct, plans: SecretTargetPlan[], checksOf: ReadonlyMap<ApiKey, TerraformResource>,
  expiryGates: ReadonlyMap<ApiKey, TerraformResource>) {
  const bound: { target: ISecretTarget; path: string }[] = [];
  const problems: string[] = [];
  if (plans.length === 0) return { bound, problems };
  const scope = new Construct(access, 'SecretTargets');
  const stack = TerraformStack.of(access);
  const bases = baseIds(plans);
  for (const plan of plans) {
    const checks = plan.keys.flatMap((k) => checksOf.get(k) ?? []);
    const bindScope = new Construct(scope, uniqueId(scope, bases.get(plan)!));
    bound.push({ target: plan.target, path: bindScope.node.path });
    const config: unknown = plan.target.bind(bindScope, { entries: plan.entries, owner: access.node.path, dependsOn: checks });
    // The result is checked by value (any language).
    const waiting: Waiting[] = bindScope.node.findAll().filter(canWait);
    const returned = isObject(config) ? config.dependables : undefined;
    const description = plan.target.description;
    if (returned !== undefined && returned !== null && !Array.isArray(returned)) {
      problems.push(errors.dependablesNotList(description, returned));
    }
    for (const d of Array.isArray(returned) ? returned as unknown[] : []) {
      if (!canWait(d)) {
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
      for (const gate of plan.keys.flatMap((k) => expiryGates.get(k) ?? [])) waitFor(gate, waiting);
      // Terraform writes an output even when a check fails: only terraformOutputs() holds back.
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

/** A data source is read at apply, after the checks; an output cannot wait. */
type Waiting = TerraformResource | TerraformDataSource | TerraformModule;

function canWait(x: unknown): x is Waiting {
  return TerraformResource.isTerraformResource(x) || TerraformDataSource.isTerraformDataSource(x) || isModule(x);
}

/** A TerraformModule, possibly from another copy of cdktf (by shape). */
function isModule(x: unknown): x is TerraformModule {
  if (x instanceof TerraformModule) return true;
  const m = x as { source?: unknown; interpolationForOutput?: unknown; addProvider?: unknown; friendlyUniqueId?: unknown } | null;
  return m !== null && typeof m === 'object' && typeof m.source === 'string' && typeof m.interpolationForOutput === 'function' &&
    typeof m.addProvider === 'function' && typeof m.friendlyUniqueId === 'string';
}

/** Adds each of `on` to `node`'s dependsOn, once. */
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
  // "constructor" or "toString" is found in constructs' plain object of children: it gets a number too.
  for (let n = 2; scope.node.tryFindChild(id) !== undefined; n++) id = `${base}-${n}`;
  return id;
}

function baseId(description: string): string {
  return description.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'target';
}

/**
 * The base of each target's construct id: its description, cleaned and cut to 60. Different
 * descriptions giving one base get their first 51 and a sha256 prefix instead: with `-2`, a
 * reorder would swap addresses, and a replaced registration could remove another's entries.
 */
function baseIds(plans: SecretTargetPlan[]): Map<SecretTargetPlan, string> {
  const descriptions = plans.map((p) => String(p.target.description));
  const byBase = new Map<string, Set<string>>();
  for (const d of descriptions) byBase.set(baseId(d), (byBase.get(baseId(d)) ?? new Set()).add(d));
  return new Map(plans.map((p, i) => {
    const base = baseId(descriptions[i]);
    if (byBase.get(base)!.size === 1) return [p, base];
    const hash = createHash('sha256').update(descriptions[i]).digest('hex').slice(0, 8);
    return [p, `${base.slice(0, 51).replace(/-+$/, '')}-${hash}`];
  }));
}

/** Targets of one description: only their order tells them apart (`…-2`), so they get a warning. */
function clashingTargets(plans: SecretTargetPlan[]): string[][] {
  // terraformOutputs() targets' outputs are named by entry: a moved gate does not matter.
  const descriptions = plans.filter((p) => !(p.target instanceof OutputsTarget)).map((p) => String(p.target.description));
  return [...new Set(descriptions)].map((d) => descriptions.filter((x) => x === d)).filter((group) => group.length > 1);
}
