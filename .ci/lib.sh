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
#   takes it next is started at once).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
bin="$target/release/botmesh-mcp"

build_release() { cargo build --release --locked -q -p botmesh-mcp-cli "$@"; }

free_port() {
  python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'
}
