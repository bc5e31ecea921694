"""Our Hold'em engine (``games.holdem``) against PokerKit, an independent one.

Random hands (2 to 10 seats, short and deep stacks, seats sitting out,
antes, odd blinds, raises of random sizes and all-ins) are replayed through
both engines with the same cards. At every decision both must agree on who
acts and what that seat may do (fold allowed? what a call costs, whether it
may raise, the smallest and largest raise-to), on every stack and bet, and
on the chips each action puts in; at the end on the board, the final stacks,
and for each contested pot on its amount, the seats that contest it and who
wins it. The corpus is counted so that it keeps covering side pots, split
pots, short all-ins that do not reopen the betting, all-in runouts,
heads-up and full ten-seat hands.

Then eval7 (``games.holdem.evaluate``) and PokerKit's ``StandardHighHand``
must order random seven-card hands the same way.

PokerKit's conventions (pokerkit/state.py): player 0 is the small blind and
the last player the button, except heads-up, where player 0 is the big
blind and player 1 the button and small blind. That is exactly our
``HoldemHand.order``. Seats with no chips are not PokerKit players.
A failure names the chunk's seed, the hand's index and setup, and the
actions so far: ``replay(seed, index)`` rebuilds the hand.

Two liberties with PokerKit, neither in its betting or pots: its seven-card
evaluation is memoized (``fast_pokerkit_hands``, checked against the real
``from_game``), and since PokerKit kills the hands that win nothing before
it pays, and then pays pots left with the same players as one (so their odd
chips may go otherwise than by our rules page, one pot at a time), its pots
are read before that, and its payment is checked apart.
"""

from __future__ import annotations

import random
import warnings
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

import pytest

pokerkit = pytest.importorskip("pokerkit")

from pokerkit import Automation, Card, Mode, NoLimitTexasHoldem, StandardHighHand  # noqa: E402

# eval7 0.1.11 calls pyparsing's deprecated setName when it is imported, and
# the suite turns warnings into errors: import it here with that one ignored.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*deprecated - use", category=DeprecationWarning)
    from games import IllegalAction  # noqa: E402
from games.holdem import ALLIN, CALL, FOLD, NAMES, RAISE, HoldemHand, evaluate  # noqa: E402

# -- the deal ----------------------------------------------------------------

PK_CARD = [next(iter(Card.parse(name))) for name in NAMES]

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CHIPS_PULLING,
    # Not automated, done below with our deck: card burning, hole and board
    # dealing, showing (every hand is shown), hand killing and chips pushing
    # (so that the pots can be seen before PokerKit kills the losing hands).
)

HAND_CHUNKS = 4
HANDS_PER_CHUNK = 1250          # 5,000 hands in all, each chunk covering every kind of hand below
EVAL_CHUNKS = 4
PAIRS_PER_CHUNK = 12_500        # two seven-card hands a pair: 100,000 hands in all


@dataclass
class Setup:
    stacks: list[int]
    button: int
    small_blind: int
    big_blind: int
    ante: int
    deck: list[int]

    def __str__(self) -> str:
        return (f"HoldemHand(stacks={self.stacks}, button={self.button}, small_blind={self.small_blind}, "
                f"big_blind={self.big_blind}, ante={self.ante}, deck={self.deck})")


def random_stack(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.30:
        return rng.randint(1, 10)
    if r < 0.58:
        return rng.randint(11, 50)
    if r < 0.85:
        return 400
    return rng.randint(1, 400)


def random_setup(rng: random.Random) -> Setup:
    # Ten seats a fifth of the time, so that full ten-seat hands are common.
    n = 10 if rng.random() < 0.2 else rng.randint(2, 10)
    sitting_out = 0.1 if n > 2 and rng.random() < 0.5 else 0.0
    stacks = [0 if rng.random() < sitting_out else random_stack(rng) for _ in range(n)]
    while sum(1 for s in stacks if s) < 2:
        stacks[rng.randrange(n)] = random_stack(rng)
    big_blind = rng.choice((1, 2, 2, 2, 4, 5, 10))
    r = rng.random()
    small_blind = big_blind // 2 if r < 0.5 else big_blind if r < 0.6 else rng.randint(0, big_blind)
    ante = rng.randint(1, big_blind) if rng.random() < 0.25 else 0
    button = rng.choice([s for s in range(n) if stacks[s]])
    deck = list(range(52))
    rng.shuffle(deck)
    return Setup(stacks, button, small_blind, big_blind, ante, deck)


#: (fold, raise, all-in) chances of a hand's style: wild hands go all-in
#: often (side pots, runouts); quiet ones bet small and reach the river
STYLES = {"wild": (0.18, 0.24, 0.08), "quiet": (0.12, 0.16, 0.01)}


def random_action(rng: random.Random, legal, style: str = "wild") -> tuple[str, int | None]:
    fold, raise_, allin = STYLES[style]
    r = rng.random()
    if FOLD in legal.actions and r < fold:
        return FOLD, None
    if RAISE in legal.actions and r < fold + raise_:
        low, high = legal.min_to, legal.max_to
        q = rng.random()
        if q < 0.3:
            return RAISE, low
        if q < 0.4 and style == "wild":
            return RAISE, high
        return RAISE, low + int((high - low) * rng.random() ** (3 if style == "wild" else 6))
    if ALLIN in legal.actions and r < fold + raise_ + allin:
        return ALLIN, None
    return CALL, None


def random_chooser(rng: random.Random):
    """A hand's seats' random choices, in a style drawn for the hand."""
    style = "quiet" if rng.random() < 0.35 else "wild"
    return lambda legal: random_action(rng, legal, style)


# -- PokerKit's hand values, fast ----------------------------------------------

_ENTRY = StandardHighHand.lookup.get_entry
_memo: dict[tuple, object] = {}


def best_five(cards: list[int]):
    """PokerKit's lookup entry of the best five of these cards, and those five.

    A five-card hand's entry depends only on its ranks and whether it is
    suited (PokerKit's own lookup key), so entries are memoized on that;
    ``test_the_memoized_pokerkit_value_is_pokerkit_s`` checks the result
    against ``StandardHighHand.from_game``.
    """
    best = best_cards = None
    for five in combinations(cards, 5):
        key = (tuple(sorted(c >> 2 for c in five)), len({c & 3 for c in five}) == 1)
        entry = _memo.get(key)
        if entry is None:
            entry = _memo[key] = _ENTRY([PK_CARD[c] for c in five])
        if best is None or entry > best:
            best, best_cards = entry, five
    return best, best_cards


def pokerkit_value(cards: list[int]):
    return best_five(cards)[0]


class _Hand(StandardHighHand):
    """A StandardHighHand whose lookup entry is looked up once, not at every comparison."""

    def __init__(self, cards, entry) -> None:
        super().__init__(cards)
        self._entry = entry

    @property
    def entry(self):
        return self._entry


_PK_NUMBER = {card: c for c, card in enumerate(PK_CARD)}
_hands: dict[tuple, _Hand] = {}


def _from_game(cls, hole_cards, board_cards=()):
    """``StandardHighHand.from_game``, memoized (PokerKit evaluates every hand
    again for every pot and every player when it decides whose hand to kill).
    Same result: the best five cards, by PokerKit's own lookup entries."""
    key = (tuple(hole_cards), tuple(board_cards))
    hand = _hands.get(key)
    if hand is None:
        cards = [_PK_NUMBER[c] for c in (*key[0], *key[1])]
        if len(cards) < 5:
            raise ValueError("fewer than five cards make no hand")
        entry, five = best_five(cards)
        hand = _hands[key] = _Hand([PK_CARD[c] for c in five], entry)
    return hand


@pytest.fixture
def fast_pokerkit_hands(monkeypatch):
    """Ten seats reaching a showdown cost PokerKit ~100 seven-card evaluations
    at ~0.6 ms each; this keeps the file's time down without touching
    PokerKit's betting, pots or payments."""
    monkeypatch.setattr(StandardHighHand, "from_game", classmethod(_from_game))
    yield
    _hands.clear()


# -- driving PokerKit ----------------------------------------------------------


@dataclass
class Tally:
    """What the corpus covered."""

    hands: int = 0
    side_pots: int = 0            # more than one contested pot
    split_pots: int = 0           # a pot won by more than one seat
    not_reopened: int = 0         # decisions where a short all-in kept a seat from raising
    runouts: int = 0              # all in before the river, the board dealt without betting
    heads_up: int = 0
    ten_seats: int = 0
    showdowns: int = 0
    merged_pots: int = 0          # PokerKit paid pots as one, its odd chips went otherwise
    antes: int = 0
    sitting_out: int = 0
    decisions: int = 0
    river_decisions: int = 0
    actions: Counter = field(default_factory=Counter)


class Mismatch(AssertionError):
    pass


class Replay:
    """One hand through both engines, compared as it goes."""

    def __init__(self, setup: Setup, where: str, reproduce: str = "") -> None:
        self.where = where
        self.reproduce = reproduce
        self.setup = setup
        self.history: list[str] = []
        st = setup
        self.h = h = HoldemHand(st.stacks, st.button, st.small_blind, st.big_blind, st.ante, st.deck)
        self.order = h.order
        players = len(h.order)
        self.state = NoLimitTexasHoldem.create_state(
            AUTOMATIONS,
            True,  # ante trimming: antes count towards who may win which pot, as in our engine
            st.ante,
            (st.small_blind, st.big_blind),
            st.big_blind,
            tuple(st.stacks[s] for s in h.order),
            players,
            mode=Mode.TOURNAMENT,
        )
        self.holes = [st.deck[2 * i: 2 * i + 2] for i in range(players)]
        self.board = st.deck[2 * players: 2 * players + 5]
        self.spare = st.deck[2 * players + 5:]  # burn cards
        self.dealt = 0
        self.pots_before_killing: list[tuple[int, tuple[int, ...]]] | None = None
        self.stacks_before_paying: list[int] = []
        self.pk_hands: dict[int, object] = {}
        _hands.clear()
        self.pushes: list = []

    def fail(self, what: str) -> None:
        raise Mismatch(
            f"{self.where}: {what}\n  setup: {self.setup}\n  order (PokerKit players 0..): {self.order}\n"
            f"  actions: {self.history or 'none'}" + (f"\n  reproduce: {self.reproduce}" if self.reproduce else ""))

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.fail(what)

    # PokerKit's steps that are not a player's decision
    def advance(self) -> None:
        state = self.state
        while state.status and state.actor_index is None:
            if state.card_burning_status:
                state.burn_card(PK_CARD[self.spare.pop()])
            elif any(state.hole_dealing_statuses):
                for i, cards in enumerate(self.holes):
                    if state.hole_dealing_statuses[i]:
                        state.deal_hole([PK_CARD[c] for c in cards], i)
            elif any(state.board_dealing_counts):
                count = state.board_dealing_counts[0]
                state.deal_board([PK_CARD[c] for c in self.board[self.dealt:self.dealt + count]])
                self.dealt += count
            elif state.showdown_indices:
                state.show_or_muck_hole_cards(True)
            elif any(state.hand_killing_statuses) or state.can_push_chips():
                if self.pots_before_killing is None:
                    # the showdown is over and nothing is paid yet: every pot
                    # with every seat still in that put in enough for it
                    self.pots_before_killing = [(p.unraked_amount, tuple(p.player_indices)) for p in state.pots]
                    # (when all but one fold, the last bet waits in `bets` to go back)
                    self.stacks_before_paying = [a + b for a, b in zip(state.stacks, state.bets)]
                    if sum(state.statuses) > 1:
                        self.pk_hands = {i: state.get_hand(i, 0, 0)
                                         for i in range(len(self.order)) if state.statuses[i]}
                if any(state.hand_killing_statuses):
                    state.kill_hand()
                else:
                    self.pushes.append(state.push_chips())
            else:
                self.fail(f"PokerKit waits for something the driver does not do: {state.operations[-1:]}")

    def compare_decision(self, tally: Tally) -> None:
        h, state, order = self.h, self.state, self.order
        i = state.actor_index
        self.check(i is not None, f"our engine waits for seat {h.to_act} to act, PokerKit for nobody")
        self.check(h.to_act == order[i], f"seat {h.to_act} to act in our engine, seat {order[i]} (player {i}) in PokerKit")
        self.check([h.stack[s] for s in order] == state.stacks,
                   f"stacks {[h.stack[s] for s in order]} (ours) != {state.stacks} (PokerKit)")
        self.check([h.bet[s] for s in order] == state.bets,
                   f"bets this street {[h.bet[s] for s in order]} (ours) != {state.bets} (PokerKit)")
        ours = h.legal()
        can_fold = state.can_fold()
        call = state.checking_or_calling_amount
        low = state.min_completion_betting_or_raising_to_amount
        high = state.max_completion_betting_or_raising_to_amount
        allin = low is not None or call == state.stacks[i]
        theirs = (can_fold, call, low is not None, low, high, allin)
        mine = (FOLD in ours.actions, ours.call, RAISE in ours.actions, ours.min_to, ours.max_to, ALLIN in ours.actions)
        if mine != theirs:
            self.fail(f"seat {order[i]}'s legal actions differ:\n    ours    : {ours}\n"
                      "    PokerKit: (fold, call, raise, min_to, max_to, allin) = "
                      f"{theirs}\n    ours as the same tuple: {mine}")
        self.check(CALL in ours.actions, f"call (or check) is not in {ours.actions}")
        # a seat that holds chips beyond a call, facing a player who could still
        # call a raise, and yet may not raise: a short all-in did not reopen the betting
        if (low is None and state.stacks[i] > call
                and any(j != i and state.statuses[j] and state.stacks[j] + state.bets[j] > max(state.bets)
                        for j in range(len(order)))):
            tally.not_reopened += 1

    def act(self, action: str, to: int | None) -> None:
        h, state = self.h, self.state
        seat = h.to_act
        i = self.order.index(seat)
        street = ("preflop", "flop", "turn", "river")[h.street]
        self.history.append(f"{street} seat {seat}: {action}{'' if to is None else f' {to}'}")
        bet_before = state.bets[i]
        try:
            put = h.act(action, to)
        except IllegalAction as exc:
            self.fail(f"our engine refuses {action} {to}, which it listed as legal: {exc}")
        try:
            if action == FOLD:
                state.fold()
                theirs = 0
            elif action == CALL:
                theirs = state.check_or_call().amount
            elif action == RAISE:
                theirs = state.complete_bet_or_raise_to(to).amount - bet_before
            elif state.can_complete_bet_or_raise_to(state.stacks[i] + state.bets[i]):  # all-in: a raise
                theirs = state.complete_bet_or_raise_to(state.stacks[i] + state.bets[i]).amount - bet_before
            else:  # all-in: a call
                theirs = state.check_or_call().amount
        except (ValueError, Warning) as exc:
            self.fail(f"PokerKit refuses {action} {to}: {exc!r}")
        self.check(put == theirs, f"{action} put in {put} chips in our engine, {theirs} in PokerKit")

    def finish(self, tally: Tally) -> None:
        h, state, order = self.h, self.state, self.order
        self.check(h.over, "our engine waits for an action, PokerKit's hand is over")
        self.check(not state.status, "PokerKit's hand goes on after ours is over")
        self.check(sum(h.stack) == sum(self.setup.stacks), "our engine lost or made chips")
        self.check(all(h.stack[s] == self.setup.stacks[s] for s in range(len(self.setup.stacks)) if s not in order),
                   "a seat that was not dealt in lost or won chips")
        live = [s for s in order if not h.folded[s]]
        if len(live) > 1:
            self.check(h.board == self.board, f"board {h.board} != the deck's {self.board}")
            theirs = [PK_CARD.index(c) for c in state.get_board_cards(0)]
            self.check(theirs == self.board, f"PokerKit's board {theirs} != the deck's {self.board}")
        # The contested pots: amount, who may win them, who does (by PokerKit's hands).
        ours = [p for p in h.pots if len(p.seats) > 1]
        mine = [(p.amount, tuple(sorted(order.index(s) for s in p.seats))) for p in ours]
        pk_pots = self.pots_before_killing or []
        contested = [p for p in pk_pots if len(p[1]) > 1]
        self.check(mine == contested, f"contested pots (amount, players) {mine} (ours) != {contested} (PokerKit)")
        for pot in ours:
            players = [order.index(s) for s in pot.seats]
            best = max(self.pk_hands[j] for j in players)
            winners = [order[j] for j in players if self.pk_hands[j] == best]
            self.check(list(pot.winners) == winners,
                       f"pot {pot.amount} among {pot.seats}: won by {pot.winners} (ours), by {tuple(winners)} "
                       f"by PokerKit's hands {[str(self.pk_hands[j]) for j in players]}")
            if len(pot.winners) > 1:
                tally.split_pots += 1
        # The final stacks: PokerKit's pots (before any hand is killed) paid by
        # the rules page, each pot split on its own, its odd chips to the first
        # winner left of the button; the uncalled chips PokerKit has returned.
        # (no pots at all when the only chips in were an uncalled blind, given back)
        expected = list(self.stacks_before_paying) if self.pots_before_killing is not None else list(state.stacks)
        for amount, players in pk_pots:
            if len(players) > 1:
                best = max(self.pk_hands[j] for j in players)
                players = tuple(j for j in players if self.pk_hands[j] == best)
            share, odd = divmod(amount, len(players))
            for j in players:
                expected[j] += share
            expected[players[0]] += odd
        final = [h.stack[s] for s in order]
        self.check(final == expected, f"final stacks {final} (ours) != {expected} (PokerKit's pots, split one by one)")
        # PokerKit itself first kills the hands that win nothing, then pays as
        # one the pots left with the same players, so their odd chips may go
        # otherwise (test_odd_chips_are_shared_pot_by_pot_where_pokerkit_merges_pots).
        # Its payment must be exactly that.
        killed = {op.player_index for op in state.operations if type(op).__name__ == "HandKilling"}
        merged: list[list] = []
        for amount, players in pk_pots:
            left = tuple(j for j in players if j not in killed)
            if merged and merged[-1][1] == left:
                merged[-1][0] += amount
            else:
                merged.append([amount, left])
        paid = list(self.stacks_before_paying) if self.pots_before_killing is not None else list(state.stacks)
        for amount, players in merged:
            if len(players) > 1:
                best = max(self.pk_hands[j] for j in players)
                players = tuple(j for j in players if self.pk_hands[j] == best)
            share, odd = divmod(amount, len(players))
            for j in players:
                paid[j] += share
            paid[players[0]] += odd
        self.check(paid == state.stacks, f"PokerKit's final stacks {state.stacks} != {paid}, its pots {merged} "
                                         "(the driver misreads PokerKit)")
        tally.merged_pots += final != state.stacks
        tally.side_pots += len(ours) > 1
        tally.showdowns += len(live) > 1

    def play(self, choose, tally: Tally) -> bool:
        """Play the hand with ``choose(legal) -> (action, to)``, comparing the
        engines at every step; False if ``choose`` stopped it early (None)."""
        h = self.h
        self.advance()
        last_street = None
        while not h.over:
            self.compare_decision(tally)
            choice = choose(h.legal())
            if choice is None:
                return False
            action, to = choice
            tally.decisions += 1
            tally.actions[action] += 1
            tally.river_decisions += h.street == 3
            last_street = h.street
            self.act(action, to)
            self.advance()
        self.finish(tally)
        live = sum(1 for s in self.order if not h.folded[s])
        if live > 1 and (last_street is None or last_street < 3):
            tally.runouts += 1
        tally.hands += 1
        tally.heads_up += len(self.order) == 2
        tally.ten_seats += len(self.order) == 10
        tally.antes += self.setup.ante > 0
        tally.sitting_out += len(self.order) < len(self.setup.stacks)
        return True


def play_chunk(seed: int, hands: int) -> tuple[Tally, list[str]]:
    """Play the chunk's hands; a hand that disagrees stops there (its
    mismatch is kept) and the next hand goes on from the same generator."""
    rng = random.Random(seed)
    tally = Tally()
    mismatches = []
    for index in range(hands):
        setup = random_setup(rng)
        try:
            Replay(setup, f"seed {seed}, hand {index}", f"tests.games.test_holdem_oracle.replay({seed}, {index})").play(
                random_chooser(rng), tally)
        except Mismatch as exc:
            mismatches.append(str(exc))
    return tally, mismatches


def short_all_in_bug(mismatch: str) -> bool:
    """Whether a mismatch looks like the known engine bug: ours lets the seat
    raise, PokerKit does not, and the call is below the last full raise."""
    lines = mismatch.splitlines()
    return ("legal actions differ" in lines[0] and "PokerKit: (fold, call, raise, min_to, max_to, allin)" in lines[2]
            and lines[2].split("= (")[1].split(", ")[2] == "False" and "'raise'" in lines[1])


def replay(seed: int, index: int) -> Replay:
    """Hand ``index`` of chunk ``seed``, played up to where it disagreed (or its end)."""
    rng = random.Random(seed)
    for i in range(index + 1):
        r = Replay(random_setup(rng), f"seed {seed}, hand {i}")
        try:
            r.play(random_chooser(rng), Tally())
        except Mismatch:
            pass
    return r


KNOWN = ("(A seat that may raise in our engine and not in PokerKit, whose call is less than the last full raise: "
         "the engine bug of test_a_short_all_in_after_a_seat_acted_does_not_reopen_its_betting.)")


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(HAND_CHUNKS))
def test_random_hands_agree_with_pokerkit(chunk, fast_pokerkit_hands):
    seed = 20260 + chunk
    tally, mismatches = play_chunk(seed, HANDS_PER_CHUNK)
    assert not mismatches, (f"{len(mismatches)} of {HANDS_PER_CHUNK} hands disagree with PokerKit; the first ones:\n\n"
                            + "\n\n".join(m + ("\n  " + KNOWN if short_all_in_bug(m) else "") for m in mismatches[:5]))
    assert tally.hands == HANDS_PER_CHUNK
    # The generator must keep producing the hard cases: a chunk of 1,250 hands
    # gives about twice these (the least seen over 16 seeds, halved), so a
    # generator that degenerates fails here.
    minimum = {
        "side_pots": 450, "split_pots": 100, "not_reopened": 35, "runouts": 380, "heads_up": 55,
        "ten_seats": 100, "showdowns": 580, "river_decisions": 550, "antes": 140, "sitting_out": 130,
    }
    short = {k: getattr(tally, k) for k, v in minimum.items() if getattr(tally, k) < v}
    assert not short, f"seed {seed}: the corpus covers too few of {short} (wanted {minimum}); all: {tally}"
    assert all(tally.actions[a] >= 500 for a in (FOLD, CALL, RAISE, ALLIN)), tally.actions


# -- hand values: eval7 against PokerKit ---------------------------------------

def sign(x) -> int:
    return (x > 0) - (x < 0)


@pytest.mark.parametrize("chunk", range(EVAL_CHUNKS))
def test_eval7_orders_seven_card_hands_like_pokerkit(chunk):
    seed = 70_000 + chunk
    rng = random.Random(seed)
    deck = list(range(52))
    categories: Counter = Counter()
    ties = 0
    for index in range(PAIRS_PER_CHUNK):
        # two hands sharing a board, as at a showdown (ties are common), every
        # other pair; the others drawn apart
        if index % 2:
            cards = rng.sample(deck, 9)
            a, b = cards[:7], cards[2:]
        else:
            a, b = rng.sample(deck, 7), rng.sample(deck, 7)
        va, vb = evaluate(a), evaluate(b)
        pa, pb = pokerkit_value(a), pokerkit_value(b)
        ours = sign(va - vb)
        theirs = (pa > pb) - (pa < pb)
        assert ours == theirs, (
            f"seed {seed}, pair {index}: eval7 says {ours:+d} for {[NAMES[c] for c in a]} vs "
            f"{[NAMES[c] for c in b]} ({va} vs {vb}), PokerKit {theirs:+d} ({pa.label} vs {pb.label})")
        categories[va >> 24] += 1
        categories[vb >> 24] += 1
        ties += ours == 0
    assert ties >= PAIRS_PER_CHUNK // 100, f"only {ties} tied pairs"
    # every category, straight flushes (0.03% of seven-card hands) included
    assert set(categories) == set(range(9)), categories


def test_the_memoized_pokerkit_value_is_pokerkit_s():
    rng = random.Random(5)
    for index in range(1500):
        cards = rng.sample(range(52), 7)
        whole = StandardHighHand.from_game([PK_CARD[c] for c in cards[:2]], [PK_CARD[c] for c in cards[2:]])
        assert pokerkit_value(cards) == whole.entry, (index, [NAMES[c] for c in cards])


# -- the disagreements found, as hands of their own ------------------------------


def scripted(actions: list[tuple[str, int | None]]):
    it = iter(actions)
    return lambda legal: next(it, None)


def test_a_short_all_in_after_a_seat_acted_does_not_reopen_its_betting(fast_pokerkit_hands):
    """Found by the random hands above (seeds 20263, 20265 and others; fixed
    in 03464db, kept as a regression test): the smallest case. Flop, four seats: seat 0 bets 2 (a full bet), seat 1 is
    all-in for 3 (short: +1), seat 2 calls 3, seat 3 is all-in for 4 (short
    again: +1), seat 0 calls. Seat 2 now faces 1 more chip since it acted:
    less than a full raise, so it may only call or fold (TDA rule; PokerKit
    agrees). The two short all-ins together make a full raise (1 + 1 = 2),
    which reopens the betting for seat 0, who faced both, not for seat 2."""
    setup = Setup([100, 5, 100, 6], button=3, small_blind=1, big_blind=2, ante=0, deck=list(range(52)))
    actions = [(CALL, None)] * 4 + [(RAISE, 2), (ALLIN, None), (CALL, None), (ALLIN, None), (CALL, None)]
    r = Replay(setup, "short all-ins that reopen the betting for a seat that called between them")
    try:
        r.play(scripted(actions), Tally())
        mismatch = None
    except Mismatch as exc:
        mismatch = str(exc)
    if mismatch:
        pytest.fail(
            "ENGINE BUG (games/holdem/_rules.py, HoldemHand._raise_refusal): after short all-ins that add up "
            "to a full raise, every seat may raise again, even one that acted between them and so faces less "
            "than a full raise since it acted (here seat 2, facing 1 chip after a bet of 2); PokerKit "
            "refuses the raise ('Short all-in cannot be raised': the call is smaller than the last full "
            f"raise).\n{mismatch}", pytrace=False)
    h = r.h
    assert (h.to_act, h.street) == (2, 1), r.history
    assert RAISE not in h.legal().actions, h.legal()


def test_odd_chips_are_shared_pot_by_pot_where_pokerkit_merges_pots(fast_pokerkit_hands):
    """Not a bug, a convention, and the one place the engines may differ:
    seats 4 and 6 tie, and share a main pot of 31 and a side pot of 3; each
    pot's odd chip goes to seat 4, the first winner left of the button (the
    rules page). PokerKit first kills the hands that win nothing (seat 2's,
    seat 3's), is left with two pots between the same two seats, pays them
    as one pot of 34 and shares it evenly: one chip apart."""
    setup = Setup([6, 0, 67, 7, 9, 0, 10], button=3, small_blind=1, big_blind=5, ante=3,
                  deck=[51, 19, 48, 15, 29, 37, 0, 8, 5, 26, 34, 24, 33, 43, 42, 25, 14, 41, 3, 16, 50, 45, 31,
                        28, 46, 2, 44, 40, 1, 21, 38, 12, 36, 13, 35, 6, 22, 17, 7, 27, 10, 30, 11, 18, 20, 9, 47,
                        49, 32, 23, 39, 4])
    tally = Tally()
    r = Replay(setup, "odd chips of two pots with the same winners")
    assert r.play(scripted([(FOLD, None)] + [(CALL, None)] * 13), tally)
    h = r.h
    assert [(p.amount, p.winners) for p in h.pots] == [(31, (4, 6)), (3, (4, 6))]
    assert (h.stack[4], h.stack[6]) == (19, 18)
    assert tally.merged_pots == 1
    assert [r.state.stacks[r.order.index(s)] for s in (4, 6)] == [18, 19]
