#!/usr/bin/env python3
"""A kuhn3 bot that plays check/fold legally while its children burn CPU.

    cpu_hog.py spinners N TAG      N children, each in a session of its own
                                   (setsid: a scheduler autogroup of its own,
                                   so each weighs as much as a whole bot where
                                   there is no CPU cgroup), spinning until killed
    cpu_hog.py burn N SECONDS TAG  N children, each spinning SECONDS of CPU time
                                   and saying on stderr how much it has used;
                                   the bot answers its first message once they
                                   are done
    cpu_hog.py think SECONDS TAG   no children: an innocent bot that uses
                                   SECONDS of CPU time before each reply (as a
                                   bot that thinks does)

TAG only marks the processes (their command line) for the test to find.
The spinners run at nice 19: inside a CPU cgroup of the bot's own they then
leave the bot's own replies on time, and without one it changes nothing
(each autogroup weighs the same whatever the nice of its only task).
"""
import os
import sys
import time


def spin_forever() -> None:
    os.setsid()
    os.nice(19)
    try:  # a shell's loop: a much smaller process than this one
        os.execv("/bin/sh", ["sh", "-c", "while :; do :; done", sys.argv[-1]])
    except OSError:
        pass
    while True:
        pass


def burn(index: int, seconds: float) -> None:
    start = time.process_time()
    reported = 0.0
    while (used := time.process_time() - start) < seconds:
        if used - reported >= 0.02:
            reported = used
            os.write(2, f"BURNED {index} {used:.3f}\n".encode())
    os.write(2, f"BURNED {index} {seconds:.3f} done\n".encode())
    os._exit(0)


def start_children(mode: str, count: int, seconds: float) -> list[int]:
    pids = []
    for index in range(count):
        pid = os.fork()
        if pid == 0:
            if mode == "spinners":
                spin_forever()
            burn(index, seconds)
        pids.append(pid)
    return pids


def think(seconds: float) -> None:
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass


def play(thinking: float = 0.0) -> None:
    """Check whenever nobody has bet, fold to any bet; keep the money totals."""
    money = [0, 0, 0]
    end_actions = 0

    def line() -> str:
        text = sys.stdin.readline()
        if not text:
            sys.exit(0)
        return text.strip()

    def reply(text: str) -> None:
        think(thinking)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    while True:
        header = line()
        if header == "init_round":
            for _ in range(4):
                line()
            reply("READY")
        elif header == "init_hand":
            line(), line()
            reply("READY")
        elif header == "play":
            acts = [int(line().split()[2]) for _ in range(3)]
            reply(f"BET {acts[0]}" if max(acts) == acts[0] else f"FOLD {acts[0]}")
        elif header == "end_hand":
            fields = [line().partition(":") for _ in range(5)]
            actions = [int(body.split()[1]) for key, _, body in fields if key == "Action"]
            for seat, amount in enumerate(actions):
                money[seat] -= amount
            for key, _, body in fields:
                if key == "Pots":
                    numbers = [int(x) for x in body.replace(",", " ").split()]
                    for i in range(0, len(numbers) - 1, 2):
                        money[numbers[i + 1]] += numbers[i]
            reply("OK")
        elif header.startswith("EndAction"):
            end_actions += 1
            if end_actions == 3:
                end_actions = 0
                reply("Money: " + ",".join(map(str, money)))
        elif header == "end_round":
            line(), line()
            reply("Thank you dealer, have a nice day!")
            sys.exit(0)


def main() -> None:
    mode = sys.argv[1]
    if mode == "think":
        play(thinking=float(sys.argv[2]))
        return
    count = int(sys.argv[2])
    seconds = float(sys.argv[3]) if mode == "burn" else 0.0
    pids = start_children(mode, count, seconds)
    if mode == "burn":
        for pid in pids:
            os.waitpid(pid, 0)
    play()


if __name__ == "__main__":
    main()
