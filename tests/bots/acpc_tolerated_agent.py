"""An ACPC agent whose lines the ACPC dealer tolerates (it skips some, mends
others), for the --acpc-lenient tests: python3 acpc_tolerated_agent.py MODE HOST PORT.

It answers the last state of each batch it reads (the arena sends the states
an agent need not answer with the one it must). MODE says what it sends:
``comment`` a comment line before each response; ``skipped`` a line that is
no state and a response to another hand before each response; ``bare`` a
bare ``r`` (no-limit: no size); ``big`` and ``small`` a raise above the stack
and one below the least raise; ``all`` each of these in turn."""

import itertools
import socket
import sys

mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
sock = socket.create_connection((host, port))
sock.sendall(b"VERSION:2.0.0\r\n")
modes = itertools.cycle(["comment", "skipped", "bare", "big", "small"] if mode == "all" else [mode])
buf = b""
while True:
    data = sock.recv(65536)
    if not data:
        break
    buf += data
    *states, buf = buf.split(b"\r\n")
    if not states:
        continue
    state = states[-1].decode()
    now = next(modes)
    before, action = b"", "c"
    if now == "comment":
        before = b"# thinking it over\r\n"
    elif now == "skipped":
        parts = state.split(":")
        parts[2] = str(int(parts[2]) + 1000)  # another hand
        before = b"good luck!\r\n" + (":".join(parts) + ":c\r\n").encode()
    elif now == "bare":
        action = "r"
    elif now == "big":
        action = "r999999"
    elif now == "small":
        action = "r1"
    sock.sendall(before + f"{state}:{action}\r\n".encode())
