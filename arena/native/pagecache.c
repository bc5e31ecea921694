/* arena-pagecache: bring every page of every regular file under the given
 * roots into the page cache (arena/sandbox/_memory.py says why: a page a bot
 * finds cold is a mark another process left). In C because the check runs
 * before the first bot of every arena run and every few minutes in a
 * league, over ~100,000 files: a Python loop spent 1.4 CPU-s on it, this
 * about 0.5, almost all of it in the kernel.
 *
 * Usage: arena-pagecache LIMIT ROOT...
 * Prints one line:
 *   held FILES BYTES READ SKIPPED    every file is cached now (READ bytes were not)
 *   too-large FILES BYTES            the files take more than LIMIT bytes (0: no limit);
 *                                    nothing was read
 * A file is counted once however many names or roots reach it; symbolic
 * links below a root are not followed. Exit 2 on bad usage or no memory.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_cachestat
#define SYS_cachestat 451 /* the same number on every architecture */
#endif

#define PASSES 4
/* A pass that read more than this is followed by another: reading gigabytes
 * takes long enough for a kernel that reclaims idle pages to drop some of
 * what the pass read first. */
#define SETTLED (64ull << 20)

struct file {
    char *path;
    unsigned long long size;
    dev_t dev;
    ino_t ino;
};

static struct file *files;
static size_t nfiles, capacity;

static void *must(void *p)
{
    if (!p) {
        perror("arena-pagecache");
        exit(2);
    }
    return p;
}

static void add(const char *path, const struct stat *st)
{
    if (nfiles == capacity) {
        capacity = capacity ? capacity * 2 : 8192;
        files = must(realloc(files, capacity * sizeof *files));
    }
    files[nfiles].path = must(strdup(path));
    files[nfiles].size = (unsigned long long)st->st_size;
    files[nfiles].dev = st->st_dev;
    files[nfiles].ino = st->st_ino;
    nfiles++;
}

/* path[0..len) names the folder open as dirfd (closed here). */
static void walk_folder(int dirfd, char *path, size_t len)
{
    DIR *d = fdopendir(dirfd);
    if (!d) {
        close(dirfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        if (!strcmp(name, ".") || !strcmp(name, ".."))
            continue;
        size_t n = strlen(name);
        if (len + 1 + n >= PATH_MAX)
            continue;
        if (e->d_type != DT_REG && e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
            continue; /* links, devices, sockets: nothing to hold */
        struct stat st;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        path[len] = '/';
        memcpy(path + len + 1, name, n + 1);
        if (S_ISREG(st.st_mode)) {
            add(path, &st);
        } else if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                walk_folder(sub, path, len + 1 + n);
        }
        path[len] = 0;
    }
    closedir(d);
}

static void walk(const char *root)
{
    static char path[PATH_MAX];
    size_t n = strlen(root);
    if (n == 0 || n >= sizeof path)
        return;
    memcpy(path, root, n + 1);
    while (n > 1 && path[n - 1] == '/')
        path[--n] = 0;
    struct stat st;
    if (stat(path, &st) != 0) /* a root is followed if it is a link; nothing below it is */
        return;
    if (S_ISREG(st.st_mode)) {
        add(path, &st);
    } else if (S_ISDIR(st.st_mode)) {
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0)
            walk_folder(fd, path, n);
    }
}

static int by_inode(const void *a, const void *b)
{
    const struct file *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return 0;
}

struct cs_range { uint64_t off, len; };
struct cs_stat { uint64_t cache, dirty, writeback, evicted, recently_evicted; };

static int cachestat_works = 1;

/* Whether every page of the open file is cached (0 when it cannot be told). */
static int all_cached(int fd, unsigned long long size, long page)
{
    if (!cachestat_works)
        return 0;
    struct cs_range whole = {0, 0};
    struct cs_stat got;
    if (syscall(SYS_cachestat, fd, &whole, &got, 0) != 0) {
        if (errno == ENOSYS || errno == EPERM)
            cachestat_works = 0; /* this kernel (or a filter) has none: read everything */
        return 0;
    }
    return got.cache * (unsigned long long)page >= size;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: arena-pagecache LIMIT ROOT...\n");
        return 2;
    }
    char *end;
    unsigned long long limit = strtoull(argv[1], &end, 10);
    if (*end) {
        fprintf(stderr, "arena-pagecache: LIMIT is a number of bytes, not %s\n", argv[1]);
        return 2;
    }
    for (int i = 2; i < argc; i++)
        walk(argv[i]);
    qsort(files, nfiles, sizeof *files, by_inode);
    size_t kept = 0;
    unsigned long long total = 0;
    for (size_t i = 0; i < nfiles; i++) {
        if (kept && files[kept - 1].dev == files[i].dev && files[kept - 1].ino == files[i].ino)
            continue;
        files[kept++] = files[i];
        total += files[i].size;
    }
    if (limit && total > limit) {
        printf("too-large %zu %llu\n", kept, total);
        return 0;
    }
    long page = sysconf(_SC_PAGESIZE);
    static char buf[1 << 20];
    unsigned long long read_all = 0, skipped = 0;
    for (int pass = 0; pass < PASSES; pass++) {
        unsigned long long read_now = 0;
        skipped = 0;
        for (size_t i = 0; i < kept; i++) {
            int fd = open(files[i].path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0) {
                skipped++;
                continue;
            }
            if (!all_cached(fd, files[i].size, page)) {
                for (;;) {
                    ssize_t got = read(fd, buf, sizeof buf);
                    if (got < 0 && errno == EINTR)
                        continue;
                    if (got < 0)
                        skipped++;
                    if (got <= 0)
                        break;
                    read_now += (unsigned long long)got;
                }
            }
            close(fd);
        }
        read_all += read_now;
        if (read_now <= SETTLED)
            break;
    }
    printf("held %zu %llu %llu %llu\n", kept, total, read_all, skipped);
    return 0;
}
