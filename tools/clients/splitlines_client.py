"""A quick client as a user writes one: reads the server's stdout whole and splits it with
str.splitlines(), which also breaks on U+0085, U+2028 and U+2029. Every piece must parse, so
the server must escape those characters (the schema's URL pattern holds two of them, and the
document sent here holds all three). Standard library only.

usage: python3 splitlines_client.py -- BINARY
"""

import json
import subprocess
import sys

TEXT = "one\u2028two\u2029three\u0085four"


def main() -> None:
    binary = sys.argv[sys.argv.index("--") + 1]
    document = {
        "version": 2,
        "id": "sep",
        "steps": [
            {"id": "hi", "kind": "message", "text": TEXT, "next": "bye"},
            {"id": "bye", "kind": "end"},
        ],
    }
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "splitlines", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "flow_schema", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "flow_migrate", "arguments": {"document": document}}},
    ]
    stdin = "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages)
    out = subprocess.run([binary], input=stdin.encode(), capture_output=True, check=True)
    answers = [json.loads(line) for line in out.stdout.decode().splitlines() if line]
    assert [a["id"] for a in answers] == [1, 2, 3], answers
    pattern = answers[1]["result"]["structuredContent"]
    assert "\u2028" in json.dumps(pattern, ensure_ascii=False), "the schema holds U+2028"
    text = answers[2]["result"]["structuredContent"]["document"]["steps"][0]["text"]
    assert text == TEXT, text
    print("splitlines client: ok (3 answers, separators escaped)")


if __name__ == "__main__":
    main()
