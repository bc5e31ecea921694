// A seed-style Hold'em entry (seed 003): one class extending HoldemPlayer,
// compiled with the C# shim (docs/shims.md, "C# (Hold'em, seed 003)").
//
// Before the flop it sorts its two cards into strong, playable and weak;
// after it, it evaluates its best five cards with PokerGame5Cards. It raises
// with strong hands, calls with medium ones at a fair price, checks when it
// costs nothing and folds the rest.
using System;
using System.Collections;

public class SeedBot : HoldemPlayer
{
    private readonly PokerGame5Cards evaluator = new PokerGame5Cards();
    private int handSeen = -1;
    private int raisesByOthers;

    public override HoldemActionEvent EvaluateCurrentAction(HoldemGameState state)
    {
        int toCall = state.AmountNeededToCall();
        int pot = state.GetPotSize();
        int bigBlind = state.GetBigBlind();
        Card[] board = state.GetCommunityCards();

        int strength = board.Length == 0 ? PreflopStrength() : PostflopStrength(board);
        if (raisesByOthers >= 3 && strength < 2) strength = 0; // a raising war: only the best hands go on

        if (strength == 2)
        {
            int target = board.Length == 0
                ? state.HighestBet + 3 * bigBlind
                : state.HighestBet + Math.Max(bigBlind, pot * 2 / 3);
            if (state.CanRaise)
                return new HoldemActionEvent(Actions.RAISE, Math.Min(state.MaxRaiseTo, Math.Max(state.MinRaiseTo, target)));
            return new HoldemActionEvent(Actions.CALL);
        }
        if (toCall == 0)
            return new HoldemActionEvent(Actions.CALL); // a free look: check
        if (strength == 1)
        {
            bool cheap = board.Length == 0 ? toCall <= 6 * bigBlind : 2 * toCall <= pot;
            if (cheap || toCall <= state.PlayersChipCount() / 20)
                return new HoldemActionEvent(Actions.CALL);
        }
        return new HoldemActionEvent(Actions.FOLD);
    }

    public override void HoldemActionUpdate(HoldemActionEvent action)
    {
        if (action.HandNumber != handSeen)
        {
            handSeen = action.HandNumber;
            raisesByOthers = 0;
        }
        if (action.Seat != seat && (action.Actions() == Actions.RAISE || action.Actions() == Actions.ALLIN))
            raisesByOthers++;
    }

    // 2 strong, 1 playable, 0 weak.
    private int PreflopStrength()
    {
        int high = Math.Max(cards[0].GetMember, cards[1].GetMember);
        int low = Math.Min(cards[0].GetMember, cards[1].GetMember);
        bool pair = high == low;
        bool suited = cards[0].GetSuit == cards[1].GetSuit;
        if ((pair && high >= 10) || (high == 14 && low >= 12)) return 2;
        if (pair || low >= 10 || (high == 14 && (low >= 9 || suited)) || (suited && high - low == 1 && low >= 6))
            return 1;
        return 0;
    }

    private int PostflopStrength(Card[] board)
    {
        Card[] all = new Card[board.Length + 2];
        all[0] = cards[0];
        all[1] = cards[1];
        board.CopyTo(all, 2);
        Hand best = evaluator.Evaluate(all, this);
        ArrayList used = new ArrayList(best.Cards);
        bool holeCardPlays = used.Contains(cards[0]) || used.Contains(cards[1]);

        if (best.Type >= HandType.TwoPair && holeCardPlays) return 2;
        if (best.Type == HandType.Pair)
        {
            int pairMember = best.Cards[0].GetMember;
            int topOfBoard = 0;
            foreach (Card c in board) topOfBoard = Math.Max(topOfBoard, c.GetMember);
            bool mine = pairMember == cards[0].GetMember || pairMember == cards[1].GetMember;
            if (mine && pairMember >= topOfBoard) return 2 - (board.Length == 5 ? 1 : 0) - (pairMember < 10 ? 1 : 0);
            if (mine) return 1;
        }
        return 0;
    }
}
