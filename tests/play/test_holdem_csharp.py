"""The C# shim for Hold'em (seed 003), with real processes: it compiles with
mcs, the seed's evaluator gives the seed's hand values, the runner speaks the
protocol (docs/protocols/holdem.md) to a probe entry, and the seed-style
SeedBot plays real `arena holdem` matches without a fault."""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap

import pytest

from ..conftest import PY, ROOT, replay_key, run_json

# real processes (mcs, mono, the arena): left out of `make test-fast`
pytestmark = pytest.mark.slow

SHIM = ROOT / "shims" / "csharp"
SEED_BOT = ROOT / "sample_bots" / "holdem" / "SeedBot.cs"

# A trivial Python bot: ready, then always call (a check when nothing is owed).
CALL_BOT = textwrap.dedent("""\
    import json, sys
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "match_start":
            print('{"type": "ready"}', flush=True)
        elif msg["type"] == "act":
            print('{"type": "action", "action": "call"}', flush=True)
""")

# The library checked from C#: one "name value" line per check.
LIBRARY_CHECK = r"""
using System;
using System.Collections;
using System.Collections.Generic;
using PlayingCardLibrary;

public static class LibraryCheck
{
    static Card[] Cards(string text)
    {
        return Array.ConvertAll(text.Split(' '), s => new Card(s));
    }

    static void Show(string label, string cards)
    {
        Hand h = new PokerGame5Cards().Evaluate(Cards(cards), label);
        Console.WriteLine(label + " " + h.Value + " " + h.Type + " "
                          + string.Join(",", Array.ConvertAll(h.Cards, c => c.GetMember.ToString()))
                          + " " + (string)h.Player);
    }

    public static void Main()
    {
        Show("seed1", "8H 8D 2H 2D KC");
        Show("seed2", "8S 8C 2S 2C AC");
        Show("flush", "3H 5H JH 8H 2H");
        Show("wheel", "AH 2D 3C 4S 5H");
        Show("six_high", "2D 3C 4S 5H 6H");
        Show("steel_wheel", "5D 4D 3D 2D AD");
        Show("straight_flush", "9S TS JS QS KS");
        Show("royal", "AS KS QS JS TS");
        Show("full_house", "2S KC 2D KD KH");
        Show("quads", "7C 7D 7H 7S AD");
        Show("trips", "9C 9D 9H AS 4D");
        Show("pair", "QH QD 3S 7C 9D");
        Show("high", "AH JD 8S 6C 2D");
        Show("seven_flush", "Ah Kd Kh 7h 2h 9h 3c");
        Show("seven_two_trips", "Kc Kd Kh 2s 2d 2h 5c");
        Show("seven_straight", "Ah 2d 3c 4s 5h 6h Kd");

        // Hands sort strongest first; equal values tie.
        ArrayList hands = new ArrayList();
        foreach (string t in new string[] { "8H 8D 2H 2D KC", "AS KS QS JS TS", "8S 8C 2S 2C AC" })
        {
            Hand h = new Hand(t);
            h.AddCards(Cards(t));
            hands.Add(h);
        }
        hands.Sort();
        Console.WriteLine("hand_order " + string.Join("|", Array.ConvertAll(hands.ToArray(), o => (string)((Hand)o).Player)));

        try { new PokerGame5Cards().Evaluate(Cards("AH KH QH JH"), null); Console.WriteLine("four_cards accepted"); }
        catch (ArgumentException) { Console.WriteLine("four_cards ArgumentException"); }

        // Cards: by member (aces first), or like a new deck with sortWithSuit.
        ArrayList cards = new ArrayList(Cards("2c As Kh Ah 2s Td"));
        cards.Sort();
        Console.WriteLine("by_member " + string.Join(" ", Array.ConvertAll(cards.ToArray(), o => o.ToString())));
        Card.sortWithSuit = true;
        cards.Sort();
        Console.WriteLine("by_suit " + string.Join(" ", Array.ConvertAll(cards.ToArray(), o => o.ToString())));
        Card.sortWithSuit = false;

        // The deck deals 52 different cards, then OutOfCardsException.
        Deck deck = new Deck(7);
        deck.Shuffle();
        HashSet<string> dealt = new HashSet<string>();
        while (deck.HasNext()) dealt.Add(deck.DealNext().ToString());
        string after;
        try { deck.DealNext(); after = "dealt"; } catch (OutOfCardsException) { after = "OutOfCardsException"; }
        Console.WriteLine("deck " + dealt.Count + " " + after);

        // The seed's members read both as properties and as method calls.
        HoldemGameState s = new HoldemGameState(
            1, 4, -1, "flop", Cards("Ah Kd"), Cards("2c 7h Kh"), new int[] { 300, 250, 0 }, new int[] { 20, 0, 0 },
            90, 20, 0, 1, 2, 1, 2, 0, new int[] { 0, 1 }, new int[] { 0, 1, 2 }, new string[] { "a", "b", "c" },
            new HoldemActionEvent(Actions.RAISE, 20, "raise", 0, "a", 4, 20, 20, 300, 90, false),
            new Actions[] { Actions.FOLD, Actions.CALL, Actions.RAISE, Actions.ALLIN }, 40, 250);
        ActivePlayer[] asArray = s.GetPlayerList();
        List<ActivePlayer> asList = s.GetPlayerList;
        int folded = 0;
        foreach (ActivePlayer p in s.GetAllPlayers()) if (p.IsFolded) folded++;
        Console.WriteLine("forms " + s.PlayersChipCount + " " + s.PlayersChipCount() + " " + s.PlayersChipCount(0)
                          + " " + s.AmountNeededToCall + " " + s.AmountNeededToCall() + " " + s.GetPotSize + " "
                          + s.GetPotSize() + " " + s.GetBigBlind() + " " + s.GetCommunityCards().Length + " "
                          + s.GetCommunityCards.Length + " " + s.GetLastAction().Actions() + " "
                          + s.GetLastAction.Amount() + " " + asArray.Length + " " + asList.Count + " " + folded + " "
                          + s.GetAllPlayers()[2].Name + " " + s.GetAllPlayers()[2].IsFolded);
        HoldemActionEvent raise = new HoldemActionEvent(Actions.RAISE, 20);
        HoldemActionEvent call = new HoldemActionEvent(Actions.CALL);
        Console.WriteLine("events " + raise.Actions + " " + raise.Amount() + " " + call.Actions() + " " + call.Amount
                          + " " + (int)Actions.FOLD + (int)Actions.CALL + (int)Actions.RAISE + (int)Actions.ALLIN);
    }
}
"""

# An entry that shows what the runner gives it, on stdout (which the runner
# sends to stderr), and answers from a fixed list, whatever is legal.
PROBE = r"""
using System;

public class ProbeBot : HoldemPlayer
{
    int asked;

    public override HoldemActionEvent EvaluateCurrentAction(HoldemGameState state)
    {
        Console.WriteLine("ACT " + seat + " " + string.Join(",", Array.ConvertAll(cards, c => c.ToString()))
                          + " btn=" + isButton + " sb=" + isSmallBlind + " bb=" + isBigBlind
                          + " chips=" + state.PlayersChipCount() + " call=" + state.AmountNeededToCall()
                          + " pot=" + state.GetPotSize() + " bb_amount=" + state.GetBigBlind()
                          + " board=" + state.GetCommunityCards().Length + " players=" + state.GetPlayerList().Count
                          + " last=" + state.GetLastAction());
        switch (asked++)
        {
            case 0: return new HoldemActionEvent(Actions.RAISE, state.MinRaiseTo);
            case 1: return new HoldemActionEvent(Actions.CALL);
            case 2: return new HoldemActionEvent(Actions.FOLD);
            case 3: return new HoldemActionEvent(Actions.ALLIN);
            case 4: return null;
            default: return new HoldemActionEvent((Actions)9);
        }
    }

    public override void HoldemActionUpdate(HoldemActionEvent action)
    {
        Console.WriteLine("UPDATE " + action.Seat + " " + action.Actions() + " " + action.Amount() + " "
                          + action.Kind + " " + action.Added);
    }
}
"""

THROWER = r"""
public class Thrower : HoldemPlayer
{
    public override HoldemActionEvent EvaluateCurrentAction(HoldemGameState state)
    {
        throw new System.InvalidOperationException("the entry gave up");
    }
    public override void HoldemActionUpdate(HoldemActionEvent action) { }
}
"""

# Folds even when it could check: the shim sends it as it is, the arena refuses it.
FOLDER = r"""
public class Folder : HoldemPlayer
{
    public override HoldemActionEvent EvaluateCurrentAction(HoldemGameState state)
    {
        return new HoldemActionEvent(Actions.FOLD);
    }
    public override void HoldemActionUpdate(HoldemActionEvent action) { }
}
"""

# Seed-style randomness: the shim's Deck and System.Random, whose start-up
# reads mono's /etc/mono/config (not in the sandbox's view once).
DECKER = r"""
using System;
public class Decker : HoldemPlayer
{
    private readonly Deck deck = new Deck(7);
    private readonly Random random = new Random(11);
    public override HoldemActionEvent EvaluateCurrentAction(HoldemGameState state)
    {
        deck.Shuffle();
        return new HoldemActionEvent(Actions.CALL);
    }
    public override void HoldemActionUpdate(HoldemActionEvent action) { random.Next(); }
}
"""

HAND_START = {"type": "hand_start", "hand": 0, "tournament": None, "seat": 2, "cards": ["Ah", "Kd"],
              "button": 0, "small_blind_seat": 1, "big_blind_seat": 2, "small_blind": 1, "big_blind": 2,
              "ante": 0, "stacks": [400, 399, 398], "bets": [0, 1, 2], "in_hand": [0, 1, 2]}
ACT = {"type": "act", "hand": 0, "street": "preflop", "seat": 2, "cards": ["Ah", "Kd"], "board": [],
       "stacks": [394, 399, 398], "bets": [6, 1, 2], "pot": 9, "to_call": 4, "button": 0,
       "small_blind_seat": 1, "big_blind_seat": 2, "small_blind": 1, "big_blind": 2, "in_hand": [0, 2],
       "last_action": {"seat": 1, "action": "fold", "amount": 0}, "legal": ["fold", "call", "raise", "allin"],
       "min_raise_to": 10, "max_raise_to": 400}


def mcs(*args: str) -> subprocess.CompletedProcess:
    if shutil.which("mcs") is None or shutil.which("mono") is None:
        pytest.fail("mcs or mono is not installed: `make system-deps` installs mono-mcs and mono-runtime")
    return subprocess.run(["mcs", "-nologo", "-warn:4", *args], capture_output=True, text=True, timeout=180)


def build(out, *sources, main: str | None = None) -> str:
    shim = sorted(str(p) for p in SHIM.glob("*.cs"))
    proc = mcs(f"-out:{out}", *([f"-main:{main}"] if main else []), *shim, *map(str, sources))
    assert proc.returncode == 0, f"mcs failed:\n{proc.stdout}{proc.stderr}"
    return str(out)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("holdem-csharp")
    exes = {}
    for name, source in (("probe", PROBE), ("thrower", THROWER), ("folder", FOLDER), ("decker", DECKER)):
        (folder / f"{name}.cs").write_text(source)
        exes[name] = build(folder / f"{name}.exe", folder / f"{name}.cs")
    (folder / "check.cs").write_text(LIBRARY_CHECK)
    exes["check"] = build(folder / "check.exe", folder / "check.cs", main="LibraryCheck")
    exes["seed"] = build(folder / "SeedBot.exe", SEED_BOT)
    (folder / "call_bot.py").write_text(CALL_BOT)
    exes["call_bot"] = f"{PY} {folder / 'call_bot.py'}"
    exes["folder_path"] = folder
    return exes


def mono(exe: str, lines: list, *args: str) -> subprocess.CompletedProcess:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    return subprocess.run(["mono", exe, *args], input=text, capture_output=True, text=True, timeout=60)


def test_the_shim_and_the_seed_bot_compile_without_warnings(tmp_path):
    shim = sorted(str(p) for p in SHIM.glob("*.cs"))
    proc = mcs(f"-out:{tmp_path / 'SeedBot.exe'}", *shim, str(SEED_BOT))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "warning" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    # the documented command builds the same thing
    script = subprocess.run(["sh", str(SHIM / "build.sh"), str(SEED_BOT), str(tmp_path / "out" / "Seed.exe")],
                            capture_output=True, text=True, timeout=180)
    assert script.returncode == 0 and (tmp_path / "out" / "Seed.exe").exists(), script.stdout + script.stderr


def test_the_evaluator_gives_the_seeds_values(built):
    proc = subprocess.run(["mono", built["check"]], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines())

    def hand(label):
        value, kind, members, player = lines[label].split()
        assert player == label  # Evaluate keeps the object it was given
        return int(value), kind, [int(m) for m in members.split(",")]

    def value(kind, *members):
        v = kind << 20
        for i, m in enumerate(members):
            v |= m << (16 - 4 * i)
        return v

    # The seed's example two: 0010 1000 1000 0010 0010 1101 and ... 1110.
    assert hand("seed1") == (0b0010_1000_1000_0010_0010_1101, "TwoPair", [8, 8, 2, 2, 13])
    assert hand("seed2") == (0b0010_1000_1000_0010_0010_1110, "TwoPair", [8, 8, 2, 2, 14])
    assert hand("flush") == (value(5, 11, 8, 5, 3, 2), "Flush", [11, 8, 5, 3, 2])
    assert hand("wheel") == (value(4, 5, 4, 3, 2, 14), "Straight", [5, 4, 3, 2, 14])
    assert hand("six_high")[0] == value(4, 6, 5, 4, 3, 2) > hand("wheel")[0]
    assert hand("steel_wheel") == (value(8, 5, 4, 3, 2, 14), "StraightFlush", [5, 4, 3, 2, 14])
    assert hand("straight_flush") == (value(8, 13, 12, 11, 10, 9), "StraightFlush", [13, 12, 11, 10, 9])
    assert hand("royal") == (value(9, 14, 13, 12, 11, 10), "RoyalFlush", [14, 13, 12, 11, 10])
    assert hand("full_house") == (value(6, 13, 13, 13, 2, 2), "FullHouse", [13, 13, 13, 2, 2])
    assert hand("quads") == (value(7, 7, 7, 7, 7, 14), "FourOfAKind", [7, 7, 7, 7, 14])
    assert hand("trips") == (value(3, 9, 9, 9, 14, 4), "ThreeOfAKind", [9, 9, 9, 14, 4])
    assert hand("pair") == (value(1, 12, 12, 9, 7, 3), "Pair", [12, 12, 9, 7, 3])
    assert hand("high") == (value(0, 14, 11, 8, 6, 2), "HighCard", [14, 11, 8, 6, 2])
    # the best five of seven
    assert hand("seven_flush") == (value(5, 14, 13, 9, 7, 2), "Flush", [14, 13, 9, 7, 2])
    assert hand("seven_two_trips") == (value(6, 13, 13, 13, 2, 2), "FullHouse", [13, 13, 13, 2, 2])
    assert hand("seven_straight") == (value(4, 6, 5, 4, 3, 2), "Straight", [6, 5, 4, 3, 2])
    # the categories are ordered, so the values are too
    order = ["high", "pair", "seed2", "trips", "six_high", "flush", "full_house", "quads", "straight_flush", "royal"]
    assert [hand(k)[0] for k in order] == sorted(hand(k)[0] for k in order)

    assert lines["hand_order"] == "AS KS QS JS TS|8S 8C 2S 2C AC|8H 8D 2H 2D KC"
    assert lines["four_cards"] == "ArgumentException"
    assert lines["by_member"] == "As Ah Kh Td 2s 2c"
    assert lines["by_suit"] == "As 2s Ah Kh Td 2c"
    assert lines["deck"] == "52 OutOfCardsException"
    # chips(prop, call, seat 0), to call x2, pot x2, big blind, board x2, last action, its amount,
    # active players as array and list, folded among all players, seat 2's name and folded flag
    assert lines["forms"] == "250 250 300 20 20 90 90 2 3 3 RAISE 20 2 2 1 c True"
    assert lines["events"] == "RAISE 20 CALL 0 1234"


def test_the_runner_speaks_the_protocol(built):
    lines = [
        {"type": "match_start", "game": "holdem", "game_version": 1, "match": 0, "seat": 2, "role": None,
         "players": ["a", "b", "me"], "params": {}},
        HAND_START,
        {"type": "action", "hand": 0, "seat": 0, "action": "raise", "amount": 6, "bet": 6, "stack": 394,
         "pot": 9, "all_in": False},
        {"type": "action", "hand": 0, "seat": 1, "action": "fold", "amount": 0, "bet": 1, "stack": 399,
         "pot": 9, "all_in": False},
        ACT,
        {"type": "something_new", "nested": [1, {"x": None}], "text": "a \"quoted\" \u00e9"},
        "this line is not JSON",
        {"type": "street", "hand": 0, "street": "flop", "board": ["2c", "7h", "Kh"], "pot": 25},
        ACT, ACT, ACT, ACT, ACT,
        {"type": "hand_end", "hand": 0, "board": [], "shown": [], "pots": [], "stacks": [400, 400, 400],
         "profits": [0, 0, 0]},
        {"type": "match_end", "match": 0, "scores": [0, 0, 0], "completed": True},
    ]
    proc = mono(built["probe"], lines)
    assert proc.returncode == 0, proc.stderr
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert replies == [
        {"type": "ready"},
        {"type": "action", "action": "raise", "to": 10},
        {"type": "action", "action": "call"},
        {"type": "action", "action": "fold"},
        {"type": "action", "action": "allin"},
        {"type": "action", "action": None},   # null: sent for the arena to refuse
        {"type": "action", "action": "9"},    # not one of the four actions
    ]
    err = proc.stderr.splitlines()
    # the entry's Console output went to stderr; each update came before the request
    assert err[0] == "UPDATE 0 RAISE 6 raise 6"
    assert err[1] == "UPDATE 1 FOLD 0 fold 0"
    assert err[2] == ("ACT 2 Ah,Kd btn=False sb=False bb=True chips=398 call=4 pot=9 bb_amount=2 board=0 "
                      "players=2 last=seat 1 fold")
    assert any("not a JSON object" in line for line in err)
    assert any("returned null" in line for line in err)


def test_finding_the_entry(built, tmp_path):
    # no entry: a clear message and exit code 2
    nothing = tmp_path / "nothing.cs"
    nothing.write_text("public class NotABot { }\n")
    exe = build(tmp_path / "nothing.exe", nothing)
    proc = mono(exe, [])
    assert proc.returncode == 2 and "no concrete subclass of HoldemPlayer" in proc.stderr
    # two entries: the runner names them and --class picks one
    two = tmp_path / "two.cs"
    two.write_text(PROBE + FOLDER)
    exe = build(tmp_path / "two.exe", two)
    proc = mono(exe, [])
    assert proc.returncode == 2 and "--class" in proc.stderr and "ProbeBot" in proc.stderr
    proc = mono(exe, [HAND_START, ACT], "--class", "Folder")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"type": "action", "action": "fold"}


def test_an_exception_in_the_entry_ends_the_process(built):
    proc = mono(built["thrower"], [HAND_START, ACT, ACT])
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "EvaluateCurrentAction" in proc.stderr and "the entry gave up" in proc.stderr


def test_the_seed_bot_plays_a_cash_match(built):
    proc, result = run_json("holdem", f"mono {built['seed']}", built["call_bot"], "--hands", "60", "--seed", replay_key("1"),
                            timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert result["completed"] and result["faults"] == [], result["faults"]
    assert result["hands"] == 60
    assert sum(s["payoff"] for s in result["seats"]) == 0
    assert result["seats"][0]["ending"] == "exited 0"


def test_the_seed_bot_plays_freezeouts_against_itself(built):
    seed = f"mono {built['seed']}"
    proc, result = run_json("holdem", seed, seed, built["call_bot"], "--mode", "freezeout",
                            "--tournaments", "2", "--seed", replay_key("3"), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert result["completed"] and result["faults"] == [], result["faults"]


def test_a_fold_when_checking_is_free_is_sent_as_a_check(built):
    # The seed is silent; the shim reads the always-folding entry's free folds as the checks they mean.
    proc, result = run_json("holdem", built["call_bot"], f"mono {built['folder']}", "--hands", "20", "--seed", replay_key("1"),
                            timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert result["completed"] and result["faults"] == [], result["faults"]
    assert result["seats"][1]["payoff"] < 0


SEED_READINGS = r"""
using System;
public class Readings : HoldemPlayer
{
    private readonly PokerGames5Cards spelled = new PokerGames5Cards();
    public override HoldemActionEvent EvaluateCurrentAction(HoldemGameState state)
    {
        foreach (ActivePlayer p in state.GetPlayerList())
            if (p.IsFolded) throw new Exception("GetPlayerList listed a folded seat " + p.Seat);
        if (state.PlayersChipCount(this) != state.PlayersChipCount) throw new Exception("PlayersChipCount(this)");
        Card[] board = state.GetCommunityCards();
        if (board.Length >= 3)
        {
            Card[] all = new Card[board.Length + 2];
            cards.CopyTo(all, 0);
            board.CopyTo(all, 2);
            Hand a = PokerGame5Cards.Evaluate(all, this);
            Hand b = spelled.Evaluate(all, this);
            if (a.Value != b.Value) throw new Exception("two evaluators disagree");
        }
        return new HoldemActionEvent(Actions.FOLD);
    }
    public override void HoldemActionUpdate(HoldemActionEvent action) { }
}
"""


def test_the_seed_readings_compile_and_play(built, tmp_path):
    # PokerGames5Cards, state.PlayersChipCount(this), PokerGame5Cards.Evaluate as the seed calls it,
    # GetPlayerList giving the active players only, and folds where a check is free.
    (tmp_path / "readings.cs").write_text(SEED_READINGS)
    exe = build(tmp_path / "readings.exe", tmp_path / "readings.cs")
    proc, result = run_json("holdem", f"mono {exe}", built["call_bot"], built["call_bot"], "--hands", "12",
                            "--seed", replay_key("2"), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert result["completed"] and result["faults"] == [], result["faults"]


def test_an_entry_using_deck_and_random_plays_in_the_default_sandbox(built):
    # basic: the level a machine without bubblewrap defaults to (mono's view is the same at strict)
    proc, result = run_json("holdem", f"mono {built['decker']}", built["call_bot"], "--hands", "5", "--seed", replay_key("1"),
                            "--sandbox", "basic", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert result["completed"] and result["faults"] == [], result["faults"]
    assert result["sandbox"]["level"] != "none", result["sandbox"]
