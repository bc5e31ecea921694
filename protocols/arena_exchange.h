/* The arena's side of native exchanges, shared by every extension it builds:
 * the per-seat I/O state and one exchange over the bots' pipes (write every
 * message, then read the replies that come within the spin budget and each
 * seat's deadline), handing back whatever is not plain.
 *
 * Included by arena/native/fastloop.c (the exchange of any game) and by a
 * game's compiled dialogue (protocols/kuhn3_compiled.c), each built by
 * arena/native/__init__.py into the private cache with -DARENA_MODULE=<name>.
 * It sits beside the game contract so that a game includes it from below,
 * never from the arena's own folder.
 * Everything here is static: each extension has its own copy.
 */
#ifndef ARENA_EXCHANGE_H
#define ARENA_EXCHANGE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define READ_MAX 65536
#define MAXS_IO 16 /* Io is indexed by seat: the most seats a game has */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- tuples of integers between Python and a compiled dialogue ---------- */

/* out[0..n) from a tuple of n integers; -1 with a Python error otherwise. */
static inline int read_ints(PyObject *seq, long long *out, Py_ssize_t n, const char *what) {
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

/* A new tuple of x[0..n), or NULL with a Python error. */
static inline PyObject *ints_tuple(const long long *x, Py_ssize_t n) {
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyLong_FromLongLong(x[i]);
        if (o == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, o);
    }
    return t;
}

/* ---- a seat's codec ----------------------------------------------------- */

/* A seat whose bot speaks another protocol on its connection (an ACPC
 * agent: protocols/acpc/codec.c). Its object begins with this head: the
 * exchange writes the seat's messages through ``send`` (translated and
 * written to fd; a connection gone is found by the next read) and reads each
 * reply line through ``decode`` (the reply in the game's own protocol, cut at
 * cap; it changes nothing, so a line handed back is read again the same). */
#define ARENA_CODEC_MAGIC 0x41435043u
typedef struct ArenaCodec {
    PyObject_HEAD
    unsigned magic;
    int (*send)(struct ArenaCodec *c, int fd, const char *msg, int len);
    int (*decode)(struct ArenaCodec *c, const char *line, int len, char *out, int cap);
} ArenaCodec;

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
    ArenaCodec *codec[MAXS_IO]; /* NULL: the seat speaks the game's protocol (borrowed for one call) */
    char rbuf[READ_MAX];
} Io;

/* A compiled dialogue's Io from its caller's arguments, for seats 0..n-1:
 * the pipes, each seat's clock so far, the limits and the tracer (None: the
 * caller traces). -1 with a Python error when an argument is not as said. */
static inline int io_open(Io *io, int n, PyObject *wfds, PyObject *rfds, PyObject *time_used, PyObject *slowest,
                          double timeout, double budget, double spin, long max_line, PyObject *trace) {
    long long fds[MAXS_IO];
    if (n < 1 || n > MAXS_IO) {
        PyErr_Format(PyExc_ValueError, "%d seats: from 1 to %d", n, MAXS_IO);
        return -1;
    }
    if (read_ints(wfds, fds, n, "wfds") < 0)
        return -1;
    for (int s = 0; s < n; s++)
        io->wfd[s] = (int)fds[s];
    if (read_ints(rfds, fds, n, "rfds") < 0)
        return -1;
    if (!PyTuple_Check(time_used) || PyTuple_GET_SIZE(time_used) != n || !PyTuple_Check(slowest) ||
        PyTuple_GET_SIZE(slowest) != n) {
        PyErr_Format(PyExc_ValueError, "time_used, slowest: tuples of %d numbers", n);
        return -1;
    }
    for (int s = 0; s < n; s++) {
        io->rfd[s] = (int)fds[s];
        io->time_used[s] = PyFloat_AsDouble(PyTuple_GET_ITEM(time_used, s));
        io->slowest[s] = PyFloat_AsDouble(PyTuple_GET_ITEM(slowest, s));
        io->extra[s] = NULL;
        io->eof[s] = 0;
        io->codec[s] = NULL;
    }
    if (PyErr_Occurred())
        return -1;
    io->timeout = timeout;
    io->budget = budget;
    io->spin = spin;
    io->max_line = max_line;
    io->trace = trace == Py_None ? NULL : trace;
    return 0;
}

/* The seats' codecs from a tuple of n (None, or an object with the ArenaCodec head). */
static inline int io_codecs(Io *io, int n, PyObject *codecs) {
    if (!PyTuple_Check(codecs) || PyTuple_GET_SIZE(codecs) != n) {
        PyErr_Format(PyExc_ValueError, "codecs: a tuple of %d (None or a seat codec)", n);
        return -1;
    }
    for (int s = 0; s < n; s++) {
        PyObject *c = PyTuple_GET_ITEM(codecs, s);
        if (c == Py_None) {
            io->codec[s] = NULL;
            continue;
        }
        if (Py_TYPE(c)->tp_basicsize < (Py_ssize_t)sizeof(ArenaCodec) || ((ArenaCodec *)c)->magic != ARENA_CODEC_MAGIC) {
            PyErr_Format(PyExc_TypeError, "codecs: seat %d's is not a seat codec", s);
            return -1;
        }
        io->codec[s] = (ArenaCodec *)c;
    }
    return 0;
}

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

/* ---- rendering a message -----------------------------------------------
 *
 * The compiled dialogues build their messages with memcpy and a hand-rolled
 * itoa: printf was a tenth of the arena's time. Past `cap` only the length
 * grows, so an overlong message is found after rendering. */
typedef struct {
    char *p;
    int n, cap;
} Out;

static inline void out_bytes(Out *b, const char *s, int len) {
    if (b->n + len <= b->cap)
        memcpy(b->p + b->n, s, (size_t)len);
    b->n += len;
}

#define OUT(b, lit) out_bytes(b, lit, (int)sizeof(lit) - 1)

static inline void out_str(Out *b, const char *s) { out_bytes(b, s, (int)strlen(s)); }

static inline void out_char(Out *b, char c) { out_bytes(b, &c, 1); }

static inline void out_ll(Out *b, long long v) {
    char tmp[24];
    int i = (int)sizeof tmp;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[--i] = '-';
    out_bytes(b, tmp + i, (int)sizeof tmp - i);
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
        if (io->codec[s] != NULL) { /* translated and written; what the socket does not take waits in it */
            ex->sent_at[i] = now_s();
            if (io->codec[s]->send(io->codec[s], io->wfd[s], ex->msg[i], ex->len[i]) < 0)
                return IO_ERROR;
            ex->written = i + 1;
            if (trace_text(io, s, "->", ex->msg[i], ex->len[i]) < 0)
                return IO_ERROR;
            continue;
        }
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
            const char *line = io->rbuf;
            int line_len = (int)(r - 1);
            char decoded[512];
            if (one_line && io->codec[s] != NULL) {
                line_len = io->codec[s]->decode(io->codec[s], io->rbuf, line_len, decoded, sizeof decoded);
                line = decoded;
            }
            if (!one_line || !accept(ctx, i, line, line_len)) {
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
            if (trace_text(io, s, "<-", line, line_len) < 0)
                return IO_ERROR;
        }
        if (left == 0)
            return IO_DONE;
    }
}

static Io shared_io; /* its read buffer is large: one, used by one call at a time */


/* The module's init function, named after -DARENA_MODULE (the file name the
 * builder gives the extension). */
#define ARENA_CAT2(a, b) a##b
#define ARENA_CAT(a, b) ARENA_CAT2(a, b)
#define ARENA_STR2(a) #a
#define ARENA_STR(a) ARENA_STR2(a)
#define ARENA_MODULE_INIT(methods)                                                                   \
    static struct PyModuleDef arena_module = {PyModuleDef_HEAD_INIT, ARENA_STR(ARENA_MODULE), NULL, -1, \
                                              methods};                                              \
    PyMODINIT_FUNC ARENA_CAT(PyInit_, ARENA_MODULE)(void) { return PyModule_Create(&arena_module); }

#endif
