#!/usr/bin/env bash
# Streamable HTTP checks against the real server on loopback:
# - the official MCP conformance suite (@modelcontextprotocol/conformance, pinned), where every
#   scenario that applies to a tools-only server must pass and the others are listed, one reason
#   each, in tools/http-conformance/expected-failures.yml;
# - the official TypeScript SDK's Streamable HTTP client (connect, list, call, terminate), without
#   and with a bearer token.
# Installs Node 22 (the npm `node` package) and the pinned packages into the git-ignored
# tools/http-conformance/node_modules. Uses `botmesh-mcp --http` once the binary has the flag,
# else the crate's `serve` example (same flags).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
dir="$root/tools/http-conformance"

build_release
if "$bin" --help 2>&1 | grep -q -- '--http'; then
  server=("$bin")
else
  cargo build --release --locked -q -p botmesh-mcp-http --example serve
  server=("$target/release/examples/serve")
fi

(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
export PATH="$dir/node_modules/.bin:$PATH"
node --version | grep -q '^v22\.' || { echo "http: expected Node 22 from the npm node package, got $(node --version)" >&2; exit 1; }

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT


# start NAME ARGS...: starts the server in the background, waits until it answers, sets $url.
start() {
  local name="$1"; shift
  local port; port="$(free_port)"
  "${server[@]}" --http "127.0.0.1:$port" "$@" 2>"$work/$name.log" &
  pids+=("$!")
  url="http://localhost:$port/mcp"
  for _ in $(seq 1 100); do
    if curl -s -o /dev/null "http://127.0.0.1:$port/mcp"; then return 0; fi
    sleep 0.1
  done
  echo "http: the $name server did not start" >&2; cat "$work/$name.log" >&2; exit 1
}

# 1. The conformance suite (no rate limit: the suite sends many requests from one address).
start conformance --rate-limit 0
if ! conformance server --url "$url" --expected-failures "$dir/expected-failures.yml" >"$work/conformance.out" 2>&1; then
  cat "$work/conformance.out" >&2
  echo "http: conformance suite failed (server log follows)" >&2; tail -50 "$work/conformance.log" >&2
  exit 1
fi
for required in server-initialize ping tools-list server-sse-multiple-streams dns-rebinding-protection; do
  grep -q "✓ $required:" "$work/conformance.out" || { cat "$work/conformance.out" >&2; echo "http: $required did not pass" >&2; exit 1; }
done
passed=$(grep -c '^✓' "$work/conformance.out" || true)
expected=$(grep -c '^  - ' "$dir/expected-failures.yml" || true)
echo "http conformance: $passed scenarios passed, $expected expected failures (tools-only server)"

# 2. The TypeScript SDK client, without a token.
node "$dir/sdk-client.mjs" "$url"

# 3. With a bearer token: 401 without it, the SDK client with it, audit lines without the secret.
tokens="$work/tokens.jsonl"
token="$("${server[@]}" token new --scopes flow,docs --tokens "$tokens")"
start tokens --tokens "$tokens"
status=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"ping"}' "$url")
[ "$status" = 401 ] || { echo "http: expected 401 without a token, got $status" >&2; exit 1; }
node "$dir/sdk-client.mjs" "$url" "$token"
grep -q 'tool="flow_digest"' "$work/tokens.log" || { echo "http: no audit line" >&2; cat "$work/tokens.log" >&2; exit 1; }
if grep -q -- "${token#*.}" "$work/tokens.log"; then echo "http: the token reached the log" >&2; exit 1; fi
echo "http: token checks passed (401 without, SDK client with, audit lines carry the token id only)"
