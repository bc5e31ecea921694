"""rpsdraft rules engine: the seed's statements, one test each, plus properties."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from games import IllegalAction
from arena import load_game
from games.rpsdraft import FULL_DECK, Phase, RpsDraftMatch, RpsDraftParams, beats

# -- the deck and the comparison ---------------------------------------------


def test_the_full_deck_is_30_distinct_symbol_number_cards():
    assert len(FULL_DECK) == 30 == len(set(FULL_DECK))
    assert {c[0] for c in FULL_DECK} == {"R", "P", "S"}
    assert {c[1] for c in FULL_DECK} == set("0123456789")


@pytest.mark.parametrize(
    "mine, theirs, base, wins",
    [
        ("R1", "S9", "P1", True),  # a pair beats no pair, even a low one
        ("S9", "R1", "P1", False),
        ("R7", "S3", "P0", True),  # no pair: the higher number
        ("S3", "R7", "P0", False),
        ("R4", "S4", "P0", True),  # same number: rock beats scissors
        ("S4", "P4", "R0", True),  # scissors beat paper
        ("P4", "R4", "S0", True),  # paper beats rock
        ("S4", "R4", "P0", False),
        ("R5", "S5", "P5", True),  # both pairs: same number, so RPS decides
        ("P5", "S5", "R5", False),
        ("P2", "R8", "S8", False),  # the opponent's pair wins
    ],
)
def test_who_wins_a_turn(mine, theirs, base, wins):
    assert beats(mine, theirs, base) is wins


def test_there_is_never_a_draw():
    # Exactly one of two distinct cards wins on every base that is a third card.
    for a, b, base in itertools.permutations(FULL_DECK, 3):
        assert beats(a, b, base) != beats(b, a, base)


def test_a_card_cannot_meet_itself():
    with pytest.raises(ValueError):
        beats("R3", "R3", "P0")


# -- the draft -----------------------------------------------------------------


def new_match(order=None, **params) -> RpsDraftMatch:
    m = RpsDraftMatch(RpsDraftParams(**params))
    m.apply_chance(order or list(FULL_DECK))
    return m


def test_each_draft_round_offers_two_cards_from_the_top_to_each_seat():
    m = new_match()
    assert m.phase is Phase.DRAFT
    assert m.options(0) == ["R0", "R1"] and m.options(1) == ["R2", "R3"]
    m.apply((1, 0))
    assert m.options(0) == ["R4", "R5"] and m.options(1) == ["R6", "R7"]


def test_the_unselected_card_goes_to_the_opponent():
    m = new_match()
    m.apply((1, 0))  # seat 0 keeps R1, leaves R0; seat 1 keeps R2, leaves R3
    assert m.decks == [["R1", "R3"], ["R2", "R0"]]
    assert m.last_draft == ("R3", "R0")  # what each seat receives


def test_after_five_rounds_each_deck_has_ten_cards_and_ten_remain():
    order = list(FULL_DECK)
    random.Random(1).shuffle(order)
    m = new_match(order)
    for _ in range(5):
        m.apply((0, 1))
    assert m.phase is Phase.DEAL
    assert len(m.decks[0]) == len(m.decks[1]) == 10
    assert m.remaining == order[20:]
    assert sorted(m.decks[0] + m.decks[1] + m.remaining) == sorted(FULL_DECK)


# -- the main phase ------------------------------------------------------------


def drafted(**params) -> RpsDraftMatch:
    m = new_match(**params)
    while m.phase is Phase.DRAFT:
        m.apply((0, 0))
    return m


def test_each_seat_draws_three_and_a_base_is_shown():
    m = drafted()
    d0, d1, rest = list(m.decks[0]), list(m.decks[1]), list(m.remaining)
    m.apply_chance((d0, d1, rest))
    assert m.phase is Phase.PLAY
    assert m.hands == [d0[:3], d1[:3]]
    assert m.base == rest[0]


def test_a_turn_scores_one_point_and_each_seat_draws_to_the_end_of_its_hand():
    m = drafted()
    d0, d1, rest = list(m.decks[0]), list(m.decks[1]), list(m.remaining)
    m.apply_chance((d0, d1, rest))
    m.apply((1, 2))
    res = m.last_turn
    assert res.played == (d0[1], d1[2]) and res.base == rest[0]
    assert m.won[res.winner] == 1 and sum(m.won) == 1
    assert res.winner == (0 if beats(d0[1], d1[2], rest[0]) else 1)
    assert m.hands == [[d0[0], d0[2], d0[3]], [d1[0], d1[1], d1[3]]]
    assert m.base == rest[1]


def test_ten_turns_play_every_card_and_hands_shrink_at_the_end():
    m = drafted()
    m.apply_chance((list(m.decks[0]), list(m.decks[1]), list(m.remaining)))
    sizes = []
    played = [[], []]
    while m.phase is Phase.PLAY:
        sizes.append(len(m.hands[0]))
        m.apply((0, len(m.hands[1]) - 1))
        played[0].append(m.last_turn.played[0])
        played[1].append(m.last_turn.played[1])
    assert sizes == [3] * 8 + [2, 1]  # nothing left to draw in the last two turns
    assert sorted(played[0]) == sorted(m.decks[0]) and sorted(played[1]) == sorted(m.decks[1])
    assert sum(m.won) == 10 and m.turn == 10 and m.phase is Phase.OVER


@pytest.mark.parametrize("bad", [-1, 2, 3, 10**30, "0", 1.0, True, None, [0]])
def test_an_invalid_index_is_illegal(bad):
    m = new_match()
    with pytest.raises(IllegalAction):
        m.check_index(1, bad)
    with pytest.raises(IllegalAction):
        m.apply((0, bad))
    assert m.draft_round == 0 and m.decks == [[], []]  # nothing changed


def test_an_invalid_hand_index_is_illegal():
    m = drafted()
    m.apply_chance((list(m.decks[0]), list(m.decks[1]), list(m.remaining)))
    m.check_index(0, 2)
    with pytest.raises(IllegalAction, match="outside a hand of 3"):
        m.check_index(0, 3)


def test_chance_outcomes_are_checked():
    m = RpsDraftMatch(RpsDraftParams())
    with pytest.raises(ValueError):
        m.apply_chance(list(FULL_DECK)[:-1] + ["R0"])
    m.apply_chance(list(FULL_DECK))
    with pytest.raises(ValueError):
        m.apply_chance(list(FULL_DECK))  # no chance step during the draft
    while m.phase is Phase.DRAFT:
        m.apply((0, 0))
    with pytest.raises(ValueError):
        m.apply_chance((m.decks[1], m.decks[0], m.remaining))


# -- parameters ----------------------------------------------------------------


def test_params_default_to_the_seed_and_are_validated():
    plugin = load_game("rpsdraft")
    assert plugin.Params().model_dump() == {"draft_rounds": 5, "hand_size": 3, "turns": 10}
    assert plugin.spec.min_seats == plugin.spec.max_seats == 2
    for bad in ({"turns": 11}, {"hand_size": 11}, {"draft_rounds": 8}, {"draft_rounds": 6, "turns": 7},
                {"turns": 0}, {"matches": 3}):
        with pytest.raises(ValidationError):
            plugin.Params(**bad)
    assert RpsDraftParams(draft_rounds=1, hand_size=2, turns=2).turns == 2


# -- a property over whole random matches --------------------------------------


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), rounds=st.integers(1, 7), data=st.data())
def test_any_legal_match_conserves_cards_and_points(seed, rounds, data):
    deck = 2 * rounds
    turns = data.draw(st.integers(1, min(deck, 30 - 4 * rounds)))
    hand = data.draw(st.integers(1, deck))
    rng = random.Random(seed)
    m = RpsDraftMatch(RpsDraftParams(draft_rounds=rounds, hand_size=hand, turns=turns))
    order = list(FULL_DECK)
    rng.shuffle(order)
    m.apply_chance(order)
    seen = [set(), set()]
    while m.phase is Phase.DRAFT:
        m.apply((rng.randrange(2), rng.randrange(2)))
    assert not set(m.decks[0]) & set(m.decks[1])
    decks = [list(m.decks[0]), list(m.decks[1]), list(m.remaining)]
    for d in decks:
        rng.shuffle(d)
    m.apply_chance(decks)
    while m.phase is Phase.PLAY:
        n = len(m.hands[0])
        assert n == len(m.hands[1]) == min(hand, deck - m.turn)
        m.apply((rng.randrange(n), rng.randrange(n)))
        for s in (0, 1):
            assert m.last_turn.played[s] not in seen[s]
            seen[s].add(m.last_turn.played[s])
    assert sum(m.won) == turns == m.turn
    assert seen[0] <= set(m.decks[0]) and seen[1] <= set(m.decks[1])
