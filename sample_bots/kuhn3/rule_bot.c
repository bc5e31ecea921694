/*
 * rule_bot.c - a simple deterministic rule bot for 3-player Kuhn poker,
 * speaking the arena text protocol on stdin/stdout.
 *
 * Rule: with an A, bet when nobody has bet and call any bet.
 *       with a K, call a bet only when it is heads-up (the other opponent
 *       has folded); never bet.
 *       with Q or J, check when possible and fold to a bet.
 * It tracks everyone's money to answer the dealer's "Money:" check.
 *
 * Build: gcc -O2 -Wall -Wextra -std=c99 -o build/rule_bot rule_bot.c
 * Run:   ./build/rule_bot
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BET 2     /* the only bet brings a seat to 2 in front */
#define LINE_CAP 8192 /* messages are short; longer lines are truncated safely */

static char line[LINE_CAP];

/* Read the next non-empty line, trailing whitespace/CR stripped; exit quietly on EOF. */
static char *next_line(void)
{
    for (;;) {
        if (!fgets(line, sizeof line, stdin))
            exit(0);
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n') {
            /* overlong line: drop the rest so the next read starts on a fresh line */
            int c;
            while ((c = getchar()) != EOF && c != '\n')
                ;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' ||
                         line[n - 1] == ' ' || line[n - 1] == '\t'))
            line[--n] = '\0';
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s)
            return s;
    }
}

static void reply(const char *text)
{
    fputs(text, stdout);
    fputc('\n', stdout);
    fflush(stdout); /* the dealer blocks on each reply */
}

/* Text after "Key:" (or the whole line if there is no colon). */
static char *body_of(char *s)
{
    char *c = strchr(s, ':');
    return c ? c + 1 : s;
}

/* Collect up to max integers (optionally negative) from s; returns how many. */
static int parse_ints(const char *s, long *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        if ((*s == '-' && s[1] >= '0' && s[1] <= '9') || (*s >= '0' && *s <= '9')) {
            char *end;
            out[n++] = strtol(s, &end, 10);
            s = end;
        } else {
            s++;
        }
    }
    return n;
}

typedef struct {
    char kind; /* first letter: B(ET/LIND), F(OLD), P(ASS) */
    int blind; /* 1 if this seat has not acted yet this hand */
    long value;
} Action;

static void parse_action(char *s, Action *a)
{
    s = body_of(s);
    while (*s == ' ')
        s++;
    a->kind = *s;
    a->blind = strncmp(s, "BLIND", 5) == 0;
    a->value = 0;
    parse_ints(s, &a->value, 1);
}

static void decide(char card, const Action acts[3], char *out, size_t outsz)
{
    long mine = acts[0].value, top = mine;
    int folded = 0;
    for (int i = 1; i < 3; i++) {
        if (acts[i].value > top)
            top = acts[i].value;
        if (acts[i].kind == 'F')
            folded++;
    }
    if (top > mine) { /* facing a bet */
        int call = card == 'A' || (card == 'K' && folded == 1);
        if (call)
            snprintf(out, outsz, "BET %ld", top);
        else
            snprintf(out, outsz, "FOLD %ld", mine);
    } else { /* unopened: bet with an A, otherwise check */
        snprintf(out, outsz, "BET %ld", (card == 'A' && mine < MAX_BET) ? (long)MAX_BET : mine);
    }
}

int main(void)
{
    /* Line buffering plus explicit fflush: replies leave at once even through a pipe. */
    setvbuf(stdout, NULL, _IOLBF, 0);

    long money[3] = {0, 0, 0};
    char card = 'J';
    int end_actions = 0;
    char out[128];

    for (;;) {
        char *h = next_line();
        if (strcmp(h, "init_round") == 0) {
            for (int i = 0; i < 4; i++) {
                char *s = next_line();
                if (strncmp(s, "Money", 5) == 0)
                    parse_ints(body_of(s), money, 3);
            }
            reply("READY");
        } else if (strcmp(h, "init_hand") == 0) {
            for (int i = 0; i < 2; i++) {
                char *s = next_line();
                if (strncmp(s, "Cards", 5) == 0) {
                    s = body_of(s);
                    while (*s == ' ')
                        s++;
                    card = *s;
                }
            }
            reply("READY");
        } else if (strcmp(h, "play") == 0) {
            Action acts[3];
            for (int i = 0; i < 3; i++)
                parse_action(next_line(), &acts[i]);
            decide(card, acts, out, sizeof out);
            reply(out);
        } else if (strcmp(h, "end_hand") == 0) {
            /* Each seat loses what it has in front; each pot goes to its winner. */
            int seat = 0;
            for (int i = 0; i < 5; i++) {
                char *s = next_line();
                if (strncmp(s, "Action", 6) == 0 && seat < 3) {
                    Action a;
                    parse_action(s, &a);
                    money[seat++] -= a.value;
                } else if (strncmp(s, "Pots", 4) == 0) {
                    long nums[64]; /* "<value>,<winner>" pairs, possibly several */
                    int n = parse_ints(body_of(s), nums, 64);
                    for (int k = 0; k + 1 < n; k += 2)
                        if (nums[k + 1] >= 0 && nums[k + 1] < 3)
                            money[nums[k + 1]] += nums[k];
                }
            }
            end_actions = 0;
            reply("OK");
        } else if (strncmp(h, "EndAction", 9) == 0) {
            /* Three header-less lines; the Money check is due after the third. */
            if (++end_actions == 3) {
                end_actions = 0;
                snprintf(out, sizeof out, "Money: %ld,%ld,%ld", money[0], money[1], money[2]);
                reply(out);
            }
        } else if (strcmp(h, "end_round") == 0) {
            next_line();
            next_line();
            reply("Thank you dealer, have a nice day!");
            return 0;
        } else {
            fprintf(stderr, "rule_bot: ignoring unexpected line '%s'\n", h);
        }
    }
}
