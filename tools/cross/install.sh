#!/usr/bin/env bash
# Installs what `cargo xtask dist --target TRIPLE` and `cargo xtask npm --all-platforms` need on
# a Debian or Ubuntu x86-64 machine with Rust (rustup), Python and pip, from the package
# registries only: the Rust targets of the six npm platforms (rustup), zig and cargo-zigbuild
# (PyPI; zig links the macOS and Windows arm64 targets), and Debian's cross gcc with its static
# glibc for Linux arm64 and mingw-w64 linker for Windows x86-64.
# With --run it also installs what runs the foreign binaries here: qemu-user (Linux arm64) and
# Wine (Windows x86-64). Safe to run again; prints where things are.
set -euo pipefail

run=false
for arg in "$@"; do
  case "$arg" in
    --run) run=true ;;
    *) echo "usage: tools/cross/install.sh [--run]" >&2; exit 2 ;;
  esac
done

rustup target add --toolchain "$(rustup show active-toolchain | cut -d' ' -f1)" \
  x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu \
  x86_64-pc-windows-gnu aarch64-pc-windows-gnullvm \
  aarch64-apple-darwin x86_64-apple-darwin >/dev/null

# Pinned: the versions the structural checks were proven with.
python3 -m pip install --quiet --disable-pip-version-check \
  'ziglang==0.17.1' 'cargo-zigbuild==0.24.1'

packages=(gcc-mingw-w64-x86-64 gcc-aarch64-linux-gnu libc6-dev-arm64-cross libc6-dev)
if $run; then packages+=(qemu-user wine64); fi
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "cross toolchain: zig $(python3 -m ziglang version), $(cargo-zigbuild --version 2>/dev/null || echo cargo-zigbuild), $(x86_64-w64-mingw32-gcc --version | head -1)"
