#!/usr/bin/env python3
"""Attack bot for Hold'em: remembers every deal it played and recognises it when it comes back.

A duplicate tournament deals the same cards in every seating of the same
entrants. A process that lives for more than one seating can keep what it
learnt (its hole cards, the board, the cards shown at showdown) and, when
the same deal comes round again, know its opponents' hole cards and the
board before they are dealt. This bot keeps that memory in its process only
(no files), predicts every unseen card it can, and checks each prediction
when the card is revealed.

It plays legally (always calls, a check when nothing is owed) and, at every
``match_end``, writes on stderr one line::

    MEMORY matches=M predicted=P correct=C

M counts the ``match_start`` messages this process received; P is how many of
this match's predictions were checked against a revealed card, C how many of
those were right.
"""
import json
import sys

# One entry per finished match: {"seats": n, "hands": {hand: {"hole": {seat: cards}, "board": cards}}}
memory = []
matches = 0


class Match:
    def __init__(self, seat, seats):
        self.seat = seat
        self.seats = seats
        self.hands = {}
        self.deal = None  # the remembered match with this deal
        self.offset = None  # remembered seat = (seat here + offset) % seats
        self.predicted = 0
        self.correct = 0
        self.hole_guess = {}  # this hand: seat -> predicted cards
        self.board_guess = []  # this hand: the predicted board
        self.board_checked = 0

    def recognise(self, hand, cards=None, board=None):
        """Find a remembered match whose hand ``hand`` had these hole cards (at
        some seat) or this board: the same deal. Returns True once known."""
        if self.deal is not None and self.offset is not None:
            return True
        for old in memory:
            past = old["hands"].get(hand)
            if old["seats"] != self.seats or past is None:
                continue
            if cards is not None:
                for t, seen in past["hole"].items():
                    if sorted(seen) == sorted(cards):
                        self.deal, self.offset = old, (t - self.seat) % self.seats
                        return True
            if board is not None and self.deal is None and past["board"][:len(board)] == board:
                self.deal = old
        return self.deal is not None

    def predict(self, hand, in_hand):
        past = self.deal["hands"].get(hand) if self.deal is not None else None
        if past is None:
            return
        self.board_guess = list(past["board"])
        if self.offset is not None:
            for t in in_hand:
                where = (t + self.offset) % self.seats
                if t != self.seat and where in past["hole"]:
                    self.hole_guess[t] = list(past["hole"][where])

    def check_board(self, board):
        for i in range(self.board_checked, len(board)):
            if i < len(self.board_guess):
                self.predicted += 1
                self.correct += board[i] == self.board_guess[i]
        self.board_checked = max(self.board_checked, len(board))


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


current = None
for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "match_start":
        matches += 1
        current = Match(msg["seat"], len(msg["players"]))
        send({"type": "ready"})
    elif kind == "act":
        legal = msg["legal"]
        send({"type": "action", "action": "call" if "call" in legal else ("allin" if "allin" in legal else "fold")})
    elif current is None:
        continue
    elif kind == "hand_start":
        hand = msg["hand"]
        current.hands[hand] = {"hole": {msg["seat"]: list(msg["cards"])}, "board": []}
        current.hole_guess, current.board_guess, current.board_checked = {}, [], 0
        if current.recognise(hand, cards=msg["cards"]):
            current.predict(hand, msg["in_hand"])
    elif kind == "street":
        hand = msg["hand"]
        if not current.board_guess and current.recognise(hand, board=msg["board"]):
            current.predict(hand, [])  # recognised by the flop: the turn and river to come
            current.board_checked = len(msg["board"])  # what is seen already is no prediction
        current.check_board(msg["board"])
    elif kind == "hand_end":
        hand = msg["hand"]
        current.check_board(msg["board"])
        record = current.hands.setdefault(hand, {"hole": {}, "board": []})
        record["board"] = list(msg["board"])
        for shown in msg["shown"]:
            record["hole"][shown["seat"]] = list(shown["cards"])
            guess = current.hole_guess.get(shown["seat"])
            if guess is not None:
                current.predicted += len(guess)
                current.correct += sum(c in shown["cards"] for c in guess)
    elif kind == "match_end":
        memory.append({"seats": current.seats, "hands": current.hands})
        sys.stderr.write(f"MEMORY matches={matches} predicted={current.predicted} correct={current.correct}\n")
        sys.stderr.flush()
        current = None
