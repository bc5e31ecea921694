"""Each game's one reader of its wire (protocols/kuhn3_wire.py,
protocols/holdem_wire.py) on real transcripts, and what is built on it
agreeing with it: the seat views a person plays through, the hands the
league draws (``hands_of``), kuhn3's ACPC log.

The transcripts are real: matches of the sample bots over pipes (as the
trace hook writes a stored transcript), the golden playthroughs, and the
dialogues answered with the games' random legal replies."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from functools import cache

import pytest
import trio

from arena import BotSpec, MatchSettings, load_game, open_host, run_match
from arena._seeds import chance_stream
from protocols import holdem_wire as hw
from protocols import kuhn3_wire as k3
from protocols._builtin import GOLDEN
from protocols.acpc import Kuhn3Log
from protocols.kuhn3 import CLOSING, Kuhn3SeatView

from ..conftest import PY, ROOT

Lines = list[tuple[int, str, str]]
K3_BOTS = ROOT / "sample_bots" / "kuhn3"
HOLDEM_BOTS = ROOT / "sample_bots" / "holdem"


# -- real transcripts -------------------------------------------------------------


def played(game: str, raw: dict, commands: list[str], seed: int) -> Lines:
    """A match of real bots, its transcript as a stored one holds it (one entry a line)."""
    plugin = load_game(game)
    lines: Lines = []

    def trace(seat: int, direction: str, text: str) -> None:
        lines.extend((seat, direction, line) for line in text.splitlines() or [""])

    with open_host("none") as host:
        result = trio.run(run_match, plugin, [BotSpec.parse(c) for c in commands], plugin.Params.model_validate(raw),
                          seed, MatchSettings(trace=trace, host=host, timeout=10))
    assert result.completed, [f.describe() for f in result.faults]
    return lines


def dialogue(game: str, raw: dict, seats: int, seed: int) -> Lines:
    """The game's own dialogue answered with its random legal replies, in the order a trace has them."""
    plugin = load_game(game)
    run = plugin.open_dialogue(plugin.Params.model_validate(raw), chance_stream(f"wire{seed}"),
                               [f"p{i}" for i in range(seats)])
    rng = random.Random(seed)
    gen, replies, lines = run.run(), None, []
    while True:
        try:
            exchange = gen.send(replies)
        except StopIteration:
            return lines
        replies = []
        for seat, payload in exchange.sends:
            lines += [(seat, "->", line) for line in payload.decode().splitlines()]
            if exchange.reply:
                replies.append(plugin.random_reply(run, seat, payload, rng))
        if exchange.reply:
            lines += [(seat, "<-", r) for (seat, _), r in zip(exchange.sends, replies)]


def golden(game: str) -> list[Lines]:
    """Every match of a game's golden playthrough."""
    matches: list[Lines] = []
    for raw in (GOLDEN / f"{game}.playthrough").read_text().splitlines():
        if re.match(r"# \w+ playthrough \d+ of \d+", raw):
            matches.append([])
        found = re.match(r"(\d+) (->|<-) ?(.*)$", raw)
        if found:
            matches[-1].append((int(found[1]), found[2], found[3]))
    return matches


@cache
def transcripts(game: str) -> list[Lines]:
    if game == "kuhn3":
        bots = [f"{PY} {K3_BOTS / 'random_bot.py'} --seed 1", f"{PY} {K3_BOTS / 'equilibrium_bot.py'} --seed 2",
                f"{PY} {K3_BOTS / 'check_fold_bot.py'}"]
        return [played("kuhn3", {"hands": 30}, bots, 5), *golden("kuhn3"),
                *(dialogue("kuhn3", {"hands": 20}, 3, seed) for seed in range(3))]
    bots = [f"{PY} {HOLDEM_BOTS / 'random_bot.py'} --seed 1", f"{PY} {HOLDEM_BOTS / 'call_bot.py'}",
            f"{PY} {HOLDEM_BOTS / 'random_bot.py'} --seed 3"]
    return [played("holdem", {"hands": 8}, bots, 5), *golden("holdem"),
            dialogue("holdem", {"hands": 6}, 4, 1),
            dialogue("holdem", {"mode": "freezeout", "tournaments": 1, "stack": 10, "level_hands": 2}, 3, 2)]


def per_seat(lines: Lines) -> dict[int, Lines]:
    seats: dict[int, Lines] = {}
    for line in lines:
        seats.setdefault(line[0], []).append(line)
    return seats


def received(lines: Lines) -> list[str]:
    return [text for _, direction, text in lines if direction == "->"]


# -- kuhn3: the reader ---------------------------------------------------------------


def kuhn3_wire(event: k3.Message) -> list[str]:
    """An event written back in the dealer's words."""
    def listed(values) -> str:
        return ",".join(map(str, values))

    def actions(e) -> list[str]:
        return [f"Action: {a.verb} {a.amount}" for a in e.actions]

    if isinstance(event, k3.RoundStarted):
        return ["init_round", f"Money: {listed(event.money)}", f"Blinds: {listed(event.antes)}",
                f"Button: {event.button}", f"EndProb: {listed(event.end_prob)}"]
    if isinstance(event, k3.HandDealt):
        return ["init_hand", f"Hand: {event.hand}", f"Cards: {event.card}"]
    if isinstance(event, k3.YourTurn):
        return ["play", *actions(event)]
    if isinstance(event, k3.HandEnded):
        return ["end_hand", *actions(event), "Showdown: " + ",".join(c or "-" for c in event.showdown),
                "Pots: " + " ".join(f"{p.amount},{p.winner}" for p in event.pots)]
    if isinstance(event, k3.EndActions):
        return [f"EndAction: {a}" for a in event.answers]
    assert isinstance(event, k3.RoundEnded), event
    return ["end_round", f"Bankrolls: {listed(event.bankrolls)}", f"NumHands: {event.hands}"]


@pytest.mark.parametrize("n", range(5))
def test_kuhn3_every_message_reads_as_one_event_that_says_all_its_lines(n):
    lines = transcripts("kuhn3")[n]
    for seat, mine in per_seat(lines).items():
        reader = k3.SeatReader()
        events = [e for e in map(reader.feed, received(mine)) if e is not None]
        assert [line for e in events for line in kuhn3_wire(e)] == received(mine)
        assert isinstance(events[0], k3.RoundStarted) and isinstance(events[-1], k3.RoundEnded)
        assert all(len(e.actions) == 3 for e in events if isinstance(e, (k3.YourTurn, k3.HandEnded)))
        # the transcript reader gives the seat the same messages, and one reply event per reply line
        ours = [e for s, e in k3.transcript_events(lines) if s == seat]
        assert [e for e in ours if not isinstance(e, (k3.ActionReplied, k3.MoneyReplied, k3.Acknowledged))] == events
        assert len(ours) - len(events) == sum(d == "<-" for _, d, _ in mine)


@pytest.mark.parametrize("n", range(5))
def test_kuhn3_each_reply_is_read_as_the_answer_to_its_message(n):
    asked = {}
    for seat, event in k3.transcript_events(transcripts("kuhn3")[n]):
        if isinstance(event, (k3.ActionReplied, k3.MoneyReplied, k3.Acknowledged)):
            kind = type(asked[seat])
            if isinstance(event, k3.ActionReplied):
                assert kind is k3.YourTurn and event.verb in ("BET", "FOLD") and event.amount.isdigit()
            elif isinstance(event, k3.MoneyReplied):
                assert kind is k3.EndActions and event.totals is not None and sum(event.totals) == 0
            else:
                expected = {k3.RoundStarted: {"READY"}, k3.HandDealt: {"READY"}, k3.HandEnded: {"OK", "REBUY"},
                            k3.RoundEnded: {CLOSING}}[kind]
                assert event.text in expected and event.to == k3.header(kuhn3_wire(asked[seat])[0])
        else:
            asked[seat] = event


# -- kuhn3: what reads it --------------------------------------------------------------


@pytest.mark.parametrize("n", range(5))
def test_kuhn3_the_seat_view_turns_each_event_into_the_replies_the_bots_gave(n):
    """Replayed along every seat's lines: the view asks exactly at ``play``,
    offers the two legal replies (the bot's own among them), and answers
    everything else as the bot did, its Money: totals included."""
    lines = transcripts("kuhn3")[n]
    for seat, mine in per_seat(lines).items():
        view, reader = Kuhn3SeatView(seat, {"max_bet": 2}), k3.SeatReader()
        event = turn = None
        for _, direction, text in mine:
            if direction == "->":
                turn, event = view.feed(text), reader.feed(text)
                assert (turn is None) == (event is None)
                continue
            assert turn is not None and event is not None
            if isinstance(event, k3.YourTurn):
                fronts = [a.amount for a in event.actions]
                facing = max(fronts) > fronts[0]
                assert [c.word for c in turn.choices] == (["fold", "call"] if facing else ["check", "bet"])
                replies = [view.reply(c, None) for c in turn.choices]
                assert replies == ([f"FOLD {fronts[0]}", "BET 2"] if facing else [f"BET {fronts[0]}", "BET 2"])
                assert text.rstrip() in replies
            elif isinstance(event, k3.EndActions):
                assert k3.read_reply("EndAction", turn.auto).totals == k3.read_reply("EndAction", text).totals
            else:
                assert not turn.choices and turn.auto == text


@pytest.mark.parametrize("n", range(5))
def test_kuhn3_the_hands_drawn_are_the_events_of_each_hand(n):
    lines = transcripts("kuhn3")[n]
    hands = load_game("kuhn3").hands_of(lines)
    numbers, by_hand = [], []
    for seat, event in k3.transcript_events(lines):
        if isinstance(event, k3.HandDealt) and (not numbers or numbers[-1] != event.hand):
            numbers.append(event.hand)
            by_hand.append([])
        if by_hand:
            by_hand[-1].append((seat, event))
    assert [h["number"] for h in hands] == numbers and hands
    money, final = [0, 0, 0], None
    for hand, events in zip(hands, by_hand):
        cards = {s: [e.card] for s, e in events if isinstance(e, k3.HandDealt)}
        assert [s["cards"] for s in hand["seats"]] == [cards[s] for s in range(3)]
        assert [a["seat"] for a in hand["streets"][0]["actions"]] == [
            s for s, e in events if isinstance(e, k3.ActionReplied)]
        seat, end = next((s, e) for s, e in events if isinstance(e, k3.HandEnded))
        assert hand["pots"] == [{"amount": p.amount, "winners": [(p.winner + seat) % 3], "words": None}
                                for p in end.pots]
        (totals,) = [e.totals for s, e in events if s == 0 and isinstance(e, k3.MoneyReplied)]
        assert [s["profit"] for s in hand["seats"]] == [t - m for t, m in zip(totals, money)]
        money = list(totals)
        final = [e for s, e in events if s == 0 and isinstance(e, k3.RoundEnded)] or final
    assert final is not None and list(final[0].bankrolls) == money  # seat 0's local view is the canonical one


def test_kuhn3_a_transcript_cut_short_draws_the_hands_it_has():
    """A stored transcript is read up to a number of lines: a hand whose
    ``init_hand`` was cut after its number is drawn without cards."""
    lines = transcripts("kuhn3")[1]
    whole = load_game("kuhn3").hands_of(lines)
    second = lines.index((0, "->", "Hand: 1")) + 1
    cut = load_game("kuhn3").hands_of(lines[:second])
    assert [h["number"] for h in cut] == [0, 1]
    assert cut[0]["seats"] == whole[0]["seats"] and cut[0]["pots"] == whole[0]["pots"]
    assert [s["cards"] for s in cut[1]["seats"]] == [[], [], []]
    assert list(k3.transcript_events(lines[:second]))[-1] == (0, k3.HandCutShort(1))
    cut = load_game("kuhn3").hands_of(lines[:second + 1])
    assert [s["cards"] for s in cut[1]["seats"]] == [whole[1]["seats"][0]["cards"], [], []]
    for k in range(len(lines) + 1):  # cut anywhere: every hand but the last is whole
        hands = load_game("kuhn3").hands_of(lines[:k])
        assert hands[:-1] == whole[:max(len(hands) - 1, 0)]
        assert [h["number"] for h in hands] == [h["number"] for h in whole[:len(hands)]]


def test_kuhn3_replies_are_read_whatever_a_bot_wrote():
    lines = transcripts("kuhn3")[1]
    first = next(i for i, (s, d, t) in enumerate(lines) if d == "<-" and re.fullmatch(r"(BET|FOLD) \d", t))
    seat = lines[first][0]
    for text, words in [("I raise you a million", "I raise you a million"), ("FOLD", "folds"),
                        ("BET 02", "bets to 02"), ("  BET 2  ", "bets to 2"), ("", "")]:
        bent = [*lines[:first], (seat, "<-", text), *lines[first + 1:]]
        (hand, *_) = load_game("kuhn3").hands_of(bent)
        said = [a for a in hand["streets"][0]["actions"]]
        assert said[0] == {"seat": seat, "words": words}


def test_kuhn3_the_seed_example_in_a_persons_words():
    """The seed's worked example (tests/golden/kuhn3_seed_example.txt) as seat 0's view shows it."""
    view = Kuhn3SeatView(0, {"max_bet": 2})
    sent = [line for line in (ROOT / "tests" / "golden" / "kuhn3_seed_example.txt").read_text().splitlines()
            if not line.startswith(("#", "> "))]
    got = [(t.shown, [c.word for c in t.choices], t.auto, [view.reply(c, None) for c in t.choices])
           for t in map(view.feed, sent) if t is not None]
    assert got == [
        (["Kuhn poker, 3 seats: cards J < Q < K < A, antes 1,1,1, a bet takes you to 2 in front."], [], "READY", []),
        (["", "Hand 1: your card is Q"], [], "READY", []),
        (["  so far: you anted (1 in front), the next seat anted (1 in front), the seat after bet (2 in front)"],
         ["fold", "call"], None, ["FOLD 1", "BET 2"]),
        (["  at the end: you stayed in (2 in front), the next seat folded (1 in front), the seat after stayed in "
          "(2 in front)", "  showdown: the seat after K", "  pot 5 to the seat after", "  your total: -2"], [], "OK", []),
        ([], [], "Money: -2,-1,3", []),
        (["", "Hand 2: your card is A"], [], "READY", []),
        (["  so far: you anted (1 in front), the next seat anted (1 in front), the seat after anted (1 in front)"],
         ["check", "bet"], None, ["BET 1", "BET 2"]),
        (["  at the end: you stayed in (2 in front), the next seat folded (1 in front), the seat after folded "
          "(1 in front)", "  no showdown", "  pot 4 to you", "  your total: +0"], [], "OK", []),
        ([], [], "Money: 0,-2,2", []),
        (["", "Round over after 2 hands: you finished +0."], [], CLOSING, []),
    ]
    # with the seats' names (the arena passes them to a person's seat): each other seat named
    named = Kuhn3SeatView(1, {"max_bet": 2})
    named.names = ["ann", "bo", "cy"]
    shown = [t.shown for t in map(named.feed, sent) if t is not None and t.shown]
    assert shown[2] == ["  so far: you anted (1 in front), cy (the next seat) anted (1 in front), ann (the seat "
                        "after) bet (2 in front)"]


def test_kuhn3_a_line_out_of_place_is_a_clear_error_and_an_unknown_one_is_shown_as_it_came():
    view = Kuhn3SeatView(0, {})
    assert view.feed("init_hand") is None and view.feed("Hand: x") is None
    with pytest.raises(k3.WireError, match="'Hand: x' where kuhn3 sends 'Hand: <number>'"):
        view.feed("Cards: Q")
    with pytest.raises(k3.WireError, match="'Cards: Q' where kuhn3 sends 'Action: ...'"):
        for line in ["play", "Action: BLIND 1", "Action: BLIND 1", "Cards: Q"]:
            view.feed(line)
    turn = view.feed("hello there  ")  # a fresh message begins after the error
    assert turn is not None and turn.raw and turn.shown == ["hello there"]
    assert k3.SeatReader().feed("hello") == k3.Unknown("hello")


@pytest.mark.parametrize("n", range(5))
def test_kuhn3_the_acpc_log_reads_the_same_hands(n):
    """kuhn3's ACPC log (``--acpc-log``), read from the same messages: one
    STATE line a hand, its cards and results those of the hands drawn."""
    lines = transcripts("kuhn3")[n]
    log = Kuhn3Log(["a", "b", "c"])
    for seat, direction, text in lines:
        (log.sent if direction == "->" else log.received)(seat, text)
    states = log.acpc_log().splitlines()
    hands = load_game("kuhn3").hands_of(lines)
    assert len(states) == len(hands)
    for state, hand in zip(states, hands):
        _, number, betting, cards, results, names = state.split(":")
        assert int(number) == hand["number"]
        # the words drawn and the betting the ACPC translator replays by the rules say the same
        tokens = {"checks": "c", "calls": "c", "bets": "r", "folds": "f"}
        assert "".join(tokens[a["words"].split()[0]] for a in hand["streets"][0]["actions"]) == betting
        by_name = dict(zip(names.split("|"), zip(cards.split("|"), map(int, results.split("|")))))
        assert by_name == {name: (s["cards"][0] + "s", s["profit"]) for name, s in zip("abc", hand["seats"])}


# -- hold'em ----------------------------------------------------------------------


def plain(event) -> dict:
    """An event's fields as the JSON message has them (tuples as lists)."""
    return json.loads(json.dumps(dataclasses.asdict(event)))


@pytest.mark.parametrize("n", range(5))
def test_holdem_every_message_reads_as_its_event_with_every_field(n):
    lines = transcripts("holdem")[n]
    kinds = set()
    for _, direction, text in lines:
        if direction != "->":
            continue
        message, event = json.loads(text), hw.read(text)
        kinds.add(type(event))
        fields = {k: v for k, v in message.items() if k != "type"}
        if isinstance(event, hw.MatchStarted):
            fields = {k: fields[k] for k in ("match", "seat", "players")}
        assert plain(event) == fields
    assert {hw.MatchStarted, hw.HandStarted, hw.ActionSeen, hw.YourTurn, hw.HandEnded, hw.MatchEnded} <= kinds
    assert [e for _, e in hw.transcript_events(lines)] == [hw.read(t) for _, d, t in lines if d == "->"]


@pytest.mark.parametrize("n", range(5))
def test_holdem_the_seat_view_asks_exactly_at_act_with_the_legal_actions(n):
    lines = transcripts("holdem")[n]
    plugin = load_game("holdem")
    for seat, mine in per_seat(lines).items():
        view = plugin.seat_view(plugin.Params(), seat)
        event = turn = None
        for _, direction, text in mine:
            if direction == "->":
                event, turn = hw.read(text), view.feed(text)
                assert turn is not None and bool(turn.choices) == isinstance(event, hw.YourTurn)
                assert (turn.auto == '{"type": "ready"}') == isinstance(event, hw.MatchStarted)
                continue
            if not isinstance(event, hw.YourTurn):
                continue
            assert [(c.word, c.low, c.high) for c in turn.choices] == [
                ("raise", event.min_raise_to, event.max_raise_to) if a == "raise"
                else ("check" if a == "call" and not event.to_call else a, None, None) for a in event.legal]
            reply = json.loads(text)
            (choice,) = [c for c in turn.choices if {"check": "call"}.get(c.word, c.word) == reply["action"]]
            assert json.loads(view.reply(choice, reply.get("to"))) == reply


@pytest.mark.parametrize("n", range(5))
def test_holdem_the_hands_drawn_are_the_events_the_lowest_seat_was_sent(n):
    lines = transcripts("holdem")[n]
    hands = load_game("holdem").hands_of(lines)
    starts: dict[int, dict[int, hw.HandStarted]] = {}
    for seat, event in hw.transcript_events(lines):
        if isinstance(event, hw.HandStarted):
            starts.setdefault(event.hand, {})[seat] = event
    assert [h["number"] for h in hands] == list(starts) and hands
    for hand in hands:
        dealt = starts[hand["number"]]
        reader = min(next(iter(dealt.values())).in_hand)
        told = [e for s, e in hw.transcript_events(lines) if s == reader and getattr(e, "hand", None) == hand["number"]
                and not isinstance(e, hw.YourTurn)]
        # each seat's stack: as it was dealt in, then after its last action
        stacks = {s: dealt[s].stacks[s] for s in dealt}
        stacks.update({e.seat: e.stack for e in told if isinstance(e, hw.ActionSeen)})
        assert hand["seats"] == [{"seat": s, "cards": list(dealt[s].cards), "profit": hand["seats"][i]["profit"],
                                  "stack": stacks[s]} for i, s in enumerate(sorted(dealt))]
        (end,) = [e for e in told if isinstance(e, hw.HandEnded)]
        assert [s["profit"] for s in hand["seats"]] == [end.profits[s] for s in sorted(dealt)]
        assert hand["board"] == list(end.board) and hand["shown"] == {x.seat: x.hand for x in end.shown}
        streets = [e for e in told if isinstance(e, hw.StreetDealt)]
        assert [(st["name"], st.get("pot")) for st in hand["streets"]] == [("preflop", None)] + [
            (e.street, e.pot) for e in streets]
        boards = [st["board"] for st in hand["streets"]]
        assert [c for b in boards for c in b] == list(streets[-1].board if streets else ())
        assert [len(b) for b in boards] == [0, 3, 1, 1][:len(boards)]
        assert sum(len(st["actions"]) for st in hand["streets"]) == 2 + sum(isinstance(e, hw.ActionSeen) for e in told)


def test_holdem_lines_that_are_no_message():
    plugin = load_game("holdem")
    view = plugin.seat_view(plugin.Params(), 0)
    with pytest.raises(hw.WireError, match="not JSON"):
        view.feed("hello")
    with pytest.raises(hw.WireError, match="without its field 'board'"):
        view.feed('{"type": "street", "hand": 0, "street": "flop", "pot": 3}')
    turn = view.feed('{"type": "surprise", "x": 1}')  # a type hold'em does not send: shown as it came
    assert turn is not None and turn.raw and turn.shown == ['{"type": "surprise", "x": 1}']
    lines = transcripts("holdem")[0]
    noisy = [(0, "->", "not json"), (0, "->", "{bad"), (1, "->", "[1, 2]"), *lines, (0, "<-", '{"type": "hand_start"}')]
    assert load_game("holdem").hands_of(noisy) == load_game("holdem").hands_of(lines)
