#!/usr/bin/env bash
# Real-client checks against the release binary, over stdio:
# - the official TypeScript SDK client (initialize, tools/list, flow_validate, flow_render,
#   flow_simulate, flow_test with loose and strict cases (one failing on an extra message) and
#   with generate: true, flow_simulate with asTest whose case flow_test passes (and fails on a
#   changed flow), flow_schema form flowtest; must get 2025-11-25),
# - the official Python SDK client in its default auto mode (server/discover first, initialize on
#   an error; lists tools and calls every flow tool with result-shape validation on; asserts the
#   negotiated revision),
# - the MCP Inspector CLI (tools/list and one tools/call),
# - a quick stdlib Python client that splits stdout with str.splitlines() (U+2028 and friends
#   must arrive escaped).
# Installs into git-ignored folders (tools/clients/node_modules, tools/clients/.venv); builds
# nothing unless the release binary is missing. Quiet on success apart from one line per client.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

# The revision each client must settle on: the TypeScript SDK 1.x only knows initialize; the
# Python SDK 2.x probes server/discover first and must settle on 2026-07-28 (a silent fall-back
# to initialize passes every other check and must fail this one).
TS_EXPECT=2025-11-25
PY_EXPECT=2026-07-28

build_release

bash tools/clients/setup.sh
node tools/clients/ts-client.mjs --expect "$TS_EXPECT" -- "$bin"
tools/clients/.venv/bin/python tools/clients/py_client.py --expect "$PY_EXPECT" -- "$bin"
# The same SDK forced onto the handshake era gets the newest legacy revision on the same binary.
tools/clients/.venv/bin/python tools/clients/py_client.py --mode legacy --expect 2025-11-25 -- "$bin"
node tools/clients/inspector-check.mjs -- "$bin"
python3 tools/clients/splitlines_client.py -- "$bin"

# The example flows shipped for editors validate and lint clean as a set.
"$bin" check --subflows examples/flows examples/flows/*.json
