/* vonneumann's compiled dialogue: the games of protocols/vonneumann.py
 * (a_turn -> bet, b_turn -> call) played in C over the bots' pipes for as
 * long as everything is regular.
 *
 * The Python dialogue is the reference, as for kuhn3 (kuhn3_compiled.c): a
 * reply is taken here only in the exact form a well-behaved bot writes
 * (compact JSON, or with Python's default ", " and ": " separators, the keys
 * in the model's order, an integer amount without leading zeros); anything
 * else, and anything not there within the spin budget, a deadline passed, a
 * full or closed pipe, match_start and match_end, hands the match back to
 * Python mid-exchange, which judges it in its own words. Every reply taken
 * here is one pydantic would take with the same fields, so no verdict is
 * made here.
 *
 * Requests are written byte for byte as orjson writes the dialogue's dict
 * (the keys in the model's order, compact). Cards are k / 2**24; a card's
 * text is Python's shortest round-trip repr of the double (the digits orjson
 * writes too), laid out as orjson lays it out: plain decimals down to 1e-5,
 * then "5.960464477539063e-8". Every k in [0, 2**24) was checked against
 * orjson once; tests/play/test_native_vonneumann.py checks a spread of them.
 *
 * Stops also after CLOSED_MAX sessions closed in one call (their results
 * go back in the state, for the engine's session list) and every `budget`
 * messages. The state is VNState, generated from VONNEUMANN_COMPILED.layout
 * in protocols/vonneumann.py into "dialogue_state.h".
 */
#include "arena_exchange.h"
#include "dialogue_state.h"

#define NSTATE VNSTATE_INTS
#define MSG_MAX 512 /* a request is under 300 bytes; < PIPE_BUF, so a write is all or nothing */
#define CLOSED_MAX ((int)(sizeof(((VNState *)0)->closed_games) / sizeof(long long)))

enum { S_START, S_A_TURN, S_B_TURN, S_END, S_DONE };
enum { P_DEAL, P_A_TO_ACT, P_B_TO_ACT, P_OVER };

typedef struct {
    VNState st;
    long long ante, max_bet, stack, per_session, sessions, first_a, match[2];
    PyObject *deal;
    Ex ex;
    char buf[MSG_MAX];
    long long amount; /* the bet of the reply accepted */
    int call;         /* the answer of the reply accepted */
    /* card texts already made: k -> text (a game's cards come back as the next game's previous cards) */
    long long memo_k[4];
    char memo_text[4][40];
    int memo_len[4], memo_next;
} VN;

/* ---- a card's text, as orjson writes k / 2**24 ------------------------------ */

static int vn_float_text(double x, char *out, int cap) {
    char *r = PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (r == NULL)
        return -1;
    int n;
    char *e = strchr(r, 'e');
    if (e == NULL) {
        n = snprintf(out, (size_t)cap, "%s", r);
    } else {
        int exp = atoi(e + 1);
        char digits[32];
        int nd = 0, neg = r[0] == '-';
        for (char *p = r + neg; p < e; p++)
            if (*p != '.')
                digits[nd++] = *p;
        digits[nd] = 0;
        if (exp >= -5 && exp < 0) /* orjson keeps decimals down to 1e-5, Python to 1e-4 */
            n = snprintf(out, (size_t)cap, "%s0.%.*s%s", neg ? "-" : "", -exp - 1, "00000", digits);
        else
            n = snprintf(out, (size_t)cap, "%.*se%d", (int)(e - r), r, exp);
    }
    PyMem_Free(r);
    return n;
}

static int vn_card(VN *v, long long k, char *out, int cap) {
    if (k < 0)
        return snprintf(out, (size_t)cap, "-1.0");
    for (int i = 0; i < 4; i++)
        if (v->memo_len[i] && v->memo_k[i] == k)
            return snprintf(out, (size_t)cap, "%s", v->memo_text[i]);
    int i = v->memo_next;
    v->memo_next = (i + 1) % 4;
    int n = vn_float_text((double)k / 16777216.0, v->memo_text[i], (int)sizeof v->memo_text[i]);
    if (n < 0 || n >= (int)sizeof v->memo_text[i])
        return -1;
    v->memo_k[i] = k;
    v->memo_len[i] = n;
    return snprintf(out, (size_t)cap, "%s", v->memo_text[i]);
}

/* ---- vonneumann --------------------------------------------------------------- */

static int vn_a_seat(VN *v) { return (int)((v->first_a + v->st.match_game) % 2); }

/* A's bet after the seed's limits (VonNeumannMatch.clamp). */
static long long vn_clamp(VN *v, long long amount) {
    if (amount <= 0)
        return 0;
    int a = vn_a_seat(v);
    long long m = amount;
    if (v->st.money[a] < m)
        m = v->st.money[a];
    if (v->max_bet < m)
        m = v->max_bet;
    if (v->st.money[1 - a] < m)
        m = v->st.money[1 - a];
    return m;
}

/* The request of the current step (VonNeumannDealer._turn). 0, -1 for a
 * step Python plays, -2 with a Python error set. */
static int vn_render(VN *v) {
    VNState *st = &v->st;
    if (st->step != S_A_TURN && st->step != S_B_TURN)
        return -1;
    int a = vn_a_seat(v), b = 1 - a;
    int seat = st->step == S_A_TURN ? a : b;
    char card[40], prev[40];
    if (vn_card(v, st->cards[seat == a ? 0 : 1], card, sizeof card) < 0 ||
        vn_card(v, st->previous[seat], prev, sizeof prev) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "a vonneumann card's text is too long");
        return -2;
    }
    int n = snprintf(v->buf, MSG_MAX,
                     "{\"type\":\"%s\",\"match\":%lld,\"session\":%lld,\"game\":%lld,\"match_game\":%lld,"
                     "\"card\":%s,\"opponent_previous_card\":%s,\"money\":%lld,\"opponent_money\":%lld,"
                     "\"%s\":%lld}\n",
                     seat == a ? "a_turn" : "b_turn", v->match[seat], st->session, st->game, st->match_game, card,
                     prev, st->money[seat], st->money[1 - seat], seat == a ? "max_bet" : "bet",
                     seat == a ? vn_clamp(v, v->max_bet) : st->bet);
    Ex *ex = &v->ex;
    ex->n = 1;
    ex->seat[0] = seat;
    ex->msg[0] = v->buf;
    ex->len[0] = n;
    return 0;
}

/* An integer as JSON writes it plainly: -?(0|[1-9][0-9]{0,17}). */
static int vn_int(const char *p, int len, long long *out) {
    int neg = len > 0 && p[0] == '-';
    p += neg;
    len -= neg;
    if (len < 1 || len > 18 || (p[0] == '0' && (len > 1 || neg)))
        return 0;
    long long x = 0;
    for (int i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        x = x * 10 + (p[i] - '0');
    }
    *out = neg ? -x : x;
    return 1;
}

/* `line` is `head` + the rest + "}", in one of the two spellings taken here;
 * the rest between them is returned. */
static int vn_between(const char *line, int len, const char *compact, const char *spaced, const char **rest,
                      int *rest_len) {
    const char *heads[2] = {compact, spaced};
    if (len < 2 || line[len - 1] != '}')
        return 0;
    for (int i = 0; i < 2; i++) {
        int h = (int)strlen(heads[i]);
        if (len > h && memcmp(line, heads[i], (size_t)h) == 0) {
            *rest = line + h;
            *rest_len = len - h - 1;
            return 1;
        }
    }
    return 0;
}

static int vn_accept(void *ctx, int index, const char *line, int len) {
    VN *v = ctx;
    const char *rest;
    int n;
    (void)index;
    if (v->st.step == S_A_TURN)
        return vn_between(line, len, "{\"type\":\"bet\",\"amount\":", "{\"type\": \"bet\", \"amount\": ", &rest, &n) &&
               vn_int(rest, n, &v->amount);
    if (v->st.step == S_B_TURN && vn_between(line, len, "{\"type\":\"call\",\"call\":", "{\"type\": \"call\", \"call\": ",
                                             &rest, &n)) {
        if (n == 4 && memcmp(rest, "true", 4) == 0)
            v->call = 1;
        else if (n == 5 && memcmp(rest, "false", 5) == 0)
            v->call = 0;
        else
            return 0;
        return 1;
    }
    return 0;
}

/* The game is over (VonNeumannMatch._finish and _close_session). */
static void vn_finish(VN *v, int showdown) {
    VNState *st = &v->st;
    int a = vn_a_seat(v), b = 1 - a, winner;
    long long amount;
    if (!showdown) {
        winner = a;
        amount = v->ante;
        st->previous[0] = st->previous[1] = -1;
    } else {
        winner = st->cards[0] > st->cards[1] ? a : b; /* ties go to B */
        amount = v->ante + st->bet;
        st->previous[a] = st->cards[1];
        st->previous[b] = st->cards[0];
    }
    st->money[winner] += amount;
    st->money[1 - winner] -= amount;
    st->cards[0] = st->cards[1] = -1;
    st->bet = 0;
    st->game++;
    st->match_game++;
    long long low = st->money[0] < st->money[1] ? st->money[0] : st->money[1];
    if (st->game >= v->per_session || low < v->ante) {
        long long c = st->closed++;
        st->closed_won0[c] = st->money[0] - v->stack;
        st->closed_won1[c] = st->money[1] - v->stack;
        st->closed_games[c] = st->game;
        st->settled[0] += st->closed_won0[c];
        st->settled[1] += st->closed_won1[c];
        st->session++;
        st->game = 0;
        st->money[0] = st->money[1] = v->stack;
    }
    st->phase = st->session >= v->sessions ? P_OVER : P_DEAL;
}

/* The next game's cards from the dealer's seeded deal, or the match's end. */
static int vn_next_game(VN *v) {
    VNState *st = &v->st;
    if (st->phase == P_OVER) {
        st->step = S_END;
        return 0;
    }
    PyObject *deal = PyObject_CallNoArgs(v->deal);
    if (deal == NULL)
        return -1;
    long long k[2];
    if (!PyTuple_Check(deal) || PyTuple_GET_SIZE(deal) != 2) {
        Py_DECREF(deal);
        PyErr_SetString(PyExc_ValueError, "a vonneumann deal is a tuple of two numerators");
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        k[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(deal, i));
        if (k[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(deal);
            return -1;
        }
        if (k[i] < 0 || k[i] >= 16777216) {
            Py_DECREF(deal);
            PyErr_SetString(PyExc_ValueError, "a vonneumann card's numerator is in [0, 2**24)");
            return -1;
        }
    }
    Py_DECREF(deal);
    st->cards[0] = k[0];
    st->cards[1] = k[1];
    st->phase = P_A_TO_ACT;
    st->step = S_A_TURN;
    return 0;
}

/* The reply was accepted: move the state on (VonNeumannDealer.feed). */
static int vn_advance(VN *v) {
    VNState *st = &v->st;
    if (st->step == S_A_TURN) {
        st->bet = vn_clamp(v, v->amount);
        if (st->bet == 0) {
            vn_finish(v, 1);
        } else if (st->money[1 - vn_a_seat(v)] < st->bet) {
            vn_finish(v, 0); /* unreachable while bets are clamped, as in the engine */
        } else {
            st->phase = P_B_TO_ACT;
            st->step = S_B_TURN;
            return 0;
        }
    } else {
        vn_finish(v, v->call);
    }
    return vn_next_game(v);
}

/* vonneumann_play(state, params, deal, ends, wfds, rfds, time_used, slowest,
 *                 timeout, budget, spin, max_line, trace, budget_messages)
 * -> (stopped_mid, state, written, accepted, lead, time_used, slowest, extra, eof, messages)
 * as kuhn3_play (kuhn3_compiled.c; arena/play/_exchange.py, CompiledLoop);
 * `deal` gives a game's two numerators, `ends` is unused.
 */
static PyObject *vonneumann_play(PyObject *self, PyObject *args) {
    PyObject *state, *params, *deal, *ends, *wfds, *rfds, *tu, *sl, *trace;
    double timeout, budget, spin;
    long max_line, budget_messages;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOdddlOl", &state, &params, &deal, &ends, &wfds, &rfds, &tu, &sl,
                          &timeout, &budget, &spin, &max_line, &trace, &budget_messages))
        return NULL;
    static VN v; /* one call at a time: the driver is not re-entered (and holds the GIL) */
    Io *io = &shared_io;
    double entry = now_s();
    memset(&v, 0, sizeof v);
    long long p[8];
    if (read_ints(state, (long long *)&v.st, NSTATE, "state") < 0 || read_ints(params, p, 8, "params") < 0)
        return NULL;
    v.ante = p[0];
    v.max_bet = p[1];
    v.stack = p[2];
    v.per_session = p[3];
    v.sessions = p[4];
    v.first_a = p[5];
    v.match[0] = p[6];
    v.match[1] = p[7];
    v.deal = deal;
    v.st.closed = 0;
    if (io_open(io, 2, wfds, rfds, tu, sl, timeout, budget, spin, max_line, trace) < 0)
        return NULL;

    long messages = 0;
    int mid = 0;
    PyObject *result = NULL;
    while (messages < budget_messages && v.st.closed < CLOSED_MAX) {
        int r = vn_render(&v);
        if (r == -2)
            goto done;
        if (r < 0)
            break; /* a step Python plays (match_end) */
        v.ex.limit[0] = limit_for(io, v.ex.seat[0]);
        r = run_exchange(io, &v.ex, vn_accept, &v);
        if (r == IO_ERROR)
            goto done;
        if (r == IO_STOPPED) {
            mid = 1;
            break;
        }
        messages += 1;
        if (vn_advance(&v) < 0)
            goto done;
    }
    {
        double lead = 0.0;
        /* one message per exchange: stopped inside one, its reply was not taken */
        PyObject *accepted = mid ? Py_BuildValue("(O)", Py_None) : PyTuple_New(0);
        if (accepted == NULL)
            goto done;
        if (mid && v.ex.written > 0)
            lead = v.ex.sent_at[0] - entry;
        PyObject *extra = PyTuple_New(2);
        if (extra == NULL) {
            Py_DECREF(accepted);
            goto done;
        }
        for (int s = 0; s < 2; s++) {
            PyObject *x = io->extra[s] != NULL ? io->extra[s] : Py_NewRef(Py_None);
            io->extra[s] = NULL;
            PyTuple_SET_ITEM(extra, s, x);
        }
        PyObject *st = ints_tuple((long long *)&v.st, NSTATE);
        PyObject *tup = Py_BuildValue("(dd)", io->time_used[0], io->time_used[1]);
        PyObject *slp = Py_BuildValue("(dd)", io->slowest[0], io->slowest[1]);
        if (st != NULL && tup != NULL && slp != NULL)
            result = Py_BuildValue("(iOiOdOOO(ii)l)", mid, st, v.ex.written * mid, accepted, lead, tup, slp, extra,
                                   io->eof[0], io->eof[1], messages);
        Py_XDECREF(st);
        Py_XDECREF(tup);
        Py_XDECREF(slp);
        Py_DECREF(accepted);
        Py_DECREF(extra);
    }
done:
    for (int s = 0; s < 2; s++)
        Py_CLEAR(io->extra[s]);
    return result;
}

/* card_text(k): the text of card k / 2**24 in a request (for the tests). */
static PyObject *card_text(PyObject *self, PyObject *arg) {
    (void)self;
    static VN v;
    long long k = PyLong_AsLongLong(arg);
    if (k == -1 && PyErr_Occurred())
        return NULL;
    char out[40];
    int n = vn_card(&v, k, out, sizeof out);
    if (n < 0)
        return NULL;
    return PyBytes_FromStringAndSize(out, n);
}

static PyMethodDef methods[] = {
    {"vonneumann_play", vonneumann_play, METH_VARARGS,
     "Play vonneumann games over the bots' pipes until something needs Python."},
    {"card_text", card_text, METH_O, "The JSON text of card k / 2**24 in a request."},
    {NULL, NULL, 0, NULL},
};

ARENA_MODULE_INIT(methods)
