/*
 * arena-supervisor: the parent of every bot process, at every sandbox level.
 *
 *   arena-supervisor [--seccomp] SOCKET_FD -- PROGRAM [ARG...]
 *
 * SOCKET_FD is one end of a SOCK_SEQPACKET socketpair whose other end the
 * arena holds. The arena sends one packet carrying two descriptors (the read
 * end of the bot's stdin pipe and the write end of its stdout pipe), or three
 * for an ACPC agent's relay (the third, its socket to hand the agent's
 * connection over to the arena, becomes the bot's descriptor 3); only the
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
 * its session) still running when it ended, or is -1 when they could not be
 * counted (/proc could not be read). The supervisor is a child subreaper, so
 * every orphan of the bot becomes its child whatever session or process
 * group it moved to.
 *
 * When the bot ends by itself, the supervisor stops (SIGSTOP) what it left,
 * reports, and waits: the arena counts those processes in the bot's cgroup
 * itself (this program runs under the bot's uid, within its reach) before it
 * shuts down its end of the socket. When the arena shuts down its end (or
 * dies), the supervisor kills the bot and everything it started, reports if
 * it has not yet, and exits.
 *
 * It is PID 1 in a PID namespace at the sandboxed levels: the bot is PID 2,
 * so signals a bot sends itself (abort) act as everywhere else.
 *
 * With --seccomp the bot runs under the seccomp filter below (installed in
 * the child just before exec, with no_new_privs): it refuses the system calls
 * that reach kernel objects namespaces do not separate (the keyring, file
 * locks, inotify, ...) or that widen what the kernel exposes. If the filter
 * cannot be installed the bot does not run ("exec-failed", reason on stderr).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
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
    if (proc == NULL) return -1; /* not counted is not none */
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

/* Send `sig` to every descendant. As PID 1 of the bot's namespace, kill(-1)
 * reaches every process in it but us, with no need to read /proc. */
static void signal_all(int sig) {
    static pid_t found[MAX_PROCS];
    if (getpid() == 1) {
        (void)kill(-1, sig);
        return;
    }
    memset(found, 0, sizeof found);
    (void)descendants(0, found, MAX_PROCS);
    for (int i = 0; i < MAX_PROCS && found[i] > 0; i++) kill(found[i], sig);
}

/* SIGKILL every descendant until none is left (orphans of killed processes
 * come to us, so a few rounds may be needed). */
static void kill_all(pid_t bot, int *bot_status, int *bot_done) {
    static pid_t found[MAX_PROCS];
    if (getpid() == 1) {
        struct timespec pause = {0, 1000000};
        for (int round = 0; round < 2000; round++) {
            (void)kill(-1, SIGKILL);
            reap_all(bot, bot_status, bot_done);
            siginfo_t info;
            memset(&info, 0, sizeof info);
            if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD)
                return; /* no child left at all */
            nanosleep(&pause, NULL);
        }
        return;
    }
    for (int round = 0; round < 2000; round++) {
        int n_live = descendants(0, NULL, 0);
        if (n_live < 0) n_live = 0; /* /proc unreadable: nothing more can be found here */
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

/* The bot has ended by itself: count what it left running, stop that where
 * it stands, say how the bot ended, and wait for the arena (which counts the
 * stopped processes in the bot's cgroup) to shut the socket; then kill it all. */
static int finish(pid_t bot, int *bot_status, int *bot_done) {
    int left = descendants(bot, NULL, 0);
    for (int round = 0; round < 3; round++) signal_all(SIGSTOP); /* a fork under way is restarted, then stopped */
    if (WIFSIGNALED(*bot_status))
        report("signaled %d %d", WTERMSIG(*bot_status), left);
    else
        report("exited %d %d", WEXITSTATUS(*bot_status), left);
    struct pollfd wait_for_arena = {sock, POLLIN, 0};
    for (;;) {
        int r = poll(&wait_for_arena, 1, -1);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) break;
        char buf[64];
        ssize_t got = recv(sock, buf, sizeof buf, MSG_DONTWAIT);
        if (got > 0 || (got < 0 && (errno == EAGAIN || errno == EINTR))) continue;
        break; /* end of file: the arena has counted, or is gone */
    }
    kill_all(bot, bot_status, bot_done);
    return 0;
}

/* -- the bot's seccomp filter ------------------------------------------------
 *
 * Namespaces give each bot its own processes, network, IPC and files, but
 * some kernel objects are keyed by uid or by inode and seen by every seat:
 * the keyring, record/OFD locks and flock on the shared read-only files
 * (and /dev/null), inotify/fanotify/dnotify watches on them, the page cache
 * probed (mincore, cachestat, a read that will not wait) or emptied
 * (fadvise DONTNEED, madvise PAGEOUT), the machine's count of AIO contexts.
 * The filter refuses those calls (it sees numbers and arguments, never which
 * file a call is about), and the calls that would widen what the kernel
 * exposes: new namespaces, mounts, ptrace, io_uring (whose operations bypass
 * this filter), bpf, perf, userfaultfd, modules, kexec, socket families that
 * network namespaces do not separate. It also keeps the bot's hands off its
 * supervisor, which runs under the same uid: its limits, scheduling and I/O
 * priority cannot be changed (signals from inside do not reach it: it is
 * PID 1 of the namespace), and the CPU the arena pinned the bot to cannot be
 * left.
 * A refused call fails with an errno, as on a kernel without the feature:
 * locks ENOLCK; clone3 ENOSYS (the C library then uses clone, whose flags
 * the filter can read); AIO ENOSYS (the C library's POSIX AIO uses threads
 * instead); x32 numbers ENOSYS; other socket families EAFNOSUPPORT;
 * RWF_NOWAIT reads EOPNOTSUPP; the rest EPERM. Advice that would empty the
 * page cache succeeds and does nothing (advice may always be ignored). A
 * call of another architecture (32-bit, on a 64-bit kernel) kills the
 * process: its numbers mean other calls. */

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__) && defined(__AARCH64EL__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

/* Numbers of calls newer than some C libraries' headers: the same on every
 * architecture from 424 on. */
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef __NR_fsopen
#define __NR_fsopen 430
#endif
#ifndef __NR_fsconfig
#define __NR_fsconfig 431
#endif
#ifndef __NR_fsmount
#define __NR_fsmount 432
#endif
#ifndef __NR_fspick
#define __NR_fspick 433
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef __NR_quotactl_fd
#define __NR_quotactl_fd 443
#endif
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
#ifndef __NR_open_tree_attr
#define __NR_open_tree_attr 467
#endif
#ifndef F_OFD_GETLK
#define F_OFD_GETLK 36
#define F_OFD_SETLK 37
#define F_OFD_SETLKW 38
#endif
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x8
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80
#endif

#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | \
                  CLONE_NEWPID | CLONE_NEWNET)

/* Every call refused whatever its arguments, with EPERM. */
static const int refused[] = {
    /* keys: one keyring per uid of the host, listed in /proc/keys to every uid */
    __NR_add_key, __NR_request_key, __NR_keyctl,
    /* watches on files other seats open */
#ifdef __NR_inotify_init
    __NR_inotify_init,
#endif
    __NR_inotify_init1, __NR_inotify_add_watch, __NR_fanotify_init, __NR_fanotify_mark,
    /* interfaces beside this filter, or into other processes and the kernel */
    __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register, __NR_userfaultfd, __NR_bpf,
    __NR_perf_event_open, __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_kcmp,
    __NR_pidfd_getfd, __NR_process_madvise, __NR_cachestat, __NR_name_to_handle_at,
    __NR_open_by_handle_at, __NR_syslog,
    /* the page cache: which pages of a shared file another process read */
    __NR_mincore,
    /* the CPU the arena pinned the bot to */
    __NR_sched_setaffinity,
    /* namespaces and mounts (a user namespace of its own would allow them) */
    __NR_setns, __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot, __NR_open_tree,
    __NR_open_tree_attr, __NR_move_mount, __NR_fsopen, __NR_fsconfig, __NR_fsmount, __NR_fspick,
    __NR_mount_setattr,
    /* the machine's own business */
    __NR_kexec_load, __NR_kexec_file_load, __NR_init_module, __NR_finit_module, __NR_delete_module,
    __NR_reboot, __NR_swapon, __NR_swapoff, __NR_acct, __NR_quotactl, __NR_quotactl_fd,
    __NR_settimeofday, __NR_clock_settime, __NR_clock_adjtime, __NR_vhangup,
#ifdef __NR_lookup_dcookie
    __NR_lookup_dcookie,
#endif
#ifdef __NR_uselib
    __NR_uselib,
#endif
#ifdef __NR_iopl
    __NR_iopl, __NR_ioperm,
#endif
};

/* Calls refused with ENOSYS: the kernel's AIO contexts are counted for the whole machine (/proc/sys/fs/aio-nr). */
static const int absent[] = {
    __NR_io_setup, __NR_io_destroy, __NR_io_submit, __NR_io_cancel, __NR_io_getevents,
#ifdef __NR_io_pgetevents
    __NR_io_pgetevents,
#endif
};

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif

/* Calls that take a pid (argument `arg`) and must not reach PID 1, the
 * supervisor: in the bot's PID namespace every other process is the bot's
 * own (its threads set their own scheduling by their ids: mono does).
 * Signals too: Linux spares a namespace's init the signals it does not
 * handle, gVisor's kernel does not (a bot's SIGTERM ended its supervisor). */
static const int not_supervisor[][2] = {
    {__NR_prlimit64, 0}, {__NR_sched_setscheduler, 0}, {__NR_sched_setparam, 0}, {__NR_sched_setattr, 0},
    {__NR_kill, 0}, {__NR_tkill, 0}, {__NR_tgkill, 0}, {__NR_rt_sigqueueinfo, 0}, {__NR_rt_tgsigqueueinfo, 0},
    {__NR_pidfd_open, 0},
};

#define MAX_FILTER 1024
struct filter {
    struct sock_filter code[MAX_FILTER];
    unsigned n;
};

#define ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LOW(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define ARG_LOW(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

static void put(struct filter *f, struct sock_filter ins) {
    if (f->n < MAX_FILTER) f->code[f->n] = ins;
    f->n++;
}

static void ret(struct filter *f, unsigned action) {
    put(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action));
}

/* if A == value: return action (else fall through) */
static void when(struct filter *f, unsigned value, unsigned action) {
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 1));
    ret(f, action);
}

/* A block for one call whose arguments decide: it starts when the number
 * matches, loads the low 32 bits of argument `arg` (the kernel reads these
 * calls' arguments as 32-bit values), and ends with "allow" (end_call). */
static unsigned begin_call(struct filter *f, int nr, int arg) {
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 0));
    unsigned at = f->n - 1;
    put(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(arg)));
    return at;
}

static void end_call(struct filter *f, unsigned at) {
    ret(f, SECCOMP_RET_ALLOW);
    if (f->n <= MAX_FILTER) f->code[at].jf = (unsigned char)(f->n - at - 1);
}

/* the low 32 bits of argument `arg` into A */
static void load_arg(struct filter *f, int arg) {
    put(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(arg)));
}

/* if A != value: return action */
static void unless(struct filter *f, unsigned value, unsigned action) {
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 1, 0));
    ret(f, action);
}

/* The supervisor as the bot's namespace numbers it. */
#define SUPERVISOR_PID 1

/* if A & mask: return action (A is kept) */
static void when_any(struct filter *f, unsigned mask, unsigned action) {
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, mask, 0, 1));
    ret(f, action);
}

static int build_filter(struct filter *f) {
#ifndef NATIVE_ARCH
    (void)f;
    return -1;
#else
    f->n = 0;
    put(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0));
    ret(f, SECCOMP_RET_KILL_PROCESS);
    put(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#ifdef __x86_64__
    /* x32 numbers (bit 30) reach the same kernel code under other numbers */
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
    ret(f, ERRNO(ENOSYS));
#endif
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        when(f, (unsigned)refused[i], ERRNO(EPERM));
    when(f, __NR_flock, ERRNO(ENOLCK));
    when(f, __NR_clone3, ERRNO(ENOSYS));
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
        when(f, (unsigned)absent[i], ERRNO(ENOSYS));

    unsigned at;
    for (size_t i = 0; i < sizeof not_supervisor / sizeof not_supervisor[0]; i++) {
        at = begin_call(f, not_supervisor[i][0], not_supervisor[i][1]);
        when(f, SUPERVISOR_PID, ERRNO(EPERM));
        if (not_supervisor[i][0] == __NR_kill) when(f, (unsigned)-1, ERRNO(EPERM)); /* every process */
        end_call(f, at);
    }
    /* one process at a time, not the supervisor: a process group or a uid takes it in */
    at = begin_call(f, __NR_setpriority, 0);
    unless(f, 0 /* PRIO_PROCESS */, ERRNO(EPERM));
    load_arg(f, 1);
    when(f, SUPERVISOR_PID, ERRNO(EPERM));
    end_call(f, at);
    at = begin_call(f, __NR_ioprio_set, 0);
    unless(f, 1 /* IOPRIO_WHO_PROCESS */, ERRNO(EPERM));
    load_arg(f, 1);
    when(f, SUPERVISOR_PID, ERRNO(EPERM));
    end_call(f, at);

    /* advice that would empty the page cache of a shared file: accepted, and nothing done */
#ifdef __NR_fadvise64
    at = begin_call(f, __NR_fadvise64, 3);
    when(f, 4 /* POSIX_FADV_DONTNEED */, ERRNO(0));
    when(f, 5 /* POSIX_FADV_NOREUSE */, ERRNO(0));
    end_call(f, at);
#endif
    at = begin_call(f, __NR_madvise, 2);
    when(f, 20 /* MADV_COLD */, ERRNO(0));
    when(f, 21 /* MADV_PAGEOUT */, ERRNO(0));
    when(f, 25 /* MADV_COLLAPSE */, ERRNO(0));
    end_call(f, at);

    at = begin_call(f, __NR_fcntl, 1);
    const unsigned locks[] = {F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW};
    for (size_t i = 0; i < sizeof locks / sizeof locks[0]; i++) when(f, locks[i], ERRNO(ENOLCK));
    when(f, F_SETLEASE, ERRNO(EPERM));
    when(f, F_GETLEASE, ERRNO(EPERM));
    when(f, F_NOTIFY, ERRNO(EPERM));
    end_call(f, at);

    /* new namespaces; clone's low byte is the exit signal, where unshare has CLONE_NEWTIME */
    at = begin_call(f, __NR_clone, 0);
    when_any(f, NS_FLAGS, ERRNO(EPERM));
    end_call(f, at);
    at = begin_call(f, __NR_unshare, 0);
    when_any(f, NS_FLAGS | CLONE_NEWTIME, ERRNO(EPERM));
    end_call(f, at);

    /* only the families a network namespace separates (vsock reaches a VM's host) */
    at = begin_call(f, __NR_socket, 0);
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 4, 0));
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 3, 0));
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 2, 0));
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 1, 0));
    ret(f, ERRNO(EAFNOSUPPORT));
    end_call(f, at);

    /* a read that fails rather than wait for the disk tells what other seats read */
    at = begin_call(f, __NR_preadv2, 5);
    when_any(f, RWF_NOWAIT, ERRNO(EOPNOTSUPP));
    end_call(f, at);

    /* PER_LINUX or PER_LINUX32 only, without READ_IMPLIES_EXEC; 0xffffffff asks */
    at = begin_call(f, __NR_personality, 0);
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 3, 0));
    put(f, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf7u | 0x0400000u));
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0));
    ret(f, ERRNO(EPERM));
    end_call(f, at);

    ret(f, SECCOMP_RET_ALLOW);
    return f->n <= MAX_FILTER ? 0 : -1;
#endif
}

/* In the bot's process, just before exec: 0, or an errno with the reason on stderr. */
static int install_filter(void) {
    static struct filter f;
    if (build_filter(&f) != 0) {
        fprintf(stderr, "arena-supervisor: no seccomp filter for this architecture or it is too long; "
                        "the bot is not started\n");
        return ENOSYS;
    }
    struct sock_fprog prog = {(unsigned short)f.n, f.code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        int err = errno;
        fprintf(stderr, "arena-supervisor: cannot install the seccomp filter (%s); the bot is not started\n",
                strerror(err));
        return err;
    }
    return 0;
}

/* The bot's stdin and stdout, and for an ACPC agent's relay a third: its
 * hand-over socket to the arena, which the bot gets as descriptor 3. */
static int receive_fds(int *in_fd, int *out_fd, int *hand_over) {
    char data[8];
    char control[CMSG_SPACE(3 * sizeof(int))];
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
        (c->cmsg_len != CMSG_LEN(2 * sizeof(int)) && c->cmsg_len != CMSG_LEN(3 * sizeof(int))))
        return -1;
    int fds[3] = {-1, -1, -1};
    memcpy(fds, CMSG_DATA(c), c->cmsg_len - CMSG_LEN(0));
    *in_fd = fds[0];
    *out_fd = fds[1];
    *hand_over = fds[2];
    return 0;
}

int main(int argc, char **argv) {
    int seccomp = argc > 1 && strcmp(argv[1], "--seccomp") == 0;
    argv += seccomp;
    argc -= seccomp;
    if (argc < 4 || strcmp(argv[2], "--") != 0) {
        fprintf(stderr, "usage: arena-supervisor [--seccomp] SOCKET_FD -- PROGRAM [ARG...]\n");
        return 2;
    }
    sock = atoi(argv[1]);
    char **program = argv + 3;
    (void)fcntl(sock, F_SETFD, FD_CLOEXEC);

    /* The bot (same uid) must not ptrace us or read our memory. */
    prctl(PR_SET_DUMPABLE, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    /* Nothing the bot or a terminal sends ends or stops us (SIGCHLD is read below). */
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP && s != SIGCHLD) signal(s, SIG_IGN);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);

    int in_fd, out_fd, hand_over;
    if (receive_fds(&in_fd, &out_fd, &hand_over) != 0) {
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
    if (hand_over >= 0 && exec_pipe[1] <= 3) { /* the child's descriptor 3 is the hand-over socket */
        int moved = fcntl(exec_pipe[1], F_DUPFD_CLOEXEC, 4);
        close(exec_pipe[1]);
        exec_pipe[1] = moved;
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
        /* In a group of its own: a signal to "my group" (kill 0) does not reach us. Sandboxed
         * only: at level none the arena's last resort is a kill of our group, the bot in it. */
        if (seccomp) (void)setpgid(0, 0);
        /* Under memory pressure the bot, not its supervisor, is the one to go. */
        int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        if (oom >= 0) {
            (void)!write(oom, "1000", 4);
            close(oom);
        }
        if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || (hand_over >= 0 && dup2(hand_over, 3) < 0) ||
            (hand_over == 3 && fcntl(3, F_SETFD, 0) < 0)) {
            int err = errno;
            (void)!write(exec_pipe[1], &err, sizeof err);
            _exit(127);
        }
        /* in_fd, out_fd, hand_over, sock and exec_pipe are close-on-exec (3 is not, if given) */
        int err = seccomp ? install_filter() : 0;
        if (err == 0) err = run(program);
        (void)!write(exec_pipe[1], &err, sizeof err);
        _exit(127);
    }
    close(exec_pipe[1]);
    close(in_fd);
    close(out_fd);
    if (hand_over >= 0) close(hand_over);
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
