"""What a caller of the library gets without asking: ``run_match`` with no
settings runs its bots at the machine's default sandbox level, never at
``none`` (the level a tournament, the CLI and the league default to), and a
host is a context manager, as trio's ``open_*`` are."""

from __future__ import annotations

import trio

import arena
from arena.sandbox import ENV, resolve_level

from ..conftest import ROOT

RULE_BOT = str(ROOT / "sample_bots" / "kuhn3" / "build" / "rule_bot")


def test_run_match_without_settings_uses_the_default_sandbox(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)  # the machine's default, not the tests' choice
    expected = resolve_level(None, warn=lambda text: None)
    game = arena.load_game("kuhn3")
    bots = [arena.BotSpec.parse(RULE_BOT) for _ in range(3)]
    result = trio.run(arena.run_match, game, bots, game.Params(hands=3), 7)
    assert result.completed, result.faults
    assert result.sandbox == expected
    assert result.to_json()["sandbox"] == expected
    assert expected != "none", "this machine has no sandbox level at all: the default could not be shown"


def test_a_given_host_is_the_one_the_match_records():
    game = arena.load_game("kuhn3")
    bots = [arena.BotSpec.parse(RULE_BOT) for _ in range(3)]
    with arena.open_host("none") as host:
        result = trio.run(arena.run_match, game, bots, game.Params(hands=3), 7, arena.MatchSettings(host=host))
    assert result.completed and result.sandbox == "none" == host.level
