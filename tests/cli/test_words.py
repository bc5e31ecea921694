"""The command line as a newcomer meets it, driven in-process (typer's
CliRunner): one help style, one error style with suggestions, the games'
words, entrant names, `arena tournaments`, tables that fit 80 columns, and
the hints for the commonest first mistakes."""

from __future__ import annotations

import io
import itertools
import json
import math
import re
import sys

import pytest
from click.testing import CliRunner

from arena._faults import Fault, FaultKind
from arena._plan import entrant_specs
from arena.cli import command
from arena.results._standings import compute_standings
from arena.results._store import open_store

from ..conftest import SAMPLE_BOTS, replay_key

RULE = str(SAMPLE_BOTS / "build" / "rule_bot")


def arena(*args: str, columns: int = 80):
    return CliRunner().invoke(command(), list(args), env={"COLUMNS": str(columns)})


# -- one help style -------------------------------------------------------------------


@pytest.mark.parametrize("command", [["kuhn3"], ["holdem"], ["vonneumann"], ["tournament"], ["play"],
                                     ["standings"], ["quarantine"], []])
def test_help_names_values_one_way_and_defaults_one_way(command):
    out = arena(*command, "--help")
    assert out.exit_code == 0, out.output
    text = out.stdout
    flat = " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())
    assert not re.search(r"<(bool|int|float|str|path|list\[str\])>", text), text
    assert "[default:" not in text, text
    if command and command[0] in ("kuhn3", "play"):
        assert "--timeout NUMBER Seconds allowed for each reply. (default: 1.0)" in flat, text


def test_a_game_is_offered_only_the_options_it_can_use():
    kuhn3, holdem, vonneumann = (" ".join(re.findall(r"(--[a-z-]+)\s", arena(g, "--help").stdout)) + " "
                                 for g in ("kuhn3", "holdem", "vonneumann"))
    assert "--lifetime " not in kuhn3 and "--hand-history " not in kuhn3 and "--acpc-log " in kuhn3
    assert "--hand-history " in holdem and "--acpc-log " in holdem and "--matches " in holdem
    assert "--lifetime " in vonneumann and "--acpc-log " not in vonneumann


def test_no_game_parameter_shares_a_name_with_an_option_and_old_names_still_work(monkeypatch, capsys):
    from arena import _checks
    from arena._games import load_game

    holdem, pennies = (" ".join(re.findall(r"(--[a-z-]+)\s", arena(g, "--help").stdout)) + " "
                       for g in ("holdem", "pennies"))
    assert "--mode " in holdem and "--format " not in holdem
    assert "--throws " in pennies and "--rounds " not in pennies
    # The old names: taken for the new ones with a warning that names them (once a process),
    # refused beside them, and read silently from what was stored (Params).
    monkeypatch.setattr(_checks, "_said", set())
    assert _checks.game_params(load_game("holdem"), {"format": "freezeout"}, keys=True).mode == "freezeout"
    assert _checks.game_params(load_game("pennies"), {"rounds": 7}).throws == 7
    assert _checks.game_params(load_game("pennies"), {"rounds": 8}).throws == 8
    assert capsys.readouterr().err.splitlines() == [
        "arena: warning: holdem -p format is now -p mode (the old name works until 0.2)",
        "arena: warning: pennies --rounds is now --throws (the old name works until 0.2)"]
    both = arena("pennies", "a", "b", "--rounds", "3", "--throws", "4")
    assert both.exit_code == 2 and "arena: error: --rounds is the old name of --throws (pennies): give --throws only" \
        in both.output, both.output
    old = arena("play", "holdem", "a", "b", "-p", "format=poker")
    assert old.exit_code == 2 and "-p mode: Input should be 'cash' or 'freezeout', got 'poker'" in old.output, old.output
    assert load_game("pennies").Params.model_validate({"rounds": 5}).model_dump() == {"throws": 5}
    # A bot written before the rename still finds the value under the old name in match_start.
    from protocols.jsonlines import wire_params
    told = wire_params(load_game("holdem").Params(mode="freezeout"))
    assert told["mode"] == told["format"] == "freezeout"
    assert wire_params(load_game("pennies").Params(throws=9)) == {"throws": 9, "rounds": 9}


def test_no_seed_jargon_in_help():
    for command in ([], ["holdem"], ["kuhn3"], ["strategy"]):
        text = arena(*command, "--help", columns=200).stdout
        assert not re.search(r"seed 00\d|the seed's", text), (command, text)


# -- one error style ------------------------------------------------------------------


@pytest.mark.parametrize("args, words", [
    (["kuhn"], "no command 'kuhn'; did you mean 'kuhn3'?"),
    (["tournamnet"], "did you mean 'tournament'?"),
    (["play", "kuhn", "x"], "no game 'kuhn' is installed; did you mean 'kuhn3'?"),
    (["tournament", "holdm", "a", "b"], "did you mean 'holdem'?"),
    (["kuhn3", "--timeot", "1", "a", "b", "c"], "no such option: --timeot"),
    (["show"], "missing argument"),
    (["standings", "--format", "xml"], "--format is one of table, json, csv, not 'xml'"),
])
def test_every_mistake_is_one_arena_error_line(args, words):
    out = arena(*args)
    assert out.exit_code == 2, out.output
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: ") and words in lines[0], out.stderr
    assert "╭" not in out.stderr and "Traceback" not in out.stderr


def test_an_unquoted_interpreter_is_refused_before_anything_starts(tmp_path):
    bot = tmp_path / "mybot.py"
    bot.write_text("print('hi')\n")
    out = arena("kuhn3", "python3", str(bot), RULE)
    assert out.exit_code == 2
    assert "bot 'python3' is an interpreter with no program" in out.stderr
    assert 'Quote each bot\'s whole command line, like "python3 mybot.py"' in out.stderr


# -- hints in fault reports -------------------------------------------------------------


def test_a_debug_line_on_stdout_gets_a_hint_and_a_reply_does_not():
    def fault(received: str, detail: str) -> Fault:
        return Fault(seat=0, bot="b", kind=FaultKind.MALFORMED_REPLY, detail=detail, received=received,
                     expected='{"type": "ready"}')

    json_debug = fault("thinking...", "not JSON: Expecting value")
    text_debug = fault("got a card, I will call", "expected exactly 'READY'")
    typo = fault("REDY", "expected exactly 'READY'")
    broken = fault('{"type": "ready"', "not JSON: Expecting ',' delimiter")
    for f in (json_debug, text_debug):
        assert "hint: this line looks like debug output: stdout carries replies only; write anything else to " \
               "stderr" in f.describe()
    assert typo.hint() is None and broken.hint() is None


def test_a_reply_that_never_came_shows_the_reply_expected_and_how_to_flush(tmp_path):
    bot = tmp_path / "noflush.py"  # a pipe is not a terminal: print() waits in a buffer
    bot.write_text("import sys\nfor line in sys.stdin:\n    print('{\"type\": \"ready\"}')\n")
    out = arena("vonneumann", f"{sys.executable} {bot}", str(SAMPLE_BOTS.parent / "vonneumann" / "build" / "naive"),
                "--startup-timeout", "0.5", "--seed", replay_key("1"), "--sandbox", "none")
    assert out.exit_code == 1, out.output
    assert re.search(r"timeout: no first reply within [0-9.]+ s of starting", out.stderr), out.stderr
    assert "\n  expected: {\"type\": \"ready\"}\n" in out.stderr
    assert "hint: a reply ({\"type\": \"ready\"}) must end with a newline and be flushed: print(..., flush=True)" \
           in out.stderr


# -- entrant names -------------------------------------------------------------------------


def test_entrant_names_are_the_program_told_apart_only_when_needed(tmp_path):
    for folder in ("v1", "v2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "bot").write_text("#!/bin/sh\n")
        (tmp_path / folder / "bot").chmod(0o755)
    script = tmp_path / "random_bot.py"
    script.write_text("")

    def names(*commands: str) -> list[str]:
        return [s.name for s in entrant_specs(list(commands))]

    assert names(RULE, f"node {SAMPLE_BOTS / 'rule_bot.js'}", f"python3 -u {script}") == \
        ["rule_bot", "rule_bot.js", "random_bot.py"]
    assert names(RULE, RULE, RULE) == ["rule_bot", "rule_bot-2", "rule_bot-3"]
    assert names(f"python3 {script} --seed 1", f"python3 {script} --seed 2") == \
        ["random_bot.py-seed-1", "random_bot.py-seed-2"]
    assert names(str(tmp_path / "v1" / "bot"), str(tmp_path / "v2" / "bot")) == ["v1-bot", "v2-bot"]
    assert names(f"rule_bot={RULE}", RULE) == ["rule_bot", "rule_bot-2"]
    for name in names(f"python3 {script} --weird 'a b/c'", f"python3 {script}"):
        assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_.+-]{0,39}", name), name


def test_entrants_of_one_runner_are_named_after_the_file_that_tells_them_apart(tmp_path):
    def names(*commands: str) -> list[str]:
        return [s.name for s in entrant_specs(list(commands))]

    folder = tmp_path / "a_folder_with_a_long_name_that_once_filled_the_name"
    runner = "node shims/js/rpsdraft_runner.js"
    # issue 47: these were `rpsdraft_runner.js--DIR…` and `rpsdraft_runner.js--DIR…-2`
    assert names(f"{runner} {folder}/rps_BasicOdds.js", f"{runner} {folder}/rps_Simple.js") == \
        ["rps_BasicOdds.js", "rps_Simple.js"]
    assert names(f"{runner} DIR/rps_BasicOdds.js", f"{runner} DIR/rps_Simple.js") == ["rps_BasicOdds.js", "rps_Simple.js"]
    # One file name in two folders: the folder tells them apart; the same file, the other words that differ.
    assert names(f"{runner} v1/rps.js", f"{runner} v2/rps.js") == ["v1-rps.js", "v2-rps.js"]
    assert names(f"python3 {RULE}.py --strategy a.txt --seed 1", f"python3 {RULE}.py --strategy b.txt --seed 1",
                 f"python3 {RULE}.py --strategy b.txt --seed 2") == ["a.txt", "b.txt-seed-1", "b.txt-seed-2"]
    # Arguments too long for a name: only those that differ, never a counter.
    long = f"python3 {RULE}.py --config {folder}/settings_of_the_bot.json --seed"
    assert names(f"{long} 1", f"{long} 2") == ["rule_bot.py-seed-1", "rule_bot.py-seed-2"]
    # A relay's entrants (HIGC, ACPC) by their own program's words.
    assert names("higc:python3 bots/x.py --level 1", "higc:python3 bots/x.py --level 2") == \
        ["x.py-level-1", "x.py-level-2"]


# -- what a database holds --------------------------------------------------------------


def _stored(db, game: str, names: list[str], results: list[tuple[list[int], list[float]]]) -> int:
    """A tournament written through the store's own methods, as a run writes it."""
    store = open_store(db)
    try:
        entrants = [(n, store.bot_id(n, RULE, [RULE])) for n in names]
        tid = store.new_tournament(game, 1, {}, "7", 1, "match", entrants)
        for i, (seats, scores) in enumerate(results):
            store.add_match(tid, {"round": 0, "idx": i, "seats": seats, "seed": f"s{i}", "completed": True,
                                  "hands": 10, "scores": scores, "payoffs": scores, "faults": [], "timings": {}})
        store.finish_tournament(tid)
    finally:
        store.close()
    return tid


def test_tournaments_lists_what_a_database_holds_and_standings_takes_the_latest(tmp_path):
    db = tmp_path / "league.db"
    empty = arena("tournaments", "--db", str(tmp_path / "none.db"))
    assert empty.exit_code == 2 and "no such database" in empty.stderr
    _stored(db, "kuhn3", ["ann", "bob", "cid"], [([0, 1, 2], [3, -1, -2])])
    _stored(db, "pennies", ["pat", "quinn"], [([0, 1], [4, -4]), ([1, 0], [2, -2])])
    out = arena("tournaments", "--db", str(db), columns=200)  # (a temporary folder's path is long)
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert lines[0] == f"tournaments in {db}"
    one = next(line for line in lines if line.split()[:2] == ["1", "kuhn3"])
    two = next(line for line in lines if line.split()[:2] == ["2", "pennies"])
    assert "ann, bob, cid" in one and "1/1" in one and "finished" in one
    assert "pat, quinn" in two and "2/2" in two
    rows = [json.loads(line) for line in arena("tournaments", "--db", str(db), "--json").stdout.splitlines()]
    assert [(r["id"], r["game"], r["entrants"], r["played"]) for r in rows] == \
        [(1, "kuhn3", ["ann", "bob", "cid"], 1), (2, "pennies", ["pat", "quinn"], 2)]
    latest = arena("standings", "--db", str(db), "--format", "json")
    assert latest.exit_code == 0 and latest.stderr == f"arena: tournament 2, the latest in {db}\n"
    assert json.loads(latest.stdout)["tournament"] == 2
    assert json.loads(latest.stdout)["units"]["tournament"] == "points"


def test_standings_of_a_two_bot_series_say_when_the_rank_and_the_matches_disagree(tmp_path):
    db = tmp_path / "series.db"
    results = []
    for i in range(20):  # odds wins 4 of 20 by 10 points, loses 16 by 1
        mine = 10.0 if i % 5 == 0 else -1.0
        results.append(([0, 1], [mine, -mine]) if i % 2 == 0 else ([1, 0], [-mine, mine]))
    _stored(db, "pennies", ["odds", "simple"], results)
    out = arena("standings", "--db", str(db))
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert text.startswith("tournament 1 · pennies · ") and "· ranked by points rank bot points" in text
    assert re.search(r"1 odds 24\.000 .* 2 simple -24\.000 ", text), out.stdout
    assert "won, lost, drawn, Elo, LOS and the rating count matches (each won by the bot with more points in it)" \
        in text
    assert re.search(r"odds ranks first by points \(24 to -24\) but won 4 and lost 16 of its 20 matches against "
                     r"simple \(Elo -\d+±\d+, LOS \d+\.\d%\): odds won by more, simple more often\.", text), text


# -- words -----------------------------------------------------------------------------------


def test_every_game_names_its_units():
    from arena._games import available_games, load_game

    for game in available_games():
        plugin = load_game(game)
        units = plugin.units(plugin.Params())
        assert set(units) == {"payoff", "hands", "score", "tournament"} and all(units.values()), game
        assert units["payoff"] != "bankroll", game  # the unit, not a word some games do not have
    assert load_game("kuhn3").units()["score"] == "chips/√hands"
    assert load_game("kuhn3").units()["tournament"] == "chips"
    holdem = load_game("holdem")
    assert holdem.units(holdem.Params(mode="freezeout", tournaments=1))["payoff"] == "points"
    assert load_game("rpsdraft").units()["payoff"] == "turns won"


def test_a_seats_json_says_payoff_and_keeps_the_old_key_for_scripts():
    from arena.play._match import SeatResult

    seat = SeatResult(seat=1, bot="b", payoff=-3, score=-1.5, time_used=0.25)
    shown = seat.to_json()
    assert shown["payoff"] == shown["bankroll"] == -3 and shown["score"] == -1.5
    with pytest.warns(DeprecationWarning, match=r"SeatResult\.bankroll is now SeatResult\.payoff"):
        assert seat.bankroll == -3


# -- tables that fit ------------------------------------------------------------------------------


def test_standings_fit_80_columns_and_show_what_varies():
    from rich.console import Console

    from arena.cli import _results

    long = [f"a_rather_long_entrant_name_number_{i}" for i in range(4)]
    matches = []
    # 3 seats of 4 entrants: every table in every rotation, entrant 0 the strongest
    for table in itertools.combinations(range(4), 3):
        for k in range(3):
            seats = list(table[k:] + table[:k])
            scores = [30.0 if s == 0 else -15.0 + s for s in seats]
            scores[-1] -= sum(scores)
            matches.append({"seats": seats, "scores": scores, "faults": [], "status": "done",
                            "round": 0, "idx": len(matches)})
    table = compute_standings(long, matches)
    cross = table["cross_table"]
    assert table["cross_table_measure"] == "margin"
    # a row's figures vary with the column, and a pair's margins are opposite
    for a in long:
        assert len({round(v, 6) for v in cross[a].values()}) > 1, cross[a]
        for b, value in cross[a].items():
            assert value == pytest.approx(-cross[b][a])
    narrow = Console(width=80, record=True, file=io.StringIO())
    _results.print_standings("kuhn3", 1, table, {}, console=narrow)
    rendered = narrow.export_text()
    assert max(map(len, rendered.splitlines())) <= 80, rendered
    assert f"{cross[long[0]][long[1]]:.3f}" in rendered
    assert "1. a_rather_long_entrant_name_number_0" in rendered  # too wide for names over the columns
    wide = Console(width=250, record=True, file=io.StringIO())
    _results.print_standings("kuhn3", 1, table, {}, console=wide)
    # with the width, names stay whole on their line
    assert re.search(r"^ +1 +a_rather_long_entrant_name_number_0 +258\.000 ", wide.export_text(), re.M)
    assert "…" not in wide.export_text()
    # at 80, a name is cut with an ellipsis on its one line, never wrapped: no line holds a piece of one
    assert re.search(r"^ +1 +a_rather_long_entra\w*… +258\.000 ", rendered, re.M), rendered
    _no_name_broken(rendered, long)
    # two seats: Elo and LOS in the head-to-head
    def played(i: int) -> dict:
        a = 1.0 if i % 3 else -1.0  # entrant a wins 8 of 12, in either seat
        seats = [0, 1] if i % 2 == 0 else [1, 0]
        return {"seats": seats, "scores": [a, -a] if seats[0] == 0 else [-a, a], "faults": [],
                "status": "done", "round": i // 2, "idx": i % 2}

    two = compute_standings(["a", "b"], [played(i) for i in range(12)])
    row = next(r for r in two["head_to_head"] if r["bot"] == "a")
    assert row["wins"] == 8 and row["losses"] == 4
    assert row["elo"] == pytest.approx(-400 * math.log10(1 / (8 / 12) - 1))
    assert 0.5 < row["los"] < 1
    shown = Console(width=80, record=True, file=io.StringIO())
    _results.print_standings("pennies", 2, two, {}, console=shown)
    assert re.search(r"\ba +b +12 +8 +4 .* \+120±\d+ +\d+\.\d%", shown.export_text()), shown.export_text()


def _no_name_broken(text: str, names: list[str]) -> None:
    """Every piece of a name in ``text`` is a whole name, or its start cut with "…": never a
    piece that carries on from the line before (a name wrapped mid-word)."""
    for line in text.splitlines():
        for word in re.findall(r"[A-Za-z0-9_.+-]+…?", line):
            if any(word.rstrip("…") in n and word.rstrip("…") != n for n in names) and len(word) > 3:
                assert word.endswith("…") and any(n.startswith(word[:-1]) for n in names), (word, line)


def test_a_two_bot_series_says_what_ranks_and_what_each_verdict_counts():
    from rich.console import Console

    from arena.cli import _results

    # a wins 4 matches of 20 by 10 points and loses the other 16 by 1: first by points, last by matches won
    def played(i: int) -> dict:
        a = 10.0 if i % 5 == 0 else -1.0
        seats = [0, 1] if i % 2 == 0 else [1, 0]
        return {"seats": seats, "scores": [a, -a] if seats[0] == 0 else [-a, a], "faults": [],
                "status": "done", "round": i // 2, "idx": i % 2}

    table = compute_standings(["a", "b"], [played(i) for i in range(20)])
    assert [r["bot"] for r in table["standings"]] == ["a", "b"]
    out = Console(width=80, record=True, file=io.StringIO())
    _results.print_standings("pennies", 3, table, {"sprt": {"elo0": 0, "elo1": 50}}, console=out)
    text = " ".join(out.export_text().split())
    assert "tournament 3 · pennies · SPRT [0, 50]" in text and "ranked by points" in text
    assert ("The rank counts points in total; won, lost, drawn, Elo, LOS, SPRT and the rating count matches "
            "(each won by the bot with more points in it), not how many points.") in text
    assert re.search(r"a ranks first by points \(24 to -24\) but won 4 and lost 16 of its 20 matches against b "
                     r"\(Elo -\d+±\d+, LOS \d+\.\d%\): a won by more, b more often\.", text), text
    # Where the rank and the matches agree, only what each counts is said.
    agree = compute_standings(["a", "b"], [{**played(i), "scores": [1.0, -1.0] if played(i)["seats"][0] == 0
                                            else [-1.0, 1.0]} for i in range(20)])
    out = Console(width=80, record=True, file=io.StringIO())
    _results.print_standings("pennies", 4, agree, {}, console=out)
    text = out.export_text()
    assert "ranks first" not in text and "The rank counts points" in text
