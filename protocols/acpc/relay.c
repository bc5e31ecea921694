/* An ACPC agent behind an arena seat, run by the arena in the bot's sandbox
 * in place of the agent (docs/acpc.md):
 *
 *   acpc-relay [--connect-timeout S] [--hand-over FD] -- CMD...
 *
 * At the match's first message it writes the game definition to its private
 * /tmp, listens on 127.0.0.1 (the loopback of the bot's own network
 * namespace), starts CMD with {host}, {port} and {gamedef} filled ("HOST
 * PORT" appended when neither address placeholder is there) and takes the
 * agent's connection and VERSION line.
 *
 * holdem: it then hands the connected socket to the arena over FD (a unix
 * socket the arena gave it: "holdem SEAT" with the descriptor), answers
 * ready, and is out of the way: the arena speaks to the agent itself
 * through the seat's ACPC codec (codec.c), with no process between them.
 * It stays as the agent's parent until the arena closes its stdin.
 *
 * kuhn3: it translates, each message of the game (text blocks) becoming
 * MATCHSTATE lines and each response an action.
 *
 * An agent that misbehaves ends the relay with a sentence: on stdout in
 * place of the reply when it sent a wrong line (the arena reports it as the
 * seat's invalid reply), on stderr when it never connected or hung up (exit
 * 3: the arena charges a crash; exit 0: a disconnect). Strings are quoted in
 * the sentences as Python's repr quotes them, so the words are those the
 * arena says everywhere. */

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
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void out_of_memory(void) {
    fputs("ACPC relay: out of memory\n", stderr);
    exit(3);
}

#include "acpc_text.h"

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
        /* Nothing else of the relay's is the agent's (as Python's Popen closes
         * them): in one call where the kernel has it, for a loop to the
         * descriptor limit was twenty thousand calls at each start. */
#ifdef SYS_close_range
        if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
#endif
        {
            long most = sysconf(_SC_OPEN_MAX);
            for (int fd = 3; fd < (most > 0 && most < 65536 ? most : 65536); fd++)
                close(fd);
        }
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
    if (a->sock >= 0)
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

/* The action of a response, or the relay ends with the words of what is wrong. */
static const char *split_response(const char *line, size_t len, const char *state, const char *expected) {
    Buf why = {0};
    const char *action = response_action(line, len, state, expected, &why);
    if (action == NULL)
        fault(&why);
    return action;
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


/* The connected agent to the arena over ``hand_over``: the seat in words,
 * the socket as a descriptor. The relay keeps no copy of it. */
static void give_socket(Agent *a, int hand_over, int seat) {
    char words[32];
    int n = snprintf(words, sizeof words, "holdem %d", seat);
    struct iovec iov = {words, (size_t)n};
    char control[CMSG_SPACE(sizeof(int))];
    memset(control, 0, sizeof control);
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &a->sock, sizeof(int));
    ssize_t sent;
    do
        sent = sendmsg(hand_over, &msg, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent != n) {
        Buf why = {0};
        addf(&why, "could not be handed to the arena (%s)", sent < 0 ? strerror(errno) : "a short send");
        gone(&why, 3);
    }
    close(hand_over);
    close(a->sock);
    a->sock = -1;
}

static void holdem(const char *first_line, char **argv, int argc, double timeout, int hand_over) {
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
    if (hand_over < 0) {
        says("the ACPC relay plays holdem only with --hand-over FD, a unix socket to the arena "
             "(the arena gives it; run agents as acpc:CMD)");
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
    long long seat = num(get(start, "seat"), -1);
    if (seat < 0 || seat >= 64) {
        says("ACPC agents need the seat's number in match_start, from 0 to 63");
        exit(0);
    }
    Buf definition = {0};
    gamedef(params, seats, &definition);
    Agent a = {0};
    connect_agent(&a, argv, argc, timeout, definition.p);
    give_socket(&a, hand_over, (int)seat);
    says("{\"type\": \"ready\"}");
    /* The arena speaks to the agent now; its messages here are read and dropped until it closes our stdin. */
    char sink[4096];
    ssize_t got;
    while ((got = read(0, sink, sizeof sink)) > 0 || (got < 0 && errno == EINTR))
        ;
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
        Buf why = {0};
        bad_action(action, line, len, expected, &why);
        fault(&why);
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
    int hand_over = -1;
    int i = 1;
    for (;;) {
        if (i + 1 < argc && strcmp(argv[i], "--connect-timeout") == 0) {
            timeout = strtod(argv[i + 1], NULL);
            i += 2;
        } else if (i + 1 < argc && strcmp(argv[i], "--hand-over") == 0) {
            hand_over = atoi(argv[i + 1]);
            i += 2;
        } else {
            break;
        }
    }
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    if (i >= argc) {
        fputs("usage: acpc-relay [--connect-timeout S] [--hand-over FD] -- CMD...\n", stderr);
        return 2;
    }
    if (hand_over >= 0) {
        struct stat st;
        if (fstat(hand_over, &st) != 0 || !S_ISSOCK(st.st_mode))
            hand_over = -1;  /* not given after all: holdem says so */
        else
            fcntl(hand_over, F_SETFD, FD_CLOEXEC);  /* never the agent's */
    }
    size_t len;
    char *first_line = line_in(&in, &len);
    if (first_line != NULL && strcmp(first_line, "init_round") == 0) {
        if (hand_over >= 0)
            close(hand_over);
        kuhn3(argv + i, argc - i, timeout);
        return 0;
    }
    /* the first line is copied: the reader's buffer moves under later lines */
    char *start = strdup(first_line ? first_line : "");
    holdem(start, argv + i, argc - i, timeout, hand_over);
    return 0;
}
