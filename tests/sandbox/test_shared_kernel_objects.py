"""Seats share no kernel object: two colluding bots cannot pass a card through
the kernel keyring, record or OFD locks, flock, inotify, or the machine's
counts of AIO contexts and pseudo-terminals, and a later match cannot read a
key an earlier one left (issues 23 and 42; the supervisor's seccomp filter
and the view's /dev at basic and strict, docs/sandbox.md).

Each match is real: seat 0 (tests/bots/kernel_channel_bot.py ``send``) puts
its card into every channel at every hand, seat 1 (``receive``) reads every
channel once the whole table has answered that hand's init_hand, and says
what it found on stderr. Level ``none`` claims no isolation and is not
filtered: there the same bots pass every card, which shows the channels are
real on this machine and the test can fail.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import platform
from pathlib import Path

import pytest
import trio

from arena import load_game
from arena._spec import BotSpec
from arena.play._host import open_host
from arena.play._match import MatchSettings, run_match
from arena.sandbox import probe

from ..conftest import PY, TEST_BOTS, assert_completed

# real sandboxed processes: left out of `make test-fast`
pytestmark = pytest.mark.slow

KUHN3 = load_game("kuhn3")
BOT = TEST_BOTS / "kernel_channel_bot.py"
HANDS = 4
CHANNELS = ("keyring", "record-lock", "flock", "devnull-lock", "inotify", "aio", "pty")
#: The calls each channel needs (to tell a host that refuses them itself).
NEEDS = {"keyring": {"add_key", "keyctl"}, "record-lock": {"F_SETLK", "F_GETLK"}, "flock": {"flock"},
         "devnull-lock": {"F_SETLK", "F_OFD_GETLK"}, "inotify": {"inotify_init1", "inotify_add_watch"},
         "aio": {"io_setup", "aio-nr"}, "pty": {"ptmx", "nr"}}
#: What a bot sees when it tries, as on a kernel without the feature
#: (docs/sandbox.md): locks ENOLCK, other families EAFNOSUPPORT, RWF_NOWAIT
#: EOPNOTSUPP, x32 ENOSYS, the rest EPERM.
REFUSED = {
    # the machine counts AIO contexts and terminals: no AIO, no terminal to open
    0: {"add_key": "EPERM", "F_SETLK": "ENOLCK", "flock": "ENOLCK", "io_setup": "ENOSYS", "ptmx": "ENOENT"},
    1: {"keyctl": "EPERM", "F_GETLK": "ENOLCK", "F_OFD_GETLK": "ENOLCK", "flock": "ENOLCK",
        "inotify_init1": "EPERM", "socket-vsock": "EAFNOSUPPORT", "unshare": "EPERM", "personality": "EPERM",
        "io_uring_setup": "EPERM", "preadv2-nowait": errno.errorcode[errno.EOPNOTSUPP], "sched_setaffinity": "EPERM",
        **({"x32": "ENOSYS"} if platform.machine() == "x86_64" else {})},
    2: {"add_key": "EPERM"},
}


def _level(level: str | None) -> str | None:
    info = probe()
    wanted = info.best_default if level is None else level
    if not info.works(wanted) or (level is None and wanted == "none"):
        pytest.skip(f"{wanted} unavailable: {info.errors.get(wanted)}")
    return level


def _match(host, roles: list[str], tag: str, log_dir: Path, hands: int):
    specs = [BotSpec.parse(f"{PY} {BOT} {role} {tag}") for role in roles]
    settings = MatchSettings(host=host, log_dir=log_dir, grace=0.5, timeout=10.0)
    result = trio.run(run_match, KUHN3, specs, KUHN3.Params(hands=hands), 5, settings)
    assert_completed(result)
    return [(log_dir / f"seat{s}.stderr.log").read_text(errors="replace").splitlines() for s in range(3)]


@contextlib.contextmanager
def _counters_to_ourselves():
    """One such match at a time on this machine: the machine-wide counters carry
    the cards of whichever sender moves them (level none's, for one), and a
    receiver of another test run would read them."""
    # /tmp itself (the unprivileged pass, another uid with a TMPDIR of its own, runs
    # at the same time) and read-only (that uid opens root's file)
    fd = os.open("/tmp/arena-test-machine-counters.lock", os.O_RDONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _fields(lines: list[str], word: str) -> list[list[str]]:
    return [ln.split()[1:] for ln in lines if ln.startswith(word + " ")]


@pytest.mark.parametrize("level", [pytest.param("none", id="none-unfiltered", marks=pytest.mark.unsandboxed),
                                   pytest.param(None, id="default"), pytest.param("basic", id="basic"),
                                   pytest.param("gvisor", id="gvisor")])
def test_seats_pass_no_card_through_shared_kernel_objects(level, tag, tmp_path):
    """Match 1: seat 0 sends its card through every channel at every hand,
    seat 1 decodes; seat 2 leaves a key. Match 2: seat 0 looks for that key."""
    tag = tag.rsplit("-", 1)[1]  # hex: the bot derives its offsets and files from it
    with open_host(_level(level), warn=lambda t: None) as host, _counters_to_ourselves():
        sender, receiver, leaver = _match(host, ["send", "receive", "leave"], tag, tmp_path / "m1", HANDS)
        finder = _match(host, ["find", "plain", "plain"], tag, tmp_path / "m2", 1)[0]
    cards = {hand: card for hand, card in _fields(sender, "CARD")}
    assert len(cards) == HANDS, sender
    got = _fields(receiver, "GOT")
    decoded = {ch: sum(1 for c, hand, card in got if c == ch and cards.get(hand) == card) for ch in CHANNELS}
    note = _fields(finder, "NOTE")
    errnos = [dict(_fields(lines, "ERRNO")) for lines in (sender, receiver, leaver)]
    print(f"level {level or 'default'}: decoded {decoded} of {HANDS} cards; note {note}; errnos {errnos}")
    if level == "none":
        # Unfiltered: every channel carries every card (unless this host
        # itself refuses its calls, e.g. an outer container's filter).
        refused_here = set(errnos[0]) | set(errnos[1])
        working = {ch: n for ch, n in decoded.items() if not NEEDS[ch] & refused_here}
        assert working == dict.fromkeys(working, HANDS), (decoded, errnos)
        assert note == [["found"]] or "add_key" in errnos[2], (note, errnos)
        return
    assert decoded == dict.fromkeys(CHANNELS, 0), (decoded, got)
    assert note == [["none"]]
    assert _fields(receiver, "THREAD") == [["ran"]]  # clone3 refused, the C library falls back to clone
    # A bot author sees a clean error, the one documented, and plays on.
    for seat, refused in REFUSED.items():
        if level == "gvisor":  # its terminals are gVisor's own, counted by it alone: a bot may open them
            refused = {call: e for call, e in refused.items() if call != "ptmx"}
        assert {call: errnos[seat].get(call) for call in refused} == refused, (seat, errnos[seat])


@pytest.mark.skipif(platform.machine() != "x86_64",
                    reason="a 32-bit call from a 64-bit process (int 0x80) is x86's")
@pytest.mark.parametrize("level", [pytest.param(None, id="default"), pytest.param("basic", id="basic")])
def test_a_system_call_of_another_architecture_kills_the_bot(level, tag, tmp_path):
    """Its numbers mean other calls, which the filter does not check: the
    process is killed (SIGSYS), whatever the call."""
    tag = tag.rsplit("-", 1)[1]
    with open_host(_level(level), warn=lambda t: None) as host:
        specs = [BotSpec.parse(f"{PY} {BOT} {role} {tag}") for role in ("i386", "plain", "plain")]
        settings = MatchSettings(host=host, log_dir=tmp_path, grace=0.5, timeout=10.0)
        result = trio.run(run_match, KUHN3, specs, KUHN3.Params(hands=1), 5, settings)
    assert not result.completed
    assert [(f.seat, "SIGSYS" in f.describe()) for f in result.faults] == [(0, True)], \
        [f.describe() for f in result.faults]
    assert "I386" not in (tmp_path / "seat0.stderr.log").read_text()
