// The seed's Hand: five cards, their category and their integer value.
using System;
using System.Collections.Generic;

/// <summary>Hand categories, weakest first; the value of a hand starts with this number.</summary>
public enum HandType
{
    HighCard = 0,
    Pair,
    TwoPair,
    ThreeOfAKind,
    Straight,
    Flush,
    FullHouse,
    FourOfAKind,
    StraightFlush,
    RoyalFlush
}

/// <summary>
/// Five cards and their value. Once five cards are in, the hand is evaluated:
/// its cards are reordered strongest-relevant first (the pair before the
/// kickers, the trips before the pair of a full house, a wheel as 5 4 3 2 A)
/// and Value is (type &lt;&lt; 20) | (c0 &lt;&lt; 16) | (c1 &lt;&lt; 12) | (c2 &lt;&lt; 8) | (c3 &lt;&lt; 4) | c4,
/// c0..c4 the members of the reordered cards. A higher value is a stronger
/// hand; equal values tie. Sorting hands puts the strongest first.
/// </summary>
public class Hand : IComparable, IComparable<Hand>
{
    private readonly List<Card> cards = new List<Card>(5);
    private readonly object player;
    private HandType type;
    private int value;
    private bool evaluated;

    public Hand() : this(null) { }

    /// <summary>player: whatever the caller wants to tie to the hand (Evaluate passes it on).</summary>
    public Hand(object player) { this.player = player; }

    public object Player { get { return player; } }

    public void AddCard(Card card)
    {
        if (card == null) throw new ArgumentNullException("card");
        if (cards.Count == 5) throw new InvalidOperationException("a hand holds 5 cards");
        if (cards.Contains(card)) throw new ArgumentException("the hand already holds " + card);
        cards.Add(card);
        evaluated = false;
    }

    public void AddCards(Card[] more)
    {
        if (more == null) throw new ArgumentNullException("more");
        foreach (Card card in more) AddCard(card);
    }

    /// <summary>The cards, in the evaluated order once there are five.</summary>
    public Card[] Cards { get { Evaluate(); return cards.ToArray(); } }
    public Card[] GetCards { get { return Cards; } }

    public int Count { get { return cards.Count; } }

    /// <summary>The category (needs five cards).</summary>
    public HandType Type { get { Require(); return type; } }
    public HandType GetHandType { get { return Type; } }

    /// <summary>The integer value (needs five cards).</summary>
    public int Value { get { Require(); return value; } }
    public int GetValue { get { return Value; } }

    /// <summary>Evaluates the hand if it has five cards; returns its value (0 with fewer cards).</summary>
    public int Evaluate()
    {
        if (evaluated) return value;
        if (cards.Count < 5) return 0;
        int[] count = new int[15];
        foreach (Card c in cards) count[c.GetMember]++;
        bool flush = true;
        foreach (Card c in cards) flush &= c.GetSuit == cards[0].GetSuit;

        // Most copies first, then the higher member, then the higher suit.
        cards.Sort(delegate (Card a, Card b)
        {
            if (count[a.GetMember] != count[b.GetMember]) return count[b.GetMember].CompareTo(count[a.GetMember]);
            if (a.GetMember != b.GetMember) return b.GetMember.CompareTo(a.GetMember);
            return b.GetSuit.CompareTo(a.GetSuit);
        });

        int top = cards[0].GetMember;
        bool distinct = count[top] == 1;
        bool straight = distinct && top - cards[4].GetMember == 4;
        if (distinct && top == 14 && cards[1].GetMember == 5)
        {
            // A 5 4 3 2: the wheel, a five-high straight; the ace goes last.
            straight = true;
            Card ace = cards[0];
            cards.RemoveAt(0);
            cards.Add(ace);
        }

        int first = count[cards[0].GetMember], second = count[cards[first].GetMember];
        if (straight && flush) type = cards[0].GetMember == 14 ? HandType.RoyalFlush : HandType.StraightFlush;
        else if (first == 4) type = HandType.FourOfAKind;
        else if (first == 3 && second == 2) type = HandType.FullHouse;
        else if (flush) type = HandType.Flush;
        else if (straight) type = HandType.Straight;
        else if (first == 3) type = HandType.ThreeOfAKind;
        else if (first == 2 && second == 2) type = HandType.TwoPair;
        else if (first == 2) type = HandType.Pair;
        else type = HandType.HighCard;

        value = (int)type << 20;
        for (int i = 0; i < 5; i++) value |= cards[i].GetMember << (16 - 4 * i);
        evaluated = true;
        return value;
    }

    /// <summary>The category in words, e.g. "TwoPair: 8h 8d 2h 2d Kc".</summary>
    public override string ToString()
    {
        if (cards.Count < 5) return "Hand(" + string.Join(" ", Array.ConvertAll(cards.ToArray(), c => c.ToString())) + ")";
        Evaluate();
        return type + ": " + string.Join(" ", Array.ConvertAll(cards.ToArray(), c => c.ToString()));
    }

    /// <summary>Negative when this hand is stronger (so sorting puts the strongest first).</summary>
    public int CompareTo(Hand other)
    {
        if (other == null) return -1;
        return other.Value.CompareTo(Value);
    }

    public int CompareTo(object obj)
    {
        if (obj != null && !(obj is Hand)) throw new ArgumentException("a Hand compares only with a Hand");
        return CompareTo((Hand)obj);
    }

    private void Require()
    {
        if (cards.Count < 5) throw new InvalidOperationException("a hand needs 5 cards to be evaluated, it has " + cards.Count);
        Evaluate();
    }
}
