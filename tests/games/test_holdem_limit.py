"""Limit hold'em in the engine (``HoldemHand(..., limit=(sizes, caps))``).

A raise is to the bet plus the street's size, exactly (all-in for less when
the stack does not cover it); a street allows at most its cap of bets and
raises; an all-in is legal only as a call or as that raise. Refusals are in
words. Then random limit hands (2 to 10 seats, short and deep stacks,
antes, odd blinds) are played through our engine and PokerKit's
``FixedLimitTexasHoldem`` with the same cards, compared at every decision
(who acts, stacks, bets, what is legal, the one raise-to, the bets and
raises made) and at the end (pots, winners, stacks), as
tests/games/test_holdem_oracle.py does for no-limit. PokerKit's fixed limit
has a small bet (preflop, flop), a big bet (turn, river) and a cap of 4 a
street, so the random hands have those; a cap of 3 before the flop (the
ACPC files') is checked on its own.
"""

from __future__ import annotations

import random
import warnings

import pytest

pokerkit = pytest.importorskip("pokerkit")

from pokerkit import FixedLimitTexasHoldem, Mode  # noqa: E402

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*deprecated - use", category=DeprecationWarning)
    from games import IllegalAction  # noqa: E402
from games.holdem import ALLIN, CALL, FOLD, RAISE, HoldemHand  # noqa: E402

from .test_holdem_oracle import (  # noqa: E402
    AUTOMATIONS,
    Mismatch,
    Replay,
    Setup,
    Tally,
    fast_pokerkit_hands,
    random_chooser,
    random_setup,
)

__all__ = ["fast_pokerkit_hands"]  # a fixture, used by name

ACPC_CAPS = (3, 4, 4, 4)
SIZES = (10, 10, 20, 20)


def limit_hand(stacks, button=0, small=5, big=10, sizes=SIZES, caps=ACPC_CAPS, ante=0, seed=1) -> HoldemHand:
    deck = random.Random(seed).sample(range(52), 2 * sum(1 for s in stacks if s) + 5)
    return HoldemHand(stacks, button, small, big, ante, deck, limit=(sizes, caps))


def refusal(hand: HoldemHand, action: str, to: int | None = None) -> str:
    with pytest.raises(IllegalAction) as info:
        hand.verify(action, to)
    with pytest.raises(IllegalAction):
        hand.act(action, to)
    return str(info.value)


# -- the rules, hand by hand ------------------------------------------------------


def test_a_limit_raise_has_one_size_per_street_and_a_cap():
    h = limit_hand([1000, 1000])  # heads-up: seat 0 is the button and small blind, first before the flop
    assert h.limit == (SIZES, ACPC_CAPS)
    legal = h.legal()
    assert legal.actions == (FOLD, CALL, RAISE) and (legal.min_to, legal.max_to) == (20, 20) and h.raises == 0
    assert refusal(h, RAISE, 25) == ("raise to 25 is not this limit game's raise: before the flop a raise is to 20, "
                                     "the bet (10) and one raise of 10")
    assert "is not this limit game's raise" in refusal(h, RAISE, 10**30)  # an integer past 64 bits, in words too
    assert refusal(h, ALLIN) == ("all-in would be a raise to 1000, and in this limit game a raise before the flop is "
                                 "to 20: raise to 20, or call")
    for to in (20, 30, 40):  # the blind, then three raises: the cap before the flop
        assert h.legal().min_to == to
        h.act(RAISE, to)
    assert h.raises == 3
    assert h.legal().actions == (FOLD, CALL) and h.legal().min_to is None
    assert refusal(h, RAISE, 50) == ("you may not raise: the betting before the flop has reached its cap, 3 raises: "
                                     "call or fold")
    assert refusal(h, ALLIN).startswith("all-in would be a raise, and the betting before the flop has reached its cap")
    h.act(CALL)
    assert h.street == 1 and h.raises == 0 and h.legal() == ((CALL, RAISE), 0, 10, 10)
    for to in (10, 20, 30, 40):
        h.act(RAISE, to)
    assert refusal(h, RAISE, 50) == ("you may not raise: the betting on the flop has reached its cap, 4 bets and "
                                     "raises: call or fold")
    h.act(CALL)
    assert h.street == 2 and h.legal().min_to == 20  # the big bet on the turn
    assert refusal(h, RAISE, 10).startswith("raise to 10 is not this limit game's raise: on the turn a raise is to 20")
    h.act(RAISE, 20)
    assert h.legal().min_to == 40 and h.bet[h.to_act] == 0


def test_a_short_stack_raises_all_in_for_less():
    h = limit_hand([1000, 1000, 30], button=1)  # seat 2 is the small blind, 0 the big blind, 1 the button
    assert h.to_act == 1
    h.act(RAISE, 20)
    legal = h.legal()  # seat 2: 25 behind its blind of 5, just a full raise (to 30): all-in is that raise
    assert h.to_act == 2 and legal.actions == (FOLD, CALL, RAISE, ALLIN) and (legal.min_to, legal.max_to) == (30, 30)
    deeper = limit_hand([1000, 1000, 35], button=1)
    deeper.act(RAISE, 20)
    assert deeper.legal().actions == (FOLD, CALL, RAISE)  # all-in (to 35) would raise by more than the limit
    h2 = limit_hand([1000, 1000, 27], button=1)
    h2.act(RAISE, 20)
    legal = h2.legal()  # 22 behind: the raise is all-in, to 27
    assert legal.actions == (FOLD, CALL, RAISE, ALLIN) and (legal.min_to, legal.max_to) == (27, 27)
    assert refusal(h2, RAISE, 30) == ("raise to 30 is not this limit game's raise: your stack does not cover a full "
                                      "raise before the flop (to 30), so a raise is all-in, to 27")
    assert h2.act(ALLIN) == 22 and h2.max_bet == 27 and h2.raises == 2
    # seat 0 (the big blind) has acted? no: it may still raise, to 27 + 10
    assert h2.legal().min_to == 37
    h3 = limit_hand([1000, 1000, 12], button=1)
    h3.act(RAISE, 20)
    assert h3.legal().actions == (FOLD, CALL, ALLIN)  # 7 behind, less than the call: all-in is the call


def test_a_cap_of_zero_allows_no_bet_and_no_limit_hands_have_no_limit_fields():
    h = limit_hand([100, 100], caps=(0, 0, 1, 0))
    assert h.legal().actions == (FOLD, CALL)
    h.act(CALL)
    h.act(CALL)
    assert h.street == 1 and h.legal().actions == (CALL,)
    h.act(CALL)
    h.act(CALL)
    assert h.street == 2 and h.legal().actions == (CALL, RAISE)
    h.act(RAISE, 20)
    assert h.legal().actions == (FOLD, CALL)
    plain = HoldemHand([100, 100], 0, 1, 2, 0, list(range(9)))
    assert plain.limit is None and plain.legal().max_to == 100


@pytest.mark.parametrize("limit, words", [
    (((10, 10, 20),) * 2, "limit: one raise size and one cap on raises per street, 4 of each"),
    (((10, 10, 20, 0), (1, 1, 1, 1)), "limit: a raise size is 1 chip or more, a cap 0 or more"),
    ((10, 20), "limit's raise sizes"),
])
def test_a_bad_limit_is_refused(limit, words):
    with pytest.raises((ValueError, TypeError), match=words):
        HoldemHand([100, 100], 0, 1, 2, 0, list(range(9)), limit=limit)


# -- against PokerKit's fixed-limit hold'em ------------------------------------------


class LimitReplay(Replay):
    """A limit hand through both engines: ours with (s, s, 2s, 2s) and a cap of 4 a street, PokerKit's
    FixedLimitTexasHoldem with small bet s and big bet 2s (its cap is 4)."""

    def __init__(self, setup: Setup, small_bet: int, where: str) -> None:
        super().__init__(setup, where)
        st = setup
        sizes = (small_bet, small_bet, 2 * small_bet, 2 * small_bet)
        self.h = h = HoldemHand(st.stacks, st.button, st.small_blind, st.big_blind, st.ante, st.deck,
                                limit=(sizes, (4, 4, 4, 4)))
        self.state = FixedLimitTexasHoldem.create_state(
            AUTOMATIONS, True, st.ante, (st.small_blind, st.big_blind), small_bet, 2 * small_bet,
            tuple(st.stacks[s] for s in h.order), len(h.order), mode=Mode.TOURNAMENT)
        self.sizes = sizes
        self.capped = self.short_raises = 0

    def compare_decision(self, tally: Tally) -> None:
        h, state, order = self.h, self.state, self.order
        i = state.actor_index
        self.check(i is not None and h.to_act == order[i], f"seat {h.to_act} to act (ours), player {i} in PokerKit")
        self.check([h.stack[s] for s in order] == state.stacks, f"stacks {h.stack} != {state.stacks}")
        self.check([h.bet[s] for s in order] == state.bets, f"bets {h.bet} != {state.bets}")
        self.check(h.raises == state.completion_betting_or_raising_count,
                   f"{h.raises} bets and raises (ours), {state.completion_betting_or_raising_count} (PokerKit)")
        ours = h.legal()
        call = state.checking_or_calling_amount
        low = state.min_completion_betting_or_raising_to_amount
        high = state.max_completion_betting_or_raising_to_amount
        allin = (high is not None and high == state.stacks[i] + state.bets[i]) or call == state.stacks[i]
        theirs = (state.can_fold(), call, low is not None, low, high, allin)
        mine = (FOLD in ours.actions, ours.call, RAISE in ours.actions, ours.min_to, ours.max_to, ALLIN in ours.actions)
        if mine != theirs:
            self.fail(f"seat {order[i]}'s legal actions differ:\n    ours    : {ours}\n"
                      f"    PokerKit: (fold, call, raise, min_to, max_to, allin) = {theirs}\n    ours: {mine}")
        self.capped += h.raises == 4 and state.stacks[i] > call
        self.short_raises += low is not None and low < max(state.bets) + self.sizes[h.street]


def test_random_limit_hands_agree_with_pokerkit(fast_pokerkit_hands):
    rng = random.Random(45)
    tally = Tally()
    mismatches: list[str] = []
    capped = short = 0
    for index in range(1500):
        setup = random_setup(rng)
        small_bet = rng.choice((setup.big_blind, setup.big_blind, 2 * setup.big_blind, 1, 3))
        replay = LimitReplay(setup, small_bet, f"hand {index}, small bet {small_bet}")
        try:
            replay.play(random_chooser(rng), tally)
        except Mismatch as exc:
            mismatches.append(str(exc))
        capped += replay.capped
        short += replay.short_raises
    assert not mismatches, f"{len(mismatches)} hands disagree with PokerKit; the first:\n\n" + "\n\n".join(
        mismatches[:3])
    # what the corpus must keep covering
    assert tally.hands == 1500 and tally.heads_up > 50 and tally.ten_seats > 100, tally
    assert capped > 100 and short > 50 and tally.side_pots > 50 and tally.runouts > 50, (capped, short, tally)
    assert tally.actions[RAISE] > 2000 and tally.actions[ALLIN] > 100, tally.actions
