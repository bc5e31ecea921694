"""80 columns everywhere: the arena run as a person runs it, a child process
on a pseudo-terminal 80 columns wide with COLUMNS=80, with entrants named as
long as a name may be (40 characters). Every line fits, and a name is whole
or cut with "…" on its one line: never wrapped mid-word. Off a terminal
nothing is cut, whatever COLUMNS says."""

from __future__ import annotations

import fcntl
import re
import struct
import subprocess
import termios

import pytest
from rich.cells import cell_len

from ..conftest import PY, SAMPLE_BOTS, clean_env, replay_key
from ..play.terminal import Terminal

# real processes and matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

#: three entrants of the longest name allowed, none a piece of another
NAMES = ["alpha_centauri_rule_playing_bot_number1", "bravo_borealis_rule_playing_bot_number2",
         "charlie_cygnus_rust_playing_bot_number3"]
BOTS = [f"{NAMES[0]}={SAMPLE_BOTS / 'build' / 'rule_bot'}", f"{NAMES[1]}={SAMPLE_BOTS / 'build' / 'rule_bot'}",
        f"{NAMES[2]}={SAMPLE_BOTS / 'build' / 'rule_bot_rs'}"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def arena80(*args: str, cwd) -> str:
    """What ``arena ARGS`` shows on a terminal 80 columns wide (a pseudo-terminal; COLUMNS=80, as a
    person's shell exports it), stdout and stderr as they mix there."""
    term = Terminal([PY, "-m", "arena", *args], cwd=str(cwd), env={**clean_env(), "COLUMNS": "80"})
    fcntl.ioctl(term.master, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 80, 0, 0))
    assert term.finish(timeout=120) == 0, term.screen
    return ANSI.sub("", term.screen)


def fits(text: str, what: str) -> list[str]:
    """The lines of ``text``, each checked to fit 80 columns."""
    lines = re.split(r"[\r\n]", text)
    for line in lines:
        assert cell_len(line.rstrip()) <= 80, f"{what}: a line of {cell_len(line.rstrip())} columns:\n{line}\n{text}"
    return lines


def no_name_broken(text: str, what: str) -> None:
    """Every piece of an entrant's name is the whole name, or its start cut with "…"."""
    for line in text.splitlines():
        for word in re.findall(r"[A-Za-z0-9_.+-]+…?", line):
            bare = word.rstrip("…")
            if len(bare) >= 8 and "_" in bare and any(bare in n for n in NAMES) and bare not in NAMES:
                assert word.endswith("…") and any(n.startswith(bare) for n in NAMES), \
                    f"{what}: {word!r} is a piece of a name:\n{line}\n{text}"


def test_standings_and_every_listing_fit_80_columns(tmp_path):
    played = arena80("tournament", "kuhn3", *BOTS, "-p", "hands=5", "--seed", replay_key("4"), "--db", "t.db",
                     cwd=tmp_path)
    fits(played, "the tournament")
    no_name_broken(played, "the tournament")
    # The standings name every entrant, cut to fit.
    assert re.search(r"^ +1 +[a-c]\w+… +-?\d+\.000 ", played, re.M), played
    assert "The rank counts chips in total; the rating counts each match's order of finish" in " ".join(played.split())
    for args in (["tournaments", "--db", "t.db"], ["standings", "--db", "t.db"], ["games"], ["games", "holdem"],
                 ["doctor"]):
        shown = arena80(*args, cwd=tmp_path)
        fits(shown, " ".join(args))
        no_name_broken(shown, " ".join(args))
    listed = arena80("tournaments", "--db", "t.db", cwd=tmp_path)
    assert re.search(r"^ +1 +kuhn3 +[a-c]\w+… \+2 more +6/6 +finished ", listed, re.M), listed
    games = arena80("games", cwd=tmp_path)
    # A description wraps under its column, between words.
    assert re.search(r"^holdem +2 +2-10 +No-limit Texas Hold'em.*\n {29}\S", games, re.M), games


def test_off_a_terminal_nothing_is_cut_whatever_columns_says(tmp_path):
    """A file or a pipe keeps every character (readline exports COLUMNS in processes that load it)."""
    played = subprocess.run([PY, "-m", "arena", "tournament", "kuhn3", *BOTS, "-p", "hands=5", "--db", "t.db"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=120,
                            env={**clean_env(), "COLUMNS": "80"})
    assert played.returncode == 0, played.stderr
    assert "…" not in played.stdout + played.stderr
    assert re.search(rf"^Started match 1 \[1/6\]: {NAMES[0]} vs {NAMES[1]} vs {NAMES[2]}$", played.stderr, re.M)
    assert all(re.search(rf"^ +\d +{n} ", played.stdout, re.M) for n in NAMES), played.stdout


def test_the_live_progress_fits_80_columns_and_cuts_no_count(tmp_path):
    screen = arena80("tournament", "kuhn3", *BOTS, "-p", "hands=40", "--rounds", "2", "--seed", replay_key("6"),
                     "--db", "t.db", cwd=tmp_path)
    pieces = [p for p in re.split(r"[\r\n]", screen) if p.strip()]
    for piece in pieces:
        assert cell_len(piece.rstrip()) <= 80, f"{cell_len(piece.rstrip())} columns: {piece!r}"
    live = [p for p in pieces if "matches ·" in p]
    assert live, term.screen
    for piece in live:  # every count and time whole: never `16/… · 0:… · 0:0… left`
        assert re.search(r"━+ +\d+/12 matches · \d:\d\d:\d\d elapsed · (\d:\d\d:\d\d|-:--:--) left$", piece.rstrip()), \
            piece
    leaders = [p.rstrip() for p in pieces if p.startswith("faults ")]
    assert leaders and leaders[0] == "faults 0 · leader -", leaders  # before the first match ends
    named = [p for p in leaders if p != leaders[0]]
    assert named, leaders
    for piece in named:
        found = re.fullmatch(r"faults 0 · leader (\S+) \([+-]\d+\)", piece)
        assert found and (found[1] in NAMES or (found[1].endswith("…") and any(
            n.startswith(found[1][:-1]) for n in NAMES))), piece
    no_name_broken("\n".join(pieces), "the terminal")
    assert "Finished tournament 1: 12 of 12 matches, 0 with a fault" in " ".join(" ".join(pieces).split())
