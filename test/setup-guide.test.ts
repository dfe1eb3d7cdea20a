import { execFile, execFileSync, spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, TerraformResource, TerraformStack, TerraformVariable, Testing } from 'cdktf';
import * as ts from 'typescript';
import { checkClusterAccess } from '../assets/checker';
import type * as Checker from '../assets/checker';
import { FAILURES, FailureId } from '../assets/checker/failures';
import { sidecarPath } from '../assets/writer/json';
import { MultiClusterStack } from '../examples/multi-cluster/main';
import { renderExampleGuide } from '../scripts/render-example-guide';
import { ApiKeyHeader, ApiKeySource, CheckEngine, ClusterAccess, ClusterAccessProps, KeyAccess, SecretTarget, SetupGuide } from '../src';
import { validationErrors } from './support/synth';
import { buildGuideModel } from '../src/private/guide-model';
import { terraformFailureIds } from '../src/private/terraform-verdicts';
import { renderStackGuide } from '../src/setup-guide/render';
import { canaryKey, StandInQdrant } from '../tools/testing/stand-in-qdrant';


const REPO = path.join(__dirname, '..');
const GOLDEN = path.join(REPO, 'examples', 'multi-cluster', 'qdrant-setup.md');
const TODAY_KEY = 'cdktf-qdrant-cluster-access:today';
const EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';
const US = 'https://def-456.us-east-1-0.aws.cloud.qdrant.io';

function newAccess(props: ClusterAccessProps, context: Record<string, unknown> = {}): ClusterAccess {
  const stack = new TerraformStack(Testing.app({ context }), 'test');
  return new ClusterAccess(stack, 'Qdrant', props);
}

function render(props: ClusterAccessProps, context: Record<string, unknown> = {}): string {
  return SetupGuide.render(newAccess(props, context));
}

const ONE: ClusterAccessProps = {
  clusters: [{ name: 'prod-eu', url: EU }],
  apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }],
};

const TWO: ClusterAccessProps = {
  clusters: [{ name: 'prod-eu', url: EU }, { name: 'prod-us', url: `${US}:8443`, grpcPort: 7334 }],
  apiKeys: [
    { name: 'search-api', clusters: ['prod-eu', 'prod-us'] },
    { name: 'ingest', clusters: ['prod-us'] },
  ],
};

/** The text of section `n` (from its `## n.` heading to the next `## `). */
function section(md: string, n: number): string {
  const start = md.search(new RegExp(`^#+ ${n}\\. `, 'm'));
  expect(start).toBeGreaterThanOrEqual(0);
  const rest = md.slice(start);
  const next = rest.slice(1).search(/^## /m);
  return next < 0 ? rest : rest.slice(0, next + 1);
}

/** The bodies of the fenced code blocks of one language, in order. */
function blocks(md: string, lang: string): string[] {
  return [...md.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang).map((m) => m[2]);
}

/** The table rows (cells) that follow a header row starting with `first`. */
function tableRows(md: string, first: string): string[][] {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${first} |`));
  expect(start).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split(' | ').map((c) => c.trim()));
  }
  return rows;
}

/**
 * The guide as a GFM renderer shows it (micromark with GFM tables and autolinks, raw HTML passed
 * through as before a sanitizer): what a reader of the guide would see and click.
 */
function toHtml(md: string): string {
  const script = [
    // Both ship with markdownlint-cli2 (a devDependency), which parses Markdown with them.
    `import { micromark } from ${JSON.stringify(require.resolve('micromark'))};`,
    `import { gfmTable, gfmTableHtml } from ${JSON.stringify(require.resolve('micromark-extension-gfm-table'))};`,
    `import { gfmAutolinkLiteral, gfmAutolinkLiteralHtml } from ${JSON.stringify(require.resolve('micromark-extension-gfm-autolink-literal'))};`,
    'let md = "";',
    'process.stdin.on("data", (d) => { md += d; });',
    'process.stdin.on("end", () => process.stdout.write(micromark(md, { allowDangerousHtml: true, extensions: [gfmTable(), gfmAutolinkLiteral()], htmlExtensions: [gfmTableHtml(), gfmAutolinkLiteralHtml()] })));',
  ].join('\n');
  return execFileSync('node', ['--input-type=module', '-e', script], { input: md, encoding: 'utf8' });
}

function warnings(access: ClusterAccess): string[] {
  return access.apiKeys.flatMap((k) => k.node.metadata.filter((m) => m.type === '@cdktf/warn').map((m) => String(m.data)));
}

describe('golden file: examples/multi-cluster', () => {
  test('examples/multi-cluster/qdrant-setup.md is the current guide of the example', () => {
    const rendered = SetupGuide.render(new MultiClusterStack(Testing.app(), 'multi-cluster').access);
    // The script that writes the golden file renders the same guide.
    expect(renderExampleGuide()).toBe(rendered);
    const committed = fs.existsSync(GOLDEN) ? fs.readFileSync(GOLDEN, 'utf8') : '';
    if (rendered !== committed) {
      throw new Error(
        'examples/multi-cluster/qdrant-setup.md is stale (or missing): the guide of examples/multi-cluster changed. ' +
          'Run `npx projen guide:example` (or `npx ts-node -P test/tsconfig.json --transpile-only scripts/render-example-guide.ts`), ' +
          'review the diff and commit it.',
      );
    }
  });

  test('it passes markdownlint-cli2 with the repository config', () => {
    const r = spawnSync(path.join(REPO, 'node_modules', '.bin', 'markdownlint-cli2'), [path.relative(REPO, GOLDEN)], {
      cwd: REPO, encoding: 'utf8',
    });
    expect(`${r.stdout}${r.stderr}`).toContain('Summary: 0 error(s)');
    expect(r.status).toBe(0);
  });

  test('guides with every variant (one cluster, tokens, port 443, many clusters) pass markdownlint too', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-lint-'));
    try {
      const stack = new TerraformStack(Testing.app(), 'variants');
      const v = new TerraformVariable(stack, 'url', { type: 'string' });
      const secret = new TerraformVariable(stack, 'secret', { type: 'string', sensitive: true });
      const many = new ClusterAccess(stack, 'Many', {
        clusters: [
          { name: 'a', url: v.stringValue }, { name: 'b', url: 'https://b.example.com:443' },
          { name: 'c', url: 'https://c.example.com' }, { name: 'd', url: 'https://d.example.com' },
        ],
        apiKeys: [{ name: 'k', clusters: ['a', 'b', 'c', 'd'], source: ApiKeySource.fromToken(secret.stringValue), createdOn: '2026-01-01' }],
        healthCheck: { enabled: false },
      });
      const files = {
        'one.md': render(ONE),
        'many.md': SetupGuide.render(many),
        'empty.md': render({}),
        'stack.md': renderStackGuide([many, new ClusterAccess(stack, 'Other', ONE)].map(buildGuideModel)),
        'targets.md': render({
          ...ONE,
          apiKeys: [
            { name: 'out', clusters: ['prod-eu'], secretTargets: [SecretTarget.terraformOutputs()] },
            { name: 'own', clusters: ['prod-eu'], secretTargets: [{ description: 'Vault kv <b>|`x`', bind: () => ({}) }] },
          ],
        }),
        'access.md': render({
          clusters: [{ name: 'books', url: 'https://bücher.example' }, { name: 'prod-eu', url: EU }],
          apiKeys: [
            { name: 'app', clusters: ['books'], access: KeyAccess.collections({ read: ['products'], readWrite: ['orders'] }) },
            { name: 'admin', clusters: ['books', 'prod-eu'], access: KeyAccess.manage(), secretTargets: [SecretTarget.dotenv({ path: 'app/.env' })] },
            { name: 'reader', clusters: ['books', 'prod-eu'], access: KeyAccess.readOnly(), secretTargets: [SecretTarget.json({ path: 'a/<b>|`c`/.json' })] },
          ],
        }),
      };
      for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
      const r = spawnSync(path.join(REPO, 'node_modules', '.bin', 'markdownlint-cli2'),
        [...Object.keys(files), '--config', path.join(REPO, '.markdownlint-cli2.jsonc')], { cwd: dir, encoding: 'utf8' });
      expect(`${r.stdout}${r.stderr}`).toContain('Summary: 0 error(s)');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('structure and determinism', () => {
  test('the seven sections come in order after the title', () => {
    const md = render(TWO);
    expect(md.split('\n')[0]).toBe('# Qdrant setup guide: stack `test`');
    const headings = md.split('\n').filter((l) => /^## /.test(l));
    expect(headings).toEqual([
      '## 1. Clusters',
      '## 2. Create the keys in the Qdrant Cloud console',
      '## 3. Hand the keys to the deploy',
      '## 4. Where the keys go',
      '## 5. Connect from code',
      '## 6. Rotation',
      '## 7. Troubleshooting',
    ]);
  });

  test('two renders are equal, also of two separately built stacks, and do not depend on "today"', () => {
    const props: ClusterAccessProps = { ...TWO, apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], createdOn: '2026-01-01' }] };
    const access = newAccess(props);
    expect(SetupGuide.render(access)).toBe(SetupGuide.render(access));
    expect(render(props, { [TODAY_KEY]: '2026-01-02' })).toBe(render(props, { [TODAY_KEY]: '2027-06-30' }));
  });

  test('holds no absolute machine paths, even with a caFile given by absolute path', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-ca-'));
    try {
      const caFile = path.join(dir, 'ca.pem');
      fs.writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n');
      const md = render({ ...TWO, healthCheck: { caFile } });
      for (const p of [dir, os.tmpdir(), REPO, process.cwd(), os.homedir(), __dirname]) expect(md).not.toContain(p);
      expect(md).not.toMatch(/(^|[\s`'"(])\/(home|tmp|work|root|Users|var)\//m);
      expect(md).not.toMatch(/[A-Z]:\\/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('several accesses in one stack: one document, one part each, in creation order', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const a = new ClusterAccess(stack, 'Search', ONE);
    const b = new ClusterAccess(stack, 'Ingest', { clusters: [{ name: 'prod-us', url: US }], apiKeys: [{ name: 'ingest', clusters: ['prod-us'] }] });
    const md = renderStackGuide([a, b].map(buildGuideModel));
    expect(md.split('\n').filter((l) => /^# /.test(l))).toEqual(['# Qdrant setup guide: stack `test`']);
    expect(md.indexOf('## `test/Search`')).toBeLessThan(md.indexOf('## `test/Ingest`'));
    expect(md).toContain('### 1. Clusters');
    expect(md.split('\n').filter((l) => l === '### 7. Troubleshooting')).toHaveLength(2);
  });
});

describe('1. clusters', () => {
  test('one row per cluster in model order: address, REST and gRPC endpoints with their ports, covering keys', () => {
    const rows = tableRows(section(render(TWO), 1), 'Cluster');
    expect(rows).toEqual([
      ['`prod-eu`', `\`${EU}\``, `\`${EU}:6333\``, `\`${EU}:6334\``, '`search-api`'],
      ['`prod-us`', `\`${US}:8443\``, `\`${US}:8443\``, `\`${US}:7334\``, '`search-api`, `ingest`'],
    ]);
  });

  test('a cluster whose address is a token points to the Terraform outputs', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const url = new TerraformVariable(stack, 'url', { type: 'string' });
    const access = new ClusterAccess(stack, 'Qdrant', { clusters: [{ name: 'prod-eu', url: url.stringValue }], apiKeys: [{ name: 'k', clusters: ['prod-eu'] }] });
    const md = SetupGuide.render(access);
    expect(md).not.toContain('${');
    expect(tableRows(section(md, 1), 'Cluster')[0]).toEqual([
      '`prod-eu`', 'set at deploy (a token); see output `qdrant_prod_eu_rest_endpoint`',
      '`qdrant_prod_eu_rest_endpoint`', '`qdrant_prod_eu_grpc_endpoint`', '`k`',
    ]);
    // The snippets read the names; where their values come from is the cluster's outputs.
    expect(blocks(section(md, 5), 'bash')[0]).toBe('export QDRANT_URL="$(terraform -chdir=cdktf.out/stacks/test output -raw qdrant_prod_eu_rest_endpoint)"\n' +
      'read -rs QDRANT_API_KEY && export QDRANT_API_KEY   # paste the key, then Enter (nothing is shown)\n');
  });
});

describe('2. console procedure', () => {
  /** The part of section 2 about one key. */
  function keyPart(md: string, key: string): string {
    const s2 = section(md, 2);
    const start = s2.indexOf(`### Key \`${key}\``);
    expect(start).toBeGreaterThanOrEqual(0);
    const next = s2.indexOf('\n### ', start + 1);
    return next < 0 ? s2.slice(start) : s2.slice(start, next);
  }

  test('each key lists exactly its clusters, in order, with hosts to match them in the console', () => {
    const md = render(TWO);
    const search = keyPart(md, 'search-api');
    const ingest = keyPart(md, 'ingest');
    expect(search).toContain('Covers 2 clusters: `prod-eu`, `prod-us`.');
    expect(search).toContain('select exactly these clusters: `prod-eu` (`abc-123.eu-central-1-0.aws.cloud.qdrant.io`), ' +
      '`prod-us` (`def-456.us-east-1-0.aws.cloud.qdrant.io`).');
    expect(ingest).toContain('Covers 1 cluster: `prod-us`.');
    expect(ingest).toContain('open the cluster `prod-us` (`def-456.us-east-1-0.aws.cloud.qdrant.io`).');
    for (const part of [search, ingest]) expect(part).toContain('shown only once');
  });

  /** Which console procedures a key's part shows: exactly one, by what the key declares. */
  function procedures(part: string): string[] {
    return [
      ...(part.includes('go to **Access Management**: the list of API keys. Click **Create**.') ? ['multi-cluster flow'] : []),
      ...(part.includes('Go to its **API Keys** tab, click **Create**') ? ['API Keys tab'] : []),
    ];
  }

  test('each key gets exactly one procedure: the multi-cluster flow for several clusters without declared access, else the API Keys tab', () => {
    const accesses = { none: undefined, readOnly: KeyAccess.readOnly(), manage: KeyAccess.manage(), collections: KeyAccess.collections({ read: ['products'] }) };
    for (const [mode, access] of Object.entries(accesses)) {
      for (const clusters of [['prod-eu'], ['prod-eu', 'prod-us']]) {
        const part = keyPart(render({ clusters: TWO.clusters, apiKeys: [{ name: 'k', clusters, access }] }), 'k');
        const expected = clusters.length > 1 && access === undefined ? ['multi-cluster flow'] : ['API Keys tab'];
        expect([mode, clusters.length, procedures(part)]).toEqual([mode, clusters.length, expected]);
        // No hedging between the two flows.
        expect(part).not.toMatch(/Newer consoles|Older clusters may still offer|if your console offers it/);
      }
    }
  });

  test('a key of one cluster: the cluster\'s API Keys tab, access, an expiration; several clusters without access: the multi-cluster flow', () => {
    const md = render(TWO);
    const search = keyPart(md, 'search-api');
    const ingest = keyPart(md, 'ingest');
    expect(ingest).toContain('2. Go to its **API Keys** tab, click **Create**, and name the key `ingest` (the console asks for a name; the stack does not read it).');
    expect(ingest).toContain('3. Access: ');
    expect(ingest).toContain('4. Expiration: set one. Qdrant\'s default is 90 days;');
    expect(ingest).toContain('publishes it as the output `qdrant_api_key_ingest_expires_at`');
    expect(ingest).toContain('`eyJhb`');
    expect(ingest).not.toContain('Access Management');
    expect(search).toContain('The stack declares no `access` for this key, so one key covers all 2 clusters: the console\'s multi-cluster flow makes it.');
    expect(search).toContain('1. Open the Qdrant Cloud dashboard at <https://cloud.qdrant.io> and go to **Access Management**');
    expect(search).toContain('4. Click **OK**');
    expect(search).toContain('this section then shows how to create one key per cluster with it');
    // Such a key may have no expiry: createdOn gives the reminder.
    expect(search).toContain('set `createdOn` of the key in the stack to the day you create it');
    expect(search).not.toContain('API Keys** tab');
  });

  test('what to select follows the declared access of each key', () => {
    const md = render({
      clusters: TWO.clusters,
      apiKeys: [
        { name: 'reader', clusters: ['prod-eu'], access: KeyAccess.readOnly() },
        { name: 'admin', clusters: ['prod-eu', 'prod-us'], access: KeyAccess.manage() },
        { name: 'app', clusters: ['prod-us'], access: KeyAccess.collections({ read: ['products'], readWrite: ['orders', 'carts'] }) },
        { name: 'any', clusters: ['prod-us'] },
      ],
    });
    expect(keyPart(md, 'reader')).toContain('3. Access: choose **Read-only** for the whole cluster (the key is declared `KeyAccess.readOnly()`');
    // Declared access, on several clusters: one key per cluster, each with that access; no synth warning for manage, so no mention of one.
    const admin = keyPart(md, 'admin');
    expect(admin).toContain('3. Access: choose **Manage** (cluster-wide; the key is declared `KeyAccess.manage()`).');
    expect(admin).toContain('declare them in the stack as 2 keys of one cluster each, in place of this one. (The multi-cluster flow under **Access Management** makes one admin key for all of them');
    expect(admin).not.toContain('synth warns');
    expect(keyPart(md, 'app')).toContain('3. Access: open the **Collections** tab and add exactly `products` read-only, `orders` read-write, `carts` read-write');
    expect(keyPart(md, 'any')).toContain('the stack declares none for this key (`access` not set), so any valid key passes the check');
    // Section 3 says what the check proves for each of them.
    expect(section(md, 3)).toContain('4. Access (`reader`: read-only (cluster-wide); `admin`: manage (cluster-wide); ' +
      '`app`: collections: read `products`, read-write `orders`, read-write `carts`):');
  });

  test('a collection name that Markdown would read is shown as code, whole', () => {
    const md = render({
      clusters: [{ name: 'prod-eu', url: EU }],
      apiKeys: [{ name: 'app', clusters: ['prod-eu'], access: KeyAccess.collections({ read: ['a`b'], readWrite: ['__init__'] }) }],
    });
    expect(keyPart(md, 'app')).toContain('add exactly ``a`b`` read-only, `__init__` read-write');
  });

  // BUG (src/setup-guide/sections.ts:140): step 4 of section 3 writes the declared access in
  // words (KeyAccess.description) straight into Markdown, collection names unescaped: "read a`b"
  // opens a code span that runs on, and "__init__" renders as a bold "init" (markdownlint reports
  // MD038). Section 2 shows the same names with code(). Fix: build the words from
  // access.read / access.readWrite with code(), or wrap the description in code().
  test('the same names reach section 3 as code, whole', () => {
    const md = render({
      clusters: [{ name: 'prod-eu', url: EU }],
      apiKeys: [{ name: 'app', clusters: ['prod-eu'], access: KeyAccess.collections({ read: ['a`b'], readWrite: ['__init__'] }) }],
    });
    const step = section(md, 3).split('\n').find((l) => l.startsWith('4. Access ('))!;
    expect(step).toContain('``a`b``');
    expect(step).toContain('`__init__`');
  });

  // The console's multi-cluster flow (Access Management) creates keys without granular access
  // (../shared/reference/qdrant-auth.md §5.1): such a key can manage, and the check of a key
  // declared read-only or for collections fails with "key has manage access".
  test('a key of several clusters that declares read-only or collection access: not the multi-cluster flow, one key per cluster', () => {
    const md = render({
      clusters: TWO.clusters,
      apiKeys: [
        { name: 'reader', clusters: ['prod-eu', 'prod-us'], access: KeyAccess.readOnly() },
        { name: 'app', clusters: ['prod-eu', 'prod-us'], access: KeyAccess.collections({ read: ['products'] }) },
      ],
    });
    for (const key of ['reader', 'app']) {
      const part = keyPart(md, key);
      expect(procedures(part)).toEqual(['API Keys tab']);
      expect(part).not.toContain('In the cluster dropdown');
      expect(part).toContain('for 2 clusters. No single key from the console can be that: the cluster\'s **API Keys** tab makes a key with an access and an expiry for that one cluster only');
      expect(part).toContain('`key has manage access');
      // As the synth warning of such a key says (errors.multiClusterGranularKey).
      expect(part).toContain('synth warns about this key until then, unless your clusters are self-hosted and accept the same JWT');
      expect(part).toContain(`- \`${key}-prod-eu\` with \`clusters: ['prod-eu']\`: in the cluster \`prod-eu\` (\`abc-123.eu-central-1-0.aws.cloud.qdrant.io\`)`);
      expect(part).toContain(`- \`${key}-prod-us\` with \`clusters: ['prod-us']\`: in the cluster \`prod-us\` (\`def-456.us-east-1-0.aws.cloud.qdrant.io\`)`);
      expect(part).toContain('2. Go to its **API Keys** tab, click **Create**, and name the key as in the list above (the console asks for a name; the stack does not read it).');
    }
    expect(keyPart(md, 'reader')).toContain('3. Access: choose **Read-only** for the whole cluster');
    expect(keyPart(md, 'app')).toContain('3. Access: open the **Collections** tab and add exactly `products` read-only');
  });
});

describe('2. why the console, and keys made elsewhere', () => {
  test('the section says why keys are a console step and how a key of the qdrant-cloud Terraform provider plugs in', () => {
    const s2 = section(render(ONE), 2);
    const part = s2.slice(s2.indexOf('### Why the console, and keys made elsewhere'));
    expect(part).toContain('This library never creates a key');
    expect(part).toContain('The console shows a new key once');
    expect(part).toContain('`qdrant-cloud_accounts_database_api_key_v2`');
    expect(part).toContain('leaves that resource\'s `key` attribute unmarked (not `Sensitive`): pass it as `source: ApiKeySource.fromToken(<resource>.key)`');
    expect(part).toContain('The key then sits in clear in the Terraform state of the stack that holds that resource');
  });

  test('as the guide says, fromToken marks such an unmarked attribute sensitive wherever the stack uses it', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    // The provider's resource as cdktf would synthesize it; its `key` attribute is not sensitive.
    const dbKey = new TerraformResource(stack, 'DbKey', { terraformResourceType: 'qdrant-cloud_accounts_database_api_key_v2' });
    new ClusterAccess(stack, 'Qdrant', {
      ...ONE,
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], source: ApiKeySource.fromToken(dbKey.getStringAttribute('key')), secretTargets: [SecretTarget.dotenv({ path: '.env' })] }],
    });
    const json = Testing.synth(stack, true);
    const ref = 'qdrant-cloud_accounts_database_api_key_v2.DbKey.key';
    const uses = json.split(ref).length - 1;
    expect(uses).toBeGreaterThanOrEqual(3);
    expect(json.split(`sensitive(${ref})`).length - 1).toBe(uses);
  });
});

describe('3. handing the key to the deploy', () => {
  test('TF_VAR lines: the generated variable, a fromVariable variable, and nothing for fromToken', () => {
    const stack = new TerraformStack(Testing.app(), 'prod');
    const mine = new TerraformVariable(stack, 'ingest_key', { type: 'string', sensitive: true });
    const vault = new TerraformVariable(stack, 'vault', { type: 'string', sensitive: true });
    const access = new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: EU }],
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu'] },
        { name: 'ingest', clusters: ['prod-eu'], source: ApiKeySource.fromVariable(mine) },
        { name: 'from-vault', clusters: ['prod-eu'], source: ApiKeySource.fromToken(vault.stringValue) },
      ],
    });
    const md = section(SetupGuide.render(access), 3);
    // The key is read without echo, so it lands neither on screen nor in the shell history.
    // One block each: pasted together, a `read` would take the next line as its key.
    expect(blocks(md, 'bash')).toEqual([
      'read -rs TF_VAR_qdrant_api_key_search_api && export TF_VAR_qdrant_api_key_search_api   # paste the key, then Enter (nothing is shown)',
      'read -rs TF_VAR_ingest_key && export TF_VAR_ingest_key   # paste the key, then Enter (nothing is shown)',
      'cdktf deploy prod',
    ].map((line) => `${line}\n`));
    expect(tableRows(md, 'Key')).toEqual([
      ['`search-api`', '`TF_VAR_qdrant_api_key_search_api`', 'sensitive variable `qdrant_api_key_search_api`, declared by this library'],
      ['`ingest`', '`TF_VAR_ingest_key`', 'your sensitive variable `ingest_key`'],
      ['`from-vault`', 'nothing: read from the referenced resource at deploy', 'a value from another resource (`ApiKeySource.fromToken`)'],
    ]);
    expect(md).toContain('is read from the referenced resource');
    expect(md).toContain('3 health checks (one per key)');
  });

  test('the export lines really export the pasted key, and show nothing', () => {
    const md = section(render(ONE), 3);
    const [line] = blocks(md, 'bash')[0].split('\n');
    const out = execFileSync('bash', ['--norc', '--noprofile', '-c', `${line}\nprintf '%s' "$(printenv TF_VAR_qdrant_api_key_search_api)"`], {
      input: 'pasted-key-3f9a\n', encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    expect(out).toBe('pasted-key-3f9a');
  });

  test('the check steps: root, key, enforced, access, gRPC, expiry; targets only after the check', () => {
    const md = section(render(TWO), 3);
    expect(md).toContain('2 health checks (one per key) prove each key on every cluster it covers');
    const steps = md.split('\n').filter((l) => /^\d\. /.test(l));
    expect(steps.map((l) => l.slice(0, 3))).toEqual(['1. ', '2. ', '3. ', '4. ', '5. ', '6. ']);
    expect(steps[0]).toMatch(/^1\. `GET \/`, sent without the key, answers with Qdrant's title and version: the address is a Qdrant endpoint, and only then is the key sent/);
    expect(steps[0]).toContain('Qdrant ignores the key on `GET /`');
    expect(steps[1]).toBe('2. `GET /collections` with the key (sent in the `api-key` header) is accepted (200): the key works on that cluster.');
    expect(steps[2]).toMatch(/^3\. `GET \/collections` without a key is refused \(401 or 403\): the cluster enforces keys/);
    expect(steps[3]).toBe('4. Access: no key declares its `access`, so any valid key passes.');
    expect(steps[4]).toMatch(/^5\. gRPC/);
    expect(steps[5]).toMatch(/^6\. Expiry: /);
    expect(md).toContain('A key\'s secret targets (section 4) are written only after its check has passed, so a failed deploy leaves them as they were.');
  });

  test('the check text follows the options: bearer, requireAuth false, grpc false, minValidityDays, allowExcessAccess, disabled', () => {
    expect(section(render({ ...ONE, healthCheck: { header: ApiKeyHeader.BEARER } }), 3)).toContain('sent in `Authorization: Bearer`');
    expect(section(render({ ...ONE, healthCheck: { requireAuth: false } }), 3)).toContain('an open cluster (200) is accepted');
    expect(section(render({ ...ONE, healthCheck: { grpc: false } }), 3)).toContain('5. gRPC: not checked (`healthCheck.grpc: false`).');
    expect(section(render({ ...ONE, healthCheck: { minValidityDays: 30 } }), 3)).toContain('fails when it is less than 30 days away (`healthCheck.minValidityDays`)');
    const excess = { ...ONE, apiKeys: [{ name: 'k', clusters: ['prod-eu'], access: KeyAccess.readOnly() }], healthCheck: { allowExcessAccess: true } };
    expect(section(render(excess), 3)).toContain('(more access is a warning: `healthCheck.allowExcessAccess`)');
    const off = section(render({ ...ONE, healthCheck: { enabled: false } }), 3);
    expect(off).toContain('Health checks are disabled');
    expect(off).not.toContain('GET /collections');
  });

  test('CheckEngine.TERRAFORM: checks at every plan, no gRPC, the key in the state in clear; no -var advice', () => {
    const tf = section(render({ ...ONE, healthCheck: { engine: CheckEngine.TERRAFORM, grpc: false } }), 3);
    expect(tf).toContain('At every plan (so at every deploy), Terraform itself proves each key on every cluster it covers (`CheckEngine.TERRAFORM`');
    expect(tf).toContain('5. gRPC: not checked (`CheckEngine.TERRAFORM`: Terraform has no gRPC client).');
    expect(tf).toContain('2. `GET /collections` with the key (sent in `Authorization: Bearer`)');
    expect(tf).toContain('**the Terraform state holds it in clear** (in every keyed `data "http"`), and so does a saved plan file');
    expect(tf).toContain('`Check block assertion failed` warning at every plan');
    expect(tf).not.toMatch(/-var|runOnEveryDeploy|The checker reads the key|is asked again with it/);
    // The Node engine's text is unchanged by it.
    const node = section(render(ONE), 3);
    expect(node).not.toMatch(/CheckEngine|state holds it/);
    expect(node).toContain('The checker reads the key from the environment');
  });

  test('the cdktf deploy line pastes the stack id exactly, whatever it holds', () => {
    // cdktf refuses whitespace and glob characters in a stack id; each of these, unquoted, would
    // create a file in the directory (the test checks that it stays empty).
    for (const id of ["it's$(touch>pwned)", 'a`touch>b`c', 'x;y|z&>w', 'prod-eu.1']) {
      const access = new ClusterAccess(new TerraformStack(Testing.app(), id), 'Qdrant', ONE);
      const bash = blocks(section(SetupGuide.render(access), 3), 'bash').join('');
      execFileSync('bash', ['-n'], { input: bash, stdio: ['pipe', 'pipe', 'pipe'] });
      const deploy = bash.split('\n').find((l) => l.startsWith('cdktf deploy '))!;
      // Run the line with a stand-in `cdktf` that prints its arguments, in an empty directory.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-deploy-'));
      try {
        const out = execFileSync('bash', ['--norc', '--noprofile', '-c', `cdktf() { printf '%s\\n' "$@"; }\n${deploy}`], {
          cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        });
        expect([id, out]).toEqual([id, `deploy\n${id}\n`]);
        if (id.includes("'")) expect(deploy).toBe("cdktf deploy 'it'\\''s$(touch>pwned)'");
        expect(fs.readdirSync(dir)).toEqual([]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  test('a variable whose name is not an environment name gets no shell line, even with validation skipped', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-varname-'));
    try {
      const app = new App({ outdir: path.join(dir, 'out'), skipValidation: true, stackTraces: false });
      const stack = new TerraformStack(app, 'test');
      const v = new TerraformVariable(stack, 'k', { type: 'string', sensitive: true });
      v.overrideLogicalId('k;touch pwned;x');
      const access = new ClusterAccess(stack, 'Qdrant', {
        clusters: [{ name: 'prod-eu', url: EU }],
        apiKeys: [{ name: 'k', clusters: ['prod-eu'], source: ApiKeySource.fromVariable(v) }],
      });
      app.synth();
      const written = fs.readFileSync(path.join(dir, 'out', 'stacks', 'test', 'qdrant-setup.md'), 'utf8');
      expect(written).toBe(SetupGuide.render(access));
      const bash = blocks(section(written, 3), 'bash').join('');
      expect(bash).not.toContain('touch');
      expect(bash).toContain('# key k: ');
      // The block, run as pasted (with a stand-in cdktf, nothing to read) in an empty directory, creates nothing.
      const run = path.join(dir, 'run');
      fs.mkdirSync(run);
      spawnSync('bash', ['--norc', '--noprofile', '-c', `cdktf() { :; }\n${bash}`], {
        cwd: run, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      expect(fs.readdirSync(run)).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('when a check runs: on a change by default, on every deploy only with runOnEveryDeploy (as the check\'s triggers say)', () => {
    for (const every of [false, true]) {
      const stack = new TerraformStack(Testing.app(), 'test');
      const md = SetupGuide.render(new ClusterAccess(stack, 'Qdrant', { ...ONE, healthCheck: { runOnEveryDeploy: every } }));
      const check = Object.values<any>(JSON.parse(Testing.synth(stack, true)).resource.null_resource)[0];
      // A trigger that changes on every deploy (timestamp()) is what runs the check again.
      expect(JSON.stringify(check.triggers).includes('timestamp()')).toBe(every);
      const s3 = section(md, 3);
      if (every) {
        expect(s3).toContain('Every deploy runs every check (`healthCheck.runOnEveryDeploy: true`), also when nothing changed.');
      } else {
        expect(s3).toContain('A key\'s check runs at the first deploy, and again only when the key, its clusters, its declared access, ' +
          'the checker or the `healthCheck` options change: a deploy that changes none of them runs no check');
        expect(s3).toContain('Set `healthCheck.runOnEveryDeploy: true` to run every check on every deploy.');
      }
      // What every deploy does refresh is the expiry output.
      for (const n of [2, 3, 6]) expect([n, section(md, n)]).not.toEqual([n, expect.stringMatching(/every deploy reads|the deploy reads the real date/)]);
      expect(section(md, 6)).toContain('Every deploy publishes the date as a non-secret output');
    }
  });

  test('gRPC without a key: refused, unless requireAuth is false (then an open endpoint is accepted)', () => {
    const step = (md: string) => section(md, 3).split('\n').find((l) => l.startsWith('5. gRPC'))!;
    expect(step(render(ONE))).toContain('without it (refused)');
    const open = step(render({ ...ONE, healthCheck: { requireAuth: false } }));
    expect(open).not.toContain('(refused)');
    expect(open).toContain('an open endpoint is accepted too, because `healthCheck.requireAuth` is `false`');
  });
});

describe('4. where the key lands', () => {
  test('one cluster: QDRANT_URL and QDRANT_API_KEY', () => {
    expect(tableRows(section(render(ONE), 4), 'Key')).toEqual([
      ['`search-api`', '`prod-eu`', '`QDRANT_URL`', '`QDRANT_GRPC_URL`', '`QDRANT_API_KEY`', 'you: the key has no secret target'],
    ]);
  });

  test('a key without a target: QDRANT_<CLUSTER>_... when it covers several clusters, plain names when it covers one (as a target would)', () => {
    const md = section(render(TWO), 4);
    expect(md).not.toContain('The deploy writes the entries');
    expect(tableRows(md, 'Key')).toEqual([
      ['`search-api`', '`prod-eu`', '`QDRANT_PROD_EU_URL`', '`QDRANT_PROD_EU_GRPC_URL`', '`QDRANT_PROD_EU_API_KEY`', 'you: the key has no secret target'],
      ['`search-api`', '`prod-us`', '`QDRANT_PROD_US_URL`', '`QDRANT_PROD_US_GRPC_URL`', '`QDRANT_PROD_US_API_KEY`', 'you: the key has no secret target'],
      ['`ingest`', '`prod-us`', '`QDRANT_URL`', '`QDRANT_GRPC_URL`', '`QDRANT_API_KEY`', 'you: the key has no secret target'],
    ]);
  });

  test('with secret targets: the names each target receives, and that they are written after the check', () => {
    const env = SecretTarget.dotenv({ path: 'app/.env' });
    const md = section(render({
      clusters: TWO.clusters,
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu', 'prod-us'], secretTargets: [env] },
        { name: 'ingest', clusters: ['prod-us'], secretTargets: [SecretTarget.terraformOutputs()] },
      ],
    }), 4);
    expect(md).toContain('The deploy writes the entries into each secret target after the key\'s health check has passed');
    expect(tableRows(md, 'Key')).toEqual([
      ['`search-api`', '`prod-eu`', '`QDRANT_PROD_EU_URL`', '`QDRANT_PROD_EU_GRPC_URL`', '`QDRANT_PROD_EU_API_KEY`', '`.env file "app/.env"`'],
      ['`search-api`', '`prod-us`', '`QDRANT_PROD_US_URL`', '`QDRANT_PROD_US_GRPC_URL`', '`QDRANT_PROD_US_API_KEY`', '`.env file "app/.env"`'],
      // The outputs receive one cluster: plain names.
      ['`ingest`', '`prod-us`', '`QDRANT_URL`', '`QDRANT_GRPC_URL`', '`QDRANT_API_KEY`', '`Terraform outputs`'],
    ]);
  });

  test('the names are the ones the targets really receive (the same plan)', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const access = new ClusterAccess(stack, 'Qdrant', {
      clusters: TWO.clusters,
      apiKeys: [
        { name: 'search-api', clusters: ['prod-eu', 'prod-us'], secretTargets: [SecretTarget.terraformOutputs()], secretNaming: { prefix: 'APP_', names: { QDRANT_PROD_US_API_KEY: 'US_KEY' } } },
      ],
    });
    const rows = tableRows(section(SetupGuide.render(access), 4), 'Key');
    const outputs = Object.keys(JSON.parse(Testing.synth(stack, true)).output).filter((n) => !n.startsWith('qdrant_'));
    expect(rows.flatMap((r) => r.slice(2, 5)).map((c) => c.replace(/`/g, '')).sort()).toEqual(outputs.sort());
  });

  test('a target\'s description is shown as text: no HTML, no link, no extra cell, whatever it holds', () => {
    const hostile = SecretTarget.dotenv({ path: 'a/<img src=x onerror=alert(1)>[click](https://evil.example)/.env' });
    // A target of the user's own: its description is any string.
    const own = { description: 'Vault kv "a\\|b" <script>alert(1)</script> <https://evil.example> www.evil.example', bind: () => ({}) };
    const md = section(render({
      clusters: [{ name: 'prod-eu', url: EU }],
      apiKeys: [
        { name: 'a', clusters: ['prod-eu'], secretTargets: [hostile] },
        { name: 'b', clusters: ['prod-eu'], secretTargets: [own] },
      ],
    }), 4);
    const html = toHtml(md);
    expect(html).not.toMatch(/<img|<script|<a /);
    const rows = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => [...m[1].matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) => c[1]));
    expect(rows.slice(1).map((r) => r.length)).toEqual([6, 6]);
    expect(rows[1][5]).toBe('<code>.env file &quot;a/&lt;img src=x onerror=alert(1)&gt;[click](https://evil.example)/.env&quot;</code>');
    expect(rows[2][5]).toMatch(/^<code>Vault kv &quot;a\\+\|b&quot; &lt;script&gt;alert\(1\)&lt;\/script&gt; &lt;https:\/\/evil.example&gt; www.evil.example<\/code>$/);
  });

  test('file targets: a .env keeps ours in a marked block, a JSON file records ours in its sidecar', () => {
    const sidecar = path.basename(sidecarPath(path.join(os.tmpdir(), 'NAME'))).replace('NAME', '<name>');
    const md = section(render({ ...ONE, apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.json({ path: 'app.json' })] }] }), 4);
    expect(md).toContain(`A JSON file keeps every member that is not ours, and records which are ours in a sidecar file next to it (\`${sidecar}\`, names only)`);
    expect(md).not.toContain('A `.env` or JSON file keeps every line that is not ours; ours live in a block marked as managed');
  });
});

describe('5. snippets', () => {
  const LANGS = ['python', 'typescript', 'csharp', 'rust', 'java', 'go'];

  test('the snippets read the names the deploy writes, never the URL: REST clients the REST URL, gRPC clients the gRPC URL', () => {
    const md = section(render(TWO), 5);
    const us = md.slice(md.indexOf('### Cluster `prod-us`'));
    expect(blocks(us, 'python')[0]).toContain('    url=os.environ["QDRANT_PROD_US_URL"],\n    api_key=os.environ["QDRANT_PROD_US_API_KEY"],\n');
    expect(blocks(us, 'typescript')[0]).toContain('  url: setting("QDRANT_PROD_US_URL"),\n  apiKey: setting("QDRANT_PROD_US_API_KEY"),\n');
    expect(blocks(us, 'typescript')[0]).toContain('const value = process.env[name];');
    expect(blocks(us, 'csharp')[0]).toContain('var grpcUrl = new Uri(Environment.GetEnvironmentVariable("QDRANT_PROD_US_GRPC_URL")!);');
    expect(blocks(us, 'csharp')[0]).toContain('apiKey: Environment.GetEnvironmentVariable("QDRANT_PROD_US_API_KEY"));');
    expect(blocks(us, 'rust')[0]).toContain('Qdrant::from_url(&std::env::var("QDRANT_PROD_US_GRPC_URL")?)\n        .api_key(std::env::var("QDRANT_PROD_US_API_KEY"))');
    expect(blocks(us, 'java')[0]).toContain('URI grpcUrl = URI.create(System.getenv("QDRANT_PROD_US_GRPC_URL"));');
    expect(blocks(us, 'java')[0]).toContain('.withApiKey(System.getenv("QDRANT_PROD_US_API_KEY"))');
    expect(blocks(us, 'go')[0]).toContain('grpcURL, err := url.Parse(os.Getenv("QDRANT_PROD_US_GRPC_URL"))');
    expect(blocks(us, 'go')[0]).toMatch(/Host:\s+grpcURL.Hostname\(\),\s+Port:\s+port,\s+APIKey: os.Getenv\("QDRANT_PROD_US_API_KEY"\),\s+UseTLS: grpcURL.Scheme == "https",/);
    expect(blocks(us, 'bash').at(-1)).toBe([
      'curl -sS -H @- "$QDRANT_PROD_US_URL/collections" <<<"api-key: $QDRANT_PROD_US_API_KEY"',
      'curl -sS -H @- "$QDRANT_PROD_US_URL/collections" <<<"Authorization: Bearer $QDRANT_PROD_US_API_KEY"',
    ].join('\n') + '\n');
    expect(us).toContain('#### Python (REST, port 8443)');
    expect(us).toContain('#### Go (gRPC, port 7334)');
    // No address, host or port of a cluster in any snippet's code: the values are the deploy's.
    for (const lang of [...LANGS, 'bash']) {
      for (const b of blocks(md, lang)) expect([lang, b]).not.toEqual([lang, expect.stringMatching(/qdrant\.io|8443|7334|6333|6334/)]);
    }
  });

  test('the names are the target\'s: a prefix and a renamed name reach every snippet', () => {
    const md = section(render({
      clusters: [{ name: 'eu', url: EU }],
      apiKeys: [{ name: 'app', clusters: ['eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })], secretNaming: { prefix: 'SEARCH_', names: { QDRANT_API_KEY: 'SEARCH_KEY' } } }],
    }), 5);
    expect(blocks(md, 'python')[0]).toContain('url=os.environ["SEARCH_QDRANT_URL"],\n    api_key=os.environ["SEARCH_KEY"],');
    expect(blocks(md, 'typescript')[0]).toContain('url: setting("SEARCH_QDRANT_URL"),');
    expect(blocks(md, 'go')[0]).toContain('url.Parse(os.Getenv("SEARCH_QDRANT_GRPC_URL"))');
    expect(blocks(md, 'go')[0]).toContain('APIKey: os.Getenv("SEARCH_KEY"),');
    expect(blocks(md, 'bash').at(-1)).toContain('"$SEARCH_QDRANT_URL/collections" <<<"api-key: $SEARCH_KEY"');
  });

  test('a key without a secret target: the values come from the endpoint outputs and the key\'s variable', () => {
    const md = section(render(ONE), 5);
    expect(md).toContain('No secret target holds these values: the key `search-api` has none (section 4).');
    expect(md).toContain('`QDRANT_URL` and `QDRANT_GRPC_URL` are the Terraform outputs `qdrant_prod_eu_rest_endpoint` and `qdrant_prod_eu_grpc_endpoint`');
    expect(md).toContain('`QDRANT_API_KEY` is the key, the value you set as `TF_VAR_qdrant_api_key_search_api` (section 3)');
    expect(blocks(md, 'bash')[0]).toBe('export QDRANT_URL="$(terraform -chdir=cdktf.out/stacks/test output -raw qdrant_prod_eu_rest_endpoint)"\n' +
      'read -rs QDRANT_API_KEY && export QDRANT_API_KEY   # paste the key, then Enter (nothing is shown)\n');
    const stack = new TerraformStack(Testing.app(), 'test');
    const token = new TerraformVariable(stack, 'vault', { type: 'string', sensitive: true }).stringValue;
    const fromToken = SetupGuide.render(new ClusterAccess(stack, 'Qdrant', { ...ONE, apiKeys: [{ name: 'k', clusters: ['prod-eu'], source: ApiKeySource.fromToken(token) }] }));
    expect(section(fromToken, 5)).toContain('`QDRANT_API_KEY` is the key, from the resource that the key\'s token refers to (`ApiKeySource.fromToken`)');
  });

  test('a JSON target: the snippets read its members from the file; a target of your own: from the environment it fills', () => {
    const json = section(render({ ...ONE, apiKeys: [{ name: 'app', clusters: ['prod-eu'], secretTargets: [SecretTarget.json({ path: 'conf/qdrant.json' })] }] }), 5);
    expect(json).toContain('The deploy writes these names as members of the JSON file `conf/qdrant.json` (section 4)');
    expect(blocks(json, 'python')[0]).toContain('with open("conf/qdrant.json", encoding="utf-8") as file:\n    settings = json.load(file)');
    expect(blocks(json, 'python')[0]).toContain('url=settings["QDRANT_URL"],');
    expect(blocks(json, 'typescript')[0]).toContain('const settings = JSON.parse(readFileSync("conf/qdrant.json", \'utf8\'));');
    expect(blocks(json, 'csharp')[0]).toContain('new Uri(settings.GetProperty("QDRANT_GRPC_URL").GetString()!)');
    expect(blocks(json, 'rust')[0]).toContain('Qdrant::from_url(settings["QDRANT_GRPC_URL"].as_str().ok_or("QDRANT_GRPC_URL is missing")?)');
    expect(blocks(json, 'java')[0]).toContain('URI.create(settings.get("QDRANT_GRPC_URL").asText())');
    expect(blocks(json, 'go')[0]).toContain('url.Parse(settings["QDRANT_GRPC_URL"].(string))');
    expect(blocks(json, 'bash')[0]).toContain('"$(jq -r \'.["QDRANT_URL"]\' conf/qdrant.json)/collections" <<<"api-key: $(jq -r \'.["QDRANT_API_KEY"]\' conf/qdrant.json)"');
    const own = { description: 'Vault kv "apps/search"', bind: () => ({}) };
    const custom = section(render({ ...ONE, apiKeys: [{ name: 'app', clusters: ['prod-eu'], secretTargets: [own] }] }), 5);
    expect(custom).toContain('The deploy writes these names to `Vault kv "apps/search"` (section 4), a secret target of your own');
    expect(blocks(custom, 'python')[0]).toContain('os.environ["QDRANT_API_KEY"]');
  });

  test('a cluster of several keys: the snippets use the first key\'s names, and say so', () => {
    const md = section(render(TWO), 5);
    const us = md.slice(md.indexOf('### Cluster `prod-us`'));
    expect(us).toContain('These snippets use the names of the key `search-api`; for `ingest`, use its names of section 4.');
  });

  test('one snippet set per cluster up to three; beyond, one representative cluster, named; none for a cluster without keys', () => {
    const clusters = ['a', 'b', 'c', 'd'].map((n) => ({ name: n, url: `https://${n}.example.com` }));
    const three = section(render({ clusters: clusters.slice(0, 3), apiKeys: [{ name: 'k', clusters: ['a', 'b', 'c'] }] }), 5);
    expect(blocks(three, 'go')).toHaveLength(3);
    const four = section(render({ clusters, apiKeys: [{ name: 'k', clusters: ['a', 'b', 'c', 'd'] }] }), 5);
    expect(blocks(four, 'go')).toHaveLength(1);
    expect(four).toContain('This stack has 4 clusters with keys; the snippets show `a` as a representative.');
    const uncovered = section(render({ clusters: clusters.slice(0, 3), apiKeys: [{ name: 'k', clusters: ['a'] }] }), 5);
    expect(blocks(uncovered, 'go')).toHaveLength(1);
    expect(uncovered).toContain('No key covers `b`, `c` yet, so nothing connects to it.');
    const one = section(render(ONE), 5);
    expect(one).not.toContain('### Cluster');
    expect(blocks(one, 'python')[0]).toContain('os.environ["QDRANT_API_KEY"]');
  });

  test('REST port 443: the TypeScript snippet passes port 443 and explains the trap', () => {
    const md = section(render({ clusters: [{ name: 'edge', url: 'https://q.example.com:443' }], apiKeys: [{ name: 'k', clusters: ['edge'] }] }), 5);
    expect(blocks(md, 'typescript')[0]).toContain('  url: setting("QDRANT_URL"),\n  port: 443,\n');
    expect(md).toContain('pass `port: 443`');
    expect(section(render(ONE), 5)).not.toContain('port: 443');
  });

  test('TLS follows the scheme of the URL the deploy wrote (http for a loopback cluster)', () => {
    const md = render({ clusters: [{ name: 'local', url: 'http://127.0.0.1:6333' }], apiKeys: [{ name: 'k', clusters: ['local'] }] });
    expect(tableRows(section(md, 1), 'Cluster')[0][3]).toBe('`http://127.0.0.1:6334`');
    const s5 = section(md, 5);
    expect(blocks(s5, 'go')[0]).toContain('UseTLS: grpcURL.Scheme == "https",');
    expect(blocks(s5, 'java')[0]).toContain('"https".equals(grpcUrl.getScheme())');
    expect(blocks(s5, 'csharp')[0]).toContain('https: grpcUrl.Scheme == Uri.UriSchemeHttps,');
  });

  test('an IDN host: punycode in the endpoints and the console step, never Unicode, and no host in a snippet', () => {
    const md = render({ clusters: [{ name: 'books', url: 'https://bücher.example' }], apiKeys: [{ name: 'k', clusters: ['books'] }] });
    const host = 'xn--bcher-kva.example';
    // The address as given (section 1) is the only place for the Unicode form.
    expect(md.replace(tableRows(section(md, 1), 'Cluster')[0][1], '')).not.toContain('bücher');
    expect(tableRows(section(md, 1), 'Cluster')[0].slice(2, 4)).toEqual([`\`https://${host}:6333\``, `\`https://${host}:6334\``]);
    expect(section(md, 2)).toContain(`\`books\` (\`${host}\`)`);
    expect(section(md, 5)).not.toContain(host);
    for (const snippet of blocks(section(md, 5), 'bash')) execFileSync('bash', ['-n'], { input: snippet, stdio: ['pipe', 'pipe', 'pipe'] });
  });

  // A key of one cluster in an access of two gets QDRANT_URL / QDRANT_API_KEY in section 4: its
  // snippets must read those names (by the clusters the key receives), not the access's.
  test('every variable a snippet reads is a name of section 4', () => {
    const md = render({
      clusters: TWO.clusters,
      apiKeys: [{ name: 'eu-app', clusters: ['prod-eu'] }, { name: 'us-app', clusters: ['prod-us'] }],
    });
    const listed = new Set(tableRows(section(md, 4), 'Key').flatMap((r) => r.slice(2, 5)).map((c) => c.replace(/`/g, '')));
    const read = [...section(md, 5).matchAll(/os\.environ\["([A-Z0-9_]+)"\]|setting\("([A-Z0-9_]+)"\)|Getenv\("([A-Z0-9_]+)"\)|\$([A-Z][A-Z0-9_]*)/g)]
      .map((m) => m[1] ?? m[2] ?? m[3] ?? m[4]);
    expect(read.length).toBeGreaterThan(8);
    expect(read.filter((name) => !listed.has(name))).toEqual([]);
  });
});

describe('5. snippets, checked by the real tools', () => {
  // Both ways a snippet reads the names (the environment, a JSON file), and the port-443 variant.
  const md = [
    render(TWO),
    render({ ...ONE, apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [SecretTarget.json({ path: 'conf/qdrant.json' })] }] }),
    render({ clusters: [{ name: 'edge', url: 'https://q.example.com:443' }], apiKeys: [{ name: 'k', clusters: ['edge'] }] }),
  ].map((m) => section(m, 5)).join('\n');

  function typeCheck(fileName: string, source: string): string[] {
    const options: ts.CompilerOptions = {
      module: ts.ModuleKind.Node16,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts'],
      types: ['node'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    };
    // The snippet lives only in memory, at a path inside the repository, so that
    // `@qdrant/js-client-rest` and @types/node resolve from its node_modules.
    const host = ts.createCompilerHost(options);
    const { getSourceFile, fileExists, readFile } = host;
    host.getSourceFile = (name, languageVersion, ...rest) => name === fileName
      ? ts.createSourceFile(name, source, languageVersion)
      : getSourceFile.call(host, name, languageVersion, ...rest);
    host.fileExists = (name) => name === fileName || fileExists.call(host, name);
    host.readFile = (name) => (name === fileName ? source : readFile.call(host, name));
    const program = ts.createProgram([fileName], options, host);
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  }

  test('TypeScript: type-checks against @qdrant/js-client-rest as an ES module (module node16)', () => {
    const snippets = blocks(md, 'typescript');
    expect(snippets).toHaveLength(4);
    expect(snippets.filter((s) => s.includes('readFileSync'))).toHaveLength(1);
    expect(snippets.filter((s) => s.includes('port: 443'))).toHaveLength(1);
    for (const [i, snippet] of snippets.entries()) {
      // `.mts`: the package's type declarations are ES modules, which node16 refuses to `require`
      // from a CommonJS file (the guide says so).
      const file = path.join(REPO, 'test', `__setup_guide_snippet_${i}__.mts`).split(path.sep).join('/');
      expect(typeCheck(file, snippet)).toEqual([]);
    }
    // The check would catch a wrong option name.
    const file = path.join(REPO, 'test', '__setup_guide_snippet_bad__.mts').split(path.sep).join('/');
    expect(typeCheck(file, snippets[0].replace('apiKey:', 'api_key:')).join('\n')).toMatch(/api_key/);
  }, 60_000);

  test('Python: py_compile', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-py-'));
    try {
      for (const [i, snippet] of blocks(md, 'python').entries()) {
        const file = path.join(dir, `snippet_${i}.py`);
        fs.writeFileSync(file, snippet);
        execFileSync('python3', ['-m', 'py_compile', file], { stdio: 'pipe' });
      }
      expect(blocks(md, 'python')).toHaveLength(4);
      // The check would catch a syntax error.
      fs.writeFileSync(path.join(dir, 'bad.py'), blocks(md, 'python')[0].replace('client = QdrantClient(', 'client = QdrantClient(('));
      expect(() => execFileSync('python3', ['-m', 'py_compile', path.join(dir, 'bad.py')], { stdio: 'pipe' })).toThrow();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('Go: a complete file that gofmt accepts and leaves unchanged', () => {
    const snippets = blocks(md, 'go');
    expect(snippets).toHaveLength(4);
    for (const snippet of snippets) {
      const formatted = execFileSync('/usr/local/go/bin/gofmt', ['-e'], { input: snippet, encoding: 'utf8' });
      expect(formatted).toBe(snippet);
      expect(snippet).toMatch(/^package main\n/);
    }
  });

  test('bash: every block passes bash -n', () => {
    const snippets = blocks(md, 'bash');
    expect(snippets.length).toBeGreaterThanOrEqual(6);
    for (const snippet of snippets) execFileSync('bash', ['-n'], { input: snippet, stdio: ['pipe', 'pipe', 'pipe'] });
  });
});

describe('5. names that are not environment names (synth refuses them; render() and skipValidation do not stop)', () => {
  const hostile = ['X$(touch pwned1)', "K'\"; touch pwned2; #", 'U`touch pwned3`\nY'];
  const props = (target: ReturnType<typeof SecretTarget.json>): ClusterAccessProps => ({
    ...ONE,
    apiKeys: [{
      name: 'k',
      clusters: ['prod-eu'],
      secretTargets: [target],
      secretNaming: { names: { QDRANT_URL: hostile[0], QDRANT_API_KEY: hostile[1], QDRANT_GRPC_URL: hostile[2] } },
    }],
  });

  test.each([['Terraform outputs', SecretTarget.terraformOutputs()], ['a JSON file', SecretTarget.json({ path: 'q.json' })]])(
    '%s: every snippet holds them as escaped strings, and pasting the shell lines runs nothing else', (_, target) => {
      const md = section(render(props(target)), 5);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-names-'));
      try {
        // Stand-ins for the commands the lines call; jq is the real one (it finds no file here).
        const bin = path.join(dir, 'bin');
        fs.mkdirSync(bin);
        for (const cmd of ['curl', 'terraform']) fs.writeFileSync(path.join(bin, cmd), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
        const script = blocks(md, 'bash').join('').split('\n').filter((l) => !l.startsWith('read ')).join('\n');
        spawnSync('bash', ['--norc', '--noprofile', '-c', script], { cwd: dir, env: { PATH: `${bin}:${process.env.PATH}` }, stdio: ['ignore', 'pipe', 'pipe'] });
        expect(fs.readdirSync(dir)).toEqual(['bin']);
        for (const file of ['snippet.py', 'snippet.go']) {
          fs.writeFileSync(path.join(dir, file), blocks(md, file.endsWith('.py') ? 'python' : 'go')[0]);
        }
        execFileSync('python3', ['-m', 'py_compile', path.join(dir, 'snippet.py')], { stdio: 'pipe' });
        execFileSync('/usr/local/go/bin/gofmt', ['-e', path.join(dir, 'snippet.go')], { stdio: 'pipe' });
        // Each name reaches the code as one string literal of its language.
        expect(blocks(md, 'python')[0]).toContain(JSON.stringify(hostile[1]));
        expect(blocks(md, 'go')[0]).toContain(JSON.stringify(hostile[2]));
        expect(blocks(md, 'java')[0]).toContain(JSON.stringify(hostile[2]));
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
});

describe('5. the shell lines against the stand-in cluster', () => {
  let cluster: StandInQdrant;
  const key = canaryKey('guide-curl');

  beforeAll(async () => {
    cluster = await StandInQdrant.start({ apiKey: key });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  /**
   * Runs lines of the guide as pasted, in `cwd` (asynchronously: the stand-in answers from this
   * process), with `stdin` as what the user types; curl trusts the stand-in's CA and prints only
   * the status code. `terraform` answers `output -raw <name>` from `outputs`, as the state would.
   */
  async function run(lines: string, opts: { cwd: string; stdin?: string; outputs?: Record<string, string> }): Promise<string> {
    const terraform = 'terraform() { [ "$2" = output ] && [ "$3" = -raw ] && printf \'%s\' "$(printenv "OUT_$4")"; }';
    const script = `${terraform}\n${lines.replace(/^curl /gm, 'curl --cacert "$GUIDE_TEST_CA" --max-time 10 -o /dev/null -w "%{http_code} " ')}`;
    const child = execFile('bash', ['--norc', '--noprofile', '-c', script], {
      cwd: opts.cwd,
      // A clean environment: no proxy settings, only loopback is contacted.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GUIDE_TEST_CA: cluster.caFile, ...Object.fromEntries(Object.entries(opts.outputs ?? {}).map(([k, v]) => [`OUT_${k}`, v])) },
      encoding: 'utf8',
    });
    child.stdin!.end(opts.stdin ?? '');
    return new Promise((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => { out += d; });
      child.on('error', reject);
      child.on('close', () => resolve(out.trim()));
    });
  }

  const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'guide-shell-'));

  test('no target: the export lines take the URL from the output and the pasted key; both header forms then get 200, 401 without the key', async () => {
    const md = render({ clusters: [{ name: 'local', url: cluster.url }], apiKeys: [{ name: 'k', clusters: ['local'] }] });
    const [exports, curl] = blocks(section(md, 5), 'bash');
    expect(curl.trim().split('\n')).toHaveLength(2);
    const cwd = dir();
    try {
      const outputs = { qdrant_local_rest_endpoint: `${cluster.url}` };
      expect(await run(`${exports}${curl}`, { cwd, stdin: `${key}\n`, outputs })).toBe('200 200');
      expect(await run(`${exports}${curl}`, { cwd, stdin: '', outputs })).toBe('401 401');
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
    const sent = cluster.requests.filter((r) => r.path === '/collections');
    expect(sent.some((r) => r.headers['api-key'] === key)).toBe(true);
    expect(sent.some((r) => r.headers.authorization === `Bearer ${key}`)).toBe(true);
    expect(md).not.toContain(key);
  });

  test('a .env target: its load line, then the curl lines; a JSON target: the curl lines read it with jq', async () => {
    const cwd = dir();
    try {
      fs.mkdirSync(path.join(cwd, 'conf'));
      const env = render({ clusters: [{ name: 'local', url: cluster.url }], apiKeys: [{ name: 'k', clusters: ['local'], secretTargets: [SecretTarget.dotenv({ path: 'conf/.env' })] }] });
      fs.writeFileSync(path.join(cwd, 'conf', '.env'), `QDRANT_URL='${cluster.url}'\nQDRANT_API_KEY='${key}'\n`);
      expect(await run(blocks(section(env, 5), 'bash').join(''), { cwd })).toBe('200 200');
      const json = render({ clusters: [{ name: 'local', url: cluster.url }], apiKeys: [{ name: 'k', clusters: ['local'], secretTargets: [SecretTarget.json({ path: 'conf/q.json' })] }] });
      fs.writeFileSync(path.join(cwd, 'conf', 'q.json'), JSON.stringify({ other: 1, QDRANT_URL: cluster.url, QDRANT_API_KEY: key }));
      expect(await run(blocks(section(json, 5), 'bash').join(''), { cwd })).toBe('200 200');
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('6. rotation', () => {
  const props = (createdOn?: string, rotateAfterDays?: number): ClusterAccessProps => ({
    clusters: [{ name: 'prod-eu', url: EU }],
    apiKeys: [
      { name: 'search-api', clusters: ['prod-eu'], createdOn, rotateAfterDays },
      { name: 'other', clusters: ['prod-eu'] },
    ],
  });

  test('due dates: createdOn + rotateAfterDays (default 90), and "not recorded" without createdOn', () => {
    expect(tableRows(section(render(props('2026-01-01')), 6), 'Key')).toEqual([
      ['`search-api`', 'output `qdrant_api_key_search_api_expires_at`', '`2026-01-01`', '90 days', '2026-04-01'],
      ['`other`', 'output `qdrant_api_key_other_expires_at`', 'not recorded: set `createdOn`', '90 days', 'unknown'],
    ]);
    expect(tableRows(section(render(props('2024-02-01', 29)), 6), 'Key')[0])
      .toEqual(['`search-api`', 'output `qdrant_api_key_search_api_expires_at`', '`2024-02-01`', '29 days', '2024-03-01']);
  });

  test('one `terraform output -raw` line per key, run in the stack\'s directory, naming the expiry output the stack really declares', () => {
    // A project directory, synthesized as `cdktf synth` does it (into ./cdktf.out).
    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-outputs-'));
    try {
      const app = new App({ outdir: path.join(project, 'cdktf.out'), stackTraces: false });
      const stack = new TerraformStack(app, 'test');
      const access = new ClusterAccess(stack, 'Qdrant', props('2026-01-01'));
      app.synth();
      const md = section(SetupGuide.render(access), 6);
      const lines = blocks(md, 'bash')[0].trim().split('\n');
      expect(lines).toEqual([
        'terraform -chdir=cdktf.out/stacks/test output -raw qdrant_api_key_search_api_expires_at   # search-api: the expiry from the last deploy, empty if none',
        'terraform -chdir=cdktf.out/stacks/test output -raw qdrant_api_key_other_expires_at   # other: the expiry from the last deploy, empty if none',
      ]);
      expect(md).toContain('Read it from the project directory: these lines run Terraform in the stack\'s directory');
      // cdktf runs terraform in the stack's directory (its backend finds the state), and so do these lines.
      const stackDir = path.join(project, 'cdktf.out', 'stacks', 'test');
      const outputs = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8')).output;
      for (const line of lines) {
        const args = execFileSync('bash', ['--norc', '--noprofile', '-c', `terraform() { printf '%s\\n' "$@"; }\n${line}`], {
          cwd: project, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        }).trim().split('\n');
        expect(path.resolve(project, args[0].replace(/^-chdir=/, ''))).toBe(stackDir);
        expect(args.slice(1, 3)).toEqual(['output', '-raw']);
        expect(outputs[args[3]]).toBeDefined();
      }
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  });

  test('ApiKey exposes createdOn and rotateAfterDays', () => {
    const [a, b] = newAccess(props('2026-01-01', 30)).apiKeys;
    expect([a.createdOn, a.rotateAfterDays, b.createdOn, b.rotateAfterDays]).toEqual(['2026-01-01', 30, undefined, 90]);
  });

  test('a key that is due gets a warning annotation; "today" comes from the context', () => {
    expect(warnings(newAccess(props('2026-01-01'), { [TODAY_KEY]: '2026-03-31' }))).toEqual([]);
    const due = warnings(newAccess(props('2026-01-01'), { [TODAY_KEY]: '2026-04-01' }));
    expect(due).toHaveLength(1);
    expect(due[0]).toMatch(/^key "search-api" was created on 2026-01-01 and was due for rotation on 2026-04-01 \(rotateAfterDays: 90\)/);
    expect(warnings(newAccess(props(undefined), { [TODAY_KEY]: '2099-01-01' }))).toEqual([]);
  });

  test('a year under 100 is that year (Date.UTC would read 0099 as 1999): a date, long overdue, not "not a date"', () => {
    const access = newAccess(props('0099-12-31'), { [TODAY_KEY]: '2026-11-22' });
    expect(validationErrors(access.node.scope as TerraformStack)).toEqual([]);
    expect(warnings(access)[0]).toMatch(/^key "search-api" was created on 0099-12-31 and was due for rotation on 0100-03-31 /);
  });

  test('the warning reaches the synth manifest', () => {
    const access = newAccess(props('2020-01-01'), { [TODAY_KEY]: '2026-11-22' });
    const outdir = Testing.fullSynth(access.node.scope as TerraformStack);
    const manifest = JSON.parse(fs.readFileSync(path.join(outdir, 'manifest.json'), 'utf8'));
    const annotations = manifest.stacks.test.annotations as Array<{ level: string; message: string; constructPath: string }>;
    expect(annotations).toContainEqual(expect.objectContaining({
      level: '@cdktf/warn', constructPath: 'test/Qdrant/ApiKeys/search-api', message: expect.stringContaining('due for rotation on 2020-03-31'),
    }));
  });

  test('without the context, the real date is used', () => {
    expect(warnings(newAccess(props('2000-01-01')))).toHaveLength(1);
    expect(warnings(newAccess(props('2999-01-01')))).toHaveLength(0);
  });

  test('invalid createdOn, rotateAfterDays and today context are validation errors', () => {
    const errors = (p: ClusterAccessProps, context: Record<string, unknown> = {}) =>
      validationErrors(newAccess(p, context).node.scope as TerraformStack);
    expect(errors(props('2026-02-30'))).toEqual([
      '[test/Qdrant/ApiKeys/search-api] key "search-api" createdOn "2026-02-30" is not a date; expected YYYY-MM-DD ' +
        '(the day the key was created in the console), e.g. "2026-01-31"',
    ]);
    expect(errors(props('1/2/2026'))[0]).toContain('createdOn "1/2/2026" is not a date');
    expect(errors(props('2026-01-01', 0))[0]).toContain('rotateAfterDays 0 is not a whole number of days in 1-3650; use e.g. 90');
    expect(errors(props('2026-01-01', 1.5))[0]).toContain('rotateAfterDays 1.5');
    expect(errors(props('2026-01-01'), { [TODAY_KEY]: 'tomorrow' })[0])
      .toContain('context "cdktf-qdrant-cluster-access:today" is "tomorrow", not a date');
    expect(errors(props('2026-01-01', 365))).toEqual([]);
    // Beyond the range with a createdOn: the same error, not a crash computing the due date.
    for (const days of [3651, 1e8, 1e12]) {
      expect(errors(props('2026-01-01', days))).toEqual([expect.stringContaining(`rotateAfterDays ${days} is not a whole number of days in 1-3650`)]);
    }
  });

  test('a createdOn in the future is a validation error (it would keep the reminder quiet); tomorrow is allowed (time zones)', () => {
    const errors = (createdOn: string) => validationErrors(newAccess(props(createdOn), { [TODAY_KEY]: '2026-11-22' }).node.scope as TerraformStack);
    expect(errors('2126-11-22')).toEqual([
      '[test/Qdrant/ApiKeys/search-api] key "search-api" createdOn "2126-11-22" is in the future (today is 2026-11-22), ' +
        'which would keep the rotation reminder quiet; set the day the key was created in the console, as YYYY-MM-DD',
    ]);
    expect(errors('2026-11-24')).toHaveLength(1);
    expect([errors('2026-11-23'), errors('2026-11-22')]).toEqual([[], []]);
  });
});

describe('7. troubleshooting', () => {
  test('one row per entry of the checker\'s failure catalog, in its words and its order', () => {
    const rows = tableRows(section(render(ONE), 7), 'The check says');
    expect(rows).toEqual(FAILURES.map((f) => [`\`${f.phrase}\``, f.cause, f.fix].map((c) => c.replace(/\|/g, '\\|'))));
    expect(rows.length).toBeGreaterThanOrEqual(20);
  });

  test('the checker builds every failure from a literal catalog id (so the table covers all it can say)', () => {
    const ids = new Set<string>(FAILURES.map((f) => f.id));
    const dir = path.join(REPO, 'assets', 'checker');
    const used: string[] = [];
    for (const file of fs.readdirSync(dir).filter((f) => /(?<!\.d)\.ts$/.test(f) && f !== 'failures.ts')) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      for (const m of text.matchAll(/\bfailure\(\s*([^,)]*)/g)) {
        // A computed id would escape this check: every call names its id literally.
        expect([file, m[1]]).toEqual([file, expect.stringMatching(/^'[a-z-]+'$/)]);
        used.push(m[1].slice(1, -1));
      }
    }
    expect(used.length).toBeGreaterThanOrEqual(20);
    expect([...new Set(used)].filter((id) => !ids.has(id))).toEqual([]);
  });

  test('the Node engine: a missing node is a row that names CheckEngine.TERRAFORM', () => {
    const rows = tableRows(section(render(ONE), 7), 'Message');
    const node = rows.find((r) => r[0].startsWith('`node was not found on PATH of the machine that runs Terraform'));
    expect(node?.[2]).toContain('`healthCheck: { engine: CheckEngine.TERRAFORM }`');
    expect(rows.some((r) => r[0].includes('x509'))).toBe(false);
  });

  test('CheckEngine.TERRAFORM: the failures it can report, as postcondition errors of the plan, and the provider\'s errors instead of the checker\'s', () => {
    const md = section(render({ ...ONE, healthCheck: { engine: CheckEngine.TERRAFORM, grpc: false } }), 7);
    expect(md).toContain('a failed check fails the plan: each failed request is an `Error: Resource postcondition failed` whose message is ' +
      '`FAIL <key> → <cluster>  step <step>: <reason>`');
    const ids = new Set(terraformFailureIds());
    const rows = tableRows(md, 'The check says');
    expect(rows).toEqual(FAILURES.filter((f) => ids.has(f.id)).map((f) => [`\`${f.phrase}\``, f.cause, f.fix].map((c) => c.replace(/\|/g, '\\|'))));
    // Network and TLS faults are the provider's errors, not catalog failures; gRPC is not checked.
    expect(rows.length).toBeLessThan(FAILURES.length);
    expect(rows.map((r) => r[0])).not.toContain('`TLS certificate not trusted`');
    const messages = tableRows(md, 'Message').map((r) => r[0]);
    expect(messages).toEqual([
      '`Qdrant API key "<name>" has no value: run read -rs TF_VAR_…`',
      '`tls: failed to verify certificate: x509: certificate signed by unknown authority`',
      '`Error making request: GET <url> giving up after N attempt(s): … connection refused` (or `no such host`)',
      '`Error making request: GET <url> giving up after N attempt(s)` with no reason, or `request exceeded the specified timeout`',
    ]);
    expect(md).toContain('is each request\'s `request_timeout_ms`, and `healthCheck.retries` the `retry` attempts');
  });

  describe('the checker against the stand-in: each fault is a catalog failure the guide explains', () => {
    const key = canaryKey('guide-fault');
    const expired = canaryKey('guide-expired');
    let cluster: StandInQdrant;
    const guide = section(render(ONE), 7);
    const FAST = { retries: 0, backoffBaseMs: 10, backoffCapMs: 50, timeoutSeconds: 2, deadlineSeconds: 5 };

    beforeAll(async () => {
      cluster = await StandInQdrant.start({ apiKey: key, expiredApiKey: expired });
    });
    afterAll(async () => {
      await cluster?.stop();
    });

    const cases: [string, Parameters<StandInQdrant['setMode']>[0], Partial<Checker.CheckOptions>, FailureId][] = [
      ['a wrong key', 'normal', { apiKey: 'not-the-key-0000' }, 'key-rejected'],
      ['a proxy that drops the api-key header', 'strip-api-key', {}, 'key-not-received'],
      ['an expired key', 'normal', { apiKey: expired }, 'key-expired'],
      ['a key with a trailing newline', 'normal', { apiKey: `${key}\n` }, 'key-whitespace'],
      ['an open cluster', 'open', {}, 'cluster-open'],
      ['something that is not Qdrant', 'not-qdrant', {}, 'not-qdrant'],
      ['a redirect', 'redirect', {}, 'redirect'],
      ['a closed port', 'refused', {}, 'refused'],
      ['a server that never answers (1 s timeout)', 'hang', { timeoutSeconds: 1 }, 'timeout'],
      ['a certificate from a CA not given', 'normal', { caFile: undefined }, 'tls-untrusted'],
      ['a manage key declared read-only', 'normal', { access: 'read-only' }, 'excess-manage'],
      ['a declared collection that does not exist', 'normal', { access: 'collections', readCollections: ['nope'] }, 'collection-missing'],
    ];

    test.each(cases)('%s', async (_what, mode, options, expectedId) => {
      cluster.setMode(mode);
      const report = await checkClusterAccess({ url: cluster.url, apiKey: key, caFile: cluster.caFile, ...FAST, ...options });
      expect(report.ok).toBe(false);
      const entry = FAILURES.find((f) => f.id === report.failureId);
      expect(entry).toBeDefined();
      expect(report.failureId).toBe(expectedId);
      // What the deploy prints starts with the phrase the guide lists, with its cause and fix.
      expect(report.reason!.startsWith(entry!.phrase)).toBe(true);
      expect(guide).toContain(`| \`${entry!.phrase}\` | ${entry!.cause.replace(/\|/g, '\\|')} |`);
      expect(JSON.stringify(report)).not.toContain(key);
    }, 30_000);
  });

  /** A message of the "before any check" table as a pattern: <...> and N and … stand for any text. */
  function messagePattern(cell: string): RegExp {
    const text = cell.replace(/^`|`$/g, '');
    const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(escaped.replace(/<[a-z ]+>/g, '.+').replace(/\bN\b/g, '\\d+').replace(/…/g, '.*'));
  }

  /** The "before any check" rows: [message pattern, fix]. */
  function beforeCheckRows(): [RegExp, string][] {
    return tableRows(section(render(ONE), 7), 'Message').map((r) => [messagePattern(r[0].match(/^`[^`]*`/)![0]), r[1]]);
  }

  test('"before any check": the missing-key messages are the ones the stack and the runtime print', () => {
    const rows = beforeCheckRows();
    // The precondition of the check resource.
    const stack = new TerraformStack(Testing.app(), 'test');
    new ClusterAccess(stack, 'Qdrant', ONE);
    const check = Object.values<any>(JSON.parse(Testing.synth(stack, true)).resource.null_resource)[0];
    expect(check.lifecycle.precondition[0].error_message).toMatch(rows[0][0]);
    // The checker and the writer, run without the TF_VAR_ that names the key.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const checker = spawnSync('node', [path.join(REPO, 'assets', 'checker', 'cli.js'), 'check', '--url', 'https://127.0.0.1:1', '--key-env', 'TF_VAR_missing_key'], { env, encoding: 'utf8' });
    expect(checker.status).not.toBe(0);
    expect(checker.stderr).toMatch(rows[1][0]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-writer-'));
    try {
      const writer = spawnSync('node', [path.join(REPO, 'assets', 'writer', 'cli.js'), 'write', '--file', path.join(dir, '.env'), '--owner', 'test/Qdrant'], {
        env: { ...env, QCA_ENTRIES: '{}', QCA_ENTRIES_FROM_ENV: JSON.stringify({ QDRANT_API_KEY: 'TF_VAR_missing_key' }) }, encoding: 'utf8',
      });
      expect(writer.status).not.toBe(0);
      expect(writer.stderr).toMatch(rows[1][0]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // The rows are written by hand: each is matched here against what the runtime really prints.
  test('"before any check": the name-clash message is the one the writer prints', () => {
    const rows = beforeCheckRows();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-writer-'));
    try {
      const file = path.join(dir, '.env');
      fs.writeFileSync(file, 'QDRANT_URL=mine\n');
      const writer = spawnSync('node', [path.join(REPO, 'assets', 'writer', 'cli.js'), 'write', '--file', file, '--owner', 'test/Qdrant'], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', QCA_ENTRIES: JSON.stringify({ QDRANT_URL: 'https://q.example.com:6333' }) }, encoding: 'utf8',
      });
      expect(writer.status).not.toBe(0);
      expect(writer.stderr).toContain('refusing to change');
      expect(writer.stderr).toMatch(rows[2][0]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('"before any check": a key set both by TF_VAR_ and by a .tfvars file: the message is the one the checker prints', () => {
    const rows = beforeCheckRows();
    const checker = spawnSync('node', [path.join(REPO, 'assets', 'checker', 'cli.js'), 'check', '--url', 'https://127.0.0.1:1',
      '--key-env', 'TF_VAR_qdrant_api_key_app', '--key-sha256-env', 'QCA_KEY_SHA256'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TF_VAR_qdrant_api_key_app: 'exported-key-value', QCA_KEY_SHA256: createHash('sha256').update('tfvars-key-value').digest('hex') },
      encoding: 'utf8',
    });
    expect(checker.status).toBe(2);
    expect(checker.stderr).toMatch(rows[3][0]);
    expect(rows[3][1]).toBe('when a check starts, before any request');
  });

  test('the writer\'s refusal is listed as what happens after the checks passed, not before any check', () => {
    const s7 = section(render(ONE), 7);
    expect(s7).not.toContain('Before any check runs');
    const rows = tableRows(s7, 'Message');
    expect(rows.map((r) => r.length)).toEqual([3, 3, 3, 3, 3]);
    expect(rows[2][0]).toContain('refusing to change');
    expect(rows[2][1]).toBe('after the checks passed, while writing a file target; the file is left as it was');
    expect(rows[0][1]).toBe('before any check (the plan)');
  });

  test('the timeout range comes from the checker\'s own option spec', () => {
    expect(section(render(ONE), 7)).toContain('Timeouts: `healthCheck.timeoutSeconds` is 1-300 (default 10)');
  });
});

describe('the key never appears', () => {
  test('a canary in TF_VAR_... and in a file is absent from the rendered and the synthesized guide', () => {
    const canary = canaryKey();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-canary-'));
    const saved = process.env.TF_VAR_qdrant_api_key_search_api;
    process.env.TF_VAR_qdrant_api_key_search_api = canary;
    const cwd = process.cwd();
    try {
      // Where Terraform would read it: terraform.tfvars in the working directory of the synth.
      fs.writeFileSync(path.join(dir, 'terraform.tfvars'), `qdrant_api_key_search_api = "${canary}"\n`);
      process.chdir(dir);
      const copy = path.join(dir, 'copy', 'qdrant-setup.md');
      const access = newAccess({ ...TWO, setupGuide: { outputPath: copy } });
      expect(SetupGuide.render(access)).not.toContain(canary);
      // The model is plain data, and holds no key value either.
      expect(JSON.stringify(buildGuideModel(access))).not.toContain(canary);
      const outdir = Testing.fullSynth(access.node.scope as TerraformStack);
      expect(fs.readFileSync(path.join(outdir, 'stacks', 'test', 'qdrant-setup.md'), 'utf8')).not.toContain(canary);
      expect(fs.readFileSync(copy, 'utf8')).not.toContain(canary);
    } finally {
      process.chdir(cwd);
      if (saved === undefined) delete process.env.TF_VAR_qdrant_api_key_search_api;
      else process.env.TF_VAR_qdrant_api_key_search_api = saved;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('writing the guide at synth', () => {
  test('Testing.fullSynth writes stacks/<id>/qdrant-setup.md next to cdk.tf.json', () => {
    const access = newAccess(TWO);
    const outdir = Testing.fullSynth(access.node.scope as TerraformStack);
    const dir = path.join(outdir, 'stacks', 'test');
    expect(fs.existsSync(path.join(dir, 'cdk.tf.json'))).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'qdrant-setup.md'), 'utf8')).toBe(SetupGuide.render(access));
  });

  test('app.synth() writes one guide per stack', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-app-'));
    try {
      const app = new App({ outdir, stackTraces: false });
      const a = new ClusterAccess(new TerraformStack(app, 'eu'), 'Qdrant', ONE);
      new ClusterAccess(new TerraformStack(app, 'plain'), 'Qdrant', { ...ONE, setupGuide: { enabled: false } });
      app.synth();
      expect(fs.readFileSync(path.join(outdir, 'stacks', 'eu', 'qdrant-setup.md'), 'utf8')).toBe(SetupGuide.render(a));
      expect(fs.existsSync(path.join(outdir, 'stacks', 'plain', 'cdk.tf.json'))).toBe(true);
      expect(fs.existsSync(path.join(outdir, 'stacks', 'plain', 'qdrant-setup.md'))).toBe(false);
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });

  test('several accesses in one stack: the synthesizer is wrapped once and the file holds both', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const original = stack.synthesizer;
    const a = new ClusterAccess(stack, 'Search', ONE);
    const wrapped = stack.synthesizer;
    expect(wrapped).not.toBe(original);
    const b = new ClusterAccess(stack, 'Ingest', { clusters: [{ name: 'prod-us', url: US }], apiKeys: [{ name: 'ingest', clusters: ['prod-us'] }] });
    expect(stack.synthesizer).toBe(wrapped);
    const outdir = Testing.fullSynth(stack);
    expect(fs.readFileSync(path.join(outdir, 'stacks', 'test', 'qdrant-setup.md'), 'utf8')).toBe(renderStackGuide([a, b].map(buildGuideModel)));
  });

  test('outputPath writes a copy; a relative path is resolved from the working directory', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-copy-'));
    const cwd = process.cwd();
    try {
      const absolute = path.join(dir, 'abs', 'guide.md');
      const a = newAccess({ ...ONE, setupGuide: { outputPath: absolute } });
      Testing.fullSynth(a.node.scope as TerraformStack);
      expect(fs.readFileSync(absolute, 'utf8')).toBe(SetupGuide.render(a));

      process.chdir(dir);
      const b = newAccess({ ...TWO, setupGuide: { outputPath: path.join('docs', 'qdrant-setup.md') } });
      Testing.fullSynth(b.node.scope as TerraformStack);
      expect(fs.readFileSync(path.join(dir, 'docs', 'qdrant-setup.md'), 'utf8')).toBe(SetupGuide.render(b));
    } finally {
      process.chdir(cwd);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('outputPath is checked at synth', () => {
    let dir: string;
    const cwd = process.cwd();
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-outpath-'));
      process.chdir(dir);
      fs.mkdirSync('docs');
    });
    afterEach(() => {
      process.chdir(cwd);
      fs.rmSync(dir, { recursive: true, force: true });
    });
    /** One access per call, with key and cluster names of its own (two accesses of a stack may not share them). */
    const props = (key: string, outputPath: string): ClusterAccessProps =>
      ({ clusters: [{ name: `c-${key}`, url: EU }], apiKeys: [{ name: key, clusters: [`c-${key}`] }], setupGuide: { outputPath } });
    const synthError = (app: App): string => {
      try {
        app.synth();
        return '';
      } catch (e) {
        return (e as Error).message;
      }
    };
    /** Every file under docs/, relative. */
    const docs = () => fs.readdirSync('docs', { recursive: true }).map(String).sort();

    test('a token, a "${", a directory: one error each, at once, with the construct path; nothing is written', () => {
      const app = new App({ outdir: path.join(dir, 'out'), stackTraces: false });
      const stack = new TerraformStack(app, 'a');
      const v = new TerraformVariable(stack, 'p', { type: 'string' });
      new ClusterAccess(stack, 'Token', props('k1', `docs/${v.stringValue}.md`));
      new ClusterAccess(stack, 'Literal', props('k2', 'docs/${var.p}.md'));
      new ClusterAccess(stack, 'Dir', props('k3', 'docs'));
      new ClusterAccess(stack, 'Slash', props('k4', 'docs/new/'));
      const lines = synthError(app).split('\n').map((l) => l.trim()).filter((l) => l.startsWith('['));
      expect(lines).toEqual([
        expect.stringMatching(/^\[a\/Token\] setupGuide\.outputPath "docs\/\$\{TfToken\[TOKEN\.\d+\]\}\.md" is a token or holds "\$\{": the guide is written at synth, when nothing has a value yet; pass a plain path such as "docs\/qdrant-setup\.md"$/),
        '[a/Literal] setupGuide.outputPath "docs/${var.p}.md" is a token or holds "${": the guide is written at synth, when nothing has a value yet; pass a plain path such as "docs/qdrant-setup.md"',
        '[a/Dir] setupGuide.outputPath "docs" is a directory; pass the path of a file, such as "docs/qdrant-setup.md"',
        '[a/Slash] setupGuide.outputPath "docs/new/" names a directory; pass the path of a file, such as "docs/new/qdrant-setup.md"',
      ]);
      expect(docs()).toEqual([]);
      expect(fs.existsSync(path.join(dir, 'out', 'stacks', 'a', 'cdk.tf.json'))).toBe(false);
    });

    test('with validation skipped, such a path is still not written (no file named after a token, no EISDIR)', () => {
      const app = new App({ outdir: path.join(dir, 'out'), stackTraces: false, skipValidation: true });
      const stack = new TerraformStack(app, 'a');
      const v = new TerraformVariable(stack, 'p', { type: 'string' });
      new ClusterAccess(stack, 'Token', props('k1', `docs/${v.stringValue}.md`));
      new ClusterAccess(stack, 'Dir', props('k2', 'docs'));
      expect(synthError(app)).toBe('');
      expect(docs()).toEqual([]);
      expect(fs.existsSync(path.join(dir, 'out', 'stacks', 'a', 'qdrant-setup.md'))).toBe(true);
    });

    test('one file claimed by two stacks of the app (in any spelling), or two accesses of one stack: an error naming the first', () => {
      const app = new App({ outdir: path.join(dir, 'out'), stackTraces: false });
      new ClusterAccess(new TerraformStack(app, 'a'), 'One', props('k1', 'docs/qdrant-setup.md'));
      const b = new TerraformStack(app, 'b');
      new ClusterAccess(b, 'Two', props('k2', `${dir}/docs/../docs/qdrant-setup.md`));
      new ClusterAccess(b, 'Three', props('k3', './docs/qdrant-setup.md'));
      new ClusterAccess(b, 'Own', props('k4', 'docs/b.md'));
      const lines = synthError(app).split('\n').map((l) => l.trim()).filter((l) => l.startsWith('['));
      const fix = 'each guide needs a file of its own; give one of them another outputPath';
      expect(lines).toEqual([
        `[b/Two] setupGuide.outputPath ${JSON.stringify(`${dir}/docs/../docs/qdrant-setup.md`)} is also the outputPath of a/One: ${fix}`,
        `[b/Three] setupGuide.outputPath "./docs/qdrant-setup.md" is also the outputPath of a/One: ${fix}`,
      ]);
      // Stack a was valid and written before b was checked; b wrote nothing.
      expect(docs()).toEqual(['qdrant-setup.md']);
      expect(fs.readFileSync('docs/qdrant-setup.md', 'utf8')).toContain('stack `a`');
    });

    test('the file of a secret target (the app\'s .env) is refused: the guide would overwrite it', () => {
      fs.writeFileSync('.env', 'DATABASE_URL=keepme\n');
      const app = new App({ outdir: path.join(dir, 'out'), stackTraces: false });
      new ClusterAccess(new TerraformStack(app, 'a'), 'Qdrant', {
        ...props('k1', './.env'),
        apiKeys: [{ name: 'k1', clusters: ['c-k1'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }],
      });
      const lines = synthError(app).split('\n').map((l) => l.trim()).filter((l) => l.startsWith('['));
      expect(lines).toEqual([
        '[a/Qdrant] setupGuide.outputPath "./.env" is also a file secret target of a/Qdrant/SecretTargets/.env-file-.env: the guide would overwrite it at synth; give the guide another outputPath',
      ]);
      expect(fs.readFileSync('.env', 'utf8')).toBe('DATABASE_URL=keepme\n');
    });

    test('a file target of a stack synthesized later, or any file that is not a guide, is never overwritten', () => {
      fs.writeFileSync('.env', 'DATABASE_URL=keepme\n');
      fs.writeFileSync('README.md', '# my app\n');
      for (const [outputPath, withTarget] of [['./.env', true], ['README.md', false]] as const) {
        const app = new App({ outdir: path.join(dir, 'out'), stackTraces: false });
        // The guide's stack first: its validation runs before the later stack binds its targets.
        new ClusterAccess(new TerraformStack(app, 'dev'), 'Qdrant', props('k1', outputPath));
        new ClusterAccess(new TerraformStack(app, 'prod'), 'Qdrant', {
          ...props('k2', 'docs/prod.md'),
          apiKeys: [{ name: 'k2', clusters: ['c-k2'], secretTargets: withTarget ? [SecretTarget.dotenv({ path: '.env' })] : [] }],
        });
        expect(synthError(app)).toBe(`[dev/Qdrant] setupGuide.outputPath ${JSON.stringify(outputPath)} names a file that is not a setup guide ` +
          '(it lacks the "Generated by … at synth" line): the guide would overwrite it, so nothing was written there; give the guide another ' +
          'outputPath (a file secret target of another stack, say, is refused this way), or delete that file if it is yours to lose');
      }
      expect(fs.readFileSync('.env', 'utf8')).toBe('DATABASE_URL=keepme\n');
      expect(fs.readFileSync('README.md', 'utf8')).toBe('# my app\n');
    });

    test('a guide written by an earlier synth is overwritten', () => {
      for (let run = 0; run < 2; run++) {
        const app = new App({ outdir: path.join(dir, 'out'), stackTraces: false });
        new ClusterAccess(new TerraformStack(app, 'a'), 'Qdrant', props(`k${run}`, 'docs/qdrant-setup.md'));
        expect(synthError(app)).toBe('');
        expect(fs.readFileSync('docs/qdrant-setup.md', 'utf8')).toContain(`k${run}`);
      }
    });
  });

  test('no guide when synth fails validation, and none when disabled', () => {
    const bad = newAccess({ clusters: [{ name: 'prod-eu', url: EU }], apiKeys: [{ name: 'k', clusters: ['nope'] }] });
    expect(() => Testing.fullSynth(bad.node.scope as TerraformStack)).toThrow(/unknown cluster "nope"/);
    const off = newAccess({ ...ONE, setupGuide: { enabled: false } });
    const outdir = Testing.fullSynth(off.node.scope as TerraformStack);
    expect(fs.existsSync(path.join(outdir, 'stacks', 'test', 'cdk.tf.json'))).toBe(true);
    expect(fs.existsSync(path.join(outdir, 'stacks', 'test', 'qdrant-setup.md'))).toBe(false);
  });
});

describe('the guide follows the case it renders (review of 2026-11-22)', () => {
  /** Every line of the guide except section 7 (the checker's catalog, which names the check as such). */
  const beforeTroubleshooting = (md: string) => md.slice(0, md.search(/^## 7\. /m));

  test('healthCheck.enabled false: no sentence promises a check; the targets are written without one', () => {
    const md = render({
      clusters: [{ name: 'prod-eu', url: EU }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], access: KeyAccess.readOnly(), secretTargets: [SecretTarget.json({ path: 'qdrant.json' })] }],
      healthCheck: { enabled: false },
    });
    const text = beforeTroubleshooting(md);
    expect(text).not.toMatch(/check \(section 3\) reads|warns when it is less than|after the key's health check has passed|after the check passed|runs again|(?<!Nothing )proves the new key|fails the deploy|passes the check/);
    expect(section(md, 2)).toContain('no check reads it');
    expect(section(md, 4)).toContain('The deploy writes the entries into each secret target without any check (`healthCheck.enabled: false`)');
    expect(section(md, 6)).toContain('Nothing proves the new key (`healthCheck.enabled: false`)');
    // With checks on, the same sentences still say what the check does.
    const on = render({ ...ONE, apiKeys: [{ name: 'search-api', clusters: ['prod-eu'], secretTargets: [SecretTarget.json({ path: 'qdrant.json' })] }] });
    expect(section(on, 4)).toContain('after the key\'s health check has passed');
    expect(section(on, 6)).toContain('proves the new key on every cluster it covers');
  });

  test('a key from ApiKeySource.fromToken: its check lines are hidden on success; stored in the referenced resource, not a shell variable', () => {
    const stack = new TerraformStack(Testing.app(), 'prod');
    const vault = new TerraformVariable(stack, 'vault', { type: 'string', sensitive: true });
    const access = new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: EU }],
      apiKeys: [
        { name: 'from-vault', clusters: ['prod-eu'], source: ApiKeySource.fromToken(vault.stringValue) },
        { name: 'search-api', clusters: ['prod-eu'] },
      ],
    });
    const md = SetupGuide.render(access);
    const s2 = section(md, 2);
    const vaultPart = s2.slice(s2.indexOf('### Key `from-vault`'), s2.indexOf('### Key `search-api`'));
    const searchPart = s2.slice(s2.indexOf('### Key `search-api`'));
    expect(vaultPart).not.toContain('Paste it straight into the shell of section 3');
    expect(vaultPart).toContain('store it in the resource that the key\'s token refers to');
    expect(vaultPart).not.toContain('reads the real date from the key and warns');
    expect(vaultPart).toContain('Terraform hides the lines of its check when it passes');
    expect(searchPart).toContain('Paste it straight into the shell of section 3');
    const expiry = section(md, 3).split('\n').find((l) => l.startsWith('6. Expiry'))!;
    expect(expiry).toContain('Terraform hides the check\'s lines of a key from `ApiKeySource.fromToken` (`from-vault`) when it passes (a failure still fails the deploy and is shown)');
    expect(expiry).toContain('`qdrant_api_key_from_vault_expires_at`');
    expect(expiry).toContain('`healthCheck.minValidityDays`');
    const s6 = section(md, 6);
    expect(s6).toContain('Store the new key in the resource that the key\'s token refers to (`ApiKeySource.fromToken`)');
    expect(s6).toContain('set the variable to the new key (section 3)');
    // A stack of fromToken keys only: no variable to set at all.
    const only = render({ clusters: [{ name: 'prod-eu', url: EU }], apiKeys: [{ name: 'k', clusters: ['prod-eu'], source: ApiKeySource.fromToken(new TerraformVariable(new TerraformStack(Testing.app(), 'x'), 'v', { sensitive: true }).stringValue) }] });
    expect(section(only, 6)).not.toMatch(/[Ss]et the variable/);
  });

  test('file targets hold the keys in plain text, outputs put them in the state; setting the variable writes no file', () => {
    const md = render({
      clusters: [{ name: 'prod-eu', url: EU }],
      apiKeys: [
        { name: 'a', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: 'app/.env' }), SecretTarget.json({ path: 'conf/app.json' })] },
        { name: 'b', clusters: ['prod-eu'], secretTargets: [SecretTarget.terraformOutputs()] },
      ],
    });
    const s3 = section(md, 3);
    expect(s3).not.toContain('Nothing is written to a file of the repository');
    expect(s3).toContain('Setting the variable writes no file');
    const s4 = section(md, 4);
    expect(s4).toContain('`app/.env` holds the keys in plain text: keep it out of version control');
    // The sidecar holds names only, but goes with its file.
    expect(s4).toContain('`conf/app.json` holds the keys in plain text: keep it and its sidecar `conf/.app.json.qdrant-cluster-access` out of version control');
    expect(s4).toContain('The Terraform outputs hold the keys: they are in the Terraform state');
    expect(section(render(ONE), 4)).not.toContain('plain text');
  });

  test('curl reads the key header from stdin, not from its command line; a .env target says how to load it quietly', () => {
    const md = render({ clusters: [{ name: 'prod-eu', url: EU }], apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }] });
    const s5 = section(md, 5);
    const curl = blocks(s5, 'bash').find((b) => b.includes('curl'))!;
    expect(curl).toBe([
      'curl -sS -H @- "$QDRANT_URL/collections" <<<"api-key: $QDRANT_API_KEY"',
      'curl -sS -H @- "$QDRANT_URL/collections" <<<"Authorization: Bearer $QDRANT_API_KEY"',
    ].join('\n') + '\n');
    expect(blocks(s5, 'bash')).toContain('set -a; . ./.env; set +a\n');
    // Loading it prints nothing and exports the names.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-env-'));
    try {
      fs.writeFileSync(path.join(dir, '.env'), "QDRANT_API_KEY='k-3f9a'\n");
      const out = execFileSync('bash', ['--norc', '--noprofile', '-c', 'set -a; . ./.env; set +a\nprintf "[%s]" "$(printenv QDRANT_API_KEY)"'], {
        cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
      expect(out).toBe('[k-3f9a]');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(blocks(section(render(ONE), 5), 'bash').join('')).not.toContain('set -a');
  });

  test('section 3: each key in its own block, the deploy in its own block', () => {
    const stack = new TerraformStack(Testing.app(), 'prod');
    const mine = new TerraformVariable(stack, 'ingest_key', { type: 'string', sensitive: true });
    const access = new ClusterAccess(stack, 'Qdrant', {
      clusters: [{ name: 'prod-eu', url: EU }],
      apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }, { name: 'ingest', clusters: ['prod-eu'], source: ApiKeySource.fromVariable(mine) }],
    });
    const bash = blocks(section(SetupGuide.render(access), 3), 'bash');
    expect(bash.map((b) => b.trim().split('\n').length)).toEqual([1, 1, 1]);
    expect(bash[0]).toMatch(/^read -rs TF_VAR_qdrant_api_key_search_api /);
    expect(bash[1]).toMatch(/^read -rs TF_VAR_ingest_key /);
    expect(bash[2]).toBe('cdktf deploy prod\n');
  });

  test('section 6: terraform output needs the stack directory initialized, with the state reachable', () => {
    const s6 = section(render(ONE), 6);
    expect(s6).toContain('run `terraform -chdir=cdktf.out/stacks/test init -input=false` once after `cdktf synth`');
  });

  test('a cluster whose key goes only to the Terraform outputs: the snippets say how the value reaches the app', () => {
    const md = render({ clusters: [{ name: 'prod-eu', url: EU }], apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [SecretTarget.terraformOutputs()] }] });
    const s5 = section(md, 5);
    expect(s5).toContain('`QDRANT_API_KEY` is a Terraform output, not an environment variable: have the pipeline that deploys read it ' +
      '(`terraform -chdir=cdktf.out/stacks/test output -raw QDRANT_API_KEY`) into the app\'s secret store or environment');
    expect(section(render(ONE), 5)).not.toContain('is a Terraform output');
  });

  test('the console steps of a key of one cluster say to name it', () => {
    expect(section(render(ONE), 2)).toContain('2. Go to its **API Keys** tab, click **Create**, and name the key `search-api` (the console asks for a name; the stack does not read it).');
  });
});
