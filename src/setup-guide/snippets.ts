/** Section 5: per cluster, where the values are, and snippets that read the names its first key got in its first target. */
import { outputCommand, readLine } from './commands';
import { languageSnippets } from './languages';
import { Heading, code, fence, list, shellWord } from './markdown';
import { GuideCluster, GuideDelivery, GuideKey, GuideModel, GuideNames, keysOf } from './model';
import { names as nameRules } from '../private/runtime';

/** Above this many clusters, the code snippets show one representative cluster. */
const MAX_SNIPPET_CLUSTERS = 3;

export function snippetsSection(m: GuideModel, h: Heading): string[] {
  const out = h(1, '5. Connect from code');
  const covered = m.clusters.filter((c) => keysOf(m, c).length > 0);
  if (covered.length === 0) return [...out, m.clusters.length === 0 ? 'No clusters yet.' : 'No key covers a cluster yet.'];
  const shown = covered.length > MAX_SNIPPET_CLUSTERS ? [covered[0]] : covered;
  out.push(
    'Every snippet reads the cluster\'s URL and key under the names of section 4, from where the deploy writes them ' +
      '(for a key without a secret target, from where you put them); never write a key into code. ' +
      'REST clients (Python, TypeScript, curl) read the REST URL, gRPC clients (.NET, Rust, Java, Go) the gRPC URL. ' +
      'The TypeScript client `@qdrant/js-client-rest` ships ES-module type declarations: with TypeScript\'s `module: node16`, ' +
      'import it from an ES module (an `.mts` file, or a package with `"type": "module"`).',
  );
  const uncovered = m.clusters.filter((c) => !covered.includes(c));
  if (uncovered.length > 0) out.push('', `No key covers ${list(uncovered.map((c) => code(c.name)))} yet, so nothing connects to it.`);
  if (shown.length < covered.length) {
    out.push('', `This stack has ${covered.length} clusters with keys; the snippets show ${code(shown[0].name)} as a representative. ` +
      'For another cluster, read its names of section 4 instead.');
  }
  const perCluster = m.clusters.length > 1;
  const loaded = new Set<string>();
  for (const c of shown) {
    const sub: Heading = (depth, text) => h(depth + (perCluster ? 1 : 0), text);
    if (perCluster) out.push(...h(2, `Cluster ${code(c.name)}`));
    const [k, ...others] = keysOf(m, c);
    const grant = k.grants.find((g) => g.cluster === c)!;
    const delivery = grant.deliveries[0];
    // The names a target gave the key's entries, completed by the key's own names (a name taken twice is a synth error).
    const names: GuideNames = { ...grant.ownNames, ...Object.fromEntries(Object.entries(delivery?.names ?? {}).filter(([, v]) => v !== undefined)) };
    out.push(...whereFrom(m, k, c, delivery, names, loaded));
    if (others.length > 0) {
      out.push('', `These snippets use the names of the key ${code(k.name)}; for ${list(others.map((o) => code(o.name)))}, use its names of section 4.`);
    }
    out.push(...languageSnippets({ ...c, names, json: delivery?.target.kind === 'json' ? delivery.target.file : undefined }, sub));
  }
  return out;
}

/** Where the values under these names come from, before the snippets that read them. */
function whereFrom(m: GuideModel, k: GuideKey, c: GuideCluster, delivery: GuideDelivery | undefined, n: GuideNames, loaded: Set<string>): string[] {
  const t = delivery?.target;
  if (t === undefined) {
    const key = k.variable
      ? `the key, the value you set as ${code(k.variable.environmentVariable)} (section 3)`
      : 'the key, from the resource that the key\'s token refers to (`ApiKeySource.fromToken`)';
    return [
      '',
      `No secret target holds these values: the key ${code(k.name)} has none (section 4). Give them to the app yourself, under these names, ` +
        `where the snippets read them (its environment): ${code(n.url)} and ${code(n.grpcUrl)} are the Terraform outputs ${code(c.restOutput)} ` +
        `and ${code(c.grpcOutput)} (section 1 shows their values), ${code(n.apiKey)} is ${key}. In a shell, from the project directory:`,
      ...fence('bash', [
        exportLine(n.url, `"$(${outputCommand(m, c.restOutput)})"`),
        readLine(n.apiKey, NOT_A_NAME),
      ]),
    ];
  }
  switch (t.kind) {
    case 'dotenv': {
      if (loaded.has(t.file!)) return ['', `These names are in ${code(t.file!)} too: load it as above.`];
      loaded.add(t.file!);
      return [
        '',
        `The deploy writes these names into ${code(t.file!)} (section 4): load that file into the app's environment (for example with a dotenv library), ` +
          'where the snippets read them. In a shell, from the project directory, without printing the key:',
        ...fence('bash', [sourceLine(t.file!)]),
      ];
    }
    case 'json':
      return ['', `The deploy writes these names as members of the JSON file ${code(t.file!)} (section 4), and the snippets read them there, ` +
        'at that path: relative to the project directory, so adjust it to where the app runs. ' +
        'The Java snippet reads the file with Jackson, the Rust one with `serde_json`, the curl lines with `jq`.'];
    case 'outputs':
      return [
        '',
        `${code(n.apiKey)} is a Terraform output, not an environment variable: have the pipeline that deploys read it ` +
          `(${code(outputCommand(m, n.apiKey))}) into the app's secret store or environment, under this name, ` +
          'which the snippets read (the same for the URLs). In a shell, from the project directory:',
        ...fence('bash', [
          exportLine(n.url, `"$(${outputCommand(m, n.url)})"`),
          exportLine(n.apiKey, `"$(${outputCommand(m, n.apiKey)})"`),
        ]),
      ];
    default:
      return ['', `The deploy writes these names to ${code(t.description)} (section 4), a secret target of your own: ` +
        'have them reach the app\'s environment under these names, where the snippets read them.'];
  }
}

/** Instead of a line for a name that is not a shell variable's (never the name itself: it is the user's text). */
const NOT_A_NAME = '# a name of section 4 is not a valid environment variable name (letters, digits and _, not starting with a digit): rename it';

/** `export NAME=value`, for a name that is a shell variable's; else a comment (the name came from the user). */
function exportLine(name: string, value: string): string {
  return nameRules.isEnvName(name) ? `export ${name}=${value}` : NOT_A_NAME;
}

/** `. FILE` that reads exactly this file: a name without `/` would be looked up in PATH first. */
function sourceLine(file: string): string {
  return `set -a; . ${shellWord(file.includes('/') ? file : `./${file}`)}; set +a`;
}
