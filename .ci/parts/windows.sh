#!/usr/bin/env bash
# The whole test suite built for Windows (x86_64-pc-windows-gnu) and run under Wine, so the
# README's `cargo test` is known to work on Windows: `cargo test --workspace` with Wine as the
# target's runner (CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER), warnings denied for that target.
# Installs what it needs on a Debian machine with Rust: the rustup target, the MinGW-w64 linker
# and Wine (apt-get, skipped when present).
# Two test-only helpers, never shipped:
# - tools/wine-shim/bcryptprimitives.dll, built here with MinGW: Debian 12's Wine 8 lacks that
#   DLL, whose ProcessPrng every Rust program imports, so no test would start without it; it is
#   found through WINEPATH, nothing is copied next to the executables;
# - the workspace's `cargo metadata`, written here for xtask's tidy and release tests (XTASK_CARGO_METADATA):
#   a program under Wine can start the host's Linux cargo but cannot wait for it.
# The Wine prefix lives in the target folder (git-ignored) and is reused by the next run.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
triple=x86_64-pc-windows-gnu


sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)
if ! command -v x86_64-w64-mingw32-gcc >/dev/null || ! dpkg -s wine64 >/dev/null 2>&1; then
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    gcc-mingw-w64-x86-64 wine64 >/dev/null
fi
rustup target list --installed | grep -qx "$triple" || rustup target add "$triple" >/dev/null

# Debian's 64-bit loader is not on PATH.
wine=$(dpkg -L wine64 | grep -m1 '/wine64$' || true)
[ -x "$wine" ] || wine=$(command -v wine64 || command -v wine || true)
[ -x "$wine" ] || { echo "windows: no wine64 loader found" >&2; exit 1; }

shim="$target/wine-shim"
mkdir -p "$shim"
x86_64-w64-mingw32-gcc -shared -O2 -s -o "$shim/bcryptprimitives.dll" \
  tools/wine-shim/bcryptprimitives.c tools/wine-shim/bcryptprimitives.def -ladvapi32

cargo metadata --format-version 1 --no-deps --offline --locked >"$target/wine-metadata.json"

# Wine maps the drive Z: to /.
windows_path() { printf 'Z:%s' "${1//\//\\}"; }

export WINEPREFIX="$target/wine-prefix"
export WINEDEBUG=-all
# No Mono or Gecko: console programs need neither, and their installers would ask.
export WINEDLLOVERRIDES="mscoree,mshtml="
export WINEPATH
WINEPATH=$(windows_path "$shim")
export XTASK_CARGO_METADATA="$target/wine-metadata.json"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$wine"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS="-D warnings"

stop_wine() { "$(dirname "$wine")/wineserver" -k 2>/dev/null || true; }
trap stop_wine EXIT
"$wine" wineboot --init >/dev/null 2>&1

cargo test --workspace --locked --target "$triple" --quiet
echo "windows: cargo test --workspace passed for $triple under $("$wine" --version)"
