// The seed's game state, handed to EvaluateCurrentAction: built from the arena's act request.
using System;
using System.Collections;
using System.Collections.Generic;

/// <summary>
/// The game as the acting seat sees it when asked to act. The seed's members
/// (PlayersChipCount, AmountNeededToCall, GetPlayerList, GetCommunityCards,
/// GetBigBlind, GetPotSize, GetLastAction) are properties here and can also be
/// called as methods (see SeedMethodForms.cs); PlayersChipCount(seat) gives
/// any seat's chips. The other members are the arena's additions.
/// </summary>
public class HoldemGameState
{
    private readonly int[] stacks, bets, inHand, dealtIn;
    private readonly string[] names;
    private readonly Card[] board, holeCards;
    private readonly Actions[] legal;
    private readonly HoldemActionEvent lastAction;

    public HoldemGameState(int seat, int hand, int tournament, string street, Card[] holeCards, Card[] board,
                           int[] stacks, int[] bets, int pot, int toCall, int button, int smallBlindSeat,
                           int bigBlindSeat, int smallBlind, int bigBlind, int ante, int[] inHand, int[] dealtIn,
                           string[] names, HoldemActionEvent lastAction, Actions[] legal, int minRaiseTo,
                           int maxRaiseTo)
    {
        Seat = seat;
        HandNumber = hand;
        Tournament = tournament;
        Street = street;
        this.holeCards = holeCards ?? new Card[0];
        this.board = board ?? new Card[0];
        this.stacks = stacks ?? new int[0];
        this.bets = bets ?? new int[0];
        GetPotSize = pot;
        AmountNeededToCall = toCall;
        Button = button;
        SmallBlindSeat = smallBlindSeat;
        BigBlindSeat = bigBlindSeat;
        SmallBlind = smallBlind;
        GetBigBlind = bigBlind;
        Ante = ante;
        this.inHand = inHand ?? new int[0];
        this.dealtIn = dealtIn ?? this.inHand;
        this.names = names ?? new string[0];
        this.lastAction = lastAction;
        this.legal = legal ?? new Actions[0];
        MinRaiseTo = minRaiseTo;
        MaxRaiseTo = maxRaiseTo;
    }

    // ---- the seed's members ----------------------------------------------------

    /// <summary>The acting player's chips behind (not counting its bet on this street).</summary>
    public int PlayersChipCount { get { return ChipCountOf(Seat); } }

    /// <summary>What a call costs now (0: a call is a check). More than PlayersChipCount
    /// means a call puts in every chip.</summary>
    public int AmountNeededToCall { get; private set; }

    /// <summary>The active players: the seats still in this hand (not folded), in seat order, as the
    /// seed says. GetAllPlayers also lists the seats that folded (IsFolded).</summary>
    public PlayerList GetPlayerList
    {
        get
        {
            PlayerList list = new PlayerList();
            foreach (ActivePlayer p in GetAllPlayers)
                if (!p.IsFolded) list.Add(p);
            return list;
        }
    }

    /// <summary>Every seat dealt into this hand, in seat order, folded ones included (IsFolded).</summary>
    public PlayerList GetAllPlayers
    {
        get
        {
            PlayerList list = new PlayerList();
            foreach (int s in dealtIn)
                list.Add(new ActivePlayer(s, NameOf(s), ChipCountOf(s), BetOf(s), Array.IndexOf(inHand, s) < 0,
                                          s == Button, s == SmallBlindSeat, s == BigBlindSeat));
            return list;
        }
    }

    /// <summary>The board: 0, 3, 4 or 5 cards (a fresh copy).</summary>
    public Card[] GetCommunityCards { get { return (Card[])board.Clone(); } }

    public int GetBigBlind { get; private set; }

    /// <summary>Every chip put in this hand, the bets of this street included.</summary>
    public int GetPotSize { get; private set; }

    /// <summary>The last action of the hand (a blind counts), or null.</summary>
    public HoldemActionEvent GetLastAction { get { return lastAction; } }

    // ---- the arena's additions -------------------------------------------------

    /// <summary>The acting seat (yours).</summary>
    public int Seat { get; private set; }
    public int HandNumber { get; private set; }
    /// <summary>The freezeout tournament's index; -1 in cash.</summary>
    public int Tournament { get; private set; }
    /// <summary>"preflop", "flop", "turn" or "river".</summary>
    public string Street { get; private set; }
    public int Button { get; private set; }
    public int SmallBlindSeat { get; private set; }
    public int BigBlindSeat { get; private set; }
    public int SmallBlind { get; private set; }
    public int Ante { get; private set; }
    /// <summary>The lowest legal raise-to; 0 when RAISE is not legal.</summary>
    public int MinRaiseTo { get; private set; }
    /// <summary>The highest legal raise-to (your bet plus your chips); 0 when RAISE is not legal.</summary>
    public int MaxRaiseTo { get; private set; }

    /// <summary>Your hole cards (a copy).</summary>
    public Card[] HoleCards { get { return (Card[])holeCards.Clone(); } }
    /// <summary>Chips behind of every seat of the match, by seat (eliminated seats 0).</summary>
    public int[] Stacks { get { return (int[])stacks.Clone(); } }
    /// <summary>Every seat's bet on this street, by seat.</summary>
    public int[] Bets { get { return (int[])bets.Clone(); } }
    /// <summary>The seats that have not folded.</summary>
    public int[] InHand { get { return (int[])inHand.Clone(); } }
    /// <summary>The actions legal now, as the arena lists them.</summary>
    public Actions[] LegalActions { get { return (Actions[])legal.Clone(); } }
    public bool IsLegal(Actions action) { return Array.IndexOf(legal, action) >= 0; }
    public bool CanRaise { get { return IsLegal(Actions.RAISE); } }
    /// <summary>Nothing to call: CALL is a check (and FOLD is not legal).</summary>
    public bool CanCheck { get { return AmountNeededToCall == 0; } }
    /// <summary>Your bet on this street.</summary>
    public int CurrentBet { get { return BetOf(Seat); } }
    /// <summary>The highest bet on this street.</summary>
    public int HighestBet { get { int m = 0; foreach (int b in bets) m = Math.Max(m, b); return m; } }
    public int NumberOfSeats { get { return stacks.Length; } }

    public int ChipCountOf(int seat) { return seat >= 0 && seat < stacks.Length ? stacks[seat] : 0; }
    public int BetOf(int seat) { return seat >= 0 && seat < bets.Length ? bets[seat] : 0; }
    public string NameOf(int seat) { return seat >= 0 && seat < names.Length && names[seat] != null ? names[seat] : "seat " + seat; }
}

/// <summary>
/// GetPlayerList's result: an ArrayList of ActivePlayer (as 2005 code would
/// use it) whose indexer and foreach give ActivePlayer, and which converts
/// implicitly to ActivePlayer[] and List&lt;ActivePlayer&gt;.
/// </summary>
public class PlayerList : ArrayList, IEnumerable<ActivePlayer>
{
    public new ActivePlayer this[int index]
    {
        get { return (ActivePlayer)base[index]; }
        set { base[index] = value; }
    }

    public int Length { get { return Count; } }

    public new ActivePlayer[] ToArray() { return (ActivePlayer[])base.ToArray(typeof(ActivePlayer)); }

    public new IEnumerator<ActivePlayer> GetEnumerator()
    {
        foreach (object o in (ArrayList)this) yield return (ActivePlayer)o;
    }

    public static implicit operator ActivePlayer[](PlayerList list) { return list == null ? null : list.ToArray(); }

    public static implicit operator List<ActivePlayer>(PlayerList list)
    {
        return list == null ? null : new List<ActivePlayer>(list.ToArray());
    }
}
