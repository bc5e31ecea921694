"""A bot for OpenSpiel's competition referee that answers every decision
with action 999 (never legal in the games the tests play) and ponders
otherwise: the arena must report an illegal_action fault of its seat."""
import sys

sys.stdin.readline()  # the game
sys.stdin.readline()  # the seat
print("ready", flush=True)
print("start", flush=True)
for line in sys.stdin:
    words = line.split()
    if words[:2] == ["match", "over"]:
        print("match over", flush=True)
        print("start", flush=True)
    elif words == ["tournament", "over"]:
        break
    else:
        print("999" if len(words) > 2 else "ponder", flush=True)
