// The seed's 52-card deck: Shuffle, HasNext, DealNext.
using System;

/// <summary>Thrown by Deck.DealNext when every card has been dealt.</summary>
public class OutOfCardsException : Exception
{
    public OutOfCardsException() : base("the deck has no card left to deal") { }
    public OutOfCardsException(string message) : base(message) { }
    public OutOfCardsException(string message, Exception inner) : base(message, inner) { }
}

/// <summary>A standard deck, built in new-deck order (Ace of Spades down to Two of Clubs).</summary>
public class Deck
{
    private readonly Card[] cards = new Card[52];
    private readonly Random random;
    private int deckIndex;

    public Deck() : this(new Random()) { }
    public Deck(int seed) : this(new Random(seed)) { }

    public Deck(Random random)
    {
        this.random = random ?? new Random();
        int n = 0;
        for (int s = (int)Suit.Spades; s >= (int)Suit.Clubs; s--)
            for (int m = 14; m >= 2; m--)
                cards[n++] = new Card(m, (Suit)s);
    }

    /// <summary>Puts the cards in a random order (Fisher-Yates) and deals from the top again.</summary>
    public void Shuffle()
    {
        deckIndex = 0;
        for (int i = cards.Length - 1; i > 0; i--)
        {
            int j = random.Next(i + 1);
            Card swap = cards[i];
            cards[i] = cards[j];
            cards[j] = swap;
        }
    }

    /// <summary>Deals from the top again without reordering.</summary>
    public void Reset() { deckIndex = 0; }

    /// <summary>true while a card is left to deal.</summary>
    public bool HasNext() { return deckIndex < cards.Length; }

    /// <summary>The next card; OutOfCardsException when there is none.</summary>
    public Card DealNext()
    {
        try
        {
            return cards[deckIndex++];
        }
        catch (IndexOutOfRangeException e)
        {
            deckIndex = cards.Length;
            throw new OutOfCardsException("all 52 cards have been dealt", e);
        }
    }

    /// <summary>Cards not dealt yet.</summary>
    public int Remaining { get { return cards.Length - deckIndex; } }
}
