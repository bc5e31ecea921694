/* vonneumann's compiled dialogue: the games of protocols/vonneumann.py
 * (a_turn -> bet, b_turn -> call) played in C over the bots' pipes for as
 * long as everything is regular, on the very VonNeumannMatch the dealer
 * holds.
 *
 * The rules are not copied: this file includes games/vonneumann/_engine.c
 * (the engine, without its Python type), so the Match struct and every rule
 * (the deal, the cut of a bet, the showdown or fold, the end of a session)
 * are the engine's own, and the dealer's object is worked on in place. What
 * is left here is the wire (rendering the requests, reading the replies) and
 * the loop.
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
 * (the keys in the model's order, compact). No float is formatted here: a
 * card's text is orjson's, given by the dealer with each deal
 * (SeededDeal.with_texts) or, for a card this loop did not deal (where it
 * starts), asked of the dealer's `text` function.
 *
 * Stops every `budget` messages. The state is VNState (the dialogue's step),
 * generated from VONNEUMANN_COMPILED.layout in protocols/vonneumann.py into
 * "dialogue_state.h".
 */
#define VONNEUMANN_ENGINE_EMBEDDED
#include "../games/vonneumann/_engine.c"
#include "arena_exchange.h"
#include "dialogue_state.h"

#define NSTATE VNSTATE_INTS
#define MSG_MAX 512 /* a request is under 300 bytes; < PIPE_BUF, so a write is all or nothing */
#define TEXT_MAX 40 /* orjson writes a double in at most 24 bytes */
#define TEXTS 6     /* this game's cards and the last one's (the previous cards), and spare */

enum { S_START, S_A_TURN, S_B_TURN, S_END, S_DONE }; /* protocols.vonneumann.Step */

/* A card and its text in a request. */
typedef struct {
    double card;
    int len; /* 0: empty */
    char text[TEXT_MAX];
} Text;

typedef struct {
    VNState st;
    Match *m;           /* the dealer's engine, played on in place */
    long long match[2]; /* each seat's match number (native_params) */
    PyObject *deal;     /* () -> (A's card, B's card, their texts) */
    PyObject *text;     /* card -> its text */
    Ex ex;
    char buf[MSG_MAX];
    long long amount; /* the bet of the reply accepted */
    int call;         /* the answer of the reply accepted */
    Text texts[TEXTS];
    int next_text;
    Text unknown; /* -1, the previous card not shown: kept apart, as it comes back after every fold */
} VN;

/* ---- the cards' texts, as the dealer renders them ----------------------------- */

static int same(double x, double y) { return memcmp(&x, &y, sizeof x) == 0; } /* bit for bit: -0.0 is not 0.0 */

static int remember(VN *v, double card, PyObject *text) {
    if (!PyBytes_Check(text) || PyBytes_GET_SIZE(text) < 1 || PyBytes_GET_SIZE(text) >= TEXT_MAX) {
        PyErr_SetString(PyExc_ValueError, "a vonneumann card's text is bytes, under 40 of them");
        return -1;
    }
    Text *t = &v->unknown;
    if (!same(card, VN_UNKNOWN)) {
        t = &v->texts[v->next_text];
        v->next_text = (v->next_text + 1) % TEXTS;
    }
    t->card = card;
    t->len = (int)PyBytes_GET_SIZE(text);
    memcpy(t->text, PyBytes_AS_STRING(text), (size_t)t->len);
    return 0;
}

/* The text of `card` copied to out (TEXT_MAX bytes); its length, or -1 with an error set. */
static int card_text(VN *v, double card, char *out) {
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i <= TEXTS; i++) {
            Text *t = i < TEXTS ? &v->texts[i] : &v->unknown;
            if (t->len && same(t->card, card)) {
                memcpy(out, t->text, (size_t)t->len);
                return t->len;
            }
        }
        if (pass)
            break;
        PyObject *text = PyObject_CallFunction(v->text, "d", card);
        if (text == NULL)
            return -1;
        int r = remember(v, card, text);
        Py_DECREF(text);
        if (r < 0)
            return -1;
    }
    PyErr_SetString(PyExc_RuntimeError, "a vonneumann card's text was not kept");
    return -1;
}

/* ---- the wire ----------------------------------------------------------------- */

/* The request of the current step (VonNeumannDealer._turn). 0, -1 for a
 * step Python plays, -2 with a Python error set. */
static int render(VN *v) {
    VNState *st = &v->st;
    Match *m = v->m;
    if (st->step != S_A_TURN && st->step != S_B_TURN)
        return -1;
    int a = vn_a_seat(m), b = 1 - a;
    int seat = st->step == S_A_TURN ? a : b;
    char card[TEXT_MAX], prev[TEXT_MAX];
    int card_len = card_text(v, m->cards[seat == a ? 0 : 1], card);
    int prev_len = card_len < 0 ? -1 : card_text(v, m->previous[seat], prev);
    if (prev_len < 0)
        return -2;
    int n = snprintf(v->buf, MSG_MAX,
                     "{\"type\":\"%s\",\"match\":%lld,\"session\":%lld,\"game\":%lld,\"match_game\":%lld,"
                     "\"card\":%.*s,\"opponent_previous_card\":%.*s,\"money\":%lld,\"opponent_money\":%lld,"
                     "\"%s\":%lld}\n",
                     seat == a ? "a_turn" : "b_turn", v->match[seat], m->session, m->game, m->match_game, card_len,
                     card, prev_len, prev, m->money[seat], m->money[1 - seat], seat == a ? "max_bet" : "bet",
                     seat == a ? vn_clamp(m, m->max_bet) : m->bet);
    if (n < 0 || n >= MSG_MAX) {
        PyErr_SetString(PyExc_ValueError, "a vonneumann request is longer than MSG_MAX");
        return -2;
    }
    Ex *ex = &v->ex;
    ex->n = 1;
    ex->seat[0] = seat;
    ex->msg[0] = v->buf;
    ex->len[0] = n;
    return 0;
}

/* An integer as JSON writes it plainly: -?(0|[1-9][0-9]{0,17}). */
static int read_int(const char *p, int len, long long *out) {
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
static int between(const char *line, int len, const char *compact, const char *spaced, const char **rest,
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

static int take_reply(void *ctx, int index, const char *line, int len) {
    VN *v = ctx;
    const char *rest;
    int n;
    (void)index;
    if (v->st.step == S_A_TURN)
        return between(line, len, "{\"type\":\"bet\",\"amount\":", "{\"type\": \"bet\", \"amount\": ", &rest, &n) &&
               read_int(rest, n, &v->amount);
    if (v->st.step == S_B_TURN &&
        between(line, len, "{\"type\":\"call\",\"call\":", "{\"type\": \"call\", \"call\": ", &rest, &n)) {
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

/* ---- the loop ------------------------------------------------------------------ */

/* The next game's cards from the dealer's deal (with their texts), or the
 * match's end (VonNeumannDealer._next_game). */
static int next_game(VN *v) {
    if (v->m->phase == VN_OVER) {
        v->st.step = S_END;
        return 0;
    }
    PyObject *deal = PyObject_CallNoArgs(v->deal);
    if (deal == NULL)
        return -1;
    int r = -1;
    if (!PyTuple_Check(deal) || PyTuple_GET_SIZE(deal) != 4) {
        PyErr_SetString(PyExc_ValueError, "a vonneumann deal is (A's card, B's card, their texts)");
    } else {
        double a = PyFloat_AsDouble(PyTuple_GET_ITEM(deal, 0));
        double b = PyFloat_AsDouble(PyTuple_GET_ITEM(deal, 1));
        if (!PyErr_Occurred() && remember(v, a, PyTuple_GET_ITEM(deal, 2)) == 0 &&
            remember(v, b, PyTuple_GET_ITEM(deal, 3)) == 0)
            r = vn_deal(v->m, a, b, NULL, NULL);
    }
    Py_DECREF(deal);
    if (r < 0)
        return -1;
    v->st.step = S_A_TURN;
    return 0;
}

/* The reply was accepted: the engine takes it, and the dialogue moves on
 * (VonNeumannDealer.feed). */
static int advance(VN *v) {
    Match *m = v->m;
    if (v->st.step == S_A_TURN) {
        if (vn_bet(m, v->amount) < 0)
            return -1;
        if (m->phase == VN_B_TO_ACT) {
            v->st.step = S_B_TURN;
            return 0;
        }
    } else if (vn_call(m, v->call) < 0) {
        return -1;
    }
    return next_game(v);
}

/* Is `o` a Match of the engine (a VonNeumannMatch)? The struct is this
 * file's, from the same source: its type is found by name, up the bases. */
static int is_match(PyObject *o) {
    for (PyTypeObject *t = Py_TYPE(o); t != NULL; t = t->tp_base)
        if (strcmp(t->tp_name, VN_TYPE_NAME) == 0)
            return t->tp_basicsize == (Py_ssize_t)sizeof(Match);
    return 0;
}

/* vonneumann_play(state, params, chance, ends, wfds, rfds, time_used, slowest,
 *                 timeout, budget, spin, max_line, trace, budget_messages)
 * -> (stopped_mid, state, written, accepted, lead, time_used, slowest, extra, eof, messages)
 * as kuhn3_play (kuhn3_compiled.c; arena/play/_exchange.py, CompiledLoop).
 * params: each seat's match number (VonNeumannDealer.native_params);
 * chance: (the dealer's VonNeumannMatch, worked on in place; the deal; the
 * text of a card) (VonNeumannDealer.native_chance); `ends` is unused.
 */
static PyObject *vonneumann_play(PyObject *self, PyObject *args) {
    PyObject *state, *params, *chance, *ends, *wfds, *rfds, *tu, *sl, *trace, *match;
    double timeout, budget, spin;
    long max_line, budget_messages;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOdddlOl", &state, &params, &chance, &ends, &wfds, &rfds, &tu, &sl,
                          &timeout, &budget, &spin, &max_line, &trace, &budget_messages))
        return NULL;
    static VN v; /* one call at a time: the driver is not re-entered (and holds the GIL) */
    Io *io = &shared_io;
    double entry = now_s();
    memset(&v, 0, sizeof v);
    if (read_ints(state, (long long *)&v.st, NSTATE, "state") < 0 || read_ints(params, v.match, 2, "params") < 0 ||
        !PyArg_ParseTuple(chance, "OOO", &match, &v.deal, &v.text))
        return NULL;
    if (!is_match(match)) {
        PyErr_SetString(PyExc_TypeError, "vonneumann_play plays on the dealer's VonNeumannMatch");
        return NULL;
    }
    v.m = (Match *)match; /* the dealer holds it */
    int phase = v.st.step == S_A_TURN ? VN_A_TO_ACT : v.st.step == S_B_TURN ? VN_B_TO_ACT : -1;
    if (phase >= 0 && v.m->phase != phase) {
        PyErr_SetString(PyExc_ValueError, "vonneumann_play: the dialogue's step and the match's phase disagree");
        return NULL;
    }
    if (io_open(io, 2, wfds, rfds, tu, sl, timeout, budget, spin, max_line, trace) < 0)
        return NULL;

    long messages = 0;
    int mid = 0;
    PyObject *result = NULL;
    while (messages < budget_messages) {
        int r = render(&v);
        if (r == -2)
            goto done;
        if (r < 0)
            break; /* a step Python plays (match_end) */
        v.ex.limit[0] = limit_for(io, v.ex.seat[0]);
        r = run_exchange(io, &v.ex, take_reply, &v);
        if (r == IO_ERROR)
            goto done;
        if (r == IO_STOPPED) {
            mid = 1;
            break;
        }
        messages += 1;
        if (advance(&v) < 0)
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

static PyMethodDef methods[] = {
    {"vonneumann_play", vonneumann_play, METH_VARARGS,
     "Play vonneumann games over the bots' pipes until something needs Python."},
    {NULL, NULL, 0, NULL},
};

ARENA_MODULE_INIT(methods)
