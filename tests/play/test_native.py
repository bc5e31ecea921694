"""The compiled loop and the pure-Python driver play the same matches.

``MatchSettings(native=True)`` (the default) lets a game's compiled loop
(``protocols/kuhn3_compiled.c``, driven by ``arena/play/_exchange.py``) play the
dialogue over the pipes while everything is regular, and hand the match back
to the Python dialogue mid-exchange at the first irregular thing;
``native=False`` is the pure-Python path. Both must give the same match:
per seat the same lines both ways, the same hands, bankrolls, scores and
faults. Only ``MatchSettings.native`` differs between the two runs, so these
tests hold whichever games have a compiled loop.

Real child processes over real pipes; the test bots' own sleeps only shape
their output (a reply in two writes, a slow reply), they never synchronise
the test.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import trio

from arena import BotSpec, MatchResult, MatchSettings, available_games, load_game, run_match
from arena._checks import game_params
from arena.quarantine._manifest import manifest_of
from arena import open_host
from arena.native import compiled_dialogue, fastloop
from protocols.kuhn3 import KUHN3_COMPILED

from ..conftest import PY, ROOT

KUHN3 = load_game("kuhn3")
K3_BOTS = ROOT / "sample_bots" / "kuhn3"
C_RULE = str(K3_BOTS / "build" / "rule_bot")
RS_RULE = str(K3_BOTS / "build" / "rule_bot_rs")
EQUILIBRIUM = f"env PYTHONHASHSEED=0 {PY} {K3_BOTS / 'equilibrium_bot.py'} --seed {{}}"
RANDOM = f"env PYTHONHASHSEED=0 {PY} {K3_BOTS / 'random_bot.py'} --seed {{}}"
CHECK_FOLD = f"env PYTHONHASHSEED=0 {PY} {K3_BOTS / 'check_fold_bot.py'}"

Transcripts = dict[int, list[tuple[str, str]]]


# -- playing a match both ways ------------------------------------------------------------


def play(plugin: Any, commands: list[str], params: Any, seed: int, native: bool,
         **settings: Any) -> tuple[MatchResult, Transcripts]:
    """One match with fresh processes; its result and each seat's wire lines in order."""
    events: list[tuple[int, str, str]] = []

    def recorder(seat: int, direction: str, text: str) -> None:
        events.append((seat, direction, text))

    specs = [BotSpec.parse(c) for c in commands]
    if "host" not in settings:  # these tests are about the exchange, not the sandbox
        with open_host("none") as host:
            return play(plugin, commands, params, seed, native, host=host, **settings)
    result = trio.run(run_match, plugin, specs, params, seed,
                      MatchSettings(native=native, trace=recorder, **settings))
    seats: Transcripts = {s: [] for s in range(len(specs))}
    for seat, direction, text in events:
        seats[seat].append((direction, text))
    return result, seats


def summary(result: MatchResult) -> dict[str, Any]:
    """What must not depend on the path (durations and times may)."""
    return {
        "hands": result.hands,
        "completed": result.completed,
        "exchanges": result.exchanges,
        "seats": [(s.seat, s.bot, s.payoff, s.score) for s in result.seats],
        "tournament_scores": result.tournament_scores,
        "forfeit_scores": result.forfeit_scores,
        "faults": [(str(f.kind), f.seat, f.detail, f.received, f.expected, f.hand) for f in result.faults],
    }


def first_difference(a: list, b: list) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"at line {i}: native {x!r} / pure {y!r}"
    return f"lengths: native {len(a)} / pure {len(b)}"


def assert_same_transcripts(native: Transcripts, pure: Transcripts, *, loose: set[int] = frozenset()) -> None:
    """Per seat, the same lines in the same order (the order across seats within
    one exchange may differ). A seat in ``loose`` (innocent, asked in the same
    exchange as a seat that faulted) may miss its last reply on one path: whether
    it was read before the fault was raised is a matter of timing on either path."""
    assert native.keys() == pure.keys()
    for seat in native:
        a, b = native[seat], pure[seat]
        if seat in loose and len(a) != len(b):
            longer, shorter = (a, b) if len(a) > len(b) else (b, a)
            if len(longer) == len(shorter) + 1 and longer[-1][0] == "<-":
                longer = longer[:-1]
            a, b = longer, shorter
        assert a == b, f"seat {seat}'s transcript differs {first_difference(a, b)}"


def both_ways(plugin: Any, commands: list[str], params: Any, seed: int, **settings: Any
              ) -> tuple[MatchResult, MatchResult, Transcripts, Transcripts]:
    native, native_lines = play(plugin, commands, params, seed, True, **settings)
    pure, pure_lines = play(plugin, commands, params, seed, False, **settings)
    assert pure.native_messages == 0
    assert pure.to_json()["native_messages"] == 0
    assert native.to_json()["native_messages"] == native.native_messages
    return native, pure, native_lines, pure_lines


def assert_same_match(native: MatchResult, pure: MatchResult, native_lines: Transcripts,
                      pure_lines: Transcripts) -> None:
    assert summary(native) == summary(pure)
    assert_same_transcripts(native_lines, pure_lines)


def test_the_compiled_loop_is_built_here():
    # CI installs gcc; without it every native test below would quietly be a pure one.
    assert fastloop() is not None, "arena.native.fastloop() is None: no C compiler, or ARENA_NATIVE=0?"
    assert compiled_dialogue(KUHN3_COMPILED) is not None, "kuhn3's compiled dialogue could not be built"


def test_the_compiled_state_layout_is_declared_once():
    """kuhn3's state crosses to C as the integers of KUHN3_COMPILED.layout: the
    C struct is generated from it (never written by hand), and the dialogue's
    state survives a round trip through it at every step of a real match."""
    source = KUHN3_COMPILED.source.read_text()
    assert re.search(r"}\s*K3State\s*;", source) is None, \
        "kuhn3_compiled.c declares its own state struct; it must come from the layout"
    header = KUHN3_COMPILED.header()
    assert f"}} K3State;" in header and f"#define K3STATE_INTS {KUHN3_COMPILED.size}" in header
    from arena._seeds import chance_stream

    dealer = KUHN3.open_dialogue(KUHN3.Params(hands=12), chance_stream(5), ["a", "b", "c"])
    rng = chance_stream("replies")
    gen = dealer.run()
    replies = None
    steps = set()
    while True:
        state = dealer.native_state()
        packed = KUHN3_COMPILED.pack(state)
        assert len(packed) == KUHN3_COMPILED.size
        assert KUHN3_COMPILED.unpack(packed) == state
        dealer.load_native_state(KUHN3_COMPILED.unpack(packed))
        assert dealer.native_state() == state
        steps.add(int(dealer.step))
        try:
            exchange = gen.send(replies)
        except StopIteration:
            break
        replies = ([KUHN3.random_reply(dealer, seat, payload, rng) for seat, payload in exchange.sends]
                   if exchange.reply else [])
    assert steps >= {int(s) for s in KUHN3_COMPILED.steps}


# -- 1. every registered game, its sample bots ----------------------------------------------

SEEDS = (3, 8, 21)


#: Python sample bots run as this interpreter (no launcher shim in front: those
#: cost ~0.1 s of CPU each) with a fixed hash seed: a bot that iterates over a
#: set of strings (sample_bots/rpsdraft/odds_bot.py sums floats in set order)
#: otherwise answers the same input differently from one process to the next.
PYBOT = ["env", "PYTHONHASHSEED=0", PY]


def cheap(command: str) -> str:
    """A sample bot's command, its Python started as ``PYBOT``: the same bot."""
    argv = shlex.split(command)
    if Path(argv[0]).name in ("python", "python3"):
        argv[0:1] = PYBOT
    elif argv[0].endswith(".py"):
        argv[0:0] = PYBOT
    return shlex.join(argv)


def lineups(game_id: str) -> tuple[Any, list[list[str]]]:
    """The game's smallest playthrough parameters, and for each seed a table of its
    reference opponents (the manifest it ships), rotated so all of them play."""
    plugin = load_game(game_id)
    manifest = manifest_of(plugin)  # a game without sample bots fails here, loudly
    params = game_params(plugin, dict(plugin.playthrough_matches[0][0]))
    seats = manifest.seats
    if seats is None:
        seats = next(n for n in range(plugin.spec.max_seats, plugin.spec.min_seats - 1, -1)
                     if _seats_ok(plugin, params, n))
    commands = [cheap(manifest.command(o)) for o in manifest.opponents]
    assert commands, f"{game_id}: no reference opponents"
    tables = [[commands[(i * seats + j) % len(commands)] for j in range(seats)] for i in range(len(SEEDS))]
    return params, tables


def _seats_ok(plugin: Any, params: Any, n: int) -> bool:
    try:
        plugin.check_seats(params, n)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("seed_index", range(len(SEEDS)), ids=[f"seed{s}" for s in SEEDS])
@pytest.mark.parametrize("game_id", sorted(available_games()))
def test_every_game_plays_the_same_match_both_ways(game_id, seed_index):
    plugin = load_game(game_id)
    params, tables = lineups(game_id)
    native, pure, nl, pl = both_ways(plugin, tables[seed_index], params, SEEDS[seed_index])
    assert native.completed and pure.completed, (native.faults, pure.faults)
    assert native.hands > 0
    assert_same_match(native, pure, nl, pl)


# -- 2. kuhn3: the compiled loop does play ----------------------------------------------------

KUHN3_LINEUPS = {
    "c": ([C_RULE, C_RULE, C_RULE], 300),
    "python": ([EQUILIBRIUM.format(1), RANDOM.format(2), CHECK_FOLD], 60),
    "mixed": ([RANDOM.format(5), C_RULE, EQUILIBRIUM.format(6)], 60),
    "mixed_rust": ([C_RULE, CHECK_FOLD, RS_RULE], 60),
}


@pytest.fixture
def patient():
    """A host whose native code waits for each reply up to its deadline, not
    only for the short sync wait before handing it to trio: how much of a
    match it plays then does not depend on how busy the machine is."""
    with open_host("none", sync_wait=60.0) as host:
        yield host


@pytest.mark.parametrize("lineup", sorted(KUHN3_LINEUPS))
def test_kuhn3_compiled_loop_plays_the_same_match(lineup, patient):
    commands, hands = KUHN3_LINEUPS[lineup]
    native, pure, nl, pl = both_ways(KUHN3, commands, KUHN3.Params(hands=hands), 13, host=patient)
    assert native.completed and native.hands == hands
    assert_same_match(native, pure, nl, pl)
    # Every message is the native code's but init_round's three (sent before
    # any bot has replied, which Python handles by design); without the
    # fixture, a reply slower than the sync wait would hand the rest of its
    # exchange to Python, which is correct, only slower.
    assert native.native_messages == native.exchanges - 3, (native.native_messages, native.exchanges)


def test_kuhn3_time_is_charged_on_the_native_path(patient):
    commands, _ = KUHN3_LINEUPS["c"]
    result, _ = play(KUHN3, commands, KUHN3.Params(hands=200), 4, True, budget=60.0, host=patient)
    assert result.completed and result.native_messages == result.exchanges - 3
    for seat in result.seats:
        assert 0 < seat.time_used < result.duration, (seat.seat, seat.time_used, result.duration)
        assert 0 < seat.slowest_reply <= seat.time_used


# -- a kuhn3 test bot: legal play, replies in chosen forms, faults on cue ----------------------

# Arguments: MODE@HANDS, e.g. "crlf@3,5" (every reply in hands 3 and 5) or,
# for a fault, "crash@3" (at its first chance in hand 3 or later).
KUHN3_BOT = r'''
import os, sys, time

out = sys.stdout.buffer
FAULTS = {"illegal", "garbage", "crash", "exit_mid", "close_stdout", "huge", "bad_utf8", "silent",
          "partial", "crash_init", "silent_init", "two_lines", "wrong_money"}
plan = {}
for arg in sys.argv[1:]:
    mode, _, hands = arg.partition("@")
    plan[mode] = [int(h) for h in hands.split(",")]
hand = -1


def on(mode):
    hands = plan.get(mode)
    if hands is None:
        return False
    if mode in FAULTS:
        return hand >= hands[0]
    return hand in hands


def raw(data):
    out.write(data)
    out.flush()


def wait_for_eof():  # stay alive and quiet until the arena closes our stdin
    for _ in sys.stdin:
        pass
    os._exit(0)


def send(text):
    if on("slow"):
        time.sleep(0.02)
    if on("space"):
        text += "  "
    data = (text + ("\r\n" if on("crlf") else "\n")).encode()
    if on("split"):
        half = len(data) // 2
        raw(data[:half])
        time.sleep(0.002)
        data = data[half:]
    raw(data)


def fault_at_play():
    if on("illegal"):
        raw(b"BET 3\n")
    elif on("garbage"):
        raw(b"lol what is this\n")
    elif on("huge"):
        raw(b"BET " + b"1" * 300 + b"\n")
    elif on("bad_utf8"):
        raw(b"BET \xff\xfe1\n")
    elif on("crash"):
        sys.stderr.write("Traceback: something went wrong in my bot\n")
        sys.stderr.flush()
        os._exit(3)
    elif on("exit_mid"):
        os._exit(0)
    elif on("close_stdout"):
        os.close(1)
        wait_for_eof()
    elif on("silent"):
        wait_for_eof()
    elif on("partial"):
        raw(b"BET")
        wait_for_eof()
    else:
        return False
    return True


def money_line(m):
    return "Money: " + (", " if on("money_spaces") else ",").join(map(str, m))


money = None
acts = []
phase = ""
card = ""
ends = 0
skip_money = False
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("Money:") and money is None:
        money = [int(x) for x in line[6:].split(",")]
    elif line.startswith("EndProb:"):
        send("READY")
    elif line.startswith("Hand:"):
        hand = int(line.split()[1])
    elif line.startswith("Cards:"):
        card = line.split()[1]
        if on("crash_init"):
            os._exit(3)
        if on("silent_init"):
            wait_for_eof()
        send("READY")
    elif line in ("play", "end_hand"):
        acts = []
        phase = line
    elif line.startswith("Action:"):
        acts.append(int(line.split()[-1]))
        if phase == "play" and len(acts) == 3 and not fault_at_play():
            mine, price = acts[0], max(acts)
            if card in ("K", "A") and price < 2:
                verb, amount = "BET", 2
            elif card == "J" and mine < price:
                verb, amount = "FOLD", mine
            else:
                verb, amount = "BET", price
            send(f"{verb} {'0' if on('zero') else ''}{amount}")
    elif line.startswith("Pots:"):
        for pot in line[5:].split():
            value, winner = map(int, pot.split(","))
            money[winner] += value
        for i in range(3):
            money[i] -= acts[i]
        ends = 0
        if on("two_lines"):
            raw(b"OK\nOK\n")
        elif on("pipeline"):  # the Money check before its EndAction lines: legal
            raw(f"OK\n{money_line(money)}\n".encode())
            skip_money = True
        else:
            send("REBUY" if on("rebuy") else "OK")
    elif line.startswith("EndAction:"):
        ends += 1
        if ends == 3:
            if skip_money:
                skip_money = False
            else:
                m = list(money)
                if on("wrong_money"):
                    m[0] += 1
                send(money_line(m))
    elif line.startswith("NumHands:"):
        send("Thank you dealer, have a nice day!")
'''


@pytest.fixture(scope="module")
def kuhn3_bot(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("native") / "kuhn3_test_bot.py"
    path.write_text(KUHN3_BOT)
    return path


def bot_command(path: Path, *modes: str) -> str:
    # -S: no site import; the bot needs the standard library only, and starts in ~10 ms
    return shlex.join([PY, "-S", str(path), *modes])


# -- 3. kuhn3: irregular but valid replies hand the match back cleanly --------------------------

# case -> (each seat's modes, text some reply line must contain on both paths: the
# bot really did answer in that form; None where the arena strips it, as "\r")
IRREGULAR = {
    "crlf": ([["crlf@2,3,5"], [], []], None),
    "trailing_spaces": ([[], ["space@3"], []], "  "),
    "money_spaces": ([[], [], ["money_spaces@2,4"]], "Money: "),
    "rebuy": ([["rebuy@1,3"], [], []], "REBUY"),
    "leading_zero": ([[], ["zero@2,3,4"], []], " 0"),
    "split_writes": ([[], [], ["split@2,3,4,5"]], None),
    "pipelined_money": ([["pipeline@1,3"], [], []], None),
    "slow_replies": ([[], ["slow@3"], []], None),
    "all_at_once": ([["crlf@1", "split@3", "rebuy@4", "pipeline@6"],
                     ["space@2", "zero@3,6", "money_spaces@4", "slow@5"],
                     ["split@1,6", "money_spaces@2", "pipeline@4", "crlf@5", "zero@5"]], " 0"),
}


@pytest.mark.parametrize("case", sorted(IRREGULAR))
def test_kuhn3_irregular_replies_hand_back_cleanly(case, kuhn3_bot, patient):
    modes, witness = IRREGULAR[case]
    commands = [bot_command(kuhn3_bot, *m) for m in modes]
    native, pure, nl, pl = both_ways(KUHN3, commands, KUHN3.Params(hands=8), 29, host=patient)
    assert native.completed and pure.completed, (native.faults, pure.faults)
    assert native.hands == 8
    assert_same_match(native, pure, nl, pl)
    assert native.native_messages > 0
    if witness is not None:
        for lines in (nl, pl):
            assert any(d == "<-" and witness in t for seat in lines.values() for d, t in seat), case


# -- 4. kuhn3: faults are the same on both paths ------------------------------------------------

# mode -> (fault kind, the exchange asks all three seats at once)
FAULTS = {
    "illegal": ("illegal_action", False),
    "garbage": ("malformed_reply", False),
    "wrong_money": ("illegal_action", True),
    "crash": ("crashed", False),
    "exit_mid": ("disconnected", False),
    "close_stdout": ("disconnected", False),
    "two_lines": ("malformed_reply", True),
    "huge": ("malformed_reply", False),
    "bad_utf8": ("malformed_reply", False),
    "silent": ("timeout", False),
    "partial": ("timeout", False),
    "crash_init": ("crashed", True),
    "silent_init": ("timeout", True),
}
FAULT_HAND = 3


@pytest.mark.parametrize("mode", sorted(FAULTS))
def test_kuhn3_faults_are_the_same_on_both_paths(mode, kuhn3_bot, patient):
    kind, shared = FAULTS[mode]
    seat = sorted(FAULTS).index(mode) % 3  # every seat gets some of them
    commands = [bot_command(kuhn3_bot) for _ in range(3)]
    commands[seat] = bot_command(kuhn3_bot, f"{mode}@{FAULT_HAND}")
    timeout = 0.5 if kind == "timeout" else 5.0
    native, native_lines = play(KUHN3, commands, KUHN3.Params(hands=6), 31, True, timeout=timeout, grace=0.1,
                                  host=patient)
    pure, pure_lines = play(KUHN3, commands, KUHN3.Params(hands=6), 31, False, timeout=timeout, grace=0.1,
                            host=patient)

    for result in (native, pure):
        assert not result.completed
        assert [(str(f.kind), f.seat) for f in result.faults] == [(kind, seat)], result.faults
        assert result.faults[0].hand is not None and result.faults[0].hand >= FAULT_HAND
    assert native.native_messages > 0  # the compiled loop was playing when it happened
    assert pure.native_messages == 0
    assert summary(native) == summary(pure)
    innocent = {s for s in range(3) if s != seat} if shared else set()
    assert_same_transcripts(native_lines, pure_lines, loose=innocent)
