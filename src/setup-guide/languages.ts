/** Section 5's client snippets: each reads the names the deploy wrote, never a literal URL or key; values escaped per language. */
import { Heading, fence, rustStr, shellVar, shellWord, str } from './markdown';
import { GuideCluster, GuideNames } from './model';

/** What a cluster's snippets need: the names, where they are, and the ports for the headings. */
export interface SnippetInput extends Pick<GuideCluster, 'restPort' | 'grpcPort'> {
  readonly names: GuideNames;
  /** The JSON file whose top-level members hold the names, as the stack gives it; undefined for the environment. */
  readonly json?: string;
}

/** Each language's heading, the endpoint its client reads, and its snippet, in the guide's order. */
const LANGUAGES: [string, 'REST' | 'gRPC', (s: SnippetInput) => string[]][] = [
  ['Python', 'REST', python],
  ['TypeScript', 'REST', typescript],
  ['.NET', 'gRPC', csharp],
  ['Rust', 'gRPC', rust],
  ['Java', 'gRPC', java],
  ['Go', 'gRPC', go],
  ['curl', 'REST', curl],
];

export function languageSnippets(s: SnippetInput, h: Heading): string[] {
  return LANGUAGES.flatMap(([name, api, snippet]) => [...h(2, `${name} (${api}, port ${api === 'REST' ? s.restPort : s.grpcPort})`), ...snippet(s)]);
}

function python({ names, json }: SnippetInput): string[] {
  const get = (name: string) => (json === undefined ? `os.environ[${str(name)}]` : `settings[${str(name)}]`);
  return fence('python', [
    json === undefined ? 'import os' : 'import json',
    '',
    'from qdrant_client import QdrantClient',
    '',
    ...(json === undefined ? [] : [`with open(${str(json)}, encoding="utf-8") as file:`, '    settings = json.load(file)', '']),
    'client = QdrantClient(',
    `    url=${get(names.url)},`,
    `    api_key=${get(names.apiKey)},`,
    ')',
    'print(client.get_collections())',
  ]);
}

function typescript({ names, json, restPort }: SnippetInput): string[] {
  // The client replaces a URL's default https port (443, which URL drops) with 6333.
  const port443 = restPort === 443;
  const lines = fence('typescript', [
    ...(json === undefined ? [] : ["import { readFileSync } from 'node:fs';"]),
    "import { QdrantClient } from '@qdrant/js-client-rest';",
    '',
    ...(json === undefined ? [] : [`const settings = JSON.parse(readFileSync(${str(json)}, 'utf8'));`, '']),
    '/** A value the deploy wrote; without it, the client would quietly connect to localhost. */',
    'function setting(name: string): string {',
    `  const value = ${json === undefined ? 'process.env[name]' : 'settings[name]'};`,
    "  if (typeof value !== 'string' || value === '') throw new Error(name + ' is not set');",
    '  return value;',
    '}',
    '',
    'const client = new QdrantClient({',
    `  url: setting(${str(names.url)}),`,
    ...(port443 ? ['  port: 443,'] : []),
    `  apiKey: setting(${str(names.apiKey)}),`,
    '});',
    '',
    'client.getCollections().then((result) => console.log(result.collections));',
  ]);
  if (port443) lines.push('The REST port here is 443: pass `port: 443`, because the client replaces a default `https` port (443) with 6333.');
  return lines;
}

function csharp({ names, json }: SnippetInput): string[] {
  const get = (name: string) => (json === undefined
    ? `Environment.GetEnvironmentVariable(${str(name)})`
    : `settings.GetProperty(${str(name)}).GetString()`);
  return fence('csharp', [
    ...(json === undefined ? [] : ['using System.Text.Json;']),
    'using Qdrant.Client;',
    '',
    ...(json === undefined ? [] : [`var settings = JsonDocument.Parse(File.ReadAllText(${str(json)})).RootElement;`]),
    `var grpcUrl = new Uri(${get(names.grpcUrl)}!);`,
    'var client = new QdrantClient(',
    '    grpcUrl.Host,',
    '    port: grpcUrl.Port,',
    '    https: grpcUrl.Scheme == Uri.UriSchemeHttps,',
    `    apiKey: ${get(names.apiKey)});`,
    'var collections = await client.ListCollectionsAsync();',
  ]);
}

function rust({ names, json }: SnippetInput): string[] {
  const member = (name: string) => `settings[${rustStr(name)}].as_str().ok_or(${rustStr(`${name} is missing`)})?`;
  return fence('rust', [
    'use qdrant_client::Qdrant;',
    '',
    '#[tokio::main]',
    'async fn main() -> Result<(), Box<dyn std::error::Error>> {',
    ...(json === undefined
      ? [
        `    let client = Qdrant::from_url(&std::env::var(${rustStr(names.grpcUrl)})?)`,
        `        .api_key(std::env::var(${rustStr(names.apiKey)}))`,
      ]
      : [
        `    let settings: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(${rustStr(json)})?)?;`,
        `    let client = Qdrant::from_url(${member(names.grpcUrl)})`,
        `        .api_key(${member(names.apiKey)})`,
      ]),
    '        .build()?;',
    '    println!("{:?}", client.list_collections().await?);',
    '    Ok(())',
    '}',
  ]);
}

function java({ names, json }: SnippetInput): string[] {
  const get = (name: string) => (json === undefined ? `System.getenv(${str(name)})` : `settings.get(${str(name)}).asText()`);
  return fence('java', [
    ...(json === undefined ? [] : ['import com.fasterxml.jackson.databind.JsonNode;', 'import com.fasterxml.jackson.databind.ObjectMapper;']),
    'import io.qdrant.client.QdrantClient;',
    'import io.qdrant.client.QdrantGrpcClient;',
    ...(json === undefined ? [] : ['import java.io.File;']),
    'import java.net.URI;',
    '',
    ...(json === undefined ? [] : [`JsonNode settings = new ObjectMapper().readTree(new File(${str(json)}));`]),
    `URI grpcUrl = URI.create(${get(names.grpcUrl)});`,
    'QdrantClient client =',
    '    new QdrantClient(',
    '        QdrantGrpcClient.newBuilder(grpcUrl.getHost(), grpcUrl.getPort(), "https".equals(grpcUrl.getScheme()))',
    `            .withApiKey(${get(names.apiKey)})`,
    '            .build());',
    'System.out.println(client.listCollectionsAsync().get());',
  ]);
}

function go({ names, json }: SnippetInput): string[] {
  const get = (name: string) => (json === undefined ? `os.Getenv(${str(name)})` : `settings[${str(name)}].(string)`);
  const panicOnError = ['\tif err != nil {', '\t\tpanic(err)', '\t}'];
  return fence('go', [
    'package main',
    '',
    'import (',
    '\t"context"',
    ...(json === undefined ? [] : ['\t"encoding/json"']),
    '\t"fmt"',
    '\t"net/url"',
    '\t"os"',
    '\t"strconv"',
    '',
    '\t"github.com/qdrant/go-client/qdrant"',
    ')',
    '',
    'func main() {',
    ...(json === undefined ? [] : [
      `\tdata, err := os.ReadFile(${str(json)})`,
      ...panicOnError,
      '\tvar settings map[string]any',
      '\tif err := json.Unmarshal(data, &settings); err != nil {',
      '\t\tpanic(err)',
      '\t}',
    ]),
    `\tgrpcURL, err := url.Parse(${get(names.grpcUrl)})`,
    ...panicOnError,
    '\tport, err := strconv.Atoi(grpcURL.Port())',
    ...panicOnError,
    '\tclient, err := qdrant.NewClient(&qdrant.Config{',
    '\t\tHost:   grpcURL.Hostname(),',
    '\t\tPort:   port,',
    `\t\tAPIKey: ${get(names.apiKey)},`,
    '\t\tUseTLS: grpcURL.Scheme == "https",',
    '\t})',
    ...panicOnError,
    '\tdefer client.Close()',
    '',
    '\tcollections, err := client.ListCollections(context.Background())',
    ...panicOnError,
    '\tfmt.Println(collections)',
    '}',
  ]);
}

/** The two curl lines (one per header form); the key reaches curl on its standard input only. */
function curl({ names, json }: SnippetInput): string[] {
  const value = (name: string) => (json === undefined
    ? shellVar(name)
    : `$(jq -r ${shellWord(`.[${str(name)}]`)} ${shellWord(json)})`);
  const url = `"${value(names.url)}/collections"`;
  return [
    'Qdrant takes the key in either header; when both are sent, `api-key` wins. ' +
      'curl reads the header from its standard input (`-H @-`, curl 7.55 or later), so the key is not on its command line, which other local users can read.',
    ...fence('bash', [
      `curl -sS -H @- ${url} <<<"api-key: ${value(names.apiKey)}"`,
      `curl -sS -H @- ${url} <<<"Authorization: Bearer ${value(names.apiKey)}"`,
    ]),
  ];
}
