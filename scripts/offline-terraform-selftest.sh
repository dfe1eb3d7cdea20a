#!/usr/bin/env bash
# Self-test for scripts/offline-terraform.sh: in a temp dir, init (hashicorp/null with the library's
# constraint, and hashicorp/http, both from the mirror), apply a null_resource with a local-exec
# provisioner, change its trigger (must replace it and re-run the provisioner), then destroy.
# Exits non-zero on any failure.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
export CHECKPOINT_DISABLE=1
export TF_IN_AUTOMATION=1
unset TF_LOG TF_LOG_PATH TF_PLUGIN_CACHE_DIR || true

eval "$("${SCRIPT_DIR}/offline-terraform.sh" | tail -1)"
[ -f "${TF_CLI_CONFIG_FILE:-}" ] || { echo "selftest: TF_CLI_CONFIG_FILE not set by offline-terraform.sh" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/offline-tf-selftest.XXXXXX")"
cleanup() {
  # Best effort: never leave state behind if an assertion failed mid-way.
  [ -f "${WORK}/terraform.tfstate" ] && terraform -chdir="${WORK}" destroy -auto-approve -input=false -no-color >/dev/null 2>&1 || true
  rm -rf "${WORK}"
}
trap cleanup EXIT

fail() { echo "selftest: FAIL: $*" >&2; exit 1; }
tf() { terraform -chdir="${WORK}" "$@" -no-color; }

write_config() { # $1 = trigger value
  cat >"${WORK}/main.tf.json" <<EOF
{
  "terraform": {
    "required_providers": {
      "null": { "source": "null", "version": "~> 3.2" },
      "http": { "source": "hashicorp/http", "version": "3.6.0" }
    }
  },
  "resource": {
    "null_resource": {
      "probe": {
        "triggers": { "run": "$1" },
        "provisioner": [
          { "local-exec": { "command": "echo OFFLINE_TF_SELFTEST run=$1" } }
        ]
      }
    }
  }
}
EOF
}

expect() { # $1 = file, $2 = fixed string
  grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "expected '$2' in $(basename "$1")"; }
}

write_config one
tf init -input=false >"${WORK}/init.log" 2>&1 || { cat "${WORK}/init.log" >&2; fail "terraform init"; }
expect "${WORK}/init.log" "Installed hashicorp/null v3.3.1"
expect "${WORK}/init.log" "Installed hashicorp/http v3.6.0"
grep -q 'h1:' "${WORK}/.terraform.lock.hcl" || fail "no h1: hash in .terraform.lock.hcl"

tf apply -auto-approve -input=false >"${WORK}/apply1.log" 2>&1 || { cat "${WORK}/apply1.log" >&2; fail "first apply"; }
expect "${WORK}/apply1.log" "OFFLINE_TF_SELFTEST run=one"
expect "${WORK}/apply1.log" "1 added, 0 changed, 0 destroyed"

write_config two
tf apply -auto-approve -input=false >"${WORK}/apply2.log" 2>&1 || { cat "${WORK}/apply2.log" >&2; fail "second apply"; }
expect "${WORK}/apply2.log" "must be replaced"
expect "${WORK}/apply2.log" "OFFLINE_TF_SELFTEST run=two"
expect "${WORK}/apply2.log" "1 added, 0 changed, 1 destroyed"

tf apply -auto-approve -input=false >"${WORK}/apply3.log" 2>&1 || { cat "${WORK}/apply3.log" >&2; fail "no-op apply"; }
expect "${WORK}/apply3.log" "0 added, 0 changed, 0 destroyed"
if grep -qF "OFFLINE_TF_SELFTEST" "${WORK}/apply3.log"; then fail "provisioner re-ran without a trigger change"; fi

tf destroy -auto-approve -input=false >"${WORK}/destroy.log" 2>&1 || { cat "${WORK}/destroy.log" >&2; fail "destroy"; }
expect "${WORK}/destroy.log" "1 destroyed"

echo "selftest: OK (terraform + the mirror's hashicorp/null 3.3.1 and hashicorp/http 3.6.0: init, apply, replace on trigger change, destroy)"
