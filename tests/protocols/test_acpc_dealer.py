"""The arena against the ACPC dealer itself (built from ../shared/acpc): the
same agents, fed the same cards, must receive the same MATCHSTATE lines,
byte for byte, in kuhn3 and in hold'em (no-limit, and limit from the
package's limit game definitions); and ``--acpc-log`` must write what the
dealer's log holds for that match. The package's example_player, its
random numbers seeded the same in every run, plays a limit match to the
same result under both.

The agents are tests/bots/acpc_recorder.c, built here against the ACPC
package's game library: it writes down every line it is sent and answers
with a valid action chosen by a hash of the state line, so that the same
lines get the same answers on both sides. The dealer plays first, with a
seed; its log gives every hand's cards, which a rigged dialogue deals in
the arena (the dealer's seat ``d`` sits where the arena gives it the same
position in every hand)."""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from arena import BotSpec, MatchSettings, load_game, open_host, run_match

from ..conftest import ACPC, ROOT

RECORDER = ROOT / "tests" / "bots" / "acpc_recorder.c"
FIXED_TIME = ROOT / "tests" / "bots" / "acpc_fixed_time.c"
LIMIT_2P, LIMIT_3P = "holdem.limit.2p.reverse_blinds.game", "holdem.limit.3p.game"


@pytest.fixture(scope="session")
def recorder(request, acpc) -> Path:
    """The recording agent, built once per session beside the ACPC programs."""
    sources = [RECORDER, *sorted(ACPC.glob("*.[ch]"))]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:16]
    out = Path(request.config.cache.mkdir(f"acpc-recorder-{digest}")) / "acpc_recorder"
    if not out.exists():
        tmp = out.with_name(f"acpc_recorder.{os.getpid()}")
        proc = subprocess.run(["gcc", "-O2", "-I", str(ACPC), "-o", str(tmp), str(RECORDER),
                               *(str(ACPC / c) for c in ("game.c", "rng.c", "net.c")), "-lm"],
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        os.replace(tmp, out)
    return out


@pytest.fixture(scope="session")
def example_player(request, acpc) -> Path:
    """The package's example_player built as tests/conftest.py builds it, but for the
    time of day it seeds its random numbers from (tests/bots/acpc_fixed_time.c): the
    same every run, so the same states get the same answers under the dealer and the arena."""
    sources = [FIXED_TIME, *sorted(ACPC.glob("*.[ch]"))]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:16]
    out = Path(request.config.cache.mkdir(f"acpc-example-fixed-{digest}")) / "example_player"
    if not out.exists():
        tmp = out.with_name(f"example_player.{os.getpid()}")
        proc = subprocess.run(["gcc", "-O2", "-o", str(tmp), "example_player.c", str(FIXED_TIME), "game.c", "rng.c",
                               "net.c", "-lm", "-Wl,--wrap=gettimeofday"], cwd=ACPC,
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        os.replace(tmp, out)
    return out


def dealer_match(acpc, recorder: Path, tmp: Path, game: str | Path, hands: int, seed: int,
                 names: list[str], recorded: bool = True) -> tuple[list[list[str]], str]:
    """A match under the ACPC dealer (``game``: one of the package's definitions, or a file):
    what each seat's agent received, and the dealer's log. ``recorded``: the agent is the
    recorder (it writes down its lines); else another, run as ``AGENT GAMEDEF HOST PORT``."""
    folder = tmp / "dealer"
    folder.mkdir()
    gamedef = ACPC / game
    with open(folder / "dealer.err", "w") as err, subprocess.Popen(
            [str(acpc["dealer"]), "m", str(gamedef), str(hands), str(seed), *names, "-q"],
            cwd=folder, stdout=subprocess.PIPE, stderr=err, text=True) as dealer:
        assert dealer.stdout is not None
        ports = dealer.stdout.readline().split()
        agents = [subprocess.Popen([str(recorder), str(gamedef),
                                    *([str(folder / f"seat{i}.txt")] if recorded else []), "127.0.0.1", port],
                                   stderr=err) for i, port in enumerate(ports)]
        dealer.communicate(timeout=120)
        codes = [agent.wait(timeout=30) for agent in agents]
    assert dealer.returncode == 0 and codes == [0] * len(agents), (folder / "dealer.err").read_text()
    sent = [(folder / f"seat{i}.txt").read_text().splitlines() for i in range(len(names))] if recorded else []
    return sent, (folder / "m.log").read_text()


def arena_match(recorder: Path, tmp: Path, game: str, params, dialogue, seats: int,
                seat_of: list[int], seed: int, native: bool = True,
                lenient: bool = False, recorded: bool = True) -> tuple[list[list[str]], str]:
    """The same agents in the arena, dealer seat ``d`` at arena seat ``seat_of[d]``:
    what each dealer seat's agent received, and the arena's ``--acpc-log`` of the match.
    ``lenient``: their relays are told --lenient, as ``--acpc-lenient`` does;
    ``recorded``: as for ``dealer_match``."""
    from protocols.acpc import dealer_log

    folder = tmp / "arena"
    folder.mkdir()
    plugin = load_game(game)
    specs = [BotSpec.parse(f"acpc:{recorder} {{gamedef}}" + (f" {folder / f'seat{d}.txt'}" if recorded else ""),
                           name=f"p{d}")
             for d in sorted(range(seats), key=lambda d: seat_of[d])]
    if lenient:
        specs = [replace(s, argv=(s.argv[0], "--lenient", *s.argv[1:])) for s in specs]
    names = [s.name for s in specs]
    histories = plugin.hand_histories(names)  # as arena/cli/_main.py reads them, from the trace

    def trace(seat: int, direction: str, text: str) -> None:
        (histories.sent if direction == "->" else getattr(histories, "received", lambda *_: None))(seat, text)

    with open_host("none") as host:
        result = trio.run(lambda: run_match(plugin, specs, params, 1, MatchSettings(
            host=host, timeout=10, native=native, trace=trace), dialogue=dialogue))
    assert result.completed and not result.faults, [f.describe() for f in result.faults]
    log = dealer_log(histories.acpc_log(), path=tmp / "m.log", game=game, seats=seats, hands=len(histories.done),
                     seed=str(seed), timeout=10, budget=None, names=names, totals=[s.payoff for s in result.seats],
                     gamedef=getattr(params, "gamedef", None))
    if not recorded:
        return [], log
    return [(folder / f"seat{d}.txt").read_text().splitlines() for d in range(seats)], log


def _same_log(dealer: str, arena: str) -> None:
    """The arena's ``--acpc-log`` is the dealer's log of the same match: the
    same header fields (the times are each one's own), the same STATE lines,
    the same SCORE by player."""
    d, a = dealer.splitlines(), arena.splitlines()
    for lines in (d, a):
        assert [line.split(" ")[0] for line in lines[:4]] == ["#", "#--t_response", "#--t_hand", "#--t_per_hand"]
        assert all(line.split(" ")[1].isdigit() for line in lines[1:4]), lines[:4]
    dh, ah = d[0].split(" "), a[0].split(" ")
    assert ah[:3] == dh[:3] == ["#", "name/game/hands/seed", "m"] and ah[4:] == dh[4:], (d[0], a[0])
    assert ah[3] == Path(dh[3]).name  # the game definition, as the package names it
    assert [line for line in a if line.startswith("STATE:")] == [line for line in d if line.startswith("STATE:")]
    assert len(a) == len(d) and a[-1].startswith("SCORE:") and d[-1].startswith("SCORE:")

    def score(line: str) -> dict[str, str]:
        _, values, names = line.split(":")
        return dict(zip(names.split("|"), values.split("|")))

    assert score(a[-1]) == score(d[-1])


def _states(log: str) -> list[list[str]]:
    """The dealer log's hands: ``[hand, betting, cards, values, names]`` each."""
    return [line.split(":")[1:] for line in log.splitlines() if line.startswith("STATE:")]


# -- kuhn3 ----------------------------------------------------------------------

class _Kuhn3Deals:
    """kuhn3's chance, rigged: the button first at seat 2 (so that seat s has
    position (s - h) mod 3 in hand h, as under the dealer), then the dealer's cards."""

    def __init__(self, hands: list[list[str]]) -> None:
        self.deals = [[cards.split("|")[(s - h) % 3][0] for s in range(3)]
                      for h, (_, _, cards, _, _) in enumerate(hands)]

    def __call__(self, r):
        from games.kuhn3 import Phase

        if r.phase is Phase.BUTTON:
            return 2
        if r.phase is Phase.DEAL:
            return tuple(self.deals[r.hand + 1])
        return False


def _compare(dealer: list[list[str]], arena: list[list[str]]) -> tuple[int, int]:
    """(lines the same, lines the dealer sent), seat by seat in order."""
    same = total = 0
    for d, a in zip(dealer, arena):
        total += len(d)
        same += sum(x == y for x, y in zip(d, a))
    return same, total


@pytest.mark.parametrize("lenient", [False, True])
def test_kuhn3_agents_receive_what_the_dealer_sends(acpc, recorder, tmp_path, lenient):
    from games.kuhn3 import Kuhn3Params
    from protocols.kuhn3 import Kuhn3Dealer

    hands = 300
    names = ["p0", "p1", "p2"]
    sent, log = dealer_match(acpc, recorder, tmp_path, "kuhn.limit.3p.game", hands, 7, names)
    params = Kuhn3Params(hands=hands)
    got, arena_log = arena_match(recorder, tmp_path, "kuhn3", params,
                                 Kuhn3Dealer(params, _Kuhn3Deals(_states(log))), 3, [0, 1, 2], 7,
                                 lenient=lenient)
    same, total = _compare(sent, got)
    assert got == sent, f"{same} of {total} lines the same"
    _same_log(log, arena_log)


# -- hold'em ----------------------------------------------------------------------

class _HoldemDecks(random.Random):
    """hold'em's chance, rigged: each hand's deck is the dealer's cards (two a
    seat in position order, then the board), the cards no state shows after them."""

    def __init__(self, hands: list[list[str]]) -> None:
        super().__init__(0)
        from games.holdem._cards import NUMBERS

        self.decks = []
        for _, _, cards, _, _ in hands:
            holes, *boards = cards.split("/")
            shown = [c[i:i + 2] for c in holes.split("|") for i in (0, 2)] + [b[i:i + 2] for b in boards
                                                                             for i in range(0, len(b), 2)]
            deck = [NUMBERS[c] for c in shown]
            self.decks.append(deck + [c for c in range(52) if c not in deck])

    def sample(self, population, k, **_):  # type: ignore[override]
        return self.decks.pop(0)[:k]


@pytest.mark.parametrize("game, seats, params", [
    ("holdem.nolimit.2p.reverse_blinds.game", 2, {"stack": 20000, "small_blind": 50, "big_blind": 100}),
    ("holdem.nolimit.3p.game", 3, {"stack": 20000, "small_blind": 50, "big_blind": 100}),
    # the package's limit games, and a no-limit one, given to the arena as --gamedef gives them
    (LIMIT_2P, 2, {"gamedef": str(ACPC / LIMIT_2P)}),
    (LIMIT_3P, 3, {"gamedef": str(ACPC / LIMIT_3P)}),
    ("holdem.nolimit.3p.game", 3, {"gamedef": str(ACPC / "holdem.nolimit.3p.game")}),
])
@pytest.mark.parametrize("path", ["native", "python", "lenient"])
def test_holdem_agents_receive_what_the_dealer_sends(acpc, recorder, tmp_path, game, seats, params, path):
    """The codec, from the compiled dialogue and from the Python one; the relay under --acpc-lenient.
    In limit the agents' raises are a bare r, each the arena's one raise, and the caps are the dealer's."""
    from games.holdem import HoldemParams
    from protocols.holdem import HoldemDealer

    hands = 150
    names = [f"p{d}" for d in range(seats)]
    seed = 11 + seats
    sent, log = dealer_match(acpc, recorder, tmp_path, game, hands, seed, names)
    p = HoldemParams(hands=hands, **params)
    seat_of = [(d + 1) % seats for d in range(seats)]  # hand h: the dealer's seat h is position 0, the arena's h + 1
    names_by_seat = [names[d] for d in sorted(range(seats), key=lambda d: seat_of[d])]
    dialogue = HoldemDealer(p, _HoldemDecks(_states(log)), names_by_seat)
    got, arena_log = arena_match(recorder, tmp_path, "holdem", p, dialogue, seats, seat_of, seed,
                                 native=path == "native", lenient=path == "lenient")
    same, total = _compare(sent, got)
    assert got == sent, f"{same} of {total} lines the same"
    _same_log(log, arena_log)
    if ".limit." in game:  # the recorder raises often: the caps were reached, and said as the dealer says them
        betting = [state[1] for state in _states(log)]
        assert any("rrr" in b.split("/")[0] for b in betting) and any("rrrr" in r for b in betting
                                                                      for r in b.split("/")[1:])


@pytest.mark.parametrize("game, seats", [(LIMIT_2P, 2), (LIMIT_3P, 3)])
def test_example_players_play_limit_to_the_dealers_result(acpc, example_player, tmp_path, game, seats):
    """The package's example_player (its random numbers seeded the same in every run) in
    every seat of a limit match, under the dealer and in the arena on the dealer's cards:
    the same hands, betting for betting, and the same score."""
    from games.holdem import HoldemParams
    from protocols.holdem import HoldemDealer

    hands = 200
    names = [f"p{d}" for d in range(seats)]
    seed = 31 + seats
    _, log = dealer_match(acpc, example_player, tmp_path, game, hands, seed, names, recorded=False)
    p = HoldemParams(hands=hands, gamedef=str(ACPC / game))
    seat_of = [(d + 1) % seats for d in range(seats)]
    names_by_seat = [names[d] for d in sorted(range(seats), key=lambda d: seat_of[d])]
    dialogue = HoldemDealer(p, _HoldemDecks(_states(log)), names_by_seat)
    _, arena_log = arena_match(example_player, tmp_path, "holdem", p, dialogue, seats, seat_of, seed,
                               recorded=False)
    _same_log(log, arena_log)
    assert any("r" in state[1] for state in _states(log))


@pytest.mark.parametrize("seats", [2, 3])
def test_holdem_with_equal_blinds_the_agents_act_when_the_dealer_asks(acpc, recorder, tmp_path, seats):
    """Equal blinds: the arena asks heads-up position 0 (the big blind) first
    before the flop, and the game definition it gives the agents says so
    (firstPlayer = 1): under the dealer with that definition the agents
    receive the same lines."""
    from games.holdem import HoldemParams
    from protocols.holdem import HoldemDealer

    blinds = "100 100" if seats == 2 else "100 100 0"
    first = "1 1 1 1" if seats == 2 else "3 1 1 1"
    game = tmp_path / "equal.game"
    game.write_text(f"GAMEDEF\nnolimit\nnumPlayers = {seats}\nnumRounds = 4\nstack = {' '.join(['2000'] * seats)}\n"
                    f"blind = {blinds}\nfirstPlayer = {first}\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\n"
                    "numBoardCards = 0 3 1 1\nEND GAMEDEF\n")
    names = [f"p{d}" for d in range(seats)]
    sent, log = dealer_match(acpc, recorder, tmp_path, game, 60, 5, names)
    p = HoldemParams(hands=60, stack=2000, small_blind=100, big_blind=100)
    seat_of = [(d + 1) % seats for d in range(seats)]
    by_seat = [names[d] for d in sorted(range(seats), key=seat_of.__getitem__)]
    dialogue = HoldemDealer(p, _HoldemDecks(_states(log)), by_seat)
    got, _ = arena_match(recorder, tmp_path, "holdem", p, dialogue, seats, seat_of, 5)
    assert got == sent, "%d of %d lines the same" % _compare(sent, got)
