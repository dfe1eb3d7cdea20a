import { cdktf, javascript } from 'projen';

// ConstructLibraryCdktf is marked deprecated in projen in favour of cdktn, and
// `projen new cdktf-construct` no longer lists it; it still works, and this
// library targets cdktf 0.21 on purpose (see README, "Compatibility").
const project = new cdktf.ConstructLibraryCdktf({
  name: 'cdktf-qdrant-cluster-access',
  description:
    'CDK for Terraform constructs that give platform teams safe, verified access to Qdrant Cloud clusters: ' +
    'key grants, a health check that proves every key on every cluster, secret wiring and a setup guide.',
  keywords: ['cdktf', 'terraform', 'qdrant', 'vector-database', 'api-key', 'health-check'],
  author: 'cdktf-qdrant-cluster-access maintainers',
  authorAddress: 'maintainers@users.noreply.cdktf-qdrant-cluster-access.example',
  repositoryUrl: 'https://github.com/cdktf-qdrant/cdktf-qdrant-cluster-access.git',
  license: 'Apache-2.0',
  defaultReleaseBranch: 'main',
  packageManager: javascript.NodePackageManager.NPM,
  projenrcTs: true,
  jsiiVersion: '~6.0.0',
  cdktfVersion: '^0.21.0',
  constructsVersion: '^10.4.2',
  peerDeps: ['@cdktf/provider-null@^11.0.0'],
  devDeps: [
    '@qdrant/js-client-rest@^1.16.0',
    'dotenv@^16.4.0',
    'markdownlint-cli2@^0.18.0',
    'fast-check@^4.0.0',
    // Only for the user-written secret targets in examples/ (never a dependency of the library).
    '@cdktf/provider-kubernetes@^12.1.0',
    '@cdktf/provider-vault@^15.6.0',
  ],

  // No GitHub here: CI is `.ci/run` in a fresh clone (see README).
  github: false,
  release: false,
  buildWorkflow: false,

  // The names of the non-JS packages are fixed now; publishing them is a later step.
  publishToPypi: {
    distName: 'cdktf-qdrant-cluster-access',
    module: 'cdktf_qdrant_cluster_access',
  },
  publishToMaven: {
    javaPackage: 'io.github.cdktfqdrant.clusteraccess',
    mavenGroupId: 'io.github.cdktf-qdrant',
    mavenArtifactId: 'cdktf-qdrant-cluster-access',
  },
  publishToNuget: {
    dotNetNamespace: 'CdktfQdrant.ClusterAccess',
    packageId: 'CdktfQdrant.ClusterAccess',
  },
  publishToGo: {
    moduleName: 'github.com/cdktf-qdrant/cdktf-qdrant-cluster-access-go',
    packageName: 'qdrantclusteraccess',
  },

  jestOptions: {
    updateSnapshot: javascript.UpdateSnapshot.NEVER,
    passWithNoTests: false,
    jestConfig: {
      setupFilesAfterEnv: ['<rootDir>/test/support/setup.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/cdktf.out/'],
    },
  },
});

// npm ci: the registry mirror has unrs-resolver 1.13.0 without its platform packages.
project.package.addPackageResolutions('unrs-resolver@1.12.2');

// Runtime code (the checker, run by Terraform's local-exec) ships in the npm package
// and is copied into every synthesized stack with TerraformAsset.
project.npmignore?.addPatterns('/examples/', '/scripts/', '/tools/', '/.ci/', '/cdktf.out/', '/.offline-tf/', '*.tfstate', '*.tfstate.*');
project.gitignore.addPatterns('cdktf.out/', '.terraform/', '*.tfstate', '*.tfstate.*', '.terraform.lock.hcl', '/.offline-tf/');
// What the example stacks write when deployed by hand.
project.gitignore.addPatterns('/examples/**/.env', '/examples/**/*.env.lock');
project.addPackageIgnore('!/assets/');
// `npx qdrant-cluster-access check ...`: the same checker that runs inside `cdktf deploy`.
project.addBins({ 'qdrant-cluster-access': 'assets/checker/cli.js' });

// The main job: a real deploy of examples/basic against a local stand-in cluster, then destroy.
project.addTask('demo', {
  description: 'Deploy examples/basic against a local stand-in Qdrant cluster, print the checks, destroy',
  exec: 'ts-node -P test/tsconfig.json --transpile-only scripts/demo.ts',
});

// ts-jest transpiles only (isolatedModules), so type errors in tests would pass silently:
// the test task type-checks the tests first. examples/ are real cdktf apps: type-checked here,
// synthesized by the tests, never compiled by jsii.
const typecheck = project.addTask('typecheck', {
  description: 'Type-check the tests and the examples (jsii compiles src/ only)',
  exec: 'tsc --noEmit -p test/tsconfig.json && tsc --noEmit -p examples/tsconfig.json',
});
project.testTask.prependSpawn(typecheck);

// jsii warns when a name is reserved in a target language; keep those warnings visible.
project.compileTask.reset('jsii');

// Only the JS package is built for now; `npx projen package-all` builds the other languages
// (it needs their toolchains). Without this, `projen build` outside CI tries all of them.
project.packageTask.reset();
project.packageTask.spawn(project.tasks.tryFind('package:js')!);

// The committed example guide (examples/multi-cluster/qdrant-setup.md); a test checks it is current.
project.addTask('guide:example', {
  description: 'Regenerate examples/multi-cluster/qdrant-setup.md (the setup guide golden file)',
  exec: 'ts-node -P test/tsconfig.json --transpile-only scripts/render-example-guide.ts',
});

// Benchmarks against a baseline run side by side (synth, and a 20-grant apply with real terraform).
project.addTask('bench', {
  description: 'Benchmark synth and a 20-grant apply against raw cdktf baselines; prints ratios',
  exec: 'ts-node -P test/tsconfig.json --transpile-only scripts/bench.ts',
});

project.synth();
