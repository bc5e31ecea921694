"""The openspiel dialogue in-process (no bot processes): a seat told only what
changed for it, as pyspiel shows it, simultaneous steps asked in one exchange, chance from the seed,
the illegal-action report, the fault rule, the refusals and their reasons."""

from __future__ import annotations

import json
import random
import shutil
import sys

import pytest
from click.testing import CliRunner

from arena import load_game
from arena._checks import UsageError
from arena._games import PluginLoadError
from arena._plan import plan_play
from arena._seeds import chance_stream
from arena.cli import command
from arena.play._stepping import step_through
from games.openspiel import catalogue, load
from protocols import ProtocolError
from protocols.jsonlines import encode
from protocols.openspiel import PLUGIN, Act, Observe, told_by_pyspiel

TRUE = shutil.which("true") or "/bin/true"


def tensors_wanted(dealer, seat, payload, rng):
    """A random reply, but a ready that asks for the tensors."""
    if b"match_start" in payload:
        return '{"type": "ready", "tensors": true}'
    return PLUGIN.random_reply(dealer, seat, payload, rng)


def play(game: str, seed: int, replies=None):
    """Every exchange of a match with random legal replies: [(sends, reply?)], the dealer."""
    params = PLUGIN.Params(game=game)
    seats = PLUGIN.fixed_seats(params)
    dealer = PLUGIN.open_dialogue(params, chance_stream(seed), [f"s{i}" for i in range(seats)])
    rng, reply = random.Random(0), replies or PLUGIN.random_reply
    exchanges = []
    outcome = step_through(dealer, "openspiel", lambda n, s, b: reply(dealer, s, b, rng),
                           on_exchange=lambda n, ex: exchanges.append(ex))
    return exchanges, dealer, outcome


def test_a_seat_is_told_what_changed_for_it_in_its_models_bytes_and_move_counts_its_messages():
    exchanges, dealer, outcome = play("leduc_poker", 4, replies=tensors_wanted)
    told: dict[int, list[dict]] = {0: [], 1: []}
    for ex in exchanges[1:-1]:  # between match_start and match_end
        for seat, payload in ex.sends:
            msg = json.loads(payload)
            model = Act if msg["type"] == "act" else Observe
            assert encode(model.model_validate(msg)) == payload  # encode_fields wrote the model's own line
            told[seat].append(msg)
    for seat, messages in told.items():
        assert [m["move"] for m in messages] == list(range(len(messages)))
        views = [(m["observation"], m["information_state"], m["public_tensor"], m["private_tensor"])
                 for m in messages]
        # an observe (but the final one) is sent only when the seat's view changed
        assert all(views[k] != views[k - 1] for k, m in enumerate(messages)
                   if k and m["type"] == "observe" and not m["final"]), messages
    assert outcome.payoffs == dealer.match.returns() and sum(outcome.payoffs) == 0
    final = [json.loads(p) for _, p in exchanges[-2].sends]
    assert [m["final"] for m in final] == [True, True]
    assert all(m["public_tensor"] and m["private_tensor"] for m in final)
    plain, _, _ = play("leduc_poker", 4, replies=lambda d, s, b, r: (
        '{"type": "ready"}' if s == 1 and b"match_start" in b else tensors_wanted(d, s, b, r)))
    told_plain = [(s, json.loads(p)) for ex in plain[1:-1] for s, p in ex.sends]
    assert all((m["public_tensor"] is None) == (s == 1) for s, m in told_plain)  # only to the seat that asked


@pytest.mark.parametrize("game", ["phantom_ttt", "phantom_ttt_ir", "dark_hex_ir", "dark_hex(board_size=3)",
                                  "kuhn_poker(players=3)", "leduc_poker", "liars_dice", "tiny_hanabi"])
def test_each_seat_is_sent_what_pyspiel_shows_it_and_no_state_it_cannot_see(game):
    """A phantom game's failed attempt leaves the other seat's view as it was:
    no message may tell it one happened (nor a `move` that counts it)."""
    unseen = 0
    for seed in range(6):
        exchanges, dealer, _ = play(game, seed)
        got: list[list[tuple]] = [[] for _ in range(dealer.match.players)]
        for ex in exchanges[1:-1]:
            for seat, payload in ex.sends:
                m = json.loads(payload)
                got[seat].append((m["type"], m["observation"], m["information_state"]))
                assert m["move"] == len(got[seat]) - 1
        history = [(pa.player, pa.action) for pa in dealer.match.state.full_history()]
        want = told_by_pyspiel(game, history, [False] * dealer.match.players)
        assert got == [[m[:3] for m in seat] for seat in want]
        unseen += len(history) + 1 - min(len(v) for v in got)
        # the same, as check-game asks a variant without a golden file
        sent = [(seat, p.decode()) for ex in exchanges for seat, p in ex.sends]
        assert PLUGIN.against_reference(dealer, sent) is None
        extra = next(k for k, (_, line) in enumerate(sent) if '"type":"observe"' in line)
        assert "pyspiel" in PLUGIN.against_reference(dealer, sent[:extra + 1] + sent[extra:])
    if game != "dark_hex(board_size=3)":  # (its information states count every move, failed ones too)
        assert unseen > 0  # some state passed that a seat was not told of: the case this test is for


def test_a_simultaneous_step_asks_every_seat_in_one_exchange():
    exchanges, _, _ = play("goofspiel(num_cards=4)", 1)
    asks = [ex for ex in exchanges if ex.reply and json.loads(ex.sends[0][1])["type"] == "act"]
    # four cards, three choices: OpenSpiel plays the last card of each hand itself
    assert len(asks) == 3 and all(sorted(s for s, _ in ex.sends) == [0, 1] for ex in asks)


def test_chance_comes_from_the_seed():
    def deals(seed):
        exchanges, _, _ = play("leduc_poker", seed)
        return [p for ex in exchanges for _, p in ex.sends]

    assert deals(3) == deals(3)
    assert len({tuple(deals(s)) for s in range(6)}) > 1


def test_an_illegal_id_is_the_seats_illegal_action_naming_the_legal_actions():
    with pytest.raises(ProtocolError) as caught:
        play("kuhn_poker", 2, replies=lambda d, s, b, r: ('{"type": "ready"}' if b"match_start" in b
                                                         else '{"type": "action", "action": 7}'))
    err = caught.value
    assert (err.seat, err.kind) == (0, "illegal_action")
    assert "action 7 is not legal" in err.reason and "0 (Pass), 1 (Bet)" in err.reason


def test_the_fault_rule_is_the_games_minimum_utility():
    params = PLUGIN.Params(game="leduc_poker")
    dealer = PLUGIN.open_dialogue(params, chance_stream(1), ["a", "b"])
    assert dealer.forfeit(1) == [0.0, -13.0]  # leduc's worst outcome; the other keeps its returns so far


def test_a_wrong_number_of_bots_says_how_many():
    with pytest.raises(UsageError, match=r"'kuhn_poker\(players=3\)' is played by 3 bots, got 2"):
        plan_play("openspiel", [TRUE, TRUE], [{"game": "kuhn_poker(players=3)"}], keys=True, seed=1,
                  lifetime="match", timeout=1, startup_timeout=1, budget=None, log_dir=None)


@pytest.mark.parametrize(("game", "reason"), [
    ("mfg_crowd_modelling", "mean_field"),
    ("bridge_uncontested_bidding", "sampled inside the game"),
    ("crossword", "not a list of legal actions"),
    ("no_such_game", "OpenSpiel cannot load"),
])
def test_games_it_cannot_referee_are_refused_with_the_reason(game, reason):
    with pytest.raises(ValueError, match=reason):
        load(game)


def test_games_list_shows_every_registered_game_and_why_some_are_refused():
    result = CliRunner().invoke(command(), ["games", "openspiel", "--list"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 1 + len(catalogue()) >= 121
    rows = {line.split()[0]: line for line in lines[1:]}
    assert rows["kuhn_poker"].split()[1:3] == ["2-10", "yes"]
    assert "no: its dynamics are mean_field" in rows["mfg_garnet"]
    assert sum(" yes" in line for line in lines) >= 60
    described = CliRunner().invoke(command(), ["games", "openspiel"])
    assert "game" in described.stdout and "kuhn_poker" in described.stdout


def test_a_variant_is_a_game_of_its_own_with_its_game_string_fixed():
    plugin = load_game("openspiel:kuhn_poker(players=3)")
    assert plugin is load_game("openspiel:kuhn_poker(players=3)")
    assert (plugin.spec.id, plugin.spec.min_seats, plugin.spec.max_seats) == ("openspiel:kuhn_poker(players=3)", 3, 3)
    assert plugin.Params().game == "kuhn_poker(players=3)"
    with pytest.raises(ValueError, match="kuhn_poker"):
        plugin.Params(game="leduc_poker")
    assert plugin.reference_opponents() == PLUGIN.reference_opponents() and plugin.playthrough_file() is None
    with pytest.raises(PluginLoadError, match="mean_field"):
        load_game("openspiel:mfg_garnet")
    with pytest.raises(PluginLoadError, match="kuhn3 has no variants"):
        load_game("kuhn3:big")


def test_without_openspiel_installed_the_game_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # what a missing package looks like to import
    with pytest.raises(ValueError, match=r"pip install 'arena-cardgames\[openspiel\]'"):
        load("kuhn_poker(players=4)")  # a string not loaded yet (load keeps what it loaded)
    result = CliRunner().invoke(command(), ["games", "openspiel", "--list"])
    assert result.exit_code == 2 and "not installed" in result.stderr


@pytest.mark.parametrize("game", ["misere(game=tic_tac_toe())", "zerosum(game=kuhn_poker())",
                                  "cached_tree(game=tic_tac_toe())", "start_at(game=tic_tac_toe(),history=4;0)",
                                  "restricted_nash_response(game=kuhn_poker())",
                                  "turn_based_simultaneous_game(game=goofspiel(num_cards=3))"])
def test_a_wrapper_is_listed_playable_and_plays_around_a_game(game):
    name = game.split("(", 1)[0]
    listed = next(g for g in catalogue() if g.name == name)
    assert listed.refusal is None and f"{name}(game=GAME(...))" in listed.note
    exchanges, dealer, outcome = play(game, 3)
    assert dealer.match.terminal and outcome.payoffs == dealer.match.returns()


def test_a_wrapper_that_draws_its_own_chance_is_refused_listed_and_loaded():
    listed = next(g for g in catalogue() if g.name == "add_noise")
    assert "its seed parameter" in listed.refusal
    with pytest.raises(ValueError, match="draws chance of its own"):
        load("add_noise(epsilon=1.0,seed=1,game=kuhn_poker())")


def test_a_game_named_by_a_number_is_that_game():
    # `-p game=2048`: a value is read as JSON first, so the name arrives as a number
    params = PLUGIN.Params(game=2048)
    assert params.game == "2048" and PLUGIN.fixed_seats(params) == 1
    result = CliRunner().invoke(command(), ["games", "openspiel", "--list"])
    assert "2048" in result.stdout


def test_check_game_holds_a_variant_without_a_golden_file_to_pyspiel_itself():
    from arena.quarantine._conformance import _check_golden

    variant = load_game("openspiel:phantom_ttt")
    assert variant.playthrough_file() is None
    found = _check_golden(variant)
    assert found.ok and "agrees, state by state" in found.summary, found


#: left out of the next test for their time alone (over half a second a match here)
SLOW_TO_REPLAY = {"bridge", "colored_trails"}


@pytest.mark.slow
def test_every_playable_game_tells_each_seat_what_pyspiel_shows_it():
    """One random match of every game `--list` offers (a wrapper needs a game: below), held message
    for message to pyspiel's own view of each seat at each state (``told_by_pyspiel``)."""
    checked = 0
    for listed in catalogue():
        if listed.refusal is not None or listed.note is not None or listed.name in SLOW_TO_REPLAY:
            continue
        try:
            PLUGIN.check_params(PLUGIN.Params(game=listed.name))
        except ValueError:  # refused only once loaded (crossword), with its reason
            continue
        exchanges, dealer, _ = play(listed.name, 1)
        sent = [(seat, p.decode()) for ex in exchanges for seat, p in ex.sends]
        assert PLUGIN.against_reference(dealer, sent) is None, listed.name
        checked += 1
    assert checked >= 100
