#!/usr/bin/env bash
# Every platform we publish, built here and proven wherever it can run here:
# - `cargo xtask npm --all-platforms` cross-builds the six binaries (tools/cross/install.sh
#   installs zig, cargo-zigbuild, mingw, qemu-user and Wine) and assembles the seven packages;
#   `cargo xtask dist` refuses any binary whose structure is wrong (`cargo xtask inspect` prints
#   the same facts again below: format, architecture, static on Linux, system DLLs only on
#   Windows, minimum macOS, system libraries and a valid code signature on macOS);
# - linux-arm64 under qemu-aarch64: a real MCP session with the official TypeScript SDK client,
#   and `botmesh-mcp check` on the example flows;
# - win32-x64 under Wine: the SDK session, then docs_search/docs_page with every Windows path
#   form, CRLF input and a closed stdin (tools/clients/windows-check.mjs). Debian's Wine 8 lacks
#   bcryptprimitives.dll, which Rust's standard library imports: a test-only shim built from
#   tools/wine-shim/ sits next to a copy of the .exe, never in the package;
# - npm: all seven packages pack, and npm picks the right one for each os/cpu/libc, Alpine
#   (musl) included, from a registry on loopback (tools/clients/npm-platforms.mjs).
# macOS and Windows arm64 cannot run here: they are proven structurally, and by the release
# workflow's native runners.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

bash tools/cross/install.sh --run
bash tools/clients/setup.sh
CARGO_TERM_QUIET=true cargo xtask npm --locked --all-platforms >/dev/null

npm_dir="$target/npm"
for platform in linux-x64 linux-arm64 win32-x64 win32-arm64 darwin-arm64 darwin-x64; do
  exe=botmesh-mcp
  case "$platform" in win32-*) exe=botmesh-mcp.exe ;; esac
  CARGO_TERM_QUIET=true cargo xtask inspect "$platform" "$npm_dir/mcp-$platform/bin/$exe" |
    sed "s|^$npm_dir/||"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# linux-arm64 under qemu.
arm="$npm_dir/mcp-linux-arm64/bin/botmesh-mcp"
node tools/clients/ts-client.mjs --label "ts-sdk, linux-arm64 under qemu-aarch64" --timeout 60 -- qemu-aarch64 "$arm"
if ! qemu-aarch64 "$arm" check --subflows examples/flows examples/flows/*.json >"$work/check.txt" 2>&1; then
  cat "$work/check.txt" >&2
  exit 1
fi
echo "linux-arm64 under qemu-aarch64: botmesh-mcp check passed on $(ls examples/flows/*.json | wc -l) example flows"

# win32-x64 under Wine, from a folder holding a copy of the .exe and the test-only shim.
wine=$(dpkg -L wine64 | grep -m1 '/wine64$')
mkdir -p "$work/win" "$work/outside"
cp "$npm_dir/mcp-win32-x64/bin/botmesh-mcp.exe" "$work/win/"
x86_64-w64-mingw32-gcc -O2 -shared -o "$work/win/bcryptprimitives.dll" \
  tools/wine-shim/bcryptprimitives.c tools/wine-shim/bcryptprimitives.def
export WINEPREFIX="$work/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
"$wine" "$work/win/botmesh-mcp.exe" --version >/dev/null 2>&1 # creates the Wine prefix once
node tools/clients/ts-client.mjs --label "ts-sdk, win32-x64 under Wine" --timeout 120 -- "$wine" "$work/win/botmesh-mcp.exe"
# The guides, plus a symlink leaving the root and an excluded folder in another case.
cp -r docs "$work/docs"
printf '# Secret\n\noutsidesecret\n' >"$work/outside/escape.md"
ln -s "$work/outside" "$work/docs/outside"
mkdir -p "$work/docs/API"
printf '# Hidden\n\nhiddenupper\n' >"$work/docs/API/x.md"
windows_docs="Z:$(printf '%s' "$work/docs" | tr '/' '\\')"
node tools/clients/windows-check.mjs --docs "$windows_docs" --root "$work/docs" --timeout 180 -- "$wine" "$work/win/botmesh-mcp.exe"

# npm: pack all seven, then let npm choose for every platform.
mkdir "$work/tarballs"
for dir in "$npm_dir"/*/; do
  npm pack --silent --pack-destination "$work/tarballs" "$dir" >/dev/null
done
echo "npm: packed $(ls "$work/tarballs" | wc -l) packages: $(cd "$work/tarballs" && ls | tr '\n' ' ')"
node tools/clients/npm-platforms.mjs "$work/tarballs" "$npm_dir"
