"""rpsdraft over the wire: the dialogue in-process, then the JS shim and the sample bots as real processes."""

from __future__ import annotations

import json
import random
import shutil

import pytest

from arena import load_game
from arena.play._stepping import step_through
from protocols import ProtocolError
from protocols.rpsdraft import MODELS, RpsDraftDealer, seeded_chance

from ..conftest import ROOT, processes_with, python_bot, replay_key, run_json

PLUGIN = load_game("rpsdraft")
SHIM = ROOT / "shims" / "js" / "rpsdraft_runner.js"
SAMPLES = ROOT / "sample_bots" / "rpsdraft"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


# -- the dialogue, in-process ----------------------------------------------------


def drive(dealer: RpsDraftDealer, answer):
    """Run a dialogue; ``answer(seat, msg)`` gives a reply line. Returns (outcome, messages)."""
    log = []

    def told(n: int, exchange) -> None:
        log.extend((seat, json.loads(payload)) for seat, payload in exchange.sends)

    outcome = step_through(dealer, "rpsdraft", lambda n, seat, payload: answer(seat, json.loads(payload)),
                           on_exchange=told)
    return outcome, log


def first_index(seat, msg):
    if msg["type"] == "match_start":
        return '{"type": "ready"}'
    return json.dumps({"type": "pick" if msg["type"] == "draft_pick" else "play", "index": 0})


def dealer(seed=3, match_index=0) -> RpsDraftDealer:
    return PLUGIN.open_dialogue(PLUGIN.Params(), random.Random(seed), ["a", "b"], match_index)


def test_a_match_is_framed_and_tells_each_seat_what_the_seed_tells_a_bot():
    outcome, log = drive(dealer(match_index=4), first_index)
    types = [m["type"] for s, m in log if s == 0]
    assert types == (["match_start"] + ["draft_pick", "draft_receive"] * 5
                     + ["main_play", "turn_result"] * 10 + ["match_end"])
    assert log[0][1]["match"] == 4 and log[0][1]["params"] == {"draft_rounds": 5, "hand_size": 3, "turns": 10}
    picks = [(s, m) for s, m in log if m["type"] == "draft_pick"]
    receives = [(s, m) for s, m in log if m["type"] == "draft_receive"]
    for (s, pick), (_, other) in zip(picks[0::2], picks[1::2]):  # seat 0 then seat 1, per round
        # Index 0 kept by both: each receives the opponent's second card.
        rnd = pick["round"]
        got = {r_s: r["card"] for r_s, r in receives if r["round"] == rnd}
        assert got == {0: other["cards"][1], 1: pick["cards"][1]}
    plays = [m for s, m in log if m["type"] == "main_play"]
    results = [(s, m) for s, m in log if m["type"] == "turn_result"]
    for s, res in results:
        mine = [p for p in plays if p["turn"] == res["turn"]][s]
        assert res["your_card"] == mine["hand"][0] and res["base"] == mine["base"]
    end = log[-1][1]
    assert end["type"] == "match_end" and end["match"] == 4
    assert end["scores"] == [float(w) for w in outcome.payoffs] and sum(outcome.payoffs) == 10
    assert results[-1][1]["turns_won"] == outcome.payoffs
    assert dealer().standings()[0] == 0


def test_the_same_seed_deals_the_same_match():
    assert drive(dealer(9), first_index)[1] == drive(dealer(9), first_index)[1]
    assert drive(dealer(9), first_index)[1] != drive(dealer(10), first_index)[1]


@pytest.mark.parametrize(
    "reply, kind, words",
    [
        ('{"type": "pick", "index": 2}', "illegal_action", "index 2 is outside"),
        ('{"type": "pick", "index": -1}', "illegal_action", "outside"),
        ('{"type": "pick", "index": null}', "illegal_action", "must be an integer"),
        ('{"type": "pick", "index": 0.5}', "illegal_action", "must be an integer"),
        ('{"type": "pick"}', "malformed_reply", "index"),
        ('{"type": "play", "index": 0}', "malformed_reply", "expected a reply of type 'pick'"),
        ('[0]', "malformed_reply", "JSON object"),
        ("0", "malformed_reply", "JSON object"),
    ],
)
def test_bad_draft_replies_are_typed_faults_naming_the_seat(reply, kind, words):
    def answer(seat, msg):
        if msg["type"] == "draft_pick" and seat == 1 and msg["round"] == 2:
            return reply
        return first_index(seat, msg)

    d = dealer()
    with pytest.raises(ProtocolError) as err:
        drive(d, answer)
    assert err.value.seat == 1 and err.value.kind == kind and words in err.value.reason
    assert err.value.received == reply and "pick" in err.value.expected
    assert d.context() == {"hand": None, "phase": "draft", "draft_round": 2}


def test_a_bad_play_names_the_turn_and_the_first_bad_seat_is_reported():
    def answer(seat, msg):
        if msg["type"] == "main_play" and msg["turn"] == 6:
            return '{"type": "play", "index": 3}'  # both seats, hands of 3
        return first_index(seat, msg)

    d = dealer()
    with pytest.raises(ProtocolError) as err:
        drive(d, answer)
    assert err.value.seat == 0 and err.value.kind == "illegal_action"
    assert err.value.expected == '{"type": "play", "index": 0 to 2}'
    assert d.context()["hand"] == 6
    assert d.standings()[0] == 6 and sum(d.scores()) == 6.0


def test_every_model_has_a_type_and_a_schema():
    from protocols.rpsdraft import Pick, Play

    assert len(MODELS) == 6
    for model in MODELS:
        assert "type" in model.model_fields
    for reply in (Pick, Play):
        schema = reply.model_json_schema()
        assert schema["properties"]["index"]["type"] == "integer"
        assert schema["required"] == ["type", "index"]


def test_seeded_chance_shuffles_only_within_each_deck():
    d = dealer(5)
    chance = seeded_chance(random.Random(1))
    m = d.match
    m.apply_chance(chance(m))
    while m.phase.value == "draft":
        m.apply((0, 1))
    before = [sorted(m.decks[0]), sorted(m.decks[1]), sorted(m.remaining)]
    m.apply_chance(chance(m))
    assert [sorted(m.decks[0]), sorted(m.decks[1]), sorted(m.remaining)] == before


# -- the JavaScript shim -----------------------------------------------------------

BODY = """{
  name: 'Probe',
  count: 0,
  draftPick(cards) { this.count += 1; return this.choose(cards); },
  choose(cards) { return cards[0] < cards[1] ? 0 : 1; },
  draftReceive(card) {},
  mainPlay(cards, base) { console.log('debug output must not reach the arena'); return cards.length - 1; },
  mainPostprocess(card) {},
}"""

FORMS = {
    "bare": BODY + ",\n",
    "bare_no_comma": "// a comment first\n" + BODY + "\n",
    "var": "var probe = " + BODY + ";\n",
    "let": "let probe = " + BODY + ";\n",
    "const": "'use strict';\nconst probe = " + BODY + ";\nconst other = 3;\n",
    "module_exports": "module.exports = " + BODY + ";\n",
    "module_exports_later": "const bot = " + BODY + ";\nfunction helper() {}\nmodule.exports = bot;\n",
    "exports_field": "exports.bot = " + BODY + ";\n",
}


def js_bot(tmp_path, name: str, source: str, tag: str = "") -> str:
    entry = tmp_path / f"{name}.js"
    entry.write_text(source)
    return f"node {SHIM} {entry} {tag}".strip()


@needs_node
@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_shim_loads_every_form_of_bot_file(form, tmp_path, tag):
    bot = js_bot(tmp_path, form, FORMS[form], tag)
    other = python_bot("misbehave_rpsdraft.py", "none", "main", tag)
    proc, result = run_json("rpsdraft", bot, other, "--seed", replay_key("2"))
    assert proc.returncode == 0, proc.stderr
    assert result["completed"] and sum(s["payoff"] for s in result["seats"]) == 10
    assert processes_with(tag) == []


JS_FAULTS = {
    # the seed: "disqualified if it throws an exception or returns an invalid index"
    "throws": ("mainPlay(cards, base) { throw new Error('boom in mainPlay'); },", "crashed", "boom in mainPlay"),
    "undefined": ("mainPlay(cards, base) { },", "illegal_action", "None"),
    "too_big": ("mainPlay(cards, base) { return cards.length; },", "illegal_action", "index 3 is outside"),
    "string": ("mainPlay(cards, base) { return '1'; },", "illegal_action", "'1'"),
    "nan": ("mainPlay(cards, base) { return NaN; },", "illegal_action", "None"),
}


@needs_node
@pytest.mark.parametrize("case", sorted(JS_FAULTS))
def test_a_js_bot_that_throws_or_returns_a_bad_index_is_disqualified(case, tmp_path, tag):
    method, kind, words = JS_FAULTS[case]
    source = BODY.replace(
        "mainPlay(cards, base) { console.log('debug output must not reach the arena'); return cards.length - 1; },",
        method,
    )
    bot = js_bot(tmp_path, case, source, tag)
    other = python_bot("misbehave_rpsdraft.py", "none", "main", tag)
    proc, result = run_json("rpsdraft", other, bot, "--seed", replay_key("2"))
    assert proc.returncode == 1, proc.stderr
    (fault,) = result["faults"]
    assert fault["seat"] == 1 and fault["kind"] == kind and fault["hand"] == 0
    assert words in f"{fault['detail']} {fault['received']} {fault['stderr_tail']}"
    assert processes_with(tag) == []


@needs_node
def test_the_shim_provides_full_deck_and_keeps_one_bot_for_the_whole_process(tmp_path, tag):
    # Valid while it has made at most 5 picks in its life: the 6th pick (the
    # first of a second match) returns an invalid index, but only if the bot
    # object survived the first match.
    source = """{
      name: 'Counter',
      picks: 0,
      draftPick(cards) {
        if (fullDeck.length !== 30 || !fullDeck.includes(cards[0])) return -1;
        this.picks += 1;
        return this.picks > 5 ? 9 : 0;
      },
      draftReceive(card) {},
      mainPlay(cards, base) { return 0; },
      mainPostprocess(card) {},
    },"""
    bot = js_bot(tmp_path, "counter", source, tag)
    other = python_bot("misbehave_rpsdraft.py", "none", "main", tag)
    proc, result = run_json("rpsdraft", bot, other, "--seed", replay_key("4"), "--matches", "3", "--lifetime", "match")
    assert proc.returncode == 0, proc.stderr  # fresh processes: every match is a first match
    proc, result = run_json("rpsdraft", bot, other, "--seed", replay_key("4"), "--matches", "3", "--lifetime", "tournament")
    assert proc.returncode == 1
    assert len(result["matches"]) == 2 and result["matches"][0]["completed"]
    (fault,) = result["faults"]
    assert fault["kind"] == "illegal_action" and "index 9" in fault["detail"]
    assert processes_with(tag) == []


@needs_node
def test_an_entry_without_a_bot_fails_with_a_clear_message(tmp_path):
    bot = js_bot(tmp_path, "nobot", "var x = 3;\n")
    other = python_bot("misbehave_rpsdraft.py", "none", "main")
    proc, result = run_json("rpsdraft", bot, other, "--seed", replay_key("1"))
    assert proc.returncode == 1
    (fault,) = result["faults"]
    assert fault["seat"] == 0 and fault["kind"] == "crashed"
    assert "found no bot object" in fault["stderr_tail"]


# -- the sample bots -------------------------------------------------------------------

SAMPLE = {
    "minimal.js": f"node {SHIM} {SAMPLES / 'minimal.js'}",
    "simple.js": f"node {SHIM} {SAMPLES / 'simple.js'}",
    "odds.js": f"node {SHIM} {SAMPLES / 'odds.js'}",
    "minimal.py": str(SAMPLES / "minimal_bot.py"),
    "simple.py": str(SAMPLES / "simple_bot.py"),
    "odds.py": str(SAMPLES / "odds_bot.py"),
}


@needs_node
@pytest.mark.parametrize(
    "pair",
    [("minimal.js", "odds.py"), ("odds.js", "simple.py"), ("simple.js", "minimal.py"), ("odds.py", "odds.js")],
)
def test_sample_bots_complete_a_series(pair):
    proc, result = run_json("rpsdraft", *(SAMPLE[b] for b in pair), "--seed", replay_key("8"), "--matches", "10",
                            "--lifetime", "tournament")
    assert proc.returncode == 0, proc.stderr
    assert result["completed"] and len(result["matches"]) == 10
    assert sum(s["payoff"] for s in result["seats"]) == 100


@needs_node
def test_the_odds_bots_beat_the_simple_ones():
    for odds, simple in (("odds.py", "simple.js"), ("odds.js", "minimal.py")):
        proc, result = run_json("rpsdraft", SAMPLE[odds], SAMPLE[simple], "--seed", replay_key("12"), "--matches", "60",
                                "--lifetime", "tournament")
        assert proc.returncode == 0, proc.stderr
        won = [s["payoff"] for s in result["seats"]]
        assert won[0] > won[1] + 60, won  # about 6.2 against 3.8 turns a match
