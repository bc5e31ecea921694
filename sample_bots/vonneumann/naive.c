/* naive: an entry for the seed's a()/b() interface (build with shims/c).
 *
 * Never bluffs. As A it bets $1 for every 2 cents the card is above 0.5
 * (so nothing below 0.52, at most $24); as B it calls with the better half
 * of the deck.
 */
#include "vonneumann.h"

int a(const Bot *bot) {
    double above_half = (double)bot->card - 0.5;
    return (int)(above_half * 50.0); /* truncated toward 0; negative passes */
}

int b(const Bot *bot, const int aBet) {
    (void)aBet; /* the size of the bet does not matter to it */
    return bot->card > 0.5f;
}
