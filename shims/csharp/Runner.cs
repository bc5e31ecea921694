// The runner: speaks the arena's holdem protocol (docs/protocols/holdem.md) on
// stdin/stdout and calls the entry, the one concrete HoldemPlayer subclass
// compiled into the same program. Build and run: see docs/shims.md, "C# (Hold'em, seed 003)".
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Text;

/// <summary>An exception thrown by the entry's own code.</summary>
public class EntryFailedException : Exception
{
    public EntryFailedException(string where, Exception inner)
        : base("the entry threw in " + where + ": " + inner, inner) { }
}

public static class HoldemShimRunner
{
    /// <summary>Arguments: [--class NAME] picks the entry class when the program holds several.</summary>
    public static int Main(string[] args)
    {
        // The protocol stream is private: whatever the entry prints with
        // Console.Write goes to stderr and cannot break the protocol.
        TextWriter protocol = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));
        protocol.NewLine = "\n";
        Console.SetOut(Console.Error);
        TextReader input = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));

        string wanted = null;
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] == "--class" && i + 1 < args.Length) wanted = args[++i];
            else if (args[i].StartsWith("--class=")) wanted = args[i].Substring("--class=".Length);
        }

        HoldemPlayer entry;
        try
        {
            entry = CreateEntry(wanted);
        }
        catch (EntryFailedException e)
        {
            Console.Error.WriteLine("holdem runner: " + e.Message);
            return 1;
        }
        catch (Exception e)
        {
            Console.Error.WriteLine("holdem runner: " + e.Message);
            return 2;
        }

        HoldemSession session = new HoldemSession(entry, protocol);
        try
        {
            string line;
            while ((line = input.ReadLine()) != null) session.Handle(line);
        }
        catch (EntryFailedException e)
        {
            Console.Error.WriteLine("holdem runner: " + e.Message);
            return 1;
        }
        catch (IOException e)
        {
            // The arena closed the pipe: the match is over for this process.
            Console.Error.WriteLine("holdem runner: " + e.Message);
            return 0;
        }
        return 0;
    }

    /// <summary>The one concrete subclass of HoldemPlayer in this program (or the one named).</summary>
    public static HoldemPlayer CreateEntry(string wanted)
    {
        List<Type> found = new List<Type>();
        Assembly program = Assembly.GetEntryAssembly() ?? typeof(HoldemShimRunner).Assembly;
        Type[] types;
        try { types = program.GetTypes(); }
        catch (ReflectionTypeLoadException e) { types = Array.FindAll(e.Types, t => t != null); }
        foreach (Type t in types)
        {
            if (!typeof(HoldemPlayer).IsAssignableFrom(t) || t.IsAbstract || t.ContainsGenericParameters) continue;
            if (wanted == null || t.Name == wanted || t.FullName == wanted) found.Add(t);
        }
        if (found.Count != 1)
        {
            List<string> all = new List<string>();
            foreach (Type t in types)
                if (typeof(HoldemPlayer).IsAssignableFrom(t) && !t.IsAbstract) all.Add(t.FullName);
            string listed = all.Count == 0 ? "none" : string.Join(", ", all.ToArray());
            if (found.Count == 0 && wanted != null)
                throw new InvalidOperationException("no concrete HoldemPlayer subclass named " + wanted + " (found: " + listed + ")");
            if (found.Count == 0)
                throw new InvalidOperationException("found no concrete subclass of HoldemPlayer: compile the entry with the shim");
            throw new InvalidOperationException("found several HoldemPlayer subclasses (" + listed + "): pick one with --class NAME");
        }
        Type entryType = found[0];
        ConstructorInfo make = entryType.GetConstructor(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic,
                                                        null, Type.EmptyTypes, null);
        if (make == null)
            throw new InvalidOperationException(entryType.FullName + " has no constructor without arguments");
        HoldemPlayer player;
        try
        {
            player = (HoldemPlayer)make.Invoke(null);
        }
        catch (TargetInvocationException e)
        {
            throw new EntryFailedException(entryType.Name + "'s constructor", e.InnerException ?? e);
        }
        if (player.name == null) player.name = entryType.Name;
        return player;
    }
}

/// <summary>One process's conversation with the arena: the state between messages.</summary>
public class HoldemSession
{
    private readonly HoldemPlayer entry;
    private readonly TextWriter protocol;
    private string[] names = new string[0];
    private int hand = -1, tournament = -1, ante;
    private int[] dealtIn = new int[0];
    private HoldemActionEvent lastEvent;

    public HoldemSession(HoldemPlayer entry, TextWriter protocol)
    {
        this.entry = entry;
        this.protocol = protocol;
    }

    /// <summary>Handles one line from the arena. Lines it cannot read, and
    /// messages it does not know, are ignored (with a note on stderr for the former).</summary>
    public void Handle(string line)
    {
        if (line.Trim().Length == 0) return;
        IDictionary<string, object> msg;
        try
        {
            msg = MiniJson.Parse(line) as IDictionary<string, object>;
            if (msg == null) throw new FormatException("not a JSON object");
        }
        catch (FormatException e)
        {
            Console.Error.WriteLine("holdem runner: ignored a line that is not a JSON object (" + e.Message + "): " + line);
            return;
        }
        switch (MiniJson.Str(msg, "type", ""))
        {
            case "match_start": MatchStart(msg); break;
            case "hand_start": HandStart(msg); break;
            case "action": ActionNotice(msg); break;
            case "act": Act(msg); break;
            default: break; // street, hand_end, tournament_end, match_end and anything new: nothing to do
        }
    }

    private void Send(string json)
    {
        protocol.Write(json);
        protocol.Write("\n");
        protocol.Flush();
    }

    private void MatchStart(IDictionary<string, object> msg)
    {
        names = MiniJson.Strs(msg, "players");
        entry.seat = MiniJson.Int(msg, "seat", entry.seat);
        hand = -1;
        lastEvent = null;
        Send("{\"type\":\"ready\"}");
    }

    private void HandStart(IDictionary<string, object> msg)
    {
        hand = MiniJson.Int(msg, "hand", -1);
        tournament = MiniJson.Int(msg, "tournament", -1);
        ante = MiniJson.Int(msg, "ante", 0);
        dealtIn = MiniJson.Ints(msg, "in_hand");
        lastEvent = null;
        int seat = MiniJson.Int(msg, "seat", entry.seat);
        entry.seat = seat;
        entry.cards = Cards(msg, "cards");
        entry.isButton = MiniJson.Int(msg, "button", -1) == seat;
        entry.isSmallBlind = MiniJson.Int(msg, "small_blind_seat", -1) == seat;
        entry.isBigBlind = MiniJson.Int(msg, "big_blind_seat", -1) == seat;
    }

    private void ActionNotice(IDictionary<string, object> msg)
    {
        string kind = MiniJson.Str(msg, "action", "");
        int seat = MiniJson.Int(msg, "seat", -1);
        int bet = MiniJson.Int(msg, "bet", 0);
        HoldemActionEvent e = new HoldemActionEvent(
            ActionOf(kind), kind == "fold" ? 0 : bet, kind, seat, NameOf(seat), MiniJson.Int(msg, "hand", hand),
            MiniJson.Int(msg, "amount", 0), bet, MiniJson.Int(msg, "stack", 0), MiniJson.Int(msg, "pot", 0),
            MiniJson.Bool(msg, "all_in", false));
        lastEvent = e;
        try
        {
            entry.HoldemActionUpdate(e);
        }
        catch (Exception x)
        {
            throw new EntryFailedException("HoldemActionUpdate", x);
        }
    }

    private void Act(IDictionary<string, object> msg)
    {
        int seat = MiniJson.Int(msg, "seat", entry.seat);
        int actHand = MiniJson.Int(msg, "hand", hand);
        int[] inHand = MiniJson.Ints(msg, "in_hand");
        int[] stacks = MiniJson.Ints(msg, "stacks");
        int[] bets = MiniJson.Ints(msg, "bets");
        List<Actions> legal = new List<Actions>();
        foreach (string word in MiniJson.Strs(msg, "legal"))
        {
            Actions a = ActionOf(word);
            if (a != 0) legal.Add(a);
        }
        Card[] hole = Cards(msg, "cards");
        entry.seat = seat;
        entry.cards = hole;

        HoldemGameState state = new HoldemGameState(
            seat, actHand, actHand == hand ? tournament : -1, MiniJson.Str(msg, "street", ""), hole,
            Cards(msg, "board"), stacks, bets, MiniJson.Int(msg, "pot", 0), MiniJson.Int(msg, "to_call", 0),
            MiniJson.Int(msg, "button", -1), MiniJson.Int(msg, "small_blind_seat", -1),
            MiniJson.Int(msg, "big_blind_seat", -1), MiniJson.Int(msg, "small_blind", 0),
            MiniJson.Int(msg, "big_blind", 0), actHand == hand ? ante : 0,
            inHand, actHand == hand && dealtIn.Length > 0 ? dealtIn : inHand, names,
            LastAction(MiniJson.Obj(msg, "last_action"), actHand, bets), legal.ToArray(),
            MiniJson.Int(msg, "min_raise_to", 0), MiniJson.Int(msg, "max_raise_to", 0));

        HoldemActionEvent answer;
        try
        {
            answer = entry.EvaluateCurrentAction(state);
        }
        catch (Exception x)
        {
            throw new EntryFailedException("EvaluateCurrentAction", x);
        }
        // The seed is silent on a fold when checking is free; what it means is a check.
        if (answer != null && answer.Actions == Actions.FOLD && state.AmountNeededToCall == 0)
            answer = new HoldemActionEvent(Actions.CALL);
        Send(Reply(answer));
    }

    /// <summary>The reply line for the entry's answer, sent as it is: the arena judges it.</summary>
    public static string Reply(HoldemActionEvent answer)
    {
        if (answer == null)
        {
            Console.Error.WriteLine("holdem runner: EvaluateCurrentAction returned null");
            return "{\"type\":\"action\",\"action\":null}";
        }
        switch (answer.Actions)
        {
            case Actions.FOLD: return "{\"type\":\"action\",\"action\":\"fold\"}";
            case Actions.CALL: return "{\"type\":\"action\",\"action\":\"call\"}";
            case Actions.ALLIN: return "{\"type\":\"action\",\"action\":\"allin\"}";
            case Actions.RAISE: return "{\"type\":\"action\",\"action\":\"raise\",\"to\":" + answer.Amount + "}";
            default:
                // Not one of the four: sent as its number, which the arena refuses.
                return "{\"type\":\"action\",\"action\":" + MiniJson.Quote(((int)answer.Actions).ToString()) + "}";
        }
    }

    /// <summary>The act request's last_action, as the event the entry was told of when it is that one.</summary>
    private HoldemActionEvent LastAction(IDictionary<string, object> last, int actHand, int[] bets)
    {
        if (last == null) return null;
        string kind = MiniJson.Str(last, "action", "");
        int seat = MiniJson.Int(last, "seat", -1);
        if (lastEvent != null && lastEvent.Seat == seat && lastEvent.Kind == kind && lastEvent.HandNumber == actHand)
            return lastEvent;
        int amount = MiniJson.Int(last, "amount", 0);
        // Not reported before (a blind): its amount was the seat's first chips of the street.
        return new HoldemActionEvent(ActionOf(kind), kind == "fold" ? 0 : amount, kind, seat, NameOf(seat), actHand,
                                     amount, amount, -1, -1, false);
    }

    /// <summary>The arena's word as the seed's enum; blinds are RAISE (the opening bet); unknown words 0.</summary>
    public static Actions ActionOf(string word)
    {
        switch (word)
        {
            case "fold": return Actions.FOLD;
            case "call": case "check": return Actions.CALL;
            case "raise": case "bet": case "small_blind": case "big_blind": return Actions.RAISE;
            case "allin": return Actions.ALLIN;
            default: return 0;
        }
    }

    private string NameOf(int seat)
    {
        return seat >= 0 && seat < names.Length && names[seat] != null ? names[seat] : "seat " + seat;
    }

    private static Card[] Cards(IDictionary<string, object> msg, string key)
    {
        string[] texts = MiniJson.Strs(msg, key);
        List<Card> cards = new List<Card>(texts.Length);
        foreach (string t in texts)
        {
            if (t == null) continue;
            try { cards.Add(new Card(t)); }
            catch (FormatException) { Console.Error.WriteLine("holdem runner: ignored a card it cannot read: " + t); }
        }
        return cards.ToArray();
    }
}
