import * as fs from 'fs';
import * as path from 'path';

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
