// The seed's HoldemPlayer: what an entry extends.
using System;

/// <summary>
/// What an entry extends. The runner sets the fields below at every
/// hand_start (and cards again at every act), calls HoldemActionUpdate for
/// every action of the hand (the entry's own included), and calls
/// EvaluateCurrentAction when it is this player's turn.
/// </summary>
public abstract class HoldemPlayer : AbstractPlayer
{
    /// <summary>The hole cards (two; an empty array before the first hand).</summary>
    public Card[] cards = new Card[0];
    /// <summary>This seat has the button (the dealer) in this hand.</summary>
    public bool isButton;
    /// <summary>This seat posted the big blind in this hand.</summary>
    public bool isBigBlind;
    /// <summary>This seat posted the small blind in this hand (heads-up, the button does).</summary>
    public bool isSmallBlind;

    /// <summary>
    /// An evaluator named like its class, so that the seed's static-looking call
    /// PokerGame5Cards.Evaluate(cards, this) compiles in an entry (C# takes a
    /// member named as its own type as either, the "Color Color" rule), while
    /// new PokerGame5Cards() still makes an evaluator of one's own.
    /// </summary>
    protected static readonly PokerGame5Cards PokerGame5Cards = new PokerGame5Cards();

    protected HoldemPlayer() { }
    protected HoldemPlayer(string name) : base(name) { }

    /// <summary>Your move. See docs/shims.md for what is legal.</summary>
    public abstract HoldemActionEvent EvaluateCurrentAction(HoldemGameState state);

    /// <summary>Told of every action as it is made, your own included.</summary>
    public abstract void HoldemActionUpdate(HoldemActionEvent action);
}
