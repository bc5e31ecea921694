// The seed's base of every player.
using System;

/// <summary>Base of every player: a name and a seat.</summary>
public abstract class AbstractPlayer
{
    /// <summary>The player's name. The runner sets it to the arena's name for this seat
    /// at match start, unless the entry set one itself (in its constructor).</summary>
    public string name;

    /// <summary>This player's seat in the match (from 0), set by the runner.</summary>
    public int seat = -1;

    protected AbstractPlayer() { }
    protected AbstractPlayer(string name) { this.name = name; }

    public virtual string Name { get { return name; } set { name = value; } }
    public int Seat { get { return seat; } }

    public override string ToString() { return (name ?? GetType().Name) + " (seat " + seat + ")"; }
}
