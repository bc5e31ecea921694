"""Conformance checks of a game plugin (``arena check-game GAME``).

Like OpenSpiel's API test, these drive the game's dialogue in-process, with
no bot processes: random legal replies (from the plugin's ``random_reply``)
and random bad ones. The contract they hold a game to:

* a match with legal replies ends with an outcome, never an error;
* a bad reply ends the match with a ``ProtocolError`` naming the seat that
  sent it, or is accepted; never any other exception;
* the same seed gives the same transcript;
* every JSON message and reply validates against the schema the game
  publishes (``message_models``);
* the golden playthrough exists and is reproduced line for line;
* there is a rules page naming the fields of every message, and only
  those; every parameter has a default and a description;
* a seat that faults never scores more than it would have by playing on,
  by the game's own fault rule;
* the payoffs keep the invariants the game declares (``_soundness``, as
  are the rest);
* matches play with one ``match_index`` per seat;
* the seat view names the choices of every decision, the game's own
  replies among them;
* every numeric parameter has bounds, a match plays at each, and every
  parameter changes the play;
* every message to a seat follows from what the seat may know
  (``known``), and nothing a seat knows depends on another seat's private
  chance before the game reveals it;
* the dialogue accepts a reply exactly when it is a legal choice (the seat
  view's, and the engine's legal set), and charges every refused reply to
  the seat that sent it.

A check that cannot run because the game lacks what it needs is a failure
that says what to add, never a pass.
"""

from __future__ import annotations

import json
import math
import random
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from protocols import GamePlugin, ProtocolError
from protocols.jsonlines import Reply

from .._checks import UsageError
from .._scoring import forfeit_scores, tournament_scores
from ..play._guard import GameError, Guarded
from ..play._stepping import step_through
from . import _soundness
from ._check import CHECK_STEP_SECONDS, Check, message_type

#: random matches played by each of the legal and the illegal checks
MATCHES = 20
#: chance that one reply of an exchange is replaced by a bad one
BAD_REPLY_CHANCE = 0.05


# -- driving a dialogue in-process ------------------------------------------------


Answer = Callable[[Any, int, bytes], str]


def _open(plugin: GamePlugin[Any], raw: dict[str, Any], seed: int) -> Any:
    return _soundness.open_checked(plugin, raw, seed)[0]


def drive(run: Any, answer: Answer, sink: Callable[[str], None],
          on_fault: Callable[[ProtocolError], None] | None = None, game: str = "under check",
          note: Callable[[Any], None] | None = None) -> Any:
    """Play ``run``'s dialogue to its end; ``sink`` gets every wire line
    (``seat -> line`` sent, ``seat <- line`` replied), and ``note(run)`` sees
    the run at each exchange. Returns the outcome. A fault the dialogue
    reports and plays on after (``Exchange.fault``) goes to ``on_fault``, or is
    raised when there is none. The game's own code is bounded
    (``CHECK_STEP_SECONDS`` a step): a game that spins or raises is a
    ``GameError`` naming ``game``, reported by the check that drove it."""

    def sent(seat: int, payload: bytes) -> None:
        for line in payload.decode().splitlines():
            sink(f"{seat} -> {line}")

    def seen(n: int, exchange: Any) -> None:
        if note is not None:
            note(run)
        if not exchange.reply:  # a notification: its lines now (a request's go with each reply)
            for seat, payload in exchange.sends:
                sent(seat, payload)

    def replied(n: int, seat: int, payload: bytes) -> str:
        sent(seat, payload)
        reply = answer(run, seat, payload)
        sink(f"{seat} <- {reply}")
        return reply

    return step_through(run, game, replied, on_exchange=seen, on_fault=on_fault, seconds=CHECK_STEP_SECONDS)


def playthrough(plugin: GamePlugin[Any]) -> list[str]:
    """The game's golden transcript: each of ``playthrough_matches`` with
    random legal replies drawn from the match's own seed."""
    lines: list[str] = []
    total = len(plugin.playthrough_matches)
    for n, (raw, seed) in enumerate(plugin.playthrough_matches, 1):
        run = _open(plugin, dict(raw), seed)
        rng = random.Random(seed)
        # (no parameters here: a file path among them would tie the golden to one checkout)
        lines.append(f"# {plugin.spec.id} playthrough {n} of {total}, seed {seed}")
        outcome = drive(run, lambda r, seat, payload: plugin.random_reply(r, seat, payload, rng), lines.append,
                        game=plugin.spec.id)
        lines.append(f"# payoffs {outcome.payoffs} after {outcome.hands} hands; scores {run.scores()}")
    return lines


def _against_reference(plugin: GamePlugin[Any]) -> Check | None:
    """Where a game keeps no golden file but checks a match against its rules' library
    (``GamePlugin.against_reference``): the playthrough matches, checked so. None: no such check."""
    lines = 0
    for raw, seed in plugin.playthrough_matches:
        run = _open(plugin, dict(raw), seed)
        rng = random.Random(seed)
        sent: list[tuple[int, str]] = []

        def keep(line: str) -> None:
            seat, direction, text = line.split(" ", 2)
            if direction == "->":
                sent.append((int(seat), text))

        drive(run, lambda r, seat, payload: plugin.random_reply(r, seat, payload, rng), keep, game=plugin.spec.id)
        why = plugin.against_reference(run, sent)
        if why is NotImplemented:
            return None
        if why is not None:
            return Check("golden playthrough", False, f"no golden file kept for {plugin.spec.id}, and its playthrough "
                         f"(seed {seed}) disagrees with its rules' library: {why}")
        lines += len(sent)
    return Check("golden playthrough", True, f"no golden file kept for {plugin.spec.id}: its playthrough "
                 f"({lines} lines sent) agrees, state by state, with its rules' library itself")


# -- the checks ------------------------------------------------------------------------


def check_game(plugin: GamePlugin[Any]) -> list[Check]:
    """Every check, in order; each one runs even if an earlier one failed."""
    checks: list[Callable[[GamePlugin[Any]], Check | list[Check]]] = [
              _check_contract, _check_rules, _check_golden, _check_determinism,
              _check_legal_play, _check_bad_replies, _check_fault_never_pays, _check_schemas,
              _soundness.check_invariants, _soundness.check_match_indexes, _soundness.check_seat_views,
              _soundness.check_parameters, _soundness.check_information,
              _soundness.check_legality_and_attribution]
    results: list[Check] = []
    for n, check in enumerate(checks):
        name = _name(check)
        Guarded.failed = None
        try:
            got = check(plugin)
            results.extend(got if isinstance(got, list) else [got])
        except Exception as exc:  # a broken game must be reported, not crash the checker
            results.append(Check(name, False, f"raised {type(exc).__name__}: {exc}",
                                 traceback.format_exc().splitlines()[-8:]))
        if Guarded.failed is not None:
            # Its own code failed (raised, spun, or asked nobody anything for ever): every check
            # left would play it into the same failure; none of them can run.
            error = Guarded.failed
            if results[-1].ok or str(error) not in results[-1].summary:
                results.append(Check(name, False, str(error)))
            for rest in checks[n + 1:]:
                results.append(Check(_name(rest), False,
                                     f"not run: the game's own code failed in the '{name}' check ({error.what})"))
            break
    return results


def _name(check: Any) -> str:
    return check.__name__.removeprefix("_check_").removeprefix("check_").replace("_", " ")


def _check_contract(plugin: GamePlugin[Any]) -> Check:
    problems = []
    spec = plugin.spec
    if not 1 <= spec.min_seats <= spec.max_seats:
        problems.append(f"seats {spec.min_seats}..{spec.max_seats} is not a range")
    fields = plugin.Params.model_fields
    for name, info in fields.items():
        if info.is_required():
            problems.append(f"parameter {name!r} has no default")
        if not info.description:
            problems.append(f"parameter {name!r} has no description")
    try:
        plugin.Params()
    except Exception as exc:
        problems.append(f"the default parameters are not valid: {exc}")
    if plugin.max_reply_bytes < 16:
        problems.append(f"max_reply_bytes {plugin.max_reply_bytes} is too small for any reply")
    if plugin.default_lifetime not in ("match", "tournament"):
        problems.append(f"default_lifetime {plugin.default_lifetime!r} is not 'match' or 'tournament'")
    if plugin.default_lifetime == "tournament" and not plugin.reusable_processes:
        problems.append("default_lifetime 'tournament' needs reusable_processes")
    opponents = plugin.reference_opponents()
    if opponents is not None and not Path(opponents).is_file():
        problems.append(f"reference_opponents() names {opponents}, which does not exist")
    if problems:
        return Check("contract", False, problems[0], problems[1:])
    where = "none (quarantine needs --opponents)" if opponents is None else str(opponents)
    return Check("contract", True, f"{len(fields)} parameters, each with a default and a description; "
                 f"seats {spec.min_seats}..{spec.max_seats}; reference opponents: {where}")


def _check_rules(plugin: GamePlugin[Any]) -> Check:
    text = (plugin.rules or "").strip()
    if len(text.split()) < 20:
        return Check("rules page", False, f"the plugin's rules page has {len(text.split())} words; "
                     "write the rules a bot author needs in `rules`")
    problem = _rules_fields_problem(plugin, text)
    if problem:
        return Check("rules page", False, problem)
    own = _own_fields(plugin)
    said = f"; the {sum(len(f) for f in own.values())} fields of its messages and replies named on it" if own else ""
    return Check("rules page", True, f"{len(text.splitlines())} lines{said}")


def _fields(model: Any) -> set[str]:
    """The field names of a message model as the wire spells them (nested models' too)."""
    schema = model.model_json_schema(by_alias=True)
    names = set(schema.get("properties", {}))
    for sub in schema.get("$defs", {}).values():
        names |= set(sub.get("properties", {}))
    return names


def _own_fields(plugin: GamePlugin[Any]) -> dict[str, set[str]]:
    """The game's own message types (the framing's left out) -> their fields but ``type``."""
    from protocols.jsonlines import FRAMING_MODELS

    out = {}
    for model in plugin.message_models:
        if model in FRAMING_MODELS:
            continue
        type_name = message_type(model)
        out[type_name] = _fields(model) - {"type"}
    return out


def _rules_fields_problem(plugin: GamePlugin[Any], text: str) -> str | None:
    """A JSON game's rules page and its schemas must name the same fields:
    every field of the game's messages is on the page, and every key the
    page writes as JSON (``"name":``) is a field of some message."""
    if not plugin.message_models:
        return None
    import re

    for type_name, fields in sorted(_own_fields(plugin).items()):
        for name in sorted(fields):
            if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text):
                return (f"the field {name!r} of the message {type_name!r} is not on the rules page: a bot author "
                        "reading it would not know the field (name it where the message is described)")
    every = set().union(*(_fields(m) for m in plugin.message_models))
    for key in sorted(set(re.findall(r'"([A-Za-z_][\w-]*)"\s*:', text))):
        if key not in every:
            return (f"the rules page writes a field {key!r} that no message or reply of the game has (its "
                    f"schemas name {', '.join(sorted(every - {'type'}))}): the page and the wire disagree")
    return None


def _check_golden(plugin: GamePlugin[Any]) -> Check:
    path = plugin.playthrough_file()
    if path is None:
        found = _against_reference(plugin)
        if found is not None:
            return found
        return Check("golden playthrough", False, "playthrough_file() names no file")
    got = playthrough(plugin)
    path = Path(path)
    if not path.is_file():
        return Check("golden playthrough", False, f"{path} is missing; write it with "
                     f"`arena check-game {plugin.spec.id} --write-golden` and review it")
    want = path.read_text(encoding="utf-8").splitlines()
    for n, (a, b) in enumerate(zip(got, want), 1):
        if a != b:
            return Check("golden playthrough", False, f"{path} differs first at line {n}",
                         [f"golden: {b}", f"now:    {a}"])
    if len(got) != len(want):
        return Check("golden playthrough", False, f"{path} has {len(want)} lines, the game now gives {len(got)}")
    return Check("golden playthrough", True, f"{path} reproduced ({len(got)} lines)")


def _transcript(plugin: GamePlugin[Any], raw: dict[str, Any], seed: int) -> list[str]:
    lines: list[str] = []
    run = _open(plugin, raw, seed)
    rng = random.Random(seed)
    drive(run, lambda r, seat, payload: plugin.random_reply(r, seat, payload, rng), lines.append,
          game=plugin.spec.id)
    return lines


def _check_determinism(plugin: GamePlugin[Any]) -> Check:
    raw, _ = plugin.playthrough_matches[0]
    for seed in (1, 2):
        if _transcript(plugin, dict(raw), seed) != _transcript(plugin, dict(raw), seed):
            return Check("determinism", False, f"seed {seed} played twice gave two different transcripts")
    if _transcript(plugin, dict(raw), 1) == _transcript(plugin, dict(raw), 2):
        return Check("determinism", False, "seeds 1 and 2 gave the same transcript: is the seed used?")
    return Check("determinism", True, "the same seed gives the same transcript; other seeds differ")


def _random_matches(plugin: GamePlugin[Any]) -> Iterator[tuple[dict[str, Any], int]]:
    for i in range(MATCHES):
        raw, _ = plugin.playthrough_matches[i % len(plugin.playthrough_matches)]
        yield dict(raw), 1000 + i


def _check_legal_play(plugin: GamePlugin[Any]) -> Check:
    exchanges = 0
    for raw, seed in _random_matches(plugin):
        lines: list[str] = []
        run = _open(plugin, raw, seed)
        rng = random.Random(seed)
        try:
            outcome = drive(run, lambda r, s, p: plugin.random_reply(r, s, p, rng), lines.append,
                            game=plugin.spec.id)
        except ProtocolError as exc:
            return Check("random legal play", False, f"seed {seed}: a legal reply was refused: {exc}",
                         lines[-6:])
        exchanges += sum(1 for line in lines if " <- " in line)
        problem = _outcome_problem(plugin, run, outcome)
        if problem:
            return Check("random legal play", False, f"seed {seed}: {problem}")
    return Check("random legal play", True, f"{MATCHES} matches, {exchanges} replies, every one accepted")


def _outcome_problem(plugin: GamePlugin[Any], run: Any, outcome: Any) -> str | None:
    seats = len(outcome.payoffs)
    for name, values in (("payoffs", outcome.payoffs), ("scores()", run.scores())):
        if len(values) != seats or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in values):
            return f"{name} is not one finite number per seat: {values!r}"
    return None


def _bad_reply(legal: str, seen: list[str], rng: random.Random) -> str:
    """A reply that is probably wrong: garbage, a cut or padded legal one, or
    a legal reply to some other message."""
    choices = [
        "",
        "\x00\x01 nonsense",
        legal[: len(legal) // 2],
        legal + " trailing words",
        '{"type": "no_such_reply"}',
        "99999999999999999999999",
        "".join(rng.choice("{}[]\":,0123456789abcXYZ -") for _ in range(rng.randint(1, 40))),
        rng.choice(seen) if seen else "?",
    ]
    return rng.choice(choices)


def _check_bad_replies(plugin: GamePlugin[Any]) -> Check:
    faults = completed = 0
    for raw, seed in _random_matches(plugin):
        run = _open(plugin, raw, seed)
        rng = random.Random(seed)
        seen: list[str] = []
        spoiled: list[int] = []

        def answer(r: Any, seat: int, payload: bytes) -> str:
            legal = plugin.random_reply(r, seat, payload, rng)
            seen.append(legal)
            if not spoiled and rng.random() < BAD_REPLY_CHANCE:
                spoiled.append(seat)
                return _bad_reply(legal, seen, rng)
            return legal

        played_on: list[ProtocolError] = []
        try:
            outcome = drive(run, answer, lambda line: None, played_on.append, game=plugin.spec.id)
            if played_on:
                raise played_on[0]
        except ProtocolError as exc:
            if not spoiled or exc.seat != spoiled[0]:
                return Check("random bad replies", False, f"seed {seed}: seat {exc.seat} was faulted, but the "
                             f"bad reply came from {'no seat' if not spoiled else f'seat {spoiled[0]}'}: {exc}")
            if exc.kind not in ("malformed_reply", "illegal_action") or not exc.reason:
                return Check("random bad replies", False, f"seed {seed}: fault kind {exc.kind!r} "
                             "is not malformed_reply or illegal_action, or has no reason")
            problem = _forfeit_problem(run, exc.seat)
            if problem:
                return Check("random bad replies", False, f"seed {seed}: {problem}")
            faults += 1
            continue
        completed += 1
        problem = _outcome_problem(plugin, run, outcome)
        if problem:
            return Check("random bad replies", False, f"seed {seed}: {problem}")
    return Check("random bad replies", True, f"{MATCHES} matches: {faults} ended with a protocol fault "
                 f"on the seat that sent the bad reply, {completed} ran to their end")


def _check_fault_never_pays(plugin: GamePlugin[Any]) -> Check:
    """At every reply of random legal matches, what each asked seat would
    score by faulting there (the game's fault rule) is at most what the same
    play scores to the end: a bot can never cut its losses by faulting."""
    points = 0
    worst: tuple[float, str] | None = None
    own_rule = False
    for raw, seed in _random_matches(plugin):
        run = _open(plugin, raw, seed)
        rng = random.Random(seed)
        faulting: list[tuple[int, int, float]] = []  # (reply number, seat, score by faulting there)
        rule = getattr(run, "forfeit", None)
        own_rule = own_rule or rule is not None

        def before(n: int, exchange: Any) -> None:
            if exchange.reply:
                for seat in {s for s, _ in exchange.sends}:
                    # The game's own rule, as its rules page promises it (the arena's
                    # correction of a rule that pays would hide the game's mistake).
                    score = float(rule(seat)[seat]) if rule is not None else forfeit_scores(run, [seat])[seat]
                    faulting.append((len(faulting), seat, score))

        step_through(run, plugin.spec.id, lambda n, s, p: plugin.random_reply(run, s, p, rng), on_exchange=before,
                     seconds=CHECK_STEP_SECONDS)
        final = tournament_scores(run)
        points += len(faulting)
        for n, seat, score in faulting:
            gain = score - final[seat]
            if gain > 1e-9 and (worst is None or gain > worst[0]):
                whose = "by the game's fault rule (forfeit)" if rule is not None else \
                    "by the arena's fault rule (the game has no forfeit)"
                worst = (gain, f"seed {seed}: seat {seat} faulting at reply {n} scores {score:g} {whose}, "
                               f"playing on to the end {final[seat]:g}: a bot could cut its losses by faulting")
    if worst is not None:
        return Check("fault never pays", False, worst[1],
                     ["forfeit(seat) must give the faulting seat no more than the worst it could have had "
                      "by playing on legally: its score so far minus the most the rest of the match can cost",
                      "(in play the arena replaces a rule that pays more than the score so far by its own; "
                      "the rules page should say the rule that applies)"])
    whose = "the game's fault rule" if own_rule else "the arena's fault rule"
    return Check("fault never pays", True, f"{points} fault points in {MATCHES} random matches: by {whose}, none "
                 "scores more than playing on")


def _forfeit_problem(run: Any, seat: int) -> str | None:
    scores = list(run.scores())
    forfeit = getattr(run, "forfeit", None)
    if forfeit is None:
        return None
    after = list(forfeit(seat))
    if len(after) != len(scores) or not all(math.isfinite(v) for v in after):
        return f"forfeit({seat}) is not one finite number per seat: {after!r}"
    return None


def _check_schemas(plugin: GamePlugin[Any]) -> Check:
    models = getattr(plugin, "message_models", ())
    if not models:
        return Check("schemas", True, "a text protocol: no JSON messages to check")
    import jsonschema

    schemas = {}
    for model in models:
        type_name = message_type(model)
        kind = "reply" if issubclass(model, Reply) else "message"
        schemas[(kind, type_name)] = jsonschema.Draft202012Validator(model.model_json_schema())
    counts = {"message": 0, "reply": 0}
    for raw, seed in list(_random_matches(plugin))[:5]:
        for line in _transcript(plugin, raw, seed):
            seat, arrow, text = line.split(" ", 2)
            kind = "message" if arrow == "->" else "reply"
            obj = json.loads(text)
            validator = schemas.get((kind, obj.get("type")))
            if validator is None:
                return Check("schemas", False, f"seed {seed}: no schema for the {kind} type {obj.get('type')!r}",
                             [text])
            errors = sorted(validator.iter_errors(obj), key=str)
            if errors:
                return Check("schemas", False, f"seed {seed}: a {kind} breaks its schema: {errors[0].message}",
                             [text])
            counts[kind] += 1
    return Check("schemas", True, f"{counts['message']} messages and {counts['reply']} replies valid")


def write_golden(plugin: GamePlugin[Any]) -> Path:
    """Write the golden playthrough. ``UsageError``: the game names no file;
    ``ValueError``: a playthrough match did not play to its end (a reply its own
    ``random_reply`` chose was refused, or its code failed), in words; nothing written."""
    path = plugin.playthrough_file()
    if path is None:
        raise UsageError(f"{plugin.spec.id}'s playthrough_file() names no file to write")
    try:
        lines = playthrough(plugin)
    except ProtocolError as exc:
        raise ValueError(f"no golden playthrough written for {plugin.spec.id}: seat {exc.seat}'s reply, which the "
                         f"game's own random_reply chose, was refused ({exc.kind}: {exc.reason}; received "
                         f"{exc.received!r}, expected {exc.expected})") from None
    except GameError as exc:
        raise ValueError(f"no golden playthrough written for {plugin.spec.id}: {exc}") from None
    path = Path(path)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
