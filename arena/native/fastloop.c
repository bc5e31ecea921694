/* The native exchange of any game: write an exchange's messages and read
 * the replies that come in time, as printable lines; anything else is
 * handed back to Python (arena/play/_exchange.py), which finishes the
 * exchange and says in words what was wrong. Without a compiler, or with
 * ARENA_NATIVE=0, the pure-Python path gives the same transcripts.
 */
#include "arena_exchange.h"

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
 * per send; lead as for a compiled dialogue's play function. The caller traces and charges the time. */
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
        io->codec[i] = NULL;
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
    {NULL, NULL, 0, NULL},
};

ARENA_MODULE_INIT(methods)
