/* likeme: assumes the opponent bets the way it would (build with shims/c).
 *
 * As A: all in when it could not pay another ante after losing; an all-in
 * bet with any card above 0.5 when the opponent has $50 or less; otherwise
 * it passes below a threshold, bets $50 above a higher one and ramps the bet
 * linearly in between. Thresholds drop (it takes more risk) when it leads:
 * the lead is the whole-number ratio money / (opponent's money + 20), as the
 * original entry computed it with integer division.
 * As B: it works out what it would have bet holding its card (a fifth more
 * when its own money is under $50, expecting a short-stacked A to push) and
 * calls when that is at least A's bet.
 */
#include "vonneumann.h"

static int bet_like_me(const Bot *bot) {
    const double pass_below = 0.5, max_above = 0.9;
    double risk = 1.0;
    long lead;

    if (bot->money < 10) return (int)bot->money;
    if (bot->card > 0.5f && bot->opponentsMoney <= 50) return (int)bot->opponentsMoney;

    lead = bot->money / (bot->opponentsMoney + 20);
    if (lead > 1) {
        risk = lead / 2.0 + 1.0;
        if (risk > 1.5) risk = 1.5;
    }
    double lo = pass_below / risk, hi = max_above / risk;
    if (bot->card < lo) return 0;
    if (bot->card > hi) return 50;
    return (int)(50.0 * (bot->card - lo) / (hi - lo));
}

int a(const Bot *bot) { return bet_like_me(bot); }

int b(const Bot *bot, const int aBet) {
    int mine = bet_like_me(bot);
    if (bot->money < 50) mine = (int)(mine * 1.2);
    return mine >= aBet;
}
