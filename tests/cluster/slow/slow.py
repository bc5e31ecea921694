#!/usr/bin/env python3
"""Test bot: runs the kuhn3 bot named by argv[1] (with the rest of argv as its
own), waiting DELAY seconds before each line it writes, so that its host spends
a match waiting on it (a stop of host and bot then lands in a bot's clock).
In a folder of its own: a cluster ships this folder and the bot it names."""
import runpy
import sys
import time

DELAY = 0.2


class Slow:
    def __init__(self, out):
        self.out = out

    def write(self, text):
        time.sleep(DELAY)
        return self.out.write(text)

    def __getattr__(self, name):
        return getattr(self.out, name)


sys.stdout = Slow(sys.stdout)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
