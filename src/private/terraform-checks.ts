/**
 * `CheckEngine.TERRAFORM`: `data "http"` sources whose postconditions come from the probe table
 * (terraform-verdicts.ts), read at every plan. Per cluster (keyless): root and enforced; per
 * grant: the key step and the access probes. Every URL after root is built on root's, so the key
 * is sent only once root proved Qdrant (no depends_on: a read would wait for the apply). A key not
 * set or breaking a key rule sends nothing (`count` 0); the key's gate says why.
 */
import { STATUS_CODES } from 'http';
import { TerraformLocal, TerraformResource, dependable } from 'cdktf';
import { Construct } from 'constructs';
import type { ApiKey } from '../api-key';
import type { Cluster } from '../cluster';
import type { CheckSettings } from '../health-check';
import { errors, grantLabel, plainName } from './errors';
import { DEPLOY_COMMAND } from './framework';
import { Gate } from './gate';
import { CheckBlock, HttpDataSource } from './http-data-source';
import { expHcl, expiresAtHcl, jwtPayloadHcl } from './key-expiry';
import { warnKeysInLocalState } from './local-state';
import { BACKOFF, messageTemplate, names, probes, protocol } from './runtime';
import { StackSupport } from './stack-support';
import { KeyExpressions, Part, ProbeContext, Rule, bound, escapeTemplate, failureParts, fill, firstMatchIs, hclString, probeRules, template } from './terraform-verdicts';

const PROBES = probes.PROBES as { readonly [id in probes.ProbeId]: probes.Probe };
const local = (l: TerraformLocal) => `local.${l.friendlyUniqueId}`;

/** The Terraform engine of one ClusterAccess: shared locals, a gate per key, data sources at synth. */
export class TerraformChecks extends Construct {
  private readonly gates = new Map<ApiKey, { gate: Gate; key: KeyLocals }>();
  private readonly now: TerraformLocal;
  private readonly statusTexts: TerraformLocal;
  private readonly ca?: TerraformLocal;

  constructor(scope: Construct, id: string, private readonly settings: CheckSettings) {
    super(scope, id);
    StackSupport.of(this).useProvider('http');
    // The plan's time in Unix seconds (Terraform has no such function): days from the civil date.
    const t = 'regex("^([0-9]+)-([0-9]+)-([0-9]+)T([0-9]+):([0-9]+):([0-9]+)", plantimestamp())';
    const era = 'floor(y / 400)';
    const yoe = `(y - ${era} * 400)`;
    const days = `${era} * 146097 + ${yoe} * 365 + floor(${yoe} / 4) - floor(${yoe} / 100) + floor((153 * ((t[1] + 9) % 12) + 2) / 5) + t[2] - 1 - 719468`;
    this.now = new TerraformLocal(this, 'Now', `\${[for t in [${t}] : [for y in [t[0] - (t[1] <= 2 ? 1 : 0)] : (${days}) * 86400 + t[3] * 3600 + t[4] * 60 + t[5]][0]][0]}`);
    this.statusTexts = new TerraformLocal(this, 'StatusTexts', Object.fromEntries(Object.entries(STATUS_CODES).map(([code, text]) => [code, text ?? ''])));
    if (settings.caPem !== undefined) this.ca = new TerraformLocal(this, 'Ca', escapeTemplate(settings.caPem));
  }

  /** The check of one key: its locals and its gate (which the key's targets wait for). */
  public addKey(apiKey: ApiKey): TerraformResource {
    const check = new Construct(apiKey, 'HealthCheck');
    const key = keyLocals(check, apiKey, this.now);
    const source = apiKey.source._config();
    const keyName = plainName(apiKey.keyName);
    const value = local(key.value);
    const set = `${value} != null && ${value} != ""`;
    const preconditions: Rule[] = [{
      condition: set,
      message: source.variable
        ? errors.keyNotSet(keyName, source.variable.friendlyUniqueId, DEPLOY_COMMAND, this.settings.guideFile)
        : errors.keyTokenEmpty(keyName),
    }, ...probes.KEY_RULES.map((r) => ({
      condition: `try(!(${set}) || ${keyRule(r.rule, value)}, true)`,
      message: `FAIL ${escapeTemplate(keyName)}  step key: ${escapeTemplate(messageTemplate(r.then))}`,
    }))];
    const gate = new Gate(check, 'Resource', {
      input: { key: keyName },
      lifecycle: { precondition: preconditions.map((p) => ({ condition: `\${${p.condition}}`, errorMessage: p.message })) },
    });
    this.gates.set(apiKey, { gate, key });
    return gate;
  }

  /** At synth (once: ClusterAccess binds its targets once): the data sources of every cluster and grant, and each key's gate waiting for them. */
  public build(): void {
    if (this.gates.size > 0) warnKeysInLocalState(this, 'engine');
    const clusters = new Map<Cluster, ClusterProbes>();
    for (const [apiKey, { gate, key }] of this.gates) {
      const waits: HttpDataSource[] = [];
      for (const cluster of apiKey.clusters) {
        const c = clusters.get(cluster) ?? this.clusterProbes(cluster);
        clusters.set(cluster, c);
        waits.push(c.root, c.enforced, ...this.grantProbes(gate.node.scope as Construct, apiKey, key, cluster, c));
      }
      gate.dependsOn = waits.map((d) => dependable(d));
      const warn = protocol.CHECK_OPTIONS.warnValidityDays.default;
      new CheckBlock(gate.node.scope as Construct, 'ExpiryWarning', [{
        condition: `\${try(${key.exp} == null || ${key.exp} <= ${local(this.now)} || ${key.days} >= ${warn}, true)}`,
        // OpenTofu evaluates the message even when the condition holds: at a destroy without the key, days is null.
        message: template([{ text: `warn ${plainName(apiKey.keyName, 'invalid-key-name')}  ` }, ...fill(probes.EXPIRY.warning, 'self', PROBES.key, this.context('', 'any', [], key))]
          .map((p) => ('expr' in p ? { expr: `try(${p.expr}, "")` } : p))),
      }]);
    }
  }

  /** Root and enforced of one cluster (no key); their messages name the keys granted to it. */
  private clusterProbes(cluster: Cluster): ClusterProbes {
    const scope = new Construct(this, cluster.node.id);
    const keys = [...this.gates.keys()].filter((k) => k.clusters.includes(cluster)).map((k) => plainName(k.keyName, 'invalid-key-name'));
    const label = names.grantLabel(keys.join(', '), plainName(cluster.clusterName, 'invalid-cluster-name'));
    const headers = { Accept: 'application/json' };
    const ctx = (p: probes.Probe) => ({ ...this.context(label, 'any', [], undefined), path: [{ text: p.request.path }] });
    const root = this.dataSource(scope, 'Root', `${cluster.restEndpoint}/`, PROBES.root, headers);
    withRules(root, [probeRules(PROBES.root, 'self', ctx(PROBES.root)).post]);
    const rootPassed = bound(root.address, firstMatchIs(PROBES.root, ['pass', 'edge'], ctx(PROBES.root)));
    const enforced = this.dataSource(scope, 'Enforced', `${afterRoot(root)}${PROBES.enforced.request.path}`, PROBES.enforced, headers);
    withRules(enforced, [probeRules(PROBES.enforced, 'self', { ...ctx(PROBES.enforced), holdsUnless: [`!${rootPassed}`] }).post]);
    return { root, enforced };
  }

  /** The keyed probes of one grant: the key step (with its reusing probes and the expiry) and the access probes. */
  private grantProbes(scope: Construct, apiKey: ApiKey, key: KeyLocals, cluster: Cluster, c: ClusterProbes): HttpDataSource[] {
    const grantScope = new Construct(scope, cluster.node.id);
    const label = grantLabel(apiKey.keyName, cluster.clusterName);
    const access = apiKey.access?._checkerAccess() ?? 'any';
    const read = apiKey.access?.readCollections ?? [];
    const write = apiKey.access?.readWriteCollections ?? [];
    const base = this.context(label, access, [...read, ...write], key);
    const clusterOpen = bound(c.enforced.address, firstMatchIs(PROBES.enforced, ['open'], base));
    const made: { id: probes.ProbeId; ds: HttpDataSource; ctx: ProbeContext }[] = [];
    const headers = (post: boolean) => `\${sensitive({ Accept = "application/json", ${post ? '"Content-Type" = "application/json", ' : ''}Authorization = "Bearer \${${local(key.value)}}" })}`;
    for (const id of Object.keys(PROBES) as probes.ProbeId[]) {
      const p = PROBES[id];
      if (p.request.scope !== 'grant' || p.askedAfter !== undefined || p.reuses !== undefined || !(id === 'key' || p.appliesTo?.includes(access))) continue;
      const collections = p.perCollection === undefined ? [undefined] : p.perCollection === 'read' ? read : write;
      collections.forEach((collection, i) => {
        // {random}: a name no collection has, new at every plan (known at plan, unlike uuid()).
        const random = `substr(sha256(format("%s %s", plantimestamp(), ${hclString(`${label} ${id}`)})), 0, 12)`;
        const path: Part[] = p.request.path.split('{random}').flatMap((t, j) => [
          ...(j > 0 ? [{ text: probes.RANDOM_COLLECTION_PREFIX }, { expr: random }] : []), { text: t.replace('{collection}', () => encodeURIComponent(collection ?? '')) },
        ]);
        const ds = this.dataSource(grantScope, collection === undefined ? id : `${id}-${i}`, `${afterRoot(c.root)}${template(path)}`, p, headers(p.request.method === 'POST'), key.send.asNumber);
        made.push({ id, ds, ctx: { ...base, path, collection, clusterOpen } });
      });
    }
    // The key step's reusing probes read global-read's answer.
    for (const { id, ds, ctx } of made) {
      const { post } = probeRules(PROBES[id], 'self', ctx);
      withRules(ds, id === 'key' ? [post, ...this.keyStepExtras(ds, ctx, made.find((m) => m.id === 'global-read')?.ds)] : [post]);
      warnings(ds, `${ds.node.id}-excess`, probeRules(PROBES[id], ds.address, ctx).warn);
    }
    if (!this.settings.requireAuth && access !== 'any') this.openNotEnforced(grantScope, made, base, clusterOpen);
    return made.map((m) => m.ds);
  }

  /** An allowed open cluster: one warning that the declared access is not enforced (probes.ts OPEN_NOT_ENFORCED). */
  private openNotEnforced(scope: Construct, made: readonly { id: probes.ProbeId; ds: HttpDataSource }[], ctx: ProbeContext,
    clusterOpen: string): void {
    const key = made.find((m) => m.id === 'key')!.ds;
    const judged = [...made.map((m) => [PROBES[m.id], m.ds] as const), ...Object.values(PROBES).filter((p) => p.reuses === 'key' && p.appliesTo?.includes(ctx.access)).map((p) => [p, key] as const)];
    const excess = judged.map(([p, ds]) => bound(ds.address, firstMatchIs(p, ['excess'], ctx))).join(' || ');
    new CheckBlock(scope, 'OpenCluster', [{
      condition: `\${try(!(${clusterOpen}) || !(${excess}), true)}`,
      message: template([{ text: `warn ${ctx.label}  ${probes.OPEN_NOT_ENFORCED.replace('{access}', ctx.access)}` }]),
    }]);
  }

  /** On the key step's answer, once it passed: the probes that reuse it, and the expiry. */
  private keyStepExtras(keyStep: HttpDataSource, ctx: ProbeContext, globalRead: HttpDataSource | undefined): Rule[] {
    const passed = (ref: string) => bound(ref, firstMatchIs(PROBES.key, ['pass'], ctx));
    const keyFailed = `!${passed('self')}`;
    const reusing = { ...ctx, holdsUnless: [keyFailed], clusterWide: globalRead ? `lookup(${globalRead.address}, "status_code") == 200` : undefined };
    const rules: Rule[] = [];
    for (const p of Object.values(PROBES).filter((x) => x.reuses === 'key' && x.appliesTo?.includes(ctx.access))) {
      rules.push(probeRules(p, 'self', reusing, true).post); // "no case matched" is the key step's to say
      warnings(keyStep, `${keyStep.node.id}-reach-excess`, probeRules(p, keyStep.address, { ...reusing, holdsUnless: [`!${passed(keyStep.address)}`] }, true).warn);
    }
    const k = ctx.key!;
    const now = local(this.now);
    const expiry = { step: 'expiry' as const, request: PROBES.key.request };
    rules.push({ condition: `${keyFailed} || try(${k.exp} == null || ${k.exp} > ${now}, true)`, message: template(failureParts(probes.EXPIRY.expired, 'self', expiry, ctx)) });
    const min = this.settings.minValidityDays;
    if (min > 0) {
      rules.push({
        condition: `${keyFailed} || try(${k.exp} == null || ${k.exp} <= ${now} || ${k.days} >= ${min}, true)`,
        message: template(failureParts(probes.EXPIRY.tooSoon, 'self', expiry, { ...ctx, minValidityDays: min })),
      });
    }
    return rules;
  }

  /** One `data "http"` with this engine's timeouts, retries and CA (its rules: withRules). */
  private dataSource(scope: Construct, id: string, url: string, probe: probes.Probe, headers: Record<string, string> | string,
    count?: number): HttpDataSource {
    const { method, body } = probe.request;
    return new HttpDataSource(scope, id, {
      url,
      method: method === 'GET' ? undefined : method,
      request_body: body,
      request_headers: headers,
      ca_cert_pem: this.ca ? `\${${local(this.ca)}}` : undefined,
      request_timeout_ms: this.settings.timeoutSeconds * 1000,
      retry: { attempts: this.settings.retries, min_delay_ms: BACKOFF.baseMs, max_delay_ms: BACKOFF.capMs },
    }, count);
  }

  private context(label: string, access: string, declared: string[], key: KeyExpressions | undefined): ProbeContext {
    const { requireAuth, allowExcessAccess, minValidityDays } = this.settings;
    const statusTexts = local(this.statusTexts);
    return { label, access, declared, key, path: [], holdsUnless: [], statusTexts, requireAuth, allowExcessAccess, minValidityDays };
  }
}

function withRules(ds: HttpDataSource, rules: readonly Rule[]): void {
  ds.lifecycle = { postcondition: rules.map((r) => ({ condition: `\${${r.condition}}`, errorMessage: r.message })) };
}

/** Warnings on a data source's answer, in a check block (a key not sent has no answer). */
function warnings(ds: HttpDataSource, id: string, rule: Rule | undefined): void {
  if (rule) new CheckBlock(ds.node.scope as Construct, id, [{ condition: `\${try(${rule.condition}, true)}`, message: rule.message.replace(/^\$\{(.*)\}$/s, '$${try($1, "")}') }]);
}

type ClusterProbes = Readonly<Record<'root' | 'enforced', HttpDataSource>>;

/** Later URLs are built on root's: Terraform reads them after root's postconditions held. */
function afterRoot(root: HttpDataSource): string {
  return `\${trimsuffix(${root.address}.url, "/")}`;
}

/** A key rule (probes.ts KEY_RULES) over the key's value. */
function keyRule(rule: 'trimmed' | 'header-safe', key: string): string {
  return rule === 'trimmed' ? `${key} == trimspace(${key})` : `can(regex(${hclString(`^[${probes.HEADER_SAFE}]*$`)}, ${key}))`;
}

type KeyLocals = ReturnType<typeof keyLocals>;

/** The key's locals: its value, `send` (1 or 0), and its JWT's expiry and collections (not sensitive). */
function keyLocals(scope: Construct, apiKey: ApiKey, now: TerraformLocal) {
  const l = (id: string, expression: string) => new TerraformLocal(scope, id, expression);
  const value = l('Key', apiKey.source._config().expression);
  const k = local(value);
  const rules = probes.KEY_RULES.map((r) => keyRule(r.rule, k)).join(' && ');
  const send = l('Send', `\${nonsensitive(${k} != null && ${k} != "" && try(${rules}, false)) ? 1 : 0}`);
  const payload = l('Payload', `\${${jwtPayloadHcl(k)}}`);
  const exp = l('Exp', `\${${expHcl(local(payload))}}`);
  const expiresAt = l('ExpiresAt', `\${${expiresAtHcl(local(exp))}}`);
  const days = l('Days', `\${try(floor((${local(exp)} - ${local(now)}) / 86400), null)}`);
  const collections = l('JwtCollections', `\${nonsensitive(sensitive(try(distinct([for a in ${local(payload)}["access"] : a["collection"] if try(startswith(jsonencode(a["collection"]), "\\""), false)]), [])))}`);
  return { value, send, redact: k, exp: local(exp), expiresAt: local(expiresAt), days: local(days), jwtCollections: local(collections) };
}
