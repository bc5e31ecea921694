/* hold'em's compiled dialogue: cash hands played in C over the bots' pipes
 * (act -> action, the action and street notices to every seat, and between
 * hands hand_end, the next deal and hand_start), on the very HoldemHand the
 * Python dialogue holds.
 *
 * The rules are not copied: this file includes games/holdem/_engine.c (the
 * engine, without its module), so the Hand struct and every rule are the
 * engine's own, and the object the dealer holds is worked on in place (the
 * next hand is dealt into it by the engine's own hand_setup).
 *
 * Chance stays the dealer's: the decks come from HoldemDealer.native_deals,
 * drawn ahead from the match's chance in the order the Python path draws
 * them, and the hands, chips won and decks dealt here are told back to the
 * dealer (native_sync) before anything else of it runs. Every message is
 * rendered here and by the Python dialogue (hand_end and hand_start too:
 * calling Python for them was half the arena's time a hand); the two are
 * held to the same bytes by tests/play/test_native_holdem.py, message by
 * message over random hands (`render`) and as whole transcripts, native
 * against pure. The last hand's end, and anything between hands that does
 * not fit the plain case, is left to the Python dialogue's own steps,
 * driven from here (between_hands).
 *
 * As kuhn3's and vonneumann's: a reply is taken only in its canonical forms
 * ({"type":"action","action":"call"}, fold, allin, or raise with an
 * integer "to"; compact or with Python's default separators) and only if
 * the engine finds it legal; anything else hands the match back to the
 * Python dialogue mid-exchange, which judges it in its own words. It also
 * hands back when a seat's held notices would pass HOLD_CAP, when a seat's
 * end of its stdin is closed (Python writes that notice at once and finds
 * the fault), at the match's end, and every `budget` messages. Notices are
 * held per seat and written with that seat's next request, as
 * BotProcess.hold does; what is still held goes back to each bot's `held`.
 */
#define HOLDEM_ENGINE_EMBEDDED
#include "../games/holdem/_engine.c"
#include "arena_exchange.h"
#include "dialogue_state.h"

#define NSTATE HLSTATE_INTS
#define HOLD_CAP 3072 /* arena/play/_bot.py */
#define MSG_MAX 4096

enum { S_HAND_START = 1, S_BOARD = 2, S_ASK = 3, S_NOTICE = 5, S_HAND_END = 6 }; /* protocols.holdem.Step */
static const char RANK[] = "23456789TJQKA", SUIT[] = "cdhs";

#define DECKS_AHEAD 16 /* decks asked of the dealer at a time */

typedef struct {
    HLState st;
    Hand *h;
    int n;
    long long hands, stack, small_blind, big_blind, ante; /* native_params */
    Ex ex;
    char msg[MSG_MAX];
    char held[MAXSEATS][HOLD_CAP + 1];
    int held_len[MAXSEATS];
    int action;
    long long to;
    char line[256]; /* the reply accepted */
    int line_len;
    /* played here and not yet told to the dealer (native_sync) */
    int pending;                /* hands finished */
    long long won[MAXSEATS];    /* chips won in them */
    int dealt;                  /* decks dealt from the dealer's queue */
    PyObject *decks;            /* bytes: the queue's decks from `dealt` on, as last asked */
    int deck_at, deck_count;
} HL;

/* Rendering: every message is JSON as orjson writes it (compact, keys in the
 * model's order), with the exchange core's Out helpers (-1 for an overlong
 * message: Python's). */
static void put_cards(Out *b, const int *cards, int n) {
    char c[6] = {'"', 0, 0, '"', ',', 0};
    OUT(b, "[");
    for (int i = 0; i < n; i++) {
        c[1] = RANK[cards[i] >> 2];
        c[2] = SUIT[cards[i] & 3];
        out_bytes(b, c, i + 1 < n ? 5 : 4);
    }
    OUT(b, "]");
}

static void put_lls(Out *b, const long long *v, int n) {
    OUT(b, "[");
    for (int i = 0; i < n; i++) {
        if (i)
            OUT(b, ",");
        out_ll(b, v[i]);
    }
    OUT(b, "]");
}

/* The button, the blinds' seats and the blinds: the same fields, in the same
 * order, in `act` and in `hand_start`. */
static void put_positions(Out *b, const Hand *h) {
    OUT(b, ",\"button\":");
    out_ll(b, h->button);
    OUT(b, ",\"small_blind_seat\":");
    out_ll(b, h->sb_seat);
    OUT(b, ",\"big_blind_seat\":");
    out_ll(b, h->bb_seat);
    OUT(b, ",\"small_blind\":");
    out_ll(b, h->small_blind);
    OUT(b, ",\"big_blind\":");
    out_ll(b, h->big_blind);
}

/* Seats (at most MAXSEATS of them), written as put_lls writes numbers. */
static void put_ints(Out *b, const int *v, int n) {
    long long w[MAXSEATS];
    for (int i = 0; i < n && i < MAXSEATS; i++)
        w[i] = v[i];
    put_lls(b, w, n < MAXSEATS ? n : MAXSEATS);
}

/* The seats dealt in, in seat order (sorted(hand.order)); their number. */
static int dealt_seats(Hand *h, int *seats) {
    int k = 0;
    for (int s = 0; s < h->n; s++)
        if (index_in_order(h, s) >= 0)
            seats[k++] = s;
    return k;
}

/* The act request (HoldemDealer._ask), byte for byte as orjson writes it. */
static int render_act(HL *x, int seat, char *out, int cap) {
    Hand *h = x->h;
    Out b = {out, 0, cap};
    long long to_call = h->max_bet - h->bet[seat];
    OUT(&b, "{\"type\":\"act\",\"hand\":");
    out_ll(&b, x->st.hand);
    OUT(&b, ",\"street\":\"");
    out_str(&b, STREET_NAME[h->street]);
    OUT(&b, "\",\"seat\":");
    out_ll(&b, seat);
    OUT(&b, ",\"cards\":");
    put_cards(&b, h->hole[seat], 2);
    OUT(&b, ",\"board\":");
    put_cards(&b, h->board, h->nboard);
    OUT(&b, ",\"stacks\":");
    put_lls(&b, h->stack, h->n);
    OUT(&b, ",\"bets\":");
    put_lls(&b, h->bet, h->n);
    OUT(&b, ",\"pot\":");
    out_ll(&b, h->pot);
    OUT(&b, ",\"to_call\":");
    out_ll(&b, to_call);
    put_positions(&b, h);
    OUT(&b, ",\"in_hand\":[");
    for (int s = 0, first = 1; s < h->n; s++)
        if (!h->folded[s] && index_in_order(h, s) >= 0) {
            if (!first)
                OUT(&b, ",");
            out_ll(&b, s);
            first = 0;
        }
    OUT(&b, "],\"last_action\":{\"seat\":");
    out_ll(&b, h->last_seat);
    OUT(&b, ",\"action\":\"");
    out_str(&b, ACTION[h->last_action]);
    OUT(&b, "\",\"amount\":");
    out_ll(&b, h->last_put);
    OUT(&b, "},\"legal\":");
    /* Hand_legal's answer (the engine's options) */
    Options o;
    options(h, seat, &o);
    if (o.fold)
        OUT(&b, "[\"fold\",\"call\"");
    else
        OUT(&b, "[\"call\"");
    if (o.raise)
        OUT(&b, ",\"raise\"");
    if (o.allin)
        OUT(&b, ",\"allin\"");
    if (o.raise) {
        OUT(&b, "],\"min_raise_to\":");
        out_ll(&b, o.low);
        OUT(&b, ",\"max_raise_to\":");
        out_ll(&b, o.high);
    } else {
        OUT(&b, "],\"min_raise_to\":null,\"max_raise_to\":null");
    }
    if (h->limit) { /* limit only: the street's raise size, the bets and raises made, the cap */
        OUT(&b, ",\"raise_size\":");
        out_ll(&b, h->limit_size[h->street]);
        OUT(&b, ",\"raises\":");
        out_ll(&b, h->raises);
        OUT(&b, ",\"max_raises\":");
        out_ll(&b, h->max_raises[h->street]);
    }
    OUT(&b, "}\n");
    return b.n < cap ? b.n : -1;
}

/* The street notices for the board cards dealt since `shown` (HoldemDealer._streets, one seat's). */
static void put_streets(HL *x, Out *b, int shown) {
    Hand *h = x->h;
    for (int size = 3; size <= 5; size++)
        if (shown < size && size <= h->nboard) {
            OUT(b, "{\"type\":\"street\",\"hand\":");
            out_ll(b, x->st.hand);
            OUT(b, ",\"street\":\"");
            out_str(b, STREET_NAME[size - 2]);
            OUT(b, "\",\"board\":");
            put_cards(b, h->board, size);
            OUT(b, ",\"pot\":");
            out_ll(b, h->pot);
            OUT(b, "}\n");
        }
}

/* The notice of the last action and of the streets it dealt (HoldemDealer._notice). */
static int render_notice(HL *x, char *out, int cap) {
    Hand *h = x->h;
    Out b = {out, 0, cap};
    OUT(&b, "{\"type\":\"action\",\"hand\":");
    out_ll(&b, x->st.hand);
    OUT(&b, ",\"seat\":");
    out_ll(&b, h->last_seat);
    OUT(&b, ",\"action\":\"");
    out_str(&b, ACTION[h->last_action]);
    OUT(&b, "\",\"amount\":");
    out_ll(&b, h->last_put);
    OUT(&b, ",\"bet\":");
    out_ll(&b, h->after_bet);
    OUT(&b, ",\"stack\":");
    out_ll(&b, h->after_stack);
    OUT(&b, ",\"pot\":");
    out_ll(&b, h->pot);
    if (h->after_stack == 0 && h->last_action != A_FOLD)
        OUT(&b, ",\"all_in\":true}\n");
    else
        OUT(&b, ",\"all_in\":false}\n");
    put_streets(x, &b, (int)x->st.shown);
    return b.n < cap ? b.n : -1;
}

/* hand_start for one seat (HoldemDealer._hand_start, cash: no tournament). */
static int render_hand_start(HL *x, int seat, char *out, int cap) {
    Hand *h = x->h;
    Out b = {out, 0, cap};
    int seats[MAXSEATS], k = dealt_seats(h, seats);
    OUT(&b, "{\"type\":\"hand_start\",\"hand\":");
    out_ll(&b, x->st.hand);
    OUT(&b, ",\"tournament\":null,\"seat\":");
    out_ll(&b, seat);
    OUT(&b, ",\"cards\":");
    put_cards(&b, h->hole[seat], 2);
    put_positions(&b, h);
    OUT(&b, ",\"ante\":");
    out_ll(&b, h->ante);
    OUT(&b, ",\"stacks\":");
    put_lls(&b, h->posted_stack, h->n);
    OUT(&b, ",\"bets\":");
    put_lls(&b, h->posted_bet, h->n);
    OUT(&b, ",\"in_hand\":");
    put_ints(&b, seats, k);
    OUT(&b, "}\n");
    return b.n < cap ? b.n : -1;
}

/* games.holdem._cards.describe: an eval7 value in words; 0 if it is not one
 * it knows (Python's to say). */
static const char *WORD[] = {"two", "three", "four", "five", "six", "seven", "eight",
                             "nine", "ten", "jack", "queen", "king", "ace"};
static const char *PLURAL[] = {"twos", "threes", "fours", "fives", "sixes", "sevens", "eights",
                               "nines", "tens", "jacks", "queens", "kings", "aces"};

static int put_describe(Out *b, long long value) {
    long long cat = value >> 24;
    int top = (int)((value >> 16) & 15), second = (int)((value >> 12) & 15);
    if (value < 0 || top > 12 || (second > 12 && (cat == 2 || cat == 6)))
        return 0;
    switch (cat) {
    case 0: OUT(b, "high card, "); out_str(b, WORD[top]); break;
    case 1: OUT(b, "a pair of "); out_str(b, PLURAL[top]); break;
    case 2: OUT(b, "two pair, "); out_str(b, PLURAL[top]); OUT(b, " and "); out_str(b, PLURAL[second]); break;
    case 3: OUT(b, "three "); out_str(b, PLURAL[top]); break;
    case 4: OUT(b, "a straight, "); out_str(b, WORD[top]); OUT(b, " high"); break;
    case 5: OUT(b, "a flush, "); out_str(b, WORD[top]); OUT(b, " high"); break;
    case 6: OUT(b, "a full house, "); out_str(b, PLURAL[top]); OUT(b, " full of "); out_str(b, PLURAL[second]); break;
    case 7: OUT(b, "four "); out_str(b, PLURAL[top]); break;
    default:
        if (top == 12)
            OUT(b, "a royal flush");
        else {
            OUT(b, "a straight flush, ");
            out_str(b, WORD[top]);
            OUT(b, " high");
        }
    }
    return 1;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static void put_sorted(Out *b, const int *v, int n) {
    int s[MAXSEATS];
    memcpy(s, v, sizeof(int) * (size_t)n);
    qsort(s, (size_t)n, sizeof s[0], cmp_int);
    put_ints(b, s, n);
}

/* hand_end (HoldemDealer._hand_end): the same for every seat. */
static int render_hand_end(HL *x, char *out, int cap) {
    Hand *h = x->h;
    Out b = {out, 0, cap};
    OUT(&b, "{\"type\":\"hand_end\",\"hand\":");
    out_ll(&b, x->st.hand);
    OUT(&b, ",\"board\":");
    put_cards(&b, h->board, h->nboard);
    OUT(&b, ",\"shown\":[");
    for (int s = 0, first = 1; s < h->n; s++) /* sorted(hand.values.items()) */
        if (h->has_value[s] && index_in_order(h, s) >= 0) {
            if (!first)
                OUT(&b, ",");
            first = 0;
            OUT(&b, "{\"seat\":");
            out_ll(&b, s);
            OUT(&b, ",\"cards\":");
            put_cards(&b, h->hole[s], 2);
            OUT(&b, ",\"hand\":\"");
            if (!put_describe(&b, h->value[s]))
                return -1;
            OUT(&b, "\"}");
        }
    OUT(&b, "],\"pots\":[");
    for (int i = 0; i < h->npots; i++) {
        CPot *p = &h->pots[i];
        if (i)
            OUT(&b, ",");
        OUT(&b, "{\"amount\":");
        out_ll(&b, p->amount);
        OUT(&b, ",\"seats\":");
        put_sorted(&b, p->seats, p->nseats);
        OUT(&b, ",\"winners\":");
        put_sorted(&b, p->winners, p->nwinners);
        if (p->has_value) {
            OUT(&b, ",\"hand\":\"");
            if (!put_describe(&b, p->value))
                return -1;
            OUT(&b, "\"}");
        } else {
            OUT(&b, ",\"hand\":null}");
        }
    }
    OUT(&b, "],\"stacks\":");
    put_lls(&b, h->stack, h->n);
    long long profits[MAXSEATS];
    for (int s = 0; s < h->n; s++)
        profits[s] = h->stack[s] - h->start[s];
    OUT(&b, ",\"profits\":");
    put_lls(&b, profits, h->n);
    OUT(&b, "}\n");
    return b.n < cap ? b.n : -1;
}

/* A canonical integer: [0-9]{1,18} without a leading zero. */
static int canonical_int(const char *p, int len, long long *out) {
    if (len < 1 || len > 18 || (p[0] == '0' && len > 1))
        return 0;
    long long v = 0;
    for (int i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 1;
}

static int is(const char *line, int len, const char *want) {
    int n = (int)strlen(want);
    return len == n && memcmp(line, want, (size_t)n) == 0;
}

static int prefix(const char *line, int len, const char *head) {
    int n = (int)strlen(head);
    return len > n && memcmp(line, head, (size_t)n) == 0 ? n : 0;
}

static int hl_accept(void *ctx, int index, const char *line, int len) {
    HL *x = ctx;
    (void)index;
    int a = -1, at;
    long long to = 0;
    if (is(line, len, "{\"type\":\"action\",\"action\":\"call\"}") ||
        is(line, len, "{\"type\": \"action\", \"action\": \"call\"}"))
        a = A_CALL;
    else if (is(line, len, "{\"type\":\"action\",\"action\":\"fold\"}") ||
             is(line, len, "{\"type\": \"action\", \"action\": \"fold\"}"))
        a = A_FOLD;
    else if (is(line, len, "{\"type\":\"action\",\"action\":\"allin\"}") ||
             is(line, len, "{\"type\": \"action\", \"action\": \"allin\"}"))
        a = A_ALLIN;
    else if (line[len - 1] == '}' &&
             ((at = prefix(line, len, "{\"type\":\"action\",\"action\":\"raise\",\"to\":")) ||
              (at = prefix(line, len, "{\"type\": \"action\", \"action\": \"raise\", \"to\": "))) &&
             canonical_int(line + at, len - at - 1, &to))
        a = A_RAISE;
    if (a < 0)
        return 0;
    /* legal? (the engine's own check; a refusal's words are Python's to say) */
    PyObject *to_obj = a == A_RAISE ? PyLong_FromLongLong(to) : Py_NewRef(Py_None);
    if (to_obj == NULL) {
        PyErr_Clear();
        return 0;
    }
    long long put_in;
    int ok = check(x->h, x->h->actors[0], a, to_obj, &put_in) == 0;
    Py_DECREF(to_obj);
    if (!ok) {
        PyErr_Clear();
        return 0;
    }
    if (len >= (int)sizeof x->line)
        return 0;
    x->action = a;
    x->to = to;
    memcpy(x->line, line, (size_t)len);
    x->line_len = len;
    return 1;
}

/* May a notification of len[i] bytes for seat seats[i] be held for each?
 * (BotProcess.hold's rules: under HOLD_CAP with what is held, and the bot's
 * end of the pipe still open.) `poll_now` 0: the pipes were just polled,
 * with nothing written or read since, so the answer would be the same. */
static int holds(HL *x, Io *io, const int *seats, const int *len, int k, int poll_now) {
    struct pollfd p[MAXSEATS];
    int np = 0;
    for (int i = 0; i < k; i++) {
        if (x->held_len[seats[i]] + len[i] > HOLD_CAP)
            return 0;
        if (io->codec[seats[i]] != NULL)
            continue; /* a codec's writes do not fail: a hang-up is found by the next read */
        p[np].fd = io->wfd[seats[i]];
        p[np].events = 0;
        p[np].revents = 0;
        np++;
    }
    /* one poll() for every seat: a closed pipe says POLLERR with no event asked */
    return !poll_now || np == 0 || poll(p, (nfds_t)np, 0) == 0;
}

/* Hold `msg` (len bytes) for the seat, and trace it. */
static int hold(HL *x, Io *io, int seat, const char *msg, int len) {
    memcpy(x->held[seat] + x->held_len[seat], msg, (size_t)len);
    x->held_len[seat] += len;
    return trace_text(io, seat, "->", msg, len);
}

/* The notice to every seat of the hand, held for each: the messages it
 * counts (a seat, a message), or -1: hand back before it; -2: an error. */
static int hold_notice(HL *x, Io *io) {
    Hand *h = x->h;
    char notice[MSG_MAX];
    int n = render_notice(x, notice, sizeof notice);
    if (n < 0)
        return -1;
    int seats[MAXSEATS], len[MAXSEATS], k = dealt_seats(h, seats); /* sorted(hand.order) */
    for (int i = 0; i < k; i++)
        len[i] = n;
    if (!holds(x, io, seats, len, k, 1))
        return -1; /* Python writes it now (BotProcess.hold) */
    int streets = 0;
    for (int size = 3; size <= 5; size++)
        streets += x->st.shown < size && size <= h->nboard;
    for (int i = 0; i < k; i++)
        if (hold(x, io, seats[i], notice, n) < 0)
            return -2;
    x->st.shown = h->nboard;
    return k * (1 + streets);
}

/* ---- between hands, in C -------------------------------------------------
 *
 * HoldemDealer's steps from the end of a cash hand to the next request,
 * while every seat plays: hand_end to every seat; the chips won counted and
 * the next hand dealt (_hand_over, _next_hand, _deal: the button moves one
 * seat, every stack back to `stack`, the next deck of the dealer's queue);
 * hand_start to every seat; then the request. It stops, the state saying
 * where, before the last hand's end (match_end is Python's), before a
 * notification that would not be held for every seat, when the dealer has no
 * deck to give, and before the streets of a hand nobody can act in (Step
 * BOARD: with the equal stacks of cash that is every hand, so the loop never
 * plays such a match). */

/* The deck of the next hand, from the dealer's queue: 1, 0 if it gave none, -1 on an error. */
static int next_deck(HL *x, PyObject *dealer, long long *deck, int size) {
    if (x->deck_at >= x->deck_count) {
        long long left = x->hands - x->st.hand - 1;
        Py_CLEAR(x->decks);
        x->deck_at = x->deck_count = 0;
        x->decks = PyObject_CallMethod(dealer, "native_deals", "ii", x->dealt,
                                       (int)(left < DECKS_AHEAD ? left : DECKS_AHEAD));
        if (x->decks == NULL)
            return -1;
        if (!PyBytes_Check(x->decks) || PyBytes_GET_SIZE(x->decks) % size) {
            PyErr_SetString(PyExc_TypeError, "native_deals: bytes, whole decks");
            return -1;
        }
        x->deck_count = (int)(PyBytes_GET_SIZE(x->decks) / size);
        if (!x->deck_count)
            return 0;
    }
    const unsigned char *d = (const unsigned char *)PyBytes_AS_STRING(x->decks) + (Py_ssize_t)x->deck_at * size;
    for (int i = 0; i < size; i++)
        deck[i] = d[i];
    return 1;
}

/* _play_on, every fold told: the request, or the hand's end. */
static void play_on(HL *x) {
    if (x->h->street == OVER) {
        x->st.step = S_HAND_END;
    } else {
        x->st.step = S_ASK;
        x->st.asked = x->h->actors[0];
    }
}

/* From S_HAND_END (the hand over) on, as far as it goes: the messages
 * counted, or -1 with an error set. */
static int native_between(HL *x, Io *io, PyObject *dealer) {
    Hand *h = x->h;
    int counted = 0, polled = 0;
    char msg[MAXSEATS][MSG_MAX];
    int seats[MAXSEATS], len[MAXSEATS];
    for (;;) {
        int k = dealt_seats(h, seats);
        if (x->st.step == S_HAND_END) {
            if (x->st.hand + 1 >= x->hands)
                return counted; /* the match's end: Python's */
            int n = render_hand_end(x, msg[0], MSG_MAX);
            if (n < 0)
                return counted;
            for (int i = 0; i < k; i++)
                len[i] = n;
            if (!holds(x, io, seats, len, k, !polled))
                return counted;
            polled = 1;
            long long deck[2 * MAXSEATS + 5], stacks[MAXSEATS];
            int size = 2 * x->n + 5;
            int got = next_deck(x, dealer, deck, size);
            if (got <= 0)
                return got < 0 ? -1 : counted;
            for (int i = 0; i < k; i++)
                if (hold(x, io, seats[i], msg[0], n) < 0)
                    return -1;
            counted += k;
            for (int s = 0; s < x->n; s++) { /* _hand_over: the chips won, counted */
                x->won[s] += h->stack[s] - h->start[s];
                stacks[s] = x->stack;
            }
            x->pending++;
            x->st.hand++;
            x->deck_at++;
            x->dealt++;
            /* _next_hand, _deal: every seat plays, so the button is the hand's number's seat */
            if (hand_setup(h, stacks, x->n, (int)(x->st.hand % x->n), x->small_blind, x->big_blind, x->ante, deck,
                           size) < 0)
                return -1;
            x->st.shown = 0;
            x->st.step = S_HAND_START;
        } else if (x->st.step == S_HAND_START) {
            for (int i = 0; i < k; i++)
                if ((len[i] = render_hand_start(x, seats[i], msg[i], MSG_MAX)) < 0)
                    return counted;
            if (!holds(x, io, seats, len, k, !polled))
                return counted;
            polled = 1;
            for (int i = 0; i < k; i++)
                if (hold(x, io, seats[i], msg[i], len[i]) < 0)
                    return -1;
            counted += k;
            if (h->nboard)
                x->st.step = S_BOARD; /* nobody could act (in cash, then every hand): Python's */
            else
                play_on(x);
        } else {
            return counted;
        }
    }
}

/* Tell the dealer what was played here since the last time (native_sync). */
static int sync_dealer(HL *x, PyObject *dealer) {
    if (!x->pending && !x->dealt)
        return 0;
    PyObject *won = ints_tuple(x->won, x->n);
    if (won == NULL)
        return -1;
    PyObject *r = PyObject_CallMethod(dealer, "native_sync", "iNi", x->pending, won, x->dealt);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    x->pending = x->dealt = 0;
    memset(x->won, 0, sizeof x->won);
    Py_CLEAR(x->decks); /* the queue's front moved */
    x->deck_at = x->deck_count = 0;
    return 0;
}

/* Where the dealer stands (its native_state and its hand), into x. */
static int read_back(HL *x, PyObject *dealer, long *step) {
    PyObject *state = PyObject_CallMethod(dealer, "native_state", NULL);
    if (state == NULL)
        return -1;
    static const char *names[] = {"step", "asked", "shown", "hand"};
    long long *to[] = {&x->st.step, &x->st.asked, &x->st.shown, &x->st.hand};
    for (int i = 0; i < 4; i++) {
        PyObject *v = PyDict_GetItemString(state, names[i]);
        *to[i] = v != NULL ? PyLong_AsLongLong(v) : -1;
    }
    Py_DECREF(state);
    if (PyErr_Occurred())
        return -1;
    PyObject *hand = PyObject_GetAttrString(dealer, "hand");
    if (hand == NULL)
        return -1;
    if (hand != Py_None)
        x->h = (Hand *)hand; /* the dealer holds it */
    Py_DECREF(hand);
    *step = (long)x->st.step;
    return 0;
}

/* Between two hands where native_between stopped (the dealer told first,
 * sync_dealer): the Python dialogue's own steps, driven from here. hand_end,
 * the next deal and its hand_start, and the streets of a hand nobody can
 * act in, are rendered and moved on by the dealer (next_exchange, feed), and
 * each is held for every seat here, as Table.replies holds a notification
 * (joined per seat, BotProcess.hold's rules); one that would not be held for
 * every seat is left to Python, the dealer standing before it. Then the
 * dealer's state is read back (a new hand: x->h). The messages counted, or
 * -1 with an error set. */
static int between_hands(HL *x, Io *io, PyObject *dealer) {
    int counted = 0;
    /* the dealer takes over where this loop stands (the hand is over) */
    PyObject *r0 = PyObject_CallMethod(dealer, "load_native_state", "({s:L,s:L,s:L,s:L,s:i})", "step",
                                       x->st.step, "asked", x->st.asked, "shown", x->st.shown, "hand", x->st.hand,
                                       "acted", -1);
    if (r0 == NULL)
        return -1;
    Py_DECREF(r0);
    for (;;) {
        long step;
        if (read_back(x, dealer, &step) < 0)
            return -1;
        if (step != S_HAND_START && step != S_BOARD && step != S_HAND_END)
            return counted; /* the next request, or a step Python plays */
        PyObject *exchange = PyObject_CallMethod(dealer, "next_exchange", NULL);
        if (exchange == NULL)
            return -1;
        PyObject *sends = PyObject_GetAttrString(exchange, "sends");
        Py_DECREF(exchange);
        if (sends == NULL || !PyList_Check(sends)) {
            Py_XDECREF(sends);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "a notification's sends are a list");
            return -1;
        }
        /* joined per seat, the seats in the order of their first message (per_seat) */
        int order[MAXSEATS], nord = 0, len[MAXSEATS] = {0};
        static char joined[MAXSEATS][HOLD_CAP + 1];
        Py_ssize_t n = PyList_GET_SIZE(sends);
        int fits = 1;
        for (Py_ssize_t i = 0; i < n && fits; i++) {
            int seat;
            const char *data;
            Py_ssize_t size;
            PyObject *item = PyList_GET_ITEM(sends, i);
            PyObject *payload;
            if (!PyArg_ParseTuple(item, "iO", &seat, &payload) || !PyBytes_Check(payload) || seat < 0 ||
                seat >= x->n) {
                Py_DECREF(sends);
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_TypeError, "a send is (seat, bytes)");
                return -1;
            }
            data = PyBytes_AS_STRING(payload);
            size = PyBytes_GET_SIZE(payload);
            int known = 0;
            for (int j = 0; j < nord; j++)
                known |= order[j] == seat;
            if (!known)
                order[nord++] = seat;
            if (x->held_len[seat] + len[seat] + size > HOLD_CAP) {
                fits = 0; /* Python writes it (BotProcess.hold) */
                break;
            }
            memcpy(joined[seat] + len[seat], data, (size_t)size);
            len[seat] += (int)size;
        }
        for (int j = 0; j < nord && fits; j++) {
            struct pollfd p = {io->wfd[order[j]], 0, 0};
            fits = poll(&p, 1, 0) == 0; /* its input closed: Python writes it now, and finds it */
        }
        Py_DECREF(sends);
        if (!fits)
            return counted; /* the dealer stands before this notice (x was read back above) */
        for (int j = 0; j < nord; j++) {
            int seat = order[j];
            memcpy(x->held[seat] + x->held_len[seat], joined[seat], (size_t)len[seat]);
            x->held_len[seat] += len[seat];
            if (trace_text(io, seat, "->", joined[seat], len[seat]) < 0)
                return -1;
        }
        counted += (int)n;
        PyObject *r = PyObject_CallMethod(dealer, "feed", "(N)", PyList_New(0));
        if (r == NULL)
            return -1;
        Py_DECREF(r);
    }
}

static PyObject *doubles(const double *v, int n) {
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t != NULL && i < n; i++) {
        PyObject *d = PyFloat_FromDouble(v[i]);
        if (d == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, d);
    }
    return t;
}

/* holdem_play(state, params, hand, unused, wfds, rfds, time_used, slowest,
 *             timeout, budget, spin, max_line, trace, budget_messages[, codecs])
 * `unused`: each seat's notices held so far (bytes), the loop's from now on;
 * `codecs`: None, or per seat None or the seat's codec (an ACPC agent's:
 * its messages are written, and its replies read, through it);
 * -> as kuhn3_play, and an 11th item: each seat's notices still held (bytes).
 * params: (seats, hands, stack, small_blind, big_blind, ante) of the cash
 * match. `hand`: (the HoldemHand the dealer holds, worked on in place, the dealer).
 */
static PyObject *holdem_play(PyObject *self, PyObject *args) {
    PyObject *state, *params, *hand, *unused /* held */, *wfds, *rfds, *tu, *sl, *trace, *codecs = NULL;
    double timeout, budget, spin;
    long max_line, budget_messages;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOdddlOl|O", &state, &params, &hand, &unused, &wfds, &rfds, &tu, &sl,
                          &timeout, &budget, &spin, &max_line, &trace, &budget_messages, &codecs))
        return NULL;
    static HL x; /* one call at a time (the driver holds the GIL) */
    Io *io = &shared_io;
    double entry = now_s();
    memset(&x, 0, sizeof x);
    long long p[6];
    if (read_ints(state, (long long *)&x.st, NSTATE, "state") < 0 || read_ints(params, p, 6, "params") < 0)
        return NULL;
    x.n = (int)p[0];
    x.hands = p[1];
    x.stack = p[2];
    x.small_blind = p[3];
    x.big_blind = p[4];
    x.ante = p[5];
    PyObject *dealer;
    if (!PyArg_ParseTuple(hand, "OO", &hand, &dealer))
        return NULL;
    x.h = (Hand *)hand; /* a HoldemHand: the engine's struct (one source, _engine.c) */
    if (x.n < 2 || x.n > MAXSEATS || x.h->n != x.n) {
        PyErr_SetString(PyExc_ValueError, "holdem_play: the hand and the seats do not match");
        return NULL;
    }
    if (io_open(io, x.n, wfds, rfds, tu, sl, timeout, budget, spin, max_line, trace) < 0 ||
        (codecs != NULL && codecs != Py_None && io_codecs(io, x.n, codecs) < 0))
        return NULL;
    for (int s = 0; s < x.n; s++) { /* what each seat holds already (said, and traced, by Python) */
        PyObject *b = PyTuple_Check(unused) && PyTuple_GET_SIZE(unused) == x.n ? PyTuple_GET_ITEM(unused, s) : NULL;
        if (b == NULL || !PyBytes_Check(b) || PyBytes_GET_SIZE(b) > HOLD_CAP) {
            PyErr_SetString(PyExc_ValueError, "holdem_play: each seat's held notices, bytes up to HOLD_CAP");
            return NULL;
        }
        memcpy(x.held[s], PyBytes_AS_STRING(b), (size_t)PyBytes_GET_SIZE(b));
        x.held_len[s] = (int)PyBytes_GET_SIZE(b);
    }
    PyObject *tracer = trace == Py_None ? NULL : trace;
    x.st.acted = -1;

    long messages = 0;
    int mid = 0;
    PyObject *result = NULL;
    while (messages < budget_messages && x.st.step == S_ASK) {
        int seat = (int)x.st.asked;
        int held = x.held_len[seat];
        memcpy(x.msg, x.held[seat], (size_t)held);
        int n = render_act(&x, seat, x.msg + held, MSG_MAX - held);
        if (n < 0)
            break; /* too long for one write: Python's */
        Ex *ex = &x.ex;
        ex->n = 1;
        ex->seat[0] = seat;
        ex->msg[0] = x.msg;
        ex->len[0] = held + n;
        ex->limit[0] = limit_for(io, seat);
        io->trace = NULL; /* traced here: the held part was traced when it was said */
        int r = run_exchange(io, ex, hl_accept, &x);
        io->trace = tracer;
        if (ex->written) {
            x.held_len[seat] = 0;
            if (trace_text(io, seat, "->", x.msg + held, n) < 0)
                goto done;
        }
        if (r == IO_ERROR)
            goto done;
        if (r == IO_STOPPED) {
            mid = 1;
            break;
        }
        if (trace_text(io, seat, "<-", x.line, x.line_len) < 0)
            goto done;
        messages += 1;
        PyObject *to_obj = x.action == A_RAISE ? PyLong_FromLongLong(x.to) : Py_NewRef(Py_None);
        if (to_obj == NULL)
            goto done;
        int err;
        act(x.h, x.action, to_obj, &err);
        Py_DECREF(to_obj);
        if (err < 0)
            goto done;
        int told = hold_notice(&x, io);
        if (told == -2)
            goto done;
        if (told < 0) {
            x.st.acted = seat; /* Python tells it (HoldemDealer._acted) */
            break;
        }
        messages += told;
        if (x.h->street == OVER) {
            x.st.step = S_HAND_END;
            int b = native_between(&x, io, dealer);
            if (b < 0)
                goto done;
            messages += b;
            if (x.st.step != S_ASK) { /* the rest by the dealer's own steps */
                if (sync_dealer(&x, dealer) < 0 || (b = between_hands(&x, io, dealer)) < 0)
                    goto done;
                messages += b;
            }
            if (x.st.step != S_ASK)
                break;
            continue;
        }
        x.st.asked = x.h->actors[0];
    }
    if (sync_dealer(&x, dealer) < 0)
        goto done;
    {
        double lead = mid && x.ex.written ? x.ex.sent_at[0] - entry : 0.0;
        PyObject *st = PyTuple_New(NSTATE), *accepted = mid ? Py_BuildValue("(O)", Py_None) : PyTuple_New(0);
        PyObject *extra = PyTuple_New(x.n), *eof = PyTuple_New(x.n), *heldt = PyTuple_New(x.n);
        PyObject *tup = doubles(io->time_used, x.n), *slp = doubles(io->slowest, x.n);
        int ok = st && accepted && extra && eof && heldt && tup && slp;
        for (int i = 0; ok && i < NSTATE; i++) {
            PyObject *v = PyLong_FromLongLong(((long long *)&x.st)[i]);
            ok = v != NULL;
            if (ok)
                PyTuple_SET_ITEM(st, i, v);
        }
        for (int s = 0; ok && s < x.n; s++) {
            PyTuple_SET_ITEM(extra, s, io->extra[s] != NULL ? io->extra[s] : Py_NewRef(Py_None));
            io->extra[s] = NULL;
            PyObject *e = PyBool_FromLong(io->eof[s]);
            PyObject *b = PyBytes_FromStringAndSize(x.held[s], x.held_len[s]);
            ok = b != NULL;
            PyTuple_SET_ITEM(eof, s, e);
            if (ok)
                PyTuple_SET_ITEM(heldt, s, b);
        }
        if (ok)
            result = Py_BuildValue("(iOiOdOOOOlO)", mid, st, x.ex.written * mid, accepted, lead, tup, slp, extra, eof,
                                   messages, heldt);
        Py_XDECREF(st);
        Py_XDECREF(accepted);
        Py_XDECREF(extra);
        Py_XDECREF(eof);
        Py_XDECREF(heldt);
        Py_XDECREF(tup);
        Py_XDECREF(slp);
    }
done:
    Py_CLEAR(x.decks);
    for (int s = 0; s < x.n; s++)
        Py_CLEAR(io->extra[s]);
    return result;
}

/* ---- the renderings, for the tests that hold them to the Python dialogue's ---- */

static int is_hand(PyObject *o) {
    PyObject *m = PyImport_ImportModule("games.holdem");
    PyObject *t = m != NULL ? PyObject_GetAttrString(m, "HoldemHand") : NULL;
    int r = t != NULL ? PyObject_IsInstance(o, t) : -1;
    Py_XDECREF(m);
    Py_XDECREF(t);
    if (r == 0)
        PyErr_SetString(PyExc_TypeError, "render: a HoldemHand");
    return r;
}

/* render(kind, hand, number, seat, shown) -> bytes, or None where the C
 * declines (Python's to say): kind "act" (to `seat`), "notice" (the last
 * action and the streets since `shown` board cards), "hand_start" (to `seat`),
 * "hand_end". */
static PyObject *render(PyObject *self, PyObject *args) {
    const char *kind;
    PyObject *hand;
    long long number;
    int seat, shown;
    (void)self;
    if (!PyArg_ParseTuple(args, "sOLii", &kind, &hand, &number, &seat, &shown))
        return NULL;
    if (is_hand(hand) <= 0)
        return NULL;
    static HL x;
    x.h = (Hand *)hand;
    x.n = x.h->n;
    x.st.hand = number;
    x.st.shown = shown;
    if (seat < 0 || seat >= x.n) {
        PyErr_Format(PyExc_IndexError, "render: no seat %d", seat);
        return NULL;
    }
    char out[MSG_MAX];
    int n;
    if (strcmp(kind, "act") == 0) {
        n = render_act(&x, seat, out, MSG_MAX);
    } else if (strcmp(kind, "notice") == 0) {
        n = render_notice(&x, out, MSG_MAX);
    } else if (strcmp(kind, "hand_start") == 0) {
        n = render_hand_start(&x, seat, out, MSG_MAX);
    } else if (strcmp(kind, "hand_end") == 0) {
        n = render_hand_end(&x, out, MSG_MAX);
    } else {
        PyErr_Format(PyExc_ValueError, "render: no message %s", kind);
        return NULL;
    }
    if (n < 0)
        Py_RETURN_NONE;
    return PyBytes_FromStringAndSize(out, n);
}

/* describe(value) -> str, or None for a value the C does not know (games.holdem._cards.describe's twin). */
static PyObject *describe(PyObject *self, PyObject *arg) {
    (void)self;
    long long v = PyLong_AsLongLong(arg);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    char out[128];
    Out b = {out, 0, sizeof out};
    if (!put_describe(&b, v) || b.n >= (int)sizeof out)
        Py_RETURN_NONE;
    return PyUnicode_FromStringAndSize(out, b.n);
}

static PyMethodDef methods[] = {
    {"holdem_play", holdem_play, METH_VARARGS, "Play hold'em cash hands over the bots' pipes until something needs Python."},
    {"render", render, METH_VARARGS, "One message as the compiled dialogue renders it (for the tests)."},
    {"describe", describe, METH_O, "A showdown value in words, as the compiled dialogue writes it (for the tests)."},
    {NULL, NULL, 0, NULL},
};

ARENA_MODULE_INIT(methods)
