#!/usr/bin/env bash
# The botmesh flow gate: what the repository's GitHub Action (action.yml) runs, and what
# .ci/parts/flowtest.sh runs on examples/ with the release binary, so the two cannot drift.
#
# Reads its settings from the environment (the action passes its inputs so):
#   BOTMESH       the botmesh-mcp command to run (required)
#   FLOWS         flow files or folders to check, space- or newline-separated, globs allowed
#                 (empty: no check)
#   SUBFLOWS      subflow files or folders, passed as --subflows to check and test
#   TESTS         conversation test files or folders (empty: no test)
#   MIN_COVERAGE  test --min-coverage PERCENT (empty: coverage reported, no minimum)
#   MAX_WARNINGS  check --max-warnings N (empty: warnings pass)
#   JUNIT_FILE    where test writes its JUnit report (default botmesh-junit.xml)
# Runs `check --format github` and `test --format github` (GitHub Actions annotations on
# stdout) and `test --format junit` into JUNIT_FILE; writes junit-file=PATH to GITHUB_OUTPUT
# when it is set. Exits with the worst status of the commands: 0 all passed, 1 a finding, a
# failing case or a gate, 2 a usage error or an unreadable or malformed file.
set -uo pipefail

if [ -z "${BOTMESH:-}" ]; then
  echo "gate.sh: BOTMESH must name the botmesh-mcp command" >&2
  exit 2
fi
junit="${JUNIT_FILE:-botmesh-junit.xml}"

# Space- or newline-separated paths, with globs expanded (a pattern that matches nothing
# stays as written, so the command names it).
words() {
  local list=() word
  # shellcheck disable=SC2086  # splitting and globbing are the point
  for word in ${1:-}; do list+=("$word"); done
  [ ${#list[@]} -eq 0 ] || printf '%s\n' "${list[@]}"
}
mapfile -t flows < <(words "${FLOWS:-}")
mapfile -t tests < <(words "${TESTS:-}")
subflows=()
while IFS= read -r sub; do
  [ -n "$sub" ] && subflows+=(--subflows "$sub")
done < <(words "${SUBFLOWS:-}")

if [ ${#flows[@]} -eq 0 ] && [ ${#tests[@]} -eq 0 ]; then
  echo "gate.sh: nothing to do: give FLOWS (flows to check) or TESTS (test files to run)" >&2
  exit 2
fi

worst=0
record() { [ "$1" -gt "$worst" ] && worst="$1"; return 0; }

if [ ${#flows[@]} -gt 0 ]; then
  check=(check --format github "${subflows[@]+"${subflows[@]}"}")
  [ -n "${MAX_WARNINGS:-}" ] && check+=(--max-warnings "$MAX_WARNINGS")
  echo "::group::botmesh-mcp ${check[*]} ${flows[*]}"
  "$BOTMESH" "${check[@]}" "${flows[@]}"
  status=$?
  echo "::endgroup::"
  echo "botmesh-mcp check: exit $status"
  record "$status"
fi

if [ ${#tests[@]} -gt 0 ]; then
  test=(test "${subflows[@]+"${subflows[@]}"}")
  if [ -n "${MIN_COVERAGE:-}" ]; then
    test+=(--min-coverage "$MIN_COVERAGE")
  else
    test+=(--coverage)
  fi
  # The JUnit report first (the same run, written to a file), then the annotations.
  "$BOTMESH" "${test[@]}" --format junit "${tests[@]}" >"$junit"
  junit_status=$?
  if [ "$junit_status" = 2 ]; then
    rm -f "$junit"
  elif [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "junit-file=$junit" >>"$GITHUB_OUTPUT"
  fi
  echo "::group::botmesh-mcp ${test[*]} --format github ${tests[*]}"
  "$BOTMESH" "${test[@]}" --format github "${tests[@]}"
  status=$?
  echo "::endgroup::"
  echo "botmesh-mcp test: exit $status"
  record "$status"
fi

exit "$worst"
