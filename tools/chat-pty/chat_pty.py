"""Drives `botmesh-mcp chat` in a real pseudo-terminal, as a person at a terminal would.

usage: python3 tools/chat-pty/chat_pty.py BINARY FLOW.json [--print]

Starts the chat on a pty (stdin and stdout are a terminal, so the chat draws bubbles and
numbered buttons), waits for each prompt, types replies (a number for a button, a typed title,
a /command), and checks what the screen shows: the bubbles, the numbered options, colour codes
(unless NO_COLOR), the saved variable, the outcome line, and that /quit ends it with status 0.
Then again with NO_COLOR=1: no escape codes. Then with --save-test: /save keeps the conversation
half-way, /quit keeps the whole of it, and `botmesh-mcp test` passes both cases (issue 42).
Python's standard library only (pty, os, select, json, subprocess, tempfile).
"""
import json
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import time

PROMPT = "you › "


def run(binary, flow, env_extra, script, extra=()):
    """Runs the chat on a pty (with the `extra` arguments), sends each line of `script` after the
    next prompt; returns the whole screen text and the exit status."""
    pid, fd = pty.fork()
    if pid == 0:
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env.update(env_extra)
        env["COLUMNS"] = "72"
        os.execve(binary, [binary, "chat", flow, "--subflows", os.path.dirname(flow), "--contact", "Ana",
                           "--handler", 'orders.lookup={"returns": "shipped"}', *extra], env)
    screen = b""
    deadline = time.time() + 20

    def read_until_prompt(count):
        nonlocal screen
        while screen.decode("utf-8", "replace").count(PROMPT) < count:
            if time.time() > deadline:
                raise SystemExit("chat-pty: timed out waiting for prompt %d; screen:\n%s" % (count, screen.decode("utf-8", "replace")))
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                screen += chunk

    for index, line in enumerate(script, start=1):
        read_until_prompt(index)
        os.write(fd, (line + "\n").encode())
    # Drain until the child exits.
    while True:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            screen += chunk
        elif time.time() > deadline:
            raise SystemExit("chat-pty: the chat did not exit after /quit")
    _, status = os.waitpid(pid, 0)
    return screen.decode("utf-8", "replace"), os.waitstatus_to_exitcode(status)


def check(condition, what, screen):
    if not condition:
        raise SystemExit("chat-pty: %s; screen:\n%s" % (what, screen))


def main():
    binary, flow = sys.argv[1], sys.argv[2]
    # A number taps "My order", the subflow asks for the order number, the handler says
    # shipped; /vars shows what was saved; a reply after the end is refused; /quit ends.
    script = ["1", "1234", "/vars", "more", "/quit"]
    screen, status = run(binary, flow, {}, script)
    if "--print" in sys.argv:
        print(screen)
    check(status == 0, "exit status %s" % status, screen)
    check("\x1b[" in screen, "no colour on a terminal", screen)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", screen)
    check("╭─ " in plain and "╰" in plain, "no bubble", plain)
    check(" 1. " in plain, "buttons or rows are not numbered", plain)
    check("(tap " in plain, "a number did not tap an item", plain)
    check('"order_number":1234' in plain, "/vars did not show the saved answer", plain)
    check("— ended at support_menu/goodbye" in plain or "— ended at" in plain, "no outcome line", plain)
    check("the conversation is over (ended)" in plain, "a reply after the end was not refused", plain)
    # NO_COLOR: the same conversation without escape codes.
    screen, status = run(binary, flow, {"NO_COLOR": "1"}, script)
    check(status == 0, "exit status %s with NO_COLOR" % status, screen)
    check("\x1b[" not in screen, "escape codes despite NO_COLOR", screen)
    save_test(binary, flow)
    print("chat-pty: bubbles, numbered items, commands, colour, NO_COLOR, /save and --save-test on a real terminal")


def save_test(binary, flow):
    """--save-test on a terminal: /save half-way, the whole conversation at /quit; both pass."""
    with tempfile.TemporaryDirectory() as folder:
        saved = os.path.join(folder, "support.flowtest.json")
        screen, status = run(binary, flow, {"NO_COLOR": "1"}, ["1", "/save", "1234", "/quit"],
                             ("--save-test", saved))
        check(status == 0, "exit status %s with --save-test" % status, screen)
        check('(saved the conversation as the test case "orders" (4 turns) in ' in screen,
              "/save did not say what it saved", screen)
        check('saved the conversation as the test case "orders (2)" (7 turns) in ' in screen,
              "the exit did not save the whole conversation", screen)
        with open(saved, encoding="utf-8") as handle:
            text = handle.read()
        cases = json.loads(text)["tests"]
        check([c["name"] for c in cases] == ["orders", "orders (2)"], "cases %s" % cases, text)
        check(all(c["strict"] is True for c in cases), "the cases are not strict", text)
        check('        { "user": "1234" },\n' in text, "not one line per turn", text)
        tested = subprocess.run([binary, "test", saved], capture_output=True, text=True)
        check(tested.returncode == 0, "the saved cases do not pass: %s" % tested.stdout, text)


if __name__ == "__main__":
    main()
