/**
 * Section 5 of the setup guide: how apps connect, in seven languages. Every value is escaped for
 * its snippet's language (markdown.ts), so pasting a snippet runs nothing else. Not exported.
 */
import { Heading, code, fence, rustStr, shellVar, shellWord, str } from './markdown';
import { ClusterView, GuideModel, appNamesFor, targetKind } from './model';
import { chdirOf } from './sections';

/** Above this many clusters, the code snippets show one representative cluster. */
const MAX_SNIPPET_CLUSTERS = 3;

export function snippetsSection(m: GuideModel, h: Heading): string[] {
  const out = h(1, '5. Connect from code');
  if (m.clusters.length === 0) return [...out, 'No clusters yet.'];
  const shown = m.clusters.length > MAX_SNIPPET_CLUSTERS ? [m.clusters[0]] : m.clusters;
  out.push(
    'Every snippet reads the key from the environment variable of section 4; never write a key into code. ' +
      'REST clients (Python, TypeScript, curl) use the REST port, gRPC clients (.NET, Rust, Java, Go) the gRPC port. ' +
      'The TypeScript client `@qdrant/js-client-rest` ships ES-module type declarations: with TypeScript\'s `module: node16`, ' +
      'import it from an ES module (an `.mts` file, or a package with `"type": "module"`).',
  );
  if (shown.length < m.clusters.length) {
    out.push('', `This stack has ${m.clusters.length} clusters; the snippets show ${code(shown[0].name)} as a representative. ` +
      'For another cluster, change the address, the port and the variable name (sections 1 and 4).');
  }
  const perCluster = m.clusters.length > 1;
  let loaded: string | undefined;
  for (const c of shown) {
    if (perCluster) out.push(...h(2, `Cluster ${code(c.name)}`));
    if (!c.known) {
      out.push('', `The address of ${code(c.name)} is known only at deploy: replace the placeholders with the Terraform outputs ` +
        `${code(`${c.outputPrefix}_rest_endpoint`)} and ${code(`${c.outputPrefix}_grpc_endpoint`)}.`);
    }
    const names = appNamesFor(m, c);
    const t = names.target ? targetKind(names.target) : undefined;
    if (t?.kind === 'outputs') {
      out.push('', `${code(names.apiKey)} is a Terraform output, not an environment variable: have the pipeline that deploys read it ` +
        `(${code(`terraform ${chdirOf(m)}output -raw ${shellWord(names.apiKey)}`)}) into the app's secret store or environment, under this name, ` +
        'which the snippets read (the same for the URLs).');
    }
    // A .env file: the curl lines read the key from the shell, so load it there first (said once per file in a row).
    const load = t?.kind === 'dotenv' && t.path !== loaded ? t.path : undefined;
    if (t?.kind === 'dotenv') loaded = t.path;
    out.push(...snippets(c, names.apiKey, load, (depth, text) => h(depth + (perCluster ? 1 : 0), text)));
  }
  return out;
}

/** `. FILE` that reads exactly this file: a name without `/` would be looked up in PATH first. */
function sourceLine(file: string): string {
  return `set -a; . ${shellWord(file.includes('/') ? file : `./${file}`)}; set +a`;
}

function snippets(c: ClusterView, key: string, dotenv: string | undefined, h: Heading): string[] {
  const out: string[] = [];

  out.push(...h(2, `Python (REST, port ${c.restPort})`));
  out.push(...fence('python', [
    'import os',
    '',
    'from qdrant_client import QdrantClient',
    '',
    'client = QdrantClient(',
    `    url=${str(c.rest)},`,
    `    api_key=os.environ[${str(key)}],`,
    ')',
    'print(client.get_collections())',
  ]));

  out.push(...h(2, `TypeScript (REST, port ${c.restPort})`));
  const port443 = c.restPort === 443 && c.origin !== undefined;
  out.push(...fence('typescript', [
    "import { QdrantClient } from '@qdrant/js-client-rest';",
    '',
    'const client = new QdrantClient({',
    ...(port443 ? [`  url: ${str(c.origin!)},`, '  port: 443,'] : [`  url: ${str(c.rest)},`]),
    `  apiKey: process.env[${str(key)}],`,
    '});',
    '',
    'client.getCollections().then((result) => console.log(result.collections));',
  ]));
  if (port443) out.push('The REST port here is 443: pass `port: 443`, because the client replaces a default `https` port (443) with 6333.');

  const tls = c.tls ? 'true' : 'false';
  out.push(...h(2, `.NET (gRPC, port ${c.grpcPort})`));
  out.push(...fence('csharp', [
    'using Qdrant.Client;',
    '',
    'var client = new QdrantClient(',
    `    ${str(c.host)},`,
    `    port: ${c.grpcPort},`,
    `    https: ${tls},`,
    `    apiKey: Environment.GetEnvironmentVariable(${str(key)}));`,
    'var collections = await client.ListCollectionsAsync();',
  ]));

  out.push(...h(2, `Rust (gRPC, port ${c.grpcPort})`));
  out.push(...fence('rust', [
    'use qdrant_client::Qdrant;',
    '',
    '#[tokio::main]',
    'async fn main() -> Result<(), Box<dyn std::error::Error>> {',
    `    let client = Qdrant::from_url(${rustStr(c.grpc)})`,
    `        .api_key(std::env::var(${rustStr(key)}))`,
    '        .build()?;',
    '    println!("{:?}", client.list_collections().await?);',
    '    Ok(())',
    '}',
  ]));

  out.push(...h(2, `Java (gRPC, port ${c.grpcPort})`));
  out.push(...fence('java', [
    'import io.qdrant.client.QdrantClient;',
    'import io.qdrant.client.QdrantGrpcClient;',
    '',
    'QdrantClient client =',
    '    new QdrantClient(',
    `        QdrantGrpcClient.newBuilder(${str(c.host)}, ${c.grpcPort}, ${tls})`,
    `            .withApiKey(System.getenv(${str(key)}))`,
    '            .build());',
    'System.out.println(client.listCollectionsAsync().get());',
  ]));

  out.push(...h(2, `Go (gRPC, port ${c.grpcPort})`));
  out.push(...fence('go', [
    'package main',
    '',
    'import (',
    '\t"context"',
    '\t"fmt"',
    '\t"os"',
    '',
    '\t"github.com/qdrant/go-client/qdrant"',
    ')',
    '',
    'func main() {',
    '\tclient, err := qdrant.NewClient(&qdrant.Config{',
    `\t\tHost:   ${str(c.host)},`,
    `\t\tPort:   ${c.grpcPort},`,
    `\t\tAPIKey: os.Getenv(${str(key)}),`,
    `\t\tUseTLS: ${tls},`,
    '\t})',
    '\tif err != nil {',
    '\t\tpanic(err)',
    '\t}',
    '\tdefer client.Close()',
    '',
    '\tcollections, err := client.ListCollections(context.Background())',
    '\tif err != nil {',
    '\t\tpanic(err)',
    '\t}',
    '\tfmt.Println(collections)',
    '}',
  ]));

  out.push(...h(2, `curl (REST, port ${c.restPort})`));
  if (dotenv !== undefined) {
    out.push(`The key is in ${code(dotenv)}: load it into the shell from the project directory, without printing it:`);
    out.push(...fence('bash', [sourceLine(dotenv)]));
  }
  out.push('Qdrant takes the key in either header; when both are sent, `api-key` wins. ' +
    'curl reads the header from its standard input (`-H @-`, curl 7.55 or later), so the key is not on its command line, which other local users can read.');
  const url = shellWord(`${c.rest}/collections`);
  out.push(...fence('bash', [
    `curl -sS -H @- ${url} <<<"api-key: ${shellVar(key)}"`,
    `curl -sS -H @- ${url} <<<"Authorization: Bearer ${shellVar(key)}"`,
  ]));
  return out;
}
