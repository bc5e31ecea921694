"""Bot text is inert: whatever a bot writes (replies, stderr, its name) reaches
the terminal, --trace, `arena show` and reports with control characters
escaped, and JUnit XML and JSON stay well-formed."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import xml.etree.ElementTree as ET

from arena._text import inert, xml_text

from ..conftest import PY, TEST_BOTS, replay_key, run_arena

GOOD = str(TEST_BOTS / "misbehave.py") + " none"
#: What must never reach a terminal: C0 (but the line feed), DEL, C1, bidi
#: controls, and what XML 1.0 forbids.
FORBIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\ufffe\uffff]")


def _nasty_bot(tmp_path) -> str:
    """The hostile bot, under a file name that is itself hostile."""
    folder = tmp_path / "bots"
    folder.mkdir()
    folder.chmod(0o755)
    path = folder / "nasty\x1b[31mbot\u202e.py"
    shutil.copy(TEST_BOTS / "control_chars_bot.py", path)
    path.chmod(0o755)
    return f"{PY} '{path}' '[/red]' '[bold]'"  # rich markup in its name (an unmatched close tag)


def _clean(text: str, where: str) -> None:
    bad = FORBIDDEN.search(text)
    assert bad is None, f"{where}: raw {bad.group()!r} at {bad.start()}: {text[max(0, bad.start() - 60):bad.start() + 20]!r}"


def test_inert_escapes_and_is_idempotent():
    every = "".join(chr(c) for c in range(0x20)) + "\x7f\x9b\u202e\ufffe"
    shown = inert(every + "é✓")
    _clean(shown, "inert")
    assert shown.endswith("é✓") and "\\x1b" in shown and "\\u202e" in shown
    assert inert(shown) == shown
    assert xml_text("a\nb\x01") == "a\nb\\x01"


def test_terminal_trace_and_json_are_inert(tmp_path):
    bot = _nasty_bot(tmp_path)
    proc = run_arena("kuhn3", bot, GOOD, GOOD, "--seed", replay_key("3"), "--hands", "2", "--trace")
    assert proc.returncode == 1, proc.stderr
    _clean(proc.stdout, "table")
    _clean(proc.stderr, "stderr (FAULT report and trace)")
    assert "malformed_reply" in proc.stderr and "\\x1b]0;pwned title\\x07" in proc.stderr
    assert "[/red]" in proc.stdout  # a name is never read as markup
    proc = run_arena("kuhn3", bot, GOOD, GOOD, "--seed", replay_key("3"), "--hands", "2", "--json")
    _clean(proc.stdout, "json")
    (fault,) = json.loads(proc.stdout)["faults"]
    assert "\x1b]52;" in fault["received"]  # JSON carries the exact text, escaped by the encoder


def test_show_is_inert(tmp_path):
    db = tmp_path / "t.db"
    proc = run_arena("tournament", "kuhn3", _nasty_bot(tmp_path), GOOD, GOOD, "--seed", replay_key("1"),
                     "-p", "hands=2", "--db", str(db))
    _clean(proc.stderr, "tournament progress")
    _clean(proc.stdout, "standings")
    with sqlite3.connect(db) as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM matches WHERE faults != '[]'")]
    assert ids
    shown = run_arena("show", str(ids[0]), "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    _clean(shown.stdout, "arena show")
    assert "\\x1b[2J" in shown.stdout


def test_junit_is_well_formed_whatever_the_bot_writes(tmp_path):
    report = tmp_path / "report.xml"
    proc = run_arena("quarantine", "kuhn3", _nasty_bot(tmp_path), "--seed", replay_key("1"), "--sandbox", "none",
                     "--junit", str(report), timeout=120)
    assert proc.returncode == 1, proc.stderr
    _clean(proc.stdout, "quarantine steps")
    _clean(proc.stderr, "quarantine stderr")
    text = report.read_text(encoding="utf-8")
    _clean(text, "junit")
    root = ET.fromstring(text.encode())  # the XML parser refuses what XML forbids
    failure = root.find(".//failure")
    assert failure is not None and "\\x1b]52;c;" in failure.text
