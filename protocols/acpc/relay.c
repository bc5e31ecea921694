/* An ACPC agent behind an arena seat, run by the arena in the bot's sandbox
 * in place of the agent (docs/acpc.md):
 *
 *   acpc-relay [--connect-timeout S] -- CMD...
 *
 * At the match's first message it writes the game definition to its private
 * /tmp, listens on 127.0.0.1 (the loopback of the bot's own network
 * namespace), starts CMD with {host}, {port} and {gamedef} filled ("HOST
 * PORT" appended when neither address placeholder is there) and answers
 * ready once the agent has connected and said its VERSION. From then on
 * each message of the game (holdem's JSON lines, kuhn3's text blocks)
 * becomes MATCHSTATE lines and each response an action.
 *
 * An agent that misbehaves ends the relay with a sentence: on stdout in
 * place of the reply when it sent a wrong line (the arena reports it as the
 * seat's invalid reply), on stderr when it never connected or hung up (exit
 * 3: the arena charges a crash; exit 0: a disconnect). Strings are quoted in
 * the sentences as Python's repr quotes them, so the words are those the
 * arena says everywhere.
 *
 * The one copy of the live translation is here: the relay is on every
 * decision of an ACPC agent, and a Python process per seat between the arena
 * and the agent cost most of such a match (docs/speed.md). */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SEATS 64

/* -- a growable byte string ------------------------------------------------ */

typedef struct {
    char *p;
    size_t n, cap;
} Buf;

static void grow(Buf *b, size_t more) {
    if (b->n + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + more + 1)
        cap *= 2;
    b->p = realloc(b->p, cap);
    if (b->p == NULL) {
        fputs("ACPC relay: out of memory\n", stderr);
        exit(3);
    }
    b->cap = cap;
}

static void add(Buf *b, const char *s, size_t n) {
    grow(b, n);
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void adds(Buf *b, const char *s) { add(b, s, strlen(s)); }

static void addf(Buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    grow(b, (size_t)need);
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)need + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)need;
}

/* A decimal integer (the hot path's numbers: no printf). */
static void add_int(Buf *b, long long v) {
    char digits[24], *p = digits + sizeof digits;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        *--p = '-';
    add(b, p, (size_t)(digits + sizeof digits - p));
}

static void clear(Buf *b) {
    b->n = 0;
    if (b->p)
        b->p[0] = 0;
}

/* Python's repr of the text ``s`` (bytes decoded as UTF-8, a bad byte as
 * U+FFFD, as the Python relay decoded them): the quote it picks, its escapes. */
static void add_repr(Buf *b, const char *s, size_t n) {
    int single = memchr(s, '\'', n) != NULL, dbl = memchr(s, '"', n) != NULL;
    char q = (single && !dbl) ? '"' : '\'';
    add(b, &q, 1);
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        if (c < 0x80) {
            if (c == '\\' || c == (unsigned)q)
                addf(b, "\\%c", c);
            else if (c == '\n')
                adds(b, "\\n");
            else if (c == '\r')
                adds(b, "\\r");
            else if (c == '\t')
                adds(b, "\\t");
            else if (c < 0x20 || c == 0x7f)
                addf(b, "\\x%02x", c);
            else
                add(b, (const char *)&u[i], 1);
            i++;
            continue;
        }
        int len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
        unsigned cp = len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
        int ok = len > 0 && i + (size_t)len <= n;
        for (int k = 1; ok && k < len; k++) {
            if ((u[i + k] & 0xc0) != 0x80)
                ok = 0;
            cp = (cp << 6) | (u[i + k] & 0x3f);
        }
        if (ok && ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff))))
            ok = 0;
        if (!ok) {
            adds(b, "\xef\xbf\xbd");
            i++;
        } else if (cp < 0xa1 || cp == 0xad) {
            addf(b, "\\x%02x", cp);  /* C1 controls, no-break space, soft hyphen: not printable */
            i += (size_t)len;
        } else {
            add(b, (const char *)&u[i], (size_t)len);
            i += (size_t)len;
        }
    }
    add(b, &q, 1);
}

/* -- lines from a descriptor ------------------------------------------------ */

typedef struct {
    int fd;
    Buf buf;
    size_t start;
} Reader;

/* The next line without its newline (``*whole`` says whether it had one);
 * NULL at the end of the input with nothing left. */
static char *next_line(Reader *r, size_t *len, int *whole) {
    for (;;) {
        char *nl = r->buf.n > r->start ? memchr(r->buf.p + r->start, '\n', r->buf.n - r->start) : NULL;
        if (nl != NULL) {
            char *line = r->buf.p + r->start;
            *len = (size_t)(nl - line);
            *nl = 0;
            r->start += *len + 1;
            *whole = 1;
            return line;
        }
        if (r->start > 0) {
            memmove(r->buf.p, r->buf.p + r->start, r->buf.n - r->start);
            r->buf.n -= r->start;
            r->start = 0;
        }
        grow(&r->buf, 65536);
        ssize_t got = read(r->fd, r->buf.p + r->buf.n, r->buf.cap - r->buf.n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (r->buf.n == r->start)
                return NULL;
            char *line = r->buf.p + r->start;
            *len = r->buf.n - r->start;
            line[*len] = 0;
            r->start = r->buf.n;
            *whole = 0;
            return line;
        }
        r->buf.n += (size_t)got;
        r->buf.p[r->buf.n] = 0;
    }
}

/* A line with its trailing CRs and LFs cut, as Python's rstrip("\r\n"). */
static char *line_in(Reader *r, size_t *len) {
    int whole;
    char *line = next_line(r, len, &whole);
    if (line == NULL) {
        *len = 0;
        return NULL;
    }
    while (*len > 0 && (line[*len - 1] == '\r' || line[*len - 1] == '\n'))
        line[--*len] = 0;
    return line;
}

static Reader in = {0, {0}, 0};

static void write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t put = write(fd, p, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            exit(0);  /* the arena closed the seat's pipe: nothing is listening any more */
        p += put;
        n -= (size_t)put;
    }
}

/* A line on stdout: the seat's reply (or, for a wrong response, the sentence in its place). */
static void say(const char *text, size_t n) {
    Buf b = {0};
    add(&b, text, n);
    add(&b, "\n", 1);
    write_all(1, b.p, b.n);
    free(b.p);
}

static void says(const char *text) { say(text, strlen(text)); }

/* Says why on the seat's stderr and ends the relay: with 3 the arena charges
 * a crash (the agent exited), with 0 a disconnect (it hung up). */
static void gone(Buf *why, int code) {
    Buf b = {0};
    adds(&b, "ACPC agent: ");
    add(&b, why->p, why->n);
    adds(&b, "\n");
    write_all(2, b.p, b.n);
    exit(code);
}

/* An agent that never connects is, to the arena, a bot that never answers:
 * the reason goes to stderr and nothing to stdout, so the arena's own
 * deadline charges a timeout as for any silent bot. */
static void silent(Buf *why) {
    Buf b = {0};
    adds(&b, "ACPC agent: ");
    add(&b, why->p, why->n);
    adds(&b, "\n");
    write_all(2, b.p, b.n);
    char sink[4096];
    while (read(0, sink, sizeof sink) > 0 || errno == EINTR)
        errno = 0;
    exit(0);
}

/* -- the agent's connection ---------------------------------------------- */

typedef struct {
    int sock;
    pid_t agent;
    Reader from;
    Buf pending;    /* states it need not answer, sent with the next one it must */
    Buf last_sent;  /* the last state of ``pending`` (for the words of a hang-up) */
} Agent;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static char *fill(const char *arg, const char *host, const char *port, const char *game) {
    const char *keys[3] = {"{host}", "{port}", "{gamedef}"}, *values[3] = {host, port, game};
    Buf b = {0};
    adds(&b, arg);
    for (int k = 0; k < 3; k++) {
        Buf out = {0};
        adds(&out, "");
        const char *p = b.p, *hit;
        while ((hit = strstr(p, keys[k])) != NULL) {
            add(&out, p, (size_t)(hit - p));
            adds(&out, values[k]);
            p = hit + strlen(keys[k]);
        }
        adds(&out, p);
        free(b.p);
        b = out;
    }
    return b.p;
}

static int exit_code(int status) { return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status); }

/* Write the game definition, listen, start the agent, and take its connection and VERSION line. */
static void connect_agent(Agent *a, char **argv, int argc, double timeout, const char *definition) {
    const char *tmp = getenv("TMPDIR");
    Buf dir = {0};
    addf(&dir, "%s/tmpXXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir.p) == NULL) {
        Buf why = {0};
        addf(&why, "could not make a folder for the game definition in %s: %s", tmp ? tmp : "/tmp", strerror(errno));
        gone(&why, 3);
    }
    Buf game = {0};
    addf(&game, "%s/arena.game", dir.p);
    FILE *f = fopen(game.p, "w");
    if (f == NULL || fputs(definition, f) < 0 || fclose(f) != 0) {
        Buf why = {0};
        addf(&why, "could not write the game definition %s: %s", game.p, strerror(errno));
        gone(&why, 3);
    }
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof addr;
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(listener, 1) != 0 ||
        getsockname(listener, (struct sockaddr *)&addr, &alen) != 0) {
        Buf why = {0};
        addf(&why, "could not listen on 127.0.0.1 for it: %s", strerror(errno));
        gone(&why, 3);
    }
    char host[] = "127.0.0.1", port[16];
    snprintf(port, sizeof port, "%d", ntohs(addr.sin_port));
    int address_named = 0;
    for (int i = 0; i < argc; i++)
        if (strstr(argv[i], "{host}") || strstr(argv[i], "{port}"))
            address_named = 1;
    char **command = calloc((size_t)argc + 3, sizeof *command);
    int n = 0;
    for (int i = 0; i < argc; i++)
        command[n++] = fill(argv[i], host, port, game.p);
    if (!address_named) {
        command[n++] = host;
        command[n++] = port;
    }
    Buf started = {0};  /* ' '.join(command), as the agent was started */
    for (int i = 0; i < n; i++) {
        if (i)
            adds(&started, " ");
        adds(&started, command[i]);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        Buf why = {0};
        addf(&why, "could not be started (%s); started as ", strerror(errno));
        add_repr(&why, started.p, started.n);
        gone(&why, 3);
    }
    if (pid == 0) {
        /* The agent's stdout is not the arena's line: it goes to the seat's stderr log. */
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        dup2(2, 1);
        /* Nothing else of the relay's is the agent's (as Python's Popen closes them). */
        long most = sysconf(_SC_OPEN_MAX);
        for (int fd = 3; fd < (most > 0 && most < 65536 ? most : 65536); fd++)
            close(fd);
        signal(SIGPIPE, SIG_DFL);
        execvp(command[0], command);
        dprintf(2, "ACPC relay: cannot run %s: %s\n", command[0], strerror(errno));
        _exit(127);
    }
    a->agent = pid;
    /* Waited for in short steps, to tell an agent that exited from one that is slow. */
    double deadline = now() + timeout;
    int conn = -1;
    while (conn < 0) {
        struct pollfd p = {listener, POLLIN, 0};
        int ready = poll(&p, 1, 50);
        if (ready > 0) {
            conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
            if (conn < 0 && errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) {
                Buf why = {0};
                addf(&why, "could not take its connection: %s", strerror(errno));
                gone(&why, 3);
            }
            continue;
        }
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            Buf why = {0};
            addf(&why, "exited (%d) without connecting to %s:%s; expected a TCP connection and VERSION:2.0.0 "
                 "(started as ", exit_code(status), host, port);
            add_repr(&why, started.p, started.n);
            adds(&why, ")");
            gone(&why, 3);
        }
        if (now() > deadline) {
            kill(pid, SIGKILL);
            Buf why = {0};
            addf(&why, "did not connect to %s:%s within %g s of starting; expected a TCP connection and "
                 "VERSION:2.0.0 (started as ", host, port, timeout);
            add_repr(&why, started.p, started.n);
            adds(&why, ")");
            silent(&why);
        }
    }
    close(listener);
    /* Small lines each way: without this, Nagle and delayed ACKs stall every exchange ~40 ms. */
    int one = 1;
    setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    a->sock = conn;
    a->from.fd = conn;
    size_t len;
    char *hello = line_in(&a->from, &len);
    if (hello == NULL)
        hello = "", len = 0;
    if (len < 10 || memcmp(hello, "VERSION:2.", 10) != 0) {
        Buf b = {0};
        adds(&b, "ACPC agent sent ");
        add_repr(&b, hello, len);
        adds(&b, " on connecting; expected VERSION:2.0.0");
        say(b.p, b.n);
        exit(0);
    }
}

/* A state for the agent, sent with the next one it must answer. */
static void queue(Agent *a, const char *state, size_t n) {
    add(&a->pending, state, n);
    add(&a->pending, "\r\n", 2);
    clear(&a->last_sent);
    add(&a->last_sent, state, n);
}

static void flush_states(Agent *a) {
    const char *p = a->pending.p;
    size_t n = a->pending.n;
    while (n > 0) {
        ssize_t put = send(a->sock, p, n, MSG_NOSIGNAL);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0) {
            Buf why = {0};
            adds(&why, "closed the connection before it was sent ");
            add_repr(&why, a->last_sent.p, a->last_sent.n);
            gone(&why, 0);
        }
        p += put;
        n -= (size_t)put;
    }
    clear(&a->pending);
}

/* The agent's response to ``state``; a hang-up ends the relay. */
static char *response(Agent *a, const char *state, size_t *len) {
    int whole;
    char *line = next_line(&a->from, len, &whole);
    if (line == NULL || !whole) {
        Buf why = {0};
        adds(&why, "closed the connection; expected a response to ");
        add_repr(&why, state, strlen(state));
        gone(&why, 0);
    }
    while (*len > 0 && (line[*len - 1] == '\r' || line[*len - 1] == '\n'))
        line[--*len] = 0;
    return line;
}

static volatile sig_atomic_t alarmed;
static void on_alarm(int sig) { (void)sig; alarmed = 1; }

/* The match is over: the agent sees its connection close and gets a moment to exit. */
static void hang_up(Agent *a) {
    close(a->sock);
    struct sigaction sa = {0};
    sa.sa_handler = on_alarm;  /* no SA_RESTART: the wait below is interrupted */
    sigaction(SIGALRM, &sa, NULL);
    alarm(1);
    int status;
    if (waitpid(a->agent, &status, 0) != a->agent)
        kill(a->agent, SIGKILL);
    alarm(0);
}

/* A wrong response: said on stdout as the seat's reply; the relay ends. */
static void fault(Buf *words) {
    Buf b = {0};
    adds(&b, "ACPC agent ");
    add(&b, words->p, words->n);
    say(b.p, b.n);
    exit(0);
}

/* head, the action after the last colon, and the checks every response has. */
static const char *split_response(const char *line, size_t len, const char *state, const char *expected) {
    const char *colon = NULL;
    for (size_t i = len; i > 0; i--)
        if (line[i - 1] == ':') {
            colon = line + i - 1;
            break;
        }
    Buf w = {0};
    if (colon == NULL || strncmp(line, "MATCHSTATE:", 11) != 0 || (size_t)(colon - line) < 11) {
        adds(&w, "sent ");
        add_repr(&w, line, len);
        adds(&w, ", which is not an ACPC response; expected ");
        adds(&w, expected);
        fault(&w);
    }
    size_t head = (size_t)(colon - line);
    if (head != strlen(state) || memcmp(line, state, head) != 0) {
        adds(&w, "answered another state: sent ");
        add_repr(&w, line, len);
        adds(&w, "; expected a response to ");
        add_repr(&w, state, strlen(state));
        fault(&w);
    }
    return colon + 1;
}

static void bad_action(const char *action, const char *line, size_t len, const char *expected) {
    Buf w = {0};
    adds(&w, "sent the action ");
    add_repr(&w, action, len - (size_t)(action - line));
    adds(&w, " in ");
    add_repr(&w, line, len);
    adds(&w, "; expected ");
    adds(&w, expected);
    fault(&w);
}

/* -- JSON, as far as the arena's holdem messages need it -------------------- */

static const char *ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* The end of the value at ``p`` (NULL: not a value). */
static const char *skip(const char *p) {
    p = ws(p);
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++)
            if (*p == '\\' && p[1])
                p++;
        return *p ? p + 1 : NULL;
    }
    if (*p == '{' || *p == '[') {
        int depth = 0;
        for (; *p; p++) {
            if (*p == '"') {
                p = skip(p);
                if (p == NULL)
                    return NULL;
                p--;
            } else if (*p == '{' || *p == '[') {
                depth++;
            } else if (*p == '}' || *p == ']') {
                if (--depth == 0)
                    return p + 1;
            }
        }
        return NULL;
    }
    const char *start = p;
    while (*p && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
        p++;
    return p == start ? NULL : p;
}

/* The value of ``key`` in the object at ``obj`` (NULL: no such key). */
static const char *get(const char *obj, const char *key) {
    if (obj == NULL)
        return NULL;
    const char *p = ws(obj);
    if (*p != '{')
        return NULL;
    size_t klen = strlen(key);
    p = ws(p + 1);
    while (*p == '"') {
        const char *k = p + 1, *end = skip(p);
        if (end == NULL)
            return NULL;
        int match = (size_t)(end - 1 - k) == klen && memcmp(k, key, klen) == 0;
        p = ws(end);
        if (*p != ':')
            return NULL;
        p = ws(p + 1);
        if (match)
            return p;
        p = skip(p);
        if (p == NULL)
            return NULL;
        p = ws(p);
        if (*p != ',')
            return NULL;
        p = ws(p + 1);
    }
    return NULL;
}

static long long num(const char *p, long long otherwise) {
    if (p == NULL)
        return otherwise;
    char *end;
    long long v = strtoll(p, &end, 10);
    return end == p ? otherwise : v;
}

/* Whether the value at ``p`` is the string ``s``. */
static int is_str(const char *p, const char *s) {
    size_t n = strlen(s);
    return p != NULL && *p == '"' && strncmp(p + 1, s, n) == 0 && p[1 + n] == '"';
}

/* A string's raw text (the arena's card and game names need no unescaping). */
static size_t str(const char *p, const char **text) {
    if (p == NULL || *p != '"') {
        *text = "";
        return 0;
    }
    const char *end = skip(p);
    *text = p + 1;
    return end ? (size_t)(end - p - 2) : 0;
}

/* Array elements: the first (``p`` at '['), then each next; NULL after the last. */
static const char *first(const char *p) {
    if (p == NULL || *p != '[')
        return NULL;
    p = ws(p + 1);
    return *p == ']' ? NULL : p;
}

static const char *next(const char *p) {
    p = skip(p);
    if (p == NULL)
        return NULL;
    p = ws(p);
    return *p == ',' ? ws(p + 1) : NULL;
}

/* -- holdem ------------------------------------------------------------------ */

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

static void he_flush(Holdem *h, Agent *a, int force) {
    if (!(h->pending || force))
        return;
    h->pending = 0;
    clear(&h->sent);
    he_state(h, &h->sent);
    queue(a, h->sent.p, h->sent.n);
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

static void he_start(Holdem *h, const char *msg) {
    h->hand = num(get(msg, "hand"), 0);
    long long button = num(get(msg, "button"), 0);
    int in[MAX_SEATS] = {0};
    for (const char *s = first(get(msg, "in_hand")); s != NULL; s = next(s)) {
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
    for (const char *b = first(get(msg, "bets")); b != NULL && i < MAX_SEATS; b = next(b))
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
        he_cards(get(msg, "cards"), h->holes[h->seat], sizeof h->holes[0]);
}

static void he_street(Holdem *h, const char *msg) {
    adds(&h->betting, "/");
    char cards[64];
    he_cards(get(msg, "board"), cards, sizeof cards);
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

static void he_action(Holdem *h, const char *msg) {
    long long s = num(get(msg, "seat"), -1), amount = num(get(msg, "amount"), 0);
    if (!ok_seat(s))
        return;
    h->committed[s] += amount;
    h->street_bet[s] += amount;
    if (is_str(get(msg, "action"), "fold")) {
        adds(&h->betting, "f");
    } else if (h->street_bet[s] > h->max_bet) {
        h->max_bet = h->street_bet[s];
        adds(&h->betting, "r");
        add_int(&h->betting, h->committed[s]);
    } else {
        adds(&h->betting, "c");
    }
}

/* The arena's reply for the agent's response ``line`` to the last state; a wrong one ends the relay. */
static void he_reply(Holdem *h, const char *line, size_t len) {
    const char *state = h->sent.p;
    Buf expected = {0};
    adds(&expected, "the state it was sent followed by :f, :c or :r<N> (N: its chips committed in the hand after "
                    "raising), i.e. ");
    adds(&expected, state);
    adds(&expected, ":c");
    const char *action = split_response(line, len, state, expected.p);
    size_t alen = len - (size_t)(action - line);
    if (alen == 1 && *action == 'c') {
        says("{\"type\": \"action\", \"action\": \"call\"}");
    } else if (alen == 1 && *action == 'f') {
        /* ACPC's dealer takes a fold where a check is free as the check it means. */
        says(h->to_call == 0 ? "{\"type\": \"action\", \"action\": \"call\"}"
                             : "{\"type\": \"action\", \"action\": \"fold\"}");
    } else if (alen >= 2 && alen <= 11 && *action == 'r' && strspn(action + 1, "0123456789") == alen - 1) {
        long long before = h->committed[h->seat] - h->street_bet[h->seat];
        Buf b = {0};
        adds(&b, "{\"type\": \"action\", \"action\": \"raise\", \"to\": ");
        add_int(&b, strtoll(action + 1, NULL, 10) - before);
        adds(&b, "}");
        say(b.p, b.n);
        free(b.p);
    } else {
        bad_action(action, line, len, expected.p);
    }
    free(expected.p);
}

/* Why a holdem match with these parameters cannot be played by an ACPC agent (NULL: it can). */
static const char *refusal(const char *params) {
    const char *mode = get(params, "mode");
    if (mode == NULL)
        mode = get(params, "format");  /* the key's name in an arena before 0.2 */
    if (mode != NULL && !is_str(mode, "cash"))
        return "ACPC agents play cash hands only: a freezeout (stacks carried over from hand to hand, rising blinds) "
               "cannot be written as an ACPC game definition";
    if (num(get(params, "ante"), 0) != 0)
        return "ACPC game definitions have no antes: play ACPC agents with ante 0";
    if (num(get(params, "small_blind"), 1) == 0)
        return "an ACPC game definition needs a small blind above 0";
    return NULL;
}

/* The ACPC game definition of a holdem cash match with ``seats`` seats. */
static void gamedef(const char *params, int seats, Buf *out) {
    long long stack = num(get(params, "stack"), 400), sb = num(get(params, "small_blind"), 1),
              bb = num(get(params, "big_blind"), 2);
    adds(out, "GAMEDEF\nnolimit\n");
    addf(out, "numPlayers = %d\nnumRounds = 4\nstack =", seats);
    for (int i = 0; i < seats; i++)
        addf(out, " %lld", stack);
    if (seats == 2) {  /* positions (big blind, button): reverse blinds */
        addf(out, "\nblind = %lld %lld\nfirstPlayer = 2 1 1 1\n", bb, sb);
    } else {  /* positions (small blind, big blind, ..., button) */
        addf(out, "\nblind = %lld %lld", sb, bb);
        for (int i = 2; i < seats; i++)
            adds(out, " 0");
        adds(out, "\nfirstPlayer = 3 1 1 1\n");
    }
    adds(out, "numSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n");
}

static void holdem(const char *first_line, char **argv, int argc, double timeout) {
    const char *start = first_line[0] == '{' ? first_line : NULL;
    const char *game = get(start, "game");
    if (!is_str(get(start, "type"), "match_start") || !is_str(game, "holdem")) {
        Buf b = {0};
        adds(&b, "ACPC agents play holdem and kuhn3 here; this match is ");
        if (game != NULL && *game == '"') {
            const char *t;
            size_t n = str(game, &t);
            add_repr(&b, t, n);
        } else {
            adds(&b, "None");
        }
        say(b.p, b.n);
        exit(0);
    }
    const char *params = get(start, "params");
    const char *why = refusal(params);
    if (why != NULL) {
        says(why);
        exit(0);
    }
    int seats = 0;
    for (const char *p = first(get(start, "players")); p != NULL; p = next(p))
        seats++;
    Holdem h = {0};
    h.seat = (int)num(get(start, "seat"), -1);
    Buf definition = {0};
    gamedef(params, seats, &definition);
    Agent a = {0};
    connect_agent(&a, argv, argc, timeout, definition.p);
    says("{\"type\": \"ready\"}");
    size_t len;
    char *msg;
    while ((msg = line_in(&in, &len)) != NULL) {
        const char *type = get(msg, "type");
        if (is_str(type, "match_end")) {
            break;
        } else if (is_str(type, "hand_start")) {
            he_start(&h, msg);
            h.pending = 1;
        } else if (is_str(type, "street")) {
            he_street(&h, msg);
            h.pending = 1;
        } else if (is_str(type, "action")) {
            he_flush(&h, &a, 0);
            he_action(&h, msg);
            h.pending = 1;
        } else if (is_str(type, "act")) {
            he_flush(&h, &a, 1);
            h.to_call = num(get(msg, "to_call"), 0);
            /* The states it need not answer go out with this one: one send and one wake-up per decision. */
            flush_states(&a);
            size_t rlen;
            char *line = response(&a, h.sent.p, &rlen);
            he_reply(&h, line, rlen);
        } else if (is_str(type, "hand_end")) {
            for (const char *s = first(get(msg, "shown")); s != NULL; s = next(s)) {
                long long seat = num(get(s, "seat"), -1);
                if (ok_seat(seat))
                    he_cards(get(s, "cards"), h.holes[seat], sizeof h.holes[0]);
            }
            he_flush(&h, &a, 1);
        }
    }
    flush_states(&a);
    hang_up(&a);
}

/* -- kuhn3 ------------------------------------------------------------------- */

/* The ACPC package's kuhn.limit.3p game: antes of 1 (its "blinds"), one bet
 * of 1 more, four ranks (J Q K A) of one suit, position 0 acting first. */
static const char KUHN3_GAMEDEF[] =
    "GAMEDEF\nlimit\nnumPlayers = 3\nnumRounds = 1\nblind = 1 1 1\nraiseSize = 1\nfirstPlayer = 1\nmaxRaises = 1\n"
    "numSuits = 1\nnumRanks = 4\nnumHoleCards = 1\nnumBoardCards = 0\nstack = 2 2 2\nEND GAMEDEF\n";

/* One seat of kuhn3 in its local view (local 0 is this seat, +1 clockwise).
 * Position 0 is the seat clockwise of the button and acts first; the button
 * is position 2. The dealer's play lines show each seat's latest action
 * only, so the betting is replayed by the rules. */
typedef struct {
    int button;
    long long totals[3];
    long long hand;
    int order[3], me;
    char card[8];
    int front[3], folded[3], bettor, responded[3], next;  /* next: -1 once betting is over */
    char tokens[16];
    int ntokens;
    char shown[3][8];
    char sent[128];
    int asked;
} Kuhn3;

static int k3_after(Kuhn3 *k, int p) {
    int live = 0;
    for (int q = 0; q < 3; q++)
        live += !k->folded[q];
    if (live <= 1)
        return -1;
    if (k->bettor < 0)
        return p == 2 ? -1 : p + 1;  /* the first pass ends when the button checks */
    for (int d = 1; d < 3; d++) {
        int q = (p + d) % 3;
        if (q != k->bettor && !k->folded[q] && !k->responded[q])
            return q;
    }
    return -1;
}

static void k3_apply(Kuhn3 *k, int p, char token) {
    if (token == 'f') {
        k->folded[p] = 1;
    } else if (token == 'r') {
        k->front[p] = 2;
        k->bettor = p;
    } else if (k->bettor >= 0) {
        k->front[p] = 2;
    }
    if (k->bettor >= 0 && p != k->bettor)
        k->responded[p] = 1;
    if (k->ntokens < (int)sizeof k->tokens - 1)
        k->tokens[k->ntokens++] = token;
    k->tokens[k->ntokens] = 0;
    k->next = k3_after(k, p);
}

static char k3_token(Kuhn3 *k, int p, long long amount, int fold) {
    if (fold)
        return 'f';
    if (amount > k->front[p])
        return k->bettor < 0 ? 'r' : 'c';
    return k->bettor >= 0 ? 'f' : 'c';
}

static void k3_send(Kuhn3 *k, Agent *a) {
    snprintf(k->sent, sizeof k->sent, "MATCHSTATE:%d:%lld:%s:%s|%s|%s", k->me, k->hand, k->tokens, k->shown[0],
             k->shown[1], k->shown[2]);
    queue(a, k->sent, strlen(k->sent));
}

/* The text after the first colon, stripped (the kuhn3 lines' values). */
static char *value(char *line) {
    char *c = strchr(line, ':');
    char *v = c ? c + 1 : line + strlen(line);
    while (*v == ' ' || *v == '\t')
        v++;
    size_t n = strlen(v);
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r' || v[n - 1] == '\n'))
        v[--n] = 0;
    return v;
}

/* The next ``count`` lines of a block (an absent line reads as empty). */
static void block(char lines[][256], int count) {
    for (int i = 0; i < count; i++) {
        size_t len;
        char *l = line_in(&in, &len);
        snprintf(lines[i], 256, "%s", l ? l : "");
    }
}

static void k3_reply(Kuhn3 *k, const char *line, size_t len) {
    char expected[256];
    snprintf(expected, sizeof expected, "the state it was sent followed by :f, :c or :r, i.e. %s:c", k->sent);
    k->asked = 0;
    const char *action = split_response(line, len, k->sent, expected);
    size_t alen = len - (size_t)(action - line);
    char token;
    if (k->bettor < 0 && ((alen == 1 && *action == 'r') || (alen == 2 && action[0] == 'r' && action[1] == '2')))
        token = 'r';
    else if ((alen == 1 && *action == 'c') || (alen == 1 && *action == 'f' && k->bettor < 0))
        token = 'c';  /* a fold where a check is free is the check it means, as ACPC's dealer takes it */
    else if (alen == 1 && *action == 'f')
        token = 'f';
    else if (alen >= 1 && *action == 'r' && k->bettor >= 0) {
        Buf w = {0};
        adds(&w, "raised in ");
        add_repr(&w, line, len);
        adds(&w, ", and the one bet of the hand was made; expected :c or :f");
        fault(&w);
        return;
    } else {
        bad_action(action, line, len, expected);
        return;
    }
    int p = k->me, before = k->front[p];
    k3_apply(k, p, token);
    char out[32];
    if (token == 'f')
        snprintf(out, sizeof out, "FOLD %d", before);
    else
        snprintf(out, sizeof out, "BET %d", k->front[p]);
    says(out);
}

static void kuhn3(char **argv, int argc, double timeout) {
    char lines[5][256];
    block(lines, 4);  /* Money, Blinds, Button, EndProb */
    char *blinds = value(lines[1]);
    if (strcmp(blinds, "1,1,1") != 0) {
        Buf b = {0};
        adds(&b, "the ACPC kuhn.limit.3p game has antes of 1,1,1; this match has ");
        adds(&b, blinds);
        say(b.p, b.n);
        exit(0);
    }
    Agent a = {0};
    connect_agent(&a, argv, argc, timeout, KUHN3_GAMEDEF);
    Kuhn3 k = {0};
    k.button = (((int)strtol(value(lines[2]), NULL, 10) - 1) % 3 + 3) % 3;  /* moved before every hand, the first too */
    says("READY");
    for (;;) {
        size_t len;
        char *l = line_in(&in, &len);
        char head[256];
        snprintf(head, sizeof head, "%s", l ? l : "");
        if (strcmp(head, "init_hand") == 0) {
            block(lines, 2);
            k.hand = strtoll(value(lines[0]), NULL, 10);
            k.button = (k.button + 1) % 3;
            for (int p = 0; p < 3; p++) {
                k.order[p] = (k.button + 1 + p) % 3;  /* local seats by position */
                if (k.order[p] == 0)
                    k.me = p;
            }
            snprintf(k.card, sizeof k.card, "%sc", value(lines[1]));
            for (int p = 0; p < 3; p++) {
                k.front[p] = 1;
                k.folded[p] = k.responded[p] = 0;
                k.shown[p][0] = 0;
            }
            k.bettor = -1;
            k.next = 0;
            k.ntokens = 0;
            k.tokens[0] = 0;
            snprintf(k.shown[k.me], sizeof k.shown[0], "%s", k.card);
            if (k.next != k.me)
                k3_send(&k, &a);
            flush_states(&a);
            says("READY");
        } else if (strcmp(head, "play") == 0) {
            block(lines, 3);
            while (k.next >= 0 && k.next != k.me) {
                int p = k.next;
                char *v = value(lines[k.order[p]]);
                char *space = strchr(v, ' ');
                long long amount = space ? strtoll(space + 1, NULL, 10) : 0;
                k3_apply(&k, p, k3_token(&k, p, amount, strncmp(v, "FOLD", 4) == 0 && (v[4] == ' ' || !v[4])));
            }
            k.asked = 1;
            k3_send(&k, &a);
            flush_states(&a);
            size_t rlen;
            char *line = response(&a, k.sent, &rlen);
            k3_reply(&k, line, rlen);
        } else if (strcmp(head, "end_hand") == 0) {
            block(lines, 5);
            long long amounts[3];
            for (int i = 0; i < 3; i++) {
                char *v = value(lines[i]), *space = strchr(v, ' ');
                amounts[i] = space ? strtoll(space + 1, NULL, 10) : 0;
            }
            while (k.next >= 0) {
                int p = k.next;
                k3_apply(&k, p, k3_token(&k, p, amounts[k.order[p]], 0));
            }
            char *show = value(lines[3]);
            char cards[3][8] = {"", "", ""};
            for (int i = 0; i < 3 && show; i++) {
                char *comma = strchr(show, ',');
                size_t n = comma ? (size_t)(comma - show) : strlen(show);
                snprintf(cards[i], sizeof cards[i], "%.*s", (int)(n < 6 ? n : 6), show);
                show = comma ? comma + 1 : NULL;
            }
            for (int p = 0; p < 3; p++)
                if (strcmp(cards[k.order[p]], "-") != 0)
                    snprintf(k.shown[p], sizeof k.shown[p], "%sc", cards[k.order[p]]);
            for (int i = 0; i < 3; i++)
                k.totals[i] -= amounts[i];
            char *pots = value(lines[4]), *save = NULL;
            for (char *pot = strtok_r(pots, " \t", &save); pot; pot = strtok_r(NULL, " \t", &save)) {
                char *comma = strchr(pot, ',');
                int winner = comma ? atoi(comma + 1) : -1;
                if (winner >= 0 && winner < 3)
                    k.totals[winner] += strtoll(pot, NULL, 10);
            }
            k3_send(&k, &a);
            flush_states(&a);
            says("OK");
        } else if (strncmp(head, "EndAction:", 10) == 0) {
            block(lines, 2);
            char out[96];
            snprintf(out, sizeof out, "Money: %lld,%lld,%lld", k.totals[0], k.totals[1], k.totals[2]);
            says(out);
        } else {  /* end_round, or the end of the input */
            block(lines, 2);
            says("Thank you dealer, have a nice day!");
            break;
        }
    }
    hang_up(&a);
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);  /* a closed pipe or socket is an error return, said in words */
    double timeout = 10.0;
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "--connect-timeout") == 0) {
        timeout = strtod(argv[i + 1], NULL);
        i += 2;
    }
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    if (i >= argc) {
        fputs("usage: acpc-relay [--connect-timeout S] -- CMD...\n", stderr);
        return 2;
    }
    size_t len;
    char *first_line = line_in(&in, &len);
    if (first_line != NULL && strcmp(first_line, "init_round") == 0) {
        kuhn3(argv + i, argc - i, timeout);
        return 0;
    }
    /* the first line is copied: the reader's buffer moves under later lines */
    char *start = strdup(first_line ? first_line : "");
    holdem(start, argv + i, argc - i, timeout);
    return 0;
}
