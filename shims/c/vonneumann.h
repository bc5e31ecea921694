/* The seed's interface for von Neumann poker entries, for the arena's C shim.
 *
 * An entry defines
 *     int a(const Bot *bot);                 A: dollars to bet, 0 or less passes
 *     int b(const Bot *bot, const int aBet); B: nonzero calls, 0 folds
 * and is linked with vonneumann_main.c, which speaks the arena's JSON lines:
 *     gcc -O2 -I shims/c -include vonneumann.h -o mybot shims/c/vonneumann_main.c entry.c -lm
 * (-include lets an entry written for the seed's controller compile unchanged;
 * an entry may instead #include "vonneumann.h" itself.)
 */
#ifndef VONNEUMANN_H
#define VONNEUMANN_H

/* The runner needs POSIX (getline, dup2, fdopen) even under -std=c99. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

/* The seed's controller included these before the entries; entries may rely on them. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef float Card;
typedef long Money;
typedef Money (*AProcType)(const void *bot);
typedef int (*BProcType)(const void *bot, const Money aBet);

typedef struct Bot {
    AProcType a;            /* calls this entry's a() */
    BProcType b;            /* calls this entry's b() */
    Card card;              /* this game's card, 0 <= card < 1 */
    Card opponentsPreviousCard; /* shown after a showdown, else negative (-1) */
    Money money;            /* own money before this game's ante is settled */
    Money opponentsMoney;
    float f[50];            /* scratch: zero at start, kept for the process's life */
} Bot;

int a(const Bot *bot);
int b(const Bot *bot, const int aBet);

#endif
