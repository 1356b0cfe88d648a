# The preamble every .ci/parts/*.sh shares, sourced right after `set -euo pipefail`:
#   source "$(dirname "$0")/../lib.sh"
# Moves to the repository root and sets:
# - root: the repository root (absolute);
# - target: cargo's target dir (CARGO_TARGET_DIR, else target/), made absolute;
# - bin: the release binary in it, built by build_release;
# and defines:
# - build_release [FLAGS]: builds the release binary (cargo does nothing when it is fresh, and
#   a part run alone must never test a stale one), quietly unless FLAGS say otherwise;
# - free_port: prints a free loopback TCP port (bound and released by python3; the server that
#   takes it next is started at once);
# - need_chromium: installs Debian's chromium and fonts-dejavu-core (the only fonts the SVG check
#   lets one Chromium see; our SVGs carry their own fonts) with apt-get when either is missing, and prints chromium's version (playwright-core drives
#   /usr/bin/chromium and downloads no browser).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
bin="$target/release/botmesh-mcp"

build_release() { cargo build --release --locked -q -p botmesh-mcp-cli "$@"; }

need_chromium() {
  local sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  if [ ! -x /usr/bin/chromium ] || ! dpkg -s fonts-dejavu-core >/dev/null 2>&1; then
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
      chromium fonts-dejavu-core >/dev/null
  fi
  /usr/bin/chromium --version 2>/dev/null
}

free_port() {
  python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'
}
