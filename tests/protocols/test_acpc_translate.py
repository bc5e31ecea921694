"""The ACPC translation without processes: positions, r<N> against ``to``,
game definitions, and the sentences of a wrong response."""

from __future__ import annotations

import pytest

from protocols.acpc import AcpcFault, HoldemTranslator, gamedef, refusal

from ..conftest import ACPC


def _start(seat, button, seats=(0, 1, 2), bets=(50, 100, 0)):
    return {"type": "hand_start", "hand": 3, "seat": seat, "cards": ["Ah", "Kd"], "button": button,
            "in_hand": list(seats), "bets": list(bets), "stacks": [0] * len(seats)}


def _action(seat, action, amount):
    return {"type": "action", "seat": seat, "action": action, "amount": amount}


def test_positions_follow_the_button_and_raises_count_the_whole_hand():
    tr = HoldemTranslator(seat=0)  # button 2: order 0 (small blind), 1 (big blind), 2 (button)
    assert tr.feed(_start(0, 2)) == []  # held until the next message shows the state whole
    assert tr.feed(_action(2, "raise", 300)) == ["MATCHSTATE:0:3::AhKd||"]
    assert tr.feed({"type": "act", "to_call": 250}) == ["MATCHSTATE:0:3:r300:AhKd||"]
    assert tr.reply("MATCHSTATE:0:3:r300:AhKd||:c") == {"type": "action", "action": "call"}
    tr.feed(_action(0, "call", 250))
    tr.feed(_action(1, "call", 200))
    tr.feed({"type": "street", "board": ["2c", "7h", "Kd"]})
    tr.feed(_action(0, "call", 0))
    assert tr.feed(_action(1, "raise", 500)) == ["MATCHSTATE:0:3:r300cc/c:AhKd||/2c7hKd"]
    tr.feed(_action(2, "call", 500))
    assert tr.feed({"type": "act", "to_call": 500}) == ["MATCHSTATE:0:3:r300cc/cr800c:AhKd||/2c7hKd"]
    # r2000: 2000 in the hand, 300 of it before the flop: a raise to 1700 on this street
    assert tr.reply("MATCHSTATE:0:3:r300cc/cr800c:AhKd||/2c7hKd:r2000") == {
        "type": "action", "action": "raise", "to": 1700}


def test_heads_up_the_button_is_position_1():
    tr = HoldemTranslator(seat=1)
    tr.feed(_start(1, 1, seats=(0, 1), bets=(100, 50)))
    assert tr.feed({"type": "act", "to_call": 50}) == ["MATCHSTATE:1:3::|AhKd"]
    # a fold where a check is free is the check it means
    tr.feed(_action(1, "call", 50))
    tr.feed(_action(0, "call", 0))
    tr.feed({"type": "street", "board": ["2c", "7h", "Kd"]})
    tr.feed(_action(0, "call", 0))
    (state,) = tr.feed({"type": "act", "to_call": 0})
    assert state == "MATCHSTATE:1:3:cc/c:|AhKd/2c7hKd"
    assert tr.reply(state + ":f") == {"type": "action", "action": "call"}


def test_a_wrong_response_is_said_in_words():
    tr = HoldemTranslator(seat=0)
    tr.feed(_start(0, 1, seats=(0, 1), bets=(100, 50)))
    tr.feed(_action(1, "call", 50))
    (state,) = tr.feed({"type": "act", "to_call": 0})
    with pytest.raises(AcpcFault, match=r"answered another state: sent 'MATCHSTATE:0:2::AhKd\|:c'"):
        tr.reply("MATCHSTATE:0:2::AhKd|:c")
    tr.feed({"type": "act", "to_call": 0})
    with pytest.raises(AcpcFault, match=r"the action 'x'.*expected the state it was sent followed by :f, :c"):
        tr.reply(state + ":x")
    tr.feed({"type": "act", "to_call": 0})
    with pytest.raises(AcpcFault, match="not an ACPC response"):
        tr.reply("hello")


def test_the_game_definitions_are_the_acpc_packages():
    def lines(text):
        return sorted(line.strip() for line in text.splitlines() if line.strip())

    params = {"stack": 20000, "small_blind": 50, "big_blind": 100}
    if (ACPC / "holdem.nolimit.2p.reverse_blinds.game").exists():
        assert lines(gamedef(params, 2)) == lines((ACPC / "holdem.nolimit.2p.reverse_blinds.game").read_text())
        assert lines(gamedef(params, 3)) == lines((ACPC / "holdem.nolimit.3p.game").read_text())
    assert "blind = 100 50" in gamedef(params, 2)
    assert "blind = 50 100 0 0" in gamedef(params, 4)


def test_what_acpc_cannot_express_is_refused():
    assert refusal({"mode": "cash", "ante": 0}) is None
    assert "freezeout" in refusal({"mode": "freezeout"})
    assert "freezeout" in refusal({"format": "freezeout"})  # the key's name in an arena before 0.2
    assert "antes" in refusal({"mode": "cash", "ante": 1})


def test_kuhn3_states_agree_across_seats_and_round_trip():
    """Real kuhn3 dialogues (random legal replies): every seat's translator
    builds the same betting, each reply survives ACPC and back, and the
    Money each computes is the dealer's."""
    import random

    from protocols.acpc import Kuhn3Translator
    from protocols.kuhn3 import PLUGIN
    from games.kuhn3 import Kuhn3Params

    hands_seen = 0
    for seed in range(6):
        run = PLUGIN.open_dialogue(Kuhn3Params(hands=12), random.Random(seed))
        rng = random.Random(seed + 50)
        tr: dict[int, Kuhn3Translator] = {}
        finals: dict[int, str] = {}
        truth: list[str] = []  # the hand's actions as they were made
        dialogue = run.run()
        exchange = next(dialogue)
        try:
            while True:
                replies = []
                for seat, payload in exchange.sends:
                    lines = payload.decode().splitlines()
                    value = PLUGIN.random_reply(run, seat, payload, rng)
                    head = lines[0]
                    if head == "init_round":
                        tr[seat] = Kuhn3Translator(int(lines[3].split(": ")[1]))
                    elif head == "init_hand":
                        tr[seat].start_hand(int(lines[1].split(": ")[1]), lines[2].split(": ")[1])
                    elif head == "play":
                        t = tr[seat]
                        (state,) = t.play([(a.split()[1], int(a.split()[2])) for a in lines[1:4]])
                        verb, amount = value.split()
                        mine = t.front[t.me]
                        token = "f" if verb == "FOLD" else ("c" if int(amount) == mine or t.bettor is not None
                                                            else "r")
                        assert t.reply(f"{state}:{token}") == value, (state, token, value)
                        truth.append(token)
                    elif head == "end_hand":
                        amounts = [int(a.split()[2]) for a in lines[1:4]]
                        pots = [tuple(map(int, p.split(","))) for p in lines[5].split(": ")[1].split()]
                        (state,) = tr[seat].end_hand(amounts, lines[4].split(": ")[1].split(","), pots)
                        finals[seat] = state.split(":")[3]
                        if len(finals) == 3:
                            assert set(finals.values()) == {"".join(truth)}, (finals, truth)
                            finals.clear()
                            truth.clear()
                            hands_seen += 1
                    elif head.startswith("EndAction"):
                        assert tr[seat].money() == value
                    replies.append(value)
                exchange = dialogue.send(replies)
        except StopIteration:
            pass
    assert hands_seen == 6 * 12
