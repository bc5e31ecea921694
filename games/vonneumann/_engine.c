/* von Neumann poker's rules in C, the one copy of them: the engine of
 * games.vonneumann (the deal, A's bet cut to the limit, B's call or fold,
 * the end of a game and of a session, the money won and the m/sqrt(g)
 * scores), exposed to Python as the type ``Match`` that
 * games/vonneumann/_rules.py's ``VonNeumannMatch`` is. The rules are those of
 * games/vonneumann/__init__.py's rules page. Refusals raise
 * games.IllegalAction with the reason in words.
 *
 * protocols/vonneumann_compiled.c includes this file
 * (VONNEUMANN_ENGINE_EMBEDDED: the rules without the Python type and its
 * module) and plays on the very Match object the dealer holds: one source,
 * so one struct and one copy of the rules. The rule functions are `static
 * inline` so that the dialogue, which uses only some of them, compiles
 * without warnings.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <string.h>

/* games.vonneumann.Phase, in this order (its values are these words) */
enum { VN_DEAL, VN_A_TO_ACT, VN_B_TO_ACT, VN_OVER };
static const char *const VN_PHASE[] = {"deal", "a", "b", "over"};
#define VN_UNKNOWN (-1.0) /* UNKNOWN_CARD: the opponent's previous card was not shown */
#define VN_TYPE_NAME "games.vonneumann.Match"
/* math.fsum's partials of a sum of doubles: non-overlapping, so at most ~40 */
#define VN_PARTIALS 64

/* A finished session: each seat's money won in it, and its games. */
typedef struct {
    long long won[2], games;
} VNSession;

typedef struct {
    PyObject_HEAD
    /* the parameters (VonNeumannParams), and the seat that is A in match game 0 */
    long long ante, max_bet, stack, per_session, sessions;
    int first_a;
    /* where the match stands */
    int phase;
    long long session;    /* the session in play */
    long long game;       /* the next game within it */
    long long match_game; /* the next game within the match */
    long long money[2];   /* before this game's ante is settled */
    double previous[2];   /* what each seat knows of its opponent's card in the previous game */
    double cards[2];      /* (A's, B's) of the game in play (phase A_TO_ACT or B_TO_ACT) */
    long long bet;        /* A's bet after the cut, while B is to act */
    long long settled[2]; /* money won in finished sessions */
    VNSession *closed;    /* the finished sessions, in order */
    Py_ssize_t nclosed, capacity;
    /* how the last game ended (GameResult's fields) */
    struct {
        long long match_game, session, game, bet, amount;
        int a_seat, called, showdown, winner; /* called: -1 when B was not asked */
        double cards[2];
    } last;
} Match;

static PyObject *IllegalAction; /* games.IllegalAction, given by setup() */

static int vn_refuse(const char *fmt, ...) {
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

/* ---- the rules ----------------------------------------------------------------- */

/* 0 if the match is at `phase`, else -1 with the refusal in words. */
static inline int vn_not_due(const Match *m, int phase) {
    static const char *const words[] = {"no deal is due now", "it is not A's turn", "it is not B's turn"};
    if (m->phase == phase)
        return 0;
    return vn_refuse("%s (phase %s)", words[phase], VN_PHASE[m->phase]);
}

/* Roles alternate every game of the match, across session boundaries. */
static inline int vn_a_seat(const Match *m) { return (int)((m->first_a + m->match_game) % 2); }

/* The parameters and the start of the match; -1 with ValueError set. */
static inline int vn_setup(Match *m, long long ante, long long max_bet, long long stack, long long per_session,
                           long long sessions, int first_a) {
    if (first_a != 0 && first_a != 1) {
        PyErr_SetString(PyExc_ValueError, "first_a is seat 0 or 1");
        return -1;
    }
    if (ante < 1 || max_bet < 1 || per_session < 1 || sessions < 1 || stack < ante) {
        PyErr_SetString(PyExc_ValueError, "vonneumann: ante, max_bet, games_per_session and sessions are at least 1, "
                                          "and the stack at least the ante");
        return -1;
    }
    PyMem_Free(m->closed); /* __init__ again starts the match again */
    memset((char *)m + offsetof(Match, ante), 0, sizeof(Match) - offsetof(Match, ante));
    m->ante = ante;
    m->max_bet = max_bet;
    m->stack = stack;
    m->per_session = per_session;
    m->sessions = sessions;
    m->first_a = first_a;
    m->phase = VN_DEAL;
    m->money[0] = m->money[1] = stack;
    m->previous[0] = m->previous[1] = VN_UNKNOWN;
    m->cards[0] = m->cards[1] = VN_UNKNOWN;
    return 0;
}

/* The seed's score for a session: money won / sqrt(games played). */
static inline double vn_session_points(long long won, long long games) {
    return (double)won / sqrt((double)games);
}

/* The cards of the next game, A's and B's; -1 with IllegalAction set.
 * `given`: the objects the caller passed, for the words (NULL: the doubles). */
static inline int vn_deal(Match *m, double a, double b, PyObject *given_a, PyObject *given_b) {
    if (vn_not_due(m, VN_DEAL) < 0)
        return -1;
    double card[2] = {a, b};
    PyObject *given[2] = {given_a, given_b};
    for (int i = 0; i < 2; i++)
        if (!(0.0 <= card[i] && card[i] < 1.0)) { /* NaN too */
            PyObject *shown = given[i] != NULL ? Py_NewRef(given[i]) : PyFloat_FromDouble(card[i]);
            if (shown == NULL)
                return -1;
            vn_refuse("a card is in [0, 1); got %R", shown);
            Py_DECREF(shown);
            return -1;
        }
    m->cards[0] = a;
    m->cards[1] = b;
    m->phase = VN_A_TO_ACT;
    return 0;
}

/* A's bet after the seed's limits: at most A's money, max_bet and B's money
 * (so B can always afford to call); 0 or less is a pass. */
static inline long long vn_clamp(const Match *m, long long amount) {
    if (amount <= 0)
        return 0;
    int a = vn_a_seat(m);
    long long cut = amount;
    if (m->money[a] < cut)
        cut = m->money[a];
    if (m->max_bet < cut)
        cut = m->max_bet;
    if (m->money[1 - a] < cut)
        cut = m->money[1 - a];
    return cut;
}

/* The session is over: its money won is settled and both get the stack again. */
static inline void vn_close_session(Match *m) {
    VNSession *s = &m->closed[m->nclosed++]; /* room made by vn_finish */
    for (int seat = 0; seat < 2; seat++) {
        s->won[seat] = m->money[seat] - m->stack;
        m->settled[seat] += s->won[seat];
        m->money[seat] = m->stack;
    }
    s->games = m->game;
    m->session++;
    m->game = 0;
}

/* The game is over: a showdown (`called`: -1 when B was not asked) or B's
 * fold; the session and the match end here when they do. -1 with
 * MemoryError set, and nothing changed. */
static inline int vn_finish(Match *m, int called, int showdown) {
    if (m->nclosed == m->capacity) { /* room for the session this game may close, before anything changes */
        Py_ssize_t capacity = m->capacity ? 2 * m->capacity : 16;
        VNSession *grown = PyMem_Realloc(m->closed, (size_t)capacity * sizeof(VNSession));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        m->closed = grown;
        m->capacity = capacity;
    }
    int a = vn_a_seat(m), b = 1 - a, winner;
    long long amount;
    if (!showdown) { /* B folded: A wins B's ante, and no card is shown */
        winner = a;
        amount = m->ante;
        m->previous[0] = m->previous[1] = VN_UNKNOWN;
    } else {
        /* A needs the strictly higher card: ties go to B, as in the seed's controller */
        winner = m->cards[0] > m->cards[1] ? a : b;
        amount = m->ante + m->bet;
        m->previous[a] = m->cards[1];
        m->previous[b] = m->cards[0];
    }
    m->money[winner] += amount;
    m->money[1 - winner] -= amount;
    m->last.match_game = m->match_game;
    m->last.session = m->session;
    m->last.game = m->game;
    m->last.a_seat = a;
    m->last.cards[0] = m->cards[0];
    m->last.cards[1] = m->cards[1];
    m->last.bet = m->bet;
    m->last.called = called;
    m->last.showdown = showdown;
    m->last.winner = winner;
    m->last.amount = amount;
    m->cards[0] = m->cards[1] = VN_UNKNOWN;
    m->bet = 0;
    m->game++;
    m->match_game++;
    long long low = m->money[0] < m->money[1] ? m->money[0] : m->money[1];
    if (m->game >= m->per_session || low < m->ante) /* or a player could not ante the next game */
        vn_close_session(m);
    m->phase = m->session >= m->sessions ? VN_OVER : VN_DEAL;
    return 0;
}

/* A bets `amount` (0 or less passes); the bet after the cut, or -1 with an
 * error set. A pass is a showdown for the antes. */
static inline long long vn_bet(Match *m, long long amount) {
    if (vn_not_due(m, VN_A_TO_ACT) < 0)
        return -1;
    long long bet = vn_clamp(m, amount);
    m->bet = bet;
    int r = 0;
    if (bet == 0)
        r = vn_finish(m, -1, 1);
    else if (m->money[1 - vn_a_seat(m)] < bet)
        /* Unreachable while bets are cut to B's money; kept because the
         * seed's controller guards it too: B cannot call, so folds. */
        r = vn_finish(m, -1, 0);
    else
        m->phase = VN_B_TO_ACT;
    if (r < 0) {
        m->bet = 0;
        return -1;
    }
    return bet;
}

/* B calls (a showdown) or folds; -1 with an error set. */
static inline int vn_call(Match *m, int call) {
    if (vn_not_due(m, VN_B_TO_ACT) < 0)
        return -1;
    return vn_finish(m, call, call);
}

/* Money won over the match so far, the session in play included. */
static inline long long vn_payoff(const Match *m, int seat) {
    return m->settled[seat] + (m->game ? m->money[seat] - m->stack : 0);
}

/* A seat's points of the finished sessions, summed as math.fsum sums them
 * (so the same double): the exact sum kept as non-overlapping partials
 * (Shewchuk's), rounded once at the end, a half-way case by the partial
 * below it. */
static inline double vn_points_sum(const Match *m, int seat) {
    double p[VN_PARTIALS];
    int n = 0;
    for (Py_ssize_t i = 0; i < m->nclosed; i++) {
        double x = vn_session_points(m->closed[i].won[seat], m->closed[i].games);
        int kept = 0;
        for (int j = 0; j < n; j++) {
            double y = p[j];
            if (fabs(x) < fabs(y)) {
                double t = x;
                x = y;
                y = t;
            }
            double hi = x + y, lo = y - (hi - x);
            if (lo != 0.0)
                p[kept++] = lo;
            x = hi;
        }
        n = kept;
        if (x != 0.0 && n < VN_PARTIALS)
            p[n++] = x;
    }
    double hi = 0.0, lo = 0.0;
    if (n > 0) {
        hi = p[--n];
        while (n > 0) { /* from the largest down, until an addition is inexact */
            double x = hi, y = p[--n];
            hi = x + y;
            lo = y - (hi - x);
            if (lo != 0.0)
                break;
        }
        if (n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0))) {
            double y = lo * 2.0, x = hi + y; /* half-way: what is below decides */
            if (y == x - hi)
                hi = x;
        }
    }
    return hi;
}

/* Sum of session points; an unfinished session counts as it stands. */
static inline double vn_score(const Match *m, int seat) {
    double total = vn_points_sum(m, seat);
    if (m->game)
        total += vn_session_points(m->money[seat] - m->stack, m->game);
    return total;
}

#ifndef VONNEUMANN_ENGINE_EMBEDDED /* a compiled dialogue includes this file for the rules alone */

/* ---- the Python type ----------------------------------------------------------- */

static PyObject *Phases; /* the Phase members, given by setup() */

/* A bet as an int: a fraction of a dollar is against the rules (a new
 * reference, or NULL with IllegalAction set). */
static PyObject *whole_dollars(PyObject *self, PyObject *amount) {
    (void)self;
    if (PyBool_Check(amount) || !(PyLong_Check(amount) || PyFloat_Check(amount))) {
        PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(amount), "__name__");
        if (name != NULL) {
            vn_refuse("a bet is a number of dollars, not %S", name);
            Py_DECREF(name);
        }
        return NULL;
    }
    if (PyLong_Check(amount))
        return Py_NewRef(amount);
    double x = PyFloat_AS_DOUBLE(amount);
    if (!isfinite(x)) {
        vn_refuse("a bet must be a finite number, not %S", amount);
        return NULL;
    }
    if (x != floor(x)) {
        vn_refuse("bets are whole dollars; %R is not a whole number", amount);
        return NULL;
    }
    return PyLong_FromDouble(x);
}

/* An int as a long long, cut to the range (what is beyond it is cut alike by vn_clamp). */
static int saturated(PyObject *amount, long long *out) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(amount, &overflow);
    if (x == -1 && PyErr_Occurred())
        return -1;
    *out = overflow > 0 ? LLONG_MAX : overflow < 0 ? LLONG_MIN : x;
    return 0;
}

static PyObject *session_points(PyObject *self, PyObject *args) {
    (void)self;
    long long won, games;
    if (!PyArg_ParseTuple(args, "LL", &won, &games))
        return NULL;
    if (games < 0) { /* as won / math.sqrt(games) says it */
        PyErr_SetString(PyExc_ValueError, "math domain error");
        return NULL;
    }
    if (games == 0) {
        PyErr_SetString(PyExc_ZeroDivisionError, "float division by zero");
        return NULL;
    }
    return PyFloat_FromDouble(vn_session_points(won, games));
}

static int Match_init(Match *m, PyObject *args, PyObject *kwds) {
    static char *kw[] = {"ante", "max_bet", "stack", "games_per_session", "sessions", "first_a", NULL};
    long long ante, max_bet, stack, per_session, sessions;
    int first_a = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "LLLLL|i", kw, &ante, &max_bet, &stack, &per_session, &sessions,
                                     &first_a))
        return -1;
    return vn_setup(m, ante, max_bet, stack, per_session, sessions, first_a);
}

static void Match_dealloc(Match *m) {
    PyMem_Free(m->closed);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyObject *Match_apply_deal(Match *m, PyObject *args) {
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b))
        return NULL;
    if (vn_not_due(m, VN_DEAL) < 0) /* before the cards are read, as the refusals go */
        return NULL;
    double x = PyFloat_AsDouble(a);
    if (x == -1.0 && PyErr_Occurred())
        return NULL;
    double y = PyFloat_AsDouble(b);
    if (y == -1.0 && PyErr_Occurred())
        return NULL;
    if (vn_deal(m, x, y, a, b) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Match_clamp(Match *m, PyObject *amount) {
    long long x;
    if (saturated(amount, &x) < 0)
        return NULL;
    return PyLong_FromLongLong(vn_clamp(m, x));
}

static PyObject *Match_apply_bet(Match *m, PyObject *amount) {
    if (vn_not_due(m, VN_A_TO_ACT) < 0)
        return NULL;
    PyObject *whole = whole_dollars(NULL, amount);
    if (whole == NULL)
        return NULL;
    long long x;
    int r = saturated(whole, &x);
    Py_DECREF(whole);
    if (r < 0)
        return NULL;
    long long bet = vn_bet(m, x);
    return bet < 0 ? NULL : PyLong_FromLongLong(bet);
}

static PyObject *Match_apply_call(Match *m, PyObject *call) {
    if (vn_not_due(m, VN_B_TO_ACT) < 0)
        return NULL;
    if (!PyBool_Check(call)) {
        vn_refuse("B calls (true) or folds (false), not %R", call);
        return NULL;
    }
    if (vn_call(m, call == Py_True) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Match_payoffs(Match *m, PyObject *unused) {
    (void)unused;
    return Py_BuildValue("[LL]", vn_payoff(m, 0), vn_payoff(m, 1));
}

static PyObject *Match_scores(Match *m, PyObject *unused) {
    (void)unused;
    return Py_BuildValue("[dd]", vn_score(m, 0), vn_score(m, 1));
}

/* ---- views (each a fresh copy) --------------------------------------------------- */

#define GET_LL(name, expr) \
    static PyObject *get_##name(Match *m, void *c) { (void)c; return PyLong_FromLongLong(expr); }
GET_LL(first_a, m->first_a)
GET_LL(session, m->session)
GET_LL(game, m->game)
GET_LL(match_game, m->match_game)
GET_LL(bet, m->bet)
GET_LL(a_seat, vn_a_seat(m))
GET_LL(b_seat, 1 - vn_a_seat(m))

static PyObject *get_phase(Match *m, void *c) {
    (void)c;
    if (Phases == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the vonneumann engine was not set up");
        return NULL;
    }
    return Py_NewRef(PyTuple_GET_ITEM(Phases, m->phase));
}

static PyObject *get_to_act(Match *m, void *c) {
    (void)c;
    if (m->phase == VN_A_TO_ACT)
        return PyLong_FromLong(vn_a_seat(m));
    if (m->phase == VN_B_TO_ACT)
        return PyLong_FromLong(1 - vn_a_seat(m));
    Py_RETURN_NONE;
}

static PyObject *get_money(Match *m, void *c) {
    (void)c;
    return Py_BuildValue("[LL]", m->money[0], m->money[1]);
}

/* Set a seat's money directly (tests of the limits). */
static int set_money(Match *m, PyObject *value, void *c) {
    (void)c;
    long long money[2];
    PyObject *seq = value != NULL ? PySequence_Fast(value, "money is each seat's: two ints") : NULL;
    if (seq == NULL || PySequence_Fast_GET_SIZE(seq) != 2) {
        Py_XDECREF(seq);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "money is each seat's: two ints");
        return -1;
    }
    for (int s = 0; s < 2; s++) {
        money[s] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, s));
        if (money[s] == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    m->money[0] = money[0];
    m->money[1] = money[1];
    return 0;
}

static PyObject *get_previous_card(Match *m, void *c) {
    (void)c;
    return Py_BuildValue("[dd]", m->previous[0], m->previous[1]);
}

static PyObject *get_cards(Match *m, void *c) {
    (void)c;
    if (m->phase != VN_A_TO_ACT && m->phase != VN_B_TO_ACT)
        Py_RETURN_NONE;
    return Py_BuildValue("(dd)", m->cards[0], m->cards[1]);
}

static PyObject *get_settled(Match *m, void *c) {
    (void)c;
    return Py_BuildValue("[LL]", m->settled[0], m->settled[1]);
}

static PyObject *get_session_games(Match *m, void *c) {
    (void)c;
    PyObject *l = PyList_New(m->nclosed);
    for (Py_ssize_t i = 0; l != NULL && i < m->nclosed; i++) {
        PyObject *x = PyLong_FromLongLong(m->closed[i].games);
        if (x == NULL)
            Py_CLEAR(l);
        else
            PyList_SET_ITEM(l, i, x);
    }
    return l;
}

static PyObject *get_session_points(Match *m, void *c) {
    (void)c;
    PyObject *both = PyList_New(2);
    for (int seat = 0; both != NULL && seat < 2; seat++) {
        PyObject *l = PyList_New(m->nclosed);
        for (Py_ssize_t i = 0; l != NULL && i < m->nclosed; i++) {
            PyObject *x = PyFloat_FromDouble(vn_session_points(m->closed[i].won[seat], m->closed[i].games));
            if (x == NULL)
                Py_CLEAR(l);
            else
                PyList_SET_ITEM(l, i, x);
        }
        if (l == NULL)
            Py_CLEAR(both);
        else
            PyList_SET_ITEM(both, seat, l);
    }
    return both;
}

static PyObject *get_last_game(Match *m, void *c) {
    (void)c;
    if (m->match_game == 0)
        Py_RETURN_NONE;
    PyObject *called = m->last.called < 0 ? Py_None : m->last.called ? Py_True : Py_False;
    return Py_BuildValue("(LLLi(dd)LONiL)", m->last.match_game, m->last.session, m->last.game, m->last.a_seat,
                         m->last.cards[0], m->last.cards[1], m->last.bet, called, PyBool_FromLong(m->last.showdown),
                         m->last.winner, m->last.amount);
}

static PyGetSetDef Match_getset[] = {
    {"first_a", (getter)get_first_a, NULL, "the seat that is A in match games 0, 2, 4, ...", NULL},
    {"phase", (getter)get_phase, NULL, "a Phase", NULL},
    {"session", (getter)get_session, NULL, "index of the session being played", NULL},
    {"game", (getter)get_game, NULL, "index of the next game within the session", NULL},
    {"match_game", (getter)get_match_game, NULL, "index of the next game within the match", NULL},
    {"money", (getter)get_money, (setter)set_money, "each seat's money, before this game's ante is settled", NULL},
    {"previous_card", (getter)get_previous_card, NULL,
     "what each seat knows of its opponent's card in the previous game (-1.0: not shown)", NULL},
    {"cards", (getter)get_cards, NULL, "(A's card, B's card) of the game in play, or None", NULL},
    {"bet", (getter)get_bet, NULL, "A's bet after the cut while B is to act, else 0", NULL},
    {"settled", (getter)get_settled, NULL, "money won in finished sessions", NULL},
    {"session_games", (getter)get_session_games, NULL, "the games of each finished session", NULL},
    {"session_points", (getter)get_session_points, NULL, "each seat's points of each finished session", NULL},
    {"a_seat", (getter)get_a_seat, NULL, NULL, NULL},
    {"b_seat", (getter)get_b_seat, NULL, NULL, NULL},
    {"to_act", (getter)get_to_act, NULL, "the seat whose turn it is, or None", NULL},
    {"last_game", (getter)get_last_game, NULL, "GameResult's fields of the last game finished, or None", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Match_methods[] = {
    {"apply_deal", (PyCFunction)Match_apply_deal, METH_VARARGS, "The next game's cards: A's, B's, each in [0, 1)."},
    {"clamp", (PyCFunction)Match_clamp, METH_O,
     "A's bet after the seed's limits: at most A's money, max_bet and B's money."},
    {"apply_bet", (PyCFunction)Match_apply_bet, METH_O,
     "A bets the amount (0 or less passes); returns the bet after clamping."},
    {"apply_call", (PyCFunction)Match_apply_call, METH_O, "B calls (True) or folds (False)."},
    {"payoffs", (PyCFunction)Match_payoffs, METH_NOARGS,
     "Money won over the match so far, the session in play included."},
    {"scores", (PyCFunction)Match_scores, METH_NOARGS,
     "Sum of session points; an unfinished session counts as it stands."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject MatchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = VN_TYPE_NAME,
    .tp_basicsize = sizeof(Match),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "One match of von Neumann poker between seats 0 and 1.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Match_init,
    .tp_dealloc = (destructor)Match_dealloc,
    .tp_methods = Match_methods,
    .tp_getset = Match_getset,
};

/* setup(IllegalAction, phases): the Python class refusals raise, and the
 * Phase members in the order of PHASES. */
static PyObject *setup(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *e, *p;
    if (!PyArg_ParseTuple(args, "OO!", &e, &PyTuple_Type, &p))
        return NULL;
    if (PyTuple_GET_SIZE(p) != 4) {
        PyErr_SetString(PyExc_ValueError, "setup: the four phases, in the order of PHASES");
        return NULL;
    }
    Py_XSETREF(IllegalAction, Py_NewRef(e));
    Py_XSETREF(Phases, Py_NewRef(p));
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"setup", setup, METH_VARARGS, "The Python class refusals raise, and the Phase members."},
    {"whole_dollars", whole_dollars, METH_O, "A bet as an int; a fraction of a dollar is against the rules."},
    {"session_points", session_points, METH_VARARGS,
     "The seed's score for a session: money won / sqrt(games played)."},
    {NULL, NULL, 0, NULL},
};

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define STR2(a) #a
#define STR(a) STR2(a)

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, STR(ENGINE_MODULE), NULL, -1, module_methods, NULL, NULL, NULL,
                                    NULL};

PyMODINIT_FUNC CAT(PyInit_, ENGINE_MODULE)(void) {
    if (PyType_Ready(&MatchType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    PyObject *phases = Py_BuildValue("(ssss)", VN_PHASE[0], VN_PHASE[1], VN_PHASE[2], VN_PHASE[3]);
    if (phases == NULL || PyModule_AddObjectRef(m, "Match", (PyObject *)&MatchType) < 0 ||
        PyModule_AddObject(m, "PHASES", phases) < 0) {
        Py_XDECREF(phases);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
#endif
