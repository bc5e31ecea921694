// The seed's playing-card library, rewritten for the arena (seed 003):
// one card of a 52-card deck. Card images are left out (no System.Drawing).
using System;

// The seed's library was called PlayingCardLibrary; an entry that starts
// with `using PlayingCardLibrary;` compiles, although every type of the shim
// lives in the global namespace (so entries without that line compile too).
namespace PlayingCardLibrary { }

/// <summary>The four suits; a new deck runs Spades, Hearts, Diamonds, Clubs.</summary>
public enum Suit { Clubs = 0, Diamonds = 1, Hearts = 2, Spades = 3 }

/// <summary>A card: a member (rank) 2..14, where J=11, Q=12, K=13, A=14, and a suit.</summary>
public class Card : IComparable, IComparable<Card>
{
    /// <summary>
    /// How cards compare (and so how ArrayList.Sort or Array.Sort orders them).
    /// false (the default): by member only, highest first (aces, kings, ... twos;
    /// equal members by suit, spades first). true: by suit first (spades, hearts,
    /// diamonds, clubs), then by member, highest first: the order of a new deck.
    /// </summary>
    public static bool sortWithSuit = false;

    private const string RankLetters = "23456789TJQKA";
    private const string SuitLetters = "cdhs";

    private readonly int member;
    private readonly Suit suit;

    public Card(int member, Suit suit)
    {
        if (member < 2 || member > 14)
            throw new ArgumentOutOfRangeException("member", member, "a card's member is 2..14 (A = 14)");
        if (suit < Suit.Clubs || suit > Suit.Spades)
            throw new ArgumentOutOfRangeException("suit", suit, "not a suit");
        this.member = member;
        this.suit = suit;
    }

    /// <summary>A card from its name: "Ah", "Td", "10d", "2C" (rank then suit, any case).</summary>
    public Card(string name) : this(RankOf(name), SuitOf(name)) { }

    public static Card Parse(string name) { return new Card(name); }

    /// <summary>The rank: 2..10, J = 11, Q = 12, K = 13, A = 14 (the seed's name).</summary>
    public int GetMember { get { return member; } }
    public int Member { get { return member; } }
    public Suit GetSuit { get { return suit; } }
    public Suit Suit { get { return suit; } }

    /// <summary>0..51: (member - 2) * 4 + suit, the arena engine's card number.</summary>
    public int CardValue { get { return (member - 2) * 4 + (int)suit; } }

    /// <summary>The arena's two-character name: "Ah", "Td", "2c".</summary>
    public override string ToString()
    {
        return RankLetters[member - 2].ToString() + SuitLetters[(int)suit];
    }

    /// <summary>"Ace of Hearts".</summary>
    public string LongName
    {
        get
        {
            string[] words = { "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
                               "Jack", "Queen", "King", "Ace" };
            return words[member - 2] + " of " + suit;
        }
    }

    public override bool Equals(object obj)
    {
        Card other = obj as Card;
        return other != null && other.member == member && other.suit == suit;
    }

    public override int GetHashCode() { return CardValue; }

    /// <summary>Negative when this card sorts before the other (see sortWithSuit).</summary>
    public int CompareTo(Card other)
    {
        if (other == null) return -1;
        if (sortWithSuit && suit != other.suit) return other.suit.CompareTo(suit);
        if (member != other.member) return other.member.CompareTo(member);
        return other.suit.CompareTo(suit);
    }

    public int CompareTo(object obj)
    {
        if (obj != null && !(obj is Card)) throw new ArgumentException("a Card compares only with a Card");
        return CompareTo((Card)obj);
    }

    private static int RankOf(string name)
    {
        if (name == null) throw new ArgumentNullException("name");
        string rank = name.Trim();
        if (rank.Length < 2) throw new FormatException("not a card: '" + name + "'");
        rank = rank.Substring(0, rank.Length - 1).ToUpperInvariant();
        if (rank == "10") return 10;
        int at = rank.Length == 1 ? RankLetters.IndexOf(rank[0]) : -1;
        if (at < 0) throw new FormatException("not a card: '" + name + "' (rank 2-9, T, J, Q, K, A)");
        return at + 2;
    }

    private static Suit SuitOf(string name)
    {
        string text = name.Trim();
        int at = text.Length > 0 ? SuitLetters.IndexOf(char.ToLowerInvariant(text[text.Length - 1])) : -1;
        if (at < 0) throw new FormatException("not a card: '" + name + "' (suit c, d, h, s)");
        return (Suit)at;
    }
}
