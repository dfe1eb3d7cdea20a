// Jest globalSetup: a temp root for the run (see ./jest-temp-root.ts), and the Terraform binary.
import { setup } from './jest-temp-root';
import { terraformBinary } from './terraform';

export default function globalSetup(): void {
  setup();
  // cdktf runs `$TERRAFORM_BINARY_NAME version` at synth for some constructs (resource moves,
  // imports) and reads the variable once, when it is loaded: set it before the workers start, so
  // that a machine with OpenTofu only (see ./terraform.ts) synthesizes too.
  process.env.TERRAFORM_BINARY_NAME ??= terraformBinary();
}
