/**
 * The layout's rules (CONTRIBUTING.md, "Layout"): src/ and the runtime (assets/) import their own files
 * without a circle; the runtime uses Node built-ins only and never imports construct code, and
 * src/ reaches it only through src/private/runtime.ts; scripts and tests share tooling from
 * tools/testing, never from test/.
 */
import * as fs from 'fs';
import * as path from 'path';

const REPO = path.join(__dirname, '..');

function filesUnder(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(rel, ext));
    else if (ext.test(entry.name)) out.push(rel);
  }
  return out;
}

/** The relative imports of a file that load code (`import type` is erased at compile time). */
function valueImports(file: string): string[] {
  const text = fs.readFileSync(path.join(REPO, file), 'utf8');
  const specs = [...text.matchAll(/^(?:import|export) (?!type )[^;]*?from '([^']+)'/gm), ...text.matchAll(/require\('([^']+)'\)/g)].map((m) => m[1]);
  return specs;
}

function resolveTs(from: string, spec: string): string | undefined {
  const base = path.join(path.dirname(from), spec);
  return [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(path.join(REPO, f)));
}

/** The runtime's TypeScript sources (its compiled .js and .d.ts sit next to them). */
const RUNTIME_SOURCE = /(?<!\.d)\.ts$/;

test.each([['src', /\.ts$/], ['assets', RUNTIME_SOURCE]] as const)('%s/ has no import circle', (dir, ext) => {
  const files = filesUnder(dir, ext);
  const graph = new Map(files.map((f) => [f, valueImports(f).filter((s) => s.startsWith('.')).map((s) => resolveTs(f, s)).filter((t): t is string => t !== undefined)]));
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (f: string) => {
    if (state.get(f) === 'open') circles.push([...trail.slice(trail.indexOf(f)), f].join(' -> '));
    if (state.has(f)) return;
    state.set(f, 'open');
    trail.push(f);
    for (const t of graph.get(f) ?? []) visit(t);
    trail.pop();
    state.set(f, 'done');
  };
  files.forEach(visit);
  expect(circles).toEqual([]);
});

test('the runtime (assets/) uses Node built-ins and its own files only', () => {
  const files = filesUnder('assets', RUNTIME_SOURCE);
  expect(files.length).toBeGreaterThan(20);
  const offenders = files.flatMap((f) => valueImports(f)
    .filter((s) => !s.startsWith('node:') && !(s.startsWith('./') || s.startsWith('../')))
    .map((s) => `${f}: ${s}`));
  expect(offenders).toEqual([]);
  const outside = files.flatMap((f) => valueImports(f).filter((s) => s.startsWith('.') && !path.join(path.dirname(f), s).startsWith(`assets${path.sep}`))
    .map((s) => `${f}: ${s}`));
  expect(outside).toEqual([]);
  // No hand-written declarations: every .d.ts is the compiler's, next to its source.
  expect(filesUnder('assets', /\.d\.ts$/).filter((f) => !fs.existsSync(path.join(REPO, f.replace(/\.d\.ts$/, '.ts'))))).toEqual([]);
});

// src/ imports the runtime as `#assets/...` (package.json "imports"), typed by its compiled .d.ts, so
// that jsii compiles src/ alone. A relative import in such a .d.ts would lead the compiler to the
// .ts source next to it, which jsii would then compile into lib/ (it fails: "not under rootDir").
test('src/ reaches the runtime only through src/private/runtime.ts, by declarations without relative imports', () => {
  const bridge = path.join('src', 'private', 'runtime.ts');
  const reaching = filesUnder('src', /\.ts$/).filter((f) => f !== bridge)
    .flatMap((f) => [...fs.readFileSync(path.join(REPO, f), 'utf8').matchAll(/from '([^']*(?:#assets|assets\/)[^']*)'/g)].map((m) => `${f}: ${m[1]}`));
  expect(reaching).toEqual([]);
  const used = [...fs.readFileSync(path.join(REPO, bridge), 'utf8').matchAll(/from '#assets\/([^']+)'/g)].map((m) => m[1]);
  expect(used.length).toBeGreaterThan(5);
  const relative = used.filter((m) => /from '\.|import\('\./.test(fs.readFileSync(path.join(REPO, 'assets', `${m}.d.ts`), 'utf8')));
  expect(relative).toEqual([]);
});

test('scripts and tools share nothing from test/', () => {
  const files = [...filesUnder('scripts', /\.ts$/), ...filesUnder(path.join('tools', 'testing'), /\.ts$/)];
  const offenders = files.flatMap((f) => valueImports(f).filter((s) => /(^|\/)test\//.test(s)).map((s) => `${f}: ${s}`));
  expect(offenders).toEqual([]);
});

// scripts/runtime-node-versions.sh runs the suites that start the runtime's CLIs again on other
// Node versions; a suite added later and left out of its list would run on this Node only.
test('scripts/runtime-node-versions.sh lists every suite outside e2e/ and real-qdrant/ that starts the runtime as a child', () => {
  const script = fs.readFileSync(path.join(REPO, 'scripts', 'runtime-node-versions.sh'), 'utf8');
  const listed = [...(/^SUITES=\(([^)]*)\)/m.exec(script)?.[1] ?? '').matchAll(/\S+/g)].map((m) => m[0]).sort();
  const starting = ['test/checker', 'test/writer', 'test/runtime', 'test/adversarial']
    .flatMap((d) => filesUnder(d, /\.test\.ts$/))
    .filter((f) => valueImports(f).some((s) => /\/run-node$|\/run-cli$/.test(s)))
    .sort();
  expect(starting.length).toBeGreaterThan(10);
  expect(listed).toEqual(starting);
});

// The setup guide renders a read-only model that the ClusterAccess side builds
// (src/private/guide-model.ts): nothing under src/setup-guide/ reads a construct of src/, not
// even for a type, so src/cluster-access.ts can import its writer without an import circle.
test('src/setup-guide/ imports only itself and the shared helpers of src/private/, not even a type of a construct', () => {
  const allowed = new Set(['src/private/errors.ts', 'src/private/framework.ts', 'src/private/runtime.ts', 'src/private/stack-support.ts']);
  const files = filesUnder(path.join('src', 'setup-guide'), /\.ts$/);
  expect(files.length).toBeGreaterThan(5);
  const offenders = files.flatMap((f) => {
    const text = fs.readFileSync(path.join(REPO, f), 'utf8');
    // Every relative import and export, `import type` included.
    const specs = [...text.matchAll(/^(?:import|export)\b[^;]*?from '(\.[^']*)'/gm)].map((m) => m[1]);
    return specs.map((s) => [s, resolveTs(f, s)] as const)
      .filter(([, t]) => t === undefined || !(t.startsWith(path.join('src', 'setup-guide') + path.sep) || allowed.has(t)))
      .map(([s]) => `${f}: ${s}`);
  });
  expect(offenders).toEqual([]);
});
