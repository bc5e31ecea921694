// The seed's action event and its Actions enumeration.
using System;

/// <summary>The seed's four actions. A check is a CALL when nothing is to be called.</summary>
public enum Actions
{
    FOLD = 1,
    CALL,
    RAISE,
    ALLIN
}

/// <summary>
/// An action: what an entry returns from EvaluateCurrentAction, and what
/// HoldemActionUpdate and GetLastAction report.
///
/// Amount, in an entry's answer: for RAISE, the total the entry's bet on this
/// street is raised TO (not the increase): the seed does not say which, and
/// this shim reads it as "to". With 20 to call after a bet of 20, raising by
/// 40 more is new HoldemActionEvent(Actions.RAISE, 60), not 40; the legal
/// range is state.MinRaiseTo to state.MaxRaiseTo. Ignored for FOLD, CALL and
/// ALLIN. A FOLD when checking is free is sent as the check it means.
/// Amount, in a reported action: the seat's bet on this street after the
/// action (so a raise reads as its raise-to, as in an answer, and a call as
/// the bet it matched); 0 for a fold. Added is what the action put in.
/// </summary>
public class HoldemActionEvent
{
    /// <summary>FOLD, CALL or ALLIN (no amount).</summary>
    public HoldemActionEvent(Actions action) : this(action, 0) { }

    /// <summary>RAISE with the total bet to raise to, e.g. new HoldemActionEvent(Actions.RAISE, 20).</summary>
    public HoldemActionEvent(Actions action, int amount)
    {
        Actions = action;
        Amount = amount;
        Seat = -1;
        HandNumber = -1;
        Kind = action.ToString().ToLowerInvariant();
    }

    /// <summary>An action reported by the arena (the runner makes these).</summary>
    public HoldemActionEvent(Actions action, int amount, string kind, int seat, string playerName, int hand,
                             int added, int bet, int stack, int pot, bool allIn)
    {
        Actions = action;
        Amount = amount;
        Kind = kind;
        Seat = seat;
        PlayerName = playerName;
        HandNumber = hand;
        Added = added;
        Bet = bet;
        Stack = stack;
        Pot = pot;
        IsAllIn = allIn;
    }

    /// <summary>The action (the seed's "Actions"; also callable as Actions()).</summary>
    public Actions Actions { get; private set; }

    /// <summary>The amount (the seed's "Amount"; also callable as Amount()); see the class summary.</summary>
    public int Amount { get; private set; }

    /// <summary>The arena's word for it: fold, call, raise, allin, small_blind, big_blind.</summary>
    public string Kind { get; private set; }

    /// <summary>The seat that acted; -1 in an action an entry made itself.</summary>
    public int Seat { get; private set; }
    public string PlayerName { get; private set; }
    /// <summary>The hand of the match (from 0); -1 in an action an entry made itself.</summary>
    public int HandNumber { get; private set; }
    /// <summary>Chips this action put in (0 for a check or a fold).</summary>
    public int Added { get; private set; }
    /// <summary>The seat's bet on this street after the action.</summary>
    public int Bet { get; private set; }
    /// <summary>The seat's chips behind after the action.</summary>
    public int Stack { get; private set; }
    /// <summary>The pot after the action (every chip put in this hand).</summary>
    public int Pot { get; private set; }
    /// <summary>The seat has no chips behind after the action.</summary>
    public bool IsAllIn { get; private set; }
    /// <summary>A posted blind (reported as RAISE: the opening bet of the hand).</summary>
    public bool IsBlind { get { return Kind == "small_blind" || Kind == "big_blind"; } }
    /// <summary>A CALL that put nothing in.</summary>
    public bool IsCheck { get { return Actions == Actions.CALL && Seat >= 0 && Added == 0; } }

    public override string ToString()
    {
        string who = Seat >= 0 ? "seat " + Seat + " " : "";
        return who + Kind + (Actions == Actions.RAISE || Amount != 0 ? " " + Amount : "");
    }
}
