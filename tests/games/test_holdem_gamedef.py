"""ACPC game definitions read for hold'em (``games.holdem._gamedef``).

The ACPC package's own files (../shared/acpc) are read, and read the way the
ACPC dealer reads them: its own reader (game.c's ``readGame``, compiled
here from the package with a ten-line ``main`` that prints what it read
with ``printGame``) and ours must give the same game, written back alike.
A definition that is not one is refused in words naming the file and the
line; so is a valid one the arena's hold'em does not play. Then the
parameters: a definition sets the stack and the blinds, travels in
``match_start`` as values (a stored match plays again without the file),
and a no-limit match without one is written as before, byte for byte.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from games.holdem import GameDef, GameDefError, HoldemParams, parse_gamedef, read_gamedef
from protocols.holdem import PLUGIN
from protocols.jsonlines import wire_params

from ..conftest import ACPC, run_arena

HOLDEM_FILES = ("holdem.limit.2p.reverse_blinds.game", "holdem.limit.3p.game",
                "holdem.nolimit.2p.reverse_blinds.game", "holdem.nolimit.3p.game")

LIMIT_2P = """GAMEDEF
limit
numPlayers = 2
numRounds = 4
blind = 10 5
raiseSize = 10 10 20 20
firstPlayer = 2 1 1 1
maxRaises = 3 4 4 4
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""

PRINT_GAME = r"""
#include <stdio.h>
#include "game.h"
int main(int argc, char **argv) {
    FILE *f = argc == 2 ? fopen(argv[1], "r") : NULL;
    if (f == NULL)
        return 2;
    Game *game = readGame(f);
    if (game == NULL)
        return 1;
    printGame(stdout, game);
    return 0;
}
"""


@pytest.fixture(scope="module")
def acpc_reader(tmp_path_factory):
    """The ACPC dealer's reader of game definitions, as a program: FILE -> the game it read, or exit 1."""
    if not (ACPC / "game.c").exists():
        pytest.fail(f"the ACPC server package is not at {ACPC} (CI has shared/ beside the checkout)")
    folder = tmp_path_factory.mktemp("acpc_reader")
    (folder / "main.c").write_text(PRINT_GAME)
    exe = folder / "print_game"
    proc = subprocess.run(["gcc", "-O0", f"-I{ACPC}", "-o", str(exe), str(folder / "main.c"), str(ACPC / "game.c"),
                           str(ACPC / "rng.c"), "-lm"], capture_output=True, text=True, cwd=ACPC, check=False)
    assert proc.returncode == 0, proc.stderr

    def read(path) -> str | None:
        out = subprocess.run([str(exe), str(path)], capture_output=True, text=True, check=False)
        return out.stdout if out.returncode == 0 else None

    return read


def refused(text: str, source: str = "x.game") -> str:
    with pytest.raises(GameDefError) as info:
        parse_gamedef(text, source)
    return str(info.value)


# -- the ACPC package's files ----------------------------------------------------


@pytest.mark.parametrize("name", HOLDEM_FILES)
def test_the_acpc_holdem_files_are_read_as_the_acpc_dealer_reads_them(name, acpc_reader):
    gamedef = read_gamedef(ACPC / name)
    assert gamedef.to_acpc() == acpc_reader(ACPC / name)
    assert parse_gamedef(gamedef.to_acpc()) == gamedef  # written back, the same game
    assert GameDef.model_validate(json.loads(json.dumps(gamedef.model_dump(mode="json")))) == gamedef


def test_the_limit_files_say_what_limit_hold_em_is():
    two, three = read_gamedef(ACPC / HOLDEM_FILES[0]), read_gamedef(ACPC / HOLDEM_FILES[1])
    assert two.limit and three.limit
    assert (two.num_players, two.blind, two.first_player) == (2, (10, 5), (2, 1, 1, 1))
    assert (three.num_players, three.blind, three.first_player) == (3, (5, 10, 0), (3, 1, 1, 1))
    for g in (two, three):
        assert (g.small_blind, g.big_blind) == (5, 10)
        assert g.raise_size == (10, 10, 20, 20) and g.max_raises == (3, 4, 4, 4)
        assert g.stack == (2**31 - 1,) * g.num_players  # no stack line: ACPC's largest int32
        assert g.most_put_in() == 10 + 3 * 10 + 4 * 10 + 4 * 20 + 4 * 20


def test_kuhn_is_an_acpc_game_the_arena_s_hold_em_does_not_play(acpc_reader):
    path = ACPC / "kuhn.limit.3p.game"
    with pytest.raises(GameDefError) as info:
        read_gamedef(path)
    assert str(info.value) == (f"{path} line 9 (numSuits = 1): the arena's hold'em deals from a 52-card deck, "
                               "numRanks = 13 and numSuits = 4 (this one has 4 ranks and 1 suit)")
    kuhn = parse_gamedef(path.read_text(), str(path), playable=False)  # as a definition, it is one
    assert kuhn.to_acpc() == acpc_reader(path)


def test_what_the_acpc_dealer_reads_we_read_alike(acpc_reader, tmp_path):
    # ACPC's defaults, its case-blind keys, "=" optional, comments and blank lines, nothing after END GAMEDEF
    text = ("# a comment\n\ngamedef\nNOLIMIT\nNumPlayers 3\nnumrounds = 4\nstack = 100 100 100\n"
            "BLIND = 1 2 0\nfirstPlayer = 3 1 1 1\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\n"
            "numBoardCards = 0 3 1 1\nEND GAMEDEF\nanything at all\n")
    path = tmp_path / "odd.game"
    path.write_text(text)
    gamedef = read_gamedef(path)
    assert gamedef.to_acpc() == acpc_reader(path)
    assert gamedef.max_raises == (255,) * 4 and not gamedef.limit


# -- what is not a game definition -------------------------------------------------


@pytest.mark.parametrize("change, words", [
    (("numSuits = 4", "numSuit = 4"), "x.game line 9 (numSuit = 4): not a line of a game definition"),
    (("blind = 10 5", "blind = 10 five"), "x.game line 5 (blind = 10 five): 'five' is not a whole number"),
    (("blind = 10 5", "blind = 10 5.5"), "'5.5' is not a whole number"),
    (("maxRaises = 3 4 4 4", "maxRaises = 3 4 4 4\nmaxRaises = 1 1 1 1"),
     "x.game line 9 (maxRaises = 1 1 1 1): maxRaises was given already, on line 8"),
    (("limit", "limit\nnolimit"), "x.game line 3 (nolimit): limit or nolimit was given already, on line 2"),
    (("blind = 10 5", "blind = 10 5 0"), "x.game line 5 (blind = 10 5 0): 3 values for 2 players: blind gives "
                                         "one per position"),
    (("maxRaises = 3 4 4 4", "maxRaises = 3"), "x.game line 8 (maxRaises = 3): 1 value for 4 rounds: maxRaises "
                                               "gives one per round"),
    (("raiseSize = 10 10 20 20", "raiseSize = 10 10 20"), "3 values for 4 rounds: raiseSize gives one per round"),
    (("raiseSize = 10 10 20 20\n", ""), "x.game: no raiseSize line; a limit game gives its raise size for every round"),
    (("numHoleCards = 2\n", ""), "x.game: no numHoleCards line; a game definition must give it"),
    (("numPlayers = 2", "numPlayers = 11"), "x.game line 3 (numPlayers = 11): the number of players is 11; ACPC "
                                            "games have 2 to 10"),
    (("blind = 10 5", "blind = 10 5\nstack = 8 100"), "x.game line 5 (blind = 10 5): position 1's blind is 10; a "
                                                      "blind is 0 chips or more, and at most the stack (8)"),
    (("firstPlayer = 2 1 1 1", "firstPlayer = 3 1 1 1"), "round 1's first player is 3; positions are 1 to 2"),
    (("raiseSize = 10 10 20 20", "raiseSize = 10 0 20 20"), "round 2's raise size is 0; a raise is 1 chip or more"),
    (("numHoleCards = 2", "numHoleCards = 2 2"), "x.game line 11 (numHoleCards = 2 2): numHoleCards is one number"),
    (("numBoardCards = 0 3 1 1", "numBoardCards = 0 3 1 4"), "board cards [0, 3, 1, 4]; ACPC games deal 0 or "
                                                            "more a round, at most 7 in all"),
    (("numRanks = 13", "numRanks = 2"), "x.game line 12 (numBoardCards = 0 3 1 1): 9 cards dealt (2 players' hole "
                                        "cards and the board) from a deck of 8"),
    (("blind = 10 5", "blind"), "x.game line 5 (blind): blind has no value"),
    (("limit", "limit 2"), "x.game line 2 (limit 2): limit is a line of its own"),
])
def test_a_malformed_definition_is_refused_naming_its_line(change, words, acpc_reader, tmp_path):
    old, new = change
    assert old in LIMIT_2P
    text = LIMIT_2P.replace(old, new, 1)
    assert words in refused(text)
    # what the ACPC dealer would not read either (the others it would read its own way: skip the
    # line it does not know, take the last of two, fill in or drop values)
    acpc_refuses = ("no whole" not in words and "given already" not in words and "not a line" not in words
                    and "values for" not in words and "value for" not in words and "one number" not in words
                    and "a raise is 1 chip" not in words and "a line of its own" not in words
                    and "'5.5'" not in words and "'five'" not in words and "no value" not in words
                    and "at most 7 in all" not in words)  # (the dealer's board has room for 7 cards, unchecked)
    if acpc_refuses:
        path = tmp_path / "x.game"
        path.write_text(text)
        assert acpc_reader(path) is None, f"the ACPC dealer reads what we refuse: {words}"


def test_a_missing_file_and_one_that_is_not_text(tmp_path):
    with pytest.raises(GameDefError, match="no game definition file '.*nothere.game': No such file"):
        read_gamedef(tmp_path / "nothere.game")
    binary = tmp_path / "b.game"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(GameDefError, match="not a game definition .not text."):
        read_gamedef(binary)


# -- what the arena's hold'em does not play ----------------------------------------


@pytest.mark.parametrize("change, words", [
    (("numRanks = 13", "numRanks = 12"), "x.game line 10 (numRanks = 12): the arena's hold'em deals from a 52-card "
                                         "deck, numRanks = 13 and numSuits = 4 (this one has 12 ranks and 4 suits)"),
    (("numHoleCards = 2", "numHoleCards = 3"), "x.game line 11 (numHoleCards = 3): the arena's hold'em deals 2 hole "
                                               "cards (numHoleCards = 2)"),
    (("numRounds = 4\nblind = 10 5\nraiseSize = 10 10 20 20\nfirstPlayer = 2 1 1 1\nmaxRaises = 3 4 4 4\n"
      "numSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1",
      "numRounds = 3\nblind = 10 5\nraiseSize = 10 10 20\nfirstPlayer = 2 1 1\nmaxRaises = 3 4 4\n"
      "numSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 2"),
     "x.game line 4 (numRounds = 3): the arena's hold'em has 4 rounds, preflop, flop, turn and river"),
    (("numBoardCards = 0 3 1 1", "numBoardCards = 0 2 2 1"), "x.game line 12 (numBoardCards = 0 2 2 1): the arena's "
                                                             "hold'em deals the board as flop, turn and river"),
    (("blind = 10 5", "blind = 5 10"), "x.game line 5 (blind = 5 10): heads-up the arena plays reverse blinds"),
    (("blind = 10 5", "blind = 10 10"), "x.game line 5 (blind = 10 10): heads-up the arena plays reverse blinds"),
    (("firstPlayer = 2 1 1 1", "firstPlayer = 1 2 2 2"), "x.game line 7 (firstPlayer = 1 2 2 2): the arena plays "
                                                         "hold'em's order"),
    (("blind = 10 5", "blind = 10 5\nstack = 100 200"), "x.game line 6 (stack = 100 200): the arena plays equal "
                                                        "stacks"),
    (("limit\n", "nolimit\n"), "x.game line 8 (maxRaises = 3 4 4 4): the arena's no-limit hold'em has no cap"),
])
def test_a_definition_the_arena_does_not_play_is_refused_naming_its_line(change, words):
    old, new = change
    assert old in LIMIT_2P
    assert refused(LIMIT_2P.replace(old, new, 1)).startswith(words)


def test_three_seats_need_hold_em_s_blinds_and_order():
    three = (ACPC / "holdem.limit.3p.game").read_text()
    assert "x.game line 5 (blind = 10 5 0): the arena plays hold'em's blinds" in refused(
        three.replace("blind = 5 10 0", "blind = 10 5 0"))
    assert "position 1 posts the small blind, position 2 the big blind" in refused(
        three.replace("blind = 5 10 0", "blind = 5 10 5"))
    assert "x.game line 7 (firstPlayer = 1 1 1 1): the arena plays hold'em's order" in refused(
        three.replace("firstPlayer = 3 1 1 1", "firstPlayer = 1 1 1 1"))


# -- the match's parameters --------------------------------------------------------


def test_a_definition_sets_the_stack_and_the_blinds_and_is_kept_as_values():
    path = str(ACPC / "holdem.limit.3p.game")
    params = HoldemParams(gamedef=path, hands=10)
    assert (params.stack, params.small_blind, params.big_blind, params.ante) == (2**31 - 1, 5, 10, 0)
    assert params.limit() == ((10, 10, 20, 20), (3, 4, 4, 4))
    assert params.most_lost() == 240
    said = json.loads(json.dumps(wire_params(params)))  # as match_start says them
    assert said["gamedef"]["blind"] == [5, 10, 0] and said["gamedef"]["betting"] == "limit"
    stored = json.loads(json.dumps(params.model_dump(mode="json")))
    assert HoldemParams(**stored) == params  # a stored match plays again without the file
    assert HoldemParams(gamedef=path, stack=2**31 - 1, small_blind=5, big_blind=10) == params.model_copy(
        update={"hands": 1000})  # the same values given again: accepted
    nolimit = HoldemParams(gamedef=str(ACPC / "holdem.nolimit.2p.reverse_blinds.game"))
    assert (nolimit.stack, nolimit.small_blind, nolimit.big_blind, nolimit.limit()) == (20000, 50, 100, None)
    assert nolimit.most_lost() == 20000


def test_without_a_definition_the_parameters_are_written_as_before():
    assert "gamedef" not in HoldemParams().model_dump()
    assert list(wire_params(HoldemParams())) == ["mode", "hands", "tournaments", "stack", "small_blind",
                                                 "big_blind", "ante", "level_hands", "format"]
    assert HoldemParams().limit() is None and HoldemParams(stack=90).most_lost() == 90


def test_a_stored_definition_is_checked_as_a_file_is():
    values = read_gamedef(ACPC / "holdem.limit.2p.reverse_blinds.game").model_dump()
    with pytest.raises(ValueError, match="the game definition: numSuits: the arena's hold'em deals from a 52-card"):
        HoldemParams(gamedef={**values, "num_suits": 3})
    with pytest.raises(ValueError, match="the game definition: blind: 3 values for 2 players"):
        HoldemParams(gamedef={**values, "blind": [10, 5, 0]})


@pytest.mark.parametrize("args, words", [
    (["--stack", "500"], "--stack 500: the --gamedef sets it to 2147483647; leave --stack out with --gamedef"),
    (["--ante", "1"], "--ante 1: the --gamedef sets it to 0"),
    (["--mode", "freezeout"], "--mode freezeout: a --gamedef fixes the blinds and the stacks for good"),
    (["B"], "the game definition (gamedef) is for 2 players (numPlayers = 2) and 3 bots were given"),
])
def test_the_command_line_refuses_what_contradicts_the_definition(args, words):
    bot = "python3 sample_bots/holdem/random_bot.py"
    extra = [bot] if args == ["B"] else args
    proc = run_arena("holdem", bot, bot, *extra, "--gamedef", str(ACPC / "holdem.limit.2p.reverse_blinds.game"))
    assert proc.returncode == 2 and words in proc.stderr, proc.stderr


def test_the_command_line_names_the_file_and_line_of_a_bad_definition(tmp_path):
    bad = tmp_path / "bad.game"
    bad.write_text(LIMIT_2P.replace("numSuits = 4", "numSuits = 4 4"))
    bot = "python3 sample_bots/holdem/random_bot.py"
    proc = run_arena("holdem", bot, bot, "--gamedef", str(bad))
    assert proc.returncode == 2
    assert f"--gamedef: {bad} line 9 (numSuits = 4 4): numSuits is one number" in proc.stderr, proc.stderr
    proc = run_arena("play", "holdem", bot, bot, "-p", f"gamedef={bad}")
    assert proc.returncode == 2 and f"-p gamedef: {bad} line 9" in proc.stderr, proc.stderr


def test_the_plugin_checks_the_table_against_the_definition():
    params = HoldemParams(gamedef=str(ACPC / "holdem.limit.3p.game"))
    PLUGIN.check_seats(params, 3)
    with pytest.raises(ValueError, match=r"is for 3 players \(numPlayers = 3\) and 2 bots were given"):
        PLUGIN.check_seats(params, 2)
