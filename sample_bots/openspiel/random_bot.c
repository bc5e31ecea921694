/* random_bot.c - a random bot for every OpenSpiel game, in C
 * (docs/protocols/openspiel.md).
 *
 * It answers match_start with ready and each act with one of the legal
 * actions, chosen uniformly by a generator seeded from its first argument
 * (default 1); observe and match_end are notifications and get nothing.
 * It does not parse JSON: it finds the message's type at the start of the
 * line and the legal actions as the `{"action":ID` objects of the `legal`
 * list (inside a JSON string a quote is escaped, so that text can only be
 * the list's own). Lines of any length are read with getline.
 *
 * Build: gcc -O2 -std=c99 -o build/random_bot random_bot.c
 * Run:   sample_bots/openspiel/build/random_bot [SEED]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long state;

/* xorshift64*: small, and the same on every machine */
static unsigned long long next(void) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717ULL;
}

int main(int argc, char **argv) {
    static const char key[] = "{\"action\":";
    char *line = NULL;
    size_t cap = 0;
    state = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(argc > 1 ? strtoull(argv[1], NULL, 10) : 1);
    while (getline(&line, &cap, stdin) != -1) {
        if (strncmp(line, "{\"type\":\"match_start\"", 21) == 0) {
            fputs("{\"type\": \"ready\"}\n", stdout);
        } else if (strncmp(line, "{\"type\":\"act\"", 13) == 0) {
            char *legal = strstr(line, "\"legal\":[");
            long count = 0, pick;
            char *at;
            if (legal == NULL) return 2;
            for (at = legal; (at = strstr(at, key)) != NULL; at += sizeof key - 1) count++;
            if (count == 0) return 2;
            pick = (long)(next() % (unsigned long long)count);
            for (at = strstr(legal, key); pick-- > 0; at = strstr(at + sizeof key - 1, key)) {}
            printf("{\"type\": \"action\", \"action\": %lld}\n", strtoll(at + sizeof key - 1, NULL, 10));
        } else {
            continue;
        }
        fflush(stdout);
    }
    free(line);
    return 0;
}
