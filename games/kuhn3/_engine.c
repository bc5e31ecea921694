/* 3-player Kuhn poker's rules in C, the only copy: one round (hands until
 * chance or the hand count ends it), exposed to Python as the type ``Round``
 * that games/kuhn3/_rules.py's ``Kuhn3Round`` is. The rules are those of
 * games/kuhn3/__init__.py's rules page.
 *
 * Chance is the caller's: ``apply_chance`` takes the outcome it drew (the
 * first button, a deal, whether the round ends), so the Python dialogue and
 * the compiled one draw from the same seeded RNG in the same order.
 * Refusals raise games.IllegalAction with the reason in words.
 *
 * protocols/kuhn3_compiled.c includes this file (KUHN3_ENGINE_EMBEDDED:
 * without the Python type) and works on the very Round the dealer holds:
 * one source, so one struct and one copy of the rules. What both use is the
 * first half of the file (k3_params_read, k3_chance, k3_check, k3_act);
 * the second half is the Python type alone.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stddef.h>

#define SEATS 3
#define NCARDS 4
enum { P_BUTTON, P_DEAL, P_BETTING, P_CONTINUE, P_OVER };
enum { V_BLIND, V_BET, V_FOLD, V_PASS, V_OTHER };
/* Card ranks lowest first (the fourth card stays undealt), the phases (the
 * values of games.kuhn3.Phase) and the verbs, by their codes here. */
static const char CARD_NAME[NCARDS + 1] = "JQKA";
static const char *PHASE_NAME[] = {"button", "deal", "betting", "continue", "over"};
static const char *VERB_NAME[] = {"BLIND", "BET", "FOLD", "PASS"};

typedef struct {
    long long antes[SEATS], max_bet;
    long long hands; /* -1: the round ends by chance, end_a/end_b after each hand */
    long long end_a, end_b;
} K3Params;

typedef struct {
    PyObject_HEAD
    K3Params p;
    int phase;
    long long money[SEATS];
    long long hand; /* the current (or last) hand; -1 before the first */
    long long hands_played;
    int button, first_button;
    int cards[SEATS]; /* card codes; -1 before the first deal */
    long long in_front[SEATS];
    /* what every live seat must have in front to stay in (never drops: only
     * a seat below it may fold) */
    long long price;
    int folded[SEATS];
    int lverb[SEATS]; /* each seat's latest action: verb and total in front */
    long long lamt[SEATS];
    int to_act, last_actor;
    int pending[SEATS], npending; /* who still acts, in turn order */
    /* the last hand's result (has_result: 0 from the next deal on) */
    int has_result;
    int rverb[SEATS];
    long long ramt[SEATS], rfront[SEATS];
    int rlast;
    int rshown[SEATS]; /* -1: folded or mucked */
    long long pot;
    int winner;
} K3Round;

/* The parameters, as Python gives them (games.kuhn3.engine_params): antes x3,
 * max_bet, hands (-1: by chance), end_prob a, b. The only reader of that
 * tuple: the Round's constructor and the compiled dialogue both come here. */
static int k3_params_read(PyObject *params, K3Params *p) {
    long long v[7];
    PyObject *f = PySequence_Fast(params, "kuhn3 engine parameters: a sequence of 7 ints");
    if (f == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(f) != 7) {
        Py_DECREF(f);
        PyErr_SetString(PyExc_ValueError,
                        "kuhn3 engine parameters: antes x3, max_bet, hands (-1: by chance), end_prob a, b");
        return -1;
    }
    for (int i = 0; i < 7; i++) {
        v[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(f, i));
        if (v[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(f);
            return -1;
        }
    }
    Py_DECREF(f);
    for (int s = 0; s < SEATS; s++)
        p->antes[s] = v[s];
    p->max_bet = v[3];
    p->hands = v[4];
    p->end_a = v[5];
    p->end_b = v[6];
    return 0;
}

static void k3_start_hand(K3Round *r, const int cards[SEATS]) {
    r->hand++;
    r->button = (r->button + 1) % SEATS;
    r->price = 0;
    for (int s = 0; s < SEATS; s++) {
        r->cards[s] = cards[s];
        r->in_front[s] = r->p.antes[s];
        r->folded[s] = 0;
        r->lverb[s] = V_BLIND;
        r->lamt[s] = r->p.antes[s];
        if (r->p.antes[s] > r->price)
            r->price = r->p.antes[s];
    }
    int first = (r->button + 1) % SEATS; /* the seat after the button acts first */
    r->npending = SEATS;
    for (int i = 0; i < SEATS; i++)
        r->pending[i] = (first + i) % SEATS;
    r->to_act = first;
    r->last_actor = -1;
    r->has_result = 0;
    r->phase = P_BETTING;
}

/* Apply the outcome of the chance step the round is at: in phase button a
 * seat 0..2 (the first button), in phase deal three distinct card names (one
 * per seat), in phase continue a bool (True: the round ends here). -1 with
 * ValueError (or RuntimeError: no chance step now) otherwise. */
static int k3_chance(K3Round *r, PyObject *outcome) {
    if (r->phase == P_BUTTON) {
        long seat = PyLong_Check(outcome) ? PyLong_AsLong(outcome) : -1;
        if (seat == -1 && PyErr_Occurred())
            PyErr_Clear();
        if (seat < 0 || seat >= SEATS) {
            PyErr_Format(PyExc_ValueError, "button must be a seat 0..2, got %R", outcome);
            return -1;
        }
        r->first_button = (int)seat;
        /* every deal moves the button one seat on, so start one behind */
        r->button = (r->first_button + SEATS - 1) % SEATS;
        r->phase = P_DEAL;
        return 0;
    }
    if (r->phase == P_DEAL) {
        int cards[SEATS], seen = 0, ok = 0;
        PyObject *f = PyTuple_Check(outcome) ? Py_NewRef(outcome) : PySequence_Fast(outcome, "");
        if (f == NULL)
            PyErr_Clear();
        else if (PySequence_Fast_GET_SIZE(f) == SEATS) {
            ok = 1;
            for (int s = 0; s < SEATS; s++) {
                PyObject *c = PySequence_Fast_GET_ITEM(f, s);
                const char *name = PyUnicode_Check(c) ? PyUnicode_AsUTF8(c) : NULL;
                if (name == NULL)
                    PyErr_Clear();
                const char *at = name != NULL && name[0] && !name[1] ? strchr(CARD_NAME, name[0]) : NULL;
                cards[s] = at != NULL ? (int)(at - CARD_NAME) : -1;
                if (cards[s] < 0 || seen & (1 << cards[s]))
                    ok = 0;
                else
                    seen |= 1 << cards[s];
            }
        }
        Py_XDECREF(f);
        if (!ok) {
            PyErr_Format(PyExc_ValueError, "a deal is three distinct cards of ('%c', '%c', '%c', '%c'), got %R",
                         CARD_NAME[0], CARD_NAME[1], CARD_NAME[2], CARD_NAME[3], outcome);
            return -1;
        }
        k3_start_hand(r, cards);
        return 0;
    }
    if (r->phase == P_CONTINUE) {
        if (!PyBool_Check(outcome)) {
            PyErr_Format(PyExc_ValueError, "continue outcome must be a bool (True = end), got %R", outcome);
            return -1;
        }
        r->phase = outcome == Py_True ? P_OVER : P_DEAL;
        return 0;
    }
    PyErr_Format(PyExc_RuntimeError, "no chance step in phase %s", PHASE_NAME[r->phase]);
    return -1;
}

/* Why ``seat`` may not play ``verb amount`` now (K3_LEGAL: it may). The
 * words for each refusal are the Python type's (k3_refuse); the compiled
 * dialogue only needs to know it is legal. */
enum { K3_LEGAL, K3_NOT_BETTING, K3_NOT_TURN, K3_PASS, K3_FOLD_AMOUNT, K3_NO_BET, K3_ABOVE, K3_BELOW,
       K3_NEITHER, K3_NO_VERB };

static int k3_check(const K3Round *r, int seat, int verb, long long amount) {
    if (r->phase != P_BETTING)
        return K3_NOT_BETTING;
    if (seat != r->to_act)
        return K3_NOT_TURN;
    long long mine = r->in_front[seat], price = r->price, top = r->p.max_bet;
    if (verb == V_PASS) /* only for a seat that cannot act, and here every seat to act can */
        return K3_PASS;
    if (verb == V_FOLD) {
        if (amount != mine) /* a fold keeps the amount in front unchanged */
            return K3_FOLD_AMOUNT;
        return mine == price ? K3_NO_BET : K3_LEGAL;
    }
    if (verb == V_BET) { /* to the price (check or call), or the one bet, to max_bet */
        if (amount == price || (amount == top && price < top))
            return K3_LEGAL;
        return amount > top ? K3_ABOVE : amount < price ? K3_BELOW : K3_NEITHER;
    }
    return K3_NO_VERB;
}

static void k3_finish_hand(K3Round *r) {
    int first = (r->button + 1) % SEATS;
    int live[SEATS], nlive = 0;
    for (int i = 0; i < SEATS; i++) {
        int s = (first + i) % SEATS;
        if (!r->folded[s])
            live[nlive++] = s;
    }
    for (int s = 0; s < SEATS; s++)
        r->rshown[s] = -1;
    int winner = live[0]; /* everyone else folded: nothing is shown */
    if (nlive > 1) {
        /* automatic mucking: in betting order, a card is turned up only if it
         * beats every card shown before it; the last one shown wins */
        int best = -1;
        for (int i = 0; i < nlive; i++) {
            int s = live[i];
            if (r->cards[s] > best) {
                best = r->cards[s];
                r->rshown[s] = r->cards[s];
                winner = s;
            }
        }
    }
    long long pot = 0;
    for (int s = 0; s < SEATS; s++) {
        pot += r->in_front[s];
        r->money[s] -= r->in_front[s];
        r->rverb[s] = r->lverb[s];
        r->ramt[s] = r->lamt[s];
        r->rfront[s] = r->in_front[s];
    }
    r->money[winner] += pot;
    r->has_result = 1;
    r->rlast = r->last_actor;
    r->pot = pot;
    r->winner = winner;
    r->hands_played++;
    r->to_act = -1;
    if (r->p.hands >= 0)
        r->phase = r->hands_played >= r->p.hands ? P_OVER : P_DEAL;
    else
        r->phase = P_CONTINUE;
}

/* The seat to act plays ``verb amount``, which k3_check found legal; the
 * hand is finished (paid, the next phase set) when betting ends. */
static void k3_act(K3Round *r, int verb, long long amount) {
    int seat = r->to_act;
    int raises = verb == V_BET && amount > r->price;
    if (verb == V_FOLD)
        r->folded[seat] = 1;
    r->in_front[seat] = amount;
    r->lverb[seat] = verb;
    r->lamt[seat] = amount;
    r->last_actor = seat;
    if (raises) {
        r->price = amount;
        /* a bet reopens the action for every other live seat, clockwise */
        r->npending = 0;
        for (int j = 1; j < SEATS; j++) {
            int s = (seat + j) % SEATS;
            if (!r->folded[s])
                r->pending[r->npending++] = s;
        }
    } else {
        int w = 0;
        for (int i = 0; i < r->npending; i++)
            if (r->pending[i] != seat)
                r->pending[w++] = r->pending[i];
        r->npending = w;
    }
    int live = !r->folded[0] + !r->folded[1] + !r->folded[2];
    if (live == 1 || r->npending == 0)
        k3_finish_hand(r);
    else
        r->to_act = r->pending[0];
}

#ifndef KUHN3_ENGINE_EMBEDDED /* the compiled dialogue includes this file for the rules alone */

/* ---- the Python type ------------------------------------------------------- */

/* games.IllegalAction, and the Python classes the views are made of. */
static PyObject *IllegalAction, *ActionType, *HandResultType, *Phases;

/* A round before its first chance step (the first button). */
static void k3_reset(K3Round *r) {
    memset(&r->phase, 0, sizeof *r - offsetof(K3Round, phase)); /* all but the parameters */
    r->phase = P_BUTTON;
    r->hand = -1;
    r->button = r->first_button = -1;
    r->to_act = r->last_actor = -1;
    for (int s = 0; s < SEATS; s++)
        r->cards[s] = -1;
}

static int Round_init(K3Round *r, PyObject *args, PyObject *kwds) {
    static char *kw[] = {"params", NULL};
    PyObject *params;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kw, &params) || k3_params_read(params, &r->p) < 0)
        return -1;
    k3_reset(r);
    return 0;
}

static PyObject *Round_apply_chance(K3Round *r, PyObject *outcome) {
    if (k3_chance(r, outcome) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *action_obj(int verb, long long amount) {
    return PyObject_CallFunction(ActionType, "sL", VERB_NAME[verb], amount);
}

/* The legal replies of the seat to act, and a word for each; how many. */
static int k3_options(const K3Round *r, int verbs[3], long long amounts[3], const char *words[3]) {
    if (r->phase != P_BETTING)
        return 0;
    long long mine = r->in_front[r->to_act], price = r->price, top = r->p.max_bet;
    int n = 0;
    verbs[n] = V_BET;
    amounts[n] = price;
    words[n++] = mine == price ? "check" : "call";
    if (mine != price) {
        verbs[n] = V_FOLD;
        amounts[n] = mine;
        words[n++] = "fold";
    }
    if (price < top) {
        verbs[n] = V_BET;
        amounts[n] = top;
        words[n++] = mine == price ? "bet" : "raise";
    }
    return n;
}

static PyObject *Round_legal_actions(K3Round *r, PyObject *unused) {
    (void)unused;
    int verbs[3];
    long long amounts[3];
    const char *words[3];
    int n = k3_options(r, verbs, amounts, words);
    PyObject *l = PyList_New(n);
    for (int i = 0; l != NULL && i < n; i++) {
        PyObject *a = action_obj(verbs[i], amounts[i]);
        PyObject *pair = a != NULL ? Py_BuildValue("(Os)", a, words[i]) : NULL;
        Py_XDECREF(a);
        if (pair == NULL)
            Py_CLEAR(l);
        else
            PyList_SET_ITEM(l, i, pair);
    }
    return l;
}

/* "BET 1 (check) or BET 2 (bet)": the legal replies in words. */
static PyObject *describe_legal(const K3Round *r) {
    int verbs[3];
    long long amounts[3];
    const char *words[3];
    int n = k3_options(r, verbs, amounts, words);
    char buf[256];
    int len = 0;
    for (int i = 0; i < n; i++)
        len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%s %lld (%s)", i ? " or " : "",
                        VERB_NAME[verbs[i]], amounts[i], words[i]);
    return PyUnicode_FromStringAndSize(buf, len);
}

static PyObject *Round_describe_legal(K3Round *r, PyObject *unused) {
    (void)unused;
    return describe_legal(r);
}

/* IllegalAction with the words for refusal ``why`` (a k3_check code). */
static void k3_refuse(const K3Round *r, int why, int seat, PyObject *verb, PyObject *amount) {
    long long mine = r->to_act >= 0 ? r->in_front[r->to_act] : 0, price = r->price, top = r->p.max_bet;
    PyObject *msg = NULL, *legal;
    switch (why) {
    case K3_NOT_BETTING:
        msg = PyUnicode_FromFormat("no seat may act now: the hand is in phase %s", PHASE_NAME[r->phase]);
        break;
    case K3_NOT_TURN:
        msg = PyUnicode_FromFormat("it is seat %d's turn, not seat %d's", r->to_act, seat);
        break;
    case K3_PASS:
        legal = describe_legal(r);
        if (legal != NULL)
            msg = PyUnicode_FromFormat("PASS is only for a seat that cannot act (folded or all in); "
                                       "this seat can act with %U", legal);
        Py_XDECREF(legal);
        break;
    case K3_FOLD_AMOUNT:
        msg = PyUnicode_FromFormat("a fold keeps the amount in front unchanged: FOLD %lld, not FOLD %S", mine,
                                   amount);
        break;
    case K3_NO_BET:
        msg = PyUnicode_FromFormat("there is no bet to fold to; check with BET %lld", price);
        break;
    case K3_ABOVE:
        msg = PyUnicode_FromFormat("BET %S is above the maximum bet of %lld", amount, top);
        break;
    case K3_BELOW:
        msg = PyUnicode_FromFormat("BET %S is below the %lld needed to stay in the hand", amount, price);
        break;
    case K3_NEITHER:
        msg = PyUnicode_FromFormat("BET %S is neither %lld (check or call) nor %lld (bet)", amount, price, top);
        break;
    default:
        msg = PyUnicode_FromFormat("%S is not an action; use BET or FOLD", verb);
    }
    if (msg != NULL) {
        PyErr_SetObject(IllegalAction != NULL ? IllegalAction : PyExc_ValueError, msg);
        Py_DECREF(msg);
    }
}

/* check_action(seat, action) and apply_action(seat, action): ``action`` has
 * ``verb`` (a str) and ``amount`` (an int, the total in front after it). */
static int read_action(K3Round *r, PyObject *args, int *seat, int *verb, long long *amount) {
    PyObject *action;
    if (!PyArg_ParseTuple(args, "iO", seat, &action))
        return -1;
    PyObject *v = PyObject_GetAttrString(action, "verb");
    PyObject *a = v != NULL ? PyObject_GetAttrString(action, "amount") : NULL;
    if (a == NULL) {
        Py_XDECREF(v);
        return -1;
    }
    *verb = V_OTHER;
    for (int i = V_BET; i <= V_PASS && PyUnicode_Check(v); i++) /* BLIND is the dealer's, never a reply */
        if (PyUnicode_CompareWithASCIIString(v, VERB_NAME[i]) == 0)
            *verb = i;
    int overflow = 0;
    *amount = PyLong_AsLongLongAndOverflow(a, &overflow);
    int why = K3_LEGAL;
    if (*amount == -1 && PyErr_Occurred())
        why = -1;
    else {
        if (overflow) /* beyond any amount in play: compares as the largest (smallest) there is */
            *amount = overflow > 0 ? LLONG_MAX : LLONG_MIN;
        why = k3_check(r, *seat, *verb, *amount);
        if (why != K3_LEGAL)
            k3_refuse(r, why, *seat, v, a);
    }
    Py_DECREF(v);
    Py_DECREF(a);
    return why == K3_LEGAL ? 0 : -1;
}

static PyObject *Round_check_action(K3Round *r, PyObject *args) {
    int seat, verb;
    long long amount;
    if (read_action(r, args, &seat, &verb, &amount) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Round_apply_action(K3Round *r, PyObject *args) {
    int seat, verb;
    long long amount;
    if (read_action(r, args, &seat, &verb, &amount) < 0)
        return NULL;
    k3_act(r, verb, amount);
    Py_RETURN_NONE;
}

/* ---- views: fresh Python values, the engine's codes turned into names ------------- */

static PyObject *lls_list(const long long *v) {
    return Py_BuildValue("[LLL]", v[0], v[1], v[2]);
}

static PyObject *card_obj(int code) {
    return code >= 0 ? PyUnicode_FromStringAndSize(CARD_NAME + code, 1) : PyUnicode_FromString("");
}

static PyObject *actions_obj(const int *verbs, const long long *amounts, PyObject *(*pack)(PyObject *)) {
    PyObject *l = PyList_New(SEATS);
    for (int s = 0; l != NULL && s < SEATS; s++) {
        PyObject *a = action_obj(verbs[s], amounts[s]);
        if (a == NULL)
            Py_CLEAR(l);
        else
            PyList_SET_ITEM(l, s, a);
    }
    if (l == NULL || pack == NULL)
        return l;
    PyObject *t = pack(l);
    Py_DECREF(l);
    return t;
}

#define GET_LL(name, expr) \
    static PyObject *get_##name(K3Round *r, void *c) { (void)c; return PyLong_FromLongLong(expr); }
GET_LL(hand, r->hand)
GET_LL(hands_played, r->hands_played)
GET_LL(button, r->button)
GET_LL(first_button, r->first_button)
GET_LL(price, r->price)
GET_LL(to_act, r->to_act)
GET_LL(last_actor, r->last_actor)

static PyObject *get_phase(K3Round *r, void *c) {
    (void)c;
    if (Phases == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "kuhn3 engine: setup() was not called");
        return NULL;
    }
    return Py_NewRef(PyTuple_GET_ITEM(Phases, r->phase));
}

static PyObject *get_money(K3Round *r, void *c) { (void)c; return lls_list(r->money); }
static PyObject *get_in_front(K3Round *r, void *c) { (void)c; return lls_list(r->in_front); }

static PyObject *get_folded(K3Round *r, void *c) {
    (void)c;
    return Py_BuildValue("[OOO]", r->folded[0] ? Py_True : Py_False, r->folded[1] ? Py_True : Py_False,
                         r->folded[2] ? Py_True : Py_False);
}

static PyObject *get_cards(K3Round *r, void *c) {
    (void)c;
    PyObject *t = PyTuple_New(SEATS);
    for (int s = 0; t != NULL && s < SEATS; s++) {
        PyObject *x = card_obj(r->cards[s]);
        if (x == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, s, x);
    }
    return t;
}

static PyObject *get_latest(K3Round *r, void *c) {
    (void)c;
    if (r->hand < 0) /* no hand dealt yet */
        return PyList_New(0);
    return actions_obj(r->lverb, r->lamt, NULL);
}

static PyObject *get_pending(K3Round *r, void *c) {
    (void)c;
    PyObject *l = PyList_New(r->npending);
    for (int i = 0; l != NULL && i < r->npending; i++) {
        PyObject *x = PyLong_FromLong(r->pending[i]);
        if (x == NULL)
            Py_CLEAR(l);
        else
            PyList_SET_ITEM(l, i, x);
    }
    return l;
}

/* The last hand's HandResult, None from the next deal on. */
static PyObject *get_last_result(K3Round *r, void *c) {
    (void)c;
    if (!r->has_result)
        Py_RETURN_NONE;
    PyObject *cards = get_cards(r, NULL);
    PyObject *actions = actions_obj(r->rverb, r->ramt, PyList_AsTuple);
    PyObject *shown = PyTuple_New(SEATS);
    for (int s = 0; shown != NULL && s < SEATS; s++) {
        PyObject *x = r->rshown[s] >= 0 ? card_obj(r->rshown[s]) : Py_NewRef(Py_None);
        if (x == NULL)
            Py_CLEAR(shown);
        else
            PyTuple_SET_ITEM(shown, s, x);
    }
    PyObject *res = NULL;
    if (cards != NULL && actions != NULL && shown != NULL)
        res = PyObject_CallFunction(HandResultType, "LiOO(LLL)iO((Li))", r->hand, r->button, cards, actions,
                                    r->rfront[0], r->rfront[1], r->rfront[2], r->rlast, shown, r->pot, r->winner);
    Py_XDECREF(cards);
    Py_XDECREF(actions);
    Py_XDECREF(shown);
    return res;
}

static PyGetSetDef Round_getset[] = {
    {"phase", (getter)get_phase, NULL, "where the round stands (a Phase)", NULL},
    {"money", (getter)get_money, NULL, "every seat's running total", NULL},
    {"hand", (getter)get_hand, NULL, "the current (or last) hand; -1 before the first", NULL},
    {"hands_played", (getter)get_hands_played, NULL, NULL, NULL},
    {"button", (getter)get_button, NULL, NULL, NULL},
    {"first_button", (getter)get_first_button, NULL, NULL, NULL},
    {"cards", (getter)get_cards, NULL, "each seat's card (\"\" before the first deal)", NULL},
    {"in_front", (getter)get_in_front, NULL, NULL, NULL},
    {"price", (getter)get_price, NULL, "what every live seat must have in front to stay in", NULL},
    {"folded", (getter)get_folded, NULL, NULL, NULL},
    {"latest", (getter)get_latest, NULL, "each seat's latest action in this hand", NULL},
    {"to_act", (getter)get_to_act, NULL, "the seat whose turn it is (-1: none)", NULL},
    {"last_actor", (getter)get_last_actor, NULL, NULL, NULL},
    {"_pending", (getter)get_pending, NULL, "the seats still to act, in turn order", NULL},
    {"last_result", (getter)get_last_result, NULL, "the last hand's HandResult (None from the next deal)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Round_methods[] = {
    {"apply_chance", (PyCFunction)Round_apply_chance, METH_O,
     "Apply the outcome the caller drew for the chance step the round is at."},
    {"legal_actions", (PyCFunction)Round_legal_actions, METH_NOARGS,
     "The legal replies of the seat to act, each with a word for it."},
    {"describe_legal", (PyCFunction)Round_describe_legal, METH_NOARGS, NULL},
    {"check_action", (PyCFunction)Round_check_action, METH_VARARGS,
     "Raise IllegalAction with a sentence if the seat may not play the action now."},
    {"apply_action", (PyCFunction)Round_apply_action, METH_VARARGS,
     "The seat plays the action (checked first); the hand is paid when betting ends."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject RoundType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "games.kuhn3.Round",
    .tp_basicsize = sizeof(K3Round),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "One round of 3-player Kuhn poker: Round(engine_params).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Round_init,
    .tp_methods = Round_methods,
    .tp_getset = Round_getset,
};

/* setup(IllegalAction, Action, HandResult, phases): the Python classes the
 * engine answers with; ``phases`` the Phase members in the order of PHASES. */
static PyObject *setup(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *e, *a, *h, *p;
    if (!PyArg_ParseTuple(args, "OOOO!", &e, &a, &h, &PyTuple_Type, &p))
        return NULL;
    if (PyTuple_GET_SIZE(p) != (Py_ssize_t)(sizeof PHASE_NAME / sizeof PHASE_NAME[0])) {
        PyErr_SetString(PyExc_ValueError, "setup: one Phase per name of PHASES");
        return NULL;
    }
    Py_XSETREF(IllegalAction, Py_NewRef(e));
    Py_XSETREF(ActionType, Py_NewRef(a));
    Py_XSETREF(HandResultType, Py_NewRef(h));
    Py_XSETREF(Phases, Py_NewRef(p));
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
    if (PyType_Ready(&RoundType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    /* CARDS, PHASES: the names of the engine's codes, in code order */
    PyObject *cards = Py_BuildValue("(CCCC)", CARD_NAME[0], CARD_NAME[1], CARD_NAME[2], CARD_NAME[3]);
    PyObject *phases = Py_BuildValue("(sssss)", PHASE_NAME[0], PHASE_NAME[1], PHASE_NAME[2], PHASE_NAME[3],
                                     PHASE_NAME[4]);
    if (cards == NULL || phases == NULL || PyModule_AddObjectRef(m, "Round", (PyObject *)&RoundType) < 0 ||
        PyModule_AddObjectRef(m, "CARDS", cards) < 0 || PyModule_AddObjectRef(m, "PHASES", phases) < 0 ||
        PyModule_AddIntConstant(m, "SEATS", SEATS) < 0) {
        Py_XDECREF(cards);
        Py_XDECREF(phases);
        Py_DECREF(m);
        return NULL;
    }
    Py_DECREF(cards);
    Py_DECREF(phases);
    return m;
}
#endif
