#!/usr/bin/env bash
# Operating `botmesh-mcp --http`, against the real binary on loopback:
# - /healthz and /readyz without a token; /metrics on the --metrics listener, parsed with the
#   Python prometheus_client text parser (pinned, installed into a throw-away venv), and the
#   request, latency, rate-limit and budget counters checked to move;
# - --audit: one JSON line per call, no arguments; SIGHUP revokes a removed token and reopens the
#   audit file; SIGTERM exits 0 with every line written; --log-format json gives JSON lines.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
build_release

work="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "http-ops: $*" >&2; [ -f "$work/server.log" ] && tail -20 "$work/server.log" >&2; exit 1; }

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check prometheus_client==0.21.1
py="$work/venv/bin/python"

port="$(free_port)"
mport="$(free_port)"
url="http://127.0.0.1:$port/mcp"
keep="$("$bin" token new --scopes flow,docs --tokens "$work/tokens.jsonl" 2>/dev/null)"
cp "$work/tokens.jsonl" "$work/tokens.keep"
revoke="$("$bin" token new --scopes flow --tokens "$work/tokens.jsonl" 2>/dev/null)"

"$bin" --http "127.0.0.1:$port" --metrics "127.0.0.1:$mport" --tokens "$work/tokens.jsonl" \
  --audit "$work/audit.jsonl" --rate-limit 30 --max-inflight-body 1M --log-format json \
  2>"$work/server.log" &
pid=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$mport/healthz" && break; sleep 0.1; done

[ "$(curl -s "http://127.0.0.1:$port/healthz")" = ok ] || fail "/healthz"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ] || fail "/readyz"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")" = 401 ] || fail "/metrics without a token"
curl -s "http://127.0.0.1:$mport/metrics" >"$work/before.prom"

hdr=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
mcp() { # mcp TOKEN BODY [SESSION] -> status code; body in $work/out
  local extra=()
  [ -n "${3:-}" ] && extra=(-H "Mcp-Session-Id: $3" -H 'MCP-Protocol-Version: 2025-11-25')
  curl -s -o "$work/out" -D "$work/head" -w '%{http_code}' "${hdr[@]}" "${extra[@]}" \
    -H "Authorization: Bearer $1" -d "$2" "$url"
}
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}'
[ "$(mcp "$keep" "$init")" = 200 ] || fail "initialize"
session="$(tr -d '\r' <"$work/head" | awk 'tolower($1)=="mcp-session-id:"{print $2}')"
secret_title="do-not-audit-$RANDOM"
digest='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flow_digest","arguments":{"document":{"version":2,"id":"greet","title":"'"$secret_title"'","steps":[{"id":"hello","type":"message","text":"Hi"}]}}}}'
for _ in 1 2 3; do [ "$(mcp "$keep" "$digest" "$session")" = 200 ] || fail "tools/call"; done
# A body over the 1 MiB budget: refused from its headers (413: it could never fit).
big_status=$(head -c 2000000 /dev/zero | tr '\0' ' ' | curl -s -o /dev/null -w '%{http_code}' "${hdr[@]}" \
  -H "Authorization: Bearer $keep" -H "Mcp-Session-Id: $session" --data-binary @- "$url")
[ "$big_status" = 413 ] || fail "expected 413 for a body over the budget, got $big_status"
# Past the rate limit (30 a minute, 4 used): some 429s.
limited=0
for _ in $(seq 1 40); do [ "$(mcp "$revoke" "$init")" = 429 ] && limited=$((limited + 1)); done
[ "$limited" -gt 0 ] || fail "the rate limit never answered 429"
curl -s "http://127.0.0.1:$mport/metrics" >"$work/after.prom"

"$py" - "$work/before.prom" "$work/after.prom" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families

def load(path):
    families = {f.name: f for f in text_string_to_metric_families(open(path).read())}
    values = {}
    for family in families.values():
        for s in family.samples:
            values[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return families, values

_, before = load(sys.argv[1])
families, after = load(sys.argv[2])
expected = {
    "botmesh_mcp_http_requests": "counter",
    "botmesh_mcp_http_request_duration_seconds": "histogram",
    "botmesh_mcp_http_rate_limited": "counter",
    "botmesh_mcp_http_budget_refused": "counter",
    "botmesh_mcp_http_concurrency_refused": "counter",
    "botmesh_mcp_http_bodies_in_flight": "gauge",
    "botmesh_mcp_http_body_bytes_in_flight": "gauge",
    "botmesh_mcp_http_sessions": "gauge",
    "botmesh_mcp_http_ready": "gauge",
}
for name, kind in expected.items():
    assert name in families, f"missing family {name}: {sorted(families)}"
    assert families[name].type == kind, f"{name} is {families[name].type}, expected {kind}"
def value(values, name, **labels):
    return values.get((name, tuple(sorted(labels.items()))), 0.0)
calls = dict(method="tools/call", tool="flow_digest", status="200")
assert value(after, "botmesh_mcp_http_requests_total", **calls) - value(before, "botmesh_mcp_http_requests_total", **calls) == 3, after
assert value(after, "botmesh_mcp_http_request_duration_seconds_count", method="tools/call") >= 3
assert value(after, "botmesh_mcp_http_rate_limited_total") > value(before, "botmesh_mcp_http_rate_limited_total")
assert value(after, "botmesh_mcp_http_requests_total", method="none", tool="", status="429") > 0
assert value(after, "botmesh_mcp_http_requests_total", method="none", tool="", status="413") == 1, [k for k in after if "413" in str(k)] + [after.get(k) for k in after if "413" in str(k)]
assert value(after, "botmesh_mcp_http_sessions") >= 1
assert value(after, "botmesh_mcp_http_ready") == 1
assert value(after, "botmesh_mcp_http_body_budget_bytes") == 1048576
print(f"http-ops: metrics parsed by prometheus_client: {len(families)} families, counters moved")
PY

# Audit: one line per call, the token id, never the arguments.
[ "$(grep -c '"tool":"flow_digest"' "$work/audit.jsonl")" = 3 ] || fail "expected 3 audit lines"
grep -q "\"token_id\":\"${keep%%.*}\"" "$work/audit.jsonl" || fail "audit lines lack the token id"
if grep -q -e "$secret_title" -e "${keep#*.}" "$work/audit.jsonl" "$work/server.log"; then fail "an argument or a secret reached the audit file or the log"; fi

# SIGHUP: the revoked token's line is gone from the file -> refused; the audit file is reopened.
cp "$work/tokens.keep" "$work/tokens.jsonl"
mv "$work/audit.jsonl" "$work/audit.jsonl.1"
kill -HUP "$pid"
for _ in $(seq 1 100); do [ -f "$work/audit.jsonl" ] && break; sleep 0.05; done
[ -f "$work/audit.jsonl" ] || fail "SIGHUP did not reopen the audit file"
[ "$(mcp "$revoke" "$init")" = 401 ] || fail "a removed token was still accepted after SIGHUP"
[ "$(mcp "$keep" "$digest" "$session")" = 200 ] || fail "the kept token was refused after SIGHUP"
grep -q flow_digest "$work/audit.jsonl" || fail "no audit line in the reopened file"

# SIGTERM: exit 0, readiness off during the grace period, every line written.
kill -TERM "$pid"
wait "$pid" || fail "SIGTERM did not exit 0"
pid=""
[ "$(wc -l <"$work/audit.jsonl")" = 1 ] || fail "audit lines lost at SIGTERM"
"$py" -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert lines and all({"time", "level", "target"} <= set(l) for l in lines), lines[:3]
assert any(l.get("message") == "SIGTERM received" for l in lines), lines
print(f"http-ops: {len(lines)} JSON log lines")
' "$work/server.log"
echo "http-ops: health, readiness, metrics, audit, SIGHUP revocation and SIGTERM checks passed"
