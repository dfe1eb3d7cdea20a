#!/usr/bin/env bash
# Build OpenTofu (`tofu`) from its Go module, for the tests that run with OpenTofu and as the
# fallback when `terraform` is not on PATH. Cached: built once per version and platform.
#
# - `go install github.com/opentofu/opentofu/cmd/tofu@vX` is refused (its go.mod has replace
#   directives), so the module source is downloaded with `go mod download`, copied into a
#   temporary directory and built there, as a release build (no `-dev` suffix, static, stripped);
# - the binary lands in <cache>/tofu/<version>/<platform>/tofu; a cached binary that still runs
#   is kept (0.1 s); a cold build takes about 6 min on 2 cores (1.12.6: 338 s with its modules
#   already downloaded);
# - prints the binary's absolute path as the LAST line on stdout.  Progress goes to stderr.
#
# Usage:   QCA_TOFU="$(scripts/offline-tofu.sh | tail -n 1)"
#          scripts/offline-tofu.sh --cached    prints the path only if already built (else nothing)
#          scripts/offline-tofu.sh --version   prints the version it builds
# Cache:   ${CDKTF_QDRANT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdktf-qdrant-cluster-access}/tofu
# Version: QCA_TOFU_VERSION (default below: the newest release the Go module proxy serves; the
#          project needs >= 1.11, the first with ephemeral variables)
set -euo pipefail

TOFU_VERSION="${QCA_TOFU_VERSION:-1.12.6}"

CACHED_ONLY=0
case "${1:-}" in
  "") ;;
  --cached) CACHED_ONLY=1 ;;
  --version) printf '%s\n' "${TOFU_VERSION}"; exit 0 ;;
  *) printf '[offline-tofu] ERROR: unknown argument %s (usage: offline-tofu.sh [--cached | --version])\n' "$1" >&2; exit 2 ;;
esac
TOFU_MODULE="github.com/opentofu/opentofu"

log() { printf '[offline-tofu] %s\n' "$*" >&2; }
die() { printf '[offline-tofu] ERROR: %s\n' "$*" >&2; exit 1; }

command -v go >/dev/null 2>&1 \
  || die "go not found on PATH: install Go >= 1.26.6 (OpenTofu 1.12 asks for it) and re-run."

platform="$(go env GOOS)_$(go env GOARCH)"
CACHE_ROOT="${CDKTF_QDRANT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdktf-qdrant-cluster-access}"
BIN_DIR="${CACHE_ROOT}/tofu/${TOFU_VERSION}/${platform}"
mkdir -p "${BIN_DIR}"
BIN_DIR="$(cd "${BIN_DIR}" && pwd -P)"
BIN="${BIN_DIR}/tofu"

# `tofu version` with an empty CLI config and no update check: nothing reaches the network.
version_of() { CHECKPOINT_DISABLE=1 TF_CLI_CONFIG_FILE=/dev/null "$1" version 2>/dev/null | head -n 1; }

if [ "${CACHED_ONLY}" = 1 ]; then
  if [ -x "${BIN}" ] && [ "$(version_of "${BIN}")" = "OpenTofu v${TOFU_VERSION}" ]; then printf '%s\n' "${BIN}"; fi
  exit 0
fi

# Serialise concurrent runs (two test files, or CI and a developer, sharing the cache).
if command -v flock >/dev/null 2>&1; then
  exec 9>"${BIN_DIR}/.lock"
  flock 9
fi

if [ -x "${BIN}" ] && [ "$(version_of "${BIN}")" = "OpenTofu v${TOFU_VERSION}" ]; then
  log "tofu ${TOFU_VERSION} is up to date (${BIN})"
else
  started=$(date +%s)
  log "building tofu ${TOFU_VERSION} for ${platform} from the Go module ${TOFU_MODULE} (a few minutes when cold)"
  WORK="$(mktemp -d "${BIN_DIR}/build.XXXXXX")"
  trap 'chmod -R u+w "${WORK}" 2>/dev/null || true; rm -rf "${WORK}"' EXIT
  src="$(go mod download -json "${TOFU_MODULE}@v${TOFU_VERSION}" | sed -n 's/^[[:space:]]*"Dir": *"\([^"]*\)".*/\1/p')"
  [ -n "${src}" ] && [ -f "${src}/go.mod" ] || die "go mod download ${TOFU_MODULE}@v${TOFU_VERSION} gave no source directory"
  # The module cache is read-only, and -mod=mod may update go.sum: build in a writable copy.
  cp -R "${src}" "${WORK}/src"
  chmod -R u+w "${WORK}/src"
  (
    cd "${WORK}/src"
    CGO_ENABLED=0 go build -mod=mod -buildvcs=false -trimpath \
      -ldflags "-s -w -X ${TOFU_MODULE}/version.dev=no" \
      -o "${WORK}/tofu" ./cmd/tofu
  ) >&2 || die "go build of ${TOFU_MODULE}@v${TOFU_VERSION} failed"
  got="$(version_of "${WORK}/tofu")"
  [ "${got}" = "OpenTofu v${TOFU_VERSION}" ] || die "built binary reports '${got}', expected 'OpenTofu v${TOFU_VERSION}'"
  mv -f "${WORK}/tofu" "${BIN}"
  log "built ${BIN} in $(( $(date +%s) - started )) s"
fi

printf '%s\n' "${BIN}"
