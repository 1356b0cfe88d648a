#!/usr/bin/env bash
# flow-render: the pictures in docs/images are fresh (the SVG bytes are the same on every
# platform), and the shipped binary, renderer and embedded font included, stays within 5 MiB.
set -euo pipefail
cd "$(dirname "$0")/../.."

cargo xtask picture --check

binary=target/release/botmesh-mcp
[ -x "$binary" ] || cargo build --release --locked -p botmesh-mcp-cli
size=$(wc -c <"$binary")
limit=$((5 * 1024 * 1024))
echo "release binary: $size bytes (limit $limit)"
if [ "$size" -gt "$limit" ]; then
  echo "the release binary is larger than 5 MiB" >&2
  exit 1
fi
