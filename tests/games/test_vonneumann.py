"""vonneumann rules, engine only: the seed's statements one by one, then a property test."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from games import IllegalAction
from arena import load_game
from games.vonneumann import UNKNOWN_CARD, Phase, VonNeumannMatch, VonNeumannParams


def match(**params) -> VonNeumannMatch:
    return VonNeumannMatch(VonNeumannParams(**params))


def play(m: VonNeumannMatch, a_card: float, b_card: float, bet, call: bool | None = None) -> int:
    """One game; returns the bet after clamping. ``call`` is used only if B is asked."""
    m.apply_deal(a_card, b_card)
    placed = m.apply_bet(bet)
    if m.phase is Phase.B_TO_ACT:
        assert call is not None, "B was asked but the test gave no answer"
        m.apply_call(call)
    else:
        assert call is None, "the test expected B to be asked"
    return placed


# -- parameters -------------------------------------------------------------

def test_defaults_are_the_seeds_numbers():
    p = load_game("vonneumann").Params()
    assert (p.ante, p.max_bet, p.stack, p.games_per_session) == (10, 50, 100, 50)
    assert p.sessions >= 1


@pytest.mark.parametrize("bad", [{"stack": 5}, {"ante": 0}, {"max_bet": 0}, {"sessions": 0},
                                 {"games_per_session": 0}, {"blinds": 1}])
def test_bad_parameters_are_refused(bad):
    with pytest.raises(ValidationError):
        VonNeumannParams(**bad)


# -- one game -----------------------------------------------------------------

@pytest.mark.parametrize(
    "a_money, b_money, asked, placed",
    [
        (100, 100, 1000, 50),  # cut to the bet limit
        (30, 100, 45, 30),  # cut to A's money
        (100, 20, 45, 20),  # cut to B's money, so B can go all in
        (100, 100, 7, 7),
        (100, 100, 50, 50),
        (100, 100, 3.0, 3),  # a whole number written as a float
        (100, 100, 1e300, 50),
    ],
)
def test_bets_are_clamped_to_money_limit_and_opponent(a_money, b_money, asked, placed):
    m = match()
    m.money = [a_money, b_money]
    m.apply_deal(0.9, 0.1)
    assert m.apply_bet(asked) == placed
    assert m.phase is Phase.B_TO_ACT  # after the cut B can always afford the call
    m.apply_call(True)
    # (payoffs, not money: a session ends, and money resets, once B cannot ante)
    assert m.payoffs() == [a_money + 10 + placed - 100, b_money - 10 - placed - 100]


@pytest.mark.parametrize("bet", [0, -1, -50, -10**30, 0.0, -0.0, -2.0])
def test_a_bet_of_zero_or_less_is_a_pass_and_b_is_not_asked(bet):
    m = match()
    assert play(m, 0.2, 0.7, bet) == 0
    assert m.money == [90, 110]  # a showdown for the antes; B's card was higher
    assert m.results[-1].called is None and m.results[-1].showdown
    assert m.previous_card == [0.7, 0.2]


@pytest.mark.parametrize("bet", [2.5, 0.5, -0.5, 49.999])
def test_a_fraction_of_a_dollar_is_illegal(bet):
    m = match()
    m.apply_deal(0.5, 0.5)
    with pytest.raises(IllegalAction, match="whole dollars"):
        m.apply_bet(bet)


@pytest.mark.parametrize("bet", [math.nan, math.inf, -math.inf, "5", None, True])
def test_a_bet_that_is_not_a_finite_number_is_illegal(bet):
    m = match()
    m.apply_deal(0.5, 0.5)
    with pytest.raises(IllegalAction):
        m.apply_bet(bet)


def test_a_fold_gives_a_the_antes_and_shows_no_card():
    m = match()
    play(m, 0.9, 0.5, 1, call=True)  # a showdown first, so cards are known
    assert m.previous_card == [0.5, 0.9]
    # Game 1: seat 1 is A, seat 0 is B and folds.
    play(m, 0.05, 0.99, 20, call=False)
    assert m.money == [111 - 10, 89 + 10]
    assert m.previous_card == [UNKNOWN_CARD, UNKNOWN_CARD]
    assert m.results[-1].showdown is False and m.results[-1].winner == 1


def test_showdown_higher_card_wins_ante_plus_bet():
    m = match()
    play(m, 0.3, 0.6, 25, call=True)
    assert m.money == [65, 135]
    assert m.previous_card == [0.6, 0.3]


def test_equal_cards_go_to_b_as_in_the_seeds_controller():
    m = match()
    play(m, 0.5, 0.5, 5, call=True)
    assert m.money == [85, 115]


def test_b_can_never_be_asked_a_bet_it_cannot_afford():
    m = match()
    m.money = [100, 10]  # B can only just ante
    m.apply_deal(0.9, 0.2)
    assert m.apply_bet(50) == 10
    assert m.phase is Phase.B_TO_ACT  # B is asked and can go all in
    m.apply_call(True)
    assert m.payoffs() == [20, -110] and m.session == 1


def test_the_seeds_money_rule_lets_a_player_end_below_zero():
    # Bets are cut to the money held before the ante, as the seed's controller does.
    m = match()
    m.money = [55, 100]
    play(m, 0.1, 0.9, 50, call=True)
    assert m.results[-1].bet == 50 and m.session_points[0] == [-105 / 1.0]


def test_steps_out_of_turn_are_refused():
    m = match()
    with pytest.raises(IllegalAction):
        m.apply_bet(5)
    with pytest.raises(IllegalAction):
        m.apply_deal(0.2, 1.0)  # cards are in [0, 1)
    m.apply_deal(0.2, 0.3)
    with pytest.raises(IllegalAction):
        m.apply_deal(0.2, 0.3)
    with pytest.raises(IllegalAction):
        m.apply_call(True)
    m.apply_bet(0)
    with pytest.raises(IllegalAction):
        m.apply_call(True)


# -- sessions, roles, scores ----------------------------------------------------

def test_a_session_ends_after_games_per_session():
    m = match(games_per_session=3, sessions=2)
    for _ in range(3):
        play(m, 0.9, 0.1, 0)  # A wins 10 each game; roles alternate
    assert m.session == 1 and m.game == 0 and m.money == [100, 100]
    assert m.session_games == [3]
    assert m.session_points == [[10 / math.sqrt(3)], [-10 / math.sqrt(3)]]


def test_a_session_ends_when_a_player_cannot_ante():
    m = match(sessions=2)
    play(m, 0.9, 0.1, 50, call=True)  # seat 0 is A: 160 / 40
    assert m.session == 0
    play(m, 0.2, 0.8, 30, call=True)  # seat 1 is A and loses 40: 200 / 0
    assert m.session_games == [2] and m.session == 1
    assert m.session_points == [[100 / math.sqrt(2)], [-100 / math.sqrt(2)]]
    assert m.money == [100, 100]


def test_money_just_at_the_ante_still_plays():
    m = match(sessions=1)
    m.money = [110, 10]
    play(m, 0.1, 0.9, 0)  # seat 1 wins the antes
    assert m.session == 0 and m.money == [100, 20]


def test_match_ends_after_the_last_session():
    m = match(games_per_session=2, sessions=2)
    for _ in range(4):
        play(m, 0.4, 0.6, 0)
    assert m.phase is Phase.OVER
    assert m.match_game == 4 and m.session_games == [2, 2]


def test_roles_alternate_every_game_across_sessions():
    m = match(games_per_session=3, sessions=3)
    seen = []
    for _ in range(9):
        seen.append(m.a_seat)
        play(m, 0.6, 0.4, 0)
    assert seen == [0, 1, 0, 1, 0, 1, 0, 1, 0]
    m = VonNeumannMatch(VonNeumannParams(games_per_session=3, sessions=1), first_a=1)
    assert m.a_seat == 1


def test_previous_card_carries_over_a_session_boundary_and_starts_unknown():
    m = match(games_per_session=1, sessions=2)
    assert m.previous_card == [UNKNOWN_CARD, UNKNOWN_CARD]
    play(m, 0.25, 0.75, 0)
    assert m.session == 1 and m.previous_card == [0.75, 0.25]


def test_score_formula_and_partial_sessions():
    m = match(games_per_session=50, sessions=2)
    play(m, 0.9, 0.1, 10, call=True)  # seat 0 +20
    play(m, 0.9, 0.1, 0)  # seat 1 is A: +10
    # Unfinished session: counted as it stands.
    assert m.scores() == pytest.approx([10 / math.sqrt(2), -10 / math.sqrt(2)])
    assert m.payoffs() == [10, -10]


# -- property -------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    games=st.integers(1, 8),
    sessions=st.integers(1, 4),
    stack=st.integers(10, 120),
    max_bet=st.integers(1, 60),
)
def test_random_play_keeps_every_invariant(seed, games, sessions, stack, max_bet):
    rng = random.Random(seed)
    params = VonNeumannParams(games_per_session=games, sessions=sessions, stack=stack, max_bet=max_bet)
    m = VonNeumannMatch(params, first_a=seed % 2)
    while m.phase is not Phase.OVER:
        a, b, before = m.a_seat, m.b_seat, list(m.money)
        assert min(before) >= params.ante  # nobody plays a game it cannot ante
        assert a == (seed + m.match_game) % 2
        bet = play_random(m, rng)
        assert 0 <= bet <= min(max_bet, before[a], before[b])
        last = m.results[-1]
        assert last.amount in (params.ante, params.ante + bet)
    assert sum(m.payoffs()) == 0
    assert len(m.session_games) == sessions and all(1 <= g <= games for g in m.session_games)
    assert sum(m.session_games) == m.match_game
    for s in (0, 1):
        # The engine sums sessions exactly (as math.fsum does): the same float whichever path played.
        assert m.scores()[s] == math.fsum(m.session_points[s])
    assert all(math.isclose(x, -y, abs_tol=1e-9) for x, y in zip(*m.session_points))


def play_random(m: VonNeumannMatch, rng: random.Random) -> int:
    m.apply_deal(rng.random(), rng.random())
    bet = m.apply_bet(rng.choice([rng.randint(-5, 80), 0, 10**9]))
    if m.phase is Phase.B_TO_ACT:
        m.apply_call(rng.random() < 0.5)
    return bet
