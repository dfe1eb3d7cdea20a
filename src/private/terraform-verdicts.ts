/**
 * The probe table (assets/checker/probes.ts) as HCL over one `data "http"` answer, for the
 * Terraform engine. Answers are read with `lookup(<data source>, "...")`, never `self.response_body`:
 * Terraform prints every reference of a failed condition. A condition binds the answer once
 * (`[for a in [{ s, b, j, u }] : …]`) so that the body is decoded once.
 */
import type { CheckSettings } from '../health-check';
import { CLIP_MARK, FAILURES, messageTemplate, plural, probes, tableFailure, text } from './runtime';

type Verdict = probes.ProbeVerdict;

/**
 * The key's values for its probes' messages, as HCL expressions (locals): what the server's words are
 * redacted of; its JWT's `exp` (seconds) or null, as RFC 3339 or "", whole days from the plan to it;
 * the collections its JWT's access names (not sensitive).
 */
export type KeyExpressions = Readonly<Record<'redact' | 'exp' | 'expiresAt' | 'days' | 'jwtCollections', string>>;

/** What one probe of one grant (or one cluster) is judged and worded with. */
export interface ProbeContext extends Pick<CheckSettings, 'requireAuth' | 'allowExcessAccess' | 'minValidityDays'> {
  /** `FAIL <label>  step …`: "search-api → prod-eu". */
  readonly label: string;
  readonly access: string;
  /** {path}: the request's path as sent. */
  readonly path: readonly Part[];
  readonly collection?: string;
  readonly declared: readonly string[];
  readonly key?: KeyExpressions;
  /** An excess is nothing when this holds: the cluster is open (enforced's verdict is `open`). */
  readonly clusterOpen?: string;
  /** The rule only-declared-collections: the key is cluster-wide (global-read answered 200). */
  readonly clusterWide?: string;
  /** The probe's conditions hold when one of these does (an earlier step did not pass). */
  readonly holdsUnless: readonly string[];
  /** A map from status code to its reason phrase ({answer} of an answer without words). */
  readonly statusTexts: string;
}

/** A condition (an HCL expression) and its message (a template): a postcondition, or a `check` block's assertion. */
export type Rule = Readonly<Record<'condition' | 'message', string>>;

/** An HCL string literal. */
export function hclString(s: string): string {
  return escapeTemplate(JSON.stringify(s));
}

/** Text as a Terraform template's literal part (`${` and `%{` escaped). */
export function escapeTemplate(s: string): string {
  return s.replace(/\$\{/g, '$$${').replace(/%\{/g, '%%{');
}

const list = (xs: readonly (string | number)[]) => `[${xs.map((x) => (typeof x === 'number' ? String(x) : hclString(x))).join(', ')}]`;
/** The value at a path ("a.b") of decoded JSON `j` (an error when there is none: inside try()). */
const at = (j: string, p: string) => `${j}${p.split('.').map((k) => `[${hclString(k)}]`).join('')}`;
const isString = (x: string) => `startswith(jsonencode(${x}), "\\"")`;
/** A JavaScript character class's body (\uXXXX escapes) as RE2's. */
const re2Class = (body: string) => body.replace(/\\u([0-9a-fA-F]{4})/g, '\\x{$1}');

/** `a.s`, `a.b`, `a.j`, `a.u`: the answer as bound (binder). */
const S = 'a.s';
const B = 'a.b';

/** The answer of `ref` (`self`, or a data source) as one object: status, body, decoded JSON (or null), URL. */
function binder(ref: string): string {
  const lookup = (attr: string) => `lookup(${ref}, "${attr}")`;
  return `{ s = ${lookup('status_code')}, b = ${lookup('response_body')}, j = try(jsondecode(${lookup('response_body')}), null), u = ${lookup('url')} }`;
}

/** `body` (a boolean over `a`) with `a` bound to the answer of `ref`. */
export function bound(ref: string, body: string): string {
  return `alltrue([for a in [${binder(ref)}] : ${body}])`;
}

/** A Match as a boolean over the bound answer (every given field holds). */
function matches(m: probes.Match, ctx: ProbeContext): string {
  const parts: string[] = [];
  if (m.status) parts.push(m.status.length === 1 ? `${S} == ${m.status[0]}` : `contains(${list(m.status)}, ${S})`);
  if (m.text) parts.push(`contains(${list(m.text)}, trimspace(${B}))`);
  if (m.has !== undefined) parts.push(`strcontains(${B}, ${hclString(m.has)})`);
  if (m.hasIgnoringCase !== undefined) parts.push(`strcontains(lower(${B}), ${hclString(m.hasIgnoringCase.toLowerCase())})`);
  for (const p of m.jsonStrings ?? []) parts.push(`try(${isString(at('a.j', p))}, false)`);
  if (m.jsonList !== undefined) parts.push(`try(startswith(jsonencode(${at('a.j', m.jsonList)}), "["), false)`);
  if (m.jsonNames !== undefined) {
    const l = at('a.j', m.jsonNames);
    parts.push(`try(startswith(jsonencode(${l}), "[") && alltrue([for c in ${l} : ${isString('c.name')}]), false)`);
  }
  if (m.jsonEquals) parts.push(`try(${at('a.j', m.jsonEquals[0])} == ${m.jsonEquals[1]}, false)`);
  if (m.rule === 'edge-refusal') {
    const host = `(?i)^[a-z][a-z0-9+.-]*://([^/@]*@)?[^/:@]*${probes.EDGE.hostSuffix.replace(/\./g, '\\.')}(:[0-9]+)?(/|$)`;
    parts.push(`(can(regex(${hclString(host)}, a.u)) || contains(${list(probes.EDGE.qdrantTexts)}, trimspace(${B})) || ` +
      `try(length(a.j) == 1 && contains(${list(probes.EDGE.errors)}, a.j["error"]), false))`);
  }
  if (m.rule === 'only-declared-collections') parts.push(`(${ctx.clusterWide ?? 'false'} || length(${undeclared('a.j', ctx)}) == 0)`);
  return parts.length === 0 ? 'true' : `(${parts.join(' && ')})`;
}

/** The collections the key reaches beyond the declared ones, sorted: those a collection list `j` names, and its JWT's. */
function undeclared(j: string, ctx: ProbeContext): string {
  return `sort(setsubtract(setunion(${listed(j)}, ${ctx.key?.jwtCollections ?? '[]'}), ${list(ctx.declared)}))`;
}
const listed = (j: string) => `try([for c in ${at(j, 'result.collections')} : c.name], [])`;

/** A case's verdict for the declared access. */
function verdictOf(c: probes.Case, access: string): Verdict {
  return ('kind' in c.then ? c.then : (c.then as Record<string, Verdict>)[access]) as Verdict;
}

/** Whether the first case of `probe` that matches the bound answer has a verdict of these kinds (none matching: no). */
export function firstMatchIs(probe: probes.Probe, kinds: readonly Verdict['kind'][], ctx: ProbeContext): string {
  const ok = probe.cases.flatMap((c, i) => (kinds.includes(verdictOf(c, ctx.access).kind) ? [i] : []));
  return ok.length === 0 ? 'false' : `contains(${list(ok)}, ${firstMatch(probe, ctx)})`;
}

/** The index of the first case that matches the bound answer, or the number of cases when none does. */
function firstMatch(probe: probes.Probe, ctx: ProbeContext): string {
  return probe.cases.reduceRight((rest, c, i) => `${matches(c.when, ctx)} ? ${i} : ${rest}`, String(probe.cases.length));
}

/**
 * One probe's postcondition on the answer of `ref`, `v` being the first matching case (none:
 * OTHERWISE unless `otherwisePasses`). With allowExcessAccess an excess warns instead (`warn`).
 */
export function probeRules(probe: probes.Probe, ref: string, ctx: ProbeContext, otherwisePasses = false): { post: Rule; warn?: Rule } {
  const verdicts = [...probe.cases.map((c) => verdictOf(c, ctx.access)), otherwisePasses ? { kind: 'pass' as const } : probes.OTHERWISE];
  const failing = (v: Verdict): v is probes.FailVerdict => 'failure' in v && !(v.kind === 'open' && !ctx.requireAuth);
  const idx = (pick: (v: Verdict) => boolean) => verdicts.flatMap((v, i) => (pick(v) ? [i] : []));
  const excess = idx((v) => failing(v) && v.kind === 'excess');
  const open = ctx.clusterOpen ?? 'false';
  const failsHere = idx((v) => failing(v) && !(v.kind === 'excess' && ctx.allowExcessAccess));
  const fails = (pick: number[], unlessOpen: number[]) => `(contains(${list(pick)}, v) && !(${open} && contains(${list(unlessOpen)}, v)))`;
  const judged = `[for a in [${binder(ref)}] : [for v in [${firstMatch(probe, ctx)}] : `;
  // Placeholders computed once (`p`): Terraform's cost grows with expression size, evaluated or not.
  const message = (pick: number[], word: (f: probes.FailVerdict, shared: Map<string, string>) => Part[]) => {
    const shared = new Map<string, string>();
    const chosen = pick.map((i) => [i, quoted(word(verdicts[i] as probes.FailVerdict, shared))] as const);
    const chain = chosen.slice(0, -1).reduceRight((rest, [i, m]) => `v == ${i} ? ${m} : ${rest}`, chosen[chosen.length - 1][1]);
    return shared.size === 0 ? chain : `[for p in [{ ${[...shared].map(([k, e]) => `${k} = ${e}`).join(', ')} }] : ${chain}][0]`;
  };
  const rule = (pick: number[], word: (f: probes.FailVerdict, shared: Map<string, string>) => Part[]): Rule => ({
    condition: [...ctx.holdsUnless, `alltrue(flatten(${judged}!${fails(pick, excess)}]]))`].join(' || '),
    message: `\${join("", flatten(${judged}${message(pick, word)} if ${fails(pick, excess)}]]))}`,
  });
  return {
    post: failsHere.length === 0 ? { condition: 'true', message: '' } : rule(failsHere, (f, shared) => failureParts(f, ref, probe, ctx, shared)),
    warn: ctx.allowExcessAccess && excess.length > 0 ? rule(excess, (f, shared) => warningParts(f, ref, probe, ctx, shared)) : undefined,
  };
}

/** A text's parts: literal text, or an HCL expression whose value is shown. */
export type Part = { readonly text: string } | { readonly expr: string };

/** Parts as a Terraform template (an error_message). */
export function template(parts: readonly Part[]): string {
  return parts.map((p) => ('text' in p ? escapeTemplate(p.text) : `\${${p.expr}}`)).join('');
}

/** Parts as an HCL string literal (a message chosen inside an expression). */
function quoted(parts: readonly Part[]): string {
  return `"${parts.map((p) => ('text' in p ? escapeTemplate(JSON.stringify(p.text).slice(1, -1)) : `\${${p.expr}}`)).join('')}"`;
}

/** `FAIL <label>  step <step>: <message>`: the catalog's template (fix included), its placeholders filled. */
export function failureParts(v: probes.FailVerdict, ref: string, probe: { step: string; request: probes.Probe['request'] }, ctx: ProbeContext,
  shared?: Map<string, string>): Part[] {
  return [{ text: `FAIL ${ctx.label}  step ${probe.step}: ` }, ...fill(messageTemplate(v), ref, probe, ctx, shared)];
}

/** `warn <label>  <message> (allowed: allowExcessAccess)`, as the Node checker words an allowed excess. */
function warningParts(v: probes.FailVerdict, ref: string, probe: probes.Probe, ctx: ProbeContext, shared?: Map<string, string>): Part[] {
  return [{ text: `warn ${ctx.label}  ` }, ...fill(tableFailure(v).message, ref, probe, ctx, shared), { text: ' (allowed: allowExcessAccess)' }];
}

/** Placeholders whose values are long expressions: with `shared`, computed once (`p.<name>`). */
const SHARED = new Set(['answer', 'contentType', 'undeclared', 'undeclaredFix']);

/** A template with placeholders (probes.ts), filled over the answer of `ref`; `shared` gathers the long values (`p.<name>`). */
export function fill(words: string, ref: string, probe: Pick<probes.Probe, 'request'>, ctx: ProbeContext, shared?: Map<string, string>): Part[] {
  return words.split(/(\{\w+\})/).flatMap((part, i) => {
    if (i % 2 === 0) return [{ text: part }];
    const name = part.slice(1, -1);
    const parts = placeholder(name, ref, probe, ctx);
    if (!shared || !SHARED.has(name) || parts.length !== 1 || !('expr' in parts[0])) return parts;
    shared.set(name, parts[0].expr);
    return [{ expr: `p.${name}` }];
  });
}

function placeholder(name: string, ref: string, probe: Pick<probes.Probe, 'request'>, ctx: ProbeContext): Part[] {
  const k = ctx.key;
  const keyed = (expr: () => string): Part[] => {
    if (!k) throw new Error(`{${name}} in a keyless probe`);
    return [{ expr: expr() }];
  };
  const undeclaredOf = () => undeclared(`try(jsondecode(lookup(${ref}, "response_body")), null)`, ctx);
  switch (name) {
    case 'answer': return [{ expr: answer(ref, ctx) }];
    case 'status': return [{ expr: `lookup(${ref}, "status_code")` }];
    case 'method': return [{ text: probe.request.method }];
    case 'path': return [...ctx.path];
    case 'contentType': return [{ expr: oneLine(`split(";", coalesce(lookup(lookup(${ref}, "response_headers"), "Content-Type", ""), "no content-type"))[0]`, 60) }];
    case 'afterAttempts': return []; // the provider says nothing of its attempts: a judged answer is the last
    case 'collection': return [{ text: text.quote(ctx.collection ?? '', 40) }];
    case 'declaredCount': return [{ text: plural(ctx.declared.length, 'collection') }];
    case 'header': return [{ text: 'Authorization' }];
    case 'minValidityDays': return [{ text: String(ctx.minValidityDays) }];
    case 'keyExpiry': return keyed(() => `${k!.exp} == null ? "" : format(" on %s", substr(${k!.expiresAt}, 0, 10))`);
    case 'expiredAt': return keyed(() => `formatdate("YYYY-MM-DD 'at' hh:mm:ss 'UTC'", ${k!.expiresAt})`);
    case 'expiry': return keyed(() => `format("expires %s (%s)", substr(${k!.expiresAt}, 0, 10), ${k!.days} == 0 ? "in less than a day" : ` +
      `format("in %d day%s", ${k!.days}, ${k!.days} == 1 ? "" : "s"))`);
    case 'undeclared': return keyed(() => `[for x in [${undeclaredOf()}] : format("%s%s", join(", ", [for n in slice(x, 0, min(length(x), ${probes.UNDECLARED.max})) : ` +
      `format("%s%s", ${quotedName('n', 40)}, contains(${listed(`try(jsondecode(lookup(${ref}, "response_body")), null)`)}, n) ? "" : ${hclString(probes.UNDECLARED.notCreated)})]), ` +
      `length(x) > ${probes.UNDECLARED.max} ? format(" and %d more", length(x) - ${probes.UNDECLARED.max}) : "")][0]`);
    case 'undeclaredFix': return keyed(() => {
      const fixes = probes.UNDECLARED.fixes;
      const it = (fix: string) => `length(x) == 1 ? ${hclString(fix.replace(/\{it\}/g, 'it'))} : ${hclString(fix.replace(/\{it\}/g, 'them'))}`;
      const notCreated = `length([for n in x : n if !contains(${listed(`try(jsondecode(lookup(${ref}, "response_body")), null)`)}, n)])`;
      return `[for x in [${undeclaredOf()}] : ${notCreated} == 0 ? ${hclString(fixes.listed)} : ${notCreated} == length(x) ? (${it(fixes.notCreated)}) : ${hclString(fixes.some)}][0]`;
    });
    default: throw new Error(`unknown placeholder {${name}}`);
  }
}

/**
 * {answer}: the status and the server's own words, one line, as answers.ts answer() words it. A
 * keyed answer is redacted before clipping, then declared not sensitive.
 */
function answer(ref: string, ctx: ProbeContext): string {
  const b = `trimspace(lookup(${ref}, "response_body"))`;
  const j = 'try(jsondecode(b), null)';
  const candidate = (p: string) => `try(${isString(at('j', p))} ? ${at('j', p)} : "", "")`;
  const json = `[for j in [${j}] : try(coalesce(${['status.error', 'error', 'message', 'status'].map(candidate).join(', ')}), b)][0]`;
  const html = 'try(format("HTML page \\"%s\\"", compact([trimspace(regex("(?i)<title[^>]*>([^<]*)</title>", substr(b, 0, 4096))[0])])[0]), "HTML page")';
  const words = `[for b in [${b}] : startswith(b, "{") ? ${json} : startswith(b, "<") ? ${html} : b][0]`;
  let said = `try(coalesce(${words}, lookup(${ctx.statusTexts}, tostring(lookup(${ref}, "status_code")), "")), "")`;
  if (ctx.key) said = `replace(${said}, ${ctx.key.redact}, "[redacted]")`;
  const line = oneLine(said, 200);
  const status = `lookup(${ref}, "status_code")`;
  const full = `[for t in [${line}] : t == "" ? tostring(${status}) : format("%d %s", ${status}, t)][0]`;
  return ctx.key ? `nonsensitive(sensitive(${full}))` : full;
}

/** One line of text (text.ts safeLine, without the key's other forms): control characters and runs of whitespace as one space, trimmed, clipped. */
function oneLine(expr: string, max: number): string {
  const stripped = `trimspace(replace(replace(${expr}, ${hclString(`/[${re2Class(text.CONTROL_CHARACTERS)}]/`)}, " "), "/\\\\s+/", " "))`;
  return `[for t in [${stripped}] : length(t) > ${max} ? format("%s${CLIP_MARK}", substr(t, 0, ${max - 1})) : t][0]`;
}

/** A collection name as text.ts quote() shows it: a JSON string (Terraform's escapes of <, > and & undone), clipped. */
function quotedName(name: string, max: number): string {
  const json = `replace(replace(replace(jsonencode(${name}), "\\\\u003c", "<"), "\\\\u003e", ">"), "\\\\u0026", "&")`;
  return `[for q in [${json}] : length(q) > ${max} ? format("%s${CLIP_MARK}", substr(q, 0, ${max - 1})) : q][0]`;
}

/** The catalog ids the Terraform engine can report: every failing verdict of the table, its key rules and its expiry. */
export function terraformFailureIds(): string[] {
  const verdicts = Object.values(probes.PROBES).filter((p) => p.askedAfter === undefined)
    .flatMap((p) => p.cases.flatMap((c) => ('kind' in c.then ? [c.then as Verdict] : Object.values(c.then) as Verdict[])));
  const ids = new Set([...verdicts, probes.OTHERWISE, ...probes.KEY_RULES.map((r) => r.then), probes.EXPIRY.expired, probes.EXPIRY.tooSoon]
    .flatMap((v) => ('failure' in v ? [v.failure] : [])));
  return FAILURES.map((f) => f.id).filter((id) => ids.has(id));
}
