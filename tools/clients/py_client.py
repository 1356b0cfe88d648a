#!/usr/bin/env python3
"""Real-client check with the official Python SDK (`mcp`, pinned in requirements.txt).

usage: py_client.py [--expect VERSION] [--mode auto|legacy] -- COMMAND [ARGS...]

Uses the SDK's default client (`mode="auto"`): it first sends `server/discover` and falls back to
`initialize` on an error (such as -32601). Then it lists the tools and calls each flow tool with
valid arguments; the SDK validates every successful result's `structuredContent` against the
tool's advertised `outputSchema` on its own. The check fails unless the negotiated protocol
version equals `--expect` (a silent fall-back to `initialize` must fail when 2026-07-28 is
expected). Prints one summary line on success; one reason on stderr and exit 1 otherwise; the
whole session is bounded (45 s), so CI never stalls.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

FLOW_TOOLS = [
    "flow_validate",
    "flow_analyze",
    "flow_migrate",
    "flow_diff",
    "flow_digest",
    "flow_schema",
    "flow_example",
]

# A small valid version-2 document that calls a subflow (passed to flow_analyze as `subflows`).
MAIN = {
    "version": 2,
    "id": "py_client_check",
    "metadata": {"title": "Python client check", "locale": "en"},
    "steps": [
        {"id": "hello", "kind": "message", "text": "Hello {{contact_name}}!"},
        {
            "id": "menu",
            "kind": "buttons",
            "text": "What now?",
            "buttons": [
                {"id": "status", "title": "Order status", "next": "lookup"},
                {"id": "human", "title": "Talk to us", "next": "agent"},
            ],
        },
        {"id": "lookup", "kind": "subflow", "flow": "py_client_sub", "next": "bye"},
        {"id": "agent", "kind": "handoff", "queue": "support"},
        {"id": "bye", "kind": "end", "text": "Bye."},
    ],
}
SUB = {
    "version": 2,
    "id": "py_client_sub",
    "steps": [
        {"id": "ask_order", "kind": "ask", "text": "Your order number?", "save": "order", "input": "number"},
        {"id": "done", "kind": "end", "text": "Looking up order {{order}}."},
    ],
}
# The same flow one migration step back (version 1: `name`, `ask.variable`, `delay.ms`).
V1 = {
    "version": 1,
    "id": "py_client_v1",
    "name": "Old flow",
    "steps": [
        {"id": "ask_name", "kind": "ask", "text": "Your name?", "variable": "name"},
        {"id": "pause", "kind": "delay", "ms": 1500},
        {"id": "bye", "kind": "end", "text": "Thanks {{name}}."},
    ],
}


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def parse_args(argv: list[str]) -> tuple[str, str, list[str]]:
    expect, mode = "2025-11-25", "auto"
    if "--" not in argv:
        raise AssertionError("missing server command after --")
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1 :]
    while options:
        flag = options.pop(0)
        if flag == "--expect" and options:
            expect = options.pop(0)
        elif flag == "--mode" and options:
            mode = options.pop(0)
        else:
            raise AssertionError(f"unknown option {flag}")
    if not command:
        raise AssertionError("missing server command after --")
    return expect, mode, command


def payload_of(name: str, result: Any, output_schema: Any) -> Any:
    """The JSON payload of a successful call: the text item, and the same as structuredContent."""
    check(not result.is_error, f"{name} answered isError: {result.content}")
    texts = [item.text for item in result.content if item.type == "text"]
    check(len(texts) == 1, f"{name} result has {len(texts)} text items, expected 1")
    payload = json.loads(texts[0])
    if output_schema is not None:
        check(result.structured_content is not None, f"{name} advertises outputSchema but sent no structuredContent")
        check(result.structured_content == payload, f"{name} structuredContent differs from its text item")
    return payload


async def run(expect: str, mode: str, command: list[str]) -> str:
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(params, mode=mode) as client:
        session = client.session
        via = "server/discover" if session.discover_result is not None else "initialize"
        negotiated = client.protocol_version
        check(negotiated == expect, f"negotiated protocol version {negotiated} (via {via}), expected {expect}")
        info = client.server_info
        check(info is not None and info.name == "botmesh-mcp", f"unexpected server info {info}")

        listed = await client.list_tools()
        tools = {tool.name: tool for tool in listed.tools}
        for name in FLOW_TOOLS:
            check(name in tools, f"tools/list lacks {name} (got {', '.join(tools)})")

        calls = 0

        async def call(name: str, arguments: dict[str, Any]) -> Any:
            nonlocal calls
            calls += 1
            result = await client.call_tool(name, arguments)
            return payload_of(name, result, tools[name].output_schema)

        example = await call("flow_example", {})
        example_doc = example.get("document", example) if isinstance(example, dict) else example
        check(isinstance(example_doc, dict) and "steps" in example_doc, "flow_example returned no document")

        for label, document in (("inline", MAIN), ("flow_example", example_doc)):
            validation = await call("flow_validate", {"document": document})
            check(validation.get("valid") is True, f"flow_validate rejects the {label} document: {validation}")

        analysis = await call(
            "flow_analyze", {"document": MAIN, "subflows": [SUB], "format": "json", "direction": "LR"}
        )
        check(analysis.get("valid") is True, f"flow_analyze says invalid: {analysis.get('issues')}")
        mermaid = await call("flow_analyze", {"document": SUB})
        check(isinstance(mermaid.get("mermaid"), str), "flow_analyze (default format) returned no mermaid text")

        migration = await call("flow_migrate", {"document": V1, "target": 2})
        check(
            migration.get("from") == 1 and migration.get("to") == 2,
            f"flow_migrate went {migration.get('from')} -> {migration.get('to')}, expected 1 -> 2",
        )
        check(migration.get("document", {}).get("version") == 2, "flow_migrate result is not version 2")

        changed = json.loads(json.dumps(MAIN))
        changed["steps"][0]["text"] = "Hi {{contact_name}}!"
        difference = await call("flow_diff", {"left": MAIN, "right": changed})
        check(difference.get("changed") is True, f"flow_diff missed a changed step: {difference}")

        digest = await call("flow_digest", {"document": MAIN})
        check(str(digest.get("digest", "")).startswith("sha256:"), f"flow_digest returned {digest}")

        schema = await call("flow_schema", {})
        check(isinstance(schema, dict) and schema, "flow_schema returned an empty payload")

        # flow_simulate: its text is a transcript, not JSON; the SDK validates structuredContent
        # against the advertised outputSchema.
        calls += 1
        simulated = await client.call_tool(
            "flow_simulate", {"document": MAIN, "subflows": [SUB], "replies": ["x"] * 3}
        )
        check(not simulated.is_error, f"flow_simulate answered isError: {simulated.content}")
        run_result = simulated.structured_content
        check(
            run_result is not None and run_result.get("valid") is True and "outcome" in run_result,
            f"flow_simulate returned {run_result}",
        )
        texts = [item.text for item in simulated.content if item.type == "text"]
        check(
            len(texts) == 1 and f"outcome: {run_result['outcome']['kind']}" in texts[0],
            f"flow_simulate text: {texts}",
        )

        return (
            f"python-sdk {version('mcp')} {mode}: connected via {via} protocolVersion={negotiated} "
            f"server={info.name} {info.version} tools={len(tools)} calls={calls} ok"
        )


async def main() -> int:
    try:
        expect, mode, command = parse_args(sys.argv[1:])
        with anyio.fail_after(45):
            line = await run(expect, mode, command)
    except TimeoutError:
        print("py-client: no answer within 45 s", file=sys.stderr)
        return 1
    except Exception as error:  # noqa: BLE001 - one line for CI, whatever went wrong
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]  # anyio task groups wrap the real error
        print(f"py-client: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
