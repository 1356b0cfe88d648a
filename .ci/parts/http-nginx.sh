#!/usr/bin/env bash
# Two `botmesh-mcp --http` instances behind Debian's nginx, on loopback, with the configuration
# documented in docs/guide/hosting.md (round robin, retry on the other instance):
# - a legacy session opened through nginx is served by both instances (shared session secret);
# - during a 10 s load, one instance is killed (SIGKILL): no call is lost.
# Installs nginx with apt-get when it is missing. Prints the figures.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
build_release

nginx_bin="$(command -v nginx || true)"
[ -n "$nginx_bin" ] || [ ! -x /usr/sbin/nginx ] || nginx_bin=/usr/sbin/nginx
if [ -z "$nginx_bin" ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nginx-light >/dev/null
  nginx_bin=/usr/sbin/nginx
fi

work="$(mktemp -d)"
chmod 755 "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "http-nginx: $*" >&2; for f in "$work"/*.log; do echo "--- $f" >&2; tail -5 "$f" >&2; done; exit 1; }

head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/session.secret"
token="$("$bin" token new --scopes flow,docs --tokens "$work/tokens.jsonl" 2>/dev/null)"
ports=()
for name in a b; do
  port="$(free_port)"
  ports+=("$port")
  "$bin" --http "127.0.0.1:$port" --tokens "$work/tokens.jsonl" --session-secret-file "$work/session.secret" \
    --rate-limit 0 --audit "$work/audit-$name.jsonl" 2>"$work/$name.log" &
  pids+=("$!")
done
pid_b="${pids[1]}"
front="$(free_port)"
mkdir -p "$work/nginx"
cat >"$work/nginx.conf" <<CONF
user $(id -un);
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    upstream botmesh {
        server 127.0.0.1:${ports[0]} max_fails=1 fail_timeout=5s;
        server 127.0.0.1:${ports[1]} max_fails=1 fail_timeout=5s;
        keepalive 32;
    }
    server {
        listen 127.0.0.1:$front;
        client_max_body_size 16m;
        location / {
            proxy_pass http://botmesh;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            proxy_next_upstream error timeout http_502 http_503 non_idempotent;
            proxy_next_upstream_tries 2;
            proxy_connect_timeout 2s;
            proxy_read_timeout 60s;
        }
    }
}
CONF
"$nginx_bin" -t -c "$work/nginx.conf" -p "$work/nginx" >/dev/null 2>&1 || { "$nginx_bin" -t -c "$work/nginx.conf" -p "$work/nginx"; fail "bad nginx configuration"; }
"$nginx_bin" -c "$work/nginx.conf" -p "$work/nginx" -g 'daemon off;' &
pids+=("$!")
for p in "${ports[@]}" "$front"; do
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$p/healthz" && break; sleep 0.1; done
done

python3 - "$front" "$token" "$pid_b" "$work" <<'PY' || fail "the session or failover check failed"
import http.client, json, os, signal, sys, threading, time

port, token, pid_b, work = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {token}"}

def post(conn, body, headers):
    conn.request("POST", "/mcp", body=json.dumps(body), headers=headers)
    response = conn.getresponse()
    return response.status, response.getheader("Mcp-Session-Id"), response.read()

conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
status, session, _ = post(conn, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "ci", "version": "1"}}}, base)
assert status == 200 and session, status
headers = dict(base, **{"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"})
status, _, _ = post(conn, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
assert status == 202, status
call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "flow_digest", "arguments": {
    "document": {"version": 2, "id": "greet", "title": "Greeting", "steps": [{"id": "hello", "type": "message", "text": "Hi"}]}}}}
for _ in range(20):
    status, _, body = post(conn, call, headers)
    assert status == 200 and b"sha256:" in body, (status, body[:200])
served = [sum(1 for _ in open(os.path.join(work, f"audit-{n}.jsonl"))) for n in "ab"]
assert all(n > 0 for n in served), f"one session's calls should reach both instances: {served}"
print(f"http-nginx: one session's 20 calls served by both instances ({served[0]} + {served[1]})")

# 10 s of load from 4 clients on the same session; instance b is killed after 3 s.
deadline = time.time() + 10
counts = {"ok": 0, "failed": 0}
errors = []
lock = threading.Lock()
def client():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while time.time() < deadline:
        try:
            status, _, body = post(c, call, headers)
            ok = status == 200 and b"sha256:" in body
        except Exception as error:  # noqa: BLE001 - a lost call, counted
            ok, status = False, repr(error)
            c.close()
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        with lock:
            counts["ok" if ok else "failed"] += 1
            if not ok and len(errors) < 5:
                errors.append(status)
threads = [threading.Thread(target=client) for _ in range(4)]
started = time.time()
for t in threads:
    t.start()
time.sleep(3)
os.kill(pid_b, signal.SIGKILL)
killed_at = time.time() - started
for t in threads:
    t.join()
total = counts["ok"] + counts["failed"]
print(f"http-nginx: 10 s load, 4 clients, instance b killed at {killed_at:.1f} s: "
      f"{total} calls, {counts['ok']} ok, {counts['failed']} lost ({total / 10:.0f} calls/s)")
assert counts["failed"] == 0, errors
PY
echo "http-nginx: shared sessions and failover behind nginx passed"
