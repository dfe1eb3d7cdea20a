// Jest globalSetup: the runtime compiled, a temp root for the run (see ./jest-temp-root.ts), and the Terraform binary.
import { execFileSync } from 'child_process';
import * as path from 'path';
import { setup } from './jest-temp-root';
import { terraformBinary } from './terraform';

export default function globalSetup(): void {
  // The runtime's .js is compiled from its TypeScript: after an edit the tests run the new code,
  // not the last build's. Quick when nothing changed (scripts/build-runtime.sh compares dates).
  execFileSync('bash', [path.join(__dirname, '..', '..', 'scripts', 'build-runtime.sh')], { stdio: 'inherit' });
  setup();
  // cdktf runs `$TERRAFORM_BINARY_NAME version` at synth for some constructs (resource moves,
  // imports) and reads the variable once, when it is loaded: set it before the workers start, so
  // that a machine with OpenTofu only (see ./terraform.ts) synthesizes too.
  process.env.TERRAFORM_BINARY_NAME ??= terraformBinary();
}
