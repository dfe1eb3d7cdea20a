import { cdktf, javascript } from 'projen';

// ConstructLibraryCdktf is marked deprecated in projen in favour of cdktn, and
// `projen new cdktf-construct` no longer lists it; it still works, and this
// library targets cdktf 0.21 on purpose (see README, "Tested with").
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
  // No provider package: the null_resource and its provider are written through core cdktf
  // (src/private/null-resource.ts), so the same source builds for cdktn, where @cdktf/provider-*
  // constructs do not work. @cdktf/provider-null is only for tests and the bench baseline.
  devDeps: [
    '@cdktf/provider-null@^11.0.0',
    '@qdrant/js-client-rest@^1.16.0',
    'dotenv@^16.4.0',
    'markdownlint-cli2@^0.18.0',
    'fast-check@^4.0.0',
    // Only for the user-written secret targets in examples/ (never a dependency of the library).
    '@cdktf/provider-kubernetes@^12.1.0',
    '@cdktf/provider-vault@^15.6.0',
  ],

  // No GitHub here: CI is `.ci/run` in a fresh clone (see CONTRIBUTING.md).
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
      // Each run gets its own TMPDIR, removed at the end, listing what the tests left in it
      // (cdktf's Testing.app() never removes its outdirs): tools/testing/jest-temp-root.ts.
      globalSetup: '<rootDir>/tools/testing/jest-global-setup.ts',
      globalTeardown: '<rootDir>/tools/testing/jest-global-teardown.ts',
      // A bound, not a measurement: most suites start child processes (the CLIs, Terraform), which take
      // seconds on a busy 2-core machine. Suites that need more set their own.
      testTimeout: 30_000,
    },
  },
});

// npm ci: the registry mirror has unrs-resolver 1.13.0 without its platform packages.
project.package.addPackageResolutions('unrs-resolver@1.12.2');

// Runtime code (the checker, run by Terraform's local-exec) ships in the npm package
// and is copied into every synthesized stack with TerraformAsset. Its sources are assets/**/*.ts,
// compiled in place to CommonJS (assets/tsconfig.json, scripts/build-runtime.sh): the .js and .d.ts
// ship and are not tracked; the .ts sources are tracked and do not ship.
project.gitignore.addPatterns('/assets/**/*.js', '/assets/**/*.d.ts');
project.npmignore?.addPatterns('/examples/', '/scripts/', '/tools/', '/.ci/', '/cdktf.out/', '/.offline-tf/', '*.tfstate', '*.tfstate.*');
project.gitignore.addPatterns('cdktf.out/', '.terraform/', '*.tfstate', '*.tfstate.*', '.terraform.lock.hcl', '/.offline-tf/');
// What the example stacks write when deployed by hand.
project.gitignore.addPatterns('/examples/**/.env', '/examples/**/*.env.lock');
// examples/python run by hand: its venv and Python's caches.
project.gitignore.addPatterns('/examples/python/.venv/', '__pycache__/', '*.pyc');
project.addPackageIgnore('!/assets/');
// The npm tarball holds what users need and nothing else (test/ecosystem/tarball.test.ts checks it
// against an allow-list): no root dotfile but `.jsii` (e.g. `.markdownlint-cli2.jsonc`, and any
// config added later), no tests next to the runtime code, and nothing a deploy run by hand in the
// working tree leaves behind (a `.env` the dotenv target wrote, Terraform's working files).
project.addPackageIgnore('/.*');
project.addPackageIgnore('!/.jsii');
project.addPackageIgnore('/assets/**/*.test.*');
project.addPackageIgnore('/assets/**/__tests__/');
project.addPackageIgnore('/assets/**/*.ts');
project.addPackageIgnore('!/assets/**/*.d.ts');
project.addPackageIgnore('/assets/tsconfig.json');
project.addPackageIgnore('.env');
project.addPackageIgnore('*.env.lock');
project.addPackageIgnore('.terraform/');
project.addPackageIgnore('.terraform.lock.hcl');
project.addPackageIgnore('cdktf.out/');
// The README and docs/ ship (the README links to docs/); development does not.
project.addPackageIgnore('/CONTRIBUTING.md');
// `npx qdrant-cluster-access check ...`: the same checker that runs inside `cdktf deploy`.
project.addBins({ 'qdrant-cluster-access': 'assets/checker/cli.js' });

// The main job: a real deploy of examples/basic against a local stand-in cluster, then destroy.
project.addTask('demo', {
  description: 'Deploy examples/basic against a local stand-in Qdrant cluster, print the checks, destroy',
  // The runtime's .js is compiled from its TypeScript (gitignored): a fresh clone has none yet.
  steps: [{ exec: 'bash scripts/build-runtime.sh' }, { exec: 'ts-node -P test/tsconfig.json --transpile-only scripts/demo.ts' }],
  // terraform, or OpenTofu built from source when terraform is not installed (scripts/offline-tofu.sh):
  // cdktf reads TERRAFORM_BINARY_NAME once, when loaded, for the `version` check some constructs do.
  env: { TERRAFORM_BINARY_NAME: '$(bash scripts/terraform-binary.sh)' },
});

// ts-jest transpiles only (isolatedModules), so type errors in tests would pass silently:
// the test task type-checks the tests first. examples/ are real cdktf apps: type-checked here,
// synthesized by the tests, never compiled by jsii.
const typecheck = project.addTask('typecheck', {
  description: 'Type-check the tests and the examples (jsii compiles src/ only)',
  exec: 'tsc --noEmit -p test/tsconfig.json && tsc --noEmit -p examples/tsconfig.json',
});
project.testTask.prependSpawn(typecheck);

// The runtime runs at deploy on the user's `node`, not on the Node that builds the library: its
// CLI suites run again with the checker and the writer on each Node line a deploy may use
// (scripts/runtime-node-versions.sh; about 2 minutes a version, Linux x86_64 only).
const runtimeNodes = project.addTask('test:runtime-nodes', {
  description: 'Run the runtime\'s CLI suites with the checker and the writer on one Node of each line from 18 to 26 but the build\'s',
  exec: 'bash scripts/runtime-node-versions.sh',
});
project.testTask.spawn(runtimeNodes);

// jsii warns when a name is reserved in a target language; keep those warnings visible.
// lib/ is emptied first: jsii never deletes the output of a removed or renamed src file, and
// whatever sits in lib/ ships in the npm tarball.
project.compileTask.reset('rm -rf lib');
project.compileTask.exec('bash scripts/build-runtime.sh');
project.compileTask.exec('jsii');
// src/ imports the runtime's rules (src/private/runtime.ts) as `#assets/...`: the compiler reads
// their types from the runtime's compiled .d.ts, so jsii compiles src/ alone (a relative import
// would make it compile the runtime's .ts sources into lib/), and Node loads the .js.
project.package.addField('imports', { '#assets/*': { types: './assets/*.d.ts', default: './assets/*.js' } });
// The runtime is TypeScript too: linted with the same rules (but for file modes and open flags,
// which are bit sets), type-checked with assets/tsconfig.json.
project.eslint?.addLintPattern('assets');
project.eslint?.addOverride({ files: ['assets/**/*.ts'], rules: { 'no-bitwise': 'off' } });

// `npx projen package` on an unbuilt clone used to fail with "Expected to find .jsii file":
// packaging now compiles first when .jsii is missing or older than src/, assets/ or package.json (in
// `projen build` it is already current, so this costs nothing there).
const compileIfStale = project.addTask('compile:if-stale', {
  description: 'Compile (the runtime, then jsii) when .jsii is missing or older than src/, assets/ or package.json',
  condition: 'bash scripts/stale.sh .jsii src assets package.json',
});
compileIfStale.spawn(project.compileTask);

// The npm and the Python packages; CI builds both (the Python one is installed and deployed by
// test/ecosystem/python-app.test.ts). `npx projen package-all` adds Java, .NET and Go, which need
// toolchains and registry packages this project cannot get (see docs/python.md, "Other languages").
// Without this, `projen build` outside CI tries all of them.
project.packageTask.reset();
project.packageTask.spawn(compileIfStale);
// Make-like: each package is rebuilt only when what goes into it is newer than the artifact
// (scripts/stale.sh; projen's own task shell has no `find`), so a second `package` in one
// build, or in a test, costs nothing.
const packageInputs = '.jsii lib assets package.json README.md docs API.md LICENSE .npmignore';
for (const [target, artifact] of [['js', 'dist/js/*.tgz'], ['python', 'dist/python/*.whl']]) {
  const task = project.tasks.tryFind(`package:${target}`)!;
  task.addCondition(`bash scripts/stale.sh '${artifact}' ${packageInputs}`);
  project.packageTask.spawn(task);
}

// The CDK Terrain (cdktn) flavour, cdktn-qdrant-cluster-access (issue #15): built from the same
// source by scripts/build-cdktn.sh into dist/cdktn/{js,python}; .cdktn-build/ is its scratch copy.
// Make-like (a hash stamp); test/cdktn builds it too, so in `projen build` the tests find it current.
const packageCdktn = project.addTask('package:cdktn', {
  description: 'Build cdktn-qdrant-cluster-access (the cdktn flavour) from the same source: dist/cdktn/js/*.tgz, dist/cdktn/python/*.whl',
  exec: 'bash scripts/build-cdktn.sh --python',
});
project.packageTask.spawn(packageCdktn);
project.gitignore.addPatterns('/.cdktn-build/');

// `projen build` packages before it tests (post-compile, after docgen, which writes API.md into
// the package), so that the tests install and deploy the very artifacts that ship
// (test/ecosystem: the npm tarball in a cdktf CLI app, the wheel in a Python app). The build's
// own `package` step at the end then finds them up to date.
project.postCompileTask.spawn(project.packageTask);

// The committed example guide (examples/multi-cluster/qdrant-setup.md); a test checks it is current.
project.addTask('guide:example', {
  description: 'Regenerate examples/multi-cluster/qdrant-setup.md (the setup guide golden file)',
  // The runtime's .js is compiled from its TypeScript (gitignored): a fresh clone has none yet.
  steps: [{ exec: 'bash scripts/build-runtime.sh' }, { exec: 'ts-node -P test/tsconfig.json --transpile-only scripts/render-example-guide.ts' }],
});

// Benchmarks against baselines run side by side (scripts/bench.ts): synth, wire cost, applies with real terraform.
project.addTask('bench', {
  description: 'Benchmark synth, the wire cost of a check and 100- and 1,000-grant applies against baselines run side by side; prints ratios',
  // The runtime's .js is compiled from its TypeScript (gitignored): a fresh clone has none yet.
  steps: [{ exec: 'bash scripts/build-runtime.sh' }, { exec: 'ts-node -P test/tsconfig.json --transpile-only scripts/bench.ts' }],
});

project.synth();
