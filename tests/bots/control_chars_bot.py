#!/usr/bin/env python3
"""A kuhn3 bot whose text is hostile to terminals and XML.

It writes every C0 control character, DEL, every C1 control, bidi overrides
and the XML non-characters to its stderr, then answers its first ``play``
with a line full of them (a malformed reply, so the arena quotes it).
Usage: control_chars_bot.py [TAG]
"""
import sys

NASTY = (
    "".join(chr(c) for c in range(0x20) if c != 0x0A)
    + "\x7f" + "".join(chr(c) for c in range(0x80, 0xA0))
    + "\u202e\u2066\u200f\ufeff\ufffe\uffff"
    + "\x1b]0;pwned title\x07\x1b]52;c;cGF5bG9hZA==\x07\x1b[2J\x1b[31m"
)

sys.stderr.write("before" + NASTY + "after\n")
sys.stderr.flush()
out = sys.stdout.buffer
phase = ""
for raw in sys.stdin:
    line = raw.rstrip("\n")
    if line in ("init_round", "init_hand"):
        phase = line
    elif line.startswith("EndProb:") or line.startswith("Cards:"):
        out.write(b"READY\n")
        out.flush()
    elif line == "play":
        out.write(("BET" + NASTY + "\n").encode("utf-8", "surrogatepass"))
        out.flush()
