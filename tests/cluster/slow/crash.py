#!/usr/bin/env python3
"""Test bot: reads the dealer's first line, says why it gives up on stderr, and exits 3
(a fault with a stderr log to point at)."""
import sys

sys.stdin.readline()
sys.stderr.write("crash.py: giving up before the first reply\n")
sys.exit(3)
