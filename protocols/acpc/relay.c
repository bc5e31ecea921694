/* An ACPC agent behind an arena seat, run by the arena in the bot's sandbox
 * in place of the agent (docs/acpc.md):
 *
 *   acpc-relay [--connect-timeout S] [--hand-over FD] [--lenient] -- CMD...
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
 * MATCHSTATE lines and each response an action. With --lenient (the arena's
 * --acpc-lenient) it translates holdem too, keeping the agent's connection:
 * the agent's lines are then read as the ACPC dealer reads them, its
 * tolerances included (acpc_text.h).
 *
 * An agent that misbehaves ends the relay: a wrong line is reported on
 * stdout in place of the reply, as the fault line (acpc_text.h's
 * acpc_fault), which the arena refuses as the seat's invalid reply and puts
 * in ACPC's words; an agent that never connected or hung up is said on
 * stderr (exit 3: the arena charges a crash; exit 0: a disconnect). Strings
 * are quoted in those sentences as Python's repr quotes them, so the words
 * are those the arena says everywhere. */

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

/* The most of an agent's line a fault line quotes: kuhn3 takes replies of
 * 256 bytes at most, and the fault line stands in place of one. */
#define FAULT_CAP 64

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
        adds(&b, "{\"acpc_fault\": \"version\", \"received\": ");
        add_json_str(&b, hello, len, FAULT_CAP);
        adds(&b, "}");
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

/* A wrong response: its fault line said on stdout as the seat's reply; the relay ends. */
static void fault(Buf *line) {
    say(line->p, line->n);
    exit(0);
}

/* -- the match's game definition (params.gamedef: ACPC's keys in snake case) -- */

#define DEF_PLAYERS 10 /* ACPC's MAX_PLAYERS */
#define DEF_ROUNDS 4
#define DEF_STACK 2147483647LL /* ACPC's default stack, the largest int32 */
#define DEF_MAX_RAISES 255
#define DEF_ACTIONS 64 /* ACPC's MAX_NUM_ACTIONS, a round's */

typedef struct {
    int limit, players, rounds;
    long long stack[DEF_PLAYERS], blind[DEF_PLAYERS];
    long long raise_size[DEF_ROUNDS], first_player[DEF_ROUNDS], max_raises[DEF_ROUNDS], board[DEF_ROUNDS];
    int nraise; /* raise sizes given: 0 in a no-limit game */
    long long suits, ranks, hole;
} Def;

/* The list of numbers ``key`` of ``def`` into ``v``: how many (-1: not a list of numbers, or more than ``most``). */
static int def_list(const char *def, const char *key, long long *v, int most) {
    const char *p = get(def, key);
    if (p == NULL || *p != '[')
        return -1;
    int n = 0;
    for (const char *e = first(p); e != NULL; e = next(e)) {
        if (n == most || (*e != '-' && (*e < '0' || *e > '9')))
            return -1;
        v[n++] = num(e, 0);
    }
    return n;
}

static int def_number(const char *def, const char *key, long long *v) {
    const char *p = get(def, key);
    if (p == NULL || (*p != '-' && (*p < '0' || *p > '9')))
        return -1;
    *v = num(p, 0);
    return 0;
}

/* The game definition ``def`` (a JSON object): 0, or -1 when it is not a whole one. */
static int read_def(const char *def, Def *d) {
    memset(d, 0, sizeof *d);
    const char *betting = get(def, "betting");
    if (!is_str(betting, "limit") && !is_str(betting, "nolimit"))
        return -1;
    d->limit = is_str(betting, "limit");
    long long players, rounds;
    if (def_number(def, "num_players", &players) || def_number(def, "num_rounds", &rounds) || players < 2 ||
        players > DEF_PLAYERS || rounds < 1 || rounds > DEF_ROUNDS)
        return -1;
    d->players = (int)players;
    d->rounds = (int)rounds;
    d->nraise = def_list(def, "raise_size", d->raise_size, DEF_ROUNDS);
    if (def_list(def, "stack", d->stack, DEF_PLAYERS) != d->players ||
        def_list(def, "blind", d->blind, DEF_PLAYERS) != d->players ||
        (d->nraise != d->rounds && (d->limit || d->nraise != 0)) ||
        def_list(def, "first_player", d->first_player, DEF_ROUNDS) != d->rounds ||
        def_list(def, "max_raises", d->max_raises, DEF_ROUNDS) != d->rounds ||
        def_list(def, "num_board_cards", d->board, DEF_ROUNDS) != d->rounds ||
        def_number(def, "num_suits", &d->suits) || def_number(def, "num_ranks", &d->ranks) ||
        def_number(def, "num_hole_cards", &d->hole))
        return -1;
    return 0;
}

/* Why a holdem match with these parameters cannot be played by an ACPC agent (NULL: it can), in
 * ``why`` when it needs numbers: the words of protocols/acpc/_translate.py's refusal, the same checks. */
static const char *refusal(const char *params, Buf *why) {
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
    if (num(get(params, "stack"), 400) < num(get(params, "big_blind"), 2))
        return "the ACPC dealer refuses a game definition whose blind is above a player's stack: play ACPC agents "
               "with a stack of at least the big blind";
    const char *def = get(params, "gamedef");
    if (def == NULL || strncmp(def, "null", 4) == 0)
        return NULL;
    Def d;
    if (read_def(def, &d) != 0)
        return "the match's gamedef is not a whole ACPC game definition (its every key, as the arena writes one), "
               "and ACPC agents are given the match's own";
    if (d.players == 2 && d.blind[0] == d.blind[1])
        return "heads-up with equal blinds the arena asks the big blind first before the flop, and this game "
               "definition the button (firstPlayer = 2): ACPC agents would be asked out of turn; play them with "
               "a big blind above the small blind";
    if (!d.limit)
        return NULL;
    for (int r = 0; r < d.rounds; r++) {
        if (d.max_raises[r] * (d.players - 1) + d.players > DEF_ACTIONS) {
            addf(why, "the ACPC dealer allows no raise that could take a round past %d actions, and a cap of %lld "
                 "bets and raises a round can with %d players: play ACPC agents with maxRaises of at most %d a round",
                 DEF_ACTIONS, d.max_raises[r], d.players, (DEF_ACTIONS - d.players) / (d.players - 1));
            return why->p;
        }
    }
    long long most = 0, put = 0;
    for (int p = 0; p < d.players; p++)
        most = d.blind[p] > most ? d.blind[p] : most;
    for (int r = 0; r < d.rounds; r++)
        put += d.max_raises[r] * d.raise_size[r];
    most += put;
    if (d.stack[0] < most) {
        addf(why, "in a limit game whose stacks can run out the ACPC dealer's betting is not the arena's (it lets "
             "a seat that can only call raise, and a short all-in reopen the betting): play ACPC agents with "
             "stacks of at least %lld, what the caps let a seat put in (or no stack line: ACPC's %lld)",
             most, DEF_STACK);
        return why->p;
    }
    return NULL;
}

/* One line of a game definition: ``key = v0 v1 ...``. */
static void def_line(Buf *out, const char *key, const long long *v, int n) {
    adds(out, key);
    adds(out, " =");
    for (int i = 0; i < n; i++)
        addf(out, " %lld", v[i]);
    adds(out, "\n");
}

/* The match's own definition, as games/holdem/_gamedef.py's GameDef.to_acpc writes it (the layout
 * the ACPC dealer prints one in, its defaults left out). */
static void write_def(const Def *d, Buf *out) {
    addf(out, "GAMEDEF\n%s\nnumPlayers = %d\nnumRounds = %d\n", d->limit ? "limit" : "nolimit", d->players,
         d->rounds);
    int stacks = 0, firsts = 0, caps = 0;
    for (int p = 0; p < d->players; p++)
        stacks |= d->stack[p] != DEF_STACK;
    for (int r = 0; r < d->rounds; r++) {
        firsts |= d->first_player[r] != 1;
        caps |= d->max_raises[r] != DEF_MAX_RAISES;
    }
    if (stacks)
        def_line(out, "stack", d->stack, d->players);
    def_line(out, "blind", d->blind, d->players);
    if (d->nraise > 0)
        def_line(out, "raiseSize", d->raise_size, d->nraise);
    if (firsts)
        def_line(out, "firstPlayer", d->first_player, d->rounds);
    if (caps)
        def_line(out, "maxRaises", d->max_raises, d->rounds);
    addf(out, "numSuits = %lld\nnumRanks = %lld\nnumHoleCards = %lld\n", d->suits, d->ranks, d->hole);
    def_line(out, "numBoardCards", d->board, d->rounds);
    adds(out, "END GAMEDEF\n");
}

/* The ACPC game definition of a holdem cash match with ``seats`` seats: its gamedef when it has
 * one (``limit`` says whether it is a limit game), else the no-limit game of its stack and blinds. */
static void gamedef(const char *params, int seats, Buf *out, int *limit) {
    Def d;
    const char *def = get(params, "gamedef");
    *limit = 0;
    if (def != NULL && read_def(def, &d) == 0) {
        write_def(&d, out);
        *limit = d.limit;
        return;
    }
    long long stack = num(get(params, "stack"), 400), sb = num(get(params, "small_blind"), 1),
              bb = num(get(params, "big_blind"), 2);
    adds(out, "GAMEDEF\nnolimit\n");
    addf(out, "numPlayers = %d\nnumRounds = 4\nstack =", seats);
    for (int i = 0; i < seats; i++)
        addf(out, " %lld", stack);
    if (seats == 2) {  /* positions (big blind, button): reverse blinds */
        /* The button acts first before the flop, as the arena asks it; but with equal blinds
         * the arena takes the button's as the largest posted (a tie goes to the later position)
         * and asks the seat after it, position 0, first: so does this definition. */
        addf(out, "\nblind = %lld %lld\nfirstPlayer = %d 1 1 1\n", bb, sb, sb == bb ? 1 : 2);
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

/* --acpc-lenient: the relay keeps the agent's connection and translates
 * itself, with the codec's translation (acpc_text.h), reading the agent's
 * lines as the ACPC dealer reads them, its tolerances included. */
static void holdem_lenient(Agent *a, int seat, int limit) {
    Holdem h = {0};
    h.seat = seat;
    h.limit = limit;
    h.known = 1;
    Buf held = {0}, reply = {0};
    says("{\"type\": \"ready\"}");
    size_t len;
    char *message;
    while ((message = line_in(&in, &len)) != NULL) {
        int due = he_message(&h, message, &held);
        if (due == HE_NOTICE)
            continue;
        add(&a->pending, held.p ? held.p : "", held.n);
        clear(&held);
        clear(&a->last_sent);
        add(&a->last_sent, h.sent.p ? h.sent.p : "", h.sent.n);
        flush_states(a);
        if (due == HE_END)
            continue;
        for (;;) {  /* the lines the dealer would skip are skipped */
            size_t rlen;
            char *line = response(a, h.sent.p ? h.sent.p : "", &rlen);
            clear(&reply);
            if (he_reply(&h, line, rlen, 1, &reply))
                break;
        }
        say(reply.p, reply.n);
    }
    hang_up(a);
}

static void holdem(const char *first_line, char **argv, int argc, double timeout, int hand_over, int lenient) {
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
    if (hand_over < 0 && !lenient) {
        says("the ACPC relay plays holdem only with --hand-over FD, a unix socket to the arena "
             "(the arena gives it; run agents as acpc:CMD)");
        exit(0);
    }
    const char *params = get(start, "params");
    Buf words = {0};
    const char *why = refusal(params, &words);
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
    int limit;
    gamedef(params, seats, &definition, &limit);
    Agent a = {0};
    connect_agent(&a, argv, argc, timeout, definition.p);
    if (lenient) {
        if (hand_over >= 0)
            close(hand_over);  /* nothing handed over: the arena goes on speaking to the relay */
        holdem_lenient(&a, (int)seat, limit);
        return;
    }
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
 * of 1 more, four ranks (J Q K A) of one suit, position 0 acting first. Its
 * dealer deals the deck's last suit and ranks: Js, Qs, Ks, As. */
static const char KUHN3_GAMEDEF[] =
    "GAMEDEF\nlimit\nnumPlayers = 3\nnumRounds = 1\nblind = 1 1 1\nraiseSize = 1\nfirstPlayer = 1\nmaxRaises = 1\n"
    "numSuits = 1\nnumRanks = 4\nnumHoleCards = 1\nnumBoardCards = 0\nstack = 2 2 2\nEND GAMEDEF\n";

static const AcpcShape KUHN3_SHAPE = {3, 1, 0, {0, 0, 0, 0}};

/* One seat of kuhn3 in its local view (local 0 is this seat, +1 clockwise).
 * Position 0 is the seat clockwise of the button and acts first; the button
 * is position 2. The dealer's play lines show each seat's latest action
 * only, so the betting is replayed by the rules. As the ACPC dealer does,
 * the agent is sent the state before the first action, the state after
 * each action, and the final one with the cards shown (every seat's not
 * folded, when more than one is left: the arena tells an ACPC seat's relay
 * them all). */
typedef struct {
    int button;
    long long totals[3];
    long long hand;
    int order[3], me;
    int front[3], folded[3], bettor, responded[3], next; /* next: -1 once betting is over */
    char tokens[16];
    int ntokens;
    char shown[3][8];
    char sent[128]; /* the last state sent */
    int lenient;
} Kuhn3;

static int k3_after(Kuhn3 *k, int p) {
    int live = 0;
    for (int q = 0; q < 3; q++)
        live += !k->folded[q];
    if (live <= 1)
        return -1;
    if (k->bettor < 0)
        return p == 2 ? -1 : p + 1; /* the first pass ends when the button checks */
    for (int d = 1; d < 3; d++) {
        int q = (p + d) % 3;
        if (q != k->bettor && !k->folded[q] && !k->responded[q])
            return q;
    }
    return -1;
}

static void k3_send(Kuhn3 *k, Agent *a) {
    snprintf(k->sent, sizeof k->sent, "MATCHSTATE:%d:%lld:%s:%s|%s|%s", k->me, k->hand, k->tokens, k->shown[0],
             k->shown[1], k->shown[2]);
    queue(a, k->sent, strlen(k->sent));
}

/* Position ``p`` acts; the state after it is queued while the betting goes on
 * (the last one waits for the cards shown at end_hand). */
static void k3_apply(Kuhn3 *k, Agent *a, int p, char token) {
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
    if (k->next >= 0)
        k3_send(k, a);
}

static char k3_token(Kuhn3 *k, int p, long long amount, int fold) {
    if (fold)
        return 'f';
    if (amount > k->front[p])
        return k->bettor < 0 ? 'r' : 'c';
    return k->bettor >= 0 ? 'f' : 'c';
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

/* The agent's response to the state sent, as the seat's reply (BET n or FOLD n). */
static void k3_reply(Kuhn3 *k, Agent *a) {
    char valid[4];
    snprintf(valid, sizeof valid, "%s", k->bettor < 0 ? "cr" : "cf");
    char token;
    for (;;) {
        size_t len;
        char *line = response(a, k->sent, &len);
        AcpcAction act;
        int read = acpc_response(&KUHN3_SHAPE, k->sent, line, &act);
        static const char *const code[] = {"", "comment", "bad_state", "other_state", "bad_action"};
        if (read == ACPC_BAD_ACTION && k->lenient) {
            act.type = 'c'; /* the dealer: "bad action format in response, changed to call" */
            read = ACPC_ACTION;
        }
        if (read != ACPC_ACTION) {
            if (k->lenient)
                continue; /* the dealer ignores the line and waits for another */
            Buf f = {0};
            acpc_fault(&f, code[read], line, len, FAULT_CAP, k->sent, act.at, valid, 1, 0);
            fault(&f);
        }
        if (act.type == 'r' && k->bettor >= 0) { /* the one bet of the hand was made */
            if (!k->lenient) {
                Buf f = {0};
                acpc_fault(&f, "invalid_action", line, len, FAULT_CAP, k->sent, act.at, valid, 1, 0);
                fault(&f);
            }
            act.type = 'c'; /* "invalid action, changed to call" */
        }
        /* a fold where a check is free is the check it means, as the dealer takes it */
        token = act.type == 'f' && k->bettor < 0 ? 'c' : act.type;
        break;
    }
    int p = k->me, before = k->front[p];
    k3_apply(k, a, p, token);
    char out[32];
    if (token == 'f')
        snprintf(out, sizeof out, "FOLD %d", before);
    else
        snprintf(out, sizeof out, "BET %d", k->front[p]);
    says(out);
}

static void kuhn3(char **argv, int argc, double timeout, int lenient) {
    char lines[5][256];
    block(lines, 4); /* Money, Blinds, Button, EndProb */
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
    k.lenient = lenient;
    k.button = (((int)strtol(value(lines[2]), NULL, 10) - 1) % 3 + 3) % 3; /* moved before every hand, the first too */
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
                k.order[p] = (k.button + 1 + p) % 3; /* local seats by position */
                if (k.order[p] == 0)
                    k.me = p;
            }
            for (int p = 0; p < 3; p++) {
                k.front[p] = 1;
                k.folded[p] = k.responded[p] = 0;
                k.shown[p][0] = 0;
            }
            k.bettor = -1;
            k.next = 0;
            k.ntokens = 0;
            k.tokens[0] = 0;
            snprintf(k.shown[k.me], sizeof k.shown[0], "%.1ss", value(lines[1]));
            k3_send(&k, &a); /* the state before the first action */
            says("READY");
        } else if (strcmp(head, "play") == 0) {
            block(lines, 3);
            while (k.next >= 0 && k.next != k.me) {
                int p = k.next;
                char *v = value(lines[k.order[p]]);
                char *space = strchr(v, ' ');
                long long amount = space ? strtoll(space + 1, NULL, 10) : 0;
                k3_apply(&k, &a, p, k3_token(&k, p, amount, strncmp(v, "FOLD", 4) == 0 && (v[4] == ' ' || !v[4])));
            }
            flush_states(&a); /* the states it need not answer go with the one it must */
            k3_reply(&k, &a);
        } else if (strcmp(head, "end_hand") == 0) {
            block(lines, 5);
            long long amounts[3];
            for (int i = 0; i < 3; i++) {
                char *v = value(lines[i]), *space = strchr(v, ' ');
                amounts[i] = space ? strtoll(space + 1, NULL, 10) : 0;
            }
            while (k.next >= 0) {
                int p = k.next;
                k3_apply(&k, &a, p, k3_token(&k, p, amounts[k.order[p]], 0));
            }
            char *show = value(lines[3]);
            char cards[3][8] = {"", "", ""};
            for (int i = 0; i < 3 && show; i++) {
                while (*show == ' ')
                    show++;
                char *comma = strchr(show, ',');
                size_t n = comma ? (size_t)(comma - show) : strlen(show);
                snprintf(cards[i], sizeof cards[i], "%.*s", (int)(n < 6 ? n : 6), show);
                show = comma ? comma + 1 : NULL;
            }
            for (int p = 0; p < 3; p++)
                if (strcmp(cards[k.order[p]], "-") != 0 && cards[k.order[p]][0])
                    snprintf(k.shown[p], sizeof k.shown[p], "%.1ss", cards[k.order[p]]);
            for (int i = 0; i < 3; i++)
                k.totals[i] -= amounts[i];
            char *pots = value(lines[4]), *save = NULL;
            for (char *pot = strtok_r(pots, " \t", &save); pot; pot = strtok_r(NULL, " \t", &save)) {
                char *comma = strchr(pot, ',');
                int winner = comma ? atoi(comma + 1) : -1;
                if (winner >= 0 && winner < 3)
                    k.totals[winner] += strtoll(pot, NULL, 10);
            }
            k3_send(&k, &a); /* the final state: sent with the next one it must answer, or at the end */
            says("OK");
        } else if (strncmp(head, "EndAction:", 10) == 0) {
            block(lines, 2);
            char out[96];
            snprintf(out, sizeof out, "Money: %lld,%lld,%lld", k.totals[0], k.totals[1], k.totals[2]);
            says(out);
        } else { /* end_round, or the end of the input */
            block(lines, 2);
            flush_states(&a);
            says("Thank you dealer, have a nice day!");
            break;
        }
    }
    hang_up(&a);
}


int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN); /* a closed pipe or socket is an error return, said in words */
    double timeout = 10.0;
    int hand_over = -1, lenient = 0;
    int i = 1;
    for (;;) {
        if (i + 1 < argc && strcmp(argv[i], "--connect-timeout") == 0) {
            timeout = strtod(argv[i + 1], NULL);
            i += 2;
        } else if (i + 1 < argc && strcmp(argv[i], "--hand-over") == 0) {
            hand_over = atoi(argv[i + 1]);
            i += 2;
        } else if (i < argc && strcmp(argv[i], "--lenient") == 0) {
            lenient = 1;
            i++;
        } else {
            break;
        }
    }
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    if (i >= argc) {
        fputs("usage: acpc-relay [--connect-timeout S] [--hand-over FD] [--lenient] -- CMD...\n", stderr);
        return 2;
    }
    if (hand_over >= 0) {
        struct stat st;
        if (fstat(hand_over, &st) != 0 || !S_ISSOCK(st.st_mode))
            hand_over = -1; /* not given after all: holdem says so */
        else
            fcntl(hand_over, F_SETFD, FD_CLOEXEC); /* never the agent's */
    }
    size_t len;
    char *first_line = line_in(&in, &len);
    if (first_line != NULL && strcmp(first_line, "init_round") == 0) {
        if (hand_over >= 0)
            close(hand_over);
        kuhn3(argv + i, argc - i, timeout, lenient);
        return 0;
    }
    /* the first line is copied: the reader's buffer moves under later lines */
    char *start = strdup(first_line ? first_line : "");
    holdem(start, argv + i, argc - i, timeout, hand_over, lenient);
    return 0;
}
