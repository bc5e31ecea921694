/* kuhn3's compiled dialogue: the exchanges of protocols/kuhn3.py played in
 * C over the bots' pipes for as long as everything is regular, on the very
 * Kuhn3Round the Python dialogue holds.
 *
 * The rules are not copied: this file includes games/kuhn3/_engine.c (the
 * engine, without its Python type), so the round's struct and every rule
 * (legality, applying an action, paying a hand, chance outcomes, reading the
 * parameters) are the engine's own, and the round the dealer holds is worked
 * on in place. What is left here is the wire: rendering the messages,
 * reading the replies, and the loop.
 *
 * The Python dialogue is the reference. This loop only takes the road where
 * nothing needs words: it accepts a reply only in the exact form a
 * well-behaved bot writes and only when the engine finds it legal, and stops
 * at the first thing it does not like, handing the match back mid-exchange
 * (messages written so far, replies accepted so far, bytes read and not
 * accepted, end of file; the round is changed only once a whole exchange is
 * accepted). Python then finishes that exchange its own way, with the same
 * deadlines, and says in words what was wrong: every fault report comes
 * from one place, and this file never invents a verdict.
 *
 * Stops also at: the end of the round (end_round is Python's), a reply not
 * there after the spin budget (trio waits from there, so Ctrl-C and other
 * tasks keep working), a deadline passed, EINTR, and every `budget`
 * messages (the driver's checkpoint).
 *
 * The dialogue's own state (the step, the answers to end_hand) is K3State,
 * which the arena generates from KUHN3_COMPILED.layout in protocols/kuhn3.py
 * (the one place the layout is declared) into "dialogue_state.h". The I/O
 * comes from the arena (protocols/arena_exchange.h); the builder is
 * arena/native.
 */
#define KUHN3_ENGINE_EMBEDDED
#include "../games/kuhn3/_engine.c"
#include "arena_exchange.h"
#include "dialogue_state.h"

#define MSG_MAX 512 /* every kuhn3 message is far shorter; and < PIPE_BUF, so a write is all or nothing */

/* ---- kuhn3 ---------------------------------------------------------------- */

enum { S_INIT_ROUND, S_INIT_HAND, S_PLAY, S_END_HAND, S_END_ACTION, S_END_ROUND, S_DONE };
static const char *ANSWER[] = {"", "OK", "REBUY"};

#define NSTATE K3STATE_INTS

typedef struct {
    K3State st;
    K3Round *r; /* the dealer's round, worked on in place */
    PyObject *deal, *ends;
    Ex ex;
    char buf[3][MSG_MAX];
    char line[3][64]; /* the replies accepted in the exchange in progress */
    int line_len[3];
    long long pend_answers[3]; /* answers of the end_hand exchange in progress */
    int play_verb;
    long long play_amount;
} K3;

/* Three numbers from ``seat``'s point of view, "a,b,c". */
static void k3_local(Out *o, const long long v[3], int seat) {
    out_ll(o, v[seat]);
    OUT(o, ",");
    out_ll(o, v[(seat + 1) % 3]);
    OUT(o, ",");
    out_ll(o, v[(seat + 2) % 3]);
}

static void k3_actions(Out *o, const int verb[3], const long long amt[3], int seat) {
    for (int i = 0; i < 3; i++) {
        int s = (seat + i) % 3;
        OUT(o, "Action: ");
        out_str(o, VERB_NAME[verb[s]]);
        OUT(o, " ");
        out_ll(o, amt[s]);
        OUT(o, "\n");
    }
}

static void k3_end_order(K3 *k, int order[3]) {
    for (int i = 0; i < 3; i++)
        order[i] = (k->r->rlast + i + 1) % 3;
}

/* Render the exchange of the current step into k->ex (the same bytes as
 * Kuhn3Dealer.next_exchange). 0, or -1 for a step this loop does not play. */
static int k3_render(K3 *k) {
    K3State *st = &k->st;
    K3Round *r = k->r;
    Ex *ex = &k->ex;
    for (int i = 0; i < 3; i++)
        ex->msg[i] = k->buf[i];
    if (st->step == S_PLAY) {
        int s = r->to_act;
        Out o = {k->buf[0], 0, MSG_MAX};
        ex->n = 1;
        ex->seat[0] = s;
        OUT(&o, "play\n");
        k3_actions(&o, r->lverb, r->lamt, s);
        ex->len[0] = o.n;
        return o.n <= MSG_MAX ? 0 : -1;
    }
    if (st->step == S_INIT_HAND) {
        ex->n = 3;
        for (int s = 0; s < 3; s++) {
            Out o = {k->buf[s], 0, MSG_MAX};
            ex->seat[s] = s;
            OUT(&o, "init_hand\nHand: ");
            out_ll(&o, r->hand);
            OUT(&o, "\nCards: ");
            out_char(&o, CARD_NAME[r->cards[s]]);
            OUT(&o, "\n");
            ex->len[s] = o.n;
        }
        return 0;
    }
    if (st->step == S_END_HAND || st->step == S_END_ACTION) {
        int order[3];
        k3_end_order(k, order);
        ex->n = 3;
        for (int i = 0; i < 3; i++) {
            int seat = order[i];
            Out o = {k->buf[i], 0, MSG_MAX};
            ex->seat[i] = seat;
            if (st->step == S_END_ACTION) {
                for (int j = 0; j < 3; j++) {
                    OUT(&o, "EndAction: ");
                    out_str(&o, ANSWER[st->answers[(seat + j) % 3]]);
                    OUT(&o, "\n");
                }
                ex->len[i] = o.n;
                continue;
            }
            int verb[3];
            long long amt[3];
            for (int j = 0; j < 3; j++) {
                verb[j] = r->rverb[j];
                amt[j] = r->ramt[j];
            }
            /* seats whose turn never came, up to this receiver, show PASS */
            for (int s = (r->rlast + 1) % 3; s != seat; s = (s + 1) % 3) {
                verb[s] = V_PASS;
                amt[s] = r->rfront[s];
            }
            OUT(&o, "end_hand\n");
            k3_actions(&o, verb, amt, seat);
            OUT(&o, "Showdown: ");
            for (int j = 0; j < 3; j++) {
                int c = r->rshown[(seat + j) % 3];
                if (j)
                    OUT(&o, ",");
                out_char(&o, c >= 0 ? CARD_NAME[c] : '-');
            }
            OUT(&o, "\nPots: ");
            out_ll(&o, r->pot);
            OUT(&o, ",");
            out_ll(&o, (r->winner - seat + 3) % 3);
            OUT(&o, "\n");
            ex->len[i] = o.n;
            if (o.n > MSG_MAX)
                return -1;
        }
        return 0;
    }
    return -1;
}

/* Parse a canonical non-negative amount: 1..18 digits, no leading zero. */
static int k3_amount(const char *p, int len, long long *out) {
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

/* Is this reply one the loop may take as it is (well-formed and legal)? */
static int k3_accept_line(K3 *k, int index, const char *line, int len);

static int k3_accept(void *ctx, int index, const char *line, int len) {
    K3 *k = ctx;
    if (len >= 64 || !k3_accept_line(k, index, line, len))
        return 0;
    memcpy(k->line[index], line, (size_t)len);
    k->line_len[index] = len;
    return 1;
}

static int k3_accept_line(K3 *k, int index, const char *line, int len) {
    K3State *st = &k->st;
    switch (st->step) {
    case S_PLAY: {
        long long amount;
        int verb;
        if (len > 4 && memcmp(line, "BET ", 4) == 0 && k3_amount(line + 4, len - 4, &amount))
            verb = V_BET;
        else if (len > 5 && memcmp(line, "FOLD ", 5) == 0 && k3_amount(line + 5, len - 5, &amount))
            verb = V_FOLD;
        else
            return 0;
        if (k3_check(k->r, k->r->to_act, verb, amount) != K3_LEGAL) /* the engine's rule; the words are Python's */
            return 0;
        k->play_verb = verb;
        k->play_amount = amount;
        return 1;
    }
    case S_INIT_HAND:
        return len == 5 && memcmp(line, "READY", 5) == 0;
    case S_END_HAND:
        if (len == 2 && memcmp(line, "OK", 2) == 0) {
            k->pend_answers[k->ex.seat[index]] = 1;
            return 1;
        }
        if (len == 5 && memcmp(line, "REBUY", 5) == 0) {
            k->pend_answers[k->ex.seat[index]] = 2;
            return 1;
        }
        return 0;
    case S_END_ACTION: {
        char want[96];
        Out o = {want, 0, (int)sizeof want};
        OUT(&o, "Money: ");
        k3_local(&o, k->r->money, k->ex.seat[index]);
        return o.n <= (int)sizeof want && len == o.n && memcmp(line, want, (size_t)o.n) == 0;
    }
    }
    return 0;
}

/* Chance, drawn by the dealer's own seeded chance (SeededChance.deal and
 * .ends, in the order the Python dialogue draws) and applied by the engine. */
static int k3_draw(K3 *k, PyObject *outcome) {
    if (outcome == NULL)
        return -1;
    int r = k3_chance(k->r, outcome);
    Py_DECREF(outcome);
    return r;
}

/* The replies of the whole exchange were accepted: move the round and the
 * dialogue on. */
static int k3_advance(K3 *k) {
    K3State *st = &k->st;
    K3Round *r = k->r;
    switch (st->step) {
    case S_PLAY:
        k3_act(r, k->play_verb, k->play_amount);
        if (r->phase != P_BETTING)
            st->step = S_END_HAND;
        return 0;
    case S_INIT_HAND:
        st->step = S_PLAY;
        return 0;
    case S_END_HAND:
        for (int s = 0; s < 3; s++)
            st->answers[s] = k->pend_answers[s];
        st->step = S_END_ACTION;
        return 0;
    case S_END_ACTION:
        if (r->phase == P_CONTINUE && k3_draw(k, PyObject_CallFunction(k->ends, "LL", r->p.end_a, r->p.end_b)) < 0)
            return -1;
        if (r->phase == P_OVER) {
            st->step = S_END_ROUND;
            return 0;
        }
        if (k3_draw(k, PyObject_CallNoArgs(k->deal)) < 0)
            return -1;
        st->step = S_INIT_HAND;
        return 0;
    }
    return 0;
}

/* Is ``o`` a round of the engine (a Kuhn3Round)? Its type object is the
 * engine module's, so it is known by name and size. */
static int is_round(PyObject *o) {
    for (PyTypeObject *t = Py_TYPE(o); t != NULL; t = t->tp_base)
        if (strcmp(t->tp_name, "games.kuhn3.Round") == 0)
            return t->tp_basicsize == (Py_ssize_t)sizeof(K3Round);
    return 0;
}

static PyObject *pair3(const double v[3]) {
    return Py_BuildValue("(ddd)", v[0], v[1], v[2]);
}

/* kuhn3_play(state, params, round, chance, wfds, rfds, time_used, slowest,
 *            timeout, budget, spin, max_line, trace, budget_messages)
 * -> (stopped_mid, state, written, accepted, lead, time_used, slowest, extra, eof, messages)
 * (Kuhn3Dealer.native_params, .native_chance: the dealer's Kuhn3Round,
 * worked on in place, and its SeededChance.)
 * lead: seconds from this call's start to the first write of the exchange
 * it stopped in (the caller places it on its own clock from a reading taken
 * before the call, so a seat's clock never starts late).
 */
static PyObject *kuhn3_play(PyObject *self, PyObject *args) {
    PyObject *state, *params, *round, *chance, *wfds, *rfds, *tu, *sl, *trace;
    double timeout, budget, spin;
    long max_line, budget_messages;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOdddlOl", &state, &params, &round, &chance, &wfds, &rfds, &tu, &sl,
                          &timeout, &budget, &spin, &max_line, &trace, &budget_messages))
        return NULL;
    static K3 k; /* one call at a time: the driver is not re-entered (and holds the GIL) */
    Io *io = &shared_io;
    double entry = now_s();
    memset(&k, 0, sizeof k);
    if (!is_round(round)) {
        PyErr_SetString(PyExc_TypeError, "kuhn3_play: the round is a games.kuhn3.Kuhn3Round");
        return NULL;
    }
    k.r = (K3Round *)round;
    K3Params p; /* read as the engine reads them: they must be the round's own */
    if (read_ints(state, (long long *)&k.st, NSTATE, "state") < 0 || k3_params_read(params, &p) < 0)
        return NULL;
    if (memcmp(&p, &k.r->p, sizeof p) != 0) {
        PyErr_SetString(PyExc_ValueError, "kuhn3_play: the parameters are not the round's");
        return NULL;
    }
    if (io_open(io, 3, wfds, rfds, tu, sl, timeout, budget, spin, max_line, trace) < 0)
        return NULL;
    PyObject *result = NULL;
    k.deal = PyObject_GetAttrString(chance, "deal");
    k.ends = k.deal != NULL ? PyObject_GetAttrString(chance, "ends") : NULL;
    if (k.ends == NULL)
        goto done;

    long messages = 0;
    int mid = 0;
    while (messages < budget_messages) {
        if (k3_render(&k) < 0)
            break; /* a step Python plays (end_round) */
        for (int i = 0; i < k.ex.n; i++)
            k.ex.limit[i] = limit_for(io, k.ex.seat[i]);
        int r = run_exchange(io, &k.ex, k3_accept, &k);
        if (r == IO_ERROR)
            goto done;
        if (r == IO_STOPPED) {
            mid = 1;
            break;
        }
        messages += k.ex.n;
        if (k3_advance(&k) < 0)
            goto done;
    }
    {
        PyObject *accepted;
        double lead = 0.0;
        if (mid) {
            accepted = PyTuple_New(k.ex.n);
            if (accepted == NULL)
                goto done;
            for (int i = 0; i < k.ex.n; i++) {
                PyObject *x;
                if (i < k.ex.written && k.ex.got[i]) {
                    x = PyUnicode_DecodeASCII(k.line[i], k.line_len[i], "strict");
                    if (x == NULL) {
                        Py_DECREF(accepted);
                        goto done;
                    }
                } else {
                    x = Py_NewRef(Py_None);
                }
                PyTuple_SET_ITEM(accepted, i, x);
            }
            if (k.ex.written > 0)
                lead = k.ex.sent_at[0] - entry;
        } else {
            accepted = PyTuple_New(0);
            if (accepted == NULL)
                goto done;
        }
        PyObject *extra = PyTuple_New(3);
        if (extra == NULL) {
            Py_DECREF(accepted);
            goto done;
        }
        for (int s = 0; s < 3; s++) {
            PyObject *x = io->extra[s] != NULL ? io->extra[s] : Py_NewRef(Py_None);
            io->extra[s] = NULL;
            PyTuple_SET_ITEM(extra, s, x);
        }
        PyObject *st = ints_tuple((long long *)&k.st, NSTATE);
        PyObject *tup = pair3(io->time_used), *slp = pair3(io->slowest);
        if (st != NULL && tup != NULL && slp != NULL)
            result = Py_BuildValue("(iOiOdOOO(iii)l)", mid, st, k.ex.written * mid, accepted, lead, tup, slp,
                                   extra, io->eof[0], io->eof[1], io->eof[2], messages);
        Py_XDECREF(st);
        Py_XDECREF(tup);
        Py_XDECREF(slp);
        Py_DECREF(accepted);
        Py_DECREF(extra);
    }
done:
    for (int s = 0; s < 3; s++)
        Py_CLEAR(io->extra[s]);
    Py_CLEAR(k.deal);
    Py_CLEAR(k.ends);
    return result;
}

static PyMethodDef methods[] = {
    {"kuhn3_play", kuhn3_play, METH_VARARGS,
     "Play kuhn3 exchanges over the bots' pipes until something needs Python."},
    {NULL, NULL, 0, NULL},
};

ARENA_MODULE_INIT(methods)
