#!/usr/bin/env python3
"""Burst of large request bodies against `botmesh-mcp --http`, on loopback only.

CLIENTS clients (default 64) each send one tools/call whose body is BODY_MIB MiB (default 15)
at the same moment, while one more client keeps making small calls. Reports the server's peak
and after-burst resident memory, how every large request was answered (200 or 503, none lost),
and the small calls' latency percentiles during the burst.

Bounded: every socket has a 60 s timeout; the small-call loop stops when the burst is over;
the after-burst watch lasts SETTLE seconds (default 5). Standard library only.

Usage: python3 crates/mcp-http/benches/body-burst.py [BINARY] [-- extra server flags]
Environment: CLIENTS, BODY_MIB, SHAPE (text: one long string; steps: many small steps), SETTLE,
TOKENS=1 (one bearer token per client, the default) or 0 (no tokens, one client address).
Exit status 1 when a target is missed: peak RSS <= 128 MiB, every request answered 200 or 503.
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
args = sys.argv[1:]
extra = []
if "--" in args:
    i = args.index("--")
    args, extra = args[:i], args[i + 1 :]
target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
binary = args[0] if args else os.path.join(target, "release", "botmesh-mcp")
clients = int(os.environ.get("CLIENTS", "64"))
body_mib = float(os.environ.get("BODY_MIB", "15"))
shape = os.environ.get("SHAPE", "text")
settle = float(os.environ.get("SETTLE", "5"))
use_tokens = os.environ.get("TOKENS", "1") == "1"
TIMEOUT = 60


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def recv_head(sock):
    """Reads one response head; returns (status, headers dict, leftover bytes)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before a response head")
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, rest


def read_response(sock):
    """Reads one full response (after any 100 Continue); returns (status, headers, body)."""
    status, headers, rest = recv_head(sock)
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, headers, rest[:length]


def request(port, body, headers, expect=False, sock=None):
    """POSTs `body` to /mcp; with `expect`, sends `Expect: 100-continue` and the body only after
    `100 Continue` (as curl does for large bodies), so a refused body is never sent."""
    own = sock is None
    if own:
        sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n"
    )
    for name, value in headers.items():
        head += f"{name}: {value}\r\n"
    if expect:
        head += "Expect: 100-continue\r\n"
    if own:
        head += "Connection: close\r\n"
    if not expect:
        # One write: a separate small write for the head would meet delayed ACKs (40 ms).
        sock.sendall(head.encode() + b"\r\n" + body)
        result = read_response(sock)
        if own:
            sock.close()
        return result
    sock.sendall(head.encode() + b"\r\n")
    if expect:
        status, hdrs, rest = recv_head(sock)
        if status != 100:
            length = int(hdrs.get("content-length", "0"))
            while len(rest) < length:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                rest += chunk
            if own:
                sock.close()
            return status, hdrs, rest[:length]
    sock.sendall(body)
    result = read_response(sock)
    if own:
        sock.close()
    return result


def big_document(size):
    if shape == "steps":
        step = '{"id":"s%d","type":"message","text":"hello"},'
        n = size // len(step % 100000)
        steps = "".join(step % i for i in range(n)).rstrip(",")
        return '{"version":2,"id":"big","title":"Big","steps":[' + steps + "]}"
    text = "x" * size
    return '{"version":2,"id":"big","title":"Big","steps":[{"id":"s","type":"message","text":"' + text + '"}]}'


def main():
    work = tempfile.mkdtemp(prefix="botmesh-burst-")
    port = free_port()
    flags = ["--http", f"127.0.0.1:{port}", "--rate-limit", "0"]
    tokens = []
    if use_tokens:
        tokens_file = os.path.join(work, "tokens.jsonl")
        for _ in range(clients + 1):
            out = subprocess.run(
                [binary, "token", "new", "--scopes", "flow,docs", "--tokens", tokens_file],
                check=True, capture_output=True, text=True,
            )
            tokens.append(out.stdout.strip())
        flags += ["--tokens", tokens_file]
    log = open(os.path.join(work, "server.log"), "w")
    server = subprocess.Popen([binary] + flags + extra, stderr=log)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        auth = lambda i: {"Authorization": f"Bearer {tokens[i]}"} if tokens else {}
        init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "burst", "version": "1"}}}).encode()
        status, headers, _ = request(port, init, auth(clients))
        assert status == 200, status
        session = headers["mcp-session-id"]
        small_headers = dict(auth(clients), **{"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"})
        small = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "flow_digest", "arguments": {"document": {"version": 2, "id": "greet", "title": "Greeting",
            "steps": [{"id": "hello", "type": "message", "text": "Hello"}]}}}}).encode()
        idle_kib = rss_kib(server.pid)

        size = int(body_mib * 1024 * 1024)
        doc = big_document(size - 200)
        bodies = []
        for i in range(clients):
            bodies.append(json.dumps({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
                                      "params": {"name": "flow_digest", "arguments": {"document": "__DOC__"}}})
                          .replace('"__DOC__"', doc).encode())
        del doc
        results = [None] * clients
        burst_done = threading.Event()
        start = threading.Barrier(clients + 1)

        def big(i):
            _, opened, _ = request(port, init, auth(i))
            headers = dict(auth(i), **{"Mcp-Session-Id": opened.get("mcp-session-id", "-"),
                                       "MCP-Protocol-Version": "2025-11-25"})
            start.wait()
            try:
                status, _, _ = request(port, bodies[i], headers, expect=True)
                results[i] = status
            except Exception as error:  # noqa: BLE001 - every failure is reported as lost
                results[i] = f"lost: {error!r}"

        latencies = []
        small_statuses = {}

        def small_calls():
            sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
            while not burst_done.is_set():
                t0 = time.perf_counter()
                status, _, _ = request(port, small, small_headers, sock=sock)
                latencies.append(time.perf_counter() - t0)
                small_statuses[status] = small_statuses.get(status, 0) + 1
            sock.close()

        peak = [idle_kib]

        def sample():
            while not burst_done.is_set():
                peak[0] = max(peak[0], rss_kib(server.pid))
                time.sleep(0.005)

        threads = [threading.Thread(target=big, args=(i,)) for i in range(clients)]
        for t in threads:
            t.start()
        sampler = threading.Thread(target=sample)
        sampler.start()
        smaller = threading.Thread(target=small_calls)
        smaller.start()
        t0 = time.perf_counter()
        start.wait()
        for t in threads:
            t.join()
        burst_s = time.perf_counter() - t0
        burst_done.set()
        sampler.join()
        smaller.join()
        peak_kib = max(peak[0], rss_kib(server.pid))
        after = []
        deadline = time.time() + settle
        while time.time() < deadline:
            after.append(rss_kib(server.pid))
            time.sleep(0.25)

        counts = {}
        for r in results:
            counts[str(r)] = counts.get(str(r), 0) + 1
        latencies.sort()
        pct = lambda p: latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))] * 1000 if latencies else float("nan")
        print(f"clients={clients} body_mib={body_mib} shape={shape} tokens={int(use_tokens)} flags={' '.join(extra) or '-'}")
        print(f"burst_seconds={burst_s:.2f} answers={json.dumps(counts, sort_keys=True)}")
        print(f"rss_idle_mib={idle_kib / 1024:.1f} rss_peak_mib={peak_kib / 1024:.1f} "
              f"rss_after_1s_mib={after[min(3, len(after) - 1)] / 1024:.1f} rss_after_{settle:g}s_mib={after[-1] / 1024:.1f}")
        print(f"small_calls={len(latencies)} statuses={json.dumps(small_statuses, sort_keys=True)} "
              f"p50_ms={pct(50):.2f} p99_ms={pct(99):.2f} max_ms={(latencies[-1] * 1000 if latencies else 0):.2f}")
        ok = peak_kib <= 128 * 1024 and all(r in (200, 503) for r in results)
        print("targets: " + ("met" if ok else "MISSED"))
        return 0 if ok else 1
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


if __name__ == "__main__":
    sys.exit(main())
