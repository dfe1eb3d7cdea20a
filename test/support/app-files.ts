import * as fs from 'fs';
import * as path from 'path';
import { TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import * as dotenv from 'dotenv';
import { ClusterAccess, SecretTarget } from '../../src';
import { TerraformRun, synthStack, terraform } from '../../tools/testing/terraform';

/** An app's own files before a deploy: `<parent>/<name>/.env` and `app.json` (mode 0600) with the given text. */
export function appFiles(parent: string, name: string, env: string, json: string): { base: string; envFile: string; jsonFile: string } {
  const base = path.join(parent, name);
  fs.mkdirSync(base);
  const envFile = path.join(base, '.env');
  const jsonFile = path.join(base, 'app.json');
  fs.writeFileSync(envFile, env, { mode: 0o600 });
  fs.writeFileSync(jsonFile, json, { mode: 0o600 });
  return { base, envFile, jsonFile };
}

/**
 * The stack of such an app, synthesized as `cdktf synth` would in `base` (its relative paths
 * resolve there): key `app` writes `.env` and `app.json`, named with `prefix` when given. No
 * checks (they need a cluster) and no guide: what the files get is what this is about.
 * `scope`: a construct between the stack and the ClusterAccess (a long path). Returns the stack's directory.
 */
export function synthAppStack(base: string, id: string, prefix?: string, scope?: string): string {
  const cwd = process.cwd();
  process.chdir(base);
  try {
    return synthStack(path.join(base, 'cdktf.out'), id, (app, stackId) => {
      const stack = new TerraformStack(app, stackId);
      new ClusterAccess(scope === undefined ? stack : new Construct(stack, scope), 'Qdrant', {
        clusters: [{ name: 'prod-eu', url: 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io' }],
        apiKeys: [{
          name: 'app',
          clusters: ['prod-eu'],
          secretTargets: [SecretTarget.dotenv({ path: '.env' }), SecretTarget.json({ path: 'app.json' })],
          secretNaming: prefix === undefined ? undefined : { prefix },
        }],
        healthCheck: { enabled: false },
        setupGuide: { enabled: false },
      });
      return stack;
    });
  } finally {
    process.chdir(cwd);
  }
}

/** The library's entries in a .env (name → value: every name holding QDRANT_, prefixed ones too), as npm dotenv reads it. */
export function ourEntries(envFile: string): Record<string, string> {
  return Object.fromEntries(Object.entries(dotenv.parse(fs.readFileSync(envFile, 'utf8'))).filter(([k]) => k.includes('QDRANT_')));
}

/** terraform in a stack of synthAppStack with key `app` set; each run is kept in `runs` (for the canary scan). */
export function appTerraform(runs: TerraformRun[]): (dir: string, args: string[], key: string) => Promise<TerraformRun> {
  return async (dir, args, key) => {
    const run = await terraform(dir, [...args, '-no-color'], { TF_VAR_qdrant_api_key_app: key });
    runs.push(run);
    return run;
  };
}

/** The runs of a test file, each searched for `keys` when the file ends: no run may print a key. */
export function scannedRuns(...keys: string[]): TerraformRun[] {
  const runs: TerraformRun[] = [];
  afterAll(() => {
    for (const run of runs) for (const k of keys) expect(run.stdout.includes(k) || run.stderr.includes(k)).toBe(false);
  });
  return runs;
}
