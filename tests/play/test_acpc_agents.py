"""ACPC agents play through the arena unchanged: the ACPC package's
example_player (compiled from ../shared/acpc) at real tables, alone and
with a native bot, in the sandbox; and agents that misbehave get faults in
words."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from ..conftest import PY, ROOT, clean_env, replay_key, run_in_process

BAD = ROOT / "tests" / "bots" / "acpc_bad_agent.py"
NATIVE = f"python3 {ROOT / 'sample_bots' / 'holdem' / 'random_bot.py'} --seed 3"


def arena(*args: str, env: dict | None = None, game: str = "holdem") -> tuple[subprocess.CompletedProcess, dict]:
    argv = [game, *args, "--json", "--sandbox", "basic"]
    if env and "ARENA_NATIVE" in env:  # read once per process: a process of its own
        proc = subprocess.run([PY, "-m", "arena", *argv], capture_output=True, text=True, timeout=120,
                              env={**clean_env(), **env}, cwd=ROOT)
    else:
        proc = run_in_process(argv, env={**clean_env(), **(env or {})})
    assert proc.stdout.strip(), proc.stderr[-3000:]
    return proc, json.loads(proc.stdout)


def example(acpc) -> str:
    return f"acpc:{acpc['example_player']} {{gamedef}}"


def test_two_example_players_play_heads_up(acpc):
    proc, result = arena(example(acpc), example(acpc), "--stack", "20000", "--small-blind", "50",
                         "--big-blind", "100", "--hands", "30", "--seed", replay_key("1"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert result["completed"] and result["faults"] == [], result["faults"]
    assert result["hands"] == 30
    assert sum(s["payoff"] for s in result["seats"]) == 0
    assert any(s["payoff"] for s in result["seats"])


def test_example_players_and_a_native_bot_share_a_table(acpc):
    proc, result = arena(example(acpc), NATIVE, example(acpc), "--stack", "20000", "--small-blind", "50",
                         "--big-blind", "100", "--hands", "15", "--seed", replay_key("2"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert result["completed"] and result["faults"] == [], result["faults"]
    assert sum(s["payoff"] for s in result["seats"]) == 0


KUHN3_NATIVE = f"python3 {ROOT / 'sample_bots' / 'kuhn3' / 'random_bot.py'} --seed 4"


def test_kuhn3_with_acpc_agents_in_every_seat(acpc):
    proc, result = arena(example(acpc), example(acpc), example(acpc), "--hands", "40", "--seed", replay_key("1"), game="kuhn3")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert result["completed"] and result["faults"] == [], result["faults"]
    assert result["hands"] == 40


def test_kuhn3_mixing_acpc_agents_and_a_native_bot(acpc):
    proc, result = arena(KUHN3_NATIVE, example(acpc), example(acpc), "--hands", "40", "--seed", replay_key("2"), game="kuhn3")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert result["completed"] and result["faults"] == [], result["faults"]


MISBEHAVE = ROOT / "tests" / "bots" / "misbehave_holdem.py"


@pytest.mark.parametrize("native", ["1", "0"])
@pytest.mark.parametrize("mode", ["crash", "garbage", "leave@2"])
def test_a_fault_at_a_table_with_agents_ends_the_match_and_names_only_its_seat(acpc, mode, native):
    """Playing on would show the agents hands of fewer seats than their game
    definition, and a free fold ACPC cannot write; the example_player read
    such a state as an error and hung up, and was faulted for another seat's
    fault. The match ends at the fault instead, as under the ACPC dealer."""
    proc, result = arena(example(acpc), f"python3 {MISBEHAVE} {mode}", example(acpc), "--stack", "400",
                         "--hands", "20", "--seed", replay_key("5"), env={"ARENA_NATIVE": native})
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert [(f["seat"], f["kind"]) for f in result["faults"]] == [
        (1, {"crash": "crashed", "garbage": "malformed_reply", "leave@2": "disconnected"}[mode])], result["faults"]
    assert not result["completed"] and not result["played_on"]
    assert result["hands"] == (2 if mode == "leave@2" else 0)


def _fault(mode: str, *options: str, **env) -> dict:
    proc, result = arena(f"acpc:python3 {BAD} {mode}", NATIVE, "--hands", "3", "--seed", replay_key("1"), *options, env=env)
    faults = result["faults"]
    assert [f["seat"] for f in faults] == [0], faults
    return faults[0]


def test_an_agent_that_never_connects(acpc):
    fault = _fault("never")
    text = json.dumps(fault)
    assert fault["kind"] == "crashed", fault  # the agent exited, as a bot that exits before its first reply
    assert "without connecting to 127.0.0.1:" in text and "expected a TCP connection" in text, fault


def test_an_agent_that_does_not_connect_in_time(acpc):
    fault = _fault("silent", "--startup-timeout", "2", ARENA_ACPC_CONNECT_TIMEOUT="0.5")
    assert fault["kind"] == "timeout", fault  # as a bot that never answers
    assert "did not connect to 127.0.0.1:" in json.dumps(fault) and "within 0.5 s" in json.dumps(fault), fault


def test_an_agent_that_sends_an_invalid_line(acpc):
    """Said in ACPC's words: the agent's own line, what the dealer makes of
    it, the response it expected; never the words meant for JSON bots."""
    fault = _fault("invalid")
    assert fault["kind"] == "malformed_reply" and fault["received"].endswith(":x"), fault
    assert fault["detail"].startswith("ACPC agent sent the action 'x', which the ACPC dealer cannot read"), fault
    assert fault["expected"].startswith(f"a response to '{fault['received'][:-2]}': that state followed by :c"), fault
    assert "JSON" not in json.dumps(fault) and "{" not in fault["detail"] + fault["expected"], fault


def test_an_agent_that_answers_another_state(acpc):
    fault = _fault("other")  # MATCHSTATE:9:...: heads-up there is no position 9
    assert fault["received"].startswith("MATCHSTATE:9:"), fault
    assert "not a state the ACPC dealer can read" in fault["detail"], fault


def test_an_agent_that_closes_the_connection(acpc):
    fault = _fault("close")
    assert fault["kind"] == "disconnected", fault  # as a bot that hangs up
    assert "closed the connection" in json.dumps(fault), fault


def test_acpc_cannot_express_antes_or_freezeouts(acpc):
    # checked with the command line, before anything starts (arena._plan, what `arena play` calls first)
    from arena._checks import UsageError
    from arena._plan import plan_play

    for game, raw, why in (("holdem", {"ante": 1}, "no antes"), ("holdem", {"mode": "freezeout"}, "freezeout"),
                           ("holdem", {"stack": 90, "big_blind": 100, "small_blind": 50},
                            "blind is above a player's stack"),
                           ("kuhn3", {"max_bet": 3}, "a bet to 2"),
                           # a game whose plugin gives no ACPC translation (GamePlugin.acpc_refusal's default)
                           ("vonneumann", {}, "vonneumann does not")):
        bots = [example(acpc)] * 2 + ([KUHN3_NATIVE] if game == "kuhn3" else [])
        with pytest.raises(UsageError, match=f"cannot play this match: .*{why}"):
            plan_play(game, bots, [raw], keys=True, seed=1, lifetime="match", timeout=1.0, startup_timeout=10.0,
                      budget=None, log_dir=None)


@pytest.mark.parametrize("game, seats", [("holdem.limit.2p.reverse_blinds.game", 2), ("holdem.limit.3p.game", 3)])
def test_example_players_play_the_packages_limit_games(acpc, tmp_path, game, seats):
    """arena holdem --gamedef: the agents get the limit definition, raise with a bare r, and
    --acpc-log writes the dealer's header for the game and its bare r."""
    log = tmp_path / "limit.log"
    proc, result = arena(*[example(acpc)] * seats, "--gamedef", str(acpc["games"] / game), "--hands", "30",
                         "--seed", replay_key("7"), "--acpc-log", str(log))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert result["completed"] and result["faults"] == [] and result["hands"] == 30, result["faults"]
    assert sum(s["payoff"] for s in result["seats"]) == 0
    lines = log.read_text().splitlines()
    assert lines[0].split(" ")[3] == game
    betting = [line.split(":")[2] for line in lines if line.startswith("STATE:")]
    assert len(betting) == 30 and any("r" in b for b in betting)
    assert not any(c.isdigit() for b in betting for c in b)  # limit: r without an amount


def test_a_limit_game_acpc_plays_otherwise_is_refused(acpc, tmp_path):
    """Stacks the caps can reach: the dealer's limit betting is not the arena's there."""
    from arena._checks import UsageError
    from arena._plan import plan_play

    short = tmp_path / "short.game"
    short.write_text((acpc["games"] / "holdem.limit.2p.reverse_blinds.game").read_text()
                     .replace("numRounds = 4\n", "numRounds = 4\nstack = 100 100\n"))
    with pytest.raises(UsageError, match="cannot play this match: .*stacks of at least 240"):
        plan_play("holdem", [example(acpc)] * 2, [{"gamedef": str(short)}], keys=True, seed=1, lifetime="match",
                  timeout=1.0, startup_timeout=10.0, budget=None, log_dir=None)


def test_example_players_on_the_pure_python_path(acpc):
    # ARENA_NATIVE=0: the dialogue in Python, speaking to each agent through the same codec
    proc, result = arena(example(acpc), example(acpc), "--stack", "20000", "--small-blind", "50",
                         "--big-blind", "100", "--hands", "20", "--seed", replay_key("3"), env={"ARENA_NATIVE": "0"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert result["completed"] and result["faults"] == [], result["faults"]
    assert result["hands"] == 20 and sum(s["payoff"] for s in result["seats"]) == 0


FAKE_RELAY = ROOT / "tests" / "bots" / "acpc_fake_relay.py"


@pytest.mark.parametrize("mode", ["pipe", "listening", "unix", "wrong-seat", "connected"])
def test_what_a_relay_hands_over_is_taken_only_if_it_is_its_agents_connection(mode):
    """A hostile relay (or an agent that took it over) hands the arena a pipe,
    a listening socket, a unix socket, or a connection for another seat: the
    arena takes none of them and goes on writing to the relay's stdin; a
    connection for its own seat it takes (and then writes nothing there).
    Either way nothing answers, and only that seat is charged, a timeout."""
    import trio

    from arena import BotSpec, MatchSettings, load_game, open_host, run_match

    holdem = load_game("holdem")
    fake = BotSpec(command=f"fake {mode}", argv=(PY, str(FAKE_RELAY), mode), name="fake", kind="acpc")
    specs = [fake, BotSpec.parse(NATIVE)]
    with open_host("none") as host:
        result = trio.run(lambda: run_match(holdem, specs, holdem.Params(hands=2), 1,
                                            MatchSettings(timeout=0.5, host=host)))
    faults = [f.to_json() for f in result.faults]
    assert [f["seat"] for f in faults] == [0], faults
    assert faults[0]["kind"] == "timeout", faults
    took = mode == "connected"
    said = faults[0]["stderr_tail"] or ""
    assert ("stdin after ready: {" in said) is not took, said


def test_an_agent_plays_one_match_per_connection(acpc):
    """A kept process cannot take an ACPC agent into a second match: refused
    in words before anything starts; a tournament with agents keeps no
    process (its default lifetime becomes match) and names them after the
    agent, not the relay."""
    from arena._checks import UsageError
    from arena._plan import entrant_names, plan_play
    from arena._spec import BotSpec
    from arena import plan_tournament

    bots = [example(acpc)] * 2
    with pytest.raises(UsageError, match="plays one match per connection.*use --lifetime match"):
        plan_play("holdem", bots, [{}, {}], keys=True, seed=1, lifetime="tournament", timeout=1.0,
                  startup_timeout=10.0, budget=None, log_dir=None)
    plan_play("holdem", bots, [{}], keys=True, seed=1, lifetime="tournament", timeout=1.0,  # one match: fine
              startup_timeout=10.0, budget=None, log_dir=None)
    specs = [BotSpec.parse(b) for b in bots]
    assert entrant_names([(None, s) for s in specs]) == ["example_player", "example_player-2"]
    assert plan_tournament("holdem", specs).lifetime == "match"
    with pytest.raises(UsageError, match="plays one match per connection"):
        plan_tournament("holdem", specs, lifetime="tournament")


AGENT = ROOT / "tests" / "bots" / "acpc_agent.py"


def test_an_agents_match_is_the_same_native_or_not():
    """Same seed, same match: every message to each seat and every reply,
    seat by seat (the trace, in the game's own lines; the seats' start-up
    replies come in whatever order they come), with the compiled dialogue
    and the Python one, three seats of which two are agents behind their
    codecs."""
    import trio

    from arena import BotSpec, MatchSettings, load_game, open_host, run_match

    holdem = load_game("holdem")
    specs = [BotSpec.parse(f"acpc:{PY} {AGENT}"), BotSpec.parse(NATIVE), BotSpec.parse(f"acpc:{PY} {AGENT}")]
    params = holdem.Params(hands=40, stack=2000, small_blind=10, big_blind=20)
    runs = []
    for native in (True, False):
        lines: dict[int, list[tuple[str, str]]] = {0: [], 1: [], 2: []}
        with open_host("none") as host:
            result = trio.run(lambda: run_match(holdem, specs, params, 9, MatchSettings(
                native=native, host=host, timeout=10, trace=lambda s, d, t: lines[s].append((d, t)))))
        assert result.completed and not result.faults, result.faults
        assert (result.native_messages > 0) is native  # the compiled dialogue spoke through the codecs
        runs.append((lines, [s.payoff for s in result.seats]))
    assert runs[0] == runs[1]
    assert sum(t.count('"type":"act"') for d, t in runs[0][0][0] if d == "->") > 20  # the agents were asked


TOLERATED = ROOT / "tests" / "bots" / "acpc_tolerated_agent.py"
KUHN3_OTHERS = [KUHN3_NATIVE, f"python3 {ROOT / 'sample_bots' / 'kuhn3' / 'random_bot.py'} --seed 5"]


@pytest.mark.parametrize("native", ["1", "0"])
@pytest.mark.parametrize("game", ["holdem", "kuhn3"])
def test_acpc_lenient_does_what_the_dealer_does(acpc, game, native):
    """--acpc-lenient: comment lines and lines the dealer skips are skipped,
    a bare r (no-limit: no size) is a call, a raise above the stack or below
    the least raise is brought to the bound; the match is played."""
    others = [NATIVE] if game == "holdem" else KUHN3_OTHERS
    proc, result = arena(f"acpc:python3 {TOLERATED} all", *others, "--hands", "25", "--seed", replay_key("6"),
                         "--acpc-lenient", env={"ARENA_NATIVE": native}, game=game)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert result["completed"] and result["faults"] == [] and result["hands"] == 25, result["faults"]


@pytest.mark.parametrize("game, mode, kind, words", [
    ("holdem", "comment", "malformed_reply", "ACPC agent sent a comment line; the dealer skips it"),
    ("holdem", "skipped", "malformed_reply", "ACPC agent sent a line that is not a state the ACPC dealer can read"),
    ("holdem", "bare", "malformed_reply", "ACPC agent sent the action 'r', which the ACPC dealer cannot read"),
    ("holdem", "big", "illegal_action", "ACPC agent sent the raise 'r999999', outside the sizes allowed"),
    ("holdem", "small", "illegal_action", "ACPC agent sent the raise 'r1', outside the sizes allowed"),
    ("kuhn3", "comment", "malformed_reply", "ACPC agent sent a comment line; the dealer skips it"),
    ("kuhn3", "skipped", "malformed_reply", "ACPC agent sent a line that is not a state the ACPC dealer can read"),
])
def test_without_acpc_lenient_what_the_dealer_tolerates_is_a_fault_in_acpc_words(acpc, game, mode, kind, words):
    others = [NATIVE] if game == "holdem" else KUHN3_OTHERS
    proc, result = arena(f"acpc:python3 {TOLERATED} {mode}", *others, "--hands", "5", "--seed", replay_key("6"),
                         game=game)
    assert proc.returncode == 1, proc.stderr[-3000:]
    (fault,) = result["faults"]
    assert (fault["seat"], fault["kind"], fault["hand"]) == (0, kind, 0), fault
    assert fault["detail"].startswith(words) and fault["detail"].endswith("and so does --acpc-lenient"), fault
    assert fault["expected"].startswith("a response to 'MATCHSTATE:"), fault
    assert "JSON" not in json.dumps(fault) and "hint:" not in proc.stderr, proc.stderr[-2000:]


def test_acpc_lenient_wants_an_agent():
    from ..conftest import run_arena

    proc = run_arena("holdem", NATIVE, NATIVE, "--hands", "2", "--acpc-lenient")
    assert proc.returncode == 2 and "--acpc-lenient reads ACPC agents' lines, and no bot here is one" in proc.stderr
