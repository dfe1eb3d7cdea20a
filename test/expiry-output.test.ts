/**
 * The expiry output (`qdrant_api_key_<name>_expires_at`) and the checker read a key's `exp` by one
 * rule: real Terraform evaluates the synthesized expression for each token, and its date must be
 * the one `keyInfo` (assets/checker/jwt.ts) reads, or "" where the checker reads none.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { keyInfo } from '../assets/checker/jwt';
import { ClusterAccess } from '../src';
import { newStack, synthJson } from './support/synth';
import { offlineTerraformEnv, tempDir, terraformBinary } from '../tools/testing/terraform';

const part = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const jwt = (payload: unknown, header: unknown = { alg: 'HS256', typ: 'JWT' }) => `${part(header)}.${part(payload)}.c2lnbmF0dXJl`;
const EXP = 1893456000; // 2030-01-01

const TOKENS: Record<string, string> = {
  'a JWT with exp': jwt({ exp: EXP, access: 'r' }),
  'exp 0': jwt({ exp: 0 }),
  'exp written with an exponent': part({ alg: 'HS256' }) + '.' + Buffer.from('{"exp":1.893456e9}').toString('base64url') + '.c2ln',
  'a JWT without exp': jwt({ access: 'm' }),
  'a fraction': jwt({ exp: EXP + 0.5 }),
  'a string': jwt({ exp: String(EXP) }),
  'a negative exp': jwt({ exp: -1 }),
  'twelve digits': jwt({ exp: 100000000000 }),
  'two parts': `${part({ alg: 'HS256' })}.${part({ exp: EXP })}`,
  'four parts': `${jwt({ exp: EXP })}.more`,
  'a header without alg': jwt({ exp: EXP }, { typ: 'JWT' }),
  'a header that is not JSON': `Zm9v.${part({ exp: EXP })}.c2ln`,
  'a payload that is not JSON': `${part({ alg: 'HS256' })}.Zm9v.c2ln`,
  'a plain key': 'qdrant-canary-plain-key-0123456789',
};

test('the expiry output shows the date the checker reads, and "" where it reads none (real Terraform)', () => {
  const stack = newStack();
  new ClusterAccess(stack, 'Q', {
    clusters: [{ name: 'prod', url: 'https://abc.eu-central-1-0.aws.cloud.qdrant.io' }],
    apiKeys: [{ name: 'search-api', clusters: ['prod'] }],
    healthCheck: { enabled: false },
    setupGuide: { enabled: false },
  });
  const value: string = synthJson(stack).output.qdrant_api_key_search_api_expires_at.value;
  const expression = /^\$\{([\s\S]*)\}$/.exec(value)![1].replace(/var\.qdrant_api_key_search_api/g, 't');
  expect(expression).not.toContain('var.');

  const dir = tempDir('expiry-output');
  fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify({ variable: { tokens: { type: 'list(string)' } } }));
  const out = execFileSync(terraformBinary(), ['console'], {
    cwd: dir,
    input: `jsonencode([for t in var.tokens : ${expression}])\n`,
    env: { ...process.env, ...offlineTerraformEnv(), TF_VAR_tokens: JSON.stringify(Object.values(TOKENS)) },
    encoding: 'utf8',
  });
  const shown: string[] = JSON.parse(JSON.parse(out.trim()));
  const expected = Object.values(TOKENS).map((t) => keyInfo(t).expiresAt?.toISOString().replace('.000Z', 'Z') ?? '');
  expect(Object.fromEntries(Object.keys(TOKENS).map((name, i) => [name, shown[i]])))
    .toEqual(Object.fromEntries(Object.keys(TOKENS).map((name, i) => [name, expected[i]])));
  expect(expected.filter((d) => d !== '')).toEqual(['2030-01-01T00:00:00Z', '1970-01-01T00:00:00Z', '2030-01-01T00:00:00Z']);
});
