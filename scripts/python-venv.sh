#!/usr/bin/env bash
# A Python virtual env for examples/python, as a user would set it up: the library's wheel
# (dist/python) plus examples/python/requirements.txt (cdktf, constructs, qdrant-client,
# python-dotenv) from PyPI.
#
# - the venv is cached under <cache>/python/venv-<hash>, the hash covering the requirements file
#   and the Python version (PyPI answers here are not kept by pip's own cache, so this cache is
#   what keeps CI from downloading them on every run); `.complete` marks a finished one;
# - the wheel is (re)installed into it on every call (`--no-deps --force-reinstall`, ~2 s), then
#   its own dependencies (cdktf-cdktf-provider-null, jsii, ...) are added when missing;
# - prints the venv's absolute path as the LAST line on stdout.  Progress goes to stderr.
#
# Usage:   VENV="$(scripts/python-venv.sh dist/python/cdktf_qdrant_cluster_access-*.whl | tail -n 1)"
# Cache:   ${CDKTF_QDRANT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdktf-qdrant-cluster-access}/python
set -euo pipefail

log() { printf '[python-venv] %s\n' "$*" >&2; }
die() { printf '[python-venv] ERROR: %s\n' "$*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: python-venv.sh <wheel>"
WHEEL="$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")"
[ -f "${WHEEL}" ] || die "no wheel at $1: run 'npx projen package:python' first"

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REQUIREMENTS="${SCRIPT_DIR}/../examples/python/requirements.txt"
PYTHON="${QCA_PYTHON:-python3}"
command -v "${PYTHON}" >/dev/null 2>&1 || die "${PYTHON} not found on PATH: install Python >= 3.10 and re-run."

sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi; }
key="$({ "${PYTHON}" -c 'import sys; print(sys.version)'; cat "${REQUIREMENTS}"; } | sha256 | cut -c1-16)"

CACHE_ROOT="${CDKTF_QDRANT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdktf-qdrant-cluster-access}"
PY_DIR="${CACHE_ROOT}/python"
mkdir -p "${PY_DIR}"
PY_DIR="$(cd "${PY_DIR}" && pwd -P)"
VENV="${PY_DIR}/venv-${key}"

if command -v flock >/dev/null 2>&1; then
  exec 9>"${PY_DIR}/.lock"
  flock 9
fi

# A venv embeds its own path, so it is made in place; `.complete` marks one that finished.
if [ -f "${VENV}/.complete" ]; then
  log "reusing ${VENV}"
else
  started=$(date +%s)
  log "creating ${VENV} (cdktf, constructs, qdrant-client, python-dotenv from PyPI)"
  rm -rf "${VENV}"
  "${PYTHON}" -m venv "${VENV}"
  "${VENV}/bin/python" -m pip install --quiet --disable-pip-version-check -r "${REQUIREMENTS}" >&2 \
    || { rm -rf "${VENV}"; die "pip install -r ${REQUIREMENTS} failed"; }
  touch "${VENV}/.complete"
  log "created in $(( $(date +%s) - started )) s"
fi

pip() { "${VENV}/bin/python" -m pip --disable-pip-version-check "$@"; }
pip install --quiet --no-deps --force-reinstall "${WHEEL}" >&2 || die "pip install ${WHEEL} failed"
# The wheel's own dependencies: a no-op (no network) when they are already there.
pip install --quiet "${WHEEL}" >&2 || die "pip install of the dependencies of ${WHEEL} failed"

printf '%s\n' "${VENV}"
