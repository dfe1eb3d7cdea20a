#!/usr/bin/env bash
# Prints the Terraform binary this project's scripts and tests run: $TERRAFORM_BINARY_NAME when
# set (cdktf's own variable), else QCA_TF_BINARY (`terraform`, `tofu` or a path), else
# `terraform` when it is on PATH, else the OpenTofu that scripts/offline-terraform.sh builds
# (about 6 min once, then cached). Used to set TERRAFORM_BINARY_NAME for cdktf, which runs
# `<binary> version` at synth for some constructs (see .projenrc.ts, task `demo`).
set -euo pipefail
if [ -n "${TERRAFORM_BINARY_NAME:-}" ]; then printf '%s\n' "${TERRAFORM_BINARY_NAME}"; exit 0; fi
want="${QCA_TF_BINARY:-}"
if [ -z "${want}" ]; then
  if command -v terraform >/dev/null 2>&1; then echo terraform; exit 0; fi
  want=tofu
fi
if [ "${want}" = tofu ] && ! command -v tofu >/dev/null 2>&1; then
  repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
  bash "${repo}/scripts/offline-terraform.sh" --tofu >/dev/null
  sed -n 's/^QCA_TOFU=//p' "${repo}/.offline-tf/env"
  exit 0
fi
printf '%s\n' "${want}"
