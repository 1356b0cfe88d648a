#!/usr/bin/env bash
# npm distribution check: `cargo xtask npm` assembles the packages, `npm pack` packs the main
# package and this machine's platform package, both are installed from the tarballs into a
# temporary project with the registry pointed at a closed port (nothing may be fetched), then:
# `npx -y @botmesh/mcp --version`, a real MCP session through npx with the official TypeScript
# SDK client, the launcher's behaviour tests (node --test: same bytes, exit status and signals
# as the bare binary; the message when no platform package fits) and the launcher's start-up
# overhead (reported, not asserted: speed is measured, never a test).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

version=$(node -p 'require("./npm/mcp/package.json").version')
platform=$(node -p 'process.platform + "-" + process.arch')

bash tools/clients/setup.sh
# The binary the platform package ships (a static musl executable on Linux; it
# prints its path on stdout, its size on stderr), then the packages around it.
bin=$(CARGO_TERM_QUIET=true cargo xtask dist --locked)
CARGO_TERM_QUIET=true cargo xtask npm --locked --no-build >/dev/null
# Its resident memory after `initialize` (reported, not asserted: memory is measured by the
# stdio bench, never a test). Linux only (/proc).
if [ -r /proc/self/status ]; then
  python3 - "$bin" <<'PY'
import subprocess, sys
server = subprocess.Popen([sys.argv[1]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
server.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}\n')
server.stdin.flush()
server.stdout.readline()
with open(f"/proc/{server.pid}/status") as status:
    rss = next((line.split()[1] for line in status if line.startswith("VmRSS:")), None)
server.stdin.close()
server.wait()
if rss is None:
    print("shipped binary: exited before its memory could be read")
else:
    print(f"shipped binary: RSS after initialize {int(rss) / 1024:.2f} MiB")
PY
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
npm pack --silent --pack-destination "$work" "$target/npm/mcp" "$target/npm/mcp-$platform" >/dev/null
mkdir "$work/project"
printf '{ "name": "botmesh-npm-check", "private": true }\n' >"$work/project/package.json"

export npm_config_registry=http://127.0.0.1:9 npm_config_update_notifier=false
(
  cd "$work/project"
  npm install --offline --no-audit --no-fund --loglevel=error \
    "$work/botmesh-mcp-$version.tgz" "$work/botmesh-mcp-$platform-$version.tgz" >/dev/null
  got=$(npx -y @botmesh/mcp --version)
  if [ "$got" != "botmesh-mcp $version" ]; then
    echo "npx -y @botmesh/mcp --version printed '$got', expected 'botmesh-mcp $version'" >&2
    exit 1
  fi
  echo "npx -y @botmesh/mcp --version: $got (installed offline from the packed tarballs)"
  node "$root/tools/clients/ts-client.mjs" --label "ts-sdk via npx -y @botmesh/mcp" -- npx -y @botmesh/mcp
)

if ! LAUNCHER_PROJECT="$work/project" BARE_BINARY="$bin" \
  node --test --test-reporter=tap "$root/tools/clients/launcher.test.mjs" >"$work/launcher.tap" 2>&1; then
  cat "$work/launcher.tap" >&2
  exit 1
fi
passed=$(sed -n 's/^# pass //p' "$work/launcher.tap")
failed=$(sed -n 's/^# fail //p' "$work/launcher.tap")
echo "launcher: $passed passed, $failed failed"
node tools/clients/launcher-bench.mjs --binary "$bin" --project "$work/project" --runs 20
