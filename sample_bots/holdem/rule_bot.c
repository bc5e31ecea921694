/*
 * rule_bot.c - a compact deterministic rule bot for Texas Hold'em, speaking
 * the arena's JSON lines (docs/protocols/holdem.md) on stdin/stdout.
 *
 * It reads only the fields it needs from "act" (a tiny top-level JSON field
 * finder, below) and keeps no state but the raises it made this street.
 *
 * Preflop: the hand's score on a chart by rank and suitedness (Bill Chen's
 *   formula: the high card's points, doubled for a pair, +2 suited, minus
 *   the gap between the ranks, +1 for small connectors).
 *     10 or more (TT+, AK, AQs, AJs, KQs): raise to 3x the top bet, up to
 *       three times a street, then call;
 *     8-9: raise to 3 big blinds when nobody raised, else call up to an
 *       eighth of the stack;
 *     6-7: call up to one big blind; anything else checks or folds.
 * After the flop: its best made hand with the board (pair ... straight
 *   flush), counted only when its own cards make it better than the board's:
 *     trips or better: raise the pot, every time;
 *     two pair: raise half the pot once a street, call up to the pot;
 *     top pair or an overpair: bet half the pot when checked to, call up
 *       to half the pot;
 *     otherwise: check, call only bets of a fifth of the pot or less.
 *
 * Build: gcc -O2 -Wall -Wextra -std=c99 -o sample_bots/holdem/build/rule_bot sample_bots/holdem/rule_bot.c -lm
 * Run:   sample_bots/holdem/build/rule_bot
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEATS 64

typedef long long chips;

/* ---- input and a tiny JSON reader --------------------------------------- */

/* The next line, of any length, or NULL at the end of the input. */
static char *read_line(void)
{
    static char *buf;
    static size_t cap;
    size_t len = 0;
    for (;;) {
        if (len + 2 > cap) {
            cap = cap ? 2 * cap : 4096;
            buf = realloc(buf, cap);
            if (!buf)
                exit(1);
        }
        if (!fgets(buf + len, (int)(cap - len), stdin))
            return len ? buf : NULL;
        len += strlen(buf + len);
        if (len > 0 && buf[len - 1] == '\n')
            return buf;
    }
}

/* Where the value of "key" starts at the top level of a JSON object, or NULL
 * (keys of nested objects, such as last_action's "seat", are skipped). */
static const char *field(const char *s, const char *key)
{
    size_t klen = strlen(key);
    int depth = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '"') {
            const char *start = ++p;
            while (*p && *p != '"') {
                if (*p == '\\' && p[1])
                    p++;
                p++;
            }
            if (!*p)
                return NULL;
            if (depth == 1 && (size_t)(p - start) == klen && memcmp(start, key, klen) == 0) {
                const char *q = p + 1;
                while (isspace((unsigned char)*q))
                    q++;
                if (*q == ':') {
                    for (q++; isspace((unsigned char)*q); q++)
                        ;
                    return q;
                }
            }
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            depth--;
        }
    }
    return NULL;
}

/* Is the value v the JSON string "word"? */
static int is_string(const char *v, const char *word)
{
    size_t n = strlen(word);
    return v && *v == '"' && strncmp(v + 1, word, n) == 0 && v[1 + n] == '"';
}

/* A number value (fallback for null or a missing field). */
static chips number(const char *v, chips fallback)
{
    if (!v || !(*v == '-' || isdigit((unsigned char)*v)))
        return fallback;
    return strtoll(v, NULL, 10);
}

/* The numbers of an array value; returns how many were stored. */
static int numbers(const char *v, chips *out, int max)
{
    int n = 0;
    if (!v || *v != '[')
        return 0;
    for (v++; *v && *v != ']' && n < max;) {
        if (*v == '-' || isdigit((unsigned char)*v)) {
            char *end;
            out[n++] = strtoll(v, &end, 10);
            v = end;
        } else {
            v++;
        }
    }
    return n;
}

/* Does the array value v hold the string "word"? */
static int array_has(const char *v, const char *word)
{
    if (!v || *v != '[')
        return 0;
    for (v++; *v && *v != ']'; v++)
        if (*v == '"') {
            if (is_string(v, word))
                return 1;
            for (v++; *v && *v != '"'; v++)
                ;
            if (!*v)
                return 0;
        }
    return 0;
}

/* ---- cards -------------------------------------------------------------- */

typedef struct {
    int rank; /* 2..14 */
    int suit; /* 0..3 */
} Card;

/* The cards of an array value such as ["Ah","Td"]; returns how many. */
static int cards_of(const char *v, Card *out, int max)
{
    static const char ranks[] = "23456789TJQKA", suits[] = "cdhs";
    int n = 0;
    if (!v || *v != '[')
        return 0;
    for (v++; *v && *v != ']' && n < max; v++) {
        if (*v != '"' || !v[1] || !v[2])
            continue;
        const char *r = strchr(ranks, v[1]), *s = strchr(suits, v[2]);
        if (r && s) {
            out[n].rank = (int)(r - ranks) + 2;
            out[n].suit = (int)(s - suits);
            n++;
        }
        v += 3; /* at the closing quote */
    }
    return n;
}

enum { HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH };

/* Is there a five-card run in a rank bit set (bit r for rank r)? */
static int has_straight(unsigned bits)
{
    if (bits & (1u << 14))
        bits |= 1u << 1; /* the ace plays low too */
    for (int low = 1; low <= 10; low++)
        if (((bits >> low) & 0x1fu) == 0x1fu)
            return 1;
    return 0;
}

/* The category of the best five-card hand among n cards. */
static int category(const Card *c, int n)
{
    int count[15] = {0};
    unsigned by_suit[4] = {0}, all = 0;
    int most = 0, second = 0;
    for (int i = 0; i < n; i++) {
        count[c[i].rank]++;
        by_suit[c[i].suit] |= 1u << c[i].rank;
        all |= 1u << c[i].rank;
    }
    for (int r = 2; r <= 14; r++) {
        if (count[r] > most) {
            second = most;
            most = count[r];
        } else if (count[r] > second) {
            second = count[r];
        }
    }
    int flush = 0;
    for (int s = 0; s < 4; s++) {
        unsigned b = by_suit[s];
        int k = 0;
        for (; b; b &= b - 1)
            k++;
        if (k >= 5) {
            if (has_straight(by_suit[s]))
                return STRAIGHT_FLUSH;
            flush = 1;
        }
    }
    if (most >= 4)
        return QUADS;
    if (most == 3 && second >= 2)
        return FULL_HOUSE;
    if (flush)
        return FLUSH;
    if (has_straight(all))
        return STRAIGHT;
    if (most == 3)
        return TRIPS;
    if (most == 2 && second == 2)
        return TWO_PAIR;
    return most == 2 ? PAIR : HIGH;
}

/* Chen's score of two hole cards, rounded up. */
static int chen(Card a, Card b)
{
    int hi = a.rank > b.rank ? a.rank : b.rank, lo = a.rank + b.rank - hi;
    /* points doubled to stay in integers: A 20, K 16, Q 14, J 12, else the rank */
    int twice = hi == 14 ? 20 : hi == 13 ? 16 : hi == 12 ? 14 : hi == 11 ? 12 : hi;
    if (hi == lo)
        return (2 * twice < 10 ? 10 : 2 * twice) / 2;
    if (a.suit == b.suit)
        twice += 4;
    int gap = hi - lo - 1;
    twice -= gap == 0 ? 0 : gap == 1 ? 2 : gap == 2 ? 4 : gap == 3 ? 8 : 10;
    if (gap <= 1 && hi < 12)
        twice += 2;
    return (twice + 1) / 2;
}

/* ---- decisions ---------------------------------------------------------- */

static void send_call(void) { fputs("{\"type\":\"action\",\"action\":\"call\"}\n", stdout); }
static void send_fold(void) { fputs("{\"type\":\"action\",\"action\":\"fold\"}\n", stdout); }

typedef struct {
    const char *legal;
    chips to_call, cost, pot, my_bet, stack, top_bet, big_blind, min_to, max_to;
} Spot;

static void check_or_fold(const Spot *s)
{
    if (s->to_call == 0 || !array_has(s->legal, "fold"))
        send_call();
    else
        send_fold();
}

static int raises_made;      /* by this bot on the current street */
static chips last_hand = -1; /* the hand and street they count for */
static char last_street[16];

static void raise_to(const Spot *s, chips to)
{
    if (!array_has(s->legal, "raise")) {
        send_call();
        return;
    }
    if (to > s->max_to)
        to = s->max_to;
    if (to < s->min_to)
        to = s->min_to;
    raises_made++;
    printf("{\"type\":\"action\",\"action\":\"raise\",\"to\":%lld}\n", to);
}

static void decide(const char *msg)
{
    chips stacks[MAX_SEATS] = {0}, bets[MAX_SEATS] = {0};
    Card hole[2], all[7];
    Spot s;

    int seat = (int)number(field(msg, "seat"), 0);
    int seats = numbers(field(msg, "bets"), bets, MAX_SEATS);
    numbers(field(msg, "stacks"), stacks, MAX_SEATS);
    if (seat < 0 || seat >= MAX_SEATS)
        seat = 0;
    s.legal = field(msg, "legal");
    s.to_call = number(field(msg, "to_call"), 0);
    s.pot = number(field(msg, "pot"), 0);
    s.my_bet = bets[seat];
    s.stack = stacks[seat];
    s.cost = s.to_call < s.stack ? s.to_call : s.stack;
    s.top_bet = 0;
    for (int i = 0; i < seats; i++)
        if (bets[i] > s.top_bet)
            s.top_bet = bets[i];
    s.big_blind = number(field(msg, "big_blind"), 1);
    s.min_to = number(field(msg, "min_raise_to"), 0);
    s.max_to = number(field(msg, "max_raise_to"), 0);

    /* raises made on this street of this hand */
    const char *street = field(msg, "street");
    char name[16] = "";
    if (street && *street == '"')
        for (int i = 0; i < 15 && street[i + 1] && street[i + 1] != '"'; i++)
            name[i] = street[i + 1], name[i + 1] = '\0';
    chips hand = number(field(msg, "hand"), 0);
    if (hand != last_hand || strcmp(name, last_street) != 0) {
        last_hand = hand;
        strcpy(last_street, name);
        raises_made = 0;
    }

    if (cards_of(field(msg, "cards"), hole, 2) < 2) {
        check_or_fold(&s); /* cannot read the cards: play safe */
        return;
    }
    all[0] = hole[0];
    all[1] = hole[1];
    int board = cards_of(field(msg, "board"), all + 2, 5);

    if (board == 0) {
        int score = chen(hole[0], hole[1]);
        if (score >= 10) {
            if (raises_made < 3)
                raise_to(&s, 3 * s.top_bet);
            else
                send_call();
        } else if (score >= 8) {
            if (s.top_bet <= s.big_blind && raises_made == 0)
                raise_to(&s, 3 * s.big_blind);
            else if (8 * s.cost <= s.stack + s.my_bet)
                send_call();
            else
                check_or_fold(&s);
        } else if (score >= 6 && s.cost <= s.big_blind) {
            send_call();
        } else {
            check_or_fold(&s);
        }
        return;
    }

    int mine = category(all, 2 + board), table = category(all + 2, board);
    int top = 0;
    for (int i = 2; i < 2 + board; i++)
        if (all[i].rank > top)
            top = all[i].rank;
    int top_pair = mine == PAIR && table == HIGH &&
                   (hole[0].rank == top || hole[1].rank == top ||
                    (hole[0].rank == hole[1].rank && hole[0].rank > top));
    chips after_call = s.pot + s.cost;

    if (mine > table && mine >= TRIPS) {
        raise_to(&s, s.top_bet + after_call);
    } else if (mine > table && mine == TWO_PAIR) {
        if (raises_made == 0)
            raise_to(&s, s.top_bet + after_call / 2);
        else if (s.cost <= s.pot)
            send_call();
        else
            check_or_fold(&s);
    } else if (top_pair) {
        if (s.to_call == 0 && raises_made == 0)
            raise_to(&s, s.top_bet + s.pot / 2);
        else if (2 * s.cost <= s.pot)
            send_call();
        else
            check_or_fold(&s);
    } else if (5 * s.cost <= s.pot) {
        send_call();
    } else {
        check_or_fold(&s);
    }
}

int main(void)
{
    char *line;
    while ((line = read_line()) != NULL) {
        const char *type = field(line, "type");
        if (is_string(type, "match_start")) {
            last_hand = -1; /* a new match numbers its hands from 0 again */
            fputs("{\"type\":\"ready\"}\n", stdout);
        } else if (is_string(type, "act")) {
            decide(line);
        }
        else
            continue; /* a notice: nothing to answer */
        fflush(stdout); /* the arena waits for each reply */
    }
    return 0;
}
