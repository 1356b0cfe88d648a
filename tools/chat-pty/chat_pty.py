"""Drives `botmesh-mcp chat` in a real pseudo-terminal, as a person at a terminal would.

usage: python3 tools/chat-pty/chat_pty.py BINARY FLOW.json [--print]

Starts the chat on a pty (stdin and stdout are a terminal, so the chat draws bubbles and
numbered buttons), waits for each prompt, types replies (a number for a button, a typed title,
a /command), and checks what the screen shows: the bubbles, the numbered options, colour codes
(unless NO_COLOR), the saved variable, the outcome line, and that /quit ends it with status 0.
Then again with NO_COLOR=1: no escape codes. Python's standard library only (pty, os, select).
"""
import os
import pty
import re
import select
import sys
import time

PROMPT = "you › "


def run(binary, flow, env_extra, script):
    """Runs the chat on a pty, sends each line of `script` after the next prompt; returns the
    whole screen text and the exit status."""
    pid, fd = pty.fork()
    if pid == 0:
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env.update(env_extra)
        env["COLUMNS"] = "72"
        os.execve(binary, [binary, "chat", flow, "--subflows", os.path.dirname(flow), "--contact", "Ana",
                           "--handler", 'orders.lookup={"returns": "shipped"}'], env)
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
    print("chat-pty: bubbles, numbered items, commands, colour and NO_COLOR on a real terminal")


if __name__ == "__main__":
    main()
