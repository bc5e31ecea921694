/* What the ACPC relay (relay.c) and the hold'em ACPC codec (codec.c) share:
 * a growable byte string, Python's repr of a text (the arena quotes what it
 * received as Python does, everywhere), the little JSON the arena's holdem
 * messages need, and the checks every ACPC response has.
 *
 * Everything is static: each includer has its own copy, and defines
 * ``out_of_memory`` (the relay exits; the codec, inside the arena, aborts). */
#ifndef ACPC_TEXT_H
#define ACPC_TEXT_H

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(void);

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
    if (b->p == NULL)
        out_of_memory();
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
static inline void add_int(Buf *b, long long v) {
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

/* The integer at ``p`` (as strtoll reads it, saturating), or ``otherwise``.
 * By hand: strtoll's locale machinery was the codec's largest libc cost. */
static long long num(const char *p, long long otherwise) {
    if (p == NULL)
        return otherwise;
    p = ws(p);
    int neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (*p < '0' || *p > '9')
        return otherwise;
    unsigned long long u = 0, most = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
    for (; *p >= '0' && *p <= '9'; p++)
        u = u > (most - (unsigned)(*p - '0')) / 10 ? most : u * 10 + (unsigned)(*p - '0');
    return neg ? (long long)(0ULL - u) : (long long)u;
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

/* -- a response's checks ------------------------------------------------------ */

/* The action after the last colon of the agent's response ``line`` to
 * ``state``; NULL, with the words in ``why`` ("ACPC agent " is the caller's
 * to put before them), when it is not a response to that state. */
static const char *response_action(const char *line, size_t len, const char *state, const char *expected, Buf *why) {
    const char *colon = NULL;
    for (size_t i = len; i > 0; i--)
        if (line[i - 1] == ':') {
            colon = line + i - 1;
            break;
        }
    if (colon == NULL || len < 11 || strncmp(line, "MATCHSTATE:", 11) != 0 || (size_t)(colon - line) < 11) {
        adds(why, "sent ");
        add_repr(why, line, len);
        adds(why, ", which is not an ACPC response; expected ");
        adds(why, expected);
        return NULL;
    }
    size_t head = (size_t)(colon - line);
    if (head != strlen(state) || memcmp(line, state, head) != 0) {
        adds(why, "answered another state: sent ");
        add_repr(why, line, len);
        adds(why, "; expected a response to ");
        add_repr(why, state, strlen(state));
        return NULL;
    }
    return colon + 1;
}

/* The words for an action that is none of those ``expected`` allows. */
static void bad_action(const char *action, const char *line, size_t len, const char *expected, Buf *why) {
    adds(why, "sent the action ");
    add_repr(why, action, len - (size_t)(action - line));
    adds(why, " in ");
    add_repr(why, line, len);
    adds(why, "; expected ");
    adds(why, expected);
}

#endif
