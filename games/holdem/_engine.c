/* One hand of Texas Hold'em in C, no-limit or limit: the engine of
 * games.holdem (blinds, betting, side pots, showdown), exposed to Python as
 * the type ``Hand`` that games/holdem/_rules.py's ``HoldemHand`` is. The
 * rules are those of games/holdem/__init__.py's rules page, checked against
 * PokerKit by tests/games/test_holdem_oracle.py (and limit hands by
 * tests/protocols/test_holdem_limit.py, through PHH).
 *
 * Limit (a hand made with ``limit``: per street a raise size and a cap on
 * bets and raises) is the same betting with two rules more: a raise is to
 * the bet plus the street's size, exactly (all-in for less when the stack
 * does not cover it), and once the street's cap of bets and raises is made
 * nobody may raise. Which raises reopen the betting is as in no-limit.
 *
 * Seats are indexes (at most MAXSEATS), cards ints; the showdown's values
 * come from eval7 through games.holdem._cards.evaluate_holes (Python, C
 * underneath). Refusals raise games.IllegalAction with the reason in words.
 *
 * protocols/holdem_compiled.c includes this file (HOLDEM_ENGINE_EMBEDDED:
 * without the module) and works on the very Hand objects this module makes:
 * one source, so one struct and one copy of the rules.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>

#define MAXSEATS 10
#ifdef HOLDEM_ENGINE_EMBEDDED /* the type's tables are the module's: a dialogue that includes the rules has none */
#define MODULE_ONLY __attribute__((unused))
#else
#define MODULE_ONLY
#endif
enum { PREFLOP, FLOP, TURN, RIVER, OVER };
enum { A_FOLD, A_CALL, A_RAISE, A_ALLIN, A_BIG_BLIND };
static const char *ACTION[] = {"fold", "call", "raise", "allin", "big_blind"};
/* the streets' names (a compiled dialogue's messages) and, in refusals, when they are */
__attribute__((unused)) static const char *STREET_NAME[] = {"preflop", "flop", "turn", "river"};
static const char *STREET_WHEN[] = {"before the flop", "on the flop", "on the turn", "on the river"};

typedef struct {
    long long amount;
    int nseats, seats[MAXSEATS];
    int nwinners, winners[MAXSEATS];
    int has_value;
    long long value;
} CPot;

typedef struct {
    PyObject_HEAD
    int n, k;
    int order[MAXSEATS];
    long long start[MAXSEATS], stack[MAXSEATS], bet[MAXSEATS], committed[MAXSEATS];
    int folded[MAXSEATS];
    int hole[MAXSEATS][2];
    int board[5], nboard, deck_board[5], ndeck_board;
    int button, sb_seat, bb_seat;
    long long small_blind, big_blind, ante;
    int street;
    long long max_bet, raise_size;
    int actors[MAXSEATS], nactors;
    int acted[MAXSEATS];
    long long short_allins[MAXSEATS * 4];
    int nshort;
    int live;
    long long pot;
    int last_seat, last_action;
    long long last_put;
    long long after_bet, after_stack;
    CPot pots[MAXSEATS];
    int npots;
    int has_value[MAXSEATS];
    long long value[MAXSEATS];
    long long posted_stack[MAXSEATS], posted_bet[MAXSEATS];
    /* limit betting (0: no-limit): per street the raise size and the most bets and raises; kept
     * from hand to hand (hand_setup deals the next hand into the same object) */
    int limit;
    long long limit_size[4];
    int max_raises[4];
    int raises; /* bets and raises made on this street */
} Hand;

static PyObject *IllegalAction, *LegalType, *PotType, *Evaluate;

static int illegal(const char *fmt, ...) {
    va_list va;
    va_start(va, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, va);
    va_end(va);
    if (msg != NULL) {
        PyErr_SetObject(IllegalAction != NULL ? IllegalAction : PyExc_ValueError, msg);
        Py_DECREF(msg);
    }
    return -1;
}

static int pay(Hand *h);
static int begin_betting(Hand *h);

static int index_in_order(Hand *h, int s) {
    for (int i = 0; i < h->k; i++)
        if (h->order[i] == s)
            return i;
    return -1;
}

/* What a raise adds to the bet at least (no-limit), or exactly (limit: all-in for less when the
 * stack does not cover it). */
static long long raise_unit(Hand *h) {
    if (h->limit)
        return h->limit_size[h->street];
    return h->raise_size > h->big_blind ? h->raise_size : h->big_blind;
}

/* Why s (who must put in to_call to call) may not raise now, or NULL. */
static const char *raise_refusal(Hand *h, int s, long long to_call) {
    if (h->limit && h->raises >= h->max_raises[h->street]) {
        static char capped[160];
        int cap = h->max_raises[h->street];
        snprintf(capped, sizeof capped, "the betting %s has reached its cap, %d %s: call or fold",
                 STREET_WHEN[h->street], cap,
                 h->street == PREFLOP ? (cap == 1 ? "raise" : "raises") : (cap == 1 ? "bet" : "bets and raises"));
        return capped;
    }
    long long short_sum = 0;
    for (int i = 0; i < h->nshort; i++)
        short_sum += h->short_allins[i];
    if (to_call < h->raise_size || (h->nshort && h->acted[s] && short_sum < h->raise_size))
        return "you have acted since the last full raise, and what was added after it "
               "is short of a full raise, so the betting is not reopened: call or fold";
    if (h->stack[s] <= to_call)
        return "your stack does not cover more than a call";
    for (int j = 0; j < h->k; j++) {
        int i = h->order[j];
        if (i != s && !h->folded[i] && h->stack[i] + h->bet[i] > h->max_bet)
            return NULL;
    }
    return "every other player still in is all-in or covered: there is nobody to raise";
}

/* The chips `action` puts in for s, the seat to act (a raise: its bet after
 * it), in *put; -1 with IllegalAction set if it may not. `to_obj` is the
 * reply's `to` (None or an int, kept for the words). */
static int check(Hand *h, int s, int action, PyObject *to_obj, long long *put) {
    long long stack = h->stack[s], bet_s = h->bet[s];
    long long to_call = h->max_bet - bet_s;
    if (action == A_CALL) {
        *put = to_call < stack ? to_call : stack;
        return 0;
    }
    if (action == A_FOLD) {
        if (to_call <= 0)
            return illegal("fold with nothing to call is not allowed: check (call 0) instead");
        *put = 0;
        return 0;
    }
    if (action == A_ALLIN) {
        if (stack > to_call) {
            const char *refusal = raise_refusal(h, s, to_call);
            if (refusal != NULL)
                return illegal("all-in would be a raise, and %s", refusal);
            long long target = raise_unit(h) + h->max_bet;
            if (h->limit && stack + bet_s > target)
                return illegal("all-in would be a raise to %lld, and in this limit game a raise %s is to %lld: "
                               "raise to %lld, or call",
                               stack + bet_s, STREET_WHEN[h->street], target, target);
        }
        *put = stack;
        return 0;
    }
    /* a raise */
    const char *refusal = raise_refusal(h, s, to_call);
    if (refusal != NULL)
        return illegal("you may not raise: %s", refusal);
    if (to_obj == NULL || to_obj == Py_None)
        return illegal("a raise needs the amount to raise to");
    long long top = stack + bet_s;
    long long size = raise_unit(h);
    long long low = size + h->max_bet < top ? size + h->max_bet : top;
    int overflow = 0;
    long long to = PyLong_AsLongLongAndOverflow(to_obj, &overflow);
    if (to == -1 && PyErr_Occurred())
        return -1;
    if (h->limit && (overflow || to != low)) {
        if (low < size + h->max_bet)
            return illegal("raise to %S is not this limit game's raise: your stack does not cover a full raise %s "
                           "(to %lld), so a raise is all-in, to %lld",
                           to_obj, STREET_WHEN[h->street], size + h->max_bet, low);
        return illegal("raise to %S is not this limit game's raise: %s a raise is to %lld, the bet (%lld) and one "
                       "raise of %lld",
                       to_obj, STREET_WHEN[h->street], low, h->max_bet, size);
    }
    if (overflow < 0 || (!overflow && to < low))
        return illegal("raise to %S is below the minimum raise to %lld", to_obj, low);
    if (overflow > 0 || to > top)
        return illegal("raise to %S is more than you have: all-in is a raise to %lld", to_obj, top);
    *put = to - bet_s;
    return 0;
}

/* What the seat to act, s, may do now: Hand_legal's answer, which a compiled dialogue renders too. */
typedef struct {
    int fold, raise, allin; /* call is always legal (a check when nothing is owed) */
    long long call;         /* what a call puts in */
    long long low, high;    /* the bounds of a raise's `to`, when it may raise */
} Options;

static void options(Hand *h, int s, Options *o) {
    long long stack = h->stack[s], bet_s = h->bet[s], to_call = h->max_bet - bet_s;
    o->call = to_call < stack ? to_call : stack;
    o->fold = to_call > 0;
    o->low = o->high = 0;
    if (raise_refusal(h, s, to_call) == NULL) {
        long long top = stack + bet_s, target = raise_unit(h) + h->max_bet;
        o->raise = 1;
        o->low = target < top ? target : top;
        o->high = h->limit ? o->low : top;
        o->allin = !h->limit || top <= target; /* limit: only as the raise itself */
    } else {
        o->raise = 0;
        o->allin = stack <= to_call; /* all-in is a call */
    }
}

static int action_code(PyObject *action) {
    if (PyUnicode_Check(action))
        for (int a = 0; a < 4; a++)
            if (PyUnicode_CompareWithASCIIString(action, ACTION[a]) == 0)
                return a;
    illegal("%R is not an action: fold, call, raise or allin", action);
    return -1;
}

static void raise_to(Hand *h, int s, long long to) {
    long long increment = to - h->max_bet;
    long long put = to - h->bet[s];
    h->stack[s] -= put;
    h->bet[s] = to;
    h->committed[s] += put;
    h->pot += put;
    h->max_bet = to;
    h->raises++;
    int at = index_in_order(h, s);
    h->nactors = 0;
    for (int j = 1; j < h->k; j++) {
        int i = h->order[(at + j) % h->k];
        if (!h->folded[i] && h->stack[i])
            h->actors[h->nactors++] = i;
    }
    if (increment >= h->raise_size) { /* a full raise reopens the betting */
        memset(h->acted, 0, sizeof h->acted);
        h->acted[s] = 1;
    }
    if (increment > h->raise_size)
        h->raise_size = increment;
    if (h->stack[s])
        h->nshort = 0;
    else if (h->nshort < (int)(sizeof h->short_allins / sizeof h->short_allins[0]))
        h->short_allins[h->nshort++] = increment;
    long long sum = 0;
    for (int i = 0; i < h->nshort; i++)
        sum += h->short_allins[i];
    if (sum >= h->raise_size) /* short all-ins adding up to a full raise */
        h->nshort = 0;
}

static int end_betting(Hand *h) {
    for (int s = 0; s < h->n; s++)
        h->bet[s] = 0;
    h->max_bet = 0;
    h->nactors = 0;
    if (h->live <= 1)
        return pay(h);
    int with_chips = 0;
    for (int j = 0; j < h->k; j++) {
        int s = h->order[j];
        if (!h->folded[s] && h->stack[s])
            with_chips++;
    }
    if (h->street == RIVER || with_chips <= 1) { /* showdown, dealing what is left */
        h->nboard = h->ndeck_board;
        memcpy(h->board, h->deck_board, sizeof h->board);
        return pay(h);
    }
    h->street++;
    h->nboard = h->street + 2 < h->ndeck_board ? h->street + 2 : h->ndeck_board;
    memcpy(h->board, h->deck_board, sizeof h->board);
    return begin_betting(h);
}

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static int begin_betting(Hand *h) {
    int k = h->k, opener;
    if (h->street == PREFLOP) {
        /* the first to act sits after the largest blind posted (ties: the
         * later position), so after a big blind that is short, the small blind's */
        long long blind0 = k == 2 ? h->big_blind : h->small_blind;
        long long blind1 = k == 2 ? h->small_blind : h->big_blind;
        long long posted0 = blind0 ? h->bet[h->order[0]] : 0;
        long long posted1 = blind1 ? h->bet[h->order[1]] : 0;
        int top;
        if (posted1 >= posted0)
            top = (k > 2 && !posted1) ? k - 1 : 1;
        else
            top = 0;
        opener = (top + 1) % k;
    } else {
        opener = 0;
    }
    long long contenders[MAXSEATS];
    int nc = 0;
    for (int j = 0; j < k; j++) {
        int i = h->order[j];
        if (!h->folded[i])
            contenders[nc++] = h->stack[i] + h->bet[i];
    }
    qsort(contenders, (size_t)nc, sizeof contenders[0], cmp_ll);
    long long second = contenders[nc - 2];
    /* a seat acts if it has chips and someone still in could match more of them */
    h->nactors = 0;
    for (int j = 0; j < k; j++) {
        int s = h->order[(opener + j) % k];
        if (!h->folded[s] && h->stack[s] && second > h->bet[s])
            h->actors[h->nactors++] = s;
    }
    h->raise_size = 0;
    h->raises = 0;
    memset(h->acted, 0, sizeof h->acted);
    h->nshort = 0;
    if (!h->nactors || (h->nactors == 1 && h->bet[h->actors[0]] >= h->max_bet))
        return end_betting(h);
    return 0;
}

static PyObject *ints_list(const int *v, int n);

/* eval7's values for the seats still in (games.holdem._cards.evaluate_holes). */
static int evaluate(Hand *h, const int *seats, int n) {
    if (Evaluate == NULL) {
        PyObject *m = PyImport_ImportModule("games.holdem._cards");
        if (m == NULL)
            return -1;
        Evaluate = PyObject_GetAttrString(m, "evaluate_holes");
        Py_DECREF(m);
        if (Evaluate == NULL)
            return -1;
    }
    PyObject *holes = PyList_New(n);
    if (holes == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        PyObject *t = Py_BuildValue("(ii)", h->hole[seats[i]][0], h->hole[seats[i]][1]);
        if (t == NULL) {
            Py_DECREF(holes);
            return -1;
        }
        PyList_SET_ITEM(holes, i, t);
    }
    PyObject *board = ints_list(h->board, h->nboard);
    PyObject *values = board != NULL ? PyObject_CallFunctionObjArgs(Evaluate, holes, board, NULL) : NULL;
    Py_DECREF(holes);
    Py_XDECREF(board);
    if (values == NULL)
        return -1;
    PyObject *seq = PySequence_Fast(values, "evaluate_holes returns a sequence");
    Py_DECREF(values);
    if (seq == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "evaluate_holes returned a value per seat");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        h->has_value[seats[i]] = 1;
        h->value[seats[i]] = v;
    }
    Py_DECREF(seq);
    return 0;
}

static void award(Hand *h, CPot *p) {
    long long share = p->amount / p->nwinners, odd = p->amount % p->nwinners;
    for (int i = 0; i < p->nwinners; i++)
        h->stack[p->winners[i]] += share;
    h->stack[p->winners[0]] += odd; /* odd chips: the first winner left of the button */
}

static void best_of(Hand *h, CPot *p) {
    long long best = LLONG_MIN;
    for (int i = 0; i < p->nseats; i++)
        if (h->value[p->seats[i]] > best)
            best = h->value[p->seats[i]];
    p->nwinners = 0;
    for (int i = 0; i < p->nseats; i++)
        if (h->value[p->seats[i]] == best)
            p->winners[p->nwinners++] = p->seats[i];
    p->has_value = 1;
    p->value = best;
}

static int pay(Hand *h) {
    int contenders[MAXSEATS], nc = 0;
    for (int j = 0; j < h->k; j++)
        if (!h->folded[h->order[j]])
            contenders[nc++] = h->order[j];
    if (nc > 1 && evaluate(h, contenders, nc) < 0)
        return -1;
    if (nc == 1) { /* everyone else folded: no showdown, nothing to split */
        int s = contenders[0];
        h->stack[s] += h->pot;
        CPot *p = &h->pots[0];
        p->amount = h->pot;
        p->nseats = p->nwinners = 1;
        p->seats[0] = p->winners[0] = s;
        p->has_value = 0;
        h->npots = 1;
        h->street = OVER;
        return 0;
    }
    long long levels[MAXSEATS];
    int nl = 0;
    for (int i = 0; i < nc; i++) {
        long long c = h->committed[contenders[i]];
        int seen = 0;
        for (int j = 0; j < nl; j++)
            seen |= levels[j] == c;
        if (!seen)
            levels[nl++] = c;
    }
    qsort(levels, (size_t)nl, sizeof levels[0], cmp_ll);
    h->npots = 0;
    if (nl == 1) { /* one pot: nobody still in is all-in for less */
        CPot *p = &h->pots[h->npots++];
        p->amount = h->pot;
        p->nseats = nc;
        memcpy(p->seats, contenders, sizeof contenders);
        best_of(h, p);
        award(h, p);
        h->street = OVER;
        return 0;
    }
    long long below = 0, total = 0;
    for (int l = 0; l < nl; l++) {
        long long level = levels[l], amount = 0;
        for (int s = 0; s < h->n; s++) {
            long long c = h->committed[s];
            amount += (c < level ? c : level) - (c < below ? c : below);
        }
        int seats[MAXSEATS], ns = 0;
        for (int i = 0; i < nc; i++)
            if (h->committed[contenders[i]] >= level)
                seats[ns++] = contenders[i];
        below = level;
        CPot *last = h->npots ? &h->pots[h->npots - 1] : NULL;
        if (last != NULL && last->nseats == ns && memcmp(last->seats, seats, sizeof(int) * (size_t)ns) == 0) {
            last->amount += amount;
        } else if (amount) {
            CPot *p = &h->pots[h->npots++];
            p->amount = amount;
            p->nseats = ns;
            memcpy(p->seats, seats, sizeof seats);
        }
        total += amount;
    }
    if (total != h->pot) {
        PyErr_SetString(PyExc_AssertionError, "chips lost between the bets and the pots");
        return -1;
    }
    for (int i = 0; i < h->npots; i++) {
        CPot *p = &h->pots[i];
        if (p->nseats == 1) {
            p->nwinners = 1;
            p->winners[0] = p->seats[0];
            p->has_value = 0;
        } else {
            best_of(h, p);
        }
        award(h, p);
    }
    h->street = OVER;
    return 0;
}

/* ---- the Python type ---------------------------------------------------------- */

static int read_ll(PyObject *seq, long long *out, int max, const char *what) {
    PyObject *f = PySequence_Fast(seq, what);
    if (f == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(f);
    if (n > max) {
        Py_DECREF(f);
        PyErr_Format(PyExc_ValueError, "%s: at most %d", what, max);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(f, i));
        if (out[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(f);
            return -1;
        }
    }
    Py_DECREF(f);
    return (int)n;
}

/* A hand dealt: the seats' stacks, the button, the blinds and the deck (two
 * cards per seat in order, then the board). Hand_init and a compiled
 * dialogue dealing the next hand in place both come here. */
static int hand_setup(Hand *h, const long long *stacks, int n, int button, long long sb, long long bb,
                      long long ante, const long long *deck, int nd) {
    if (!(0 <= button && button < n) || stacks[button] <= 0) {
        PyErr_Format(PyExc_ValueError, "the button must be a seat with chips, not seat %d", button);
        return -1;
    }
    int k = 0;
    for (int s = button + 1; s < n; s++)
        if (stacks[s] > 0)
            h->order[k++] = s;
    for (int s = 0; s <= button; s++)
        if (stacks[s] > 0)
            h->order[k++] = s;
    if (k < 2) {
        PyErr_SetString(PyExc_ValueError, "a hand needs at least two seats with chips");
        return -1;
    }
    if (nd < 2 * k) {
        PyErr_SetString(PyExc_ValueError, "the deck has fewer than two cards per seat dealt in");
        return -1;
    }
    h->n = n;
    h->k = k;
    for (int s = 0; s < n; s++) {
        h->start[s] = h->stack[s] = stacks[s];
        h->bet[s] = h->committed[s] = 0;
        h->folded[s] = 1;
        h->hole[s][0] = h->hole[s][1] = -1;
        h->has_value[s] = 0;
    }
    for (int i = 0; i < k; i++) {
        int s = h->order[i];
        h->folded[s] = 0;
        h->hole[s][0] = (int)deck[2 * i];
        h->hole[s][1] = (int)deck[2 * i + 1];
    }
    h->ndeck_board = nd - 2 * k < 5 ? nd - 2 * k : 5;
    for (int i = 0; i < h->ndeck_board; i++)
        h->deck_board[i] = (int)deck[2 * k + i];
    h->nboard = 0;
    h->button = button;
    h->small_blind = sb;
    h->big_blind = bb;
    h->ante = ante;
    int sbs = k == 2 ? h->order[1] : h->order[0], bbs = k == 2 ? h->order[0] : h->order[1];
    h->sb_seat = sbs;
    h->bb_seat = bbs;
    long long pot = 0;
    if (ante)
        for (int i = 0; i < k; i++) { /* antes are dead money: straight to the pot, not a bet */
            int s = h->order[i];
            long long paid = ante < h->stack[s] ? ante : h->stack[s];
            h->stack[s] -= paid;
            h->committed[s] = paid;
            pot += paid;
        }
    h->after_bet = h->after_stack = 0;
    long long paid = sb < h->stack[sbs] ? sb : h->stack[sbs];
    h->stack[sbs] -= paid;
    h->bet[sbs] = paid;
    h->committed[sbs] += paid;
    long long paid_big = bb < h->stack[bbs] ? bb : h->stack[bbs];
    h->stack[bbs] -= paid_big;
    h->bet[bbs] = paid_big;
    h->committed[bbs] += paid_big;
    h->last_seat = bbs;
    h->last_action = A_BIG_BLIND;
    h->last_put = paid_big;
    h->pot = pot + paid + paid_big;
    h->max_bet = paid > paid_big ? paid : paid_big;
    h->live = k;
    h->street = PREFLOP;
    h->npots = 0;
    for (int s = 0; s < n; s++) {
        h->posted_stack[s] = h->stack[s];
        h->posted_bet[s] = h->bet[s];
    }
    h->nshort = 0;
    return begin_betting(h);
}

/* `limit`: None (no-limit), or (raise sizes, caps on bets and raises), 4 of each, one per street. */
static int read_limit(Hand *h, PyObject *limit) {
    h->limit = 0;
    if (limit == NULL || limit == Py_None)
        return 0;
    PyObject *sizes, *caps;
    long long v[2][4];
    if (!PyArg_ParseTuple(limit, "OO;limit is (raise sizes, caps on raises), one of each per street", &sizes,
                          &caps))
        return -1;
    PyObject *given[2] = {sizes, caps};
    for (int i = 0; i < 2; i++) {
        int n = read_ll(given[i], v[i], 4, i ? "limit's caps on raises" : "limit's raise sizes");
        if (n < 0)
            return -1;
        if (n != 4) {
            PyErr_SetString(PyExc_ValueError, "limit: one raise size and one cap on raises per street, 4 of each");
            return -1;
        }
    }
    for (int r = 0; r < 4; r++) {
        if (v[0][r] < 1 || v[1][r] < 0 || v[1][r] > INT_MAX) {
            PyErr_SetString(PyExc_ValueError, "limit: a raise size is 1 chip or more, a cap 0 or more");
            return -1;
        }
        h->limit_size[r] = v[0][r];
        h->max_raises[r] = (int)v[1][r];
    }
    h->limit = 1;
    return 0;
}

MODULE_ONLY static int Hand_init(Hand *h, PyObject *args, PyObject *kwds) {
    static char *kw[] = {"stacks", "button", "small_blind", "big_blind", "ante", "deck", "limit", NULL};
    PyObject *stacks_obj, *deck_obj, *limit = NULL;
    int button;
    long long sb, bb, ante;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OiLLLO|$O", kw, &stacks_obj, &button, &sb, &bb, &ante, &deck_obj,
                                     &limit))
        return -1;
    if (read_limit(h, limit) < 0)
        return -1;
    long long stacks[MAXSEATS], deck[52];
    int n = read_ll(stacks_obj, stacks, MAXSEATS, "stacks");
    if (n < 0)
        return -1;
    int nd = read_ll(deck_obj, deck, 52, "deck");
    if (nd < 0)
        return -1;
    return hand_setup(h, stacks, n, button, sb, bb, ante, deck, nd);
}

static PyObject *Hand_legal(Hand *h, PyObject *unused) {
    (void)unused;
    if (h->street == OVER || !h->nactors) {
        PyErr_SetString(PyExc_IndexError, "nobody is to act: the hand is over");
        return NULL;
    }
    static PyObject *word[4]; /* the actions' names, made once */
    for (int a = 0; a < 4; a++)
        if (word[a] == NULL && (word[a] = PyUnicode_InternFromString(ACTION[a])) == NULL)
            return NULL;
    Options o;
    options(h, h->actors[0], &o);
    PyObject *names[4];
    int k = 0;
    if (o.fold)
        names[k++] = word[A_FOLD];
    names[k++] = word[A_CALL];
    if (o.raise)
        names[k++] = word[A_RAISE];
    if (o.allin)
        names[k++] = word[A_ALLIN];
    PyObject *actions = PyTuple_New(k);
    for (int i = 0; actions != NULL && i < k; i++)
        PyTuple_SET_ITEM(actions, i, Py_NewRef(names[i]));
    PyObject *lo = o.raise ? PyLong_FromLongLong(o.low) : Py_NewRef(Py_None);
    PyObject *hi = o.raise ? PyLong_FromLongLong(o.high) : Py_NewRef(Py_None);
    PyObject *r = NULL;
    if (actions != NULL && lo != NULL && hi != NULL)
        r = PyObject_CallFunction(LegalType, "OLOO", actions, o.call, lo, hi);
    Py_XDECREF(actions);
    Py_XDECREF(lo);
    Py_XDECREF(hi);
    return r;
}

static PyObject *Hand_verify(Hand *h, PyObject *args) {
    PyObject *action, *to = Py_None;
    if (!PyArg_ParseTuple(args, "O|O", &action, &to))
        return NULL;
    if (h->street == OVER) {
        illegal("the hand is over");
        return NULL;
    }
    int a = action_code(action);
    long long put;
    if (a < 0 || check(h, h->actors[0], a, to, &put) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* The seat to act takes `action`; the chips it put in. */
static long long act(Hand *h, int a, PyObject *to, int *err) {
    *err = 0;
    if (h->street == OVER) {
        *err = illegal("the hand is over");
        return 0;
    }
    int s = h->actors[0];
    long long put;
    if (check(h, s, a, to, &put) < 0) {
        *err = -1;
        return 0;
    }
    memmove(h->actors, h->actors + 1, sizeof(int) * (size_t)(h->nactors - 1));
    h->nactors--;
    h->acted[s] = 1;
    if (a == A_FOLD) {
        h->folded[s] = 1;
        h->live--;
    } else if (put && h->bet[s] + put > h->max_bet) { /* a raise (an all-in may be one) */
        raise_to(h, s, h->bet[s] + put);
    } else if (put) { /* a call */
        h->stack[s] -= put;
        h->bet[s] += put;
        h->committed[s] += put;
        h->pot += put;
    }
    h->last_seat = s;
    h->last_action = a;
    h->last_put = put;
    h->after_bet = h->bet[s]; /* before the street ends */
    h->after_stack = h->stack[s];
    if (!h->nactors || h->live <= 1)
        *err = end_betting(h);
    return put;
}

static PyObject *Hand_act(Hand *h, PyObject *args) {
    PyObject *action, *to = Py_None;
    if (!PyArg_ParseTuple(args, "O|O", &action, &to))
        return NULL;
    int a = h->street == OVER ? A_CALL : action_code(action);
    if (a < 0)
        return NULL;
    int err;
    long long put = act(h, a, to, &err);
    if (err < 0)
        return NULL;
    return PyLong_FromLongLong(put);
}

static PyObject *Hand_fold_out(Hand *h, PyObject *arg) {
    long s = PyLong_AsLong(arg);
    if (s == -1 && PyErr_Occurred())
        return NULL;
    if (s < 0 || s >= h->n) {
        PyErr_Format(PyExc_IndexError, "no seat %ld", s);
        return NULL;
    }
    if (h->street == OVER || h->folded[s])
        Py_RETURN_NONE;
    h->folded[s] = 1;
    h->live--;
    for (int i = 0; i < h->nactors; i++)
        if (h->actors[i] == s) {
            memmove(h->actors + i, h->actors + i + 1, sizeof(int) * (size_t)(h->nactors - i - 1));
            h->nactors--;
            break;
        }
    h->last_seat = (int)s;
    h->last_action = A_FOLD;
    h->last_put = 0;
    h->after_bet = h->bet[s];
    h->after_stack = h->stack[s];
    if ((!h->nactors || h->live <= 1) && end_betting(h) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* ---- views ------------------------------------------------------------------- */

static PyObject *ints_list(const int *v, int n) {
    PyObject *l = PyList_New(n);
    if (l == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (x == NULL) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, i, x);
    }
    return l;
}

static PyObject *lls_list(const long long *v, int n) {
    PyObject *l = PyList_New(n);
    if (l == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (x == NULL) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, i, x);
    }
    return l;
}

static PyObject *int_array_tuple(const int *v, int n) {
    PyObject *l = ints_list(v, n);
    if (l == NULL)
        return NULL;
    PyObject *t = PyList_AsTuple(l);
    Py_DECREF(l);
    return t;
}

#define GET_LIST(name, field, len) \
    static PyObject *get_##name(Hand *h, void *c) { (void)c; return lls_list(h->field, len); }
GET_LIST(start, start, h->n)
GET_LIST(stack, stack, h->n)
GET_LIST(bet, bet, h->n)
GET_LIST(committed, committed, h->n)
GET_LIST(short_allins, short_allins, h->nshort)

#define GET_LL(name, expr) \
    static PyObject *get_##name(Hand *h, void *c) { (void)c; return PyLong_FromLongLong(expr); }
GET_LL(button, h->button)
GET_LL(small_blind_seat, h->sb_seat)
GET_LL(big_blind_seat, h->bb_seat)
GET_LL(small_blind, h->small_blind)
GET_LL(big_blind, h->big_blind)
GET_LL(ante, h->ante)
GET_LL(street, h->street)
GET_LL(max_bet, h->max_bet)
GET_LL(raise_size, h->raise_size)
GET_LL(live, h->live)
GET_LL(pot, h->pot)

GET_LL(raises, h->raises)

static PyObject *get_order(Hand *h, void *c) { (void)c; return ints_list(h->order, h->k); }

static PyObject *get_limit(Hand *h, void *c) {
    (void)c;
    if (!h->limit)
        Py_RETURN_NONE;
    return Py_BuildValue("((LLLL)(iiii))", h->limit_size[0], h->limit_size[1], h->limit_size[2], h->limit_size[3],
                         h->max_raises[0], h->max_raises[1], h->max_raises[2], h->max_raises[3]);
}
static PyObject *get_actors(Hand *h, void *c) { (void)c; return ints_list(h->actors, h->nactors); }
static PyObject *get_board(Hand *h, void *c) { (void)c; return ints_list(h->board, h->nboard); }

static PyObject *get_folded(Hand *h, void *c) {
    (void)c;
    PyObject *l = PyList_New(h->n);
    if (l == NULL)
        return NULL;
    for (int s = 0; s < h->n; s++)
        PyList_SET_ITEM(l, s, PyBool_FromLong(h->folded[s]));
    return l;
}

static PyObject *get_hole(Hand *h, void *c) {
    (void)c;
    PyObject *l = PyList_New(h->n);
    if (l == NULL)
        return NULL;
    for (int s = 0; s < h->n; s++) {
        PyObject *x = h->hole[s][0] < 0 ? Py_NewRef(Py_None) : Py_BuildValue("(ii)", h->hole[s][0], h->hole[s][1]);
        if (x == NULL) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, s, x);
    }
    return l;
}

static PyObject *get_acted(Hand *h, void *c) {
    (void)c;
    PyObject *set = PySet_New(NULL);
    for (int s = 0; set != NULL && s < h->n; s++)
        if (h->acted[s]) {
            PyObject *x = PyLong_FromLong(s);
            if (x == NULL || PySet_Add(set, x) < 0) {
                Py_XDECREF(x);
                Py_CLEAR(set);
                break;
            }
            Py_DECREF(x);
        }
    return set;
}

static PyObject *get_to_act(Hand *h, void *c) {
    (void)c;
    if (h->street == OVER || !h->nactors)
        Py_RETURN_NONE;
    return PyLong_FromLong(h->actors[0]);
}

static PyObject *get_over(Hand *h, void *c) {
    (void)c;
    return PyBool_FromLong(h->street == OVER);
}

static PyObject *get_last_action(Hand *h, void *c) {
    (void)c;
    return Py_BuildValue("(isL)", h->last_seat, ACTION[h->last_action], h->last_put);
}

static PyObject *get_after_action(Hand *h, void *c) {
    (void)c;
    return Py_BuildValue("(LL)", h->after_bet, h->after_stack);
}

static PyObject *get_posted(Hand *h, void *c) {
    (void)c;
    PyObject *a = lls_list(h->posted_stack, h->n), *b = lls_list(h->posted_bet, h->n);
    PyObject *r = a != NULL && b != NULL ? PyTuple_Pack(2, a, b) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(b);
    return r;
}

static PyObject *get_values(Hand *h, void *c) {
    (void)c;
    PyObject *d = PyDict_New();
    /* in the order of the seats still in, from the button's left, as the engine filled it */
    for (int j = 0; d != NULL && j < h->k; j++) {
        int s = h->order[j];
        if (!h->has_value[s])
            continue;
        PyObject *key = PyLong_FromLong(s), *v = PyLong_FromLongLong(h->value[s]);
        if (key == NULL || v == NULL || PyDict_SetItem(d, key, v) < 0)
            Py_CLEAR(d);
        Py_XDECREF(key);
        Py_XDECREF(v);
    }
    return d;
}

static PyObject *get_pots(Hand *h, void *c) {
    (void)c;
    PyObject *l = PyList_New(h->npots);
    for (int i = 0; l != NULL && i < h->npots; i++) {
        CPot *p = &h->pots[i];
        PyObject *seats = int_array_tuple(p->seats, p->nseats), *winners = int_array_tuple(p->winners, p->nwinners);
        PyObject *value = p->has_value ? PyLong_FromLongLong(p->value) : Py_NewRef(Py_None);
        PyObject *pot = seats && winners && value
                            ? PyObject_CallFunction(PotType, "LOOO", p->amount, seats, winners, value)
                            : NULL;
        Py_XDECREF(seats);
        Py_XDECREF(winners);
        Py_XDECREF(value);
        if (pot == NULL) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, i, pot);
    }
    return l;
}

static PyObject *Hand_profits(Hand *h, PyObject *unused) {
    (void)unused;
    long long p[MAXSEATS];
    for (int s = 0; s < h->n; s++)
        p[s] = h->stack[s] - h->start[s];
    return lls_list(p, h->n);
}

static PyObject *Hand_in_hand(Hand *h, PyObject *unused) {
    (void)unused;
    int seats[MAXSEATS], n = 0;
    for (int s = 0; s < h->n; s++) /* seat order */
        if (!h->folded[s] && index_in_order(h, s) >= 0)
            seats[n++] = s;
    return ints_list(seats, n);
}

MODULE_ONLY static PyGetSetDef Hand_getset[] = {
    {"order", (getter)get_order, NULL, "the seats dealt in, clockwise from the seat after the button", NULL},
    {"start", (getter)get_start, NULL, NULL, NULL},
    {"stack", (getter)get_stack, NULL, NULL, NULL},
    {"bet", (getter)get_bet, NULL, "each seat's bet on this street", NULL},
    {"committed", (getter)get_committed, NULL, "each seat's chips put in this hand", NULL},
    {"folded", (getter)get_folded, NULL, NULL, NULL},
    {"hole", (getter)get_hole, NULL, NULL, NULL},
    {"board", (getter)get_board, NULL, NULL, NULL},
    {"button", (getter)get_button, NULL, NULL, NULL},
    {"small_blind_seat", (getter)get_small_blind_seat, NULL, NULL, NULL},
    {"big_blind_seat", (getter)get_big_blind_seat, NULL, NULL, NULL},
    {"small_blind", (getter)get_small_blind, NULL, NULL, NULL},
    {"big_blind", (getter)get_big_blind, NULL, NULL, NULL},
    {"ante", (getter)get_ante, NULL, NULL, NULL},
    {"street", (getter)get_street, NULL, NULL, NULL},
    {"max_bet", (getter)get_max_bet, NULL, NULL, NULL},
    {"raise_size", (getter)get_raise_size, NULL, NULL, NULL},
    {"actors", (getter)get_actors, NULL, NULL, NULL},
    {"acted", (getter)get_acted, NULL, NULL, NULL},
    {"short_allins", (getter)get_short_allins, NULL, NULL, NULL},
    {"live", (getter)get_live, NULL, NULL, NULL},
    {"pot", (getter)get_pot, NULL, NULL, NULL},
    {"last_action", (getter)get_last_action, NULL, "(seat, action, chips put in) of the last action", NULL},
    {"after_action", (getter)get_after_action, NULL, "(bet, stack) of the last seat to act, just after", NULL},
    {"pots", (getter)get_pots, NULL, NULL, NULL},
    {"values", (getter)get_values, NULL, NULL, NULL},
    {"posted", (getter)get_posted, NULL, "(stacks, bets) just after the antes and blinds", NULL},
    {"to_act", (getter)get_to_act, NULL, "the seat whose turn it is (None once the hand is over)", NULL},
    {"over", (getter)get_over, NULL, NULL, NULL},
    {"limit", (getter)get_limit, NULL, "None (no-limit), or per street (raise sizes, caps on bets and raises)", NULL},
    {"raises", (getter)get_raises, NULL, "the bets and raises made on this street", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

MODULE_ONLY static PyMethodDef Hand_methods[] = {
    {"legal", (PyCFunction)Hand_legal, METH_NOARGS, "What the seat to act may do now (a Legal)."},
    {"verify", (PyCFunction)Hand_verify, METH_VARARGS,
     "Raise IllegalAction, with the reason in words, unless the seat to act may take the action."},
    {"act", (PyCFunction)Hand_act, METH_VARARGS, "The seat to act takes the action; the chips it put in."},
    {"fold_out", (PyCFunction)Hand_fold_out, METH_O, "The seat leaves the hand now, whoever's turn it is."},
    {"profits", (PyCFunction)Hand_profits, METH_NOARGS, NULL},
    {"in_hand", (PyCFunction)Hand_in_hand, METH_NOARGS, "Seats that have not folded, in seat order."},
    {NULL, NULL, 0, NULL},
};

#ifndef HOLDEM_ENGINE_EMBEDDED /* a compiled dialogue includes this file for the rules alone */
static PyTypeObject HandType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "games.holdem.Hand",
    .tp_basicsize = sizeof(Hand),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "One hand of hold'em, no-limit or limit, from the blinds to the payment of the pots.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Hand_init,
    .tp_methods = Hand_methods,
    .tp_getset = Hand_getset,
};

/* setup(IllegalAction, Legal, Pot): the Python classes the engine answers with. */
static PyObject *setup(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *e, *l, *p;
    if (!PyArg_ParseTuple(args, "OOO", &e, &l, &p))
        return NULL;
    Py_XSETREF(IllegalAction, Py_NewRef(e));
    Py_XSETREF(LegalType, Py_NewRef(l));
    Py_XSETREF(PotType, Py_NewRef(p));
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"setup", setup, METH_VARARGS, "The Python classes the engine answers with."},
    {NULL, NULL, 0, NULL},
};

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define STR2(a) #a
#define STR(a) STR2(a)

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, STR(ENGINE_MODULE), NULL, -1, module_methods};

PyMODINIT_FUNC CAT(PyInit_, ENGINE_MODULE)(void) {
    if (PyType_Ready(&HandType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Hand", (PyObject *)&HandType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
#endif
