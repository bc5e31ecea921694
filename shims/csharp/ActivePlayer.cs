// One seat of the current hand, as HoldemGameState.GetPlayerList shows it.
using System;

/// <summary>One seat dealt into the current hand, as GetPlayerList shows it.</summary>
public class ActivePlayer
{
    public ActivePlayer(int seat, string name, int chipCount, int currentBet, bool folded,
                        bool isButton, bool isSmallBlind, bool isBigBlind)
    {
        Seat = seat;
        Name = name;
        ChipCount = chipCount;
        CurrentBet = currentBet;
        IsFolded = folded;
        IsButton = isButton;
        IsSmallBlind = isSmallBlind;
        IsBigBlind = isBigBlind;
    }

    public int Seat { get; private set; }
    public string Name { get; private set; }
    /// <summary>Chips behind (not counting CurrentBet).</summary>
    public int ChipCount { get; private set; }
    /// <summary>What the seat has put in on this street.</summary>
    public int CurrentBet { get; private set; }
    public bool IsFolded { get; private set; }
    /// <summary>Still in the hand with no chips behind.</summary>
    public bool IsAllIn { get { return !IsFolded && ChipCount == 0; } }
    public bool IsActive { get { return !IsFolded; } }
    public bool IsButton { get; private set; }
    public bool IsSmallBlind { get; private set; }
    public bool IsBigBlind { get; private set; }

    public override string ToString()
    {
        return string.Format("seat {0} {1}: {2} chips, bet {3}{4}", Seat, Name, ChipCount, CurrentBet,
                             IsFolded ? ", folded" : IsAllIn ? ", all-in" : "");
    }
}
