#!/usr/bin/env bash
# botmesh-mcp chat on a real terminal: a pseudo-terminal (Python's pty module) types replies,
# numbers and commands, and checks the bubbles, the numbered items, colour and NO_COLOR. The
# piped side is tested by `cargo test` (crates/mcp-bin/tests/it/chat.rs).
set -euo pipefail
cd "$(dirname "$0")/../.."

target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
# Always build: cargo does nothing when the binary is fresh, and a part run alone must not test a stale one.
cargo build --release --locked -q -p botmesh-mcp-cli
python3 tools/chat-pty/chat_pty.py "$target/release/botmesh-mcp" examples/flows/support-menu.json
