#!/usr/bin/env bash
# Mermaid parser check (issue 4): renders the corpus (every flow-analyzer golden fixture in all
# four directions plus generated documents with hostile labels and ids) and parses each diagram
# with the official `mermaid` package (12.x and 11.x, pinned by tools/mermaid-check's lockfile),
# headless in Node with jsdom. Prints how many diagrams parsed; fails on any parse error.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

command -v node >/dev/null || { echo "mermaid.sh: node is not installed" >&2; exit 1; }
command -v npm >/dev/null || { echo "mermaid.sh: npm is not installed" >&2; exit 1; }

(cd tools/mermaid-check && npm ci --no-audit --no-fund --loglevel=error)

corpus="$(mktemp -d)"
trap 'rm -rf "$corpus"' EXIT
cargo run --locked --quiet -p botmesh-flow-analyzer --example mermaid_corpus -- "$corpus" 400
node tools/mermaid-check/check.mjs "$corpus"
