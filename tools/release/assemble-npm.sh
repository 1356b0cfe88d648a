#!/usr/bin/env bash
# Assembles the seven npm packages in target/npm/ from the six binaries the build jobs of
# release.yml uploaded: ARTIFACTS/binary-<platform>/ holds one binary (botmesh-mcp or
# botmesh-mcp.exe) and `target-path`, where `cargo xtask dist` had left it under target/.
# Each binary goes back to that place, then `cargo xtask npm --no-build` packages them.
#
# usage: tools/release/assemble-npm.sh ARTIFACTS
set -euo pipefail
cd "$(dirname "$0")/../.."

artifacts="${1:?usage: assemble-npm.sh ARTIFACTS}"
binaries=()
for dir in "$artifacts"/binary-*/; do
  dir=${dir%/}
  platform=${dir##*/binary-}
  rel=$(tr -d '\r\n' <"$dir/target-path")
  case "$rel" in "" | /* | *..*) echo "assemble-npm: bad target path '$rel' for $platform" >&2; exit 1 ;; esac
  mkdir -p "target/$(dirname "$rel")"
  cp "$dir/$(basename "$rel")" "target/$rel"
  chmod +x "target/$rel"
  binaries+=(--binary "$platform=target/$rel")
  echo "$platform: target/$rel"
done
[ "${#binaries[@]}" = 12 ] || { echo "assemble-npm: expected 6 binaries in $artifacts, found $((${#binaries[@]} / 2))" >&2; exit 1; }
cargo xtask npm --locked --no-build "${binaries[@]}"
