#!/usr/bin/env bash
# The real Qdrant servers the tests run against: one binary per version in VERSIONS, each built
# from source by ../shared/qdrant/build.sh (6-10 min once per version on 2 cores, then cached; a
# second run prints the cached paths at once). Every suite that needs a real server runs once per
# version (tools/testing/real-qdrant.ts, describeRealQdrant).
#
# Prints `export QDRANT_BINS=<binary>:<binary>` (in the order of VERSIONS) as the LAST line on
# stdout; progress goes to stderr. Fails, naming the version, when one cannot be built.
#
# Usage:   eval "$(bash scripts/qdrant-servers.sh | tail -n 1)"
#          bash scripts/qdrant-servers.sh --versions           prints the versions, one a line
#          bash scripts/qdrant-servers.sh --build <version>    builds one, prints its binary last
# Build:   QDRANT_BUILD_SCRIPT (default: <repo>/../shared/qdrant/build.sh)
set -euo pipefail

# The oldest and the newest release the checks are proven on (Qdrant Cloud runs recent versions).
VERSIONS=(1.18.3 1.19.0)

log() { printf '[qdrant-servers] %s\n' "$*" >&2; }
die() { printf '[qdrant-servers] ERROR: %s\n' "$*" >&2; exit 1; }

usage='usage: qdrant-servers.sh [--versions | --build <version>]'
only=""
case "${1:-}" in
  "") ;;
  --versions) printf '%s\n' "${VERSIONS[@]}"; exit 0 ;;
  --build) only="${2:-}"; [ -n "${only}" ] || die "--build needs a version (${usage})" ;;
  *) die "unknown argument $1 (${usage})" ;;
esac

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
build="${QDRANT_BUILD_SCRIPT:-${repo}/../shared/qdrant/build.sh}"
[ -f "${build}" ] || die "${build} not found: it builds the Qdrant servers from source. Clone this repository beside ../shared, or set QDRANT_BINS to Qdrant binaries (${VERSIONS[*]}), separated by ':'."

# Builds one version (cached after the first time) and prints its binary's path.
build_one() {
  local version="$1" bin started=${SECONDS}
  bin="$(QDRANT_VERSION="${version}" bash "${build}" | tail -n 1)" || die "Qdrant ${version}: ${build} failed (its messages are above)"
  [ -x "${bin}" ] || die "Qdrant ${version}: ${build} printed no executable path (got '${bin}')"
  log "qdrant ${version}: ${bin} ($((SECONDS - started)) s)"
  printf '%s\n' "${bin}"
}

if [ -n "${only}" ]; then
  build_one "${only}"
  exit 0
fi

bins=()
for version in "${VERSIONS[@]}"; do bins+=("$(build_one "${version}")"); done

joined="$(IFS=:; printf '%s' "${bins[*]}")"
printf 'export QDRANT_BINS=%q\n' "${joined}"
