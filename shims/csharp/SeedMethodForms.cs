// The seed names members of its API without saying whether they are methods
// or properties ("the methods Actions and Amount", "GetPlayerList (returns a
// list ...)", while its own code reads card.GetMember as a property). The
// shim defines them as properties; these extension methods make the call
// forms compile too, so both state.GetPotSize and state.GetPotSize() work
// (with mcs, which binds x.P() to an extension method P when P is a property).
using System;

public static class SeedMethodForms
{
    public static Actions Actions(this HoldemActionEvent e) { return e.Actions; }
    public static int Amount(this HoldemActionEvent e) { return e.Amount; }

    public static int PlayersChipCount(this HoldemGameState s) { return s.PlayersChipCount; }
    public static int PlayersChipCount(this HoldemGameState s, int seat) { return s.ChipCountOf(seat); }
    /// <summary>state.PlayersChipCount(this), as the seed's code asks for its own chips.</summary>
    public static int PlayersChipCount(this HoldemGameState s, AbstractPlayer player) { return s.ChipCountOf(player.seat); }
    public static PlayerList GetAllPlayers(this HoldemGameState s) { return s.GetAllPlayers; }
    public static int AmountNeededToCall(this HoldemGameState s) { return s.AmountNeededToCall; }
    public static PlayerList GetPlayerList(this HoldemGameState s) { return s.GetPlayerList; }
    public static Card[] GetCommunityCards(this HoldemGameState s) { return s.GetCommunityCards; }
    public static int GetBigBlind(this HoldemGameState s) { return s.GetBigBlind; }
    public static int GetPotSize(this HoldemGameState s) { return s.GetPotSize; }
    public static HoldemActionEvent GetLastAction(this HoldemGameState s) { return s.GetLastAction; }

    public static int GetMember(this Card c) { return c.GetMember; }
    public static Suit GetSuit(this Card c) { return c.GetSuit; }
}
