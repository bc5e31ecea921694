#!/usr/bin/env python3
"""An rpsdraft bot that reports what it can see and do, on stderr, once per process.

The report is a few short lines ``PROBE PID KEY JSON`` with its uid, capabilities,
no_new_privs, namespace ids, what is at the root of its filesystem, whether
it can read /etc/shadow, and what it can see of the host's paths. With ``fail`` as an argument it then
answers its first pick with garbage (so that a quarantine prints its stderr).
Further arguments (a tag) only mark the process.
"""
import json
import os
import sys

REPLIES = {
    "match_start": {"type": "ready"},
    "draft_pick": {"type": "pick", "index": 0},
    "main_play": {"type": "play", "index": 0},
}


def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return line.split(":", 1)[1].strip()
    return None


def readable(path):
    try:
        with open(path, "rb") as f:
            f.read(1)
        return True
    except OSError:
        return False


def identity():
    """What we run as: real root, a uid of our own, or a user namespace's user."""
    with open("/proc/self/uid_map") as f:
        whole = f.read().split() == ["0", "0", "4294967295"]  # the machine's own namespace
    if not whole:
        return "user namespace"
    if os.getuid() == 0:
        return "root"
    return "own uid" if os.getuid() >= 2_147_000_000 else f"uid {os.getuid()}"


def host_leaks():
    """What the sandbox shows of the host: a stale OLDPWD, a mount whose
    source is not the place it is mounted at (its path inside its own
    filesystem, which may be mounted lower on the host: /root/.x may show as
    /.x), the system tree, filesystem roots and device nodes aside; a cgroup
    path other than its namespace's root."""
    leaks = [f"OLDPWD={os.environ['OLDPWD']}"] if "OLDPWD" in os.environ else []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            source, point = line.split()[3:5]
            if source not in ("/", "/newroot") and not point.endswith(source) and not (
                    source.startswith("/usr/") or point.startswith("/dev/") or point.startswith("/proc/")):
                leaks.append(f"mount {source} at {point}")
    with open("/proc/self/cgroup") as f:
        leaks += [f"cgroup {line.strip()}" for line in f if line.strip().split(":", 2)[2] != "/"]
    return leaks


report = {
    "uid": identity(),
    "CapEff": status("CapEff"),
    "CapBnd": status("CapBnd"),
    "NoNewPrivs": status("NoNewPrivs"),
    "ns": {n: os.readlink(f"/proc/self/ns/{n}") for n in ("pid", "net", "mnt", "ipc", "uts", "cgroup")},
    "leaks": host_leaks(),
    "root": sorted(os.listdir("/")),
    "shadow": readable("/etc/shadow"),
    "pid": os.getpid(),
}
for key, value in report.items():  # short lines: a quarantine report shows 200 characters a line
    sys.stderr.write(f"PROBE {os.getpid()} {key} {json.dumps(value, sort_keys=True)}\n")
sys.stderr.flush()
fail = "fail" in sys.argv[1:]

for line in sys.stdin:
    kind = json.loads(line)["type"]
    reply = REPLIES.get(kind)
    if kind == "draft_pick" and fail:
        sys.stdout.write("not json at all\n")
        sys.stdout.flush()
        continue
    if reply is not None:
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
