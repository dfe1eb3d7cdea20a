#!/usr/bin/env bash
# Prepare Terraform and OpenTofu to work fully offline for this project's tests and demo.
#
# - checks that `go` is on PATH, and `terraform` (when it is missing, OpenTofu is built instead:
#   scripts/offline-tofu.sh, ~4 min once, then cached; the tests and the demo then run `tofu`);
# - builds the stand-in hashicorp/null provider from tools/terraform-provider-null
#   into an unpacked filesystem mirror (cached: rebuilt only when its sources,
#   the Go version or the target platform change), laid out for both origins:
#   registry.terraform.io/hashicorp/null (terraform) and registry.opentofu.org/hashicorp/null
#   (tofu resolves the source "null" there);
# - writes one CLI config, read by terraform and tofu alike through TF_CLI_CONFIG_FILE, that
#   installs hashicorp/null from that mirror only (never from the network) and disables update
#   checks;
# - with --tofu (or without terraform): builds or reuses tofu (scripts/offline-tofu.sh);
# - writes <repo>/.offline-tf/env (KEY=VALUE lines: TF_CLI_CONFIG_FILE=/abs/path, and
#   QCA_TOFU=/abs/path/tofu when tofu is built) for Node test code, and prints
#   `export TF_CLI_CONFIG_FILE=... [QCA_TOFU=...]` as the LAST line on stdout.
#   Progress messages go to stderr.
#
# Usage:   eval "$(scripts/offline-terraform.sh [--tofu] | tail -n 1)"
# Cache:   ${CDKTF_QDRANT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdktf-qdrant-cluster-access}/{terraform,tofu}
set -euo pipefail

PROVIDER_VERSION="3.2.4"
PROVIDER_ADDR="registry.terraform.io/hashicorp/null"
# The same binary under OpenTofu's origin: tofu resolves `source = "null"` to this address.
TOFU_PROVIDER_ADDR="registry.opentofu.org/hashicorp/null"

WITH_TOFU=0
for arg in "$@"; do
  case "${arg}" in
    --tofu) WITH_TOFU=1 ;;
    *) printf '[offline-terraform] ERROR: unknown argument %s (usage: offline-terraform.sh [--tofu])\n' "${arg}" >&2; exit 2 ;;
  esac
done

log() { printf '[offline-terraform] %s\n' "$*" >&2; }
die() { printf '[offline-terraform] ERROR: %s\n' "$*" >&2; exit 1; }

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_DIR="$(cd "${SCRIPT_DIR}/.." && pwd -P)"
PROVIDER_SRC="${REPO_DIR}/tools/terraform-provider-null"

command -v go >/dev/null 2>&1 \
  || die "go not found on PATH: install Go >= 1.25 (needed to build the offline hashicorp/null provider) and re-run."
[ -f "${PROVIDER_SRC}/go.mod" ] || die "provider sources missing: ${PROVIDER_SRC}/go.mod"

if command -v terraform >/dev/null 2>&1; then
  # Query Terraform with an empty CLI config and no update check, so a stale
  # TF_CLI_CONFIG_FILE does not produce warnings and nothing reaches the network.
  tf_json="$(CHECKPOINT_DISABLE=1 TF_CLI_CONFIG_FILE=/dev/null terraform version -json)"
  tf_version="$(printf '%s\n' "${tf_json}" | sed -n 's/.*"terraform_version": *"\([^"]*\)".*/\1/p')"
  tf_platform="$(printf '%s\n' "${tf_json}" | sed -n 's/.*"platform": *"\([^"]*\)".*/\1/p')"
  log "using terraform ${tf_version:-unknown} ($(command -v terraform))"
else
  # No terraform: the tests and the demo fall back to OpenTofu, built from its Go module.
  log "terraform not found on PATH: falling back to OpenTofu, built from source (scripts/offline-tofu.sh)"
  WITH_TOFU=1
fi
[ -n "${tf_platform:-}" ] || tf_platform="$(go env GOOS)_$(go env GOARCH)"
log "platform ${tf_platform}"

CACHE_ROOT="${CDKTF_QDRANT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdktf-qdrant-cluster-access}"
CACHE_DIR="${CACHE_ROOT}/terraform"
mkdir -p "${CACHE_DIR}"
CACHE_DIR="$(cd "${CACHE_DIR}" && pwd -P)"
MIRROR_DIR="${CACHE_DIR}/mirror"
PLUGIN_DIR="${MIRROR_DIR}/${PROVIDER_ADDR}/${PROVIDER_VERSION}/${tf_platform}"
PLUGIN_BIN="${PLUGIN_DIR}/terraform-provider-null_v${PROVIDER_VERSION}"
STAMP_FILE="${CACHE_DIR}/provider-null.stamp"
CLI_CONFIG="${CACHE_DIR}/terraformrc"

# Serialise concurrent runs (e.g. parallel CI jobs sharing a cache).
if command -v flock >/dev/null 2>&1; then
  exec 9>"${CACHE_DIR}/.lock"
  flock 9
fi

sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi; }

# Hash of everything that determines the binary.
src_hash="$(
  cd "${PROVIDER_SRC}"
  {
    printf 'version=%s platform=%s %s\n' "${PROVIDER_VERSION}" "${tf_platform}" "$(go version)"
    for f in go.mod go.sum $(LC_ALL=C ls -1 -- *.go); do
      printf '== %s\n' "${f}"
      cat -- "${f}"
    done
  } | sha256 | cut -d' ' -f1
)"

if [ -x "${PLUGIN_BIN}" ] && [ -f "${STAMP_FILE}" ] && [ "$(cat "${STAMP_FILE}")" = "${src_hash}" ]; then
  log "provider hashicorp/null ${PROVIDER_VERSION} is up to date (${PLUGIN_BIN})"
else
  log "building provider hashicorp/null ${PROVIDER_VERSION} -> ${PLUGIN_BIN}"
  mkdir -p "${PLUGIN_DIR}"
  tmp_bin="${PLUGIN_BIN}.tmp.$$"
  trap 'rm -f "${tmp_bin}"' EXIT
  (
    cd "${PROVIDER_SRC}"
    # -mod=readonly: use the committed go.sum, never rewrite it.
    GOOS="${tf_platform%%_*}" GOARCH="${tf_platform#*_}" CGO_ENABLED=0 \
      go build -mod=readonly -buildvcs=false -trimpath \
      -ldflags "-s -w -X main.version=${PROVIDER_VERSION}" \
      -o "${tmp_bin}" .
  ) >&2 || die "go build of ${PROVIDER_SRC} failed"
  mv -f "${tmp_bin}" "${PLUGIN_BIN}"
  trap - EXIT
  printf '%s\n' "${src_hash}" >"${STAMP_FILE}"
fi

# OpenTofu's layout of the mirror: the same binary, linked under registry.opentofu.org.
TOFU_PLUGIN_DIR="${MIRROR_DIR}/${TOFU_PROVIDER_ADDR}/${PROVIDER_VERSION}/${tf_platform}"
mkdir -p "${TOFU_PLUGIN_DIR}"
ln -sfn "${PLUGIN_BIN}" "${TOFU_PLUGIN_DIR}/terraform-provider-null_v${PROVIDER_VERSION}"

# CLI config: hashicorp/null only from the local mirror; everything else as usual. terraform
# and tofu both read TF_CLI_CONFIG_FILE (tofu ignores TOFU_CLI_CONFIG_FILE), and each looks up
# only its own origin's address.
cli_tmp="${CLI_CONFIG}.tmp.$$"
cat >"${cli_tmp}" <<EOF
# Generated by scripts/offline-terraform.sh -- do not edit.
disable_checkpoint = true

provider_installation {
  filesystem_mirror {
    path    = "${MIRROR_DIR}"
    include = ["${PROVIDER_ADDR}", "${TOFU_PROVIDER_ADDR}"]
  }
  direct {
    exclude = ["${PROVIDER_ADDR}", "${TOFU_PROVIDER_ADDR}"]
  }
}
EOF
if cmp -s "${cli_tmp}" "${CLI_CONFIG}" 2>/dev/null; then rm -f "${cli_tmp}"; else mv -f "${cli_tmp}" "${CLI_CONFIG}"; fi

# OpenTofu: built when asked for (or when terraform is missing); a cached build is always listed.
TOFU_BIN=""
if [ "${WITH_TOFU}" = 1 ]; then
  flock -u 9 2>/dev/null || true  # offline-tofu.sh takes its own lock; the provider is done
  TOFU_BIN="$(bash "${SCRIPT_DIR}/offline-tofu.sh" | tail -n 1)"
else
  TOFU_BIN="$(bash "${SCRIPT_DIR}/offline-tofu.sh" --cached)"
fi

mkdir -p "${REPO_DIR}/.offline-tf"
env_tmp="${REPO_DIR}/.offline-tf/env.tmp.$$"
{
  printf 'TF_CLI_CONFIG_FILE=%s\n' "${CLI_CONFIG}"
  [ -z "${TOFU_BIN}" ] || printf 'QCA_TOFU=%s\n' "${TOFU_BIN}"
} >"${env_tmp}"
mv -f "${env_tmp}" "${REPO_DIR}/.offline-tf/env"
log "wrote ${REPO_DIR}/.offline-tf/env"

if [ -n "${TOFU_BIN}" ]; then
  printf 'export TF_CLI_CONFIG_FILE=%q QCA_TOFU=%q\n' "${CLI_CONFIG}" "${TOFU_BIN}"
else
  printf 'export TF_CLI_CONFIG_FILE=%q\n' "${CLI_CONFIG}"
fi
