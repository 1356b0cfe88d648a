#!/usr/bin/env bash
# The release smoke test of one built binary, on the machine it is built for (each native
# runner of .github/workflows/release.yml, or here for linux-x64):
# - `--version` prints the version the npm packages carry;
# - a real MCP session with the official TypeScript SDK client (tools/clients/ts-client.mjs:
#   initialize, tools/list, flow_validate);
# - `check` on the example flows;
# - what each platform needs of the file itself: on Linux a static executable (so it runs on
#   musl systems such as Alpine too: checked in an Alpine container when Docker is there); on
#   macOS the deployment target (`minos`, or `version` of LC_VERSION_MIN_MACOSX) no higher than
#   Rust's default for the target (11.0 on arm64, 10.12 on x86-64) and a valid code signature (the kernel kills an unsigned arm64
#   binary).
#
# usage: tools/release/smoke.sh PLATFORM BINARY     (PLATFORM: linux-x64, darwin-arm64, ...)
set -euo pipefail
cd "$(dirname "$0")/../.."

platform="${1:?usage: smoke.sh PLATFORM BINARY}"
bin="${2:?usage: smoke.sh PLATFORM BINARY}"
fail() { echo "smoke ($platform): $*" >&2; exit 1; }
[ -f "$bin" ] || fail "no binary at $bin"
version=$(node -p 'require("./npm/mcp/package.json").version')

got=$("$bin" --version | tr -d '\r')
[ "$got" = "botmesh-mcp $version" ] || fail "--version printed '$got', expected 'botmesh-mcp $version'"
echo "smoke ($platform): $got"

(cd tools/clients && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
# 60 s: a new executable's first start can be slow on Windows (the antivirus scans it).
node tools/clients/ts-client.mjs --label "ts-sdk ($platform)" --timeout 60 -- "$bin"
"$bin" check --subflows examples/flows examples/flows/*.json >/dev/null
echo "smoke ($platform): check on examples/flows passed"

case "$platform" in
  linux-*)
    described=$(file -b "$bin")
    case "$described" in
      *static-pie\ linked* | *statically\ linked*) echo "smoke ($platform): $described" ;;
      *) fail "not a static executable: $described" ;;
    esac
    if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
      dir=$(cd "$(dirname "$bin")" && pwd)
      alpine=$(docker run --rm -v "$dir:/release:ro" alpine:3 "/release/$(basename "$bin")" --version)
      [ "$alpine" = "botmesh-mcp $version" ] || fail "on Alpine, --version printed '$alpine'"
      echo "smoke ($platform): runs on Alpine (musl): $alpine"
    fi
    ;;
  darwin-*)
    case "$platform" in darwin-arm64) most=11.0 ;; *) most=10.12 ;; esac
    # LC_BUILD_VERSION's `minos`, or for targets older than 10.14 LC_VERSION_MIN_MACOSX's `version`.
    minos=$(otool -l "$bin" | awk '$1 == "cmd" { cmd = $2 }
      (cmd == "LC_BUILD_VERSION" && $1 == "minos") || (cmd == "LC_VERSION_MIN_MACOSX" && $1 == "version") { print $2; exit }')
    [ -n "$minos" ] || fail "no minimum macOS version (LC_BUILD_VERSION or LC_VERSION_MIN_MACOSX) in $bin"
    awk -v a="$minos" -v b="$most" 'BEGIN { split(a, x, "."); split(b, y, ".");
      exit !(x[1] + 0 < y[1] + 0 || (x[1] + 0 == y[1] + 0 && x[2] + 0 <= y[2] + 0)) }' ||
      fail "minos $minos: it would not start on macOS $most"
    codesign --verify --verbose "$bin" 2>&1 || [ "$platform" = darwin-x64 ] ||
      fail "the arm64 binary has no valid code signature"
    echo "smoke ($platform): minos $minos (at most $most), signature checked"
    ;;
esac
