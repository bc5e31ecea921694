"""Run the sandbox tests once more as an unprivileged user.

``make test`` calls this after the main run. As root it starts pytest under
uid 65534 with no capabilities, the way a hosted CI runner runs the arena,
so the non-root paths (user namespaces, no cgroups, no uid of its own) are
tested for real. Run by a user other than root it has nothing to add: the
main run was already unprivileged.

The interpreter and the checkout may lie under a folder only root may enter
(pyenv under /root, mode 0700). A private mount namespace, made here as root
before dropping privileges, puts a 0755 tmpfs over such a folder with only the
needed trees bound back in; nothing changes outside that namespace.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UID = 65534
#: The tests of what the sandbox guarantees, at every level that works here.
TESTS = [
    "tests/sandbox/test_sandbox.py",
    "tests/sandbox/test_trust.py",
    "tests/sandbox/test_adversarial.py",
    "tests/play/test_fair_deadlines.py::test_in_the_sandbox",
    "tests/sandbox/test_shared_kernel_objects.py",
]


def blocked_ancestor(path: Path) -> Path | None:
    """The outermost ancestor of ``path`` another user cannot enter."""
    for ancestor in reversed([path, *path.parents]):
        mode = ancestor.stat().st_mode
        if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
            return ancestor
    return None


def mount_script(needed: list[Path], stage: Path) -> str:
    """Shell commands (as root, in a private mount namespace) that make ``needed`` reachable."""
    covered: dict[Path, list[Path]] = {}
    for path in needed:
        top = blocked_ancestor(path)
        if top is not None and top != path:
            covered.setdefault(top, []).append(path)
    commands = []
    for top, paths in covered.items():
        for i, path in enumerate(paths):
            keep = stage / f"{len(commands)}-{i}"
            keep.mkdir(parents=True)
            commands.append(f"mount --bind {shlex.quote(str(path))} {shlex.quote(str(keep))}")
        commands.append(f"mount -t tmpfs -o mode=0755 unprivileged-view {shlex.quote(str(top))}")
        for i, path in enumerate(paths):
            keep = stage / f"{len(commands) - 1 - len(paths)}-{i}"
            commands.append(f"mkdir -p {shlex.quote(str(path))}")
            commands.append(f"mount --bind {shlex.quote(str(keep))} {shlex.quote(str(path))}")
    return " && ".join(commands) or "true"


def needed_paths() -> list[Path]:
    """What an unprivileged run of this checkout with this interpreter must reach."""
    base = Path(os.path.realpath(sys.base_prefix))
    needed = sorted({ROOT, Path(sys.prefix), base}, key=lambda p: len(p.parts))
    return [p for p in needed if not any(p != q and q in p.parents for q in needed)]


def private_stage() -> Path:
    return Path(tempfile.mkdtemp(prefix="arena-unprivileged-stage-",
                                 dir="/run" if os.access("/run", os.W_OK) else None))


def main() -> int:
    if os.geteuid() != 0:
        print("tests/unprivileged.py: not root, so the main run was already unprivileged")
        return 0
    needed = needed_paths()
    home = Path(tempfile.mkdtemp(prefix="arena-unprivileged-"))
    stage = private_stage()
    (home / "tmp").mkdir()
    os.chown(home, UID, UID)
    os.chown(home / "tmp", UID, UID)
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "ARENA_CACHE_DIR": str(home / "cache"),
        "HYPOTHESIS_STORAGE_DIRECTORY": str(home / "hypothesis"),
        "LANG": "C.UTF-8",
        "CI": os.environ.get("CI", ""),
    }
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
              "-o", "addopts=--strict-markers --strict-config -ra -p no:anyio",
              # the leak check depends on nothing the user changes, and level none on no
              # privilege: once, in the main run
              "-k", "not do_not_leak", "-m", "not unsandboxed", *sys.argv[1:], *TESTS]
    script = mount_script(needed, stage) + ' && exec "$@"'
    command = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, "unprivileged",
               "setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups", "--inh-caps=-all", "--", *pytest]
    print(f"tests/unprivileged.py: the sandbox tests again, as uid {UID} without capabilities", flush=True)
    try:
        return subprocess.run(command, cwd=ROOT, env=env).returncode
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(stage, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
