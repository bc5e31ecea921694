/* A deterministic ACPC agent that writes down every line it is sent, for the
 * tests that hold the arena to the ACPC dealer (tests/protocols/test_acpc_dealer.py):
 *
 *   acpc_recorder GAMEDEF LOG HOST PORT
 *
 * Built by the test against the ACPC package's game library (game.c, rng.c,
 * net.c from ../shared/acpc), which says whose turn a state is and which
 * actions are valid: the agent's own part is only its choice, made from a
 * hash of the state line it answers, so that the same lines get the same
 * answers under the dealer and under the arena. Every line received goes to
 * LOG as it came (without its CR LF), one per line. */

#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "game.h"

static uint64_t fnv(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static int dial(const char *host, const char *port) {
    struct addrinfo hints = {0}, *res;
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &res) != 0)
        return -1;
    int fd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

/* The answer to ``state`` (it is the viewer's turn): one of the valid actions, chosen by the line's hash. */
static void choose(const Game *game, MatchState *ms, const char *line, Action *out) {
    uint64_t h = fnv(line);
    Action fold = {a_fold, 0}, call = {a_call, 0}, raise = {a_raise, 0};
    int32_t lo = 0, hi = 0;
    int can_fold = isValidAction(game, &ms->state, 0, &fold);
    int can_raise = raiseIsValid(game, &ms->state, &lo, &hi);
    unsigned pick = (unsigned)(h % 100);
    if (can_fold && pick < 25) {
        *out = fold;
    } else if (can_raise && pick >= 65) {
        raise.size = 0;
        if (game->bettingType == noLimitBetting) {
            unsigned how = (unsigned)((h >> 8) % 4);  /* the least, all in, or between */
            raise.size = how == 0 ? lo : how == 1 ? hi : lo + (int32_t)((h >> 16) % (uint64_t)(hi - lo + 1));
        }
        *out = raise;
    } else {
        *out = call;
    }
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: acpc_recorder GAMEDEF LOG HOST PORT\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    Game *game = f ? readGame(f) : NULL;
    if (game == NULL) {
        fprintf(stderr, "acpc_recorder: cannot read the game %s\n", argv[1]);
        return 2;
    }
    fclose(f);
    FILE *log = fopen(argv[2], "w");
    int fd = dial(argv[3], argv[4]);
    if (log == NULL || fd < 0) {
        fprintf(stderr, "acpc_recorder: cannot open %s or connect to %s:%s\n", argv[2], argv[3], argv[4]);
        return 2;
    }
    FILE *in = fdopen(fd, "r");
    const char *hello = "VERSION:2.0.0\r\n";
    if (write(fd, hello, strlen(hello)) != (ssize_t)strlen(hello))
        return 1;
    char line[MAX_LINE_LEN];
    while (fgets(line, sizeof line, in) != NULL) {
        size_t n = strcspn(line, "\r\n");
        line[n] = 0;
        fprintf(log, "%s\n", line);
        fflush(log);
        if (line[0] == '#' || line[0] == ';')
            continue;
        MatchState ms;
        if (readMatchState(line, game, &ms) < 0) {
            fprintf(stderr, "acpc_recorder: cannot read the state %s\n", line);
            return 1;
        }
        if (stateFinished(&ms.state) || currentPlayer(game, &ms.state) != ms.viewingPlayer)
            continue;
        Action a;
        choose(game, &ms, line, &a);
        char out[MAX_LINE_LEN + 32];
        int c = snprintf(out, sizeof out, "%s:", line);
        c += printAction(game, &a, (int)sizeof out - c, out + c);
        c += snprintf(out + c, sizeof out - (size_t)c, "\r\n");
        if (write(fd, out, (size_t)c) != c)
            return 1;
    }
    fclose(log);
    return 0;
}
