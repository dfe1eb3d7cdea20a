#!/usr/bin/env bash
# Prepare Terraform and OpenTofu to work fully offline for this project's tests and demo.
#
# - checks for `terraform` (when it is missing, OpenTofu is built instead: scripts/offline-tofu.sh,
#   about 6 min once, then cached; the tests and the demo then run `tofu`);
# - gets the real hashicorp/null and hashicorp/http providers from a filesystem mirror:
#   QCA_PROVIDER_MIRROR when set, else the one ../shared/terraform-providers/build.sh builds from
#   the providers' tagged sources (about a minute once, then cached; it needs Go). The mirror is
#   laid out for both origins: registry.terraform.io/hashicorp/<type> (terraform) and
#   registry.opentofu.org/hashicorp/<type> (tofu resolves the source "null" there);
# - writes one CLI config, read by terraform and tofu alike through TF_CLI_CONFIG_FILE, that
#   installs hashicorp/null and hashicorp/http from that mirror only (never from the network) and
#   disables update checks;
# - with --tofu (or without terraform): builds or reuses tofu (scripts/offline-tofu.sh);
# - writes <repo>/.offline-tf/env (KEY=VALUE lines: TF_CLI_CONFIG_FILE=/abs/path,
#   QCA_PROVIDER_MIRROR=/abs/path, and QCA_TOFU=/abs/path/tofu with QCA_TOFU_VERSION when tofu is
#   built) for Node test code, and prints `export TF_CLI_CONFIG_FILE=... QCA_PROVIDER_MIRROR=...
#   [QCA_TOFU=...]` as the LAST line on stdout. Progress messages go to stderr.
#
# Usage:   eval "$(scripts/offline-terraform.sh [--tofu] | tail -n 1)"
# Cache:   ${CDKTF_QDRANT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdktf-qdrant-cluster-access}/{terraform,tofu}
#          (the providers: see ../shared/terraform-providers/build.sh)
set -euo pipefail

# The providers the CLI config takes from the mirror, under both origins.
PROVIDERS=(hashicorp/null hashicorp/http)
ORIGINS=(registry.terraform.io registry.opentofu.org)

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
PROVIDERS_BUILD="${REPO_DIR}/../shared/terraform-providers/build.sh"

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
if [ -z "${tf_platform:-}" ]; then
  command -v go >/dev/null 2>&1 || die "go not found on PATH: install Go >= 1.25 (it builds the providers and OpenTofu) and re-run."
  tf_platform="$(go env GOOS)_$(go env GOARCH)"
fi
log "platform ${tf_platform}"

# The mirror of the real providers.
if [ -n "${QCA_PROVIDER_MIRROR:-}" ]; then
  MIRROR_DIR="${QCA_PROVIDER_MIRROR}"
  log "providers from QCA_PROVIDER_MIRROR=${MIRROR_DIR}"
else
  [ -f "${PROVIDERS_BUILD}" ] || die "${PROVIDERS_BUILD} not found: it builds the real hashicorp/null and hashicorp/http providers. Clone this repository beside ../shared, or set QCA_PROVIDER_MIRROR to a filesystem mirror that holds them (both origins: registry.terraform.io and registry.opentofu.org)."
  started=${SECONDS}
  MIRROR_DIR="$(bash "${PROVIDERS_BUILD}" | tail -n 1)" || die "${PROVIDERS_BUILD} failed (its messages are above)"
  log "providers: ${MIRROR_DIR} ($((SECONDS - started)) s)"
fi
[ -d "${MIRROR_DIR}" ] || die "the provider mirror ${MIRROR_DIR} is not a directory"
MIRROR_DIR="$(cd "${MIRROR_DIR}" && pwd -P)"
for origin in "${ORIGINS[@]}"; do
  for provider in "${PROVIDERS[@]}"; do
    type="${provider#*/}"
    found="$(find "${MIRROR_DIR}/${origin}/${provider}" -mindepth 3 -maxdepth 3 -path "*/${tf_platform}/terraform-provider-${type}_v*" -perm -u+x 2>/dev/null | head -n 1)"
    [ -n "${found}" ] || die "the provider mirror ${MIRROR_DIR} has no ${origin}/${provider} for ${tf_platform} (expected <version>/${tf_platform}/terraform-provider-${type}_v<version>)"
  done
done

CACHE_ROOT="${CDKTF_QDRANT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdktf-qdrant-cluster-access}"
CACHE_DIR="${CACHE_ROOT}/terraform"
mkdir -p "${CACHE_DIR}"
CACHE_DIR="$(cd "${CACHE_DIR}" && pwd -P)"
# One config per mirror (a checkout elsewhere may use another), named after the mirror's path.
mirror_id="$(printf '%s' "${MIRROR_DIR}" | { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi; } | cut -c1-12)"
CLI_CONFIG="${CACHE_DIR}/providers-${mirror_id}.tfrc"

# CLI config: the providers only from the mirror; everything else as usual. terraform and tofu both
# read TF_CLI_CONFIG_FILE (tofu ignores TOFU_CLI_CONFIG_FILE), and each looks up only its own
# origin's addresses.
addresses=""
for origin in "${ORIGINS[@]}"; do
  for provider in "${PROVIDERS[@]}"; do addresses="${addresses:+${addresses}, }\"${origin}/${provider}\""; done
done
cli_tmp="${CLI_CONFIG}.tmp.$$"
cat >"${cli_tmp}" <<EOF
# Generated by scripts/offline-terraform.sh -- do not edit.
disable_checkpoint = true

provider_installation {
  filesystem_mirror {
    path    = "${MIRROR_DIR}"
    include = [${addresses}]
  }
  direct {
    exclude = [${addresses}]
  }
}
EOF
if cmp -s "${cli_tmp}" "${CLI_CONFIG}" 2>/dev/null; then rm -f "${cli_tmp}"; else mv -f "${cli_tmp}" "${CLI_CONFIG}"; fi

# OpenTofu: built when asked for (or when terraform is missing); a cached build is always listed.
TOFU_BIN=""
if [ "${WITH_TOFU}" = 1 ]; then
  TOFU_BIN="$(bash "${SCRIPT_DIR}/offline-tofu.sh" | tail -n 1)"
else
  TOFU_BIN="$(bash "${SCRIPT_DIR}/offline-tofu.sh" --cached)"
fi

mkdir -p "${REPO_DIR}/.offline-tf"
env_tmp="${REPO_DIR}/.offline-tf/env.tmp.$$"
{
  printf 'TF_CLI_CONFIG_FILE=%s\n' "${CLI_CONFIG}"
  printf 'QCA_PROVIDER_MIRROR=%s\n' "${MIRROR_DIR}"
  [ -z "${TOFU_BIN}" ] || printf 'QCA_TOFU=%s\nQCA_TOFU_VERSION=%s\n' "${TOFU_BIN}" "$(bash "${SCRIPT_DIR}/offline-tofu.sh" --version)"
} >"${env_tmp}"
mv -f "${env_tmp}" "${REPO_DIR}/.offline-tf/env"
log "wrote ${REPO_DIR}/.offline-tf/env"

if [ -n "${TOFU_BIN}" ]; then
  printf 'export TF_CLI_CONFIG_FILE=%q QCA_PROVIDER_MIRROR=%q QCA_TOFU=%q\n' "${CLI_CONFIG}" "${MIRROR_DIR}" "${TOFU_BIN}"
else
  printf 'export TF_CLI_CONFIG_FILE=%q QCA_PROVIDER_MIRROR=%q\n' "${CLI_CONFIG}" "${MIRROR_DIR}"
fi
