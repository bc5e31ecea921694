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
from dataclasses import dataclass, field
from typing import Any

from protocols import GamePlugin, ProtocolError
from protocols._contract import REDRAW_ATTRIBUTE
from protocols.jsonlines import Reply

from .._checks import UsageError, game_params
from .._seeds import chance_stream
from ..play._guard import Guarded
from ._check import CHECK_STEP_SECONDS, Check, largest_table as _seats

#: matches each check replays (seeds 2000...)
MATCHES = 3
#: decision points probed per match, spread over it
DECISIONS = 6
#: replies tried at each probed decision point
CANDIDATES = 8
#: the longest play at a parameter's extreme, in exchanges (a bound of a
#: million rounds is checked by starting it, not by playing it out)
EXTREME_STEPS = 300


def _open(plugin: GamePlugin, raw: dict[str, Any], seed: int, redraw: dict[int, int] | None = None) -> Any:
    params = game_params(plugin, raw, keys=True)
    names = [chr(ord("a") + i) for i in range(_seats(plugin, params))]
    rng = chance_stream(seed)
    setattr(rng, REDRAW_ATTRIBUTE, _Watch(redraw or {}))
    return plugin.open_dialogue(params, rng, names, 0), rng


class _Watch(dict):
    """The re-draw table, noting which seats' private chance the game asked for."""

    def __init__(self, table: dict[int, int]) -> None:
        super().__init__(table)
        self.asked: set[int] = set()

    def get(self, seat: Any, default: Any = None) -> Any:
        self.asked.add(seat)
        return super().get(seat, default)


@dataclass(slots=True)
class Step:
    """One yield of a dialogue: what it sent, and the replies it was given."""

    sends: list[tuple[int, bytes]]
    asks: bool
    replies: list[str] = field(default_factory=list)
    revealed: frozenset[int] = frozenset()


def _revealed(run: Any, seats: int) -> frozenset[int]:
    method = getattr(run, "revealed", None)
    return frozenset(s for s in range(seats) if method is not None and method(s))


def _record(plugin: GamePlugin, raw: dict[str, Any], seed: int,
            at_decision: Any = None) -> tuple[Any, list[Step], Any]:
    """A match with random legal replies: its steps, and the chance stream's
    re-draw table. ``at_decision(run, step_index, seat, payload)`` is called
    at every reply asked for, before it is chosen."""
    run, rng = _open(plugin, raw, seed)
    seats = len(getattr(run, "names", None) or []) or _seats(plugin, game_params(plugin, raw, keys=True))
    choose = random.Random(seed)
    gen = Guarded(run, plugin.spec.id, CHECK_STEP_SECONDS)
    steps: list[Step] = []
    replies: list[str] | None = None
    try:
        while True:
            exchange = gen.send(replies)
            if exchange.fault is not None:
                raise exchange.fault
            step = Step(list(exchange.sends), exchange.reply, revealed=_revealed(run, seats))
            if exchange.reply:
                for seat, payload in exchange.sends:
                    if at_decision is not None:
                        at_decision(run, len(steps), seat, payload)
                    step.replies.append(plugin.random_reply(run, seat, payload, choose))
            steps.append(step)
            replies = list(step.replies)
    except StopIteration:
        pass
    return run, steps, getattr(rng, REDRAW_ATTRIBUTE)


def _replay(plugin: GamePlugin, raw: dict[str, Any], seed: int, steps: list[Step], upto: int,
            last: list[str] | None = None, redraw: dict[int, int] | None = None,
            watch: Any = None) -> tuple[str, Any]:
    """Play ``steps[:upto]`` again with their recorded replies, then give the
    dialogue ``last`` (if any) as the replies of step ``upto``. Returns
    ``("accepted", None)``, ``("refused", ProtocolError)``,
    ``("ended", None)`` or ``("raised", exception)``. ``watch(run, step)`` sees
    every step of the replay as it is yielded."""
    run, _ = _open(plugin, raw, seed, redraw)
    gen = Guarded(run, plugin.spec.id, CHECK_STEP_SECONDS)
    replies: list[str] | None = None
    try:
        for n in range(upto + (last is not None) + 1):
            exchange = gen.send(replies)
            if exchange.fault is not None:
                return "refused", exchange.fault
            if n == upto + (last is not None):
                return "accepted", None
            if watch is not None:
                watch(run, exchange)
            replies = list(last) if (last is not None and n == upto) else list(steps[n].replies)
    except StopIteration:
        return ("accepted" if last is not None else "ended"), None
    except ProtocolError as exc:
        return "refused", exc
    except Exception as exc:  # a crash of the game is reported by the caller
        return "raised", exc
    return "accepted", None


# -- legality and attribution ------------------------------------------------------------


def _reply_models(plugin: GamePlugin) -> dict[str, type[Reply]]:
    out = {}
    for model in plugin.message_models:
        if isinstance(model, type) and issubclass(model, Reply):
            out[model.model_fields["type"].annotation.__args__[0]] = model
    return out


def _canonical(line: str, models: dict[str, type[Reply]]) -> str | None:
    """A reply as its model reads it (so spellings of one reply compare equal),
    or None when no reply model takes it."""
    try:
        data = json.loads(line)
        model = models[data["type"]] if models else None
        if model is None:
            return line.strip()
        return json.dumps(model.model_validate(data).model_dump(mode="json"), sort_keys=True)
    except Exception:
        return None


def _candidates(legal: list[str], models: dict[str, type[Reply]], rng: random.Random) -> list[str]:
    """Replies to try at one decision: some legal ones, and replies built
    from the reply schemas with field values near the legal ones (one off,
    swapped between legal replies, or a schema bound), most of them
    illegal here but well formed."""
    out = rng.sample(legal, min(len(legal), CANDIDATES // 4 or 1))
    if not models:
        return out + ["?"]
    pool: dict[str, set[Any]] = {}
    for line in legal:
        try:
            for key, value in json.loads(line).items():
                pool.setdefault(key, set()).add(json.dumps(value))
                if isinstance(value, int) and not isinstance(value, bool):
                    pool[key].update(json.dumps(value + d) for d in (-1, 1))
        except (ValueError, AttributeError):
            continue
    for type_name, model in sorted(models.items()):
        for key, prop in model.model_json_schema().get("properties", {}).items():
            values = pool.setdefault(key, set())
            for bound in ("minimum", "maximum"):
                if bound in prop:
                    values.add(json.dumps(prop[bound]))
            for value in prop.get("enum", []):
                values.add(json.dumps(value))
    tries = 0
    while len(out) < CANDIDATES and tries < 50:
        tries += 1
        type_name = rng.choice(sorted(models))
        fields = [k for k in models[type_name].model_fields if k != "type"]
        reply = {"type": type_name}
        for key in fields:
            if pool.get(key):
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


def _probe_legality(plugin: GamePlugin) -> _Probe | None:
    """Try replies at decision points of a few matches; None when the game
    gives no legal set."""
    models = _reply_models(plugin)
    probe = _Probe()
    raw = dict(plugin.playthrough_matches[0][0])
    for m in range(MATCHES):
        seed = 2000 + m
        legal_at: dict[tuple[int, int], list[str]] = {}

        def note(run: Any, step: int, seat: int, payload: bytes) -> None:
            legal = plugin.legal_replies(run, seat, payload)
            if legal is not None:
                legal_at[(step, seat)] = list(legal)

        _, steps, _ = _record(plugin, raw, seed, note)
        if not legal_at:
            if m == 0:
                return None
            continue
        rng = random.Random(seed)
        asked = sorted(legal_at)
        picks = asked if len(asked) <= DECISIONS else [asked[i * len(asked) // DECISIONS] for i in range(DECISIONS)]
        # every seat is probed at least once, wherever it is first asked
        for seat in {s for _, s in asked} - {s for _, s in picks}:
            picks.append(next(k for k in asked if k[1] == seat))
        for step_no, seat in picks:
            probe.decisions += 1
            step = steps[step_no]
            index = [s for s, _ in step.sends].index(seat)
            payload = step.sends[index][1]
            legal = {_canonical(line, models) for line in legal_at[(step_no, seat)]}
            if None in legal:
                probe.legality = (f"seed {seed}: legal_replies gives a reply for seat {seat} that its own reply "
                                  f"models refuse (to {payload.decode().strip()!r})")
                return probe
            for line in [*_candidates(legal_at[(step_no, seat)], models, rng), "not a reply"]:
                probe.tried += 1
                replies = list(step.replies)
                replies[index] = line
                outcome, error = _replay(plugin, raw, seed, steps, step_no, replies)
                is_legal = _canonical(line, models) in legal
                told = payload.decode().strip()
                if outcome == "raised":
                    probe.legality = (f"seed {seed}: seat {seat} replied {line!r} to {told!r} and the game raised "
                                      f"{type(error).__name__}: {error}, not a ProtocolError")
                    return probe
                if outcome == "accepted" and not is_legal:
                    probe.legality = (f"seed {seed}: seat {seat} replied {line!r} to {told!r}; the engine's legal "
                                      "set (legal_replies) does not allow it, yet the dialogue accepted it")
                    return probe
                if outcome == "refused" and is_legal:
                    probe.legality = (f"seed {seed}: seat {seat} replied {line!r} to {told!r}; the engine's legal "
                                      f"set allows it, yet the dialogue refused it: {error}")
                    return probe
                if outcome == "refused":
                    if error.seat != seat and probe.attribution is None:
                        probe.attribution = (f"seed {seed}: seat {seat} replied {line!r} to {told!r}, and the fault "
                                             f"was charged to seat {error.seat} ({error.reason}): a bad reply is "
                                             "the fault of the seat that sent it")
                    probe.refused_by_seat[seat] = probe.refused_by_seat.get(seat, 0) + 1
    return probe


def check_legality_and_attribution(plugin: GamePlugin) -> list[Check]:
    try:
        probe = _probe_legality(plugin)
    except Exception as exc:
        failed = Check("legality", False, f"raised {type(exc).__name__}: {exc}")
        return [failed, Check("attribution", False, "not checked: the legality probe raised")]
    if probe is None:
        note = "not checked: the game gives no legal set (GamePlugin.legal_replies)"
        return [Check("legality", True, note), Check("attribution", True, note)]
    legality = (Check("legality", False, probe.legality) if probe.legality else
                Check("legality", True, f"{probe.tried} replies at {probe.decisions} decisions: the dialogue "
                      "accepted exactly those in the engine's legal set"))
    if probe.attribution:
        attribution = Check("attribution", False, probe.attribution)
    elif probe.legality:
        attribution = Check("attribution", False, "not fully checked: the legality probe stopped early")
    else:
        attribution = Check("attribution", True, "every refused reply was charged to the seat that sent it "
                            f"({', '.join(f'seat {s}: {n}' for s, n in sorted(probe.refused_by_seat.items()))})")
    return [legality, attribution]


# -- information --------------------------------------------------------------------------


def check_information(plugin: GamePlugin) -> Check:
    """Each seat's private chance re-drawn in turn: what every other seat is
    told must not change until the game reveals the re-drawn seat's chance."""
    raw = dict(plugin.playthrough_matches[0][0])
    compared = 0
    private: set[int] = set()
    for m in range(MATCHES):
        seed = 3000 + m
        run, steps, watch = _record(plugin, raw, seed)
        seats = len({s for step in steps for s, _ in step.sends})
        private |= set(watch.asked)
        for hidden in sorted(watch.asked):
            told: list[tuple[int, bytes, bool]] = []

            def see(r: Any, exchange: Any, hidden: int = hidden) -> None:
                shown = hidden in _revealed(r, seats)
                told.extend((s, p, shown) for s, p in exchange.sends)

            # the replay stops at the first reply the re-drawn match refuses:
            # what follows is another match, and compared no further
            _replay(plugin, raw, seed, steps, len(steps), None, {hidden: m}, see)
            original = [(s, p, hidden in step.revealed) for step in steps for s, p in step.sends]
            for (s0, p0, shown0), (s1, p1, shown1) in zip(original, told):
                if shown0 or shown1:
                    break
                if s0 != s1:
                    break
                if s0 != hidden and p0 != p1:
                    return Check("information", False,
                                 f"seed {seed}: seat {s0} was told {p0.decode().strip()!r}, but "
                                 f"{p1.decode().strip()!r} when seat {hidden}'s private chance was re-drawn, "
                                 f"before the game revealed it: what seat {s0} is told depends on seat "
                                 f"{hidden}'s hidden chance")
                compared += s0 != hidden
    if not private:
        return Check("information", True, "not checked: the game draws no chance private to a seat "
                     "(protocols.private_chance)")
    return Check("information", True, f"seats {sorted(private)} re-drawn in turn: {compared} messages to the "
                 "other seats unchanged until the game revealed them")


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


def check_parameters(plugin: GamePlugin) -> Check:
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
    if problems:
        return Check("parameters", False, problems[0], problems[1:])
    return Check("parameters", True, f"every numeric parameter has bounds; {played} matches started at them")


def _play_briefly(plugin: GamePlugin, run: Any) -> str | None:
    rng = random.Random(7)
    gen = Guarded(run, plugin.spec.id, CHECK_STEP_SECONDS)
    replies: list[str] | None = None
    try:
        for _ in range(EXTREME_STEPS):
            exchange = gen.send(replies)
            if exchange.fault is not None:
                raise exchange.fault
            replies = [plugin.random_reply(run, s, p, rng) for s, p in exchange.sends] if exchange.reply else []
    except StopIteration:
        return None
    except ProtocolError as exc:
        return f"a legal random reply was refused and seat {exc.seat} charged: {exc}"
    except Exception as exc:
        return f"the match raised {type(exc).__name__}: {exc}"
    return None
