/* The floor for one request/response over pipes: a blocking C parent and a
 * C child that echoes lines. Prints round trips per second.
 * Usage: pipe_echo_floor SECONDS */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    int down[2], up[2];
    if (pipe(down) || pipe(up)) { perror("pipe"); return 1; }
    pid_t pid = fork();
    if (pid == 0) {  /* child: echo whole lines back */
        close(down[1]); close(up[0]);
        char buf[4096];
        ssize_t n;
        while ((n = read(down[0], buf, sizeof buf)) > 0)
            if (write(up[1], buf, (size_t)n) != n) break;
        _exit(0);
    }
    close(down[0]); close(up[1]);
    /* About the size of a kuhn3 message. */
    const char *msg = "play\nAction: BLIND 1\nAction: BLIND 1\nAction: BET 2\n";
    size_t len = strlen(msg);
    char buf[4096];
    long trips = 0;
    double start = now(), end = start + seconds;
    while (1) {
        for (int i = 0; i < 256; i++) {
            if (write(down[1], msg, len) != (ssize_t)len) { perror("write"); return 1; }
            size_t got = 0;
            while (got < len) {
                ssize_t n = read(up[0], buf + got, sizeof buf - got);
                if (n <= 0) { perror("read"); return 1; }
                got += (size_t)n;
            }
        }
        trips += 256;
        if (now() >= end) break;
    }
    double elapsed = now() - start;
    close(down[1]);
    waitpid(pid, NULL, 0);
    printf("%.1f\n", trips / elapsed);
    return 0;
}
