/* What the ACPC relay (relay.c) and the hold'em ACPC codec (codec.c) share:
 * a growable byte string, Python's repr of a text (the arena quotes what it
 * received as Python does, everywhere), the little JSON the arena's holdem
 * messages need, an agent's response read as the ACPC dealer reads it, the
 * line that reports a wrong one, and one hold'em seat as ACPC states (the
 * codec's, and the relay's under --acpc-lenient).
 *
 * Everything is static: each includer has its own copy, and defines
 * ``out_of_memory`` (the relay exits; the codec, inside the arena, aborts). */
#ifndef ACPC_TEXT_H
#define ACPC_TEXT_H

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(void);

/* -- a growable byte string ------------------------------------------------ */

typedef struct {
    char *p;
    size_t n, cap;
} Buf;

static void grow(Buf *b, size_t more) {
    if (b->n + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + more + 1)
        cap *= 2;
    b->p = realloc(b->p, cap);
    if (b->p == NULL)
        out_of_memory();
    b->cap = cap;
}

static void add(Buf *b, const char *s, size_t n) {
    grow(b, n);
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void adds(Buf *b, const char *s) { add(b, s, strlen(s)); }

static void addf(Buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    grow(b, (size_t)need);
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)need + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)need;
}

/* A decimal integer (the hot path's numbers: no printf). */
static inline void add_int(Buf *b, long long v) {
    char digits[24], *p = digits + sizeof digits;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        *--p = '-';
    add(b, p, (size_t)(digits + sizeof digits - p));
}

static void clear(Buf *b) {
    b->n = 0;
    if (b->p)
        b->p[0] = 0;
}

/* The length of the UTF-8 sequence at u[i] (of n bytes in all) and its code
 * point in *cp; 0: not valid UTF-8 there (a bad lead or continuation byte,
 * cut short, overlong, a surrogate, past U+10FFFF). */
static int utf8_at(const unsigned char *u, size_t n, size_t i, unsigned *cp) {
    unsigned c = u[i];
    int len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (len == 0 || i + (size_t)len > n)
        return 0;
    unsigned v = len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
    for (int k = 1; k < len; k++) {
        if ((u[i + k] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (u[i + k] & 0x3f);
    }
    if ((len == 3 && (v < 0x800 || (v >= 0xd800 && v < 0xe000))) || (len == 4 && (v < 0x10000 || v > 0x10ffff)))
        return 0;
    *cp = v;
    return len;
}

/* Python's repr of the text ``s`` (bytes decoded as UTF-8, a bad byte as
 * U+FFFD, as the Python relay decoded them): the quote it picks, its escapes. */
static void add_repr(Buf *b, const char *s, size_t n) {
    int single = memchr(s, '\'', n) != NULL, dbl = memchr(s, '"', n) != NULL;
    char q = (single && !dbl) ? '"' : '\'';
    add(b, &q, 1);
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        if (c < 0x80) {
            if (c == '\\' || c == (unsigned)q)
                addf(b, "\\%c", c);
            else if (c == '\n')
                adds(b, "\\n");
            else if (c == '\r')
                adds(b, "\\r");
            else if (c == '\t')
                adds(b, "\\t");
            else if (c < 0x20 || c == 0x7f)
                addf(b, "\\x%02x", c);
            else
                add(b, (const char *)&u[i], 1);
            i++;
            continue;
        }
        unsigned cp = 0;
        int len = utf8_at(u, n, i, &cp);
        if (!len) {
            adds(b, "\xef\xbf\xbd");
            i++;
        } else if (cp < 0xa1 || cp == 0xad) {
            addf(b, "\\x%02x", cp);  /* C1 controls, no-break space, soft hyphen: not printable */
            i += (size_t)len;
        } else {
            add(b, (const char *)&u[i], (size_t)len);
            i += (size_t)len;
        }
    }
    add(b, &q, 1);
}

/* -- JSON, as far as the arena's holdem messages need it -------------------- */

static const char *ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* The end of the value at ``p`` (NULL: not a value). */
static const char *skip(const char *p) {
    p = ws(p);
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++)
            if (*p == '\\' && p[1])
                p++;
        return *p ? p + 1 : NULL;
    }
    if (*p == '{' || *p == '[') {
        int depth = 0;
        for (; *p; p++) {
            if (*p == '"') {
                p = skip(p);
                if (p == NULL)
                    return NULL;
                p--;
            } else if (*p == '{' || *p == '[') {
                depth++;
            } else if (*p == '}' || *p == ']') {
                if (--depth == 0)
                    return p + 1;
            }
        }
        return NULL;
    }
    const char *start = p;
    while (*p && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
        p++;
    return p == start ? NULL : p;
}

/* The value of ``key`` in the object at ``obj`` (NULL: no such key). */
static const char *get(const char *obj, const char *key) {
    if (obj == NULL)
        return NULL;
    const char *p = ws(obj);
    if (*p != '{')
        return NULL;
    size_t klen = strlen(key);
    p = ws(p + 1);
    while (*p == '"') {
        const char *k = p + 1, *end = skip(p);
        if (end == NULL)
            return NULL;
        int match = (size_t)(end - 1 - k) == klen && memcmp(k, key, klen) == 0;
        p = ws(end);
        if (*p != ':')
            return NULL;
        p = ws(p + 1);
        if (match)
            return p;
        p = skip(p);
        if (p == NULL)
            return NULL;
        p = ws(p);
        if (*p != ',')
            return NULL;
        p = ws(p + 1);
    }
    return NULL;
}

/* The integer at ``p`` (as strtoll reads it, saturating), or ``otherwise``.
 * By hand: strtoll's locale machinery was the codec's largest libc cost. */
static long long num(const char *p, long long otherwise) {
    if (p == NULL)
        return otherwise;
    p = ws(p);
    int neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (*p < '0' || *p > '9')
        return otherwise;
    unsigned long long u = 0, most = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
    for (; *p >= '0' && *p <= '9'; p++)
        u = u > (most - (unsigned)(*p - '0')) / 10 ? most : u * 10 + (unsigned)(*p - '0');
    return neg ? (long long)(0ULL - u) : (long long)u;
}

/* Whether the value at ``p`` is the string ``s``. */
static int is_str(const char *p, const char *s) {
    size_t n = strlen(s);
    return p != NULL && *p == '"' && strncmp(p + 1, s, n) == 0 && p[1 + n] == '"';
}

/* A string's raw text (the arena's card and game names need no unescaping). */
static size_t str(const char *p, const char **text) {
    if (p == NULL || *p != '"') {
        *text = "";
        return 0;
    }
    const char *end = skip(p);
    *text = p + 1;
    return end ? (size_t)(end - p - 2) : 0;
}

/* Array elements: the first (``p`` at '['), then each next; NULL after the last. */
static const char *first(const char *p) {
    if (p == NULL || *p != '[')
        return NULL;
    p = ws(p + 1);
    return *p == ']' ? NULL : p;
}

static const char *next(const char *p) {
    p = skip(p);
    if (p == NULL)
        return NULL;
    p = ws(p);
    return *p == ',' ? ws(p + 1) : NULL;
}

/* A text as a JSON string: bytes decoded as UTF-8 (a bad byte as U+FFFD, as
 * Python decodes them with errors="replace"), cut after about ``cap`` bytes. */
static void add_json_str(Buf *b, const char *s, size_t n, size_t cap) {
    const unsigned char *u = (const unsigned char *)s;
    adds(b, "\"");
    size_t i = 0, start = b->n;
    while (i < n && b->n - start < cap) {
        unsigned c = u[i];
        if (c < 0x80) {
            if (c == '"' || c == '\\')
                addf(b, "\\%c", c);
            else if (c < 0x20 || c == 0x7f)
                addf(b, "\\u%04x", c);
            else
                add(b, (const char *)&u[i], 1);
            i++;
            continue;
        }
        unsigned cp = 0;
        int len = utf8_at(u, n, i, &cp);
        if (!len) {
            adds(b, "\\ufffd");
            i++;
        } else {
            add(b, (const char *)&u[i], (size_t)len);
            i += (size_t)len;
        }
    }
    adds(b, "\"");
}

/* -- an ACPC line as the ACPC dealer reads it ------------------------------------ */

/* The dealer (its game.c) reads a response as a MATCHSTATE, compares it with
 * the state it sent by meaning (the viewer, the hand, the betting, the
 * viewer's own cards and the board: another player's cards, '/' between
 * rounds and the case of a card do not count), then wants ':' and an action:
 * its first letter (f, F: fold; c, C, k, K: call; r, R, b, B: raise) and, in
 * no-limit, the size a raise is to (as scanf reads a number); what follows
 * the action it does not read. Written here from that description. */

#define ACPC_MAX_PLAYERS 64
#define ACPC_MAX_HOLE 3
#define ACPC_MAX_LINE 4096

typedef struct {
    int players, hole, nolimit;
    int board[4]; /* board cards dealt on each round */
} AcpcShape;

typedef struct {
    unsigned long long viewer, hand;
    char betting[ACPC_MAX_LINE]; /* each action as f, c, r or r<size>; no '/' */
    size_t nbetting;
    int rounds; /* '/' in the betting, plus one */
    int ncards[ACPC_MAX_PLAYERS];
    unsigned char cards[ACPC_MAX_PLAYERS][ACPC_MAX_HOLE];
    unsigned char board[16];
    int nboard;
    size_t end; /* what the state took of the line */
} AcpcState;

/* The dealer's reading of an action letter: 'f', 'c', 'r', or 0. */
static char acpc_letter(char c) {
    switch (c) {
    case 'f': case 'F': return 'f';
    case 'c': case 'C': case 'k': case 'K': return 'c';
    case 'r': case 'R': case 'b': case 'B': return 'r';
    default: return 0;
    }
}

/* An unsigned number as scanf's %u reads it (spaces, then an optional '+', then digits); NULL: none. */
static const char *acpc_unsigned(const char *p, unsigned long long *v) {
    while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
        p++;
    if (*p == '+')
        p++;
    if (*p < '0' || *p > '9')
        return NULL;
    unsigned long long u = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        u = u > ULLONG_MAX / 10 - 10 ? ULLONG_MAX / 10 : u * 10 + (unsigned)(*p - '0');
    *v = u;
    return p;
}

/* A signed number as scanf's %d reads it; NULL: none. */
static const char *acpc_signed(const char *p, long long *v) {
    while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
        p++;
    int neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (*p < '0' || *p > '9')
        return NULL;
    long long u = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        u = u > LLONG_MAX / 10 - 10 ? LLONG_MAX / 10 : u * 10 + (*p - '0');
    *v = neg ? -u : u;
    return p;
}

/* One card (rank, then suit, either case) as rank * 4 + suit; -1: none. */
static int acpc_card(const char *p) {
    static const char ranks[] = "23456789TJQKA", suits[] = "cdhs";
    if (p[0] == 0 || p[1] == 0)
        return -1;
    char r = p[0] >= 'a' && p[0] <= 'z' ? (char)(p[0] - 32) : p[0];
    char s = p[1] >= 'A' && p[1] <= 'Z' ? (char)(p[1] + 32) : p[1];
    const char *rp = strchr(ranks, r), *sp = strchr(suits, s);
    if (rp == NULL || sp == NULL)
        return -1;
    return (int)(rp - ranks) * 4 + (int)(sp - suits);
}

/* Up to ``most`` cards at ``*p`` (moved past them) into ``out``: how many. */
static int acpc_cards(const char **p, int most, unsigned char *out) {
    int n = 0;
    int card;
    while (n < most && (card = acpc_card(*p)) >= 0) {
        out[n++] = (unsigned char)card;
        *p += 2;
    }
    return n;
}

/* The state at the start of ``line`` (NUL-terminated), its board read for
 * ``rounds`` rounds (-1: as many as its betting has); 0, or -1 when the
 * dealer could not read it. */
static int acpc_state(const AcpcShape *g, const char *line, int rounds, AcpcState *st) {
    const char *p = line;
    if (strncmp(p, "MATCHSTATE:", 11) != 0)
        return -1;
    p = acpc_unsigned(p + 11, &st->viewer);
    if (p == NULL || st->viewer >= (unsigned long long)g->players || *p != ':')
        return -1;
    p = acpc_unsigned(p + 1, &st->hand);
    if (p == NULL || *p != ':')
        return -1;
    p++;
    st->nbetting = 0;
    st->rounds = 1;
    while (*p != 0 && *p != ':') {
        if (*p == '/') {
            st->rounds++;
            p++;
            continue;
        }
        char a = acpc_letter(*p++);
        if (a == 0 || st->nbetting + 24 >= sizeof st->betting)
            return -1;
        st->betting[st->nbetting++] = a;
        if (a == 'r' && g->nolimit) {
            long long size;
            p = acpc_signed(p, &size);
            if (p == NULL)
                return -1;
            st->nbetting += (size_t)snprintf(st->betting + st->nbetting, 22, "%lld", size);
        }
    }
    if (*p == ':')
        p++;
    if (rounds < 0)
        rounds = st->rounds < 4 ? st->rounds : 4;
    for (int q = 0; q < g->players; q++) {
        if (q > 0 && *p == '|')
            p++;
        st->ncards[q] = acpc_cards(&p, g->hole, st->cards[q]);
        if (st->ncards[q] != 0 && st->ncards[q] != g->hole)
            return -1;
    }
    st->nboard = 0;
    for (int r = 0; r < rounds; r++) {
        if (r > 0 && *p == '/')
            p++;
        if (acpc_cards(&p, g->board[r], st->board + st->nboard) != g->board[r])
            return -1;
        st->nboard += g->board[r];
    }
    st->end = (size_t)(p - line);
    return 0;
}

/* What an agent's line was, read against the state it was sent. */
enum { ACPC_ACTION, ACPC_COMMENT, ACPC_BAD_STATE, ACPC_OTHER_STATE, ACPC_BAD_ACTION };

typedef struct {
    char type;      /* 'f', 'c' or 'r' */
    long long size; /* a no-limit raise's: the chips in the hand after it */
    size_t at;      /* where the action starts in the line (after the state and its ':') */
} AcpcAction;

/* ``line`` (NUL-terminated, its CR LF cut) read as the dealer reads a response to ``sent``. */
static int acpc_response(const AcpcShape *g, const char *sent, const char *line, AcpcAction *a) {
    a->at = 0;
    if (line[0] == '#' || line[0] == ';')
        return ACPC_COMMENT;
    size_t n = strlen(sent);
    size_t end;
    if (strncmp(line, sent, n) == 0 && line[n] == ':') {
        end = n; /* the state as sent: it reads as itself (the common case) */
    } else {
        AcpcState want, got;
        if (acpc_state(g, sent, -1, &want) != 0)
            return ACPC_OTHER_STATE;
        if (acpc_state(g, line, want.rounds, &got) != 0)
            return ACPC_BAD_STATE;
        int v = (int)want.viewer;
        if (got.viewer != want.viewer || got.hand != want.hand || got.nbetting != want.nbetting ||
            memcmp(got.betting, want.betting, want.nbetting) != 0 || got.ncards[v] != want.ncards[v] ||
            memcmp(got.cards[v], want.cards[v], (size_t)want.ncards[v]) != 0 || got.nboard != want.nboard ||
            memcmp(got.board, want.board, (size_t)want.nboard) != 0)
            return ACPC_OTHER_STATE;
        end = got.end;
    }
    if (line[end] != ':') { /* something after the state: the dealer reads it as a bad action */
        a->at = end;
        return ACPC_BAD_ACTION;
    }
    a->at = end + 1;
    const char *p = line + end + 1;
    a->type = acpc_letter(*p);
    a->size = 0;
    if (a->type == 0)
        return ACPC_BAD_ACTION;
    if (a->type == 'r' && g->nolimit && acpc_signed(p + 1, &a->size) == NULL)
        return ACPC_BAD_ACTION;
    return ACPC_ACTION;
}

/* The line that stands for a wrong response in place of the seat's reply:
 * the arena (protocols.acpc.agent_fault) puts it in the words of the fault.
 * ``code``: comment, bad_state, other_state, bad_action, invalid_action,
 * raise_size (the ACPC_* reading, or the rules); ``actions``: the letters
 * valid there; a raise's bounds (``lo`` > ``hi``: no sizes, a limit game). */
static void acpc_fault(Buf *out, const char *code, const char *line, size_t len, size_t cap, const char *state,
                       size_t at, const char *actions, long long lo, long long hi) {
    adds(out, "{\"acpc_fault\": \"");
    adds(out, code);
    adds(out, "\", \"received\": ");
    add_json_str(out, line, len, cap);
    adds(out, ", \"state\": ");
    add_json_str(out, state, strlen(state), ACPC_MAX_LINE);
    if (at > 0 && at <= len) {
        adds(out, ", \"action\": ");
        add_json_str(out, line + at, len - at, cap / 3 < 40 ? cap / 3 : 40);
    }
    addf(out, ", \"actions\": \"%s\"", actions);
    if (lo <= hi)
        addf(out, ", \"min\": %lld, \"max\": %lld", lo, hi);
    adds(out, "}");
}

/* -- a hold'em seat as ACPC states ------------------------------------------------ */

#define MAX_SEATS 64

/* The message fields a seat's translation reads, found in one pass. */
enum { K_TYPE, K_HAND, K_BUTTON, K_IN_HAND, K_BETS, K_CARDS, K_BOARD, K_SEAT, K_AMOUNT, K_ACTION, K_TO_CALL, K_SHOWN,
       K_MIN_TO, K_MAX_TO, K_RAISE_SIZE, NKEYS };
static const char *const KEYS[NKEYS] = {"type", "hand", "button", "in_hand", "bets", "cards", "board", "seat",
                                        "amount", "action", "to_call", "shown", "min_raise_to", "max_raise_to",
                                        "raise_size"};

/* Which of KEYS the key k (klen bytes) is, or -1: by its length and a
 * letter, then compared (a loop over them all was the codec's hot spot). */
static int key_index(const char *k, size_t klen) {
    int i = -1;
    switch (klen) {
    case 4:
        i = k[0] == 't' ? K_TYPE : k[0] == 'h' ? K_HAND : k[0] == 'b' ? K_BETS : k[0] == 's' ? K_SEAT : -1;
        break;
    case 5:
        i = k[0] == 'c' ? K_CARDS : k[0] == 'b' ? K_BOARD : k[0] == 's' ? K_SHOWN : -1;
        break;
    case 6:
        i = k[0] == 'b' ? K_BUTTON : k[0] == 'a' ? (k[1] == 'm' ? K_AMOUNT : K_ACTION) : -1;
        break;
    case 7:
        i = k[0] == 'i' ? K_IN_HAND : k[0] == 't' ? K_TO_CALL : -1;
        break;
    case 10:
        i = k[0] == 'r' ? K_RAISE_SIZE : -1;
        break;
    case 12:
        i = k[1] == 'i' ? K_MIN_TO : k[1] == 'a' ? K_MAX_TO : -1;
        break;
    }
    return i >= 0 && memcmp(KEYS[i], k, klen) == 0 ? i : -1;
}

/* The keys each message type needs (the rest are not read). */
#define BIT(k) (1u << (k))
static unsigned needed(const char *type) {
    if (is_str(type, "action"))
        return BIT(K_SEAT) | BIT(K_ACTION) | BIT(K_AMOUNT);
    if (is_str(type, "act")) /* raise_size: a limit game's act only (a no-limit one is read to its end) */
        return BIT(K_TO_CALL) | BIT(K_MIN_TO) | BIT(K_MAX_TO) | BIT(K_RAISE_SIZE);
    if (is_str(type, "street"))
        return BIT(K_BOARD);
    if (is_str(type, "hand_start"))
        return BIT(K_HAND) | BIT(K_BUTTON) | BIT(K_IN_HAND) | BIT(K_BETS) | BIT(K_CARDS);
    if (is_str(type, "hand_end"))
        return BIT(K_SHOWN);
    return 0;
}

/* The values of the keys read, each its first occurrence (as ``get`` finds
 * it); NULL where absent. One pass, which stops once the message's type and
 * every key that type needs are found. */
typedef struct {
    const char *v[NKEYS];
} Fields;

static void fields(const char *obj, Fields *f) {
    memset(f, 0, sizeof *f);
    const char *p = ws(obj);
    if (*p != '{')
        return;
    p = ws(p + 1);
    unsigned found = 0, want = ~0u;
    while (*p == '"') {
        const char *k = p + 1, *end = skip(p);
        if (end == NULL)
            return;
        size_t klen = (size_t)(end - 1 - k);
        p = ws(end);
        if (*p != ':')
            return;
        p = ws(p + 1);
        int i = key_index(k, klen);
        if (i >= 0 && !(found & BIT(i))) {
            f->v[i] = p;
            found |= BIT(i);
            if (i == K_TYPE)
                want = BIT(K_TYPE) | needed(p);
        }
        if ((found & want) == want)
            return;
        p = skip(p);
        if (p == NULL)
            return;
        p = ws(p);
        if (*p != ',')
            return;
        p = ws(p + 1);
    }
}

typedef struct {
    int seat;
    /* The betting: limit (ACPC's r carries no amount) once ``known``. The relay
     * knows it from match_start; the codec, which starts after it, from the
     * seat's first act (a limit game's has raise_size). Until then states are
     * written as in no-limit, and those held are mended when it is learnt. */
    int limit, known;
    int pending; /* a state not written yet, held until the next message shows it whole */
    long long hand;
    int order[MAX_SEATS], n; /* the seats dealt in, by position */
    Buf betting;             /* the rounds' tokens joined by '/' (a raise always r<N>: cut when written in limit) */
    long long committed[MAX_SEATS], street_bet[MAX_SEATS], max_bet; /* by seat */
    char holes[MAX_SEATS][16];
    Buf boards; /* "/" and each street's new cards */
    int board_cards;
    Buf sent; /* the last state written */
    /* the last act: what a call costs, the raise's bounds on this street (max_to < 0: no raise) */
    long long to_call, min_to, max_to;
} Holdem;

static const AcpcShape HOLDEM_SHAPE_2 = {2, 2, 1, {0, 3, 1, 1}};

static int ok_seat(long long s) { return s >= 0 && s < MAX_SEATS; }

/* Betting as a limit game writes it: each raise's amount (the digits after r) cut. */
static void add_limit_betting(Buf *out, const char *betting, size_t n) {
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        if (betting[i] >= '0' && betting[i] <= '9') {
            add(out, betting + start, i - start);
            start = i + 1;
        }
    }
    add(out, betting + start, n - start);
}

/* The states in ``held`` (written before the betting was known to be limit)
 * as limit writes them: the amounts cut from each line's betting, its fourth field. */
static void he_mend_held(Buf *held) {
    if (held->n == 0)
        return;
    Buf out = {0};
    size_t start = 0;
    while (start < held->n) {
        const char *line = held->p + start, *nl = memchr(line, '\n', held->n - start);
        size_t len = nl ? (size_t)(nl - line) + 1 : held->n - start, colons = 0, i = 0;
        for (; i < len && colons < 3; i++)
            colons += line[i] == ':';
        size_t end = i;
        while (end < len && line[end] != ':')
            end++;
        add(&out, line, i);
        add_limit_betting(&out, line + i, end - i);
        add(&out, line + end, len - end);
        start += len;
    }
    clear(held);
    add(held, out.p, out.n);
    free(out.p);
}

static void he_state(Holdem *h, Buf *out) {
    int position = 0;
    for (int i = 0; i < h->n; i++)
        if (h->order[i] == h->seat)
            position = i;
    adds(out, "MATCHSTATE:");
    add_int(out, position);
    adds(out, ":");
    add_int(out, h->hand);
    adds(out, ":");
    if (h->limit)
        add_limit_betting(out, h->betting.p ? h->betting.p : "", h->betting.n);
    else
        add(out, h->betting.p ? h->betting.p : "", h->betting.n);
    adds(out, ":");
    for (int i = 0; i < h->n; i++) {
        if (i)
            adds(out, "|");
        adds(out, h->holes[h->order[i]]);
    }
    add(out, h->boards.p ? h->boards.p : "", h->boards.n);
}

/* The state, now whole, added to ``held``: written with the next one the agent must answer. */
static void he_flush(Holdem *h, Buf *held, int force) {
    if (!(h->pending || force))
        return;
    h->pending = 0;
    clear(&h->sent);
    he_state(h, &h->sent);
    add(held, h->sent.p, h->sent.n);
    add(held, "\r\n", 2);
}

static void he_cards(const char *list, char *out, size_t cap) {
    size_t n = 0;
    for (const char *c = first(list); c != NULL; c = next(c)) {
        const char *t;
        size_t len = str(c, &t);
        if (n + len < cap) {
            memcpy(out + n, t, len);
            n += len;
        }
    }
    out[n] = 0;
}

static void he_start(Holdem *h, const Fields *msg) {
    h->hand = num(msg->v[K_HAND], 0);
    long long button = num(msg->v[K_BUTTON], 0);
    int in[MAX_SEATS] = {0};
    for (const char *s = first(msg->v[K_IN_HAND]); s != NULL; s = next(s)) {
        long long v = num(s, -1);
        if (ok_seat(v))
            in[v] = 1;
    }
    h->n = 0;
    for (int s = 0; s < MAX_SEATS; s++)
        if (in[s] && s > button)
            h->order[h->n++] = s;
    for (int s = 0; s < MAX_SEATS; s++)
        if (in[s] && s <= button)
            h->order[h->n++] = s;
    clear(&h->betting);
    clear(&h->boards);
    h->board_cards = 0;
    long long bets[MAX_SEATS] = {0};
    int i = 0;
    for (const char *b = first(msg->v[K_BETS]); b != NULL && i < MAX_SEATS; b = next(b))
        bets[i++] = num(b, 0);
    h->max_bet = 0;
    for (int k = 0; k < h->n; k++) {
        int s = h->order[k];
        h->committed[s] = h->street_bet[s] = bets[s];
        if (k == 0 || bets[s] > h->max_bet)
            h->max_bet = bets[s];
    }
    for (int s = 0; s < MAX_SEATS; s++)
        h->holes[s][0] = 0;
    if (ok_seat(h->seat))
        he_cards(msg->v[K_CARDS], h->holes[h->seat], sizeof h->holes[0]);
}

static void he_street(Holdem *h, const Fields *msg) {
    adds(&h->betting, "/");
    char cards[64];
    he_cards(msg->v[K_BOARD], cards, sizeof cards);
    size_t seen = 2 * (size_t)h->board_cards, len = strlen(cards);
    adds(&h->boards, "/");
    if (len > seen) {
        adds(&h->boards, cards + seen);
        h->board_cards += (int)((len - seen) / 2);
    }
    for (int k = 0; k < h->n; k++)
        h->street_bet[h->order[k]] = 0;
    h->max_bet = 0;
}

static void he_action(Holdem *h, const Fields *msg) {
    long long s = num(msg->v[K_SEAT], -1), amount = num(msg->v[K_AMOUNT], 0);
    if (!ok_seat(s))
        return;
    h->committed[s] += amount;
    h->street_bet[s] += amount;
    if (is_str(msg->v[K_ACTION], "fold")) {
        adds(&h->betting, "f");
    } else if (h->street_bet[s] > h->max_bet) {
        h->max_bet = h->street_bet[s];
        adds(&h->betting, "r");
        add_int(&h->betting, h->committed[s]);
    } else {
        adds(&h->betting, "c");
    }
}

enum { HE_NOTICE, HE_ACT, HE_END };

/* One holdem message of the seat (NUL-terminated): the states it completes
 * join ``held``. HE_ACT: the seat is asked (the states held are due now, the
 * last one is the one to answer); HE_END: the match is over (they are due). */
static int he_message(Holdem *h, const char *text, Buf *held) {
    Fields f, *msg = &f;
    fields(text, msg);
    const char *type = msg->v[K_TYPE];
    if (is_str(type, "hand_start")) {
        he_start(h, msg);
        h->pending = 1;
    } else if (is_str(type, "street")) {
        he_street(h, msg);
        h->pending = 1;
    } else if (is_str(type, "action")) {
        he_flush(h, held, 0);
        he_action(h, msg);
        h->pending = 1;
    } else if (is_str(type, "act")) {
        if (!h->known) {
            h->known = 1;
            h->limit = msg->v[K_RAISE_SIZE] != NULL;
            if (h->limit)
                he_mend_held(held);
        }
        he_flush(h, held, 1);
        h->to_call = num(msg->v[K_TO_CALL], 0);
        h->min_to = num(msg->v[K_MIN_TO], -1);
        h->max_to = num(msg->v[K_MAX_TO], -1);
        return HE_ACT;
    } else if (is_str(type, "hand_end")) {
        for (const char *s = first(msg->v[K_SHOWN]); s != NULL; s = next(s)) {
            long long seat = num(get(s, "seat"), -1);
            if (ok_seat(seat))
                he_cards(get(s, "cards"), h->holes[seat], sizeof h->holes[0]);
        }
        he_flush(h, held, 1);
    } else if (is_str(type, "match_end")) {
        return HE_END;
    }
    return HE_NOTICE;
}

/* The reply for the agent's response ``line`` (NUL-terminated, CR LF cut) to
 * the last state, added to ``out``: the seat's action, or (a wrong response)
 * the fault line. ``lenient``: what the ACPC dealer does instead of a fault
 * (a comment, an unreadable state or one not sent is skipped: 0 is
 * returned and nothing added; a bad action is a call; a raise out of
 * bounds is brought to the nearest bound, one where none is allowed a call).
 * In limit a raise has no size: an agent's r is the act's one raise-to. */
static int he_reply(const Holdem *h, const char *line, size_t len, int lenient, Buf *out) {
    const char *state = h->sent.p ? h->sent.p : "";
    AcpcShape shape = HOLDEM_SHAPE_2;
    shape.players = h->n > 0 ? h->n : 2;
    shape.nolimit = !h->limit;
    long long before = h->committed[h->seat] - h->street_bet[h->seat];
    int can_raise = h->max_to >= 0 && h->min_to >= 0;
    /* a raise's bounds, in ACPC's terms (the chips in the hand after it); lo > hi: no sizes to give */
    int sizes = can_raise && !h->limit;
    long long lo = sizes ? h->min_to + before : 1, hi = sizes ? h->max_to + before : 0;
    char actions[4] = "c", *ap = actions + 1;
    if (h->to_call > 0)
        *ap++ = 'f';
    if (can_raise)
        *ap++ = 'r';
    *ap = 0;
    AcpcAction a;
    int read = acpc_response(&shape, state, line, &a);
    static const char *const code[] = {"", "comment", "bad_state", "other_state", "bad_action"};
    if (read == ACPC_BAD_ACTION && lenient) {
        a.type = 'c'; /* the dealer: "bad action format in response, changed to call" */
        read = ACPC_ACTION;
    }
    if (read != ACPC_ACTION) {
        if (lenient)
            return 0; /* the dealer ignores the line and waits for another */
        acpc_fault(out, code[read], line, len, ACPC_MAX_LINE, state, a.at, actions, lo, hi);
        return 1;
    }
    if (a.type == 'r' && !can_raise) {
        if (!lenient) {
            acpc_fault(out, "invalid_action", line, len, ACPC_MAX_LINE, state, a.at, actions, lo, hi);
            return 1;
        }
        a.type = 'c'; /* "invalid action, changed to call" */
    }
    if (a.type == 'r' && h->limit) {
        a.size = h->min_to + before; /* the one raise there is */
    } else if (a.type == 'r' && (a.size < lo || a.size > hi)) {
        if (!lenient) {
            acpc_fault(out, "raise_size", line, len, ACPC_MAX_LINE, state, a.at, actions, lo, hi);
            return 1;
        }
        a.size = a.size < lo ? lo : hi; /* "raise of N increased/decreased to M" */
    }
    if (a.type == 'f' && h->to_call > 0) {
        adds(out, "{\"type\": \"action\", \"action\": \"fold\"}");
    } else if (a.type == 'r') {
        adds(out, "{\"type\": \"action\", \"action\": \"raise\", \"to\": ");
        add_int(out, a.size - before);
        adds(out, "}");
    } else {
        /* a call; a fold where a check is free is the check it means, as the dealer takes it */
        adds(out, "{\"type\": \"action\", \"action\": \"call\"}");
    }
    return 1;
}

static inline void he_free(Holdem *h) {
    free(h->betting.p);
    free(h->boards.p);
    free(h->sent.p);
}

#endif
