// The seed's evaluator: the best five-card hand among five or more cards.
using System;

public class PokerGame5Cards
{
    /// <summary>
    /// The best five-card Hand that can be made from these cards (5 or more,
    /// all different): every five-card combination is evaluated and the one
    /// with the highest value is returned. player is stored in the Hand.
    /// </summary>
    public Hand Evaluate(Card[] cards, object player)
    {
        if (cards == null) throw new ArgumentNullException("cards");
        if (cards.Length < 5) throw new ArgumentException("Evaluate needs at least 5 cards, it was given " + cards.Length);
        for (int i = 0; i < cards.Length; i++)
        {
            if (cards[i] == null) throw new ArgumentException("card " + i + " is null");
            for (int j = 0; j < i; j++)
                if (cards[i].Equals(cards[j])) throw new ArgumentException(cards[i] + " appears twice");
        }
        Hand best = null;
        int n = cards.Length;
        for (int a = 0; a < n - 4; a++)
            for (int b = a + 1; b < n - 3; b++)
                for (int c = b + 1; c < n - 2; c++)
                    for (int d = c + 1; d < n - 1; d++)
                        for (int e = d + 1; e < n; e++)
                        {
                            Hand hand = new Hand(player);
                            hand.AddCards(new Card[] { cards[a], cards[b], cards[c], cards[d], cards[e] });
                            if (best == null || hand.Evaluate() > best.Evaluate()) best = hand;
                        }
        return best;
    }

    /// <summary>Evaluate(cards, null).</summary>
    public Hand Evaluate(Card[] cards) { return Evaluate(cards, null); }
}

/// <summary>The seed's article once spells the evaluator PokerGames5Cards: the same class.</summary>
public class PokerGames5Cards : PokerGame5Cards { }
