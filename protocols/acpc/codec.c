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
 * holdem dialogue reads: an action, or for a wrong response the fault line
 * (acpc_text.h's acpc_fault), which the dialogue refuses as the seat's
 * invalid reply and the arena reports in ACPC's words. ``reply`` changes
 * nothing, so the compiled dialogue may try a line and hand it back to
 * Python to be read again. The translation itself, which the relay also
 * runs under --acpc-lenient, is acpc_text.h's.
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

/* One holdem message (NUL-terminated) of the seat: the states held go out
 * when the agent is asked (one send and one wake-up per decision) or the match ends. */
static void on_message(Codec *c, const char *text) {
    if (he_message(&c->h, text, &c->pending) != HE_NOTICE) {
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
    he_reply(&c->h, c->line.p, c->line.n, 0, &c->reply);
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
    he_free(&c->h);
    Buf *bufs[] = {&c->partial, &c->pending, &c->unsent, &c->line, &c->reply};
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
