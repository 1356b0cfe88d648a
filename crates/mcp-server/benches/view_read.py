#!/usr/bin/env python3
"""What serving the MCP Apps view costs: the first `resources/read` of ui://botmesh/flow in a
fresh process (the embedded view is inflated on that read), against `resources/list`, each timed
from the request written to the answer line read, over a real pipe to the release binary.

Usage: python3 crates/mcp-server/benches/view_read.py [--binary PATH] [--runs N]
Prints the median and the bytes of each answer (the machine is shared: read medians).
"""
import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "clientInfo": {"name": "bench", "version": "1"},
    "capabilities": {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}}}
REQUESTS = {
    "resources/read, first in the process": {"jsonrpc": "2.0", "id": 2, "method": "resources/read",
                                             "params": {"uri": "ui://botmesh/flow"}},
    "resources/list": {"jsonrpc": "2.0", "id": 2, "method": "resources/list"},
}


def once(binary, request):
    process = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    process.stdin.write(json.dumps(INIT) + "\n")
    process.stdin.flush()
    process.stdout.readline()
    start = time.perf_counter()
    process.stdin.write(json.dumps(request) + "\n")
    process.stdin.flush()
    line = process.stdout.readline()
    elapsed = time.perf_counter() - start
    process.stdin.close()
    process.wait()
    return elapsed * 1000, len(line.encode())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(ROOT / "target/release/botmesh-mcp"))
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    for name, request in REQUESTS.items():
        runs = [once(args.binary, request) for _ in range(args.runs)]
        print(f"{name}: median {statistics.median(r[0] for r in runs):.2f} ms over {args.runs} runs, "
              f"{runs[0][1]} bytes")


if __name__ == "__main__":
    main()
