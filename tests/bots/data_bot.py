"""A bot that keeps a count of its processes in its data folder (/data, from
``arena tournament --data-mb``), tries to write more than the folder holds, notes
what it saw there, then plays as the (compiled) bot named after it.

Usage: python3 data_bot.py BOT
"""

import os
import sys

count = "/data/count"
n = int(open(count).read()) + 1 if os.path.exists(count) else 1
with open(count, "w") as f:
    f.write(str(n))
try:
    with open("/data/fill", "wb") as f:
        f.write(b"x" * (3 << 20))  # more than the tests' 2 MB folder
    filled = "wrote 3 MB"
except OSError as exc:
    filled = exc.strerror
os.remove("/data/fill") if os.path.exists("/data/fill") else None
with open("/data/said", "w") as f:
    f.write(f"{n} | {filled} | {sorted(os.listdir('/data'))}\n")
os.execv(sys.argv[1], [sys.argv[1]])
