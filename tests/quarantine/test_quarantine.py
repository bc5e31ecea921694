"""``arena quarantine``: sample bots pass it, misbehaving bots fail at the right step.

Everything runs real bot processes through the real CLI (``python -m arena``),
except the manifest checks, which call the module directly.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from arena import load_game

from arena.quarantine._manifest import games_with_manifests, manifest_of, resolve_command
from arena.quarantine._run import make_plan
from arena.quarantine._report import STEPS
from arena.quarantine._run import _lineup as lineup

from ..conftest import PY, ROOT, TEST_BOTS, processes_with, python_bot, replay_key, run_arena

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

STEP_LINE = re.compile(r"^step (\d+)/(\d+) (PASS|FAIL|SKIP|INFO) ", re.M)


def quarantine(*args: str) -> tuple[int, str, dict[int, str], str]:
    """Run the CLI: (exit code, stdout, {step: status}, stderr)."""
    proc = run_arena("quarantine", *args)
    steps = {}
    for m in STEP_LINE.finditer(proc.stdout):
        assert int(m.group(2)) == STEPS
        steps[int(m.group(1))] = m.group(3)
    return proc.returncode, proc.stdout, steps, proc.stderr


def assert_fails_at(step: int, code: int, out: str, steps: dict[int, str], err: str) -> None:
    assert code == 1, out + err
    assert sorted(steps) == list(range(1, STEPS + 1)), out
    # step 4 is information for a game whose protocol has no match boundaries
    assert all(steps[n] == "PASS" or (n == 4 and steps[n] == "INFO") for n in range(1, step)), out
    assert steps[step] == "FAIL", out
    assert all(steps[n] == "SKIP" for n in range(step + 1, STEPS + 1)), out
    assert f"quarantine FAILED at step {step}/{STEPS}" in out


# -- every sample bot of every game with a manifest passes --------------------------


def _sample_bots() -> list:
    """(game, command, matches) for every opponent of every manifest, at collection time.

    Each bot plays one match per seat (the least that covers every seat) to
    keep ``make test`` fast; CI runs the default number.
    """
    cases = []
    for game in games_with_manifests():
        plugin = load_game(game)
        manifest = manifest_of(plugin)
        seats = manifest.seats or plugin.fixed_seats(plugin.Params(**manifest.params)) or plugin.spec.max_seats
        for opp in manifest.opponents:
            cases.append(pytest.param(game, manifest.command(opp), seats, id=f"{game}-{opp.name}"))
    return cases


def test_kuhn3_manifest_lists_its_six_sample_bots():
    manifest = manifest_of(load_game("kuhn3"))
    assert manifest.params == {"hands": 300}
    assert len(manifest.opponents) == 6
    assert [o.name for o in manifest.opponents if o.random] == ["random"]
    assert "kuhn3" in games_with_manifests()


#: Shorter matches than the manifests' (-p overrides them): what is checked is
#: the bot's conduct, which a few dozen hands show.
QUICK = {"kuhn3": ("hands", 60), "twocarddraw": ("hands", 60), "holdem": ("hands", 20)}


@pytest.mark.parametrize(("game", "command", "matches"), _sample_bots())
def test_every_sample_bot_passes_quarantine(game, command, matches, tmp_path):
    report = tmp_path / "report.xml"
    quick = ["-p", "=".join(map(str, QUICK[game]))] if game in QUICK else []
    code, out, steps, err = quarantine(
        game, command, "--seed", replay_key("11"), "--matches", str(matches), "--junit", str(report), *quick
    )
    assert code == 0, out + err
    if game == "kuhn3":  # -p replaced the manifest's 300 hands a match
        assert f"{matches} matches, {matches * 60} hands" in out, out
    assert all(steps[n] == "PASS" or (n == 4 and steps[n] == "INFO") for n in range(1, STEPS)), out
    if load_game(game).reusable_processes:
        assert steps[4] == "PASS", out  # several matches in one process
    assert steps[STEPS] in ("PASS", "INFO"), out
    assert "quarantine PASSED" in out
    suite = check_junit(ET.parse(report).getroot())
    assert suite.get("failures") == "0" and suite.get("skipped") == "0"
    assert len(suite.findall("testcase")) == STEPS
    assert "PASSED" in suite.find("system-out").text


# -- misbehaving bots fail at the right step ----------------------------------------

# misbehave.py: every mode but grandchild misbehaves at its first ``play``,
# after a correct first reply, so it is a fault in the matches of step 3.
MISBEHAVE_STEP = {
    "garbage": 3, "unknown_verb": 3, "illegal_amount": 3, "wrong_money": 3, "wrong_closing": 3,
    "silent": 3, "slow": 3, "exit_mid": 3, "crash": 3, "signal": 3, "close_stdout": 3,
    "huge_line": 3, "bad_utf8": 3,
    "grandchild": 7,  # plays well and exits, but its child is still running at teardown
}


@pytest.mark.parametrize("mode", sorted(MISBEHAVE_STEP))
def test_misbehaving_bot_fails_at_the_right_step(mode, tag):
    bot = python_bot("misbehave.py", mode, tag)
    # A bot that plays well to its end gets time to spare (its time step must pass however busy the machine).
    timeout = "0.5" if MISBEHAVE_STEP[mode] == 3 else "5"
    code, out, steps, err = quarantine("kuhn3", bot, "--seed", replay_key("3"), "--matches", "3", "--timeout", timeout)
    assert_fails_at(MISBEHAVE_STEP[mode], code, out, steps, err)
    if MISBEHAVE_STEP[mode] == 3:
        assert "last exchanges (-> sent to the bot, <- its replies):" in out
        assert "\n      -> play\n" in out  # the transcript reaches the message it failed on
    assert processes_with(tag) == []


def test_a_crash_report_shows_the_stderr_tail(tag):
    code, out, steps, err = quarantine(
        "kuhn3", python_bot("misbehave.py", "crash", tag), "--seed", replay_key("3"), "--matches", "3"
    )
    assert_fails_at(3, code, out, steps, err)
    assert "crashed" in out and "exited with code 3" in out
    assert "last lines of its stderr:\n      Traceback: something went wrong in my bot" in out


# quarantine_bot.py modes -> the step that fails
OWN_BOT_STEP = {
    "bad_hello": 2,  # a wrong reply to the very first message
    "die_at_start": 2,  # exits before any reply
    # one reply of 2.5 s: over half of the 4 s timeout by 0.5 s and under it by
    # 1.5 s, so a busy machine cannot move it to either side
    "slow_once 2.5": 5,
    "linger": 6,  # ignores the end of its stdin: killed after the grace period
}


@pytest.mark.parametrize("mode", sorted(OWN_BOT_STEP))
def test_quarantine_bot_fails_at_the_right_step(mode, tag):
    bot = python_bot("quarantine_bot.py", *mode.split(), tag)
    timeout = "4" if mode.startswith("slow_once") else "0.5"
    code, out, steps, err = quarantine("kuhn3", bot, "--seed", replay_key("3"), "--matches", "3", "--timeout", timeout)
    assert_fails_at(OWN_BOT_STEP[mode], code, out, steps, err)
    if mode == "die_at_start":
        assert "cannot load my opening book" in out  # the stderr tail
    if mode == "bad_hello":
        assert "received: 'HELLO DEALER'" in out
    if mode.startswith("slow_once"):
        slowest = re.search(r"slowest reply (\d+\.\d) ms", out)
        assert slowest and 2500 <= float(slowest.group(1)) < 4000, out
    if mode == "linger":
        assert "(killed)" in out
    assert processes_with(tag) == []


def test_a_bot_that_cannot_be_executed_fails_step_1(tmp_path):
    bot = tmp_path / "bot.sh"
    bot.write_text("#!/no/such/interpreter\n")
    bot.chmod(0o755)
    code, out, steps, err = quarantine("kuhn3", str(bot), "--seed", replay_key("1"))
    assert_fails_at(1, code, out, steps, err)
    assert "failed_to_start" in out


def test_a_good_bot_that_loses_to_random_passes_unless_a_win_is_required(tmp_path, tag):
    bot = python_bot("quarantine_bot.py", "good", tag)  # always checks or calls
    code, out, steps, err = quarantine("kuhn3", bot, "--seed", replay_key(1), "--matches", "3", "-p", "hands=100")
    assert code == 0, out + err
    assert steps[8] == "INFO" and "did not win" in out

    report = tmp_path / "report.xml"
    code, out, steps, err = quarantine(
        "kuhn3", bot, "--seed", replay_key(1), "--matches", "3", "-p", "hands=100", "--require-win", "--junit", str(report)
    )
    assert_fails_at(8, code, out, steps, err)
    suite = check_junit(ET.parse(report).getroot())
    failed = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed == ["step 8: it beats a random bot"]
    assert processes_with(tag) == []


# -- usage errors -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["nosuchgame", "sample_bots/kuhn3/random_bot.py"], "no game 'nosuchgame'"),
        (["kuhn3", "./no/such/bot"], "does not exist"),
        (["kuhn3", "sample_bots/kuhn3/random_bot.py", "--matches", "2"], "--matches must be at least 3"),
        (["kuhn3", "sample_bots/kuhn3/random_bot.py", "--timeout", "0"], "--timeout must be above 0"),
        (["kuhn3", "sample_bots/kuhn3/random_bot.py", "-p", "hand=5"], "unknown kuhn3 parameter 'hand'"),
        (["kuhn3", "sample_bots/kuhn3/random_bot.py", "-p", "hands=-1"], "hands"),
    ],
)
def test_usage_errors_exit_2(args, words):
    code, out, steps, err = quarantine(*args)
    assert code == 2, out + err
    assert err.startswith("arena: error: ") and words in err
    assert steps == {}


def test_a_missing_manifest_is_a_usage_error(tmp_path):
    with pytest.raises(ValueError, match="has no opponents manifest"):
        make_plan("kuhn3", "sample_bots/kuhn3/random_bot.py", opponents=tmp_path / "none.json")


def test_manifest_paths_are_relative_to_the_manifest(tmp_path):
    assert resolve_command("node ./bot.js --seed 1", tmp_path) == f"node {tmp_path}/bot.js --seed 1"
    assert resolve_command("/usr/bin/env python3", tmp_path) == "/usr/bin/env python3"
    # a script named bare, as an interpreter's argument, is the folder's too
    (tmp_path / "count_bot.js").write_text("")
    assert resolve_command("node count_bot.js --seed 1", tmp_path) == f"node {tmp_path}/count_bot.js --seed 1"
    assert resolve_command("node other.js", tmp_path) == "node other.js"  # no such file there: left alone
    game_dir = tmp_path / "elsewhere"
    game_dir.mkdir(parents=True)
    bot = game_dir / "bot.py"
    bot.write_text("#!/usr/bin/env python3\n")
    bot.chmod(0o755)
    manifest = game_dir / "opponents.json"
    manifest.write_text(json.dumps({"params": {"hands": 5}, "opponents": [{"name": "b", "command": "./bot.py"}]}))
    plan = make_plan("kuhn3", f"{PY} {TEST_BOTS / 'quarantine_bot.py'} good", opponents=manifest)
    assert plan.params.hands == 5 and plan.randoms == []
    assert plan.opponents[0].argv == (str(bot),) and plan.opponents[0].name == "b"
    manifest.write_text(json.dumps({"opponents": []}))
    with pytest.raises(ValueError, match="non-empty list"):
        make_plan("kuhn3", str(bot), opponents=manifest)
    manifest.write_text(json.dumps({"params": {"hands": 0}, "opponents": [{"name": "b", "command": "./bot.py"}]}))
    with pytest.raises(ValueError, match="bad kuhn3 params"):
        make_plan("kuhn3", str(bot), opponents=manifest)


def test_the_bot_takes_every_seat_against_every_opponent():
    plan = make_plan("kuhn3", "sample_bots/kuhn3/random_bot.py", seed=1)
    seen_seats, seen_opponents = set(), set()
    for index in range(plan.matches):
        seat, others = lineup(plan, index)
        assert len(others) == plan.seats - 1
        seen_seats.add(seat)
        seen_opponents.update(o.name for o in others)
    assert seen_seats == set(range(plan.seats))
    assert seen_opponents == {o.name for o in plan.opponents}


# -- the JUnit report ---------------------------------------------------------------

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")


def check_junit(root: ET.Element) -> ET.Element:
    """A small structural check after the common JUnit XSD (Jenkins/Ant style).

    <testsuites> holding exactly one <testsuite>; required attributes and their
    types; children in the allowed order; at most one outcome per testcase;
    the counts agree with the testcases. Returns the testsuite.
    """
    assert root.tag == "testsuites"
    suites = list(root)
    assert [s.tag for s in suites] == ["testsuite"]
    suite = suites[0]
    for attr in ("name", "tests", "failures", "errors", "skipped", "time", "timestamp", "hostname"):
        assert suite.get(attr), f"testsuite lacks {attr}"
    for attr in ("tests", "failures", "errors", "skipped"):
        assert int(suite.get(attr)) >= 0
    assert float(suite.get("time")) >= 0
    assert TIMESTAMP.match(suite.get("timestamp"))
    order = {"properties": 0, "testcase": 1, "system-out": 2, "system-err": 3}
    ranks = [order[child.tag] for child in suite]  # KeyError: an element the schema does not allow
    assert ranks == sorted(ranks)
    assert ranks.count(0) <= 1 and ranks.count(2) <= 1 and ranks.count(3) <= 1
    for prop in suite.iter("property"):
        assert prop.get("name") and prop.get("value") is not None
    cases = suite.findall("testcase")
    failures = skipped = 0
    for case in cases:
        assert case.get("name") and case.get("classname")
        assert float(case.get("time")) >= 0
        tags = [c.tag for c in case]
        assert set(tags) <= {"failure", "error", "skipped", "system-out", "system-err"}
        assert sum(t in ("failure", "error", "skipped") for t in tags) <= 1
        failure = case.find("failure")
        if failure is not None:
            assert failure.get("message") and failure.get("type")
            failures += 1
        skipped += case.find("skipped") is not None
    assert int(suite.get("tests")) == len(cases)
    assert int(suite.get("failures")) == failures
    assert int(suite.get("skipped")) == skipped
    assert int(suite.get("errors")) == 0
    return suite


def test_junit_report_has_one_testcase_per_step_and_the_failure_on_the_right_one(tmp_path, tag):
    report = tmp_path / "report.xml"
    bot = python_bot("misbehave.py", "crash", tag)
    code, out, steps, err = quarantine("kuhn3", bot, "--seed", replay_key("3"), "--matches", "3", "--junit", str(report))
    assert_fails_at(3, code, out, steps, err)
    suite = check_junit(ET.parse(report).getroot())
    cases = suite.findall("testcase")
    assert [c.get("name").split(":")[0] for c in cases] == [f"step {n}" for n in range(1, STEPS + 1)]
    outcome = [
        "failure" if c.find("failure") is not None else "skipped" if c.find("skipped") is not None else "ok"
        for c in cases
    ]
    assert outcome == ["ok", "ok", "failure"] + ["skipped"] * (STEPS - 3)
    failure = cases[2].find("failure")
    assert "crashed" in failure.get("message")
    assert "something went wrong in my bot" in failure.text  # the stderr tail
    assert "-> play" in failure.text  # the transcript
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["game"] == "kuhn3" and re.fullmatch(r"3:[0-9a-f]{32}", props["seed"]) and props["bot"] == bot



def test_a_sample_bot_that_crashes_shows_its_stderr_and_resolves_its_script(tmp_path):
    # a manifest whose bot is an interpreter's bare argument (node count_bot.js)
    # and crashes with a reason on stderr: the report names the bot and shows it
    (tmp_path / "crasher.py").write_text(
        "import sys\nsys.stdin.readline()\nprint('crasher: no idea what a match_start is', file=sys.stderr)\n"
        "sys.exit(4)\n")
    manifest = tmp_path / "opponents.json"
    manifest.write_text(json.dumps({"params": {"rounds": 3},
                                    "opponents": [{"name": "crasher", "command": f"{PY} crasher.py"}]}))
    copy = ROOT / "examples" / "pennies" / "arena_pennies" / "bots" / "copy_bot.py"
    code, out, steps, err = quarantine("pennies", f"{PY} {copy}", "--opponents", str(manifest),
                                       "--sandbox", "none")
    assert code == 1 and "a sample bot failed, not the bot under test" in out, out + err
    assert "last lines of crasher's stderr:" in out and "no idea what a match_start is" in out, out
