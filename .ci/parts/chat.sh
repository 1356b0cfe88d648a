#!/usr/bin/env bash
# botmesh-mcp chat on a real terminal: a pseudo-terminal (Python's pty module) types replies,
# numbers and commands, and checks the bubbles, the numbered items, colour and NO_COLOR, then
# /save and --save-test (the saved cases pass `botmesh-mcp test`). The piped side is tested by
# `cargo test` (crates/mcp-bin/tests/it/chat.rs).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

build_release
python3 tools/chat-pty/chat_pty.py "$bin" examples/flows/support-menu.json
