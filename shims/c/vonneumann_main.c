/* Arena runner for von Neumann poker entries written to the seed's a()/b() interface.
 *
 * Reads one JSON object per line on stdin (match_start, a_turn, b_turn,
 * match_end), keeps one Bot for the whole life of the process (so f[] carries
 * state across games, sessions and matches, as in the seed's tournament),
 * calls a() or b() and writes the reply line. See docs/shims.md.
 *
 * Options: --seed N  calls srand(N) before play (default srand(1), the C
 * default), so entries that use rand() are reproducible.
 */
#include "vonneumann.h"

#include <errno.h>
#include <unistd.h>

/* The top-level fields this runner needs from a request. */
typedef struct {
    char type[32];
    double card, previous;
    long long money, opponent_money, bet;
} Request;

static Bot bot; /* static: zeroed once, alive until exit */
static FILE *out; /* the real stdout; fd 1 is pointed at stderr (see main) */

/* Adapters with the struct's exact pointer types, so bot->a(bot) works. */
static Money call_a(const void *p) { return a((const Bot *)p); }
static int call_b(const void *p, const Money bet) { return b((const Bot *)p, (int)bet); }

static const char *skip_ws(const char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
    return s;
}

/* Past a JSON string starting at its opening quote; copies up to cap-1 raw bytes. */
static const char *scan_string(const char *s, char *dst, size_t cap) {
    size_t n = 0;
    if (*s != '"') return NULL;
    for (s++; *s && *s != '"'; s++) {
        if (*s == '\\') {
            s++;
            if (!*s) return NULL;
        }
        if (dst && n + 1 < cap) dst[n++] = *s;
    }
    if (dst && cap) dst[n] = '\0';
    return *s == '"' ? s + 1 : NULL;
}

/* Past any JSON value (object, array, string, number, literal). */
static const char *skip_value(const char *s) {
    int depth = 0;
    s = skip_ws(s);
    do {
        if (*s == '"') {
            s = scan_string(s, NULL, 0);
            if (!s) return NULL;
            continue;
        }
        if (*s == '{' || *s == '[') depth++;
        else if (*s == '}' || *s == ']') depth--;
        else if (!*s) return NULL;
        else if (depth == 0) { /* a number or literal: up to the next delimiter */
            while (*s && *s != ',' && *s != '}' && *s != ']' && *s != ' ' && *s != '\t') s++;
            return s;
        }
        s++;
    } while (depth > 0);
    return s;
}

static int parse_request(const char *line, Request *r) {
    char key[64];
    const char *s = skip_ws(line);
    memset(r, 0, sizeof *r);
    r->previous = -1.0;
    if (*s++ != '{') return 0;
    for (;;) {
        s = skip_ws(s);
        if (*s == '}') return r->type[0] != '\0';
        s = scan_string(s, key, sizeof key);
        if (!s) return 0;
        s = skip_ws(s);
        if (*s++ != ':') return 0;
        s = skip_ws(s);
        if (strcmp(key, "type") == 0) {
            s = scan_string(s, r->type, sizeof r->type);
        } else {
            const char *end = skip_value(s);
            if (!end) return 0;
            if (strcmp(key, "card") == 0) r->card = strtod(s, NULL);
            else if (strcmp(key, "opponent_previous_card") == 0) r->previous = strtod(s, NULL);
            else if (strcmp(key, "money") == 0) r->money = strtoll(s, NULL, 10);
            else if (strcmp(key, "opponent_money") == 0) r->opponent_money = strtoll(s, NULL, 10);
            else if (strcmp(key, "bet") == 0) r->bet = strtoll(s, NULL, 10);
            s = end;
        }
        if (!s) return 0;
        s = skip_ws(s);
        if (*s == ',') s++;
        else if (*s != '}') return 0;
    }
}

static void load(const Request *r) {
    /* Cards are multiples of 2**-24, so the double converts to the same float exactly. */
    bot.card = (Card)r->card;
    bot.opponentsPreviousCard = (Card)r->previous;
    bot.money = (Money)r->money;
    bot.opponentsMoney = (Money)r->opponent_money;
}

int main(int argc, char **argv) {
    unsigned seed = 1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    Request r;

    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--seed") == 0) seed = (unsigned)strtoul(argv[++i], NULL, 10);
    srand(seed);

    /* Keep the protocol stream private: anything an entry prints goes to stderr. */
    int fd = dup(STDOUT_FILENO);
    if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 || !(out = fdopen(fd, "w"))) {
        perror("vonneumann shim: cannot set up stdout");
        return 2;
    }
    bot.a = call_a;
    bot.b = call_b;

    while ((len = getline(&line, &cap, stdin)) != -1) {
        if (!parse_request(line, &r)) {
            fprintf(stderr, "vonneumann shim: cannot read request: %s", line);
            continue;
        }
        if (strcmp(r.type, "a_turn") == 0) {
            load(&r);
            int amount = a(&bot);
            fprintf(out, "{\"type\":\"bet\",\"amount\":%d}\n", amount);
        } else if (strcmp(r.type, "b_turn") == 0) {
            load(&r);
            int calls = b(&bot, (int)r.bet);
            fprintf(out, "{\"type\":\"call\",\"call\":%s}\n", calls ? "true" : "false");
        } else if (strcmp(r.type, "match_start") == 0) {
            /* The seed told a bot nothing was shown yet at the start of a match. */
            bot.opponentsPreviousCard = -1.0f;
            fputs("{\"type\":\"ready\"}\n", out);
        } else if (strcmp(r.type, "match_end") == 0) {
            continue; /* a notification: no reply */
        } else {
            fprintf(stderr, "vonneumann shim: ignoring message of type '%s'\n", r.type);
            continue;
        }
        if (fflush(out) != 0) return errno == EPIPE ? 0 : 1;
    }
    free(line);
    return 0;
}
