"""A relay that hands the arena something other than its agent's connection
(descriptor 3 is the hand-over socket the arena gives an ACPC agent's relay):
python3 acpc_fake_relay.py MODE. It then says ready and answers nothing,
writing on stderr the first line it reads on stdin after that (where the
arena's messages go when it did not take what was handed over)."""

import os
import socket
import sys

mode = sys.argv[1]
start = sys.stdin.readline()
over = socket.socket(fileno=3)
keep = []  # what was handed over stays open here, as a real relay's agent would hold its end
if mode == "pipe":
    r, w = os.pipe()
    keep += [r, w]
    fd, words = r, b"holdem 0"
elif mode == "listening":
    lsn = socket.create_server(("127.0.0.1", 0))
    keep.append(lsn)
    fd, words = lsn.fileno(), b"holdem 0"
elif mode == "unix":
    a, b = socket.socketpair()
    keep += [a, b]
    fd, words = a.fileno(), b"holdem 0"
else:  # "wrong-seat" and "connected": a connected TCP socket, its other end kept here
    lsn = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(lsn.getsockname())
    server, _ = lsn.accept()
    keep += [lsn, client, server]
    fd, words = server.fileno(), (b"holdem 7" if mode == "wrong-seat" else b"holdem 0")
socket.send_fds(over, [words], [fd])
over.close()
sys.stdout.write('{"type": "ready"}\n')
sys.stdout.flush()
line = sys.stdin.readline()
sys.stderr.write(f"stdin after ready: {line.strip()[:40]}\n")
sys.stderr.flush()
for _ in sys.stdin:
    pass
