"""Hold'em rules, hand by hand: blinds and order, raise sizes, short all-ins,
side pots, odd chips, freezeout places, duplicate deals. (PokerKit replays
thousands of random hands in test_holdem_oracle.py; these are the rules a
reader can check by hand.)"""

import json
import random

import pytest

from arena import load_game
from arena.play._stepping import step_through
from arena.tournament._run import schedule
from games import IllegalAction
from games.holdem import Freezeout, HoldemHand, HoldemParams, describe, evaluate, parse_cards


def deal(order_cards: str, board: str, seats: int) -> list[int]:
    """A deck: the hole cards in ``order`` (from the button's left), then the board."""
    cards = parse_cards(order_cards.replace(" ", "")) + parse_cards(board.replace(" ", ""))
    rest = [c for c in range(52) if c not in cards]
    return cards + rest[: max(0, 2 * seats + 5 - len(cards))]


def test_heads_up_the_button_posts_the_small_blind_and_acts_first_before_the_flop_only():
    h = HoldemHand([100, 100], 1, 1, 2, 0, deal("2c3c 4d5d", "KsQsJs 9h 8h", 2))
    assert (h.small_blind_seat, h.big_blind_seat) == (1, 0)
    assert h.to_act == 1 and h.legal().call == 1
    h.act("call")
    assert h.to_act == 0 and h.legal().actions == ("call", "raise", "allin")  # may check, not fold
    h.act("call")
    assert h.board and h.to_act == 0  # after the flop the big blind acts first


def test_three_seats_the_button_opens_and_the_small_blind_acts_first_after_the_flop():
    h = HoldemHand([100, 100, 100], 2, 1, 2, 0, deal("", "", 3))
    assert (h.small_blind_seat, h.big_blind_seat, h.to_act) == (0, 1, 2)
    for _ in range(3):
        h.act("call")
    assert len(h.board) == 3 and h.to_act == 0


def test_raise_sizes_and_their_reasons():
    h = HoldemHand([400, 400, 400], 2, 1, 2, 0, deal("", "", 3))
    legal = h.legal()
    assert (legal.min_to, legal.max_to) == (4, 400)
    with pytest.raises(IllegalAction, match="raise to 3 is below the minimum raise to 4"):
        h.act("raise", 3)
    h.act("raise", 10)  # a raise of 8
    with pytest.raises(IllegalAction, match="raise to 15 is below the minimum raise to 18"):
        h.act("raise", 15)
    with pytest.raises(IllegalAction, match="raise to 401 is more than you have: all-in is a raise to 400"):
        h.act("raise", 401)
    h.act("raise", 18)
    assert h.legal().min_to == 26


def test_fold_with_nothing_to_call_is_refused_in_words():
    h = HoldemHand([100, 100], 1, 1, 2, 0, deal("", "", 2))
    h.act("call")
    with pytest.raises(IllegalAction, match="fold with nothing to call is not allowed"):
        h.act("fold")


def test_a_short_all_in_does_not_reopen_the_betting_for_those_who_acted():
    # seats: 0 small blind, 1 big blind (14 chips), 2 and 3 act before it
    h = HoldemHand([400, 14, 400, 400], 3, 1, 2, 0, deal("", "", 4))
    assert h.to_act == 2
    h.act("raise", 10)  # full raise (by 8)
    h.act("call")  # seat 3
    h.act("call")  # seat 0 (small blind)
    assert h.to_act == 1
    h.act("allin")  # to 14: a raise of 4, short of 8
    assert h.to_act == 2
    legal = h.legal()
    assert legal.actions == ("fold", "call") and legal.min_to is None
    with pytest.raises(IllegalAction, match="not reopened"):
        h.act("raise", 30)
    with pytest.raises(IllegalAction, match="all-in would be a raise"):
        h.act("allin")
    for _ in range(3):
        h.act("call")
    assert len(h.board) == 3 and h.pot == 56


def test_side_pots_go_to_the_best_hand_that_contested_each():
    # order from the button's left: seat 0 (SB), 1 (BB), 2 (button)
    deck = deal("AhAd KhKd QhQd", "2c 7s 9d 3h 4c", 3)
    h = HoldemHand([20, 50, 100], 2, 1, 2, 0, deck)
    h.act("allin")  # seat 2 puts in 100
    h.act("allin")  # seat 0: 20
    h.act("allin")  # seat 1: 50
    assert h.over and len(h.board) == 5
    amounts = [(p.amount, p.seats, p.winners) for p in h.pots]
    assert amounts == [(60, (0, 1, 2), (0,)), (60, (1, 2), (1,)), (50, (2,), (2,))]
    assert h.stack == [60, 60, 50]
    assert describe(h.values[0]) == "a pair of aces"


def test_odd_chips_go_to_the_first_winner_left_of_the_button():
    deck = deal("2c2d 3c3d 4c4d", "5h 6s 7h 8s 9c", 3)  # the board's straight: every seat ties
    h = HoldemHand([100, 100, 100], 2, 1, 2, 0, deck)
    h.act("call")  # seat 2 (button)
    h.act("fold")  # seat 0 (small blind) leaves 1 chip
    while not h.over:
        h.act("call")
    (pot,) = h.pots
    assert pot.amount == 5 and pot.winners == (1, 2)
    assert h.stack == [99, 101, 100]  # 3 to seat 1, the first winner after the button


def test_a_short_blind_is_all_in_and_the_board_runs_out():
    h = HoldemHand([1, 100], 0, 1, 2, 0, deal("", "", 2))  # the button has 1 chip: all-in posting
    assert h.to_act == 1 or h.over
    if not h.over:
        assert h.legal().actions == ("fold", "call", "allin") or "call" in h.legal().actions
        h.act("call")
    assert h.over and len(h.board) == 5 and sum(h.stack) == 101


def test_hands_in_words_follow_eval7():
    words = {describe(evaluate(parse_cards(c))) for c in
             ("AhKhQhJhTh", "9c8c7c6c5c", "2h2d2c2sKh", "3h3d3cKsKh", "Ah9h5h3h2h", "5h4d3c2sAh",
              "7h7d7c2s9h", "8h8d2h2dKc", "QhQd5s3c2h", "Ah9d5s3c2h")}
    assert words == {"a royal flush", "a straight flush, nine high", "four twos", "a full house, threes full of kings",
                     "a flush, ace high", "a straight, five high", "three sevens", "two pair, eights and twos",
                     "a pair of queens", "high card, ace"}


def test_freezeout_places_and_shared_places():
    params = HoldemParams(mode="freezeout", stack=10)
    t = Freezeout(4, params, 0)
    # the button (seat 0) gets the aces; seats 1-3 go out in the same hand from
    # equal stacks and share places 2 to 4
    deck = deal("2c2d 3c3d 4c4d AhAd", "Ac Kh 9s 8d 5c", 4)
    h = HoldemHand(t.stacks, t.next_button(), *t.blinds(), deck)
    while not h.over:
        h.act("allin" if "allin" in h.legal().actions else "call")
    out = t.record(h)
    assert sorted(out) == [1, 2, 3] and t.over
    assert t.places == [1, 3.0, 3.0, 3.0]
    assert t.points() == [3.0, 1.0, 1.0, 1.0]


def test_freezeout_blinds_double_every_level():
    p = HoldemParams(mode="freezeout", small_blind=5, big_blind=10, ante=1, level_hands=3)
    assert [p.blinds(h) for h in (0, 2, 3, 6)] == [(5, 10, 1), (5, 10, 1), (10, 20, 2), (20, 40, 4)]
    assert HoldemParams().blinds(99) == (1, 2, 0)  # cash: fixed


def _hole_cards(params: dict, seed: int, seats: int, reply_seed: int) -> list[tuple[int, int, list[str]]]:
    plugin = load_game("holdem")
    run = plugin.open_dialogue(plugin.Params(**params), random.Random(seed), [f"b{i}" for i in range(seats)])
    rng, cards = random.Random(reply_seed), []

    def dealt(n: int, exchange) -> None:
        for seat, payload in exchange.sends:
            msg = json.loads(payload)
            if msg["type"] == "hand_start":
                cards.append((msg["hand"], seat, msg["cards"]))

    step_through(run, "holdem", lambda n, seat, payload: plugin.random_reply(run, seat, payload, rng),
                 on_exchange=dealt)
    return cards


def test_cash_deals_the_same_cards_to_the_same_seats_whatever_the_players_do():
    one = _hole_cards({"hands": 12}, 5, 6, reply_seed=1)
    two = _hole_cards({"hands": 12}, 5, 6, reply_seed=2)
    assert one == two and len(one) == 12 * 6
    assert one != _hole_cards({"hands": 12}, 6, 6, reply_seed=1)


def test_tournaments_seat_holdem_tables_by_rotation():
    pairings = schedule(4, 3, 1, 9, rotations=True)
    assert len(pairings) == 4 * 3
    assert {p.seats for p in pairings[:3]} == {(0, 1, 2), (1, 2, 0), (2, 0, 1)}
    dup = schedule(6, 6, 1, 9, rotations=True, duplicate=True)
    assert len(dup) == 6 and len({p.seed for p in dup}) == 1


def _drive(run, plugin, exchanges: int, rng: random.Random) -> None:
    """``exchanges`` exchanges answered, and the next one yielded: the match still under way there."""
    outcome = step_through(run, "holdem", lambda n, seat, payload: plugin.random_reply(run, seat, payload, rng),
                           limit=exchanges)
    assert outcome is None, f"the match ended within {exchanges} exchanges"


@pytest.mark.parametrize("fmt", ["cash", "freezeout"])
def test_a_fault_never_pays(fmt):
    """The fault rule: the faulting seat keeps no more than what it had won
    before the unfinished hand (tournament), and cash charges it a whole stack
    for every hand not finished; the other seats keep theirs."""
    plugin = load_game("holdem")
    params = plugin.Params(format=fmt, hands=50, tournaments=50, stack=40)
    run = plugin.open_dialogue(params, random.Random(3), ["a", "b", "c"])
    _drive(run, plugin, 400, random.Random(4))
    done, totals = run.standings()
    assert 0 < done and run.hand is not None  # in the middle of a hand
    scores = run.forfeit(1)
    assert scores[0] == totals[0] and scores[2] == totals[2]
    if fmt == "cash":
        assert scores[1] == min(totals[1], 0) - (50 - run.hands) * 40 < -40
    else:
        assert scores[1] == totals[1]  # no points for the tournament in play or any later one
