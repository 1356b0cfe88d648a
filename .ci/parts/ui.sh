#!/usr/bin/env bash
# The MCP Apps view (issue 39): the committed bundle crates/mcp-server/ui/flow-view.html is
# exactly what its sources in tools/ui build (`cargo xtask ui --check`: npm ci from the lock
# file, esbuild), and the view works in a real browser against the official host side: the
# release binary through the official TypeScript SDK client (declaring io.modelcontextprotocol/ui,
# in an initialize session and in 2026-07-28 requests), the view hosted by the SDK's AppBridge in
# Debian's headless Chromium under the extension's default Content Security Policy
# (tools/ui/check.mjs: the picture and its step boxes, the phone's transcript, one flow_simulate
# call per tap and the next message, the path following, a typed reply, a refused call, the dark
# theme, a hostile document that runs nothing, no network request).
# Installs Debian's chromium and fonts-liberation2 with apt-get when missing (need_chromium,
# .ci/lib.sh); playwright-core drives /usr/bin/chromium and downloads no browser.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

command -v node >/dev/null || { echo "ui.sh: node is not installed" >&2; exit 1; }
need_chromium

# Built here (a no-op when fresh), so the check never runs a stale binary.
build_release
cargo xtask ui --check
node tools/ui/check.mjs --binary "$bin"
