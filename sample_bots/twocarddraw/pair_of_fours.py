"""TwoCardDraw, the seed's sample idea in our own words: bet and raise with a
pair of 4s, otherwise check and call. It keeps any pair and otherwise draws
one card (the lower one goes).

Written to the TopCoder interface; run it with the Python shim:
    python3 shims/python/twocarddraw_runner.py sample_bots/twocarddraw/pair_of_fours.py
"""


class TwoCardDraw:
    def init(self, bet1, bet2):
        return 0

    def new_hand(self, card1, card2, winnings):
        return 1 if card1 == card2 == 4 else 0

    def round1(self, card1, card2, bets):
        strong = card1 == card2 == 4
        return 2 if strong and bets < 3 else 1

    def draw(self, card1, card2, bets):
        return 0 if card1 == card2 else 1

    def round2(self, card1, card2, bets1, bets2, drew):
        strong = card1 == card2 == 4
        return 2 if strong and bets2 < 3 else 1

    def showdown(self, card1, card2, opp1, opp2):
        return 0
