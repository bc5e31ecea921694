#!/usr/bin/env python3
"""Test bot: plays kuhn3 correctly, then misbehaves in one way (argv[1]).

``garbage_ahead`` plays well until its bankroll is above 0, then answers
garbage (a bot that would keep its lead by faulting); ``garbage_behind:N``
until it is N chips behind (a bot that would cut its losses by faulting).
Both play as ``none`` does until then (every bet called), so a copy in mode
``none`` is the same strategy playing on.

The trigger is the first ``play`` message it receives unless the mode says
otherwise. Any further arguments (a tag) only mark the process for the tests'
leftover-process check.
"""
import os
import subprocess
import sys
import time

from io_faults import IO_MODES, io_fault  # tests/bots/io_faults.py

MODE = sys.argv[1]
out = sys.stdout.buffer


#: "pad:N": every reply is valid but padded with spaces to N bytes
PAD = int(MODE.split(":")[1]) if MODE.startswith("pad:") else 0


def send(text):
    out.write(text.ljust(PAD).encode() + b"\n")
    out.flush()


if MODE == "grandchild":
    # A grandchild in our process group that ignores SIGTERM and sleeps.
    subprocess.Popen(
        [sys.executable, "-c", "import signal,time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)"]
        + sys.argv[2:]
    )
if MODE == "stderr_flood_forever":  # a thread writes to stderr for as long as the bot lives; it plays on
    import threading

    chunk = b"x" * 65535 + b"\n"
    # Twice the arena's cap first, before it plays: past the cap however busy the machine is.
    for _ in range(32):
        sys.stderr.buffer.write(chunk)
    sys.stderr.flush()

    def flood():
        while True:
            sys.stderr.buffer.write(chunk)

    threading.Thread(target=flood, daemon=True).start()
if MODE == "stderr_flood":
    chunk = b"x" * 65536 + b"\n"
    for _ in range(160):  # 10 MiB
        sys.stderr.buffer.write(chunk)
    sys.stderr.flush()


def misbehave():
    if MODE == "garbage":
        send("lol what is this")
    elif MODE == "unknown_verb":
        send("CALL 2")
    elif MODE == "illegal_amount":
        send("BET 3")
    elif MODE == "sluggish":  # every reply a little slow: eats a time budget
        time.sleep(0.2)
        return False
    elif MODE == "slow":
        time.sleep(float(os.environ.get("SLOW", "1.5")))
        send("BET 1")
    elif MODE in IO_MODES:
        io_fault(MODE, b"BET \xff\xfe1")
    else:
        return False
    return True


money = None
acts = []
ends = 0
for raw in sys.stdin:
    line = raw.rstrip("\n")
    if line.startswith("Money:") and money is None:
        money = [int(x) for x in line[6:].split(",")]
    elif line.startswith("EndProb:") or line.startswith("Cards:"):
        send("READY")
    elif line in ("play", "end_hand"):
        acts = []
        phase = line
    elif line.startswith("Action:"):
        acts.append(int(line.split()[-1]))
        if phase == "play" and len(acts) == 3:
            if MODE == "garbage_ahead" and money[0] > 0:  # ahead: break off, to keep the lead
                send("no more, I am ahead")
                continue
            if MODE.startswith("garbage_behind:") and money[0] <= -int(MODE.split(":")[1]):
                send("no more, I am behind")  # behind: break off, to cut the losses
                continue
            if not misbehave():
                send(f"BET {max(acts)}")
    elif line.startswith("Pots:"):
        for pot in line[5:].split():
            value, winner = map(int, pot.split(","))
            money[winner] += value
        for i in range(3):
            money[i] -= acts[i]
        send("OK")
        ends = 0
    elif line.startswith("EndAction:"):
        ends += 1
        if ends == 3:
            m = list(money)
            if MODE == "wrong_money":
                m[0] += 1
            send("Money: " + ",".join(map(str, m)))
    elif line.startswith("NumHands:"):
        send("Thanks, bye" if MODE == "wrong_closing" else "Thank you dealer, have a nice day!")
        break
