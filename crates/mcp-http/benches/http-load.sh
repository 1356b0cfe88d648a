#!/usr/bin/env bash
# Load run on loopback: `tools/call flow_digest` on a small document through one session, with
# 1, 16 and 64 connections, using wrk (Debian package `wrk`). Reports requests/s, p99 latency and
# the server's RSS before and after. Bounded: DURATION seconds per run (default 10), loopback only.
# Usage: [DURATION=10] [ROUNDS=1] bash crates/mcp-http/benches/http-load.sh [BINARY]
# (default BINARY: the release botmesh-mcp under $CARGO_TARGET_DIR or target/)
set -euo pipefail
cd "$(dirname "$0")/../../.."
target="${CARGO_TARGET_DIR:-target}"
bin="${1:-$target/release/botmesh-mcp}"
duration="${DURATION:-10}"
command -v wrk >/dev/null || { echo "install wrk first: apt-get install -y wrk" >&2; exit 1; }
[ -x "$bin" ] || cargo build --release --locked -q -p botmesh-mcp-cli

port="${PORT:-39517}"
"$bin" --http "127.0.0.1:$port" --rate-limit 0 2>/tmp/botmesh-http-load.log &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT
url="http://127.0.0.1:$port/mcp"
for _ in $(seq 1 100); do curl -s -o /dev/null "$url" && break; sleep 0.1; done

headers=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"load","version":"1"}}}'
session=$(curl -s -D - -o /dev/null "${headers[@]}" -d "$init" "$url" | tr -d '\r' | awk 'tolower($1)=="mcp-session-id:"{print $2}')
[ -n "$session" ] || { echo "no session id" >&2; exit 1; }
curl -s -o /dev/null "${headers[@]}" -H "Mcp-Session-Id: $session" -H 'MCP-Protocol-Version: 2025-11-25' \
  -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$url"

# A small document: a flow with one message step.
body='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flow_digest","arguments":{"document":{"version":2,"id":"greet","title":"Greeting","steps":[{"id":"hello","type":"message","text":"Hello {{name}}"}]}}}}'
check=$(curl -s "${headers[@]}" -H "Mcp-Session-Id: $session" -H 'MCP-Protocol-Version: 2025-11-25' -d "$body" "$url")
echo "$check" | grep -q '"digest"' || { echo "unexpected answer: $check" >&2; exit 1; }

script=$(mktemp --suffix=.lua)
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -f "$script"' EXIT
cat >"$script" <<LUA
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["Mcp-Session-Id"] = "$session"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
done = function(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("RESULT requests=%d rps=%.0f p50_ms=%.3f p99_ms=%.3f errors=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000, errors))
end
LUA

rss() { awk '/VmRSS/{print $2" kB"}' "/proc/$pid/status"; }
# The server's CPU time (user + system) in clock ticks: a figure that other load on the machine
# does not inflate the way it inflates latency percentiles.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "server RSS before: $(rss)"
# ROUNDS=2 repeats the three runs, to show whether RSS stays flat once warmed up.
for c in $(for _ in $(seq 1 "${ROUNDS:-1}"); do echo 1 16 64; done); do
  threads=$(( c < 2 ? 1 : 2 ))
  before=$(cpu_ticks)
  line=$(wrk -t "$threads" -c "$c" -d "${duration}s" --latency -s "$script" "$url" | grep '^RESULT')
  after=$(cpu_ticks)
  requests=$(echo "$line" | sed 's/.*requests=\([0-9]*\).*/\1/')
  cpu_us=$(( (after - before) * 1000000 / hz / (requests > 0 ? requests : 1) ))
  echo "connections=$c ${line#RESULT } server_cpu_us_per_call=$cpu_us rss=$(rss)"
done
echo "server RSS after: $(rss)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
