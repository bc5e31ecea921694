"""Hand histories as PHH: every hand of real dialogues (2 to 10 seats, cash
with and without antes, a freezeout) is written by ``HandHistories`` from the
lines the dealer sends, loaded by PokerKit, replayed to its end, and must end
where the arena's hand ended; the players' summed profits are the match's
scores. Then ``arena holdem --hand-history`` writes the file end to end."""

from __future__ import annotations

import json
import random

import pytest

pokerkit = pytest.importorskip("pokerkit")

from arena.play._stepping import step_through  # noqa: E402
from games.holdem import HoldemParams  # noqa: E402
from protocols.holdem import PLUGIN  # noqa: E402
from protocols.holdem_phh import HandHistories  # noqa: E402

from ..conftest import ROOT, replay_key, run_arena  # noqa: E402


def play(params: HoldemParams, seats: int, seed: int) -> tuple[HandHistories, list[float]]:
    names = [f"bot {i} \"q\"" for i in range(seats)]  # a quote: the names are TOML strings
    run = PLUGIN.open_dialogue(params, random.Random(seed), names)
    histories, rng = HandHistories(names), random.Random(seed + 1)

    def sent(n: int, exchange) -> None:
        for seat, payload in exchange.sends:
            histories.sent(seat, payload.decode())

    outcome = step_through(run, "holdem", lambda n, seat, payload: PLUGIN.random_reply(run, seat, payload, rng),
                           on_exchange=sent)
    return histories, outcome.payoffs


def replay(text: str, seats: int) -> dict[str, int]:
    """Each hand replayed by PokerKit to its end; the profits per player name."""
    profits: dict[str, int] = {}
    hands = list(pokerkit.HandHistory.loads_all(text))
    assert hands
    for hh in hands:
        for state in hh:
            pass
        assert not state.status, f"hand {hh.hand} did not reach its end in PokerKit"
        assert list(state.stacks) == list(hh.finishing_stacks), f"hand {hh.hand}"
        assert hh.seat_count == seats
        for name, start, end in zip(hh.players, hh.starting_stacks, hh.finishing_stacks):
            profits[name] = profits.get(name, 0) + end - start
    return profits


@pytest.mark.parametrize("seats", range(2, 11))
def test_cash_hands_replay_in_pokerkit(seats):
    for params in (HoldemParams(hands=4, stack=60), HoldemParams(hands=3, stack=30, ante=1, small_blind=1,
                                                                   big_blind=4)):
        histories, payoffs = play(params, seats, seed=seats)
        assert len(histories.done) == params.hands
        profits = replay(histories.dumps(), seats)
        assert [profits.get(name, 0) for name in histories.names] == payoffs


def test_freezeout_hands_replay_in_pokerkit():
    params = HoldemParams(mode="freezeout", tournaments=1, stack=12, level_hands=2)
    histories, _ = play(params, 3, seed=5)
    replay(histories.dumps(), 3)
    assert len(histories.done) >= 2


def test_arena_holdem_writes_the_file(tmp_path):
    # --hand-history and --acpc-log of the same match: PokerKit replays both to the arena's bankrolls
    bot = f"python3 {ROOT / 'sample_bots' / 'holdem' / 'random_bot.py'}"
    out, log = tmp_path / "match.phhs", tmp_path / "match.log"
    proc = run_arena("holdem", f"A={bot} --seed 1", f"B={bot} --seed 2", f"C={bot} --seed 3", "--hands", "4",
                     "--seed", replay_key("2"), "--hand-history", str(out), "--acpc-log", str(log), "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    bankrolls = {s["bot"]: s["payoff"] for s in json.loads(proc.stdout)["seats"]}
    assert replay(out.read_text(), 3) == bankrolls
    # the dealer's log: its four '#' lines, a STATE line a hand, its SCORE line (tests/protocols/test_acpc_dealer.py)
    text = log.read_text().splitlines()
    lines = [line for line in text if line.startswith("STATE:")]
    assert text[0].startswith("# name/game/hands/seed match holdem.nolimit.3p.game 4 ") and text[-1].startswith("SCORE:")
    net = {name: 0 for name in bankrolls}
    assert len(_acpc_replay(log.read_text(), 400, 1, 2)) == len(lines) == 4
    for line in lines:
        _, _, _, _, results, players = line.split(":")
        for name, r in zip(players.split("|"), results.split("|")):
            net[name] += int(r)
    assert net == bankrolls


def test_export_of_a_stored_tournament_as_phh(tmp_path):
    bot = f"python3 {ROOT / 'sample_bots' / 'holdem' / 'random_bot.py'}"
    db = str(tmp_path / "t.db")
    proc = run_arena("tournament", "holdem", f"a={bot} --seed 1", f"b={bot} --seed 2", "-p", "hands=3",
                     "--seed", replay_key("4"), "--db", db, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    phh = run_arena("export", "1", "--db", db, "--format", "phh")
    assert phh.returncode == 0, phh.stderr
    lines = run_arena("export", "1", "--db", db)
    won: dict[str, float] = {}
    for line in lines.stdout.splitlines():
        match = json.loads(line)
        for name, score in zip(match["entrants"], match["scores"]):
            won[name] = won.get(name, 0) + score
    assert len(list(pokerkit.HandHistory.loads_all(phh.stdout))) == 3 * len(lines.stdout.splitlines())
    assert replay(phh.stdout, 2) == won


def _acpc_replay(log: str, stack: int, small: int, big: int) -> list[list[int]]:
    """PokerKit's parser of ACPC dealer logs, each hand replayed; the results it finds."""
    from pokerkit import NoLimitTexasHoldem
    from pokerkit.notation import ACPCProtocolParser

    parser = ACPCProtocolParser(NoLimitTexasHoldem((), True, 0, (small, big), big), stack)
    found = []
    for hh in parser(log, error_status=True):
        for state in hh:
            pass
        assert not state.status
        found.append([end - start for start, end in zip(hh.starting_stacks, state.stacks)])
    return found


@pytest.mark.parametrize("seats", [2, 3, 6, 10])
def test_the_acpc_log_parses_in_pokerkit(seats):
    histories, _ = play(HoldemParams(hands=4, stack=60), seats, seed=seats + 20)
    log = histories.acpc_log()
    assert log.count("STATE:") == 4
    results = [[int(x) for x in line.split(":")[4].split("|")] for line in log.splitlines()]
    assert _acpc_replay(log, 60, 1, 2) == results


def test_arena_writes_acpc_logs_for_kuhn3(tmp_path):
    k3 = f"python3 {ROOT / 'sample_bots' / 'kuhn3' / 'random_bot.py'}"
    out = tmp_path / "kuhn3.log"
    proc = run_arena("kuhn3", f"A={k3} --seed 1", f"B={k3} --seed 2", f"C={k3} --seed 3", "--hands", "12",
                     "--seed", replay_key("3"), "--acpc-log", str(out), "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    seats = json.loads(proc.stdout)["seats"]
    net = {s["bot"]: 0 for s in seats}
    lines = [line for line in out.read_text().splitlines() if line.startswith("STATE:")]
    assert len(lines) == 12
    for line in lines:
        _, hand, betting, cards, results, players = line.split(":")
        assert set(betting) <= set("crf") and len(cards.split("|")) == 3
        for name, r in zip(players.split("|"), results.split("|")):
            net[name] += int(r)
    assert net == {s["bot"]: s["payoff"] for s in seats}

    bot = f"python3 {ROOT / 'sample_bots' / 'holdem' / 'random_bot.py'}"
    refused = run_arena("holdem", bot, bot, "--mode", "freezeout", "--acpc-log", str(out))
    assert refused.returncode == 2 and "--acpc-log" in refused.stderr and "freezeout" in refused.stderr
