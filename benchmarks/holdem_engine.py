"""`make bench`, part 5: the Hold'em engine's speed, beside PokerKit's.

    python -m benchmarks.holdem_engine [HANDS]

Both engines play the same 6-seat no-limit hands (equal stacks of 400 chips,
200 big blinds; blinds 1/2; the button moving every hand), dealt from the
same decks (shuffled beforehand by a seeded ``random.Random``), with the
same random legal actions: each seat asks its engine what is legal and
picks one of the legal actions at random (fold, call or check, raise to a
random amount between the smallest and the largest, all-in), with a
generator seeded alike. The engines agree on what is legal, so they play
the very same hands; the run checks that by the chips won.

Timed: creating the hand, asking what is legal, choosing, acting, the
showdown and the payment (PokerKit: with every automation except dealing
our cards, and burning a spare one). Not timed: shuffling the decks.
Prints hands per second for each (PokerKit once, ~10 ms a hand; ours the
median of ``BENCH_HOLDEM_RUNS`` runs, 5, after one not counted), and the
ratio; the target for ours is 20,000 hands per second.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time

SEATS = 6
STACK = 400
SMALL_BLIND, BIG_BLIND = 1, 2
HANDS = int(os.environ.get("BENCH_HOLDEM_HANDS", "2000"))
RUNS = int(os.environ.get("BENCH_HOLDEM_RUNS", "5"))
SEED = 2026
TARGET = 20_000


def decks(hands: int) -> list[list[int]]:
    rng = random.Random(SEED)
    out = []
    for _ in range(hands):
        deck = list(range(52))
        rng.shuffle(deck)
        out.append(deck)
    return out


def choose(rng: random.Random, actions: tuple[str, ...], low: int | None, high: int | None):
    """The seats' random policy, the same for both engines: one of the legal
    actions at random, a raise to a random amount between the bounds.
    Returns (action, raise-to). One ``random()`` per choice: ``choice`` and
    ``randint`` would cost a quarter of our engine's time, which is the
    policy's, not the engine's."""
    r = rng.random() * len(actions)
    action = actions[int(r)]
    if action == "raise":
        return action, low + int((r % 1) * (high - low + 1))
    return action, None


def ours(all_decks: list[list[int]]) -> tuple[float, int, int]:
    """(seconds, checksum of the chips won, decisions) for our engine."""
    from games.holdem import HoldemHand

    rng = random.Random(SEED)
    checksum = decisions = 0
    stacks = [STACK] * SEATS
    started = time.perf_counter()
    for i, deck in enumerate(all_decks):
        h = HoldemHand(stacks, i % SEATS, SMALL_BLIND, BIG_BLIND, 0, deck)
        while not h.over:
            legal = h.legal()
            action, to = choose(rng, legal.actions, legal.min_to, legal.max_to)
            h.act(action, to)
            decisions += 1
        checksum += sum(p * (s + 1) for s, p in enumerate(h.profits())) * (i + 1)
    return time.perf_counter() - started, checksum, decisions


def pokerkit(all_decks: list[list[int]]) -> tuple[float, int]:
    """(seconds, checksum of the chips won) for PokerKit, on the same hands."""
    from pokerkit import Automation, Card, Mode, NoLimitTexasHoldem

    from games.holdem import NAMES

    cards = [next(iter(Card.parse(name))) for name in NAMES]
    automations = (
        Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING, Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    rng = random.Random(SEED)
    checksum = 0
    started = time.perf_counter()
    for i, deck in enumerate(all_decks):
        button = i % SEATS
        # PokerKit's player 0 sits left of the button, the button is the last
        seat_of = [(button + 1 + j) % SEATS for j in range(SEATS)]
        state = NoLimitTexasHoldem.create_state(
            automations, True, 0, (SMALL_BLIND, BIG_BLIND), BIG_BLIND, (STACK,) * SEATS, SEATS,
            mode=Mode.TOURNAMENT)
        board = deck[2 * SEATS: 2 * SEATS + 5]
        spare = deck[2 * SEATS + 5:]
        dealt = 0
        while state.status:
            if state.actor_index is not None:
                low = state.min_completion_betting_or_raising_to_amount
                call = state.checking_or_calling_amount
                # the legal actions as our engine lists them (all-in: a raise, or a call that takes the stack)
                actions = (("fold",) if state.can_fold() else ()) + ("call",) + (
                    ("raise", "allin") if low is not None else ("allin",) if call == state.stacks[state.actor_index]
                    else ())
                action, to = choose(rng, actions, low, state.max_completion_betting_or_raising_to_amount)
                if action == "fold":
                    state.fold()
                elif action == "raise":
                    state.complete_bet_or_raise_to(to)
                elif action == "allin" and low is not None:
                    state.complete_bet_or_raise_to(state.max_completion_betting_or_raising_to_amount)
                else:
                    state.check_or_call()
            elif state.card_burning_status:
                state.burn_card(cards[spare.pop()])
            elif any(state.hole_dealing_statuses):
                for j in range(SEATS):
                    state.deal_hole([cards[deck[2 * j]], cards[deck[2 * j + 1]]], j)
            else:
                count = state.board_dealing_counts[0]
                state.deal_board([cards[c] for c in board[dealt:dealt + count]])
                dealt += count
        profits = [0] * SEATS
        for j, seat in enumerate(seat_of):
            profits[seat] = state.stacks[j] - STACK
        checksum += sum(p * (s + 1) for s, p in enumerate(profits)) * (i + 1)
    return time.perf_counter() - started, checksum


def main() -> None:
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else HANDS
    all_decks = decks(hands)
    print(f"Hold'em engine: {hands} hands, {SEATS} seats, stacks {STACK} (200 big blinds), random legal actions; "
          f"PokerKit once, ours the median of {RUNS} runs")
    # PokerKit is run once (it takes ~100 times longer); ours RUNS times
    b, sum_b = pokerkit(all_decks)
    pk = hands / b
    ours(all_decks)  # a warm-up run, not counted
    mine = []
    for run in range(RUNS):
        a, sum_a, decisions = ours(all_decks)
        if sum_a != sum_b:  # they disagreed on what was legal somewhere (tests/games/test_holdem_oracle.py)
            print(f"  WARNING: the engines played different hands (chips won checksum {sum_a} != {sum_b})")
        mine.append(hands / a)
        print(f"  run {run + 1}: ours {hands / a:>9,.0f} hands/s")
    median = statistics.median(mine)
    per = decisions / hands
    print(f"ours      (games.holdem.HoldemHand)        : {median:>9,.0f} hands/s = {1e6 / median:8.1f} us per hand, "
          f"{1e6 / median / per:5.1f} us per decision ({per:.1f} a hand)")
    print(f"PokerKit  (NoLimitTexasHoldem, same hands) : {pk:>9,.0f} hands/s = {1e6 / pk:8.1f} us per hand, "
          f"{1e6 / pk / per:5.1f} us per decision")
    verdict = "met" if median >= TARGET else "NOT met"
    print(f"ratio     ours / PokerKit                  : {median / pk:.1f}x; ours {median:,.0f} hands/s "
          f"(target {TARGET:,}: {verdict})")


if __name__ == "__main__":
    main()
