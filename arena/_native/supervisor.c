/*
 * arena-supervisor: the parent of every bot process, at every sandbox level.
 *
 *   arena-supervisor SOCKET_FD -- PROGRAM [ARG...]
 *
 * SOCKET_FD is one end of a SOCK_SEQPACKET socketpair whose other end the
 * arena holds. The arena sends one packet carrying two descriptors (the read
 * end of the bot's stdin pipe and the write end of its stdout pipe); only the
 * supervisor and the bot ever hold them, so the wrappers between the arena
 * and this program (unshare, bwrap, setpriv, prlimit) cannot keep a pipe open
 * and the arena sees end-of-file exactly when the bot closes its stdout.
 *
 * The supervisor starts PROGRAM as its only child and reports on the socket,
 * one packet per line:
 *
 *   started PID               the exec succeeded (PID as seen here)
 *   exec-failed ERRNO         the exec failed (no bot ran)
 *   exited CODE LEFTOVERS     the bot exited by itself with CODE
 *   signaled SIGNO LEFTOVERS  the bot was killed by signal SIGNO
 *   killed LEFTOVERS          the arena asked to stop; the bot was still running
 *
 * LEFTOVERS counts the bot's other processes (children, escapees that left
 * its session) still running when it ended. The supervisor is a child
 * subreaper, so every orphan of the bot becomes its child whatever session or
 * process group it moved to; it kills them all before it exits.
 *
 * When the arena shuts down its end of the socket (or dies), the supervisor
 * kills the bot and everything it started, reports, and exits.
 *
 * It is PID 1 in a PID namespace at the sandboxed levels: the bot is PID 2,
 * so signals a bot sends itself (abort) act as everywhere else.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 65536

static int sock = -1;

static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void report(const char *fmt, ...) {
    char line[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0 && sock >= 0) {
        /* a closed socket (the arena is gone) is not an error for us */
        (void)send(sock, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
}

/* Every process whose parent chain leads to us (excluding us and `skip`),
 * found through /proc; returns how many are not zombies and fills `out`. */
static int descendants(pid_t skip, pid_t *out, int cap) {
    static pid_t pids[MAX_PROCS], ppids[MAX_PROCS];
    static char zombie[MAX_PROCS];
    int n = 0;
    DIR *proc = opendir("/proc");
    if (proc == NULL) return 0;
    struct dirent *e;
    while ((e = readdir(proc)) != NULL && n < MAX_PROCS) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0) continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t len = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (len <= 0) continue;
        buf[len] = '\0';
        char *close_paren = strrchr(buf, ')');
        if (close_paren == NULL) continue;
        char state;
        long ppid;
        if (sscanf(close_paren + 2, "%c %ld", &state, &ppid) != 2) continue;
        pids[n] = (pid_t)pid;
        ppids[n] = (pid_t)ppid;
        zombie[n] = (state == 'Z' || state == 'X');
        n++;
    }
    closedir(proc);
    /* mark descendants: repeat until no new member is found */
    static char mine[MAX_PROCS];
    memset(mine, 0, (size_t)n);
    pid_t self = getpid();
    int changed = 1, found = 0, live = 0;
    while (changed) {
        changed = 0;
        for (int i = 0; i < n; i++) {
            if (mine[i]) continue;
            int parent_is_mine = ppids[i] == self;
            for (int j = 0; !parent_is_mine && j < n; j++)
                parent_is_mine = mine[j] && pids[j] == ppids[i];
            if (parent_is_mine) {
                mine[i] = 1;
                changed = 1;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        if (!mine[i] || pids[i] == skip) continue;
        if (!zombie[i]) live++;
        if (out != NULL && found < cap) out[found++] = pids[i];
    }
    return live;
}

static void reap_all(pid_t bot, int *bot_status, int *bot_done) {
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        if (pid == bot && !*bot_done) {
            *bot_status = status;
            *bot_done = 1;
        }
    }
}

/* SIGKILL every descendant until none is left (orphans of killed processes
 * come to us, so a few rounds may be needed). */
static void kill_all(pid_t bot, int *bot_status, int *bot_done) {
    static pid_t found[MAX_PROCS];
    for (int round = 0; round < 2000; round++) {
        int n_live = descendants(0, NULL, 0);
        if (n_live > 0) {
            /* collect the pids (zombies included: harmless to signal) */
            (void)descendants(0, found, MAX_PROCS);
            for (int i = 0; i < MAX_PROCS && found[i] > 0; i++) kill(found[i], SIGKILL);
            memset(found, 0, sizeof found);
        }
        reap_all(bot, bot_status, bot_done);
        if (n_live == 0) return;
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
}

/* execv, searching PATH for a bare name like execvp but without its
 * fallback of running a non-program through /bin/sh: a file the kernel cannot
 * execute is reported as such (ENOEXEC). Returns errno when nothing ran. */
static int run(char **program) {
    if (strchr(program[0], '/') != NULL) {
        execv(program[0], program);
        return errno;
    }
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0') path = "/usr/bin:/bin";
    int result = ENOENT;
    char candidate[4096];
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        if (len > 0 && len + strlen(program[0]) + 2 < sizeof candidate) {
            memcpy(candidate, path, len);
            candidate[len] = '/';
            strcpy(candidate + len + 1, program[0]);
            execv(candidate, program);
            if (errno == EACCES || result == ENOENT) result = errno;
        }
        path = end ? end + 1 : path + len;
    }
    return result;
}

/* The bot has ended: count what it left running, kill that, say how it ended. */
static int finish(pid_t bot, int *bot_status, int *bot_done) {
    int left = descendants(bot, NULL, 0);
    kill_all(bot, bot_status, bot_done);
    if (WIFSIGNALED(*bot_status))
        report("signaled %d %d", WTERMSIG(*bot_status), left);
    else
        report("exited %d %d", WEXITSTATUS(*bot_status), left);
    return 0;
}

static int receive_fds(int *in_fd, int *out_fd) {
    char data[8];
    char control[CMSG_SPACE(2 * sizeof(int))];
    struct iovec iov = {data, sizeof data};
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t got;
    do {
        got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (c == NULL || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
        c->cmsg_len != CMSG_LEN(2 * sizeof(int)))
        return -1;
    int fds[2];
    memcpy(fds, CMSG_DATA(c), sizeof fds);
    *in_fd = fds[0];
    *out_fd = fds[1];
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4 || strcmp(argv[2], "--") != 0) {
        fprintf(stderr, "usage: arena-supervisor SOCKET_FD -- PROGRAM [ARG...]\n");
        return 2;
    }
    sock = atoi(argv[1]);
    char **program = argv + 3;
    (void)fcntl(sock, F_SETFD, FD_CLOEXEC);

    /* The bot (same uid) must not ptrace us or read our memory. */
    prctl(PR_SET_DUMPABLE, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGTSTP, SIG_IGN);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);

    int in_fd, out_fd;
    if (receive_fds(&in_fd, &out_fd) != 0) {
        fprintf(stderr, "arena-supervisor: no pipes received from the arena\n");
        return 2;
    }
    /* The marker that lets the arena's watchdog find the sandbox's outer
     * processes is not the bot's business. */
    unsetenv("ARENA_SANDBOX_ID");

    int exec_pipe[2];
    if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
        perror("arena-supervisor: pipe");
        return 2;
    }
    pid_t bot = fork();
    if (bot < 0) {
        int err = errno;
        report("exec-failed %d", err);
        return 2;
    }
    if (bot == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int s = 1; s < NSIG; s++) signal(s, SIG_DFL);
        /* Under memory pressure the bot, not its supervisor, is the one to go. */
        int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        if (oom >= 0) {
            (void)!write(oom, "1000", 4);
            close(oom);
        }
        if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0) {
            int err = errno;
            (void)!write(exec_pipe[1], &err, sizeof err);
            _exit(127);
        }
        /* in_fd, out_fd, sock and exec_pipe are close-on-exec */
        int err = run(program);
        (void)!write(exec_pipe[1], &err, sizeof err);
        _exit(127);
    }
    close(exec_pipe[1]);
    close(in_fd);
    close(out_fd);
    int err = 0;
    ssize_t got;
    do {
        got = read(exec_pipe[0], &err, sizeof err);
    } while (got < 0 && errno == EINTR);
    close(exec_pipe[0]);
    int bot_status = 0, bot_done = 0;
    if (got == (ssize_t)sizeof err) {
        report("exec-failed %d", err);
        kill_all(bot, &bot_status, &bot_done);
        return 0;
    }
    report("started %d", (int)bot);

    struct pollfd fds[2] = {{sfd, POLLIN, 0}, {sock, POLLIN, 0}};
    for (;;) {
        reap_all(bot, &bot_status, &bot_done);
        if (bot_done) return finish(bot, &bot_status, &bot_done);
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (fds[0].revents & POLLIN) {
            struct signalfd_siginfo info;
            while (read(sfd, &info, sizeof info) > 0) {
            }
        }
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            char buf[64];
            ssize_t r = recv(sock, buf, sizeof buf, MSG_DONTWAIT);
            if (r > 0) continue; /* nothing else is defined: ignore */
            if (r < 0 && (errno == EAGAIN || errno == EINTR)) continue;
            break; /* end of file: the arena wants the bot stopped, or is gone */
        }
    }
    /* Stop: count what is still running besides the bot, then kill it all. */
    reap_all(bot, &bot_status, &bot_done);
    if (bot_done) return finish(bot, &bot_status, &bot_done);
    int left = descendants(bot, NULL, 0);
    kill_all(bot, &bot_status, &bot_done);
    report("killed %d", left);
    return 0;
}
