#!/usr/bin/env python3
"""Test bot for any game: replays its seat of a scripted match, then misbehaves.

Usage: ``misbehave_any.py SCRIPT SEAT [tag...]``. SCRIPT is a JSON file
written by ``tests/scripted.py`` from the game's own dialogue, played
in-process with the plugin's legal replies: for each seat, the lines it will
be sent and what it answers. Knowing nothing of any game, this bot reads the
lines of each step, checks they are the ones scripted, and writes the
step's reply (hex-encoded bytes; a bad reply can be scripted too).

At the seat's ``trigger`` step, ``mode`` replaces the reply: a transport
misbehaviour of ``io_faults.py``, ``slow`` (the scripted reply, after the
deadline) or ``fuzz`` (from that step on, random bytes now and then, seeded
by ``fuzz_seed``). Mode ``none`` writes the scripted reply.

When the lines differ from the script (the match was cut short by another
seat's fault, or the arena and the in-process dialogue disagree) it says so on
stderr and stops answering, reading until its input ends: a good seat never
causes a fault of its own by leaving early. Further arguments (a tag) only
mark the process for the tests' leftover-process check.
"""
import json
import random
import sys
import time

from io_faults import IO_MODES, io_fault  # tests/bots/io_faults.py

with open(sys.argv[1], encoding="utf-8") as file:
    SCRIPT = json.load(file)["seats"][int(sys.argv[2])]
MODE = SCRIPT.get("mode", "none")
TRIGGER = SCRIPT.get("trigger")
SLOW = SCRIPT.get("slow", 3.0)
inp, out = sys.stdin.buffer, sys.stdout.buffer


def write(raw: bytes, newline: bool = True) -> None:
    out.write(raw + (b"\n" if newline else b""))
    out.flush()


def drain(note: str = "") -> None:
    if note:
        sys.stderr.write(note + "\n")
        sys.stderr.flush()
    while inp.readline():
        pass
    sys.exit(0)


def fuzzed(reply: bytes, rng: random.Random) -> None:
    roll = rng.random()
    if roll < 0.6:
        write(reply)
    elif roll < 0.75:
        write(reply[: rng.randrange(len(reply) + 1)] + rng.randbytes(rng.randrange(0, 4)))
    elif roll < 0.9:
        write(rng.randbytes(rng.randrange(0, 30)))
    elif roll < 0.97:
        write(rng.randbytes(rng.randrange(1, 10)), newline=False)  # no newline: a timeout
        drain("fuzz: a reply without its newline")
    else:
        sys.exit(0)


rng = random.Random(SCRIPT.get("fuzz_seed", 0))
for n, step in enumerate(SCRIPT["steps"]):
    for want in step["read"]:
        got = inp.readline()
        if not got:
            sys.exit(0)  # the match is over for this seat
        if got.decode("utf-8", "replace").removesuffix("\n") != want:
            drain(f"off the script at step {n}: got {got[:200]!r}, scripted {want[:200]!r}")
    if step["reply"] is None:
        continue
    reply = bytes.fromhex(step["reply"])
    if MODE == "fuzz" and TRIGGER is not None and n >= TRIGGER:
        fuzzed(reply, rng)
    elif n != TRIGGER or MODE == "none":
        write(reply)
    elif MODE == "slow":
        time.sleep(SLOW)
        write(reply)
    elif MODE in IO_MODES:
        io_fault(MODE, reply)  # (a bad line, invalid UTF-8 included, is scripted as the reply, mode none)
    else:
        raise SystemExit(f"misbehave_any.py: no mode {MODE!r}")
drain()  # the script is over: whatever comes now (a match_end) needs no reply
