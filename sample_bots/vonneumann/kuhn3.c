/* kuhn3: plays the deck as if it were Kuhn poker's three cards (build with shims/c).
 *
 * The top third of the deck is the "king", the bottom third the "jack".
 * As A it bets a fixed $10 (everything it has, if less) with a king, and
 * bluffs with the lowest third of the jacks; it passes otherwise. As B it
 * calls with cards above 5/9, when it can afford to.
 */
#include "vonneumann.h"

enum { KUHN_BET = 10 };

int a(const Bot *bot) {
    int king = 3.0 * bot->card > 2.0;
    int low_jack = 9.0 * bot->card < 1.0;
    if (!king && !low_jack) return 0;
    return bot->money < KUHN_BET ? (int)bot->money : KUHN_BET;
}

int b(const Bot *bot, const int aBet) {
    if (bot->money < aBet) return 0;
    return 9.0 * bot->card > 5.0;
}
