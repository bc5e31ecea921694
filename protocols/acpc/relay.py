"""An ACPC agent behind an arena seat (run by the arena in the bot's sandbox).

Usage: python3 relay.py [--connect-timeout S] -- CMD...

At ``match_start`` it writes the game definition to its private /tmp,
listens on 127.0.0.1 (the loopback of the bot's own network namespace),
starts CMD with ``{host}``, ``{port}`` and ``{gamedef}`` filled (``HOST
PORT`` appended when neither address placeholder is there) and answers
``ready`` once the agent has connected. From then on each JSON message is
translated into MATCHSTATE lines and each response back into an action.
An agent that misbehaves ends the relay with a sentence: on stdout in place
of the reply when it sent a wrong line (the arena reports it as the seat's
invalid reply), on stderr when it never connected or hung up.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run with -I: its folder is not on the path
from _translate import (  # noqa: E402
    KUHN3_GAMEDEF,
    AcpcFault,
    HoldemTranslator,
    Kuhn3Translator,
    gamedef,
    refusal,
)


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _gone(text: str, code: int = 3) -> None:
    """Says why on the seat's stderr and ends the relay: with 3 the arena
    charges a crash (the agent exited), with 0 a disconnect (it hung up)."""
    sys.stderr.write(f"ACPC agent: {text}\n")
    sys.stderr.flush()
    sys.exit(code)


def _silent(text: str) -> None:
    """An agent that never connects is, to the arena, a bot that never
    answers: the reason goes to the seat's stderr and nothing to stdout, so
    the arena's own deadline charges a timeout as for any silent bot."""
    sys.stderr.write(f"ACPC agent: {text}\n")
    sys.stderr.flush()
    sys.stdin.read()
    sys.exit(0)


def main(argv: list[str]) -> None:
    timeout = 10.0
    if argv[:1] == ["--connect-timeout"]:
        timeout, argv = float(argv[1]), argv[2:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    first = sys.stdin.readline()
    if first.rstrip("\r\n") == "init_round":
        kuhn3(argv, timeout)
        return
    start = json.loads(first) if first.startswith("{") else {}
    if start.get("type") != "match_start" or start.get("game") != "holdem":
        _say(f"ACPC agents play holdem and kuhn3 here; this match is {start.get('game')!r}")
        return
    why = refusal(start["params"])
    if why:
        _say(why)
        return
    seat = start["seat"]
    conn, agent_in, agent = connect(argv, timeout, gamedef(start["params"], len(start["players"])))
    _say('{"type": "ready"}')
    tr = HoldemTranslator(seat)
    # The states the agent need not answer go out with the next one it must
    # (or at the end): one send and one wake-up of the agent per decision.
    pending: list[str] = []
    for raw in sys.stdin:
        msg = json.loads(raw)
        if msg.get("type") == "match_end":
            break
        pending += tr.feed(msg)
        if msg.get("type") == "act":
            _send(conn, pending)
            pending = []
            try:
                _say(json.dumps(tr.reply(_response(agent_in, tr.sent))))
            except AcpcFault as fault:
                _say(f"ACPC agent {fault}")
                return
    _send(conn, pending)
    _hang_up(conn, agent)


def connect(argv: list[str], timeout: float, definition: str):
    """Write the game definition, listen, start the agent, and take its connection and VERSION line."""
    game = os.path.join(tempfile.mkdtemp(), "arena.game")
    with open(game, "w") as f:
        f.write(definition)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    host, port = listener.getsockname()
    words = {"{host}": host, "{port}": str(port), "{gamedef}": game}
    command = [_fill(a, words) for a in argv]
    if not any("{host}" in a or "{port}" in a for a in argv):
        command += [host, str(port)]
    # The agent's stdout is not the arena's line: it goes to the seat's stderr log.
    agent = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno())
    # Waited for in short steps, to tell an agent that exited from one that is slow.
    listener.settimeout(0.05)
    deadline = time.monotonic() + timeout
    conn = None
    while conn is None:
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            code = agent.poll()
            if code is not None:
                _gone(f"exited ({code}) without connecting to {host}:{port}; expected a TCP connection "
                      f"and VERSION:2.0.0 (started as {' '.join(command)!r})")
            if time.monotonic() > deadline:
                agent.kill()
                _silent(f"did not connect to {host}:{port} within {timeout:g} s of starting; expected a TCP "
                      f"connection and VERSION:2.0.0 (started as {' '.join(command)!r})")
    listener.close()
    conn.settimeout(None)
    # Small lines each way: without this, Nagle and delayed ACKs stall every exchange ~40 ms.
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    agent_in = conn.makefile("rb")
    hello = agent_in.readline().decode(errors="replace").rstrip("\r\n")
    if not hello.startswith("VERSION:2."):
        _say(f"ACPC agent sent {hello!r} on connecting; expected VERSION:2.0.0")
        sys.exit(0)
    return conn, agent_in, agent


def _send(conn: socket.socket, lines: list[str]) -> None:
    if lines:
        try:
            conn.sendall("".join(line + "\r\n" for line in lines).encode())
        except OSError:
            _gone(f"closed the connection before it was sent {lines[-1]!r}", 0)


def _response(agent_in, state: str) -> str:
    response = agent_in.readline()
    if not response.endswith(b"\n"):
        _gone(f"closed the connection; expected a response to {state!r}", 0)
    return response.decode(errors="replace").rstrip("\r\n")


def _block(count: int) -> list[str]:
    return [sys.stdin.readline().rstrip("\r\n") for _ in range(count)]


def _after_colon(line: str) -> str:
    return line.split(":", 1)[1].strip()


def kuhn3(argv: list[str], timeout: float) -> None:
    """The kuhn3 text protocol (docs/protocols/kuhn3.md) on one side, ACPC on the other."""
    _money, blinds, button, _end = _block(4)
    if _after_colon(blinds) != "1,1,1":
        _say("the ACPC kuhn.limit.3p game has antes of 1,1,1; this match has " + _after_colon(blinds))
        return
    conn, agent_in, agent = connect(argv, timeout, KUHN3_GAMEDEF)
    tr = Kuhn3Translator(int(_after_colon(button)))
    _say("READY")
    while True:
        head = sys.stdin.readline().rstrip("\r\n")
        if head == "init_hand":
            hand, cards = _block(2)
            _send(conn, tr.start_hand(int(_after_colon(hand)), _after_colon(cards)))
            _say("READY")
        elif head == "play":
            actions = [_after_colon(a).split() for a in _block(3)]
            _send(conn, tr.play([(verb, int(n)) for verb, n in actions]))
            try:
                _say(tr.reply(_response(agent_in, tr.sent)))
            except AcpcFault as fault:
                _say(f"ACPC agent {fault}")
                return
        elif head == "end_hand":
            lines = _block(5)
            amounts = [int(_after_colon(a).split()[1]) for a in lines[:3]]
            showdown = _after_colon(lines[3]).split(",")
            pots = [tuple(map(int, pot.split(","))) for pot in _after_colon(lines[4]).split()]
            _send(conn, tr.end_hand(amounts, showdown, pots))
            _say("OK")
        elif head.startswith("EndAction:"):
            _block(2)
            _say(tr.money())
        else:  # end_round, or the end of the input
            _block(2)
            _say("Thank you dealer, have a nice day!")
            break
    _hang_up(conn, agent)


def _hang_up(conn: socket.socket, agent: subprocess.Popen) -> None:
    """The match is over: the agent sees its connection close and gets a moment to exit."""
    conn.close()
    try:
        agent.wait(timeout=1)
    except subprocess.TimeoutExpired:
        agent.kill()


def _fill(arg: str, words: dict[str, str]) -> str:
    for key, value in words.items():
        arg = arg.replace(key, value)
    return arg


if __name__ == "__main__":
    main(sys.argv[1:])
