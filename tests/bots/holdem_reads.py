#!/usr/bin/env python3
"""Test bot for holdem: checks or calls every time, and counts how its input
came: at the end it writes ``reads R lines L`` to stderr (R: reads of stdin
that returned data, L: lines in them), so a test can tell how many times the
arena woke it."""
import os
import sys

reads = lines = 0
pending = b""
while True:
    chunk = os.read(0, 1 << 16)
    if not chunk:
        break
    reads += 1
    pending += chunk
    *whole, pending = pending.split(b"\n")
    for line in whole:
        lines += 1
        if line.startswith(b'{"type":"match_start"'):
            os.write(1, b'{"type": "ready"}\n')
        elif line.startswith(b'{"type":"act"'):
            os.write(1, b'{"type": "action", "action": "call"}\n')
    if b'"type":"match_end"' in chunk:
        break
sys.stderr.write(f"reads {reads} lines {lines}\n")
