"""Rules of 3-player Kuhn poker, checked on the engine alone (no I/O)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import IllegalAction
from games.kuhn3 import Action, Kuhn3Params, Kuhn3Round, Phase


def start(button=0, cards=("J", "Q", "K"), **params) -> Kuhn3Round:
    r = Kuhn3Round(Kuhn3Params(**params))
    r.apply_chance(button)
    r.apply_chance(cards)
    return r


def bet(n):
    return Action("BET", n)


def fold(n):
    return Action("FOLD", n)


def test_first_to_act_is_left_of_the_button_and_the_button_moves():
    r = start(button=1)
    assert r.hand == 0 and r.button == 1 and r.to_act == 2
    for seat in (2, 0, 1):
        r.apply_action(seat, bet(1))
    assert r.phase is Phase.CONTINUE
    r.apply_chance(False)
    r.apply_chance(("A", "K", "Q"))
    assert r.hand == 1 and r.button == 2 and r.to_act == 0


def test_all_check_goes_to_showdown_with_automatic_mucking():
    # Button 0: seat 1 acts first and shows first; seat 2 has a better card
    # and shows; seat 0 (J) would not beat the K and is mucked.
    r = start(button=0, cards=("J", "Q", "K"))
    for seat in (1, 2, 0):
        r.apply_action(seat, bet(1))
    res = r.last_result
    assert res.shown == (None, "Q", "K")
    assert res.pots == ((3, 2),)
    assert r.money == [-1, -1, 2]


def test_after_a_bet_everyone_else_acts_once_and_the_seat_before_the_bettor_closes():
    r = start(button=1, cards=("Q", "J", "K"))  # the seed example's first hand
    r.apply_action(2, bet(2))
    assert r.to_act == 0
    r.apply_action(0, bet(2))
    assert r.to_act == 1
    r.apply_action(1, fold(1))
    res = r.last_result
    assert res.last_actor == 1
    assert res.shown == (None, None, "K")
    assert res.pots == ((5, 2),)
    assert r.money == [-2, -1, 3]


def test_everyone_folds_to_a_bet_nothing_is_shown():
    r = start(button=2, cards=("A", "Q", "K"))
    r.apply_action(0, bet(2))
    r.apply_action(1, fold(1))
    r.apply_action(2, fold(1))
    assert r.last_result.shown == (None, None, None)
    assert r.money == [2, -1, -1]


@pytest.mark.parametrize(
    "action, reason",
    [
        (bet(3), "above the maximum bet of 2"),
        (fold(1), "no bet to fold to; check with BET 1"),
        (Action("PASS", 1), "PASS is only for a seat that cannot act"),
        (bet(0), "below the 1 needed"),
    ],
)
def test_illegal_actions_are_refused_with_a_reason(action, reason):
    r = start()
    with pytest.raises(IllegalAction, match=reason.replace("(", r"\(")):
        r.check_action(r.to_act, action)


def test_facing_a_bet_check_and_bad_fold_are_refused():
    r = start(button=0)
    r.apply_action(1, bet(2))
    with pytest.raises(IllegalAction, match="below the 2 needed"):
        r.check_action(2, bet(1))
    with pytest.raises(IllegalAction, match="FOLD 1, not FOLD 2"):
        r.check_action(2, fold(2))
    with pytest.raises(IllegalAction, match="seat 2's turn"):
        r.check_action(0, bet(2))
    assert r.describe_legal() == "BET 2 (call) or FOLD 1 (fold)"


def test_fixed_number_of_hands_ends_without_chance():
    r = start(hands=1)
    for seat in (1, 2, 0):
        r.apply_action(seat, bet(1))
    assert r.phase is Phase.OVER and r.hands_played == 1


def test_params_are_validated():
    with pytest.raises(ValueError, match="max_bet"):
        Kuhn3Params(antes=(2, 2, 2), max_bet=2)
    with pytest.raises(ValueError, match="0 < a <= b"):
        Kuhn3Params(end_prob=(0, 10))
    with pytest.raises(ValueError):
        Kuhn3Params(surprise=1)


def test_chance_outcomes_are_complete_distributions():
    r = Kuhn3Round(Kuhn3Params(end_prob=(3, 7)))
    assert sum(p for _, p in r.chance_outcomes()) == 1
    r.apply_chance(0)
    deals = r.chance_outcomes()
    assert len(deals) == 24 and sum(p for _, p in deals) == 1
    with pytest.raises(ValueError):
        r.apply_chance(("A", "A", "K"))


@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, 2),
    st.lists(st.permutations(["J", "Q", "K", "A"]), min_size=1, max_size=6),
    st.data(),
)
def test_random_legal_play_conserves_chips_and_stays_legal(button, decks, data):
    r = Kuhn3Round(Kuhn3Params(hands=len(decks)))
    r.apply_chance(button)
    for deck in decks:
        r.apply_chance(tuple(deck[:3]))
        turns = 0
        while r.phase is Phase.BETTING:
            legal = [a for a, _ in r.legal_actions()]
            assert legal, "a seat to act always has a legal action"
            for a in legal:
                r.check_action(r.to_act, a)  # every listed action passes the check
            r.apply_action(r.to_act, data.draw(st.sampled_from(legal)))
            turns += 1
            assert turns <= 5, "one bet allows at most 5 decisions"
        res = r.last_result
        assert sum(res.in_front) == sum(v for v, _ in res.pots)
        assert sum(r.money) == 0  # chips are conserved
        live = [s for s in range(3) if res.actions[s].verb != "FOLD"]
        assert len(live) >= 1
        assert all(res.in_front[s] == max(res.in_front) for s in live)
        winner = res.pots[0][1]
        assert winner in live
        if len(live) > 1:
            assert res.shown[winner] == max((res.cards[s] for s in live), key="JQKA".index)
    assert r.phase is Phase.OVER
