"""TwoCardDraw: the best response to a strategy file (the built-in opponent).

    python3 shims/python/twocarddraw_runner.py sample_bots/twocarddraw/best_response.py STRATEGY_FILE

Written to the TopCoder interface (run it with the Python shim). At start it
reads the strategy and works out, by exact enumeration, the action that
earns most in each situation it can meet as the first player; then it just
looks its answers up. Standalone: it imports nothing from the arena.
"""

import sys

CARDS = 5
HANDS = [(lo, hi) for lo in range(CARDS) for hi in range(lo, CARDS)]
IDX = {h: i for i, h in enumerate(HANDS)}
PRIOR = [(1 if lo == hi else 2) / CARDS**2 for lo, hi in HANDS]


def strength(h):
    lo, hi = h
    return (1, lo, 0) if lo == hi else (0, hi, lo)


CMP = [[(strength(a) > strength(b)) - (strength(a) < strength(b)) for b in HANDS] for a in HANDS]


def after_draw(h, n):
    """{new hand index: chance} after drawing n cards from hand h."""
    lo, hi = HANDS[h]
    if n == 0:
        return {h: 1.0}
    if n == 2:
        return dict(enumerate(PRIOR))
    out = {}
    for c in range(CARDS):
        j = IDX[(min(hi, c), max(hi, c))]
        out[j] = out.get(j, 0.0) + 1.0 / CARDS
    return out


TRANS = [[after_draw(h, n) for n in range(3)] for h in range(len(HANDS))]


def read_strategy(path):
    with open(path) as f:
        rows = [line.split() for line in f if line.strip()]
    bet1, bet2 = int(rows[0][0]), int(rows[0][1])
    table = {}
    for row in rows[1:]:
        nums = [float(x) for x in row[-3:]]
        total = sum(nums)
        table[(row[0],) + tuple(int(x) for x in row[1:-3])] = [x / total for x in nums]
    return bet1, bet2, table


class Solver:
    """Best response of the first player, by recursion over the betting."""

    def __init__(self, path):
        self.bet1, self.bet2, self.table = read_strategy(path)
        self.policy = {}
        self.r2memo = {}
        self.r1_weights = {}

    def opp_dist(self, hand_idx, where, bets):
        lo, hi = HANDS[hand_idx]
        if where[0] == "r1":
            p = self.table[("ROUND1", lo, hi, bets)]
        else:
            _, b1, d1, d2, first = where
            p = self.table[("ROUND2", lo, hi, b1, bets, d1, d2, first)]
        f, c, r = p
        if bets == 0:  # a fold with nothing to call is a check
            c, f = c + f, 0.0
        if bets == 3:
            c, r = c + r, 0.0
        return f, c, r

    def betting(self, where, w, bets, me_to_act, mine, theirs, size, end, key):
        """Value for the first player (unnormalised, weights w over the
        opponent's hands) of a betting round from here.

        ``mine``/``theirs`` are what each has in the pot, ``end(w, bets,
        first)`` the value when the round ends with a call or two checks,
        ``key`` the first player's hand as part of the policy keys."""
        if me_to_act:
            if bets == 0:
                choices = {"check": self.betting(where, w, 0, False, mine, theirs, size, end, key),
                           "bet": self.betting(where, w, 1, False, theirs + size, theirs, size, end, key)}
            else:
                total = sum(w)
                choices = {"fold": -mine * total,
                           "call": end(w, bets, theirs)}
                if bets < 3:
                    choices["raise"] = self.betting(where, w, bets + 1, False, theirs + size, theirs, size, end, key)
            act = max(choices, key=choices.get)
            self.policy[(where, key, bets)] = act
            return choices[act]
        n = len(HANDS)
        dists = [self.opp_dist(s, where, bets) for s in range(n)]
        value = 0.0
        wf = [w[s] * dists[s][0] for s in range(n)]
        wc = [w[s] * dists[s][1] for s in range(n)]
        wr = [w[s] * dists[s][2] for s in range(n)]
        if bets > 0:
            value += theirs * sum(wf)
            value += end(wc, bets, mine)
        else:
            value += end(wc, 0, mine)
        if any(wr):
            value += self.betting(where, wr, bets + 1, True, mine, mine + size, size, end, key)
        return value

    def round2(self, b1, first, d1, d2, hand, w):
        base = 1 + b1 * self.bet1
        where = ("r2", b1, d1, d2, first)

        def showdown(wv, bets, pot):
            return pot * sum(wv[s] * CMP[hand][s] for s in range(len(HANDS)))

        return self.betting(where, w, 0, True, base, base, self.bet2, showdown, hand)

    def draw_stage(self, b1, first, hand, w):
        """Value of the best draw for hand ``hand`` after round 1 ended (b1, first)."""
        best_v, best_d = None, 0
        for d1 in range(3):
            v = 0.0
            for d2 in range(3):
                w2 = self.r2_weights(b1, first, d1, d2, w)
                for new, p in TRANS[hand][d1].items():
                    memo = (b1, first, d1, d2, new)
                    if memo not in self.r2memo:
                        self.r2memo[memo] = self.round2(b1, first, d1, d2, new, w2)
                    v += p * self.r2memo[memo]
            if best_v is None or v > best_v:
                best_v, best_d = v, d1
        self.policy[("draw", b1, first, hand)] = best_d
        return best_v

    def r2_weights(self, b1, first, d1, d2, w):
        out = [0.0] * len(HANDS)
        for s, ws in enumerate(w):
            lo, hi = HANDS[s]
            p = self.table[("DRAW", lo, hi, b1, d1, first)][d2] * ws
            if p:
                for t, q in TRANS[s][d2].items():
                    out[t] += p * q
        return out

    def solve(self):
        total = 0.0
        for hand in range(len(HANDS)):
            opened = {}

            def after_round1(w, bets, _pot, hand=hand):
                # who bet first: the first player if it opened with a bet
                first = 0 if bets == 0 or opened["bet"] else 1
                return self.draw_stage(bets, first, hand, w)

            # Evaluate both openings separately so "first" is known in each.
            values = {}
            for act in ("check", "bet"):
                opened["bet"] = act == "bet"
                if act == "check":
                    values[act] = self.betting(("r1",), PRIOR, 0, False, 1, 1, self.bet1, after_round1, hand)
                else:
                    values[act] = self.betting(("r1",), PRIOR, 1, False, 1 + self.bet1, 1, self.bet1,
                                               after_round1, hand)
            act = max(values, key=values.get)
            self.policy[(("r1",), hand, 0)] = act
            total += PRIOR[hand] * values[act]
        return total


CODE = {"check": 1, "call": 1, "fold": 0, "raise": 2, "bet": 2}


class TwoCardDraw:
    def __init__(self):
        self.solver = Solver(sys.argv[1])
        self.profit = self.solver.solve()
        sys.stderr.write(f"best response earns {self.profit:.6f} per hand\n")
        self.policy = self.solver.policy

    def init(self, bet1, bet2):
        if (bet1, bet2) != (self.solver.bet1, self.solver.bet2):
            sys.stderr.write(f"warning: stakes {bet1} {bet2} differ from the strategy file's\n")
        return 0

    def new_hand(self, card1, card2, winnings):
        self.hand = IDX[(card1, card2)]
        self.opened_bet = self.policy[(("r1",), self.hand, 0)] == "bet"
        return 1 if self.opened_bet else 0

    def round1(self, card1, card2, bets):
        return CODE[self.policy[(("r1",), self.hand, bets)]]

    def draw(self, card1, card2, bets):
        self.bets1 = bets
        self.first = 0 if bets == 0 or self.opened_bet else 1
        self.drew = self.policy[("draw", bets, self.first, self.hand)]
        return self.drew

    def round2(self, card1, card2, bets1, bets2, drew):
        where = ("r2", bets1, self.drew, drew, self.first)
        return CODE[self.policy[(where, IDX[(card1, card2)], bets2)]]

    def showdown(self, card1, card2, opp1, opp2):
        return 0
