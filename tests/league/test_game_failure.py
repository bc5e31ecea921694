"""A league whose game's own code fails (issue 43): the submission's
quarantine is not judged, the bot is not rejected, and the league serves on."""

from __future__ import annotations

import pytest

from ..conftest import ROOT
from ..failing_games import install
from .league_server import League, new_user

COPY = ROOT / "examples" / "pennies" / "arena_pennies" / "bots" / "copy_bot.py"


@pytest.mark.timeout(300)
def test_a_game_that_fails_in_quarantine_rejects_no_submission(tmp_path):
    db = tmp_path / "league.db"
    token = new_user(db, "ann")
    # The other game: vonneumann, whose sample bots and quarantine opponents are compiled (cheap to run).
    server = League(db, "--game", "pennies-raises", "--game", "vonneumann", "-p", "vonneumann.sessions=2",
                    "-p", "vonneumann.games_per_session=5", "--quarantine-matches", "2", "--every", "1h",
                    extra_env={"PYTHONPATH": install(tmp_path / "site")})
    try:
        r = server.submit(token, "copy_bot.py", COPY.read_bytes(), game="pennies-raises", name="copy")
        assert r.status_code == 201, r.text
        bot = r.json()["bot"]
        step = server.wait("the quarantine's verdict", lambda: next(
            (s for s in server.version(bot)["steps"] if s["name"] == "quarantine" and s["status"] != "RUNNING"), None))
        assert step["status"] == "ERROR", step
        assert step["summary"].startswith("not judged: the game's own code failed at step 1 (game pennies-raises: "
                                          "its dialogue raised ZeroDivisionError"), step
        v = server.version(bot)
        assert v["state"] == "built" and v["message"] == step["summary"], v  # in line again, not rejected
        assert "Quarantine of copy v1 (pennies-raises) not judged: game pennies-raises" in server.stderr()
        # The league serves on, and a bot of another game goes through.
        k = server.submit(token, "naive", (ROOT / "sample_bots" / "vonneumann" / "build" / "naive").read_bytes(),
                          game="vonneumann", name="naive").json()["bot"]
        assert server.settled(k)["state"] == "active"
    finally:
        assert server.stop() == 130, server.stderr()
