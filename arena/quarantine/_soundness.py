"""The checks of ``arena check-game`` that look for a game author's mistakes
rather than a broken dialogue: leaks of private chance, a dialogue that
accepts what its engine forbids (or the reverse), a fault blamed on the
wrong seat, and parameters without bounds or that break at their bounds.

Each replays matches in-process from recorded replies (a dialogue is a
generator and cannot be copied, so "what if seat k had said X here" is the
same match played again up to there). They are kept small: a few matches of
the game's playthrough parameters, a few decision points each.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from protocols import GamePlugin, ProtocolError
from protocols._contract import REDRAW_ATTRIBUTE
from protocols.jsonlines import Reply

from .._checks import UsageError, game_params
from .._seeds import chance_stream
from ..play._guard import Guarded
from ..play._stepping import step_through
from ._check import CHECK_STEP_SECONDS, Check, largest_table as _seats, message_type, tables

#: matches each check replays (seeds 2000...)
MATCHES = 3
#: decision points probed per match, spread over it
DECISIONS = 6
#: replies tried at each probed decision point
CANDIDATES = 8
#: the longest play at a parameter's extreme, in exchanges (a bound of a
#: million rounds is checked by starting it, not by playing it out)
EXTREME_STEPS = 300


#: a check's re-draw of private chance (``REDRAW_ATTRIBUTE``): seat -> a salt, or
#: (salt, draws kept) to re-draw only after the seat's first draws
RedrawTable = dict[int, int | tuple[int, int]]


def open_checked(plugin: GamePlugin[Any], raw: dict[str, Any], seed: int, redraw: RedrawTable | None = None,
                 seats: int | None = None, match_index: Any = 0) -> Any:
    """A match as every check opens it: ``raw``'s parameters, seats named a, b, ...
    (the largest table unless ``seats``), and the chance stream with its
    re-draw table; ``(run, stream)``."""
    params = game_params(plugin, raw, keys=True)
    names = [chr(ord("a") + i) for i in range(seats or _seats(plugin, params))]
    rng = chance_stream(seed)
    setattr(rng, REDRAW_ATTRIBUTE, _Watch(redraw or {}))
    return plugin.open_dialogue(params, rng, names, match_index), rng


_open = open_checked


def seat_counts(plugin: GamePlugin[Any], raw: dict[str, Any]) -> list[int]:
    """The table sizes a check plays: the smallest and largest the game
    accepts with ``raw``, and one between."""
    params = game_params(plugin, raw, keys=True)
    fixed = plugin.fixed_seats(params)
    if fixed is not None:
        return [fixed]
    ok = tables(plugin, params)
    return sorted({ok[0], ok[len(ok) // 2], ok[-1]}) if ok else [_seats(plugin, params)]


def has_own_view(plugin: GamePlugin[Any]) -> bool:
    return type(plugin).seat_view is not GamePlugin.seat_view


#: the most amounts of one choice a check turns into replies (the ends and an even spread beyond)
AMOUNTS = 2000


@dataclass(slots=True)
class Offer:
    """The choices a seat view named at one decision, as the replies they make."""

    replies: dict[str, str]  # the reply line -> the choice as a person types it
    complete: bool  # False: some choice's amounts were too many to list, only a spread of them is here


def offer_of(view: Any, turn: Any) -> Offer | None:
    """The replies ``turn``'s choices make through ``view``; None when the
    view named no choice (the plain view, or a message it took for no question)."""
    if turn is None or turn.raw:
        return None
    if turn.auto is not None:  # the view's one answer: other spellings or options may be legal too
        return Offer({turn.auto: "(answered by the view)"}, False)
    if not turn.choices:
        return None
    replies: dict[str, str] = {}
    complete = not turn.partial
    for c in turn.choices:
        if c.low is None:
            replies[view.reply(c, None)] = c.word
            continue
        span = c.high - c.low + 1
        amounts: Iterable[int]
        if span > AMOUNTS:
            complete = False
            amounts = sorted({c.low, c.high, *range(c.low, c.high + 1, max(1, span // AMOUNTS))})
        else:
            amounts = range(c.low, c.high + 1)
        for a in amounts:
            replies[view.reply(c, a)] = f"{c.word} {a}"
    return Offer(replies, complete)


class _Watch(dict):
    """The re-draw table, noting which seats' private chance the game asked for."""

    def __init__(self, table: RedrawTable) -> None:
        super().__init__(table)
        self.asked: set[int] = set()

    def get(self, seat: Any, default: Any = None) -> Any:
        self.asked.add(seat)
        return super().get(seat, default)


@dataclass(slots=True)
class Step:
    """One yield of a dialogue: what it sent, and the replies it was given;
    what each seat sent to knew then (``known``), and what its seat view
    offered where it was asked (``offers``)."""

    sends: list[tuple[int, bytes]]
    asks: bool
    replies: list[str] = field(default_factory=list)
    revealed: frozenset[int] = frozenset()
    known: dict[int, str] = field(default_factory=dict)
    offers: dict[int, Offer | None] = field(default_factory=dict)


def known_of(run: Any, seat: int) -> str | None:
    """``run.known(seat)`` as a comparable text, or None when the game has no ``known``."""
    method = getattr(run, "known", None)
    if method is None:
        return None
    return repr(method(seat))


class ViewError(Exception):
    """A seat view raised on a message of its own game."""


def _revealed(run: Any, seats: int) -> frozenset[int]:
    method = getattr(run, "revealed", None)
    return frozenset(s for s in range(seats) if method is not None and method(s))


def _feed(views: dict[int, Any], plugin: GamePlugin[Any], params: Any, seat: int, payload: bytes) -> Any:
    """Every line of ``payload`` to ``seat``'s view; the last turn it made."""
    view = views.get(seat)
    if view is None:
        view = views[seat] = plugin.seat_view(params, seat)
    turn = None
    for line in payload.decode("utf-8", "replace").splitlines():
        try:
            got = view.feed(line)
        except Exception as exc:
            raise ViewError(f"seat {seat}'s seat view raised {type(exc).__name__}: {exc} on {line!r}") from exc
        turn = got if got is not None else turn
    return turn


def _record(plugin: GamePlugin[Any], raw: dict[str, Any], seed: int,
            at_decision: Any = None, seats: int | None = None) -> tuple[Any, list[Step], Any]:
    """A match with random legal replies: its steps, and the chance stream's
    re-draw table. ``at_decision(run, step_index, seat, payload)`` is called
    at every reply asked for, before it is chosen."""
    run, rng = _open(plugin, raw, seed, seats=seats)
    params = game_params(plugin, raw, keys=True)
    seats = seats or _seats(plugin, params)
    choose = random.Random(seed)
    steps: list[Step] = []
    views: dict[int, Any] = {}
    own_view = has_own_view(plugin)

    def seen(n: int, exchange: Any) -> None:
        step = Step(list(exchange.sends), exchange.reply, revealed=_revealed(run, seats))
        for seat, payload in exchange.sends:
            known = known_of(run, seat)
            if known is not None:
                step.known[seat] = known
            turn = _feed(views, plugin, params, seat, payload) if own_view else None
            if exchange.reply:
                try:
                    step.offers[seat] = offer_of(views[seat], turn) if own_view else None
                except Exception as exc:
                    raise ViewError(f"seat {seat}'s seat view raised {type(exc).__name__}: {exc} making "
                                    f"the replies of its choices to {payload.decode().strip()!r}") from exc
        steps.append(step)

    def answer(n: int, seat: int, payload: bytes) -> str:
        if at_decision is not None:
            at_decision(run, n, seat, payload)
        reply = plugin.random_reply(run, seat, payload, choose)
        steps[n].replies.append(reply)
        return reply

    step_through(run, plugin.spec.id, answer, on_exchange=seen, seconds=CHECK_STEP_SECONDS)
    return run, steps, getattr(rng, REDRAW_ATTRIBUTE)


def _replay(plugin: GamePlugin[Any], raw: dict[str, Any], seed: int, steps: list[Step], upto: int,
            last: list[str] | None = None, redraw: RedrawTable | None = None,
            watch: Any = None, seats: int | None = None) -> tuple[str, Any]:
    """Play ``steps[:upto]`` again with their recorded replies, then give the
    dialogue ``last`` (if any) as the replies of step ``upto``. Returns
    ``("accepted", None)``, ``("refused", ProtocolError)``,
    ``("ended", None)`` or ``("raised", exception)``. ``watch(run, step)`` sees
    every step of the replay as it is yielded."""
    run, _ = _open(plugin, raw, seed, redraw, seats)
    pending: list[str] = []

    def seen(n: int, exchange: Any) -> None:
        if watch is not None:
            watch(run, exchange)
        pending[:] = list(last) if (last is not None and n == upto) else list(steps[n].replies)

    def answer(n: int, seat: int, payload: bytes) -> str:
        return pending.pop(0) if pending else ""  # a replay gone another way: nothing recorded there

    try:
        outcome = step_through(run, plugin.spec.id, answer, on_exchange=seen, limit=upto + (last is not None),
                               seconds=CHECK_STEP_SECONDS)
    except ProtocolError as exc:
        return "refused", exc
    except Exception as exc:  # a crash of the game is reported by the caller
        return "raised", exc
    if outcome is None or last is not None:
        return "accepted", None
    return "ended", None


# -- legality and attribution ------------------------------------------------------------


def _reply_models(plugin: GamePlugin[Any]) -> dict[str, type[Reply]]:
    out = {}
    for model in plugin.message_models:
        if isinstance(model, type) and issubclass(model, Reply):
            out[message_type(model)] = model
    return out


def _canonical(line: str, models: dict[str, type[Reply]]) -> str | None:
    """A reply as its model reads it (so spellings of one reply compare equal),
    or None when no reply model takes it."""
    if not models:
        return line.strip()  # a text protocol: the line is the reply
    try:
        data = json.loads(line)
        model = models[data["type"]]
        return json.dumps(model.model_validate(data).model_dump(mode="json"), sort_keys=True)
    except Exception:
        return None


def _field_values(legal: list[str], models: dict[str, type[Reply]]) -> dict[str, set[str]]:
    """Each reply field's values worth trying (as JSON): the legal replies'
    own, one off from theirs, and the schemas' bounds and choices."""
    pool: dict[str, set[str]] = {}
    for line in legal:
        try:
            items = json.loads(line).items()
        except (ValueError, AttributeError):
            continue
        for key, value in items:
            pool.setdefault(key, set()).add(json.dumps(value))
            if isinstance(value, int) and not isinstance(value, bool):
                pool[key].update(json.dumps(value + d) for d in (-1, 1))
    for model in models.values():
        for key, prop in model.model_json_schema().get("properties", {}).items():
            values = pool.setdefault(key, set())
            values.update(json.dumps(prop[bound]) for bound in ("minimum", "maximum") if bound in prop)
            values.update(json.dumps(value) for value in prop.get("enum", []))
    return pool


def _candidates(legal: list[str], models: dict[str, type[Reply]], rng: random.Random) -> list[str]:
    """Replies to try at one decision: some legal ones, and replies built
    from the reply schemas with field values near the legal ones (one off,
    swapped between legal replies, or a schema bound), most of them
    illegal here but well formed."""
    out = rng.sample(legal, min(len(legal), CANDIDATES // 4 or 1))
    if not models:
        return out + ["?"]
    pool = _field_values(legal, models)
    for _ in range(50):
        if len(out) >= CANDIDATES:
            break
        type_name = rng.choice(sorted(models))
        reply = {"type": type_name}
        for key in (k for k in models[type_name].model_fields if k != "type" and pool.get(k)):
            reply[key] = json.loads(rng.choice(sorted(pool[key])))
        line = json.dumps(reply)
        if line not in out:
            out.append(line)
    return out


@dataclass(slots=True)
class _Probe:
    decisions: int = 0
    tried: int = 0
    refused_by_seat: dict[int, int] = field(default_factory=dict)
    legality: str | None = None
    attribution: str | None = None
    source: str = ""


@dataclass(slots=True)
class _Legal:
    """One recorded match's legal replies at each decision ``(step, seat)``."""

    steps: list[Step]
    at: dict[tuple[int, int], list[str]]
    complete: set[tuple[int, int]]  # where the list is every legal reply (not a spread of a wide range)
    sources: set[str]


def _legal_of(plugin: GamePlugin[Any], raw: dict[str, Any], seed: int) -> _Legal:
    """A match with random replies, and at each decision its legal replies:
    the seat view's named choices, and the engine's legal set where given."""
    at: dict[tuple[int, int], list[str]] = {}
    engine_at: set[tuple[int, int]] = set()

    def note(run: Any, step: int, seat: int, payload: bytes) -> None:
        legal = plugin.legal_replies(run, seat, payload)
        if legal is not None:
            at[(step, seat)] = list(legal)
            engine_at.add((step, seat))

    _, steps, _ = _record(plugin, raw, seed, note)
    complete, sources = set(engine_at), {"the engine's legal set"} if engine_at else set()
    for n, step in enumerate(steps):
        for seat, offer in step.offers.items():
            if offer is None:
                continue
            at.setdefault((n, seat), []).extend(offer.replies)
            if offer.complete:
                complete.add((n, seat))
            sources.add("the seat views' named choices")
    return _Legal(steps, at, complete, sources)


def _picks(asked: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """DECISIONS decisions spread over a match, and every seat at least once (where it is first asked)."""
    picks = asked if len(asked) <= DECISIONS else [asked[i * len(asked) // DECISIONS] for i in range(DECISIONS)]
    return picks + [next(k for k in asked if k[1] == seat) for seat in {s for _, s in asked} - {s for _, s in picks}]


def _judge(outcome: str, error: Any, line: str, seat: int, told: str, is_legal: bool, complete: bool,
           offer: Offer | None) -> str | None:
    """What is wrong with the dialogue's answer to one tried reply, in words (None: right)."""
    if outcome == "raised":
        return f"seat {seat} replied {line!r} to {told!r} and the game raised {type(error).__name__}: {error}, " \
               "not a ProtocolError"
    if outcome == "accepted" and not is_legal and complete:
        names = "/".join(offer.replies.values()) if offer is not None else "its legal set"
        return (f"seat {seat} replied {line!r} to {told!r}, which is none of the legal choices ({names}), yet the "
                "dialogue accepted it")
    if outcome == "refused" and is_legal:
        said = f" (the choice '{offer.replies[line]}' of the seat view)" if offer and line in offer.replies else ""
        return (f"seat {seat} replied {line!r}{said} to {told!r}; the game names it a legal choice, yet the "
                f"dialogue refused it: {error}")
    return None


def _probe_decision(plugin: GamePlugin[Any], raw: dict[str, Any], seed: int, legal: _Legal, key: tuple[int, int],
                    probe: _Probe, models: dict[str, type[Reply]], rng: random.Random) -> bool:
    """Try replies at one decision; False when the probe found a legality problem (in ``probe``)."""
    step_no, seat = key
    step = legal.steps[step_no]
    index = [s for s, _ in step.sends].index(seat)
    told = step.sends[index][1].decode().strip()
    allowed = {_canonical(line, models) for line in legal.at[key]}
    if None in allowed:
        bad = next(line for line in legal.at[key] if _canonical(line, models) is None)
        probe.legality = (f"seed {seed}: seat {seat} may reply {bad!r} to {told!r} by the game's own choices, but "
                          "its reply models refuse that line")
        return False
    offer = step.offers.get(seat)
    named = list(offer.replies) if offer is not None else []
    for line in dict.fromkeys([*named[:CANDIDATES // 2], *_candidates(legal.at[key], models, rng), "not a reply"]):
        probe.tried += 1
        replies = list(step.replies)
        replies[index] = line
        outcome, error = _replay(plugin, raw, seed, legal.steps, step_no, replies)
        problem = _judge(outcome, error, line, seat, told, _canonical(line, models) in allowed,
                         key in legal.complete, offer)
        if problem:
            probe.legality = f"seed {seed}: {problem}"
            return False
        if outcome == "refused":
            if error.seat != seat and probe.attribution is None:
                probe.attribution = (f"seed {seed}: seat {seat} replied {line!r} to {told!r}, and the fault was "
                                     f"charged to seat {error.seat} ({error.reason}): a bad reply is the fault of "
                                     "the seat that sent it")
            probe.refused_by_seat[seat] = probe.refused_by_seat.get(seat, 0) + 1
    return True


def _probe_legality(plugin: GamePlugin[Any]) -> _Probe | None:
    """Try replies at decision points of a few matches: the choices the seat
    view names (and the engine's legal set, when the game gives one) must be
    accepted, anything else refused and charged to the seat that sent it.
    None when the game names no choices at all."""
    models = _reply_models(plugin)
    probe = _Probe()
    raw = dict(plugin.playthrough_matches[0][0])
    sources: set[str] = set()
    for m in range(MATCHES):
        seed = 2000 + m
        legal = _legal_of(plugin, raw, seed)
        sources |= legal.sources
        if not legal.at:
            if m == 0:
                return None
            continue
        rng = random.Random(seed)
        for key in _picks(sorted(legal.at)):
            probe.decisions += 1
            if not _probe_decision(plugin, raw, seed, legal, key, probe, models, rng):
                return probe
    probe.source = " and ".join(sorted(sources))
    return probe


NO_CHOICES = ("the game names no legal choices: give it a seat view (GamePlugin.seat_view, a "
              "protocols.seatview.SeatView whose turns list the choices of each decision), and optionally the "
              "engine's legal set (GamePlugin.legal_replies)")


def check_legality_and_attribution(plugin: GamePlugin[Any]) -> list[Check]:
    try:
        probe = _probe_legality(plugin)
    except Exception as exc:
        failed = Check("legality", False, f"raised {type(exc).__name__}: {exc}")
        return [failed, Check("attribution", False, "not checked: the legality probe raised")]
    if probe is None:
        return [Check("legality", False, f"cannot be checked: {NO_CHOICES}"),
                Check("attribution", False, "cannot be checked: no reply is known to be illegal without the "
                      "game's legal choices (see legality)")]
    legality = (Check("legality", False, probe.legality) if probe.legality else
                Check("legality", True, f"{probe.tried} replies at {probe.decisions} decisions: the dialogue "
                      f"accepted exactly the legal choices ({probe.source})"))
    if probe.attribution:
        attribution = Check("attribution", False, probe.attribution)
    elif probe.legality:
        attribution = Check("attribution", False, "not fully checked: the legality probe stopped early")
    else:
        attribution = Check("attribution", True, "every refused reply was charged to the seat that sent it "
                            f"({', '.join(f'seat {s}: {n}' for s, n in sorted(probe.refused_by_seat.items()))})")
    return [legality, attribution]


# -- information --------------------------------------------------------------------------


#: matches per table size the information check plays (each seat's private chance re-drawn in each)
INFO_MATCHES = 8
#: each seat's private chance is re-drawn whole, and then kept for its first N draws and re-drawn
#: after them: a hand alike but for its last cards plays on further where the seat's own moves
#: depend on its cards (a card game's), so the end of a match is compared too
KEEP_DRAWS = (0, 1, 2, 3, 5, 8)


class _Told:
    """What each seat was told, by what it knew then, over every match played:
    two different messages to one seat that knew the same are a leak."""

    def __init__(self) -> None:
        self.by_known: dict[tuple[int, int, int, str], tuple[bytes, str]] = {}
        self.messages = 0

    def add(self, seats: int, seat: int, nth: int, known: str, payload: bytes, where: str,
            hidden: int | None = None) -> str | None:
        """The ``nth`` message to ``seat`` since what it knows last changed."""
        self.messages += 1
        key = (seats, seat, nth, known)
        before = self.by_known.setdefault(key, (payload, where))
        if before[0] == payload:
            return None
        return (f"seat {seat} of {seats} was told {before[0].decode().strip()!r} ({before[1]}) and "
                f"{payload.decode().strip()!r} ({where}), knowing the same both times (known({seat}) = "
                f"{_short(known)}): the message tells the seat something it may not know"
                + (f" (what seat {seat} is told depends on seat {hidden}'s private chance)"
                   if hidden is not None and "re-drawn" not in before[1] else ""))


def _nths(sent: list[tuple[Any, ...]]) -> list[int]:
    """For each message ``(seat, payload, known, ...)``, how many its seat was
    sent since its ``known`` last changed: a game may tell a seat several
    things in a row with nothing new happening between them."""
    last: dict[int, tuple[str, int]] = {}
    out = []
    for s, _, known, *_ in sent:
        before, count = last.get(s, (None, -1))
        count = count + 1 if before == known else 0
        last[s] = (known, count)
        out.append(count)
    return out


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


class _Leak(Exception):
    """What a seat was told that it may not know, in words."""


@dataclass(slots=True)
class _Redraws:
    """The re-draws of the information check: how many, and how far they were compared."""

    private: set[int] = field(default_factory=set)
    replayed: int = 0
    compared: int = 0
    cut: int = 0


def _redraw(plugin: GamePlugin[Any], raw: dict[str, Any], seed: int, seats: int, steps: list[Step], hidden: int,
            salt: int, keep: int, told: _Told, tally: _Redraws) -> None:
    """The match of ``steps`` again with ``hidden``'s private chance re-drawn
    (kept for its first ``keep`` draws): every message it sends goes to
    ``told``, and until the reveal the other seats must know what they knew."""
    seen: list[tuple[int, bytes, str, bool]] = []

    def see(r: Any, exchange: Any) -> None:
        shown = hidden in _revealed(r, seats)
        for s, p in exchange.sends:
            known = known_of(r, s)
            assert known is not None  # check_information plays only a game whose run has known()
            seen.append((s, p, known, shown))

    _replay(plugin, raw, seed, steps, len(steps), None, {hidden: (salt, keep)}, see, seats)
    tally.replayed += 1
    original = [(s, p, step.known[s], hidden in step.revealed) for step in steps for s, p in step.sends]
    tally.cut += len(seen) < len(original)
    where = (f"seed {seed} with seat {hidden}'s private chance re-drawn"
             f"{f' after its first {keep} draws' if keep else ''}, message ")
    for n, (s1, p1, k1, _), nth in zip(range(len(seen)), seen, _nths(seen)):
        leak = told.add(seats, s1, nth, k1, p1, where + str(n), hidden)
        if leak:
            raise _Leak(leak)
    for n, ((s0, _, k0, shown0), (s1, _, k1, shown1)) in enumerate(zip(original, seen)):
        # Once the game shows the re-drawn chance (or the match goes another way), the two
        # matches may differ in what the seats know: from there on they are compared by it.
        if s0 != s1 or shown0 or shown1:
            break
        if s0 == hidden:
            continue
        if k0 != k1:
            raise _Leak(f"{where}{n}: known({s0}) was {_short(k0)}, and {_short(k1)} after the re-draw, before the "
                        f"game revealed seat {hidden}'s private chance: what seat {s0} knows depends on seat "
                        f"{hidden}'s hidden chance")
        tally.compared += 1


def _information(plugin: GamePlugin[Any], raw: dict[str, Any], seats: int, m: int, told: _Told, tally: _Redraws) -> None:
    """One match's messages, and its re-drawn twins', held to what each seat knew (raises _Leak)."""
    seed = 3000 + m
    _, steps, watch = _record(plugin, raw, seed, seats=seats)
    sent = [(s, p, step.known[s]) for step in steps for s, p in step.sends]
    for n, (s, p, k), nth in zip(range(len(sent)), sent, _nths(sent)):
        leak = told.add(seats, s, nth, k, p, f"seed {seed}, message {n}")
        if leak:
            raise _Leak(leak)
    tally.private |= set(watch.asked)
    for hidden in sorted(watch.asked):
        for keep in KEEP_DRAWS:
            _redraw(plugin, raw, seed, seats, steps, hidden, m + 1, keep, told, tally)


def check_information(plugin: GamePlugin[Any]) -> Check:
    """Every message to a seat follows from what the seat may know
    (``known(seat)``), over whole matches at many seeds and every table
    size: a seat told two things knowing the same fails. And each seat's
    private chance re-drawn in turn: what the other seats know must not
    change until the game reveals it."""
    raw = dict(plugin.playthrough_matches[0][0])
    run, _ = _open(plugin, raw, 3000)
    if getattr(run, "known", None) is None:
        return Check("information", False, "cannot be checked: the game's dialogue run has no known(seat), what "
                     "the seat may know now (its own private chance and everything public, as OpenSpiel's "
                     "information state); add it, and check-game holds every message to it")
    told, tally = _Told(), _Redraws()
    tables = seat_counts(plugin, raw)
    try:
        for seats in tables:
            for m in range(INFO_MATCHES):
                _information(plugin, raw, seats, m, told, tally)
    except _Leak as leak:
        return Check("information", False, str(leak))
    chance = (f"each seat's private chance ({sorted(tally.private)}) re-drawn in {tally.replayed} replays, "
              f"{tally.compared} messages compared"
              + (f" ({tally.cut} replays cut short where the re-drawn match refused a recorded reply)"
                 if tally.cut else "")
              if tally.private else "no chance private to a seat is drawn (protocols.private_chance)")
    return Check("information", True, f"{told.messages} messages in {INFO_MATCHES * len(tables)} matches at "
                 f"{'/'.join(map(str, tables))} seats each followed from what its seat knew; {chance}")


# -- parameters ---------------------------------------------------------------------------


def _bounds(info: Any) -> tuple[Any, Any]:
    low = high = None
    for item in info.metadata:
        for name, side in (("ge", "low"), ("gt", "low"), ("le", "high"), ("lt", "high")):
            value = getattr(item, name, None)
            if value is None:
                continue
            if side == "low":
                low = value if name == "ge" else (value + 1 if isinstance(value, int) else math.nextafter(value, math.inf))
            else:
                high = value if name == "le" else (value - 1 if isinstance(value, int) else math.nextafter(value, -math.inf))
    return low, high


def _numeric(info: Any) -> bool:
    return info.annotation in (int, float)


def check_parameters(plugin: GamePlugin[Any]) -> Check:
    """Every numeric parameter has both bounds, and a match starts and plays
    (up to EXTREME_STEPS exchanges) at each."""
    problems: list[str] = []
    played = 0
    for name, info in plugin.Params.model_fields.items():
        if not _numeric(info):
            continue
        low, high = _bounds(info)
        missing = [side for side, v in (("lower", low), ("upper", high)) if v is None]
        if missing:
            problems.append(f"parameter {name!r} has no {' and no '.join(missing)} bound: give its Field ge= and "
                            f"le= so that a value the game cannot play is refused before any bot starts")
            continue
        for value in (low, high):
            raw = {**dict(plugin.playthrough_matches[0][0]), name: value}
            try:
                run, _ = _open(plugin, raw, 7)
            except (UsageError, ValueError):
                continue  # the game refuses this combination in words: fine
            except Exception as exc:
                problems.append(f"{name}={value}: opening a match raised {type(exc).__name__}: {exc}")
                continue
            problem = _play_briefly(plugin, run)
            if problem:
                problems.append(f"{name}={value} (an end of its range): {problem}")
            played += 1
    idle = _ignored_parameters(plugin)
    problems.extend(idle)
    if problems:
        return Check("parameters", False, problems[0], problems[1:])
    return Check("parameters", True, f"every numeric parameter has bounds; {played} matches started at them; "
                 "changing any parameter changes the play")


#: matches (seeds) a changed parameter is played in before it is called ignored
IGNORED_SEEDS = 4


def _other_values(info: Any, default: Any) -> list[Any]:
    """Values of a parameter other than ``default`` worth trying: the ends of a
    number's range, the other side of a flag, the other members of a choice."""
    import typing

    if info.annotation is bool:
        return [not default]
    args = typing.get_args(info.annotation)
    if typing.get_origin(info.annotation) is typing.Literal:
        return [a for a in args if a != default]
    if _numeric(info):
        low, high = _bounds(info)
        return [v for v in dict.fromkeys((low, high)) if v is not None and v != default]
    return []


def _play_record(plugin: GamePlugin[Any], raw: dict[str, Any], seed: int) -> list[Any] | None:
    """What a match of ``raw`` does with random legal replies: every message
    (a JSON message's echo of the parameters left out) and the outcome, up
    to EXTREME_STEPS exchanges; None when ``raw`` cannot be played."""
    try:
        run, _ = _open(plugin, raw, seed)
    except Exception:
        return None
    rng = random.Random(seed)
    seen: list[Any] = []

    def told(n: int, exchange: Any) -> None:
        for seat, payload in exchange.sends:
            try:
                message = json.loads(payload)
                if isinstance(message, dict):
                    message.pop("params", None)
                seen.append((seat, json.dumps(message, sort_keys=True)))
            except ValueError:
                seen.append((seat, payload))

    def answer(n: int, seat: int, payload: bytes) -> str:
        reply = plugin.random_reply(run, seat, payload, rng)
        seen.append((seat, reply))
        return reply

    try:
        outcome = step_through(run, plugin.spec.id, answer, on_exchange=told, limit=EXTREME_STEPS,
                               seconds=CHECK_STEP_SECONDS)
    except Exception:
        return None
    if outcome is not None:
        seen.append(("outcome", list(outcome.payoffs), outcome.hands))
    return seen


def _ignored_parameters(plugin: GamePlugin[Any]) -> list[str]:
    """A parameter whose other values play exactly as its default, over
    IGNORED_SEEDS matches, is accepted and ignored: named."""
    base = dict(plugin.playthrough_matches[0][0])
    problems = []
    defaults = game_params(plugin, base, keys=True).model_dump()
    plays = {seed: _play_record(plugin, base, seed) for seed in range(8000, 8000 + IGNORED_SEEDS)}
    if any(v is None for v in plays.values()):
        return []  # the plain play fails: other checks say why
    for name, info in plugin.Params.model_fields.items():
        others = _other_values(info, defaults.get(name))
        tried, same = [], True
        for value in others:
            got = {seed: _play_record(plugin, {**base, name: value}, seed) for seed in plays}
            if any(g is None for g in got.values()):
                continue  # refused with these parameters, or plays no match: not a comparison
            tried.append(value)
            same = same and got == plays
        if tried and same:
            problems.append(f"parameter {name!r} changes nothing: set to {', '.join(map(repr, tried))} instead of "
                            f"{defaults.get(name)!r}, {IGNORED_SEEDS} matches played message for message as "
                            "before; use it, or remove it")
    return problems


def _play_briefly(plugin: GamePlugin[Any], run: Any, steps: int | None = EXTREME_STEPS) -> str | None:
    """Random legal play for ``steps`` exchanges (None: to the end); what went wrong, in words."""
    rng = random.Random(7)
    try:
        step_through(run, plugin.spec.id, lambda n, s, p: plugin.random_reply(run, s, p, rng), limit=steps,
                     seconds=CHECK_STEP_SECONDS)
    except ProtocolError as exc:
        return f"a legal random reply was refused and seat {exc.seat} charged: {exc}"
    except Exception as exc:
        return f"the match raised {type(exc).__name__}: {exc}"
    return None


# -- seat views ---------------------------------------------------------------------------


def check_seat_views(plugin: GamePlugin[Any]) -> Check:
    """The game's own seat view: at every decision of random matches it
    names the choices (or answers for the person), and the replies the
    game's ``random_reply`` makes are among them."""
    if not has_own_view(plugin):
        return Check("seat views", False, "the game has no seat view of its own: a person in a seat is shown raw "
                     "protocol lines, and no check can tell its legal choices; define GamePlugin.seat_view(params, "
                     "seat), a protocols.seatview.SeatView that tells what the seat sees in words and names the "
                     "choices of each decision (docs/games.md, 'Seat views')")
    models = _reply_models(plugin)
    raw = dict(plugin.playthrough_matches[0][0])
    decisions = words = 0
    for seats in seat_counts(plugin, raw):
        for m in range(MATCHES):
            seed = 4000 + m
            try:
                _, steps, _ = _record(plugin, raw, seed, seats=seats)
            except ViewError as exc:
                return Check("seat views", False, f"seed {seed}, {seats} seats: {exc}")
            for n, step in enumerate(steps):
                for (seat, payload), reply in zip(step.sends, step.replies):
                    offer = step.offers.get(seat)
                    told = payload.decode().strip()
                    if offer is None:
                        return Check("seat views", False, f"seed {seed}, {seats} seats: seat {seat} was asked to "
                                     f"reply to {told!r}, but its seat view named no choice (Turn.choices, or "
                                     "Turn.auto for a reply the view makes itself)")
                    decisions += 1
                    words += len(offer.replies)
                    canonical = {_canonical(line, models) for line in offer.replies}
                    if offer.complete and _canonical(reply, models) not in canonical:
                        return Check("seat views", False, f"seed {seed}, {seats} seats: seat {seat} was asked to "
                                     f"reply to {told!r}; the game's random_reply chose {reply!r}, which none of "
                                     f"the seat view's choices makes ({'/'.join(offer.replies.values())}): "
                                     "the view hides a legal choice")
    return Check("seat views", True, f"{decisions} decisions: each named its choices ({words} in all), and every "
                 "reply the game chose was one of them")


# -- invariants ---------------------------------------------------------------------------

#: random matches per table size the invariants are checked in
INVARIANT_MATCHES = 10
INVARIANTS = {"zero_sum": "the payoffs add up to zero", "constant_sum": "the payoffs add up to one total"}


def check_invariants(plugin: GamePlugin[Any]) -> Check:
    """What the game declares always holds of its payoffs (``invariants``),
    checked at the end of random matches at every table size."""
    raw = dict(plugin.playthrough_matches[0][0])
    params = game_params(plugin, raw, keys=True)
    declared = plugin.invariants(params)
    if declared is None:
        return Check("invariants", False, "not declared: GamePlugin.invariants(params) returns None; return "
                     "('zero_sum',) when the payoffs always add up to zero, ('constant_sum',) when always to "
                     "one total, or () when neither holds")
    unknown = [x for x in declared if x not in INVARIANTS]
    if unknown:
        return Check("invariants", False, f"invariants names {unknown[0]!r}, which check-game does not know "
                     f"(it knows {', '.join(INVARIANTS)})")
    if not declared:
        return Check("invariants", True, "the game declares that its payoffs keep no sum (invariants: ())")
    checked = 0
    total: float | None = 0.0 if "zero_sum" in declared else None
    for seats in seat_counts(plugin, raw):
        for m in range(INVARIANT_MATCHES):
            seed = 5000 + m
            run, _ = _open(plugin, raw, seed, seats=seats)
            rng = random.Random(seed)
            outcome = step_through(run, plugin.spec.id, lambda n, s, p: plugin.random_reply(run, s, p, rng),
                                   seconds=CHECK_STEP_SECONDS)
            assert outcome is not None  # played to its end: no limit
            payoffs = list(outcome.payoffs)
            checked += 1
            got = float(sum(payoffs))
            if total is None:
                total = got
            if abs(got - total) > 1e-9 * max(1.0, abs(total)):
                which = "zero_sum" if "zero_sum" in declared else "constant_sum"
                return Check("invariants", False, f"seed {seed}, {seats} seats: the payoffs {payoffs} add up to "
                             f"{got:g}, not {total:g}: the game declares {which} ({INVARIANTS[which]})")
    return Check("invariants", True, f"{', '.join(declared)} held in {checked} random matches")


# -- matches of a series ------------------------------------------------------------------


def check_match_indexes(plugin: GamePlugin[Any]) -> Check:
    """Matches opened as a tournament that keeps one process per entrant
    opens them (``--lifetime tournament``): ``match_index`` one number per
    seat, each seat's own count, different between seats."""
    raw = dict(plugin.playthrough_matches[0][0])
    played = 0
    for seats in seat_counts(plugin, raw):
        for m in range(3):
            index = [(m * 7 + 3 * s) % 11 for s in range(seats)]
            try:
                run, _ = _open(plugin, raw, 6000 + m, seats=seats, match_index=index)
            except Exception as exc:
                return Check("match indexes", False, f"opening a match with match_index {index} (one number per "
                             f"seat, as --lifetime tournament gives) raised {type(exc).__name__}: {exc}")
            problem = _play_briefly(plugin, run, steps=None)
            if problem:
                if Guarded.failed is not None and Guarded.failed.__cause__ is not None:
                    # It raised (a spin has no cause), and only on per-seat indexes: the other
                    # checks, with one index, can still run.
                    Guarded.failed = None
                return Check("match indexes", False, f"a match with match_index {index} (one number per seat, as "
                             f"--lifetime tournament gives): {problem}")
            played += 1
    return Check("match indexes", True, f"{played} matches with one match_index per seat played to their end")
