#!/usr/bin/env bash
# The action's lint step (action.yml): lint with annotations on the pull request
# and a job summary (--format github), and, when INPUT_SARIF names a file, a SARIF
# log of the same run for code scanning. The step's status is lint's: 0 clean, 1
# findings at or above INPUT_FAIL_ON, 2 an input that could not be read.
set -euo pipefail

read -r -a paths <<<"$(echo "${INPUT_PATHS:-.}" | tr '\n' ' ')"
[ ${#paths[@]} -gt 0 ] || paths=(.)
read -r -a extra <<<"${INPUT_ARGS:-}"

flags=()
[ -z "${INPUT_CONFIG:-}" ] || flags+=(--config "$INPUT_CONFIG")
[ -z "${INPUT_BASELINE:-}" ] || flags+=(--baseline "$INPUT_BASELINE")
flags+=(${extra[@]+"${extra[@]}"})

status=0
if [ -n "${INPUT_SARIF:-}" ]; then
  # The SARIF log holds every finding whatever the gate says; an input error
  # still shows in the annotations below.
  kubectl-mesh_lifecycle lint --format sarif --output-file "$INPUT_SARIF" --fail-on never \
    ${flags[@]+"${flags[@]}"} -- "${paths[@]}" 2>/dev/null || true
  echo "sarif=$INPUT_SARIF" >>"${GITHUB_OUTPUT:-/dev/null}"
fi
kubectl-mesh_lifecycle lint --format github --fail-on "${INPUT_FAIL_ON:-error}" \
  ${flags[@]+"${flags[@]}"} -- "${paths[@]}" || status=$?
exit "$status"
