#!/usr/bin/env bash
# The Python build tools that jsii-pacmak installs into a fresh venv on every `package:python`
# (its requirements-dev.txt: setuptools, build, twine, ...), downloaded once from PyPI into a
# wheelhouse in the project's cache. pip keeps no HTTP cache of PyPI answers on these machines, so
# without it every build downloads them again; with PIP_FIND_LINKS pointing at the wheelhouse,
# pip installs from it (PyPI is still asked for versions, and used for anything missing).
#
# - skipped when the wheelhouse was filled from the same requirements file (stamp);
# - never touches the machine's own Python packages;
# - prints `export PIP_FIND_LINKS=...` (the wheelhouse first) as the LAST line on stdout.
#
# Usage:   eval "$(scripts/python-wheelhouse.sh | tail -n 1)"
# Cache:   ${CDKTF_QDRANT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdktf-qdrant-cluster-access}/python/wheelhouse
set -euo pipefail

log() { printf '[python-wheelhouse] %s\n' "$*" >&2; }
die() { printf '[python-wheelhouse] ERROR: %s\n' "$*" >&2; exit 1; }

REPO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
REQUIREMENTS="${REPO_DIR}/node_modules/jsii-pacmak/lib/targets/python/requirements-dev.txt"
[ -f "${REQUIREMENTS}" ] || die "${REQUIREMENTS} not found: run npm ci first"
PYTHON="${QCA_PYTHON:-python3}"

CACHE_ROOT="${CDKTF_QDRANT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdktf-qdrant-cluster-access}"
WHEELHOUSE="${CACHE_ROOT}/python/wheelhouse"
mkdir -p "${WHEELHOUSE}"
WHEELHOUSE="$(cd "${WHEELHOUSE}" && pwd -P)"

sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi; }
want="$({ "${PYTHON}" -c 'import sys; print(sys.version_info[:2])'; cat "${REQUIREMENTS}"; } | sha256 | cut -d' ' -f1)"
if [ "$(cat "${WHEELHOUSE}/.stamp" 2>/dev/null)" = "${want}" ]; then
  log "wheelhouse is up to date (${WHEELHOUSE})"
else
  log "downloading jsii-pacmak's Python build tools into ${WHEELHOUSE}"
  "${PYTHON}" -m pip download --quiet --disable-pip-version-check -d "${WHEELHOUSE}" -r "${REQUIREMENTS}" >&2 \
    || die "pip download -r ${REQUIREMENTS} failed"
  printf '%s\n' "${want}" >"${WHEELHOUSE}/.stamp"
fi

printf 'export PIP_FIND_LINKS=%q\n' "${WHEELHOUSE}${PIP_FIND_LINKS:+ ${PIP_FIND_LINKS}}"
