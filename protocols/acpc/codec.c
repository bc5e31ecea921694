/* Hold'em's ACPC codec: an ACPC agent's seat spoken to by the arena itself
 * (docs/acpc.md). The relay (relay.c) starts the agent in the bot's sandbox,
 * takes its connection and VERSION line and hands the connected socket to
 * the arena; from then on the arena writes and reads that socket directly,
 * and this codec turns the seat's holdem messages into MATCHSTATE lines and
 * the agent's responses into the seat's replies. With no process between
 * them, the agent is woken once per decision, as under the ACPC dealer.
 *
 * It is sans-I/O but for ``send``: ``translate`` takes the JSON lines the
 * arena would write to a bot and gives the bytes for the agent (the states
 * it need not answer are held and sent with the next one it must), and
 * ``reply`` takes one response line and gives the reply line the arena's
 * holdem dialogue reads: an action, or for a wrong response the sentence
 * that says why, which the dialogue reports as the seat's invalid reply.
 * ``reply`` changes nothing, so the compiled dialogue may try a line and
 * hand it back to Python to be read again.
 *
 * Both the Python path (arena/play/_bot.py) and the compiled dialogue
 * (through the ArenaCodec head of arena_exchange.h) call this one copy. */

#pragma GCC diagnostic ignored "-Wunused-function" /* the exchange core is included for ArenaCodec alone */
#pragma GCC diagnostic ignored "-Wunused-variable"
#include "arena_exchange.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static void out_of_memory(void) { abort(); } /* a few hundred bytes a seat: never, but not silently */

#include "acpc_text.h"

#define MAX_SEATS 64

/* -- a message's fields, found in one pass ------------------------------------ */

enum { K_TYPE, K_HAND, K_BUTTON, K_IN_HAND, K_BETS, K_CARDS, K_BOARD, K_SEAT, K_AMOUNT, K_ACTION, K_TO_CALL, K_SHOWN,
       NKEYS };
static const char *const KEYS[NKEYS] = {"type", "hand", "button", "in_hand", "bets", "cards", "board", "seat",
                                        "amount", "action", "to_call", "shown"};

/* Which of KEYS the key k (klen bytes) is, or -1: by its length and a
 * letter, then compared (a loop over the twelve was the codec's hot spot). */
static int key_index(const char *k, size_t klen) {
    int i = -1;
    switch (klen) {
    case 4:
        i = k[0] == 't' ? K_TYPE : k[0] == 'h' ? K_HAND : k[0] == 'b' ? K_BETS : k[0] == 's' ? K_SEAT : -1;
        break;
    case 5:
        i = k[0] == 'c' ? K_CARDS : k[0] == 'b' ? K_BOARD : k[0] == 's' ? K_SHOWN : -1;
        break;
    case 6:
        i = k[0] == 'b' ? K_BUTTON : k[0] == 'a' ? (k[1] == 'm' ? K_AMOUNT : K_ACTION) : -1;
        break;
    case 7:
        i = k[0] == 'i' ? K_IN_HAND : k[0] == 't' ? K_TO_CALL : -1;
        break;
    }
    return i >= 0 && memcmp(KEYS[i], k, klen) == 0 ? i : -1;
}

/* The keys each message type needs (the codec ignores the rest). */
#define BIT(k) (1u << (k))
static unsigned needed(const char *type) {
    if (is_str(type, "action"))
        return BIT(K_SEAT) | BIT(K_ACTION) | BIT(K_AMOUNT);
    if (is_str(type, "act"))
        return BIT(K_TO_CALL);
    if (is_str(type, "street"))
        return BIT(K_BOARD);
    if (is_str(type, "hand_start"))
        return BIT(K_HAND) | BIT(K_BUTTON) | BIT(K_IN_HAND) | BIT(K_BETS) | BIT(K_CARDS);
    if (is_str(type, "hand_end"))
        return BIT(K_SHOWN);
    return 0;
}

/* The values of the keys the codec reads, each its first occurrence (as
 * ``get`` finds it); NULL where absent. One pass, and it stops once the
 * message's type and every key that type needs are found: ``get`` per key
 * walked the message again for each, and was most of the codec's time. */
typedef struct {
    const char *v[NKEYS];
} Fields;

static void fields(const char *obj, Fields *f) {
    memset(f, 0, sizeof *f);
    const char *p = ws(obj);
    if (*p != '{')
        return;
    p = ws(p + 1);
    unsigned found = 0, want = ~0u;
    while (*p == '"') {
        const char *k = p + 1, *end = skip(p);
        if (end == NULL)
            return;
        size_t klen = (size_t)(end - 1 - k);
        p = ws(end);
        if (*p != ':')
            return;
        p = ws(p + 1);
        int i = key_index(k, klen);
        if (i >= 0 && !(found & BIT(i))) {
            f->v[i] = p;
            found |= BIT(i);
            if (i == K_TYPE)
                want = BIT(K_TYPE) | needed(p);
        }
        if ((found & want) == want)
            return;
        p = skip(p);
        if (p == NULL)
            return;
        p = ws(p);
        if (*p != ',')
            return;
        p = ws(p + 1);
    }
}

/* -- the seat's hand, as ACPC writes it ------------------------------------------ */

typedef struct {
    int seat;
    int pending;  /* a state not sent yet, held until the next message shows it whole */
    long long hand;
    int order[MAX_SEATS], n;  /* the seats dealt in, by position */
    Buf betting;              /* the rounds' tokens joined by '/' */
    long long committed[MAX_SEATS], street_bet[MAX_SEATS], max_bet;  /* by seat */
    char holes[MAX_SEATS][16];
    Buf boards;  /* "/" and each street's new cards */
    int board_cards;
    Buf sent;  /* the last state line sent */
    long long to_call;
} Holdem;

static int ok_seat(long long s) { return s >= 0 && s < MAX_SEATS; }

static void he_state(Holdem *h, Buf *out) {
    int position = 0;
    for (int i = 0; i < h->n; i++)
        if (h->order[i] == h->seat)
            position = i;
    adds(out, "MATCHSTATE:");
    add_int(out, position);
    adds(out, ":");
    add_int(out, h->hand);
    adds(out, ":");
    add(out, h->betting.p ? h->betting.p : "", h->betting.n);
    adds(out, ":");
    for (int i = 0; i < h->n; i++) {
        if (i)
            adds(out, "|");
        adds(out, h->holes[h->order[i]]);
    }
    add(out, h->boards.p ? h->boards.p : "", h->boards.n);
}

/* The state, now whole, queued for the agent: sent with the next one it must answer. */
static void he_flush(Holdem *h, Buf *pending, int force) {
    if (!(h->pending || force))
        return;
    h->pending = 0;
    clear(&h->sent);
    he_state(h, &h->sent);
    add(pending, h->sent.p, h->sent.n);
    add(pending, "\r\n", 2);
}

static void he_cards(const char *list, char *out, size_t cap) {
    size_t n = 0;
    for (const char *c = first(list); c != NULL; c = next(c)) {
        const char *t;
        size_t len = str(c, &t);
        if (n + len < cap) {
            memcpy(out + n, t, len);
            n += len;
        }
    }
    out[n] = 0;
}

static void he_start(Holdem *h, const Fields *msg) {
    h->hand = num(msg->v[K_HAND], 0);
    long long button = num(msg->v[K_BUTTON], 0);
    int in[MAX_SEATS] = {0};
    for (const char *s = first(msg->v[K_IN_HAND]); s != NULL; s = next(s)) {
        long long v = num(s, -1);
        if (ok_seat(v))
            in[v] = 1;
    }
    h->n = 0;
    for (int s = 0; s < MAX_SEATS; s++)
        if (in[s] && s > button)
            h->order[h->n++] = s;
    for (int s = 0; s < MAX_SEATS; s++)
        if (in[s] && s <= button)
            h->order[h->n++] = s;
    clear(&h->betting);
    clear(&h->boards);
    h->board_cards = 0;
    long long bets[MAX_SEATS] = {0};
    int i = 0;
    for (const char *b = first(msg->v[K_BETS]); b != NULL && i < MAX_SEATS; b = next(b))
        bets[i++] = num(b, 0);
    h->max_bet = 0;
    for (int k = 0; k < h->n; k++) {
        int s = h->order[k];
        h->committed[s] = h->street_bet[s] = bets[s];
        if (k == 0 || bets[s] > h->max_bet)
            h->max_bet = bets[s];
    }
    for (int s = 0; s < MAX_SEATS; s++)
        h->holes[s][0] = 0;
    if (ok_seat(h->seat))
        he_cards(msg->v[K_CARDS], h->holes[h->seat], sizeof h->holes[0]);
}

static void he_street(Holdem *h, const Fields *msg) {
    adds(&h->betting, "/");
    char cards[64];
    he_cards(msg->v[K_BOARD], cards, sizeof cards);
    size_t seen = 2 * (size_t)h->board_cards, len = strlen(cards);
    adds(&h->boards, "/");
    if (len > seen) {
        adds(&h->boards, cards + seen);
        h->board_cards += (int)((len - seen) / 2);
    }
    for (int k = 0; k < h->n; k++)
        h->street_bet[h->order[k]] = 0;
    h->max_bet = 0;
}

static void he_action(Holdem *h, const Fields *msg) {
    long long s = num(msg->v[K_SEAT], -1), amount = num(msg->v[K_AMOUNT], 0);
    if (!ok_seat(s))
        return;
    h->committed[s] += amount;
    h->street_bet[s] += amount;
    if (is_str(msg->v[K_ACTION], "fold")) {
        adds(&h->betting, "f");
    } else if (h->street_bet[s] > h->max_bet) {
        h->max_bet = h->street_bet[s];
        adds(&h->betting, "r");
        add_int(&h->betting, h->committed[s]);
    } else {
        adds(&h->betting, "c");
    }
}


/* The reply for the agent's response ``line`` to the last state, in ``out``:
 * the seat's action, or "ACPC agent " and the words of what is wrong. */
/* The action of a well-formed response to the state sent (NULL: not one),
 * checked as ``response_action`` checks it: the state, then one colon. */
static const char *plain_action(const Holdem *h, const char *line, size_t len) {
    size_t n = h->sent.n;
    if (n == 0 || len <= n + 1 || line[n] != ':' || memcmp(line, h->sent.p, n) != 0 ||
        memchr(line + n + 1, ':', len - n - 1) != NULL)
        return NULL;
    return line + n + 1;
}

/* What a response should have been, in the words of a wrong one. */
static void expected_words(Buf *b, const char *state) {
    adds(b, "the state it was sent followed by :f, :c or :r<N> (N: its chips committed in the hand after raising), "
            "i.e. ");
    adds(b, state);
    adds(b, ":c");
}

static void he_reply(Holdem *h, const char *line, size_t len, Buf *out) {
    const char *state = h->sent.p ? h->sent.p : "";
    Buf expected = {0}, why = {0};
    const char *action = plain_action(h, line, len); /* the common case: no words to build */
    if (action == NULL) {
        expected_words(&expected, state);
        action = response_action(line, len, state, expected.p, &why);
    }
    size_t alen = action ? len - (size_t)(action - line) : 0;
    if (action == NULL) {
        adds(out, "ACPC agent ");
        add(out, why.p, why.n);
    } else if (alen == 1 && (*action == 'c' || (*action == 'f' && h->to_call == 0))) {
        /* ACPC's dealer takes a fold where a check is free as the check it means. */
        adds(out, "{\"type\": \"action\", \"action\": \"call\"}");
    } else if (alen == 1 && *action == 'f') {
        adds(out, "{\"type\": \"action\", \"action\": \"fold\"}");
    } else if (alen >= 2 && alen <= 11 && *action == 'r' && strspn(action + 1, "0123456789") == alen - 1) {
        long long before = h->committed[h->seat] - h->street_bet[h->seat];
        adds(out, "{\"type\": \"action\", \"action\": \"raise\", \"to\": ");
        add_int(out, strtoll(action + 1, NULL, 10) - before);
        adds(out, "}");
    } else {
        if (expected.n == 0)
            expected_words(&expected, state);
        bad_action(action, line, len, expected.p, &why);
        adds(out, "ACPC agent ");
        add(out, why.p, why.n);
    }
    free(expected.p);
    free(why.p);
}

/* -- the codec object ---------------------------------------------------------- */

typedef struct {
    ArenaCodec head;
    Holdem h;
    Buf partial; /* the arena's last message, until its newline */
    Buf pending; /* states it need not answer, sent with the next one it must */
    Buf unsent;  /* bytes for the agent its socket did not take yet */
    Buf line;    /* one response, NUL-terminated */
    Buf reply;   /* the reply for it */
} Codec;

/* One holdem message (NUL-terminated) of the seat. */
static void on_message(Codec *c, const char *text) {
    Holdem *h = &c->h;
    Fields f, *msg = &f;
    fields(text, msg);
    const char *type = msg->v[K_TYPE];
    if (is_str(type, "hand_start")) {
        he_start(h, msg);
        h->pending = 1;
    } else if (is_str(type, "street")) {
        he_street(h, msg);
        h->pending = 1;
    } else if (is_str(type, "action")) {
        he_flush(h, &c->pending, 0);
        he_action(h, msg);
        h->pending = 1;
    } else if (is_str(type, "act")) {
        he_flush(h, &c->pending, 1);
        h->to_call = num(msg->v[K_TO_CALL], 0);
        /* The states it need not answer go out with this one: one send and one wake-up per decision. */
        add(&c->unsent, c->pending.p, c->pending.n);
        clear(&c->pending);
    } else if (is_str(type, "hand_end")) {
        for (const char *s = first(msg->v[K_SHOWN]); s != NULL; s = next(s)) {
            long long seat = num(get(s, "seat"), -1);
            if (ok_seat(seat))
                he_cards(get(s, "cards"), h->holes[seat], sizeof h->holes[0]);
        }
        he_flush(h, &c->pending, 1);
    } else if (is_str(type, "match_end")) {
        add(&c->unsent, c->pending.p ? c->pending.p : "", c->pending.n);
        clear(&c->pending);
    }
}

/* The seat's messages (``len`` bytes, whole lines but perhaps the last):
 * what they say for the agent joins ``unsent``. */
static void translate(Codec *c, const char *data, size_t len) {
    add(&c->partial, data, len);
    size_t start = 0;
    char *nl;
    while ((nl = memchr(c->partial.p + start, '\n', c->partial.n - start)) != NULL) {
        *nl = 0;
        on_message(c, c->partial.p + start);
        start = (size_t)(nl - c->partial.p) + 1;
    }
    memmove(c->partial.p, c->partial.p + start, c->partial.n - start);
    c->partial.n -= start;
    c->partial.p[c->partial.n] = 0;
}

/* Write what the socket takes of ``unsent``. A closed connection is not
 * said here: the seat's next read finds it, in the words of a hang-up. */
static void flush_unsent(Codec *c, int fd) {
    size_t done = 0;
    while (done < c->unsent.n) {
        ssize_t put = send(fd, c->unsent.p + done, c->unsent.n - done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (put <= 0) {
            done = c->unsent.n;
            break;
        }
        done += (size_t)put;
    }
    memmove(c->unsent.p, c->unsent.p + done, c->unsent.n - done);
    c->unsent.n -= done;
    c->unsent.p[c->unsent.n] = 0;
}

static int codec_send(ArenaCodec *head, int fd, const char *msg, int len) {
    Codec *c = (Codec *)head;
    translate(c, msg, (size_t)len);
    if (c->unsent.n)
        flush_unsent(c, fd);
    return 0;
}

/* The reply for one response line (its trailing CRs and LFs cut), in c->reply. */
static const Buf *reply_to(Codec *c, const char *line, size_t len) {
    while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    clear(&c->line);
    add(&c->line, line, len);
    clear(&c->reply);
    he_reply(&c->h, c->line.p, c->line.n, &c->reply);
    return &c->reply;
}

/* The reply for one response line in ``out``, cut at ``cap``: its length. */
static int codec_decode(ArenaCodec *head, const char *line, int len, char *out, int cap) {
    const Buf *reply = reply_to((Codec *)head, line, (size_t)len);
    int n = (int)reply->n < cap ? (int)reply->n : cap;
    memcpy(out, reply->p, (size_t)n);
    return n;
}

static PyObject *codec_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    int seat;
    static char *names[] = {"seat", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "i", names, &seat))
        return NULL;
    if (seat < 0 || seat >= MAX_SEATS) {
        PyErr_Format(PyExc_ValueError, "HoldemCodec: seat %d is not from 0 to %d", seat, MAX_SEATS - 1);
        return NULL;
    }
    Codec *c = (Codec *)type->tp_alloc(type, 0);
    if (c == NULL)
        return NULL;
    c->head.magic = ARENA_CODEC_MAGIC;
    c->head.send = codec_send;
    c->head.decode = codec_decode;
    c->h.seat = seat;
    return (PyObject *)c;
}

static void codec_dealloc(Codec *c) {
    Buf *bufs[] = {&c->h.betting, &c->h.boards, &c->h.sent, &c->partial, &c->pending, &c->unsent, &c->line, &c->reply};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]->p);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *py_translate(Codec *c, PyObject *arg) {
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0)
        return NULL;
    translate(c, b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    PyObject *out = PyBytes_FromStringAndSize(c->unsent.p ? c->unsent.p : "", (Py_ssize_t)c->unsent.n);
    clear(&c->unsent);
    return out;
}

static PyObject *py_send(Codec *c, PyObject *args) {
    int fd;
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "iy*", &fd, &b))
        return NULL;
    codec_send(&c->head, fd, b.buf, b.len > INT_MAX ? INT_MAX : (int)b.len);
    PyBuffer_Release(&b);
    return PyLong_FromSize_t(c->unsent.n);
}

static PyObject *py_reply(Codec *c, PyObject *arg) {
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0)
        return NULL;
    const Buf *reply = reply_to(c, b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    return PyBytes_FromStringAndSize(reply->p, (Py_ssize_t)reply->n);
}

static PyObject *py_state(Codec *c, void *closure) {
    (void)closure;
    return PyUnicode_DecodeUTF8(c->h.sent.p ? c->h.sent.p : "", (Py_ssize_t)c->h.sent.n, "replace");
}

static PyMethodDef codec_methods[] = {
    {"translate", (PyCFunction)py_translate, METH_O,
     "translate(data) -> bytes: the seat's messages (JSON lines) as the bytes to send the agent"},
    {"send", (PyCFunction)py_send, METH_VARARGS,
     "send(fd, data) -> int: translate data and write it to the agent's socket fd; the bytes still unsent"},
    {"reply", (PyCFunction)py_reply, METH_O,
     "reply(line) -> bytes: the seat's reply for the agent's response line (changes nothing)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef codec_getset[] = {
    {"state", (getter)py_state, NULL, "the last state sent to the agent (MATCHSTATE:...)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CodecType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena_acpc_codec.HoldemCodec",
    .tp_basicsize = sizeof(Codec),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "HoldemCodec(seat): an ACPC agent's hold'em seat, spoken to by the arena",
    .tp_new = codec_new,
    .tp_dealloc = (destructor)codec_dealloc,
    .tp_methods = codec_methods,
    .tp_getset = codec_getset,
};

static struct PyModuleDef codec_module = {PyModuleDef_HEAD_INIT, ARENA_STR(ARENA_MODULE), NULL, -1, NULL};

PyMODINIT_FUNC ARENA_CAT(PyInit_, ARENA_MODULE)(void) {
    if (PyType_Ready(&CodecType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&codec_module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "HoldemCodec", (PyObject *)&CodecType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
