/**
 * The documentation stays true (README.md, CONTRIBUTING.md, docs/*.md):
 * - the README is short, with a ClusterAccess app in its first 40 lines;
 * - markdownlint passes with the repository's config, and every relative link (file and anchor)
 *   resolves;
 * - every TypeScript block is a whole program that compiles against src/ as the package's name
 *   (the cdktn ones compile and run in test/cdktn/synth.test.ts), and every program that
 *   synthesizes a stack runs here and synthesizes it;
 * - every shell block is run, as printed or as the named test runs it, by a test or by .ci/run;
 * - nothing of what was removed (connection sharing, the 0.0.x upgrade) is described.
 * The README's install lines run exactly as printed in test/ecosystem/readme-install.test.ts, the
 * client snippet against a deploy in test/e2e/secret-targets.test.ts, the Python program in
 * test/ecosystem/python-app.test.ts.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as cdktf from 'cdktf';
import * as constructs from 'constructs';
import * as ts from 'typescript';
import * as library from '../src';
import { CodeBlock, REPO, docPages, imports, readPage, readmeCompilerOptions, where } from './support/docs';
import { tempDir } from '../tools/testing/terraform';

jest.setTimeout(120_000);

const PKG = 'cdktf-qdrant-cluster-access';
const blocks = docPages().flatMap((p) => readPage(p).blocks);
const tsBlocks = blocks.filter((b) => b.lang === 'ts');
/** The cdktn programs run in a cdktn app (test/cdktn/synth.test.ts): cdktn is not installed here. */
const cdktfPrograms = tsBlocks.filter((b) => !imports(b.text).includes('cdktn'));
/** What a program that synthesizes may import: it runs here, with the library from src/. */
const RUNNABLE: Record<string, unknown> = { [PKG]: library, cdktf, constructs };
const synthesizes = (b: CodeBlock) => /^app\.synth\(\);$/m.test(b.text) && imports(b.text).every((m) => m in RUNNABLE);
const fileName = (b: CodeBlock) => `${b.page.replace(/\W/g, '_')}_${b.line}.ts`;

describe('README.md', () => {
  const readme = readPage('README.md');

  test('at most 250 lines, and a TypeScript ClusterAccess app that ends within the first 40', () => {
    expect(readme.lines.length - 1).toBeLessThanOrEqual(250); // the file ends with a newline
    const app = readme.blocks.find((b) => b.lang === 'ts');
    expect(app?.text).toContain('new ClusterAccess(');
    expect(app?.text).toMatch(/^app\.synth\(\);$/m);
    const closing = app!.line + app!.text.split('\n').length;
    expect(closing).toBeLessThanOrEqual(40);
  });

  test('links to each page of docs/', () => {
    const text = readme.lines.join('\n');
    for (const page of docPages().filter((p) => p.startsWith('docs/'))) expect(text).toContain(`](${page})`);
  });
});

test('markdownlint passes on README.md, CONTRIBUTING.md and docs/ with the repository config', () => {
  const r = spawnSync(path.join(REPO, 'node_modules', '.bin', 'markdownlint-cli2'), docPages(), { cwd: REPO, encoding: 'utf8' });
  expect(`${r.stdout}${r.stderr}`).toContain(`Linting: ${docPages().length} file(s)`);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as `-`, `-1`… for repeats. */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of readPage(page).headings) {
    const base = h.text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

test('every relative link resolves: the file exists, and so does the anchor in a page', () => {
  const broken: string[] = [];
  for (const page of docPages()) {
    const { lines, blocks: own } = readPage(page);
    const inBlock = new Set(own.flatMap((b) => Array.from({ length: b.text.split('\n').length }, (_, i) => b.line + i)));
    lines.forEach((line, i) => {
      if (inBlock.has(i + 1)) return;
      const text = line.replace(/`[^`]*`/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [file, anchor] = target.split('#');
        const resolved = file === '' ? page : path.normalize(path.join(path.dirname(page), file));
        if (!fs.existsSync(path.join(REPO, resolved))) {
          broken.push(`${page}:${i + 1}: ${target} (no ${resolved})`);
        } else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) {
          broken.push(`${page}:${i + 1}: ${target} (no heading for #${anchor} in ${resolved})`);
        }
      }
    });
  }
  expect(broken).toEqual([]);
});

describe('the TypeScript programs', () => {
  test('every block is a whole program: it imports what it uses, from the package as users name it', () => {
    expect(cdktfPrograms.length).toBeGreaterThanOrEqual(6);
    for (const b of tsBlocks) {
      expect([where(b), imports(b.text).length > 0]).toEqual([where(b), true]);
      expect([where(b), imports(b.text).filter((m) => m.startsWith('.') || m.includes('/src'))]).toEqual([where(b), []]);
    }
  });

  test('they compile (strict, no unused names) against src/, and the cdktn ones are on docs/cdktn.md', () => {
    const dir = tempDir('qca-docs-ts-');
    const files = new Map(cdktfPrograms.map((b) => [path.join(dir, fileName(b)), b]));
    for (const [file, b] of files) fs.writeFileSync(file, b.text);
    const program = ts.createProgram([...files.keys()], {
      // The compiler options of the README's tsconfig.json, as its install lines write it.
      ...readmeCompilerOptions(),
      noUnusedLocals: true,
      noEmit: true,
      // The repository's TypeScript may be newer than the README's, which pins 5.9.
      ignoreDeprecations: ts.versionMajorMinor.startsWith('5.') ? undefined : '6.0',
      // The package's name resolves to the source; everything else to the repository's node_modules.
      paths: {
        [PKG]: [path.join(REPO, 'src', 'index.ts')],
        [`${PKG}/*`]: [path.join(REPO, '*')],
        '*': [path.join(REPO, 'node_modules', '*'), path.join(REPO, 'node_modules', '@types', '*')],
      },
      types: ['node'],
      typeRoots: [path.join(REPO, 'node_modules', '@types')],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const b = d.file ? files.get(path.normalize(d.file.fileName)) : undefined;
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
      const place = b ? `${b.page}:${b.line + at}` : d.file?.fileName ?? '(options)';
      return `${place}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    expect(problems).toEqual([]);
    expect(tsBlocks.filter((b) => imports(b.text).includes('cdktn')).map((b) => b.page).sort()).toEqual(['docs/cdktn.md']);
  });

  const runnable = cdktfPrograms.filter(synthesizes);
  test.each(runnable.map((b) => [where(b), b] as const))('%s synthesizes its stack', (_, b) => {
    const outdir = runProgram(b);
    const stacks = fs.readdirSync(path.join(outdir, 'stacks'));
    expect(stacks.length).toBeGreaterThan(0);
    for (const stack of stacks) {
      const dir = path.join(outdir, 'stacks', stack);
      const json = JSON.parse(fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8'));
      if (b.text.includes('CheckEngine.TERRAFORM')) {
        // Terraform's own checks: keyed data "http" reads of the key, no local-exec.
        expect(Object.keys(json.data.http).some((id) => id.includes('_HealthCheck_'))).toBe(true);
        expect(JSON.stringify(json)).not.toContain('local-exec');
      } else {
        expect(Object.keys(json.resource.null_resource).some((id) => id.includes('_HealthCheck_'))).toBe(true);
      }
      expect(fs.existsSync(path.join(dir, 'qdrant-setup.md'))).toBe(true);
    }
  });

  test('at least the README app, the model, the Terraform engine, the secret targets and the key from a provider are run', () => {
    expect(runnable.map((b) => b.page).sort()).toEqual(expect.arrayContaining(['README.md', 'docs/deploying.md', 'docs/engines.md', 'docs/secret-targets.md', 'docs/security.md']));
  });

  test('the key made by the Qdrant Cloud provider reaches the check only through sensitive(), and the stack asks for both providers', () => {
    const [b] = runnable.filter((x) => x.text.includes('qdrant-cloud_accounts_database_api_key_v2'));
    expect(b?.page).toBe('docs/security.md');
    const outdir = runProgram(b);
    const json = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'search', 'cdk.tf.json'), 'utf8'));
    expect(Object.keys(json.terraform.required_providers).sort()).toEqual(['null', 'qdrant-cloud']);
    expect(json.terraform.required_providers['qdrant-cloud']).toEqual({ source: 'qdrant/qdrant-cloud', version: '~> 1.28' });
    expect(json.resource['qdrant-cloud_accounts_database_api_key_v2'].SearchKey).toMatchObject({
      cluster_id: '<the cluster id>',
      name: 'search-api',
      global_access_rule: [{ access_type: 'GLOBAL_ACCESS_RULE_ACCESS_TYPE_READ_ONLY' }],
    });
    // Every use of the key, in every string of the stack, is wrapped in sensitive().
    const ref = 'qdrant-cloud_accounts_database_api_key_v2.SearchKey.key';
    const strings: string[] = [];
    const walk = (v: unknown): void => {
      if (typeof v === 'string') strings.push(v);
      else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    walk(json);
    const uses = strings.filter((s) => s.includes(ref));
    expect(uses.length).toBeGreaterThanOrEqual(2); // the check's environment and the file writer's
    for (const use of uses) expect(use.split(ref).length).toBe(use.split(`sensitive(${ref})`).length);
  });
});

/** Runs a program the way `cdktf synth` runs main.ts, with the library from src/; returns its outdir. */
function runProgram(b: CodeBlock): string {
  const outdir = tempDir('qca-docs-synth-');
  const js = ts.transpileModule(b.text, { compilerOptions: readmeCompilerOptions() }).outputText;
  const load = (id: string): unknown => {
    if (!(id in RUNNABLE)) throw new Error(`${where(b)} imports ${id}, which this test cannot provide`);
    return RUNNABLE[id];
  };
  const previous = process.env.CDKTF_OUTDIR;
  process.env.CDKTF_OUTDIR = outdir;
  try {
    const module = { exports: {} };
    new Function('require', 'module', 'exports', js)(load, module, module.exports);
  } finally {
    if (previous === undefined) delete process.env.CDKTF_OUTDIR;
    else process.env.CDKTF_OUTDIR = previous;
  }
  return outdir;
}

/**
 * Where each shell block of the docs runs: a test or a CI step that runs it as printed, or the
 * same commands with the values a test needs (a stand-in's address, a deploy's stack). `needles`
 * must all be in that file, so that the entry goes stale loudly when the file stops running them.
 */
const SHELL: { block: RegExp; by: string; needles: string[] }[] = [
  // Building the package from a clone: what CI runs after its own clone, and what the ecosystem tests package.
  { block: /^git clone <this repository> cdktf-qdrant-cluster-access\n\(cd cdktf-qdrant-cluster-access && npm ci && npx projen compile && npx projen package:js\)\n$/, by: '.ci/run', needles: ['npm ci', 'npx projen build'] },
  // The install lines, exactly as printed.
  { block: /^mkdir my-app && cd my-app && npm init -y\n/, by: 'test/ecosystem/readme-install.test.ts', needles: ["blocksUnder('README.md', 'Install', 'sh')"] },
  // The key from the shell, then the CLI's deploy (with --skip-provider-lock, offline).
  { block: /^read -rs TF_VAR_qdrant_api_key_search_api && export TF_VAR_qdrant_api_key_search_api .*\nnpx cdktf deploy --auto-approve\n$/, by: 'test/ecosystem/cdktf-cli.test.ts', needles: ["'deploy', '--auto-approve'", 'TF_VAR_qdrant_api_key_search_api'] },
  { block: /^npm ci && npx projen demo\n$/, by: '.ci/run', needles: ['npx projen demo'] },
  { block: /^npm ci && npx projen build\n$/, by: '.ci/run', needles: ['npm ci', 'npx projen build'] },
  { block: /^eval "\$\(bash scripts\/offline-terraform\.sh --tofu \| tail -n 1\)"\n$/, by: '.ci/run', needles: ['eval "$(bash scripts/offline-terraform.sh --tofu | tail -n 1)"'] },
  // The checker CLI, with a stand-in's address instead of the Cloud one.
  { block: /^read -rs QDRANT_API_KEY && export QDRANT_API_KEY .*\nnpx -p cdktf-qdrant-cluster-access qdrant-cluster-access check /, by: 'test/ecosystem/readme-install.test.ts', needles: ["readPage('docs/checker-cli.md')", "includes('npx -p')"] },
  // The expiry output, read from the stack's directory.
  { block: /^terraform -chdir=cdktf\.out\/stacks\/search output -raw qdrant_api_key_search_api_expires_at /, by: 'test/setup-guide.test.ts', needles: ["['output', '-raw']"] },
  // Writing a file target again after hand edits: replacing its Write resource.
  { block: /^cdktf synth\nterraform -chdir=cdktf\.out\/stacks\/search state list \| grep '_Write_' .*\nterraform -chdir=cdktf\.out\/stacks\/search apply -replace='<that address>'\n$/, by: 'test/e2e/variable-precedence.test.ts', needles: ['-replace=null_resource.${write}'] },
];

test('every shell block is run by a test or by .ci/run', () => {
  const unrun: string[] = [];
  for (const b of blocks.filter((x) => x.lang === 'sh')) {
    const entry = SHELL.find((s) => s.block.test(b.text));
    if (!entry) {
      unrun.push(`${where(b)}: no test runs\n${b.text}`);
      continue;
    }
    const by = fs.readFileSync(path.join(REPO, entry.by), 'utf8');
    for (const needle of entry.needles) if (!by.includes(needle)) unrun.push(`${where(b)}: ${entry.by} no longer holds ${needle}`);
  }
  expect(unrun).toEqual([]);
});

test('no page describes what was removed: connection sharing between check processes, the 0.0.x upgrade', () => {
  const removed = /shareConnections|share-connections|\.share\/|Unix socket|0\.0\.x|Upgrading from|LEGACY_NAMES/;
  const found = docPages().flatMap((p) => readPage(p).lines.map((l, i) => [`${p}:${i + 1}`, l] as const)).filter(([, l]) => removed.test(l));
  expect(found).toEqual([]);
});
