#!/usr/bin/env bash
# Docs search on documentation we did not write (issue 17): the shared FastAPI set (English and
# Spanish, 90 known-item queries, decoys in excluded folders) from `../shared/eval/docs-search`
# beside the clone, run against the release binary over MCP stdio by `cargo xtask docs-eval`.
# Prints the harness's tables (all queries, odd and even halves, BM25 baseline); fails below the
# floors in xtask/src/docs_eval.rs. Needs only python3 (the harness is stdlib).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

command -v python3 >/dev/null || { echo "docs-eval.sh: python3 is not installed" >&2; exit 1; }
eval_dir="${BOTMESH_DOCS_EVAL:-../shared/eval/docs-search}"
[ -f "$eval_dir/eval.py" ] || { echo "docs-eval.sh: no harness at $eval_dir/eval.py" >&2; exit 1; }

build_release
cargo xtask docs-eval --eval "$eval_dir" --binary "$bin" --check
