/* The arena's hot loop in C: pipe I/O for one exchange, and the kuhn3
 * dialogue played over it for as long as everything is regular.
 *
 * The Python dialogue (protocols/kuhn3.py) is the reference. This loop only
 * takes the road where nothing needs words: it accepts a reply only in the
 * exact form a well-behaved bot writes and only when it is legal, and stops
 * at the first thing it does not like, handing the match back to Python
 * mid-exchange: messages written so far, replies accepted so far, bytes it
 * read and did not accept (they go to the bot's line buffer), end of file.
 * Python then finishes that exchange its own way, with the same deadlines,
 * and says in words what was wrong. So every fault report comes from one
 * place, and this file never invents a verdict.
 *
 * Stops also at: the end of the round (end_round is Python's), a reply not
 * there after the spin budget (trio waits from there, so Ctrl-C and other
 * tasks keep working), a deadline passed, EINTR, and every `budget`
 * messages (the driver's checkpoint).
 *
 * Built by arena/native/__init__.py into the private cache; without a
 * compiler the arena runs the pure-Python path, which gives the same
 * transcripts (tests/test_native.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SEATS 3
#define MSG_MAX 512 /* every kuhn3 message is far shorter; and < PIPE_BUF, so a write is all or nothing */
#define READ_MAX 65536
#define MAXS_IO 16 /* Io is indexed by seat: the most seats a game has */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- per-seat I/O state ------------------------------------------------- */

typedef struct {
    int wfd[MAXS_IO], rfd[MAXS_IO];
    double time_used[MAXS_IO], slowest[MAXS_IO];
    double timeout, budget; /* budget < 0: none */
    double spin;            /* seconds a reply is waited for here before returning */
    long max_line;
    PyObject *trace;        /* callable or NULL (the caller traces) */
    PyObject *extra[MAXS_IO]; /* bytes read and not accepted, or NULL */
    int eof[MAXS_IO];
    char rbuf[READ_MAX];
} Io;

static double limit_for(Io *io, int seat) {
    /* Limits.for_bot after start-up (the loop runs only once every bot replied) */
    if (io->budget >= 0 && io->budget - io->time_used[seat] < io->timeout) {
        double left = io->budget - io->time_used[seat];
        return left > 0 ? left : 0.0;
    }
    return io->timeout;
}

static int trace_text(Io *io, int seat, const char *dir, const char *text, Py_ssize_t len) {
    if (io->trace == NULL)
        return 0;
    PyObject *s = PyUnicode_DecodeUTF8(text, len, "strict");
    if (s == NULL)
        return -1;
    PyObject *r = PyObject_CallFunction(io->trace, "isO", seat, dir, s);
    Py_DECREF(s);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

static int keep_extra(Io *io, int seat, const char *data, Py_ssize_t len) {
    PyObject *b = PyBytes_FromStringAndSize(data, len);
    if (b == NULL)
        return -1;
    Py_XSETREF(io->extra[seat], b);
    return 0;
}

/* One exchange's sends, and what became of them. */
#define MAXS 16 /* seats in one exchange (holdem has at most 10) */
typedef struct {
    int n;
    int seat[MAXS];
    const char *msg[MAXS];
    int len[MAXS];
    double limit[MAXS];   /* each seat's time for its reply, from its write */
    double sent_at[MAXS];
    int written;          /* messages written so far */
    int got[MAXS];        /* reply accepted */
    double took[MAXS];
} Ex;

typedef int (*Accept)(void *ctx, int index, const char *line, int len);

enum { IO_DONE = 0, IO_STOPPED = 1, IO_ERROR = -1 };

/* Write every message, then wait for every reply within the spin budget and
 * each seat's deadline. IO_DONE: all replies accepted. IO_STOPPED: handed
 * back as it stands. IO_ERROR: a Python exception is set. */
static int run_exchange(Io *io, Ex *ex, Accept accept, void *ctx) {
    ex->written = 0;
    for (int i = 0; i < ex->n; i++)
        ex->got[i] = 0; /* before any write: a stop there reports nothing accepted */
    for (int i = 0; i < ex->n; i++) {
        int s = ex->seat[i];
        if (ex->len[i] > PIPE_BUF)
            return IO_STOPPED; /* only a write of up to PIPE_BUF bytes is all or nothing */
        /* The clock starts before the write, as on the Python path: once the
         * write is in, the bot may run at once, and the arena may be preempted
         * before it could read the time again. */
        ex->sent_at[i] = now_s();
        ssize_t w = write(io->wfd[s], ex->msg[i], (size_t)ex->len[i]);
        if (w != ex->len[i])
            return IO_STOPPED; /* pipe full or gone: Python queues it or reports it */
        ex->written = i + 1;
        if (trace_text(io, s, "->", ex->msg[i], ex->len[i]) < 0)
            return IO_ERROR;
    }
    int left = ex->n;
    double spin_end = now_s() + io->spin;
    /* Poll first: a reply is rarely there the moment its message went out
     * (on one core the bot has not even run), so a read would only fail. */
    for (;;) {
        double t = now_s();
        double wait = spin_end - t;
        struct pollfd fds[MAXS];
        int at[MAXS];
        int nf = 0;
        for (int i = 0; i < ex->n; i++) {
            if (ex->got[i])
                continue;
            double until = ex->sent_at[i] + ex->limit[i] - t;
            if (until <= 0)
                return IO_STOPPED; /* overdue: Python raises the timeout */
            if (until < wait)
                wait = until;
            fds[nf].fd = io->rfd[ex->seat[i]];
            fds[nf].events = POLLIN;
            fds[nf].revents = 0;
            at[nf] = i;
            nf++;
        }
        struct timespec ts;
        if (wait < 0)
            wait = 0;
        ts.tv_sec = (time_t)wait;
        ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
        int p = ppoll(fds, (nfds_t)nf, &ts, NULL);
        if (p < 0)
            return IO_STOPPED; /* EINTR: let Python see the signal */
        if (p == 0)
            return IO_STOPPED; /* not ready in time: trio waits from here */
        for (int f = 0; f < nf; f++) {
            if (fds[f].revents == 0)
                continue;
            int i = at[f];
            int s = ex->seat[i];
            ssize_t r = read(io->rfd[s], io->rbuf, READ_MAX);
            if (r < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK)
                    continue;
                return IO_STOPPED;
            }
            if (r == 0) {
                io->eof[s] = 1;
                return IO_STOPPED;
            }
            double took = now_s() - ex->sent_at[i];
            char *nl = memchr(io->rbuf, '\n', (size_t)r);
            int one_line = nl == io->rbuf + r - 1 && r - 1 <= io->max_line;
            if (!one_line || !accept(ctx, i, io->rbuf, (int)(r - 1))) {
                if (keep_extra(io, s, io->rbuf, r) < 0)
                    return IO_ERROR;
                return IO_STOPPED;
            }
            io->time_used[s] += took;
            if (took > io->slowest[s])
                io->slowest[s] = took;
            ex->took[i] = took;
            ex->got[i] = 1;
            left--;
            if (trace_text(io, s, "<-", io->rbuf, r - 1) < 0)
                return IO_ERROR;
        }
        if (left == 0)
            return IO_DONE;
    }
}

static Io shared_io; /* its read buffer is large: one, used by one call at a time */

/* ---- kuhn3 ---------------------------------------------------------------- */

enum { S_INIT_ROUND, S_INIT_HAND, S_PLAY, S_END_HAND, S_END_ACTION, S_END_ROUND, S_DONE };
enum { P_BUTTON, P_DEAL, P_BETTING, P_CONTINUE, P_OVER };
enum { V_BLIND, V_BET, V_FOLD, V_PASS };
static const char *VERB[] = {"BLIND", "BET", "FOLD", "PASS"};
static const char CARD[] = {'J', 'Q', 'K', 'A'};
static const char *ANSWER[] = {"", "OK", "REBUY"};

#define NSTATE 50

typedef struct {
    long long step, phase, hand, hands_played, button, first_button;
    long long money[3], cards[3], in_front[3], price, folded[3];
    long long lverb[3], lamt[3], to_act, last_actor, npending, pending[3], answers[3];
    long long has_result, rverb[3], ramt[3], rfront[3], rlast, rshown[3], pot, winner;
} K3State; /* the field order is protocols/kuhn3.py's native_state, 50 integers */

typedef struct {
    K3State st;
    long long antes[3], max_bet, hands, end_a, end_b;
    PyObject *deal, *ends;
    Ex ex;
    char buf[3][MSG_MAX];
    char line[3][64]; /* the replies accepted in the exchange in progress */
    int line_len[3];
    long long pend_answers[3]; /* answers of the end_hand exchange in progress */
    long long play_verb, play_amount;
} K3;

static int k3_local(char *out, int cap, const long long v[3], int seat) {
    return snprintf(out, (size_t)cap, "%lld,%lld,%lld", v[seat], v[(seat + 1) % 3], v[(seat + 2) % 3]);
}

static int k3_actions(char *out, int cap, const long long verb[3], const long long amt[3], int seat) {
    int n = 0;
    for (int i = 0; i < 3; i++) {
        int s = (seat + i) % 3;
        n += snprintf(out + n, (size_t)(cap - n), "Action: %s %lld\n", VERB[verb[s]], amt[s]);
    }
    return n;
}

static void k3_end_order(K3 *k, int order[3]) {
    for (int i = 0; i < 3; i++)
        order[i] = (int)((k->st.rlast + i + 1) % 3);
}

/* Render the exchange of the current step into k->ex (the same bytes as
 * Kuhn3Dealer.next_exchange). 0, or -1 for a step this loop does not play. */
static int k3_render(K3 *k) {
    K3State *st = &k->st;
    Ex *ex = &k->ex;
    for (int i = 0; i < 3; i++)
        ex->msg[i] = k->buf[i];
    if (st->step == S_PLAY) {
        int s = (int)st->to_act;
        ex->n = 1;
        ex->seat[0] = s;
        int n = snprintf(k->buf[0], MSG_MAX, "play\n");
        n += k3_actions(k->buf[0] + n, MSG_MAX - n, st->lverb, st->lamt, s);
        ex->len[0] = n;
        return 0;
    }
    if (st->step == S_INIT_HAND) {
        ex->n = 3;
        for (int s = 0; s < 3; s++) {
            ex->seat[s] = s;
            ex->len[s] = snprintf(k->buf[s], MSG_MAX, "init_hand\nHand: %lld\nCards: %c\n", st->hand,
                                  CARD[st->cards[s]]);
        }
        return 0;
    }
    if (st->step == S_END_HAND || st->step == S_END_ACTION) {
        int order[3];
        k3_end_order(k, order);
        ex->n = 3;
        for (int i = 0; i < 3; i++) {
            int seat = order[i];
            char *m = k->buf[i];
            int n = 0;
            ex->seat[i] = seat;
            if (st->step == S_END_ACTION) {
                for (int j = 0; j < 3; j++)
                    n += snprintf(m + n, (size_t)(MSG_MAX - n), "EndAction: %s\n",
                                  ANSWER[st->answers[(seat + j) % 3]]);
                ex->len[i] = n;
                continue;
            }
            long long verb[3], amt[3];
            for (int j = 0; j < 3; j++) {
                verb[j] = st->rverb[j];
                amt[j] = st->ramt[j];
            }
            /* seats whose turn never came, up to this receiver, show PASS */
            for (int s = (int)((st->rlast + 1) % 3); s != seat; s = (s + 1) % 3) {
                verb[s] = V_PASS;
                amt[s] = st->rfront[s];
            }
            n += snprintf(m + n, (size_t)(MSG_MAX - n), "end_hand\n");
            n += k3_actions(m + n, MSG_MAX - n, verb, amt, seat);
            n += snprintf(m + n, (size_t)(MSG_MAX - n), "Showdown: ");
            for (int j = 0; j < 3; j++) {
                long long c = st->rshown[(seat + j) % 3];
                n += snprintf(m + n, (size_t)(MSG_MAX - n), "%s%c", j ? "," : "", c >= 0 ? CARD[c] : '-');
            }
            n += snprintf(m + n, (size_t)(MSG_MAX - n), "\nPots: %lld,%lld\n", st->pot,
                          (st->winner - seat + 3) % 3);
            ex->len[i] = n;
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
        long long amount, verb;
        if (len > 4 && memcmp(line, "BET ", 4) == 0 && k3_amount(line + 4, len - 4, &amount))
            verb = V_BET;
        else if (len > 5 && memcmp(line, "FOLD ", 5) == 0 && k3_amount(line + 5, len - 5, &amount))
            verb = V_FOLD;
        else
            return 0;
        int s = (int)st->to_act;
        long long mine = st->in_front[s], price = st->price, top = k->max_bet;
        int legal = verb == V_BET ? (amount == price || (amount == top && price < top))
                                  : (amount == mine && mine != price);
        if (!legal)
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
        int n = snprintf(want, sizeof want, "Money: ");
        n += k3_local(want + n, (int)sizeof want - n, st->money, k->ex.seat[index]);
        return len == n && memcmp(line, want, (size_t)n) == 0;
    }
    }
    return 0;
}

static void k3_finish_hand(K3 *k) {
    K3State *st = &k->st;
    int first = (int)((st->button + 1) % 3);
    int live[3], nlive = 0;
    for (int i = 0; i < 3; i++) {
        int s = (first + i) % 3;
        if (!st->folded[s])
            live[nlive++] = s;
    }
    for (int s = 0; s < 3; s++)
        st->rshown[s] = -1;
    int winner = live[0];
    if (nlive > 1) {
        /* automatic mucking: a card is shown only if it beats all shown before it */
        long long best = -1;
        for (int i = 0; i < nlive; i++) {
            int s = live[i];
            if (st->cards[s] > best) {
                best = st->cards[s];
                st->rshown[s] = st->cards[s];
                winner = s;
            }
        }
    }
    long long pot = st->in_front[0] + st->in_front[1] + st->in_front[2];
    for (int s = 0; s < 3; s++) {
        st->money[s] -= st->in_front[s];
        st->rverb[s] = st->lverb[s];
        st->ramt[s] = st->lamt[s];
        st->rfront[s] = st->in_front[s];
    }
    st->money[winner] += pot;
    st->has_result = 1;
    st->rlast = st->last_actor;
    st->pot = pot;
    st->winner = winner;
    st->hands_played++;
    st->to_act = -1;
    if (k->hands >= 0)
        st->phase = st->hands_played >= k->hands ? P_OVER : P_DEAL;
    else
        st->phase = P_CONTINUE;
}

static void k3_apply_action(K3 *k) {
    K3State *st = &k->st;
    int seat = (int)st->to_act;
    long long verb = k->play_verb, amount = k->play_amount;
    int raises = verb == V_BET && amount > st->price;
    if (verb == V_FOLD)
        st->folded[seat] = 1;
    st->in_front[seat] = amount;
    st->lverb[seat] = verb;
    st->lamt[seat] = amount;
    st->last_actor = seat;
    if (raises) {
        st->price = amount;
        /* a bet reopens the action for every other live seat, clockwise */
        st->npending = 0;
        for (int j = 1; j < 3; j++) {
            int s = (seat + j) % 3;
            if (!st->folded[s])
                st->pending[st->npending++] = s;
        }
    } else {
        int w = 0;
        int removed = 0;
        for (int i = 0; i < st->npending; i++) {
            if (!removed && st->pending[i] == seat) {
                removed = 1;
                continue;
            }
            st->pending[w++] = st->pending[i];
        }
        st->npending = w;
    }
    for (int i = (int)st->npending; i < 3; i++)
        st->pending[i] = -1;
    int live = !st->folded[0] + !st->folded[1] + !st->folded[2];
    if (live == 1 || st->npending == 0)
        k3_finish_hand(k);
    else
        st->to_act = st->pending[0];
}

/* The deal, from the dealer's own seeded chance (SeededChance.deal). */
static int k3_deal(K3 *k) {
    K3State *st = &k->st;
    PyObject *deal = PyObject_CallNoArgs(k->deal);
    if (deal == NULL)
        return -1;
    long long cards[3];
    if (!PyTuple_Check(deal) || PyTuple_GET_SIZE(deal) != 3) {
        Py_DECREF(deal);
        PyErr_SetString(PyExc_ValueError, "a kuhn3 deal is a tuple of three cards");
        return -1;
    }
    for (int s = 0; s < 3; s++) {
        const char *c = PyUnicode_AsUTF8(PyTuple_GET_ITEM(deal, s));
        cards[s] = -1;
        for (int r = 0; c != NULL && r < 4; r++)
            if (c[0] == CARD[r] && c[1] == 0)
                cards[s] = r;
        if (cards[s] < 0) {
            Py_DECREF(deal);
            PyErr_SetString(PyExc_ValueError, "a kuhn3 deal names the cards J, Q, K, A");
            return -1;
        }
    }
    Py_DECREF(deal);
    st->hand++;
    st->button = (st->button + 1) % 3;
    long long price = 0;
    for (int s = 0; s < 3; s++) {
        st->cards[s] = cards[s];
        st->in_front[s] = k->antes[s];
        st->folded[s] = 0;
        st->lverb[s] = V_BLIND;
        st->lamt[s] = k->antes[s];
        if (k->antes[s] > price)
            price = k->antes[s];
    }
    st->price = price;
    int first = (int)((st->button + 1) % 3);
    st->npending = 3;
    for (int i = 0; i < 3; i++)
        st->pending[i] = (first + i) % 3;
    st->to_act = first;
    st->last_actor = -1;
    st->has_result = 0;
    st->phase = P_BETTING;
    st->step = S_INIT_HAND;
    return 0;
}

/* The replies of the whole exchange were accepted: move the state on. */
static int k3_advance(K3 *k) {
    K3State *st = &k->st;
    switch (st->step) {
    case S_PLAY:
        k3_apply_action(k);
        if (st->phase != P_BETTING)
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
        if (st->phase == P_CONTINUE) {
            PyObject *r = PyObject_CallFunction(k->ends, "LL", k->end_a, k->end_b);
            if (r == NULL)
                return -1;
            int over = PyObject_IsTrue(r);
            Py_DECREF(r);
            if (over < 0)
                return -1;
            st->phase = over ? P_OVER : P_DEAL;
        }
        if (st->phase == P_OVER) {
            st->step = S_END_ROUND;
            return 0;
        }
        return k3_deal(k);
    }
    return 0;
}

static int read_ints(PyObject *seq, long long *out, Py_ssize_t n, const char *what) {
    if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s: a tuple of %zd integers", what, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, i));
        if (out[i] == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

static PyObject *ints_tuple(const long long *v, Py_ssize_t n) {
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *pair3(const double v[3]) {
    return Py_BuildValue("(ddd)", v[0], v[1], v[2]);
}

/* kuhn3_play(state, params, deal, ends, wfds, rfds, time_used, slowest,
 *            timeout, budget, spin, max_line, trace, budget_messages)
 * -> (stopped_mid, state, written, accepted, lead, time_used, slowest, extra, eof, messages)
 * lead: seconds from this call's start to the first write of the exchange
 * it stopped in (the caller places it on its own clock from a reading taken
 * before the call, so a seat's clock never starts late).
 */
static PyObject *kuhn3_play(PyObject *self, PyObject *args) {
    PyObject *state, *params, *deal, *ends, *wfds, *rfds, *tu, *sl, *trace;
    double timeout, budget, spin;
    long max_line, budget_messages;
    if (!PyArg_ParseTuple(args, "OOOOOOOOdddlOl", &state, &params, &deal, &ends, &wfds, &rfds, &tu, &sl,
                          &timeout, &budget, &spin, &max_line, &trace, &budget_messages))
        return NULL;
    static K3 k; /* one call at a time: the driver is not re-entered (and holds the GIL) */
    Io *io = &shared_io;
    double entry = now_s();
    memset(&k, 0, sizeof k);
    long long p[7], fds[3];
    if (read_ints(state, (long long *)&k.st, NSTATE, "state") < 0 || read_ints(params, p, 7, "params") < 0)
        return NULL;
    k.antes[0] = p[0];
    k.antes[1] = p[1];
    k.antes[2] = p[2];
    k.max_bet = p[3];
    k.hands = p[4];
    k.end_a = p[5];
    k.end_b = p[6];
    k.deal = deal;
    k.ends = ends;
    if (read_ints(wfds, fds, 3, "wfds") < 0)
        return NULL;
    for (int s = 0; s < 3; s++)
        io->wfd[s] = (int)fds[s];
    if (read_ints(rfds, fds, 3, "rfds") < 0)
        return NULL;
    for (int s = 0; s < 3; s++)
        io->rfd[s] = (int)fds[s];
    if (!PyArg_ParseTuple(tu, "ddd", &io->time_used[0], &io->time_used[1], &io->time_used[2]) ||
        !PyArg_ParseTuple(sl, "ddd", &io->slowest[0], &io->slowest[1], &io->slowest[2]))
        return NULL;
    io->timeout = timeout;
    io->budget = budget;
    io->spin = spin;
    io->max_line = max_line;
    io->trace = trace == Py_None ? NULL : trace;
    for (int s = 0; s < 3; s++) {
        io->extra[s] = NULL;
        io->eof[s] = 0;
    }

    long messages = 0;
    int mid = 0;
    PyObject *result = NULL;
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
    return result;
}

/* ---- any game: one exchange ------------------------------------------------ */

typedef struct {
    PyObject *lines[MAXS];
} Lines;

/* Take a line the caller can decode without surprises: printable ASCII. */
static int any_accept(void *ctx, int index, const char *line, int len) {
    Lines *got = ctx;
    for (int i = 0; i < len; i++) {
        unsigned char c = (unsigned char)line[i];
        if ((c < 0x20 && c != '\t') || c > 0x7e)
            return 0;
    }
    PyObject *x = PyUnicode_DecodeASCII(line, len, "strict");
    if (x == NULL) {
        PyErr_Clear();
        return 0;
    }
    Py_XSETREF(got->lines[index], x);
    return 1;
}

/* exchange(wfds, rfds, payloads, limits, spin, max_line), one entry per send
 * in send order -> (written, lines, took, lead, unread, eof), the last four
 * per send; lead as for kuhn3_play. The caller traces and charges the time. */
static PyObject *exchange(PyObject *self, PyObject *args) {
    PyObject *wfds, *rfds, *payloads, *limits;
    double spin;
    long max_line;
    if (!PyArg_ParseTuple(args, "O!O!O!O!dl", &PyTuple_Type, &wfds, &PyTuple_Type, &rfds, &PyTuple_Type,
                          &payloads, &PyTuple_Type, &limits, &spin, &max_line))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(payloads);
    if (n < 1 || n > MAXS || PyTuple_GET_SIZE(wfds) != n || PyTuple_GET_SIZE(rfds) != n ||
        PyTuple_GET_SIZE(limits) != n) {
        PyErr_SetString(PyExc_ValueError, "exchange: 1 to 16 sends, every tuple as long");
        return NULL;
    }
    Io *io = &shared_io;
    static Ex ex;
    double entry = now_s();
    Lines got;
    ex.n = (int)n;
    for (int i = 0; i < n; i++) {
        PyObject *p = PyTuple_GET_ITEM(payloads, i);
        if (!PyBytes_Check(p)) {
            PyErr_SetString(PyExc_TypeError, "exchange: payloads are bytes");
            return NULL;
        }
        ex.seat[i] = i;
        ex.msg[i] = PyBytes_AS_STRING(p);
        ex.len[i] = (int)(PyBytes_GET_SIZE(p) > INT_MAX ? INT_MAX : PyBytes_GET_SIZE(p));
        ex.limit[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(limits, i));
        io->wfd[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(wfds, i));
        io->rfd[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(rfds, i));
        io->time_used[i] = io->slowest[i] = 0.0;
        io->extra[i] = NULL;
        io->eof[i] = 0;
        got.lines[i] = NULL;
        ex.got[i] = 0;
    }
    if (PyErr_Occurred())
        return NULL;
    io->spin = spin;
    io->max_line = max_line;
    io->trace = NULL;
    int r = run_exchange(io, &ex, any_accept, &got);
    PyObject *result = NULL, *lines = NULL, *took = NULL, *unread = NULL, *eof = NULL;
    double lead = ex.written > 0 ? ex.sent_at[0] - entry : 0.0;
    if (r == IO_ERROR)
        goto done;
    lines = PyTuple_New(n);
    took = PyTuple_New(n);
    unread = PyTuple_New(n);
    eof = PyTuple_New(n);
    if (lines == NULL || took == NULL || unread == NULL || eof == NULL)
        goto done;
    for (int i = 0; i < n; i++) {
        int ok = i < ex.written && ex.got[i] && got.lines[i] != NULL;
        PyTuple_SET_ITEM(lines, i, ok ? Py_NewRef(got.lines[i]) : Py_NewRef(Py_None));
        PyObject *t = PyFloat_FromDouble(ok ? ex.took[i] : 0.0);
        if (t == NULL)
            goto done;
        PyTuple_SET_ITEM(took, i, t);
        PyTuple_SET_ITEM(unread, i, io->extra[i] != NULL ? Py_NewRef(io->extra[i]) : Py_NewRef(Py_None));
        PyTuple_SET_ITEM(eof, i, PyBool_FromLong(io->eof[i]));
    }
    result = Py_BuildValue("(iOOdOO)", ex.written, lines, took, lead, unread, eof);
done:
    Py_XDECREF(lines);
    Py_XDECREF(took);
    Py_XDECREF(unread);
    Py_XDECREF(eof);
    for (int i = 0; i < n; i++) {
        Py_CLEAR(got.lines[i]);
        Py_CLEAR(io->extra[i]);
    }
    return result;
}

static PyMethodDef methods[] = {
    {"exchange", exchange, METH_VARARGS,
     "Write an exchange's messages and read the replies that come in time, as printable lines."},
    {"kuhn3_play", kuhn3_play, METH_VARARGS,
     "Play kuhn3 exchanges over the bots' pipes until something needs Python."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "arena_fastloop", NULL, -1, methods};

PyMODINIT_FUNC PyInit_arena_fastloop(void) {
    _Static_assert(sizeof(K3State) == NSTATE * sizeof(long long), "K3State is 50 integers");
    return PyModule_Create(&module);
}
