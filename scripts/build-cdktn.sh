#!/usr/bin/env bash
# Build the CDK Terrain (cdktn) flavour of this library, `cdktn-qdrant-cluster-access`, from the
# same source as the cdktf package (issue #15). No copy of the code is committed.
#
# - compiles the runtime (scripts/build-runtime.sh), then copies src/ and assets/ (the runtime's
#   TypeScript, and the .js and .d.ts it compiles to) into .cdktn-build/ (gitignored; its
#   node_modules is kept between runs);
# - rewrites every `from 'cdktf'` import in the copy to `from 'cdktn'`, and the values of
#   src/private/framework.ts (the CLI and package names that messages and the setup guide show),
#   nothing else. It fails when src/ imports anything but cdktf's public entry point, constructs,
#   Node built-ins, relative paths, or when a string outside framework.ts names the cdktf CLI;
# - writes a package.json: name cdktn-qdrant-cluster-access, peerDependencies cdktn ^0.24.0 and
#   constructs >=10.6.0 <10.8.0 (cdktn's own range), no @cdktf/provider-null (the null_resource is
#   emitted through the core API), the same bin and the same files as the cdktf package;
# - installs cdktn and constructs into the build dir (the build dependencies, cached), compiles with
#   the repository's jsii, and packs with jsii-pacmak into dist/cdktn/js/*.tgz (and, with --python,
#   dist/cdktn/python/*.whl);
# - make-like: skipped when a stamp says the same inputs (src/, the runtime's sources in assets/, this
#   script, package.json, LICENSE, .npmignore, the jsii, jsii-pacmak and TypeScript versions) built
#   the artifacts there already;
# - prints the tarball's absolute path as the LAST line on stdout (the wheel's too, with --python,
#   as `<tarball> <wheel>`). Progress goes to stderr.
#
# Usage:   TARBALL="$(bash scripts/build-cdktn.sh | tail -n 1)"
#          bash scripts/build-cdktn.sh --python   # also the Python wheel
set -euo pipefail

# What the cdktn flavour targets. cdktn 0.24.0 is the only version on npm; it wants constructs
# 10.6.x or 10.7.x. jsii asks for the devDependency at the range's lowest version.
CDKTN_RANGE='^0.24.0'
CDKTN_DEV='0.24.0'
CONSTRUCTS_RANGE='>=10.6.0 <10.8.0'
CONSTRUCTS_DEV='10.6.0'
NAME='cdktn-qdrant-cluster-access'

WITH_PYTHON=0
for arg in "$@"; do
  case "${arg}" in
    --python) WITH_PYTHON=1 ;;
    *) printf '[build-cdktn] ERROR: unknown argument %s (usage: build-cdktn.sh [--python])\n' "${arg}" >&2; exit 2 ;;
  esac
done

log() { printf '[build-cdktn] %s\n' "$*" >&2; }
die() { printf '[build-cdktn] ERROR: %s\n' "$*" >&2; exit 1; }

SCRIPT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)/$(basename "${BASH_SOURCE[0]}")"
REPO="$(cd "$(dirname "${SCRIPT}")/.." && pwd -P)"
BUILD="${REPO}/.cdktn-build"
OUT="${REPO}/dist/cdktn"
JSII="${REPO}/node_modules/.bin/jsii"
PACMAK="${REPO}/node_modules/.bin/jsii-pacmak"
[ -x "${JSII}" ] && [ -x "${PACMAK}" ] || die "jsii / jsii-pacmak not found in ${REPO}/node_modules: run npm ci first"
cd "${REPO}"
mkdir -p "${BUILD}" "${OUT}"

# One build at a time (parallel jest workers, or a test next to a build by hand).
if command -v flock >/dev/null 2>&1; then
  exec 9>"${BUILD}/.lock"
  flock 9
fi

sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi; }
inputs_hash="$(
  {
    printf 'jsii=%s pacmak=%s typescript=%s\n' \
      "$(node -p 'require("./node_modules/jsii/package.json").version')" \
      "$(node -p 'require("./node_modules/jsii-pacmak/package.json").version')" \
      "$(node -p 'require("./node_modules/typescript/package.json").version')"
    # The runtime's sources, not what they compile to.
    find src assets -type f ! -name '*.js' ! -name '*.d.ts' -print0 | LC_ALL=C sort -z | while IFS= read -r -d '' f; do printf '%s ' "${f}"; sha256 <"${f}"; done
    sha256 <"${SCRIPT}"
    for f in package.json LICENSE .npmignore; do sha256 <"${f}"; done
  } | sha256 | cut -d' ' -f1
)"

artifacts() {
  local tgz whl
  tgz="$(ls -1 "${OUT}"/js/*.tgz 2>/dev/null | head -n 1)"
  [ -n "${tgz}" ] || return 1
  if [ "${WITH_PYTHON}" = 1 ]; then
    whl="$(ls -1 "${OUT}"/python/*.whl 2>/dev/null | head -n 1)"
    [ -n "${whl}" ] || return 1
    printf '%s %s\n' "${tgz}" "${whl}"
  else
    printf '%s\n' "${tgz}"
  fi
}

# The stamp: the inputs' hash, then the targets built from them (`js` or `js python`).
stamp="$(cat "${OUT}/.stamp" 2>/dev/null || true)"
if [ "${stamp%% *}" = "${inputs_hash}" ] && { [ "${WITH_PYTHON}" = 0 ] || [ "${stamp}" = "${inputs_hash} js python" ]; }; then
  if result="$(artifacts)"; then
    log "up to date: ${result}"
    printf '%s\n' "${result}"
    exit 0
  fi
fi
started=$(date +%s)

# The wheel only, when the tarball is current: the compiled build dir is still there, and the
# tarball stays the same file (a test may be installing it).
if [ "${WITH_PYTHON}" = 1 ] && [ "${stamp}" = "${inputs_hash} js" ] && [ -f "${BUILD}/.jsii" ] && ls "${OUT}"/js/*.tgz >/dev/null 2>&1; then
  log "jsii-pacmak --target python (the tarball is current)"
  rm -rf "${OUT}/python"
  (cd "${BUILD}" && JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1 "${PACMAK}" --target python --outdir "${OUT}") >&2 \
    || die "jsii-pacmak --target python failed in ${BUILD}"
  printf '%s js python\n' "${inputs_hash}" >"${OUT}/.stamp"
  result="$(artifacts)" || die "jsii-pacmak wrote no wheel into ${OUT}/python"
  log "built in $(( $(date +%s) - started )) s: ${result}"
  printf '%s\n' "${result}"
  exit 0
fi

# 1. The sources: a fresh copy (the build dependencies in node_modules stay), with the runtime compiled.
bash scripts/build-runtime.sh >&2 || die "the runtime (assets/) does not compile"
rm -rf "${BUILD}/src" "${BUILD}/assets" "${BUILD}/lib" "${BUILD}/dist" "${BUILD}/.jsii" "${BUILD}/tsconfig.tsbuildinfo"
cp -R src assets "${BUILD}/"
cp LICENSE .npmignore "${BUILD}/"

# 2. Imports and framework names. A check first: what src/ imports, so that a deep import of
#    cdktf (or another package) cannot slip into the cdktn build unrewritten.
node - "${BUILD}/src" <<'EOF' || die "src/ imports something the cdktn build cannot rewrite (see above)"
const fs = require('fs');
const path = require('path');
const { builtinModules } = require('module');
const root = process.argv[2];
const files = (function walk(d) {
  return fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(path.join(d, e.name)) : e.name.endsWith('.ts') ? [path.join(d, e.name)] : []);
})(root);
// `#assets/...`: the runtime, through package.json "imports" (src/private/runtime.ts).
const allowed = (m) => m === 'cdktf' || m === 'constructs' || m.startsWith('.') || m.startsWith('#assets/') || m.startsWith('node:') || builtinModules.includes(m);
let bad = 0;
for (const f of files) {
  const code = fs.readFileSync(f, 'utf8');
  const specs = [
    ...[...code.matchAll(/^\s*(?:import|export)\b[^'";]*?\bfrom\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]),
    ...[...code.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]),
    ...[...code.matchAll(/\b(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]),
  ];
  for (const s of specs) {
    if (!allowed(s)) { console.error(`  ${path.relative(root, f)}: imports '${s}'`); bad++; }
  }
  if (/\b(?:require|import)\s*\(\s*[^'"\s)]/.test(code)) { console.error(`  ${path.relative(root, f)}: a dynamic require/import`); bad++; }
}
process.exit(bad ? 1 : 0);
EOF
find "${BUILD}/src" -name '*.ts' -print0 | xargs -0 sed -i.bak -e "s/from 'cdktf';/from 'cdktn';/"
find "${BUILD}/src" -name '*.bak' -delete
FRAMEWORK_TS="${BUILD}/src/private/framework.ts"
[ -f "${FRAMEWORK_TS}" ] || die "src/private/framework.ts is missing"
sed -i.bak -e "s/^  lib: 'cdktf',$/  lib: 'cdktn',/" -e "s/^  cli: 'cdktf',$/  cli: 'cdktn',/" \
  -e "s/^  packageName: 'cdktf-qdrant-cluster-access',$/  packageName: '${NAME}',/" "${FRAMEWORK_TS}"
rm -f "${FRAMEWORK_TS}.bak"
[ "$(grep -cE "^  (lib|cli): 'cdktn',$|^  packageName: '${NAME}',$" "${FRAMEWORK_TS}")" = 3 ] \
  || die "src/private/framework.ts no longer has the lines this script rewrites (lib, cli, packageName): update the script"
# What must be gone from the code (comments are left as they are).
code_lines() { grep -rnE "$1" "${BUILD}/src" --include='*.ts' | grep -vE '^[^:]+:[0-9]+:\s*(\*|/\*|//)' || true; }
leftover="$(code_lines "from ['\"]cdktf|require\(['\"]cdktf")"
[ -z "${leftover}" ] || die "imports of cdktf left after the rewrite:
${leftover}"
leftover="$(code_lines "cdktf (deploy|destroy|synth|diff|plan|get|init)")"
[ -z "${leftover}" ] || die "code outside src/private/framework.ts names the cdktf CLI (use DEPLOY_COMMAND / DESTROY_COMMAND / FRAMEWORK):
${leftover}"

# 3. package.json and the README of the cdktn package.
node - "${REPO}/package.json" "${BUILD}/package.json" "${NAME}" "${CDKTN_RANGE}" "${CONSTRUCTS_RANGE}" "${CDKTN_DEV}" "${CONSTRUCTS_DEV}" <<'EOF'
const fs = require('fs');
const [src, dest, name, cdktn, constructs, cdktnDev, constructsDev] = process.argv.slice(2);
const p = JSON.parse(fs.readFileSync(src, 'utf8'));
const out = {
  name,
  description: p.description.replace(/^CDK for Terraform constructs/, 'CDK Terrain (cdktn) constructs'),
  repository: p.repository,
  bin: p.bin,
  author: p.author,
  license: p.license,
  version: p.version,
  keywords: [...new Set(p.keywords.map((k) => (k === 'cdktf' ? 'cdktn' : k)).concat('cdk-terrain'))].sort(),
  main: p.main,
  types: p.types,
  imports: p.imports,
  stability: p.stability,
  publishConfig: p.publishConfig,
  peerDependencies: { cdktn, constructs },
  devDependencies: { cdktn: cdktnDev, constructs: constructsDev },
  jsii: {
    outdir: 'dist',
    targets: { python: { distName: name, module: name.replace(/-/g, '_') } },
    tsconfig: 'tsconfig.json',
    validateTsconfig: 'strict',
  },
};
for (const [k, v] of Object.entries(p.peerDependencies ?? {})) {
  if (!['cdktf', 'constructs', '@cdktf/provider-null'].includes(k)) out.peerDependencies[k] = v;
}
fs.writeFileSync(dest, JSON.stringify(out, null, 2) + '\n');
EOF
node -e '
const fs = require("fs");
const t = JSON.parse(fs.readFileSync(process.argv[1], "utf8").replace(/^\s*\/\/.*$/gm, ""));
delete t["//"];
t.compilerOptions.types = ["node"];
fs.writeFileSync(process.argv[2], JSON.stringify(t, null, 2) + "\n");
' "${REPO}/tsconfig.json" "${BUILD}/tsconfig.json"
cat >"${BUILD}/README.md" <<EOF
# ${NAME}

The [CDK Terrain](https://github.com/open-constructs/cdk-terrain) (cdktn) flavour of
[cdktf-qdrant-cluster-access](https://github.com/cdktf-qdrant/cdktf-qdrant-cluster-access):
constructs that give platform teams safe, verified access to Qdrant Cloud clusters. Built from
the same source; the documentation of cdktf-qdrant-cluster-access applies, with \`cdktn\` in place
of \`cdktf\` (imports and commands).

\`\`\`bash
npm install ${NAME}
\`\`\`

Requires cdktn ${CDKTN_RANGE} and constructs ${CONSTRUCTS_RANGE} (what cdktn itself requires).

\`\`\`ts
import { App, TerraformStack } from 'cdktn';
import { ClusterAccess } from '${NAME}';

const app = new App();
const stack = new TerraformStack(app, 'search');
new ClusterAccess(stack, 'Qdrant', {
  clusters: [{ name: 'prod-eu', url: 'https://xyz-example.eu-central-1-0.aws.cloud.qdrant.io' }],
  apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }],
});
app.synth();
\`\`\`
EOF

# 4. Build dependencies (cdktn, constructs), installed again only when they change.
deps_hash="$(node -p 'JSON.stringify(require(process.argv[1]).devDependencies)' "${BUILD}/package.json" | sha256 | cut -d' ' -f1)"
if [ "$(cat "${BUILD}/node_modules/.qca-deps" 2>/dev/null)" != "${deps_hash}" ]; then
  log "installing the build dependencies (cdktn ${CDKTN_DEV}, constructs ${CONSTRUCTS_DEV})"
  rm -rf "${BUILD}/node_modules"
  (cd "${BUILD}" && npm_config_update_notifier=false npm install --no-audit --no-fund --no-package-lock \
    --ignore-scripts --loglevel=error) >&2 || die "npm install in ${BUILD} failed"
  printf '%s\n' "${deps_hash}" >"${BUILD}/node_modules/.qca-deps"
fi

# 5. Compile (jsii reads cdktn's assembly from the build dir's node_modules; @types/node comes
#    from the repository's, one directory up), then pack.
log "jsii"
(cd "${BUILD}" && JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1 "${JSII}") >&2 || die "jsii failed in ${BUILD}"
targets=(--target js)
[ "${WITH_PYTHON}" = 1 ] && targets+=(--target python)
rm -rf "${OUT}/js" "${OUT}/python"
log "jsii-pacmak ${targets[*]}"
(cd "${BUILD}" && JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1 "${PACMAK}" "${targets[@]}" --outdir "${OUT}") >&2 \
  || die "jsii-pacmak failed in ${BUILD}"

if [ "${WITH_PYTHON}" = 1 ]; then built='js python'; else built='js'; fi
printf '%s %s\n' "${inputs_hash}" "${built}" >"${OUT}/.stamp"
result="$(artifacts)" || die "jsii-pacmak wrote no artifact into ${OUT}"
log "built in $(( $(date +%s) - started )) s: ${result}"
printf '%s\n' "${result}"
