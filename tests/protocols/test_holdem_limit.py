"""Limit hold'em over the wire: matches of the ACPC package's limit game
definitions (heads-up and three seats), and of short-stacked ones, played by
the dialogue with random legal replies; their hand histories (PHH's
fixed-limit ``FT``) load and replay in PokerKit hand by hand to the arena's
stacks, and their ACPC logs parse in PokerKit's ACPC parser as fixed-limit
hold'em. The ``act`` request of a limit game says the one raise allowed and
the street's size, bets and raises and cap; a raise of another size or
past the cap is the seat's fault, in words; the fault rule counts what the
caps let a seat lose. Then ``arena holdem --gamedef`` end to end."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pokerkit = pytest.importorskip("pokerkit")

from arena.play._stepping import step_through  # noqa: E402
from arena.quarantine._conformance import check_game, write_golden  # noqa: E402
from games.holdem import HoldemParams, read_gamedef  # noqa: E402
from protocols._builtin import GOLDEN  # noqa: E402
from protocols._errors import ProtocolError  # noqa: E402
from protocols.holdem import LIMIT_FIELDS, PLUGIN, HoldemPlugin  # noqa: E402

from ..conftest import ACPC, ROOT, replay_key, run_arena  # noqa: E402
from .test_holdem_phh import play, replay  # noqa: E402

LIMIT_2P = ACPC / "holdem.limit.2p.reverse_blinds.game"
LIMIT_3P = ACPC / "holdem.limit.3p.game"


def short_stacked(tmp_path, seats: int, stack: int = 60) -> str:
    """A limit definition of ``seats`` players with small stacks (all-ins, side pots), caps of 4."""
    blind = "10 5" if seats == 2 else "5 10" + " 0" * (seats - 2)
    path = tmp_path / f"short{seats}.game"
    path.write_text(f"GAMEDEF\nlimit\nnumPlayers = {seats}\nnumRounds = 4\nstack = {' '.join([str(stack)] * seats)}\n"
                    f"blind = {blind}\nraiseSize = 10 10 20 20\nfirstPlayer = {'2 1 1 1' if seats == 2 else '3 1 1 1'}"
                    "\nmaxRaises = 4 4 4 4\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\n"
                    "END GAMEDEF\n")
    return str(path)


@pytest.mark.parametrize("path, seats", [(LIMIT_2P, 2), (LIMIT_3P, 3)])
def test_limit_matches_of_the_acpc_files_replay_in_pokerkit_hand_by_hand(path, seats):
    params = HoldemParams(hands=60, gamedef=str(path))
    histories, payoffs = play(params, seats, seed=seats + 40)
    assert len(histories.done) == 60
    text = histories.dumps()
    hands = list(pokerkit.HandHistory.loads_all(text))
    assert {hh.variant for hh in hands} == {"FT"}
    assert {(hh.small_bet, hh.big_bet) for hh in hands} == {(10, 20)}
    assert hands[0].user_defined_fields == {"_raise_sizes": [10, 10, 20, 20], "_max_raises": [3, 4, 4, 4]}
    raised = sum(" cbr " in a for hh in hands for a in hh.actions)
    assert raised > 30  # the random replies raise: PokerKit took each raise at the limit's size
    profits = replay(text, seats)  # every hand to its end, to the arena's stacks
    assert [profits.get(name, 0) for name in histories.names] == payoffs


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_short_stacked_limit_hands_replay_in_pokerkit(seats, tmp_path):
    params = HoldemParams(hands=40, gamedef=short_stacked(tmp_path, seats))
    histories, payoffs = play(params, seats, seed=seats)
    profits = replay(histories.dumps(), seats)
    assert [profits.get(name, 0) for name in histories.names] == payoffs
    assert any(s == 0 for hand, _ in histories.done for s in hand.finishing or [])  # all-ins happened


@pytest.mark.parametrize("path, seats", [(LIMIT_2P, 2), (LIMIT_3P, 3)])
def test_the_acpc_log_of_a_limit_match_parses_in_pokerkit(path, seats):
    from pokerkit import FixedLimitTexasHoldem
    from pokerkit.notation import ACPCProtocolParser

    histories, _ = play(HoldemParams(hands=30, gamedef=str(path)), seats, seed=7)
    log = histories.acpc_log()
    assert "r" in "".join(line.split(":")[2] for line in log.splitlines())
    assert not any(c.isdigit() for line in log.splitlines() for c in line.split(":")[2])  # limit: r, no amount
    parser = ACPCProtocolParser(FixedLimitTexasHoldem((), True, 0, (5, 10), 10, 20), 2**31 - 1)
    found = []
    for hh in parser(log, error_status=True):
        for state in hh:
            pass
        assert not state.status
        found.append([end - start for start, end in zip(hh.starting_stacks, state.stacks)])
    assert found == [[int(x) for x in line.split(":")[4].split("|")] for line in log.splitlines()]


def eager(run, seat: int, payload: bytes, rng: random.Random) -> str:
    """A random legal reply that raises more often than ``random_reply`` does (caps are reached)."""
    msg = json.loads(payload.decode().splitlines()[-1])
    if msg["type"] == "act" and "raise" in msg["legal"] and rng.random() < 0.6:
        return json.dumps({"type": "action", "action": "raise", "to": msg["min_raise_to"]})
    return PLUGIN.random_reply(run, seat, payload, rng)


def test_a_limit_act_says_the_raise_and_the_cap():
    run = PLUGIN.open_dialogue(HoldemParams(hands=30, gamedef=str(LIMIT_2P)), random.Random(3), ["a", "b"])
    rng = random.Random(4)
    acts: list[dict] = []

    def answer(n: int, seat: int, payload: bytes) -> str:
        msg = json.loads(payload.decode().splitlines()[-1])
        if msg["type"] == "act":
            acts.append(msg)
        return eager(run, seat, payload, rng)

    step_through(run, "holdem", answer)
    assert acts
    for msg in acts:
        assert list(msg)[-3:] == list(LIMIT_FIELDS)  # after max_raise_to
        street = ("preflop", "flop", "turn", "river").index(msg["street"])
        assert msg["raise_size"] == (10, 10, 20, 20)[street] and msg["max_raises"] == (3, 4, 4, 4)[street]
        if "raise" in msg["legal"]:
            assert msg["min_raise_to"] == msg["max_raise_to"] == max(msg["bets"]) + msg["raise_size"]
            assert msg["raises"] < msg["max_raises"]
        else:
            assert msg["min_raise_to"] is None and msg["raises"] == msg["max_raises"]
    assert {m["raises"] for m in acts} >= {0, 1, 2, 3, 4}
    assert any(m["street"] == "preflop" and m["raises"] == 3 and "raise" not in m["legal"] for m in acts)


def test_no_limit_acts_have_no_limit_fields():
    run = PLUGIN.open_dialogue(HoldemParams(hands=3), random.Random(3), ["a", "b", "c"])
    rng = random.Random(4)
    seen = []
    step_through(run, "holdem", lambda n, seat, p: seen.append(p) or PLUGIN.random_reply(run, seat, p, rng))
    acts = [json.loads(p.decode().splitlines()[-1]) for p in seen if b'"type":"act"' in p]
    assert acts and not any(set(LIMIT_FIELDS) & set(m) for m in acts)


def _fault_of(reply_of) -> ProtocolError:
    """The fault of the first seat whose reply ``reply_of(msg)`` gives (None: a random legal one)."""
    run = PLUGIN.open_dialogue(HoldemParams(hands=20, gamedef=str(LIMIT_2P)), random.Random(5), ["a", "b"])
    rng = random.Random(6)
    faults: list[ProtocolError] = []

    def answer(n: int, seat: int, payload: bytes) -> str:
        msg = json.loads(payload.decode().splitlines()[-1])
        line = reply_of(msg) if msg["type"] == "act" and not faults else None
        return line if line is not None else eager(run, seat, payload, rng)

    step_through(run, "holdem", answer, on_fault=faults.append)
    assert faults
    return faults[0]


def test_a_raise_of_another_size_is_a_fault_in_words():
    fault = _fault_of(lambda m: json.dumps({"type": "action", "action": "raise", "to": m["min_raise_to"] + 5})
                      if "raise" in m["legal"] else None)
    assert fault.kind == "illegal_action"
    assert "is not this limit game's raise" in fault.reason and "and one raise of" in fault.reason
    assert '"to" ' in fault.expected and "with raise (the limit raise" in fault.expected


def test_a_raise_past_the_cap_is_a_fault_in_words():
    fault = _fault_of(lambda m: json.dumps({"type": "action", "action": "raise", "to": max(m["bets"]) + 10})
                      if m["raises"] == m["max_raises"] else None)
    assert fault.kind == "illegal_action"
    assert fault.reason.startswith("you may not raise: the betting") and "has reached its cap" in fault.reason
    assert "raise" not in fault.expected.split("one of ")[1]


def test_the_fault_rule_counts_what_the_caps_let_a_seat_lose():
    params = HoldemParams(hands=10, gamedef=str(LIMIT_2P))
    run = PLUGIN.open_dialogue(params, random.Random(1), ["a", "b"])
    assert params.stack == 2**31 - 1 and params.most_lost() == 240
    assert run.forfeit(0) == [-10 * 240.0, 0.0]


def test_arena_holdem_plays_a_limit_definition_and_writes_its_hands(tmp_path):
    bot = f"python3 {ROOT / 'sample_bots' / 'holdem' / 'random_bot.py'}"
    out = tmp_path / "limit.phhs"
    proc = run_arena("holdem", f"A={bot} --seed 1", f"B={bot} --seed 2", f"C={bot} --seed 3", "--hands", "12",
                     "--gamedef", str(LIMIT_3P), "--seed", replay_key("45"), "--hand-history", str(out), "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    bankrolls = {s["bot"]: s["payoff"] for s in result["seats"]}
    assert replay(out.read_text(), 3) == bankrolls
    assert len(list(pokerkit.HandHistory.loads_all(out.read_text()))) == 12


# -- arena check-game's checks on limit matches ---------------------------------------


class LimitHoldem(HoldemPlugin):
    """hold'em whose checked matches are limit ones: the ACPC package's heads-up and three-seat games,
    given as values (no file path in the golden), and its own golden transcript of them."""

    playthrough_matches = (
        ({"hands": 6, "gamedef": read_gamedef(LIMIT_2P).model_dump(mode="json")}, 7),
        ({"hands": 4, "gamedef": read_gamedef(LIMIT_3P).model_dump(mode="json")}, 8),
    )

    def playthrough_file(self) -> Path:
        return GOLDEN / "holdem_limit.playthrough"


def test_check_game_s_checks_pass_on_limit_matches():
    # every check of `arena check-game`, the golden playthrough a limit one
    # (python -m tests.protocols.test_holdem_limit writes it again: review the diff)
    checks = check_game(LimitHoldem())
    failed = [c for c in checks if not c.ok]
    assert not failed, "\n".join(f"{c.name}: {c.summary} {c.details[:3]}" for c in failed)
    assert {c.name for c in checks} >= {"golden playthrough", "information", "legality", "fault never pays"}


if __name__ == "__main__":
    print(write_golden(LimitHoldem()))
