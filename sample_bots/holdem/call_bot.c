/*
 * call_bot.c - a Texas Hold'em bot that always calls (a check when nothing
 * is owed), speaking the arena's JSON lines (docs/protocols/holdem.md).
 *
 * It looks at one field only, the message's "type": "match_start" is
 * answered {"type":"ready"}, "act" is answered with a call; every other
 * message is a notice and gets no answer. Exits at the end of its input.
 *
 * Build: gcc -O2 -Wall -Wextra -std=c99 -o sample_bots/holdem/build/call_bot sample_bots/holdem/call_bot.c -lm
 * Run:   sample_bots/holdem/build/call_bot
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The next line, of any length, or NULL at the end of the input. */
static char *read_line(void)
{
    static char *buf;
    static size_t cap;
    size_t len = 0;
    for (;;) {
        if (len + 2 > cap) {
            cap = cap ? 2 * cap : 4096;
            buf = realloc(buf, cap);
            if (!buf)
                exit(1);
        }
        if (!fgets(buf + len, (int)(cap - len), stdin))
            return len ? buf : NULL;
        len += strlen(buf + len);
        if (len > 0 && buf[len - 1] == '\n')
            return buf;
    }
}

/* Where the value of "key" starts at the top level of a JSON object, or NULL. */
static const char *field(const char *s, const char *key)
{
    size_t klen = strlen(key);
    int depth = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '"') {
            const char *start = ++p;
            while (*p && *p != '"') {
                if (*p == '\\' && p[1])
                    p++;
                p++;
            }
            if (!*p)
                return NULL;
            if (depth == 1 && (size_t)(p - start) == klen && memcmp(start, key, klen) == 0) {
                const char *q = p + 1;
                while (isspace((unsigned char)*q))
                    q++;
                if (*q == ':') {
                    for (q++; isspace((unsigned char)*q); q++)
                        ;
                    return q;
                }
            }
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            depth--;
        }
    }
    return NULL;
}

/* Is the value v the JSON string "word"? */
static int is_string(const char *v, const char *word)
{
    size_t n = strlen(word);
    return v && *v == '"' && strncmp(v + 1, word, n) == 0 && v[1 + n] == '"';
}

int main(void)
{
    char *line;
    while ((line = read_line()) != NULL) {
        const char *type = field(line, "type");
        if (is_string(type, "match_start"))
            fputs("{\"type\":\"ready\"}\n", stdout);
        else if (is_string(type, "act"))
            fputs("{\"type\":\"action\",\"action\":\"call\"}\n", stdout);
        else
            continue; /* a notice: nothing to answer */
        fflush(stdout); /* the arena waits for each reply */
    }
    return 0;
}
