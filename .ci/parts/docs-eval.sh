#!/usr/bin/env bash
# Docs search on documentation we did not write (issues 17, 29 and 40): the three sets vendored
# in eval/ (FastAPI, React and Slidev docs, English and Spanish, 90 known-item queries each,
# decoys in excluded folders), run against the release binary over MCP stdio by
# `cargo xtask docs-eval`. Prints each set's tables (ours and the harness's BM25 baseline: all
# queries, the English and Spanish halves, the odd and even halves; overall, natural-language
# and ref-section questions); fails below the floors in xtask/src/docs_eval.rs, or below BM25's
# MRR@10 in a group of the English or Spanish half. Needs only python3 (the harnesses are
# stdlib); the Slidev set adds about a second.
#
# It runs from a copy of the repository's files (tracked and not ignored) in an empty temporary
# folder, so nothing beside the checkout (no ../shared) can be read: the eval needs only the clone.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

command -v python3 >/dev/null || { echo "docs-eval.sh: python3 is not installed" >&2; exit 1; }

build_release

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/clone"
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -xf - -C "$work/clone"
[ ! -e "$work/shared" ] || { echo "docs-eval.sh: $work/shared exists" >&2; exit 1; }

cd "$work/clone"
# xtask is built in the copy, into a target folder of its own: xtask finds the project through
# the path it was compiled at, so the checkout's xtask would read the checkout's eval/. Only the
# server binary comes from the checkout's build (the same sources).
CARGO_TARGET_DIR="$work/target" cargo xtask docs-eval --binary "$bin" --check |
    tee "$work/eval.log"
# Every set was read from the copy.
sets="$(grep -c '^## [a-z]* (' "$work/eval.log" || true)"
from_copy="$(grep -c "^## [a-z]* ($work/clone/eval/" "$work/eval.log" || true)"
[ "$sets" -ge 3 ] && [ "$sets" = "$from_copy" ] ||
    { echo "docs-eval.sh: $from_copy of $sets sets were read from the copy" >&2; exit 1; }
echo "docs-eval: $sets sets read from a copy of the repository with nothing beside it"
