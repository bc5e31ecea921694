#!/usr/bin/env python3
"""Adversarial kuhn3 bot: plays correctly, attacks at its first ``play``.

Usage: attack_bot.py ATTACK [TARGET] TAG
The outcome of the attempt is written to stderr as one line starting with
``ATTACK-RESULT`` (e.g. ``ATTACK-RESULT connect-local FAILED ENETUNREACH``),
so the test can read it from the ``--log-dir`` log. TAG only marks the
process (and its children) for the test's leftover check.
"""
import errno
import os
import signal
import socket
import sys
import time

ATTACK = sys.argv[1]
# The target comes as "at:PATH", not as a bare path: the sandbox exposes the
# folders of files named on a bot's command line, and the attack must not be
# handed its target that way.
TARGET = sys.argv[2].removeprefix("at:") if len(sys.argv) > 3 else ""
out = sys.stdout.buffer


def report(text):
    sys.stderr.write(f"ATTACK-RESULT {ATTACK} {text}\n")
    sys.stderr.flush()


def err_name(exc):
    return errno.errorcode.get(getattr(exc, "errno", None) or 0, type(exc).__name__)


def send(text):
    out.write(text.encode() + b"\n")
    out.flush()


def connect(host):
    # Safety: only try an outside address where there is no route at all (a
    # fresh network namespace); never send traffic off this machine.
    if host != "127.0.0.1":
        with open("/proc/net/route") as f:
            if len(f.read().splitlines()) > 1:
                report("SKIPPED has-a-route")
                return
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect((host, 9))
        report("SUCCEEDED")
    except OSError as exc:
        report(f"FAILED {err_name(exc)}")
    finally:
        s.close()


def read_file(path):
    try:
        with open(path, "rb") as f:
            f.read(16)
        report(f"SUCCEEDED {path}")
    except OSError as exc:
        report(f"FAILED {err_name(exc)} {path}")


#: World-writable places on a Debian host: a bot may try to leave things there.
SHARED = ("/tmp", "/dev/shm", "/var/tmp", "/run/lock", "/dev/mqueue")
PLANT = "arena-plant-" + (sys.argv[-1] if len(sys.argv) > 3 else "x")
_keep = []  # sockets held open while the match goes on


def plant():
    """Leave a file in every writable shared place, and listen on unix sockets."""
    done = []
    for d in SHARED:
        try:
            with open(os.path.join(d, PLANT), "w") as f:
                f.write("planted\n")
            done.append(d)
        except OSError:
            pass
    for address in (os.path.join("/tmp", PLANT + ".sock"), "\0" + PLANT):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.bind(address)
            s.listen(1)
            _keep.append(s)
            done.append("socket" if address.startswith("/") else "abstract")
        except OSError:
            s.close()
    report("PLANTED " + ",".join(done))


def harvest():
    """Look for what a planter in another seat left."""
    found = [d for d in SHARED if os.path.exists(os.path.join(d, PLANT))]
    for address in (os.path.join("/tmp", PLANT + ".sock"), "\0" + PLANT):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(address)
            found.append("socket" if address.startswith("/") else "abstract")
        except OSError:
            pass
        finally:
            s.close()
    report(("FOUND " + ",".join(found)) if found else "FAILED nothing")


def fill(folder):
    """Write to ``folder`` until refused; report the MiB it took."""
    written = 0
    chunk = b"s" * (1 << 20)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    n = 0
    try:
        while written < 4 << 30:
            with open(os.path.join(folder, f"{PLANT}-{n}"), "wb") as f:
                for _ in range(16):
                    f.write(chunk)
                    f.flush()
                    written += len(chunk)
            n += 1
        report(f"SUCCEEDED {written >> 20} MiB")
    except OSError as exc:
        report(f"FAILED {err_name(exc)} at {written >> 20} MiB")


def attack():
    """Returns True when the bot should not answer normally afterwards."""
    if ATTACK == "plant":
        plant()
    elif ATTACK == "harvest":
        harvest()
    elif ATTACK == "fill-shm":
        fill("/dev/shm")
    elif ATTACK == "fill-tmp":
        fill("/tmp")
    elif ATTACK.startswith("hold-"):  # hold-400: hold that many MiB, every page touched
        size = int(ATTACK.split("-")[1])
        try:
            _keep.append(b"\x01" * (size << 20))
            report(f"SUCCEEDED {size} MiB")
        except MemoryError:
            report("FAILED MemoryError")
    elif ATTACK == "read-list":  # TARGET: paths separated by ":"
        for path in TARGET.split(":"):
            read_file(path)
    elif ATTACK == "connect-local":
        connect("127.0.0.1")
    elif ATTACK == "connect-outside":
        connect("192.0.2.1")  # TEST-NET-1
    elif ATTACK in ("read-shadow", "read-db", "read-other-bot"):
        read_file(TARGET)
    elif ATTACK == "write-outside":
        try:
            with open(TARGET, "w") as f:
                f.write("escaped\n")
            report(f"SUCCEEDED {TARGET}")
        except OSError as exc:
            report(f"FAILED {err_name(exc)} {TARGET}")
    elif ATTACK == "write-1g":
        written = 0
        chunk = b"x" * (1 << 20)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG instead of dying
        try:
            with open("attack-big-file", "wb") as f:
                while written < 1 << 30:
                    f.write(chunk)
                    f.flush()
                    written += len(chunk)
            report(f"SUCCEEDED {written >> 20} MiB")
        except OSError as exc:
            report(f"FAILED {err_name(exc)} at {written >> 20} MiB")
        finally:
            try:
                os.unlink("attack-big-file")
            except OSError:
                pass
    elif ATTACK == "alloc-2g":
        held = []
        try:
            for _ in range(32):  # 32 x 64 MiB, every page touched
                held.append(b"\x01" * (64 << 20))
            report("SUCCEEDED 2048 MiB")
        except MemoryError:
            report(f"FAILED MemoryError at {len(held) * 64} MiB")
        del held
    elif ATTACK == "fork-bomb":
        forked = 0
        failure = "none"
        for _ in range(2000):
            try:
                pid = os.fork()
            except OSError as exc:
                failure = err_name(exc)
                break
            if pid == 0:
                time.sleep(3)
                os._exit(0)
            forked += 1
        report(f"{'FAILED ' + failure if failure != 'none' else 'SUCCEEDED'} after {forked} forks")
        time.sleep(30)  # keep the children around: the arena must kill them
        return True
    elif ATTACK == "cpu-spin":
        report("STARTED")
        while True:
            pass
    elif ATTACK == "sleep-forever":
        report("STARTED")
        time.sleep(3600)
    elif ATTACK == "stdout-flood":
        report("STARTED")
        chunk = b"B" * 65536
        while True:
            out.write(chunk)
            out.flush()
    elif ATTACK == "stderr-flood":
        report("STARTED")
        chunk = "e" * 65535 + "\n"
        for _ in range(200):  # 12.5 MiB, then play on
            sys.stderr.write(chunk)
        sys.stderr.flush()
    elif ATTACK == "close-stdout":
        report("STARTED")
        os.close(1)
        time.sleep(3600)
    elif ATTACK == "ignore-sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        report("STARTED")
        time.sleep(3600)
    elif ATTACK == "escape":  # double fork + setsid: out of our group and session
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", *sys.argv])
            os._exit(0)
        os.wait()
        report("STARTED")
    elif ATTACK == "blind":  # leave a process, then blind the supervisor (our parent, the same uid)
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", *sys.argv])
            os._exit(0)
        os.wait()
        import resource
        supervisor = os.getppid()
        tries = {
            # no descriptor left to read /proc with, no process, no CPU
            "nofile": lambda: resource.prlimit(supervisor, resource.RLIMIT_NOFILE, (0, 0)),
            "nproc": lambda: resource.prlimit(supervisor, resource.RLIMIT_NPROC, (0, 0)),
            "cpu": lambda: resource.prlimit(supervisor, resource.RLIMIT_CPU, (0, 0)),
            "nice": lambda: os.setpriority(os.PRIO_PROCESS, supervisor, 19),
            "nice-uid": lambda: os.setpriority(os.PRIO_USER, 0, 19),
            "idle": lambda: os.sched_setscheduler(supervisor, os.SCHED_IDLE, os.sched_param(0)),
            "stop": lambda: os.kill(supervisor, signal.SIGSTOP),
            "term": lambda: os.kill(supervisor, signal.SIGTERM),
        }
        said = []
        for name, call in tries.items():
            try:
                call()
                said.append(f"{name}=done")
            except OSError as exc:
                said.append(f"{name}={err_name(exc)}")
        report("TRIED " + " ".join(said))
    elif ATTACK == "outlive":  # a child that ignores SIGTERM and SIGHUP
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            os.execv(sys.executable, [sys.executable, "-c",
                     "import signal,time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)",
                     *sys.argv])
        report("STARTED")
    return False


money = None
acts = []
ends = 0
attacked = False
phase = ""
hand = 0
# A harvester waits for the second hand: by then every other seat has played.
FIRST_HAND = 1 if ATTACK == "harvest" else 0
for raw in sys.stdin:
    line = raw.rstrip("\n")
    if line.startswith("Hand:"):
        hand = int(line.split()[1])
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
            if not attacked and hand >= FIRST_HAND:
                attacked = True
                if attack():
                    continue
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
            send("Money: " + ",".join(map(str, money)))
    elif line.startswith("NumHands:"):
        send("Thank you dealer, have a nice day!")
        break
