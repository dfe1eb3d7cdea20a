#!/usr/bin/env bash
# Compiles the runtime (assets/**/*.ts: the checker and the writer) with assets/tsconfig.json into
# a .js and a .d.ts next to each source, when one of them is missing or older than its source or
# the tsconfig; and removes compiled files whose source is gone (they would ship in the package
# and in every stack). Quick when nothing changed: the compile task and the tests' global setup
# (tools/testing/jest-global-setup.ts) both run it. `--force` compiles whatever the dates say.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

stale=0
[ "${1:-}" = --force ] && stale=1
while IFS= read -r -d '' out; do
  base="${out%.js}"; base="${base%.d.ts}"
  if [ ! -f "${base}.ts" ]; then rm -f "${out}"; stale=1; fi
done < <(find assets \( -name '*.js' -o -name '*.d.ts' \) -print0)
while IFS= read -r -d '' src; do
  for out in "${src%.ts}.js" "${src%.ts}.d.ts"; do
    if [ ! "${out}" -nt "${src}" ] || [ assets/tsconfig.json -nt "${out}" ]; then stale=1; fi
  done
done < <(find assets -name '*.ts' ! -name '*.d.ts' -print0)
[ "${stale}" = 1 ] || exit 0
exec node_modules/.bin/tsc -p assets/tsconfig.json
