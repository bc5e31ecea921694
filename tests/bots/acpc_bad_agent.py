"""A misbehaving ACPC agent for the fault tests: python3 bad_agent.py MODE HOST PORT."""

import socket
import sys
import time

mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
if mode == "never":
    sys.exit(0)  # exits without connecting
if mode == "silent":
    time.sleep(60)  # runs on without connecting (the relay's connect timeout ends it)
sock = socket.create_connection((host, port))
sock.sendall(b"VERSION:2.0.0\r\n")
stream = sock.makefile("rb")
for raw in stream:
    state = raw.decode().rstrip("\r\n")
    if mode == "close":
        sock.close()
        sys.exit(0)
    # acts on every state it is sent, its turn or not: the first reply is to its turn
    if mode == "invalid":
        sock.sendall((state + ":x\r\n").encode())
    elif mode == "other":
        sock.sendall((state.replace("MATCHSTATE:", "MATCHSTATE:9:", 1) + ":c\r\n").encode())
