// Regenerates examples/multi-cluster/qdrant-setup.md, the committed golden copy of the setup guide
// of examples/multi-cluster. test/setup-guide.test.ts fails when it is stale.
//
//   npx projen guide:example            (ts-node -P test/tsconfig.json --transpile-only scripts/render-example-guide.ts)
//   ... scripts/render-example-guide.ts --stdout   prints the guide instead of writing it
import * as fs from 'fs';
import * as path from 'path';
import { Testing } from 'cdktf';
import { MultiClusterStack } from '../examples/multi-cluster/main';
import { SetupGuide } from '../src';

/** Where the golden copy lives, relative to the repository root. */
export const EXAMPLE_GUIDE = path.join('examples', 'multi-cluster', SetupGuide.FILE_NAME);

/** The guide of examples/multi-cluster, rendered as the test renders it. */
export function renderExampleGuide(): string {
  return SetupGuide.render(new MultiClusterStack(Testing.app(), 'multi-cluster').access);
}

if (require.main === module) {
  const guide = renderExampleGuide();
  if (process.argv.includes('--stdout')) {
    process.stdout.write(guide);
  } else {
    const target = path.join(__dirname, '..', EXAMPLE_GUIDE);
    fs.writeFileSync(target, guide);
    process.stdout.write(`wrote ${EXAMPLE_GUIDE}\n`);
  }
}
