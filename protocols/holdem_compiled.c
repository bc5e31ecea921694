/* hold'em's compiled dialogue: cash hands played in C over the bots' pipes
 * (act -> action, the action and street notices to every seat), on the
 * very HoldemHand the Python dialogue holds.
 *
 * The rules are not copied: this file includes games/holdem/_engine.c (the
 * engine, without its module), so the Hand struct and every rule are the
 * engine's own, and the object the dealer holds is worked on in place.
 * Between hands the loop drives the Python dialogue's own steps
 * (HoldemDealer.next_exchange and feed: hand_end, the next deal from the
 * match's chance, hand_start) and holds what they say for each seat, so no
 * message is rendered here that Python renders too, but act, action and
 * street.
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

enum { S_HAND_START_ = 1, S_BOARD = 2, S_ASK = 3, S_NOTICE = 5, S_HAND_END = 6 }; /* protocols.holdem.Step */
static const char *STREET_NAME[] = {"preflop", "flop", "turn", "river"};
static const char RANK[] = "23456789TJQKA", SUIT[] = "cdhs";

typedef struct {
    HLState st;
    Hand *h;
    int n;
    Ex ex;
    char msg[MSG_MAX];
    char held[MAXSEATS][HOLD_CAP + 1];
    int held_len[MAXSEATS];
    int action;
    long long to;
    char line[256]; /* the reply accepted */
    int line_len;
} HL;

typedef struct {
    char *p;
    int n, cap;
} Buf;

static void put(Buf *b, const char *fmt, ...) {
    va_list va;
    va_start(va, fmt);
    int w = vsnprintf(b->p + b->n, (size_t)(b->cap > b->n ? b->cap - b->n : 0), fmt, va);
    va_end(va);
    b->n += w;
}

static void put_cards(Buf *b, const int *cards, int n) {
    put(b, "[");
    for (int i = 0; i < n; i++)
        put(b, "%s\"%c%c\"", i ? "," : "", RANK[cards[i] >> 2], SUIT[cards[i] & 3]);
    put(b, "]");
}

static void put_lls(Buf *b, const long long *v, int n) {
    put(b, "[");
    for (int i = 0; i < n; i++)
        put(b, "%s%lld", i ? "," : "", v[i]);
    put(b, "]");
}

/* The act request (HoldemDealer._ask), byte for byte as orjson writes it. */
static int render_act(HL *x, int seat, char *out, int cap) {
    Hand *h = x->h;
    Buf b = {out, 0, cap};
    long long stack = h->stack[seat], bet_s = h->bet[seat], to_call = h->max_bet - bet_s;
    put(&b, "{\"type\":\"act\",\"hand\":%lld,\"street\":\"%s\",\"seat\":%d,\"cards\":", x->st.hand,
        STREET_NAME[h->street], seat);
    put_cards(&b, h->hole[seat], 2);
    put(&b, ",\"board\":");
    put_cards(&b, h->board, h->nboard);
    put(&b, ",\"stacks\":");
    put_lls(&b, h->stack, h->n);
    put(&b, ",\"bets\":");
    put_lls(&b, h->bet, h->n);
    put(&b, ",\"pot\":%lld,\"to_call\":%lld,\"button\":%d,\"small_blind_seat\":%d,\"big_blind_seat\":%d,"
            "\"small_blind\":%lld,\"big_blind\":%lld,\"in_hand\":[",
        h->pot, to_call, h->button, h->sb_seat, h->bb_seat, h->small_blind, h->big_blind);
    for (int s = 0, first = 1; s < h->n; s++)
        if (!h->folded[s] && index_in_order(h, s) >= 0) {
            put(&b, "%s%d", first ? "" : ",", s);
            first = 0;
        }
    put(&b, "],\"last_action\":{\"seat\":%d,\"action\":\"%s\",\"amount\":%lld},\"legal\":", h->last_seat,
        ACTION[h->last_action], h->last_put);
    /* Hand_legal's answer */
    if (raise_refusal(h, seat, to_call) == NULL) {
        long long top = stack + bet_s;
        long long low = (h->raise_size > h->big_blind ? h->raise_size : h->big_blind) + h->max_bet;
        put(&b, "%s,\"min_raise_to\":%lld,\"max_raise_to\":%lld}\n",
            to_call ? "[\"fold\",\"call\",\"raise\",\"allin\"]" : "[\"call\",\"raise\",\"allin\"]", low < top ? low : top,
            top);
    } else if (stack <= to_call) {
        put(&b, "[\"fold\",\"call\",\"allin\"],\"min_raise_to\":null,\"max_raise_to\":null}\n");
    } else {
        put(&b, "%s,\"min_raise_to\":null,\"max_raise_to\":null}\n", to_call ? "[\"fold\",\"call\"]" : "[\"call\"]");
    }
    return b.n < cap ? b.n : -1;
}

/* The notice of the last action and of the streets it dealt (HoldemDealer._notice). */
static int render_notice(HL *x, char *out, int cap) {
    Hand *h = x->h;
    Buf b = {out, 0, cap};
    put(&b, "{\"type\":\"action\",\"hand\":%lld,\"seat\":%d,\"action\":\"%s\",\"amount\":%lld,\"bet\":%lld,"
            "\"stack\":%lld,\"pot\":%lld,\"all_in\":%s}\n",
        x->st.hand, h->last_seat, ACTION[h->last_action], h->last_put, h->after_bet, h->after_stack, h->pot,
        h->after_stack == 0 && h->last_action != A_FOLD ? "true" : "false");
    for (int size = 3; size <= 5; size++)
        if (x->st.shown < size && size <= h->nboard) {
            put(&b, "{\"type\":\"street\",\"hand\":%lld,\"street\":\"%s\",\"board\":", x->st.hand,
                STREET_NAME[size - 2]);
            put_cards(&b, h->board, size);
            put(&b, ",\"pot\":%lld}\n", h->pot);
        }
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

/* The notice to every seat of the hand, held for each: the messages it
 * counts (a seat, a message), or -1: hand back before it; -2: an error. */
static int hold_notice(HL *x, Io *io) {
    Hand *h = x->h;
    char notice[MSG_MAX];
    int n = render_notice(x, notice, sizeof notice);
    if (n < 0)
        return -1;
    for (int s = 0; s < h->n; s++) {
        if (index_in_order(h, s) < 0)
            continue;
        struct pollfd p = {io->wfd[s], 0, 0};
        if (x->held_len[s] + n > HOLD_CAP || poll(&p, 1, 0) != 0)
            return -1; /* Python writes it now (BotProcess.hold) */
    }
    int streets = 0, seats = 0;
    for (int size = 3; size <= 5; size++)
        streets += x->st.shown < size && size <= h->nboard;
    for (int s = 0; s < h->n; s++) { /* sorted(hand.order): every seat dealt in, in seat order */
        if (index_in_order(h, s) < 0)
            continue;
        memcpy(x->held[s] + x->held_len[s], notice, (size_t)n);
        x->held_len[s] += n;
        seats++;
        if (trace_text(io, s, "->", notice, n) < 0)
            return -2;
    }
    x->st.shown = h->nboard;
    return seats * (1 + streets);
}

/* Between two hands, the Python dialogue's own steps, driven from here:
 * hand_end, the next deal and its hand_start (and the streets of a hand
 * nobody can act in) are rendered and moved on by the dealer
 * (next_exchange, feed), and each is held for every seat here, as
 * Table.replies holds a notification (joined per seat, BotProcess.hold's
 * rules); one that would not be held for every seat is left to Python, the
 * dealer standing before it. Then the dealer's state is read back (a new
 * hand: x->h). The messages counted, or -1 with an error set. */
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
        if (step != S_HAND_START_ && step != S_BOARD && step != S_HAND_END)
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
 *             timeout, budget, spin, max_line, trace, budget_messages)
 * `unused`: each seat's notices held so far (bytes), the loop's from now on;
 * -> as kuhn3_play, and an 11th item: each seat's notices still held (bytes).
 * params: (seats,). `hand` is the HoldemHand the dealer holds, worked on in place.
 */
static PyObject *holdem_play(PyObject *self, PyObject *args) {
    PyObject *state, *params, *hand, *unused /* held */, *wfds, *rfds, *tu, *sl, *trace;
    double timeout, budget, spin;
    long max_line, budget_messages;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOdddlOl", &state, &params, &hand, &unused, &wfds, &rfds, &tu, &sl,
                          &timeout, &budget, &spin, &max_line, &trace, &budget_messages))
        return NULL;
    static HL x; /* one call at a time (the driver holds the GIL) */
    Io *io = &shared_io;
    double entry = now_s();
    memset(&x, 0, sizeof x);
    long long p[1];
    if (read_ints(state, (long long *)&x.st, NSTATE, "state") < 0 || read_ints(params, p, 1, "params") < 0)
        return NULL;
    x.n = (int)p[0];
    PyObject *dealer;
    if (!PyArg_ParseTuple(hand, "OO", &hand, &dealer))
        return NULL;
    x.h = (Hand *)hand; /* a HoldemHand: the engine's struct (one source, _engine.c) */
    if (x.n < 2 || x.n > MAXSEATS || x.h->n != x.n) {
        PyErr_SetString(PyExc_ValueError, "holdem_play: the hand and the seats do not match");
        return NULL;
    }
    if (io_open(io, x.n, wfds, rfds, tu, sl, timeout, budget, spin, max_line, trace) < 0)
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
            int b = between_hands(&x, io, dealer);
            if (b < 0)
                goto done;
            messages += b;
            if (x.st.step != S_ASK)
                break;
            continue;
        }
        x.st.asked = x.h->actors[0];
    }
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
    for (int s = 0; s < x.n; s++)
        Py_CLEAR(io->extra[s]);
    return result;
}

static PyMethodDef methods[] = {
    {"holdem_play", holdem_play, METH_VARARGS, "Play hold'em betting over the bots' pipes until something needs Python."},
    {NULL, NULL, 0, NULL},
};

ARENA_MODULE_INIT(methods)
