"""Ctrl-C and SIGTERM as a terminal delivers them: to the whole process group.

Each command runs on a pseudo-terminal in its own session, and the signal goes
to the group (os.killpg), so the tournament's worker processes get it too, as
they do when a person presses Ctrl-C. Whatever else runs, the command prints
one line, no traceback, and exits 130.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time

import pytest

from ..conftest import PY, ROOT, SAMPLE_BOTS, clean_env, replay_key, sigint_default

RULE = str(SAMPLE_BOTS / "build" / "rule_bot")
NOISE = ("Traceback", "KeyboardInterrupt", "Exception Group", "BaseExceptionGroup")


class Terminal:
    """A command on a pseudo-terminal, in a new session (its own process group)."""

    def __init__(self, *args: str) -> None:
        self.master, slave = os.openpty()
        # 200 columns: a live line is cut to the terminal's width
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        try:
            self.proc = subprocess.Popen([PY, "-m", "arena", *args], stdin=slave, stdout=slave, stderr=slave,
                                         env=clean_env(), cwd=ROOT, start_new_session=True,
                                         preexec_fn=sigint_default)
        finally:
            os.close(slave)
        self.seen = ""

    def wait_for(self, pattern: str, timeout: float = 60) -> re.Match:
        """Read until ``pattern`` shows (a deadline on the wait, not a sleep)."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.seen)
            if found:
                return found
            left = deadline - time.monotonic()
            if left <= 0 or (select.select([self.master], [], [], left)[0] and not self._read()):
                self.kill()
                raise AssertionError(f"no {pattern!r} within {timeout} s; the terminal showed:\n{self.seen}")

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        os.close(self.master)

    def _read(self) -> str:
        try:
            chunk = os.read(self.master, 65536).decode(errors="replace")
        except OSError:  # EIO: nothing holds the terminal any more
            return ""
        self.seen += chunk
        return chunk

    def interrupt(self, signum: int) -> tuple[int, str]:
        """Send ``signum`` to the group, as a terminal does; (exit code, what was shown after it)."""
        before = len(self.seen)
        os.killpg(self.proc.pid, signum)
        while self._read():
            pass
        code = self.proc.wait(timeout=60)
        os.close(self.master)
        return code, self.seen[before:]


def test_ctrl_c_stops_a_tournament_and_its_workers_with_one_line(tmp_path):
    db = tmp_path / "t.db"
    term = Terminal("tournament", "kuhn3", RULE, RULE, RULE, "-p", "hands=300", "--rounds", "50", "--jobs", "2",
                    "--db", str(db), "--seed", replay_key("1"))
    term.wait_for(r"leader [^-\s]")  # the live display names a leader: a match was played
    code, after = term.interrupt(signal.SIGINT)
    assert code == 130, term.seen
    for noise in NOISE:
        assert noise not in term.seen, term.seen
    # what stays once rich's live display is taken down (it shows the cursor again last)
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", after.rsplit("\x1b[?25h", 1)[-1])
    lines = [ln for ln in re.split(r"[\r\n]+", shown) if ln.strip()]
    # One sentence; where the terminal is narrower than it ($COLUMNS), the command on a line of its own.
    assert len(lines) == 1 or (len(lines) == 2 and lines[1].startswith("  arena tournament")), after
    assert re.fullmatch(rf"Interrupted tournament 1 \(SIGINT\) after \d+ of 300 matches; "
                        rf"resume with: arena tournament --resume 1 --db {re.escape(str(db))}",
                        " ".join(" ".join(lines).split())), lines


def test_sigterm_stops_a_long_match_and_shows_the_result_so_far():
    term = Terminal("kuhn3", f"a={RULE}", f"b={RULE}", f"c={RULE}", "--hands", "100000000", "--seed", replay_key("5"))
    live = term.wait_for(r"kuhn3 seed 5: ([\d,]+) hands \([\d,]+ hands/s\); chips: a [+-]\d+, b [+-]\d+, c [+-]\d+")
    assert int(live[1].replace(",", "")) >= 0
    code, after = term.interrupt(signal.SIGTERM)
    assert code == 130, term.seen
    for noise in NOISE:
        assert noise not in term.seen, term.seen
    shown = after.replace("\x1b[K", "").replace("\r", "\n")
    # The run has ended: its whole key, secret and all, is shown.
    final = re.search(r"Interrupted kuhn3 seed 5:[0-9a-f]{32}: every bot was stopped; so far, after ([\d,]+) hands, "
                      r"chips: (.*)", shown)
    assert final, shown
    chips = re.findall(r"^a ([+-]\d+), b ([+-]\d+), c ([+-]\d+)$", final[2].strip())[0]
    assert len(chips) == 3 and sum(map(int, chips)) == 0  # kuhn3 is zero-sum: the partial result adds up
    assert int(final[1].replace(",", "")) >= int(live[1].replace(",", ""))


@pytest.mark.slow
def test_ctrl_c_stops_a_quarantine_with_one_line():
    term = Terminal("quarantine", "kuhn3", RULE, "--seed", replay_key("2"))
    term.wait_for(r"step 2/8 ")
    code, after = term.interrupt(signal.SIGINT)
    assert code == 130, term.seen
    for noise in NOISE:
        assert noise not in term.seen, term.seen
    assert "Interrupted quarantine: every bot was stopped" in after
