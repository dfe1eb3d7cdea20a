#!/usr/bin/env bash
# Make-like check for projen task conditions: exits 0 (run the task) when no file matches the
# output glob, or when any input (file or directory, searched recursively) is newer than the
# oldest match; exits 1 (skip: up to date) otherwise.
#
# Usage: scripts/stale.sh 'dist/python/*.whl' .jsii lib assets package.json
set -uo pipefail

out_glob="$1"
shift
shopt -s nullglob
# shellcheck disable=SC2206 # the glob is meant to expand here
matches=(${out_glob})
outputs=()
for f in "${matches[@]}"; do [ -e "${f}" ] && outputs+=("${f}"); done  # a plain name stays even when missing
[ "${#outputs[@]}" -gt 0 ] || exit 0
oldest="$(ls -1tr -- "${outputs[@]}" | head -n 1)"
inputs=()
for f in "$@"; do [ -e "${f}" ] && inputs+=("${f}"); done
[ "${#inputs[@]}" -gt 0 ] || exit 1
[ -n "$(find "${inputs[@]}" -newer "${oldest}" -print -quit)" ] && exit 0
echo "up to date: ${oldest}" >&2
exit 1
