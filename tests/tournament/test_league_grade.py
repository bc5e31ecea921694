"""League-grade tournaments: faults never pay, named entrants, duplicate deals,
gauntlets and early stops, kept processes done right, ids and interruption,
results out, usage errors that touch nothing, seed-faithful defaults."""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import shlex
import sqlite3
from collections import defaultdict
from itertools import permutations

import pytest

from arena import load_game

from ..conftest import ACPC, PY, ROOT, SAMPLE_BOTS, TEST_BOTS, replay_key, run_arena

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

RULE = str(SAMPLE_BOTS / "build" / "rule_bot")
RULE_RS = str(SAMPLE_BOTS / "build" / "rule_bot_rs")
HOLDEM = ROOT / "sample_bots" / "holdem" / "build"
MISBEHAVE = f"{PY} {TEST_BOTS / 'misbehave.py'}"


def tournament(db, game, *bots_and_options, timeout=300):
    proc = run_arena("tournament", game, *bots_and_options, "--db", str(db), "--json", timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return proc, json.loads(proc.stdout)


def _rows(result):
    return {row["bot"]: row for row in result["standings"]}


# -- a fault never pays -------------------------------------------------------------


@pytest.mark.parametrize("game, good, quiet, greedy, params", [
    ("kuhn3", [f"alice={RULE}", f"bob={RULE_RS}"], f"quiet={MISBEHAVE} silent",
     f"greedy={MISBEHAVE} garbage_ahead", ["-p", "hands=60"]),
    ("vonneumann", [f"alice={ROOT / 'sample_bots/vonneumann/build/kuhn3'}",
                    f"bob={ROOT / 'sample_bots/vonneumann/build/likeme'}"],
     f"quiet={PY} {TEST_BOTS / 'misbehave_vonneumann.py'} silent",
     f"greedy={PY} {TEST_BOTS / 'misbehave_vonneumann.py'} garbage_ahead", ["-p", "sessions=6"]),
])
def test_faulting_bots_rank_below_every_well_behaved_one(game, good, quiet, greedy, params, tmp_path):
    """A bot that stops answering and one that breaks off as soon as it leads
    end below both well-behaved bots, by score and by rating; the well-behaved
    ones carry no fault."""
    # two jobs: the silent bot's timeouts overlap (standings do not depend on --jobs)
    _, result = tournament(tmp_path / "t.db", game, *good, quiet, greedy, *params, "--seed", replay_key("3"),
                           "--timeout", "0.5", "--max-faults", "0", "--lifetime", "match", "--jobs", "2")
    rows = _rows(result)
    assert rows["greedy"]["faults"] and rows["quiet"]["faults"], rows
    for well in ("alice", "bob"):
        assert rows[well]["faults"] == {}
        for bad in ("quiet", "greedy"):
            assert rows[well]["score"] > rows[bad]["score"], (well, bad, rows)
            assert rows[well]["rating"] > rows[bad]["rating"], (well, bad, rows)
    # Under the other rule the greedy bot keeps what it had when it faulted...
    _, so_far = tournament(tmp_path / "s.db", game, *good, greedy, *params, "--seed", replay_key("3"),
                           "--max-faults", "0", "--lifetime", "match", "--on-fault", "score-so-far")
    assert _rows(so_far)["greedy"]["faults"]
    # ...but still ranks below the well-behaved bots for the rating.
    for well in ("alice", "bob"):
        assert _rows(so_far)[well]["rating"] > _rows(so_far)["greedy"]["rating"]


def test_max_faults_disqualifies_and_its_other_matches_are_forfeits(tmp_path):
    _, result = tournament(tmp_path / "t.db", "kuhn3", f"a={RULE}", f"b={RULE_RS}", f"c={RULE}",
                           f"crash={MISBEHAVE} crash", "-p", "hands=5", "--seed", replay_key("1"), "--max-faults", "2")
    rows = _rows(result)
    assert rows["crash"]["disqualified"] and result["standings"][-1]["bot"] == "crash"
    assert sum(rows["crash"]["faults"].values()) == 2
    assert rows["crash"]["forfeits"] == 18 - 2  # every later match of its
    forfeits = [m for m in result["match_list"] if m["status"] == "forfeit"]
    assert forfeits and all("crash" in m["entrants"] for m in forfeits)
    assert not any(rows[x]["disqualified"] for x in "abc")


# -- named entrants -----------------------------------------------------------------


def test_the_same_command_twice_is_two_entrants_with_full_shares(tmp_path):
    proc, result = tournament(tmp_path / "t.db", "kuhn3", RULE, RULE, f"named={RULE_RS}", RULE_RS,
                              "-p", "hands=5", "--seed", replay_key("2"))
    rows = _rows(result)
    assert set(rows) == {"rule_bot", "rule_bot-2", "named", "rule_bot_rs"}
    assert {r["matches"] for r in rows.values()} == {18}  # 4 entrants, 3 seats: 3/4 of 24
    assert "rule_bot-2" in proc.stderr and "named" in proc.stderr  # progress lines name them
    assert set(result["cross_table"]) == set(rows)
    # each rating moved away from the prior: they were all rated
    assert all(r["rating_sigma"] < 25 / 3 for r in rows.values())


def test_names_must_be_unique(tmp_path):
    proc = run_arena("tournament", "kuhn3", f"x={RULE}", f"x={RULE_RS}", RULE, "--db", str(tmp_path / "t.db"))
    assert proc.returncode == 2 and "two entrants are named 'x'" in proc.stderr
    assert not (tmp_path / "t.db").exists()


# -- duplicate deals ----------------------------------------------------------------


def _deals(data_dir, pattern: str) -> dict[tuple[int, int], list[str]]:
    """For each (round, index): the card lines sent to each seat, in order."""
    out = {}
    for path in sorted(data_dir.rglob("r*-m*.log.gz")):
        r, m = map(int, re.findall(r"r(\d+)-m(\d+)", path.name)[0])
        seats = defaultdict(list)
        with gzip.open(path, "rt") as log:
            for line in log:
                found = re.search(r"seat (\d) -> " + pattern, line)
                if found:
                    seats[int(found.group(1))].append(found.group(2))
        out[(r, m)] = [seats[s] for s in sorted(seats)]
    return out


@pytest.mark.parametrize("game, bots, pattern, params", [
    ("kuhn3", [RULE, RULE_RS, f"{SAMPLE_BOTS / 'check_fold_bot.py'}"], r"(Cards: \w)", ["-p", "hands=20"]),
    ("twocarddraw", [f"{ROOT / 'sample_bots/twocarddraw/random_bot.py'} --seed 1",
                     f"{ROOT / 'sample_bots/twocarddraw/random_bot.py'} --seed 2"],
     r'.*"type":"new_hand".*?"cards":(\[[0-9,]+\])', ["-p", "hands=30"]),
    # limit hold'em from the ACPC package's three-seat definition: each seat's hole cards
    ("holdem", [f"call={HOLDEM / 'call_bot'}", f"rule={HOLDEM / 'rule_bot'}", f"rule2={HOLDEM / 'rule_bot'}"],
     r'.*"type":"hand_start".*?"cards":(\[[^\]]*\])', ["-p", f"gamedef={ACPC / 'holdem.limit.3p.game'}",
                                                         "-p", "hands=10"]),
])
def test_duplicate_deals_give_every_seating_the_same_cards(game, bots, pattern, params, tmp_path):
    db = tmp_path / "t.db"
    _, result = tournament(db, game, *bots, *params, "--seed", replay_key("9"), "--duplicate", "--lifetime", "match")
    assert result["format"]["duplicate"]  # the standings say how they were played
    assert "duplicate deals" in run_arena("standings", "1", "--db", str(db)).stdout
    deals = _deals(tmp_path / "t-data", pattern)
    # every order of the entrants, or (hold'em) every rotation of one order
    rotations = load_game(game).seatings == "rotations"
    seatings = len(bots) if rotations else len(list(permutations(range(len(bots)))))
    assert len(deals) == seatings
    first = deals[(0, 0)]
    assert all(first) and all(deals[(0, i)] == first for i in range(seatings))
    # without --duplicate, the seatings get different cards
    tournament(tmp_path / "p.db", game, *bots, *params, "--seed", replay_key("9"), "--lifetime", "match")
    plain = _deals(tmp_path / "p-data", pattern)
    assert len({json.dumps(v) for v in plain.values()}) > 1


# -- gauntlet and early stop ----------------------------------------------------------


def test_a_gauntlet_plays_only_the_candidate_in_every_seating(tmp_path):
    bots = [f"cand={RULE}", f"b={RULE_RS}", f"c={SAMPLE_BOTS / 'check_fold_bot.py'}", f"d={RULE}"]
    _, result = tournament(tmp_path / "t.db", "kuhn3", *bots, "-p", "hands=3", "--seed", replay_key("1"), "--gauntlet", "cand")
    lineups = [tuple(m["entrants"]) for m in result["match_list"]]
    assert all("cand" in lineup for lineup in lineups)
    assert len(lineups) == len(set(lineups)) == 18  # 3 * 3!: every seating with it, once
    assert _rows(result)["cand"]["matches"] == 18


def test_until_ci_stops_early_and_rounds_is_the_cap(tmp_path):
    bots = [RULE, RULE_RS, f"{SAMPLE_BOTS / 'check_fold_bot.py'}"]
    _, wide = tournament(tmp_path / "w.db", "kuhn3", *bots, "-p", "hands=10", "--seed", replay_key("1"),
                         "--rounds", "4", "--until-ci", "1000")
    assert wide["stopped_early"] and wide["rounds"] == 1 and wide["matches"] == 6
    assert any("stopped after round 1 of 4" in e for e in wide["events"])
    _, tight = tournament(tmp_path / "t.db", "kuhn3", *bots, "-p", "hands=10", "--seed", replay_key("1"),
                          "--rounds", "2", "--until-ci", "0.000001")
    assert not tight["stopped_early"] and tight["rounds"] == 2 and tight["matches"] == 12


# -- one process per bot, done right --------------------------------------------------

ODDS = str(ROOT / "sample_bots" / "rpsdraft" / "odds_bot.py")
RPS_BAD = f"{PY} {TEST_BOTS / 'misbehave_rpsdraft.py'}"


@pytest.mark.parametrize("when", ["draft", "main"])
def test_kept_processes_of_innocent_bots_are_never_charged(when, tmp_path):
    """One bot faults in every match it plays (garbage while both seats are
    asked at once); the blameless odds bots carry no fault, and each kept one
    process for the whole tournament."""
    _, result = tournament(tmp_path / "t.db", "rpsdraft", f"odds={ODDS}", f"odds2={ODDS}",
                           f"bad={RPS_BAD} garbage {when}", "--seed", replay_key("5"), "--rounds", "2",
                           "--lifetime", "tournament", "--max-faults", "0", "--broken-start", "0")
    rows = _rows(result)
    assert rows["odds"]["faults"] == {} and rows["odds2"]["faults"] == {}, rows
    assert sum(rows["bad"]["faults"].values()) == 8  # every match it played
    for name in ("odds", "odds2"):
        assert result["standings"][-1]["bot"] == "bad"
        assert rows[name]["matches"] == 8


def test_quarantine_plays_several_matches_in_one_process(tag):
    bot = f"{RPS_BAD} one_match main {tag}"
    proc = run_arena("quarantine", "rpsdraft", bot, "--seed", replay_key("3"), "--matches", "2", timeout=120)
    assert proc.returncode == 1
    assert re.search(r"^step 3/8 PASS", proc.stdout, re.M)  # fresh processes: fine
    assert re.search(r"^step 4/8 FAIL .*disconnected", proc.stdout, re.M), proc.stdout


# -- ids, interruption, results out ---------------------------------------------------


def test_progress_lines_carry_the_ids_show_takes(tmp_path):
    db = tmp_path / "t.db"
    proc, result = tournament(db, "kuhn3", RULE, RULE_RS, f"{SAMPLE_BOTS / 'check_fold_bot.py'}",
                              "-p", "hands=3", "--seed", replay_key("4"))
    started = re.findall(r"^Started match (\d+) \[(\d+)/6\]: ", proc.stderr, re.M)
    finished = re.findall(r"^Finished match (\d+) \[(\d+)/6\]: ", proc.stderr, re.M)
    assert len(started) == len(finished) == 6
    ids = sorted(int(i) for i, _ in finished)
    assert ids == sorted(m["id"] for m in result["match_list"])
    shown = run_arena("show", str(ids[2]), "--db", str(db))
    assert shown.returncode == 0 and shown.stdout.startswith(f"match {ids[2]}: tournament 1 (kuhn3)")


def test_standings_matches_and_export(tmp_path):
    db = tmp_path / "t.db"
    bots = [f"alice={RULE}", f"bob={RULE_RS}", f"carol={SAMPLE_BOTS / 'check_fold_bot.py'}",
            f"crashy={MISBEHAVE} crash"]
    _, result = tournament(db, "kuhn3", *bots, "-p", "hands=4", "--seed", replay_key("6"), "--max-faults", "0", "--broken-start", "0",
                           "--jobs", "2")
    as_json = run_arena("standings", "1", "--db", str(db), "--format", "json")
    assert json.loads(as_json.stdout)["standings"] == result["standings"]
    rows = list(csv.DictReader(io.StringIO(run_arena("standings", "1", "--db", str(db), "--format", "csv").stdout)))
    assert [r["bot"] for r in rows] == [r["bot"] for r in result["standings"]]
    table = run_arena("standings", "1", "--db", str(db)).stdout
    assert "head to head" in table and "alice" in table
    listed = run_arena("matches", "1", "--db", str(db), "--bot", "alice").stdout.splitlines()
    assert len(listed) == 18 and all("alice" in line for line in listed)  # 3/4 of the 24
    faulty = run_arena("matches", "1", "--db", str(db), "--faults").stdout.splitlines()
    assert len(faulty) == 18 and all("crashy crash" in line for line in faulty)
    exported = [json.loads(line) for line in run_arena("export", "1", "--db", str(db)).stdout.splitlines()]
    assert len(exported) == 24 and {e["match"] for e in exported} == {m["id"] for m in result["match_list"]}
    # the command in an export plays that match again, with the same result
    clean = next(e for e in exported if not e["faults"])
    words = shlex.split(clean["replay"])
    assert words[:3] == ["arena", "play", "kuhn3"] and "--seed" in words
    replay = run_arena(*words[1:], "--json")
    assert replay.returncode == 0, replay.stderr
    assert [s["payoff"] for s in json.loads(replay.stdout)["seats"]] == clean["payoffs"]


# -- usage errors, defaults -----------------------------------------------------------


def test_an_unknown_parameter_is_named_with_the_valid_ones_and_nothing_is_created(tmp_path):
    db = tmp_path / "t.db"
    proc = run_arena("tournament", "kuhn3", RULE, RULE, RULE, "-p", "hand=300", "--db", str(db))
    assert proc.returncode == 2
    assert "unknown kuhn3 parameter 'hand'" in proc.stderr and "hands (default null)" in proc.stderr
    assert not db.exists()
    proc = run_arena("tournament", "kuhn3", RULE, RULE, RULE, "-p", "hands=-1", "--db", str(db))
    assert proc.returncode == 2 and "-p hands:" in proc.stderr and not db.exists()


def test_seed_faithful_defaults(tmp_path):
    """rpsdraft, as the seed's tournament: one process per entrant, and out at
    the first fault."""
    db = tmp_path / "t.db"
    _, result = tournament(db, "rpsdraft", f"odds={ODDS}", f"bad={RPS_BAD} garbage main", "--seed", replay_key("1"),
                           "--rounds", "2")
    assert result["max_faults"] == 1
    rows = _rows(result)
    assert rows["bad"]["disqualified"] and rows["bad"]["forfeits"] == 3
    with sqlite3.connect(db) as conn:
        (lifetime,) = conn.execute("SELECT lifetime FROM tournaments").fetchone()
    assert lifetime == "tournament"
    # what a round is: `arena games GAME`, which --rounds' help points to
    assert "(`arena games GAME`)" in " ".join(re.sub(r"[│╭╮╰╯─]", " ", run_arena("tournament", "--help").stdout).split())
    assert "a round is both seatings of every pair of entrants: two rounds of the original challenge" in \
        run_arena("games", "rpsdraft").stdout


def test_duplicate_deals_play_every_bot_process_for_one_match(tmp_path):
    """rpsdraft keeps one process per entrant by default; with --duplicate (as
    the league server always plays, through the same plan_tournament) each
    process plays one match, so no bot remembers a deal between seatings."""
    db = tmp_path / "t.db"
    _, result = tournament(db, "rpsdraft", f"odds={ODDS}", f"odds2={ODDS}", "--seed", replay_key("1"), "--duplicate")
    assert result["completed"]
    with sqlite3.connect(db) as conn:
        (lifetime,) = conn.execute("SELECT lifetime FROM tournaments").fetchone()
    assert lifetime == "match"
