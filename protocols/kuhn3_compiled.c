/* kuhn3's compiled dialogue: the exchanges of protocols/kuhn3.py played in
 * C over the bots' pipes for as long as everything is regular.
 *
 * The Python dialogue is the reference. This loop only takes the road where
 * nothing needs words: it accepts a reply only in the exact form a
 * well-behaved bot writes and only when it is legal, and stops at the first
 * thing it does not like, handing the match back mid-exchange (messages
 * written so far, replies accepted so far, bytes read and not accepted, end
 * of file). Python then finishes that exchange its own way, with the same
 * deadlines, and says in words what was wrong: every fault report comes
 * from one place, and this file never invents a verdict.
 *
 * Stops also at: the end of the round (end_round is Python's), a reply not
 * there after the spin budget (trio waits from there, so Ctrl-C and other
 * tasks keep working), a deadline passed, EINTR, and every `budget`
 * messages (the driver's checkpoint).
 *
 * The state it starts from and hands back is K3State, which the arena
 * generates from KUHN3_COMPILED.layout in protocols/kuhn3.py (the one place
 * the layout is declared) into "dialogue_state.h". The I/O comes from the
 * arena (protocols/arena_exchange.h); the builder is arena/native.
 */
#include "arena_exchange.h"
#include "dialogue_state.h"

#define SEATS 3
#define MSG_MAX 512 /* every kuhn3 message is far shorter; and < PIPE_BUF, so a write is all or nothing */

/* ---- kuhn3 ---------------------------------------------------------------- */

enum { S_INIT_ROUND, S_INIT_HAND, S_PLAY, S_END_HAND, S_END_ACTION, S_END_ROUND, S_DONE };
enum { P_BUTTON, P_DEAL, P_BETTING, P_CONTINUE, P_OVER };
enum { V_BLIND, V_BET, V_FOLD, V_PASS };
static const char *VERB[] = {"BLIND", "BET", "FOLD", "PASS"};
static const char CARD[] = {'J', 'Q', 'K', 'A'};
static const char *ANSWER[] = {"", "OK", "REBUY"};

#define NSTATE K3STATE_INTS

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

/* Three numbers from ``seat``'s point of view, "a,b,c". */
static void k3_local(Out *o, const long long v[3], int seat) {
    out_ll(o, v[seat]);
    OUT(o, ",");
    out_ll(o, v[(seat + 1) % 3]);
    OUT(o, ",");
    out_ll(o, v[(seat + 2) % 3]);
}

static void k3_actions(Out *o, const long long verb[3], const long long amt[3], int seat) {
    for (int i = 0; i < 3; i++) {
        int s = (seat + i) % 3;
        OUT(o, "Action: ");
        out_str(o, VERB[verb[s]]);
        OUT(o, " ");
        out_ll(o, amt[s]);
        OUT(o, "\n");
    }
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
        Out o = {k->buf[0], 0, MSG_MAX};
        ex->n = 1;
        ex->seat[0] = s;
        OUT(&o, "play\n");
        k3_actions(&o, st->lverb, st->lamt, s);
        ex->len[0] = o.n;
        return o.n <= MSG_MAX ? 0 : -1;
    }
    if (st->step == S_INIT_HAND) {
        ex->n = 3;
        for (int s = 0; s < 3; s++) {
            Out o = {k->buf[s], 0, MSG_MAX};
            ex->seat[s] = s;
            OUT(&o, "init_hand\nHand: ");
            out_ll(&o, st->hand);
            OUT(&o, "\nCards: ");
            out_char(&o, CARD[st->cards[s]]);
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
            OUT(&o, "end_hand\n");
            k3_actions(&o, verb, amt, seat);
            OUT(&o, "Showdown: ");
            for (int j = 0; j < 3; j++) {
                long long c = st->rshown[(seat + j) % 3];
                if (j)
                    OUT(&o, ",");
                out_char(&o, c >= 0 ? CARD[c] : '-');
            }
            OUT(&o, "\nPots: ");
            out_ll(&o, st->pot);
            OUT(&o, ",");
            out_ll(&o, (st->winner - seat + 3) % 3);
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
        Out o = {want, 0, (int)sizeof want};
        OUT(&o, "Money: ");
        k3_local(&o, st->money, k->ex.seat[index]);
        return o.n <= (int)sizeof want && len == o.n && memcmp(line, want, (size_t)o.n) == 0;
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
    long long p[7];
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
    if (io_open(io, 3, wfds, rfds, tu, sl, timeout, budget, spin, max_line, trace) < 0)
        return NULL;

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

static PyMethodDef methods[] = {
    {"kuhn3_play", kuhn3_play, METH_VARARGS,
     "Play kuhn3 exchanges over the bots' pipes until something needs Python."},
    {NULL, NULL, 0, NULL},
};

ARENA_MODULE_INIT(methods)
