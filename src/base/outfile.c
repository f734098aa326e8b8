/* outfile.c - the one writer of ecnwatch's files (outfile.h) */
#define _GNU_SOURCE /* O_TMPFILE, linkat's AT_EMPTY_PATH */
#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum target_kind { T_STDOUT, T_REPLACE, T_IN_PLACE };

/* the guard (below): a destination settled before the drop */
struct dest;
static struct dest *guard_dest(const char *path, const char *what, int *e, bool *refused);
static void say_settle(char *err, size_t errlen, const char *path, const char *what, int e,
                       bool refused);
static struct dest *guard_find(const char *path, const char **name);
static bool guard_in_place(const struct dest *d);
static bool guard_local(void);
static int guard_device(struct dest *d);
static int guard_device_dup(struct dest *d, int *fd);
static int guard_probe(const struct dest *d);
static int guard_replace(const struct dest *d, const char *name, ew_outfile_fill fill,
                         void *arg);
static int guard_create(const struct dest *d, int *fd, int *handle);
static int guard_commit(int handle, const char *name);
static void guard_drop(int handle);
static void say(char *err, size_t errlen, const char *path, const char *what, int e);

/* what path names, and for a file to replace, the path to replace (a
 * symbolic link's target, so that the link stays a link). 0, or an errno. */
static int
target_of(const char *path, enum target_kind *kind, char **file)
{
    struct stat st, lst;

    *file = NULL;
    if (!strcmp(path, "-")) {
        *kind = T_STDOUT;
        return 0;
    }
    if (stat(path, &st) != 0) {
        if (errno != ENOENT)
            return errno;
        *kind = T_REPLACE; /* nothing there yet (or a link to nothing: replaced) */
        *file = strdup(path);
        return *file ? 0 : ENOMEM;
    }
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (!S_ISREG(st.st_mode)) {
        *kind = T_IN_PLACE;
        return 0;
    }
    *kind = T_REPLACE;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
        *file = realpath(path, NULL);
    else
        *file = strdup(path);
    return *file ? 0 : errno ? errno : ENOMEM;
}

/* the folder of file, as a new string ("." when it names none) */
static char *
folder_of(const char *file)
{
    const char *slash = strrchr(file, '/');
    char *d;

    if (!slash)
        return strdup(".");
    if (slash == file)
        return strdup("/");
    d = strndup(file, (size_t)(slash - file));
    return d;
}

/* an unnamed file in dir (O_TMPFILE), mode 0666 less the umask; -1 with
 * errno when the file system (or the kernel) has none */
static int
open_unnamed(const char *dir)
{
#ifdef O_TMPFILE
    return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
#else
    (void)dir;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

/* errors of O_TMPFILE that mean "not here", not "not allowed" */
static bool
no_tmpfile(int e)
{
    return e == EOPNOTSUPP || e == EISDIR || e == EINVAL;
}

/* a temporary name no other user can guess (and so cannot take first):
 * ".ecnwatch-" and 64 random bits, in dir when dir is not NULL */
static void
tmp_name(char *name, size_t len, const char *dir)
{
    static uint64_t seq;
    uint64_t r;

    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
        struct timespec ts;

        /* no entropy yet (early boot): a mix of the clock, pid and a count */
        clock_gettime(CLOCK_MONOTONIC, &ts);
        r = ((uint64_t)ts.tv_nsec << 32 ^ (uint64_t)ts.tv_sec ^ (uint64_t)getpid() << 16) +
            ++seq * 0x9e3779b97f4a7c15ull;
    }
    if (dir)
        snprintf(name, len, "%s/.ecnwatch-%016llx.tmp", dir, (unsigned long long)r);
    else
        snprintf(name, len, ".ecnwatch-%016llx.tmp", (unsigned long long)r);
}

/* a short name in dir for the moment between linking and renaming; 0 or an
 * errno. The name is short so that it fits where the path's own name is
 * already as long as a name may be. */
static int
link_unnamed(int fd, const char *dir, char *name, size_t len)
{
    char proc[64];
    unsigned i;

    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    for (i = 0; i < 100; i++) {
        tmp_name(name, len, dir);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
            return 0;
        if (errno == EEXIST)
            continue;
#ifdef AT_EMPTY_PATH
        if (linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH) == 0)
            return 0;
        if (errno == EEXIST)
            continue;
#endif
        return errno;
    }
    return EEXIST;
}

/* fill into fp, flushed and (for a file) on disk: 0 or an errno; fp closed */
static int
fill_and_close(FILE *fp, ew_outfile_fill fill, void *arg, bool sync)
{
    int e;

    errno = 0;
    if (fill(arg, fp) != 0) {
        e = errno ? errno : EIO;
        fclose(fp);
        return e;
    }
    if (fflush(fp) != 0 || (sync && fsync(fileno(fp)) != 0)) {
        e = errno;
        fclose(fp);
        return e;
    }
    return fclose(fp) != 0 ? errno : 0;
}

/* replace file atomically: 0 or an errno, nothing left behind on failure */
static int
replace(const char *file, ew_outfile_fill fill, void *arg)
{
    char *dir = folder_of(file);
    size_t tlen = (dir ? strlen(dir) : 0) + 64;
    char *tmp = malloc(tlen);
    FILE *fp;
    mode_t um;
    int fd, e = 0;

    if (!dir || !tmp) {
        free(dir);
        free(tmp);
        return ENOMEM;
    }
    fd = open_unnamed(dir);
    if (fd >= 0) {
        fp = fdopen(fd, "w");
        if (!fp) {
            e = errno;
            close(fd);
            goto out;
        }
        /* the descriptor stays open for the link: a second one */
        fd = dup(fileno(fp));
        if (fd < 0) {
            e = errno;
            fclose(fp);
            goto out;
        }
        e = fill_and_close(fp, fill, arg, true);
        if (!e)
            e = link_unnamed(fd, dir, tmp, tlen);
        close(fd);
        if (!e && rename(tmp, file) != 0) {
            e = errno;
            unlink(tmp);
        }
        goto out;
    }
    if (!no_tmpfile(errno)) {
        e = errno;
        goto out;
    }
    /* no unnamed files here: a named temporary file, made 0600, given the
     * mode any new file gets */
    snprintf(tmp, tlen, "%s/.ecnwatch.XXXXXX", dir);
    fd = mkstemp(tmp);
    if (fd < 0) {
        e = errno;
        goto out;
    }
    um = umask(0);
    umask(um);
    if (fchmod(fd, 0666 & ~um) != 0 || !(fp = fdopen(fd, "w"))) {
        e = errno;
        close(fd);
        unlink(tmp);
        goto out;
    }
    e = fill_and_close(fp, fill, arg, true);
    if (!e && rename(tmp, file) != 0)
        e = errno;
    if (e)
        unlink(tmp);
out:
    free(dir);
    free(tmp);
    return e;
}

/* how long a FIFO may have no reader when it is to be written */
#define FIFO_WAIT_MS 10000

/* A device, FIFO or socket opened to be written in place: a FIFO with no
 * reader is waited for FIFO_WAIT_MS at most (a plain open would wait for
 * ever), then refused with ENXIO (said "no reader": reason()). The
 * descriptor, or -1 with errno set. */
static int
open_in_place(const char *path)
{
    int fd, waited = 0;

    while ((fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)) < 0 &&
           errno == ENXIO && waited < FIFO_WAIT_MS) {
        struct timespec ts = {0, 100 * 1000000L};

        nanosleep(&ts, NULL);
        waited += 100;
    }
    if (fd >= 0) {
        int fl = fcntl(fd, F_GETFL);

        /* written as any file is, blocking */
        if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
            int e = errno;

            close(fd);
            errno = e;
            return -1;
        }
    }
    return fd;
}

/* a device, FIFO or socket: opened and written as it is */
static int
in_place(const char *path, ew_outfile_fill fill, void *arg)
{
    int fd = open_in_place(path);
    FILE *fp;

    if (fd < 0)
        return errno;
    fp = fdopen(fd, "w");
    if (!fp) {
        int e = errno;

        close(fd);
        return e;
    }
    return fill_and_close(fp, fill, arg, false);
}

int
ew_outfile_write(const char *path, ew_outfile_fill fill, void *arg, const char *what,
                 char *err, size_t errlen)
{
    enum target_kind kind;
    char *file;
    const char *name;
    struct dest *d = guard_find(path, &name);
    bool refused = false;
    int e;

    if (!d && guard_local()) {
        /* not checked before: settled now (a link not ours is refused) */
        d = guard_dest(path, what, &e, &refused);
        if (e && e != EMFILE) {
            say_settle(err, errlen, path, what, e, refused);
            return -1;
        }
        if (d)
            (void)guard_find(path, &name);
    }
    if (d && guard_in_place(d) && !guard_local()) {
        /* root's device or FIFO, opened before the drop */
        FILE *fp = NULL;
        int fd = -1;

        e = guard_device_dup(d, &fd);
        if (!e && !(fp = fdopen(fd, "w"))) {
            e = errno;
            close(fd);
        }
        if (!e)
            e = fill_and_close(fp, fill, arg, false);
        if (e) {
            say(err, errlen, path, what, e);
            return -1;
        }
        return 0;
    }
    if (d && !guard_in_place(d)) {
        /* a destination settled before */
        e = guard_replace(d, name, fill, arg);
        if (e) {
            say(err, errlen, path, what, e);
            return -1;
        }
        return 0;
    }
    e = target_of(path, &kind, &file);
    if (!e) {
        switch (kind) {
        case T_STDOUT:
            errno = 0;
            if (fill(arg, stdout) != 0)
                e = errno ? errno : EIO;
            else if (fflush(stdout) != 0)
                e = errno ? errno : EIO;
            break;
        case T_IN_PLACE:
            e = in_place(path, fill, arg);
            break;
        case T_REPLACE:
            e = replace(file, fill, arg);
            break;
        }
    }
    free(file);
    if (e) {
        say(err, errlen, path, what, e);
        return -1;
    }
    return 0;
}

int
ew_outfile_check(const char *path, const char *what, char *err, size_t errlen)
{
    enum target_kind kind;
    char *file, *dir = NULL;
    char tmp[PATH_MAX];
    struct dest *d;
    bool refused;
    int e, fd;

    if ((d = guard_dest(path, what, &e, &refused)) || e) {
        /* root's destination, settled now: a device or FIFO is checked
         * again once dropped (ew_outfile_dropped), when it is written */
        if (!e && guard_in_place(d)) {
            e = guard_device(d); /* with a drop: opened now */
            if (!e && guard_local() && access(path, W_OK) != 0)
                e = errno;
        }
        else if (!e)
            e = guard_probe(d);
        if (e) {
            say_settle(err, errlen, path, what, e, refused);
            return -1;
        }
        return 0;
    }
    e = target_of(path, &kind, &file);
    if (!e && kind == T_IN_PLACE) {
        /* not opened: opening and closing a FIFO would end its reader's input */
        if (access(path, W_OK) != 0)
            e = errno;
    } else if (!e && kind == T_REPLACE) {
        dir = folder_of(file);
        if (!dir) {
            e = ENOMEM;
        } else if ((fd = open_unnamed(dir)) >= 0) {
            close(fd);
        } else if (!no_tmpfile(errno)) {
            e = errno;
        } else {
            snprintf(tmp, sizeof(tmp), "%s/.ecnwatch.XXXXXX", dir);
            fd = mkstemp(tmp);
            if (fd < 0) {
                e = errno;
            } else {
                close(fd);
                unlink(tmp);
            }
        }
    }
    free(file);
    free(dir);
    if (e) {
        say(err, errlen, path, what, e);
        return -1;
    }
    return 0;
}

/* the streaming writer: what ew_outfile_open made, for ew_outfile_close */
struct ew_outfile {
    enum target_kind kind;
    int fd;
    char *path;  /* as given, for messages */
    char *file;  /* T_REPLACE: the file to replace */
    char *dir;   /* T_REPLACE: its folder */
    char *tmp;   /* T_REPLACE without O_TMPFILE: the temporary file's name */
    const char *what;
    const char *name; /* guarded: the name in its destination's folder */
    int handle;       /* guarded: the helper's handle of the file, else -1 */
};

static void
outfile_free(struct ew_outfile *f)
{
    if (f->fd >= 0)
        close(f->fd);
    free(f->path);
    free(f->file);
    free(f->dir);
    free(f->tmp);
    free(f);
}

struct ew_outfile *
ew_outfile_open(const char *path, const char *what, char *err, size_t errlen)
{
    struct ew_outfile *f = calloc(1, sizeof(*f));
    struct dest *d;
    bool refused = false;
    int e;

    if (!f) {
        say(err, errlen, path, what, ENOMEM);
        return NULL;
    }
    f->fd = -1;
    f->handle = -1;
    f->what = what;
    f->path = strdup(path);
    e = f->path ? 0 : ENOMEM;
    d = e ? NULL : guard_dest(path, what, &e, &refused);
    if (d && guard_in_place(d)) {
        /* a device or FIFO: opened now, as tcpdump opens it (root's, once,
         * before the drop) */
        f->kind = T_IN_PLACE;
        if (guard_local())
            f->fd = open_in_place(path);
        else
            e = guard_device_dup(d, &f->fd);
        if (!e && f->fd < 0)
            e = errno;
    } else if (d) {
        /* root's file: the helper's, given its name at the close */
        f->kind = T_REPLACE;
        (void)guard_find(f->path, &f->name);
        e = guard_create(d, &f->fd, &f->handle);
    } else if (!e && !(e = target_of(path, &f->kind, &f->file))) {
        switch (f->kind) {
        case T_STDOUT:
            f->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
            break;
        case T_IN_PLACE:
            f->fd = open_in_place(path);
            break;
        case T_REPLACE:
            f->dir = folder_of(f->file);
            if (!f->dir) {
                errno = ENOMEM;
                break;
            }
            f->fd = open_unnamed(f->dir);
            if (f->fd < 0 && no_tmpfile(errno)) {
                mode_t um;
                size_t tlen = strlen(f->dir) + 64;

                /* a named temporary file, given the mode any new file gets */
                f->tmp = malloc(tlen);
                if (!f->tmp) {
                    errno = ENOMEM;
                    break;
                }
                snprintf(f->tmp, tlen, "%s/.ecnwatch.XXXXXX", f->dir);
                f->fd = mkstemp(f->tmp);
                if (f->fd < 0) {
                    free(f->tmp);
                    f->tmp = NULL;
                    break;
                }
                um = umask(0);
                umask(um);
                if (fchmod(f->fd, 0666 & ~um) != 0) {
                    e = errno;
                    unlink(f->tmp);
                    close(f->fd);
                    f->fd = -1;
                    errno = e;
                }
            }
            break;
        }
        if (f->fd < 0)
            e = errno ? errno : EIO;
    }
    if (e) {
        say_settle(err, errlen, path, what, e, refused);
        if (f->tmp && f->fd >= 0)
            unlink(f->tmp);
        outfile_free(f);
        return NULL;
    }
    return f;
}

int
ew_outfile_fd(const struct ew_outfile *f)
{
    return f->fd;
}

int
ew_outfile_close(struct ew_outfile *f, bool commit, char *err, size_t errlen)
{
    int e = 0;

    if (f->handle >= 0) {
        /* the helper's file: flushed to disk here, named there */
        if (commit && fsync(f->fd) != 0)
            e = errno;
        if (commit && !e)
            e = guard_commit(f->handle, f->name);
        else
            guard_drop(f->handle);
    } else if (f->kind == T_REPLACE) {
        if (commit && fsync(f->fd) != 0)
            e = errno;
        if (commit && !e && f->tmp) {
            if (rename(f->tmp, f->file) != 0)
                e = errno;
        } else if (commit && !e) {
            size_t tlen = strlen(f->dir) + 64;
            char *name = malloc(tlen);

            e = name ? link_unnamed(f->fd, f->dir, name, tlen) : ENOMEM;
            if (!e && rename(name, f->file) != 0) {
                e = errno;
                unlink(name);
            }
            free(name);
        }
        if ((e || !commit) && f->tmp)
            unlink(f->tmp);
    }
    if (f->fd >= 0 && close(f->fd) != 0 && commit && !e && f->kind != T_STDOUT)
        e = errno;
    f->fd = -1;
    if (e)
        say(err, errlen, f->path, f->what, e);
    outfile_free(f);
    return e ? -1 : 0;
}

/* ---- the guard: root's destinations, settled before the drop (outfile.h) ----
 *
 * Once root has become another user, that user may not create, link or
 * rename anything in a folder of root's (a descriptor of the folder opened
 * before does not change that: each of those is checked against who asks).
 * So a helper forked before the drop keeps root, and does only this: in the
 * folders opened before the drop, it makes unnamed files (handing the
 * writer a descriptor of each) and gives one of those files, and no other,
 * a name that was settled before the drop, by a link and a rename. It
 * follows no symbolic link: the folders are the ones opened at start, the
 * rename replaces a name without following it. The writer flushes and
 * syncs what it wrote; the helper ends when the writer closes its socket
 * (or dies), removing what was never named. */

#define G_MAX_DEST 16 /* -o, -w, --csv, --metrics-file, --plot: its index and folder */
#define H_MAX_FILE 16 /* files of the helper's not yet named or dropped */
#define H_TEXT 256    /* a name (NAME_MAX + 1), or a folder's patterns */

enum h_op { H_ADD = 1, H_SEAL, H_CREATE, H_COMMIT, H_DROP };

struct h_req {
    int32_t op;
    int32_t slot;      /* H_CREATE: the folder */
    int32_t handle;    /* H_COMMIT, H_DROP: the file */
    int32_t folder;    /* H_ADD: text is patterns, one a line, not a name */
    char text[H_TEXT]; /* H_ADD: the name (or patterns); H_COMMIT: the name */
};

struct h_rep {
    int32_t err; /* 0 or an errno */
    int32_t slot;
    int32_t handle;
};

/* a destination, as the writer knows it */
struct dest {
    char *path;       /* as given: a file's, or the folder's without its last slashes */
    const char *what; /* for the messages of ew_outfile_dropped */
    char *name;       /* a file: its name in the folder (a link's target's) */
    bool folder;      /* names in the folder that match its patterns */
    bool in_place;    /* a device, FIFO or socket: written as it is, never replaced */
    int obj;          /* in place: an O_PATH descriptor of it, found by the walk */
    int fd;           /* in place, with a drop: opened to write before the drop */
    int slot;         /* the helper's folder */
};

static struct {
    bool on;          /* destinations are settled: through the helper, or here */
    bool local;       /* no drop: the helper's work is done in this process */
    bool sealed;      /* no more destinations */
    bool dropped;     /* the drop is done: messages name the user */
    const char *user;
    int sock;
    pid_t pid;
    struct dest d[G_MAX_DEST];
    int n;
} g = {.sock = -1, .pid = -1};

static void
say(char *err, size_t errlen, const char *path, const char *what, int e)
{
    /* ENXIO from a FIFO's open: nobody reads it (open_in_place) */
    const char *why = e == ENXIO ? "no reader on the FIFO for 10 s" : strerror(e);

    if (g.dropped)
        snprintf(err, errlen, "%s: cannot write the %s as user %s (see -Z): %s", path, what,
                 g.user, why);
    else
        snprintf(err, errlen, "%s: cannot write the %s: %s", path, what, why);
}

/* one message, and a descriptor with it (give >= 0) */
static int
h_send(int sock, const void *m, size_t len, int give)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {(void *)m, len};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    struct cmsghdr *c;
    ssize_t n;

    if (give >= 0) {
        memset(&u, 0, sizeof(u));
        mh.msg_control = u.buf;
        mh.msg_controllen = sizeof(u.buf);
        c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &give, sizeof(int));
    }
    do
        n = sendmsg(sock, &mh, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)len ? 0 : -1;
}

/* one message of at most len bytes, and the descriptor with it in *got (or
 * -1; any other is closed): its length, 0 at the end, -1 with errno */
static ssize_t
h_recv(int sock, void *m, size_t len, int *got)
{
    union {
        char buf[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {m, len};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                        .msg_controllen = sizeof(u.buf)};
    struct cmsghdr *c;
    ssize_t n;

    *got = -1;
    do
        n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        size_t k, nfd;

        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (k = 0; k < nfd; k++) {
            int fd;

            memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof(int));
            if (*got < 0)
                *got = fd;
            else
                close(fd);
        }
    }
    if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
        if (*got >= 0)
            close(*got);
        *got = -1;
        errno = EMSGSIZE;
        return -1;
    }
    return n;
}

/* ---- the helper's side: a loop over the writer's requests, as root ---- */

struct h_slot {
    int dirfd;
    bool folder;
    char text[H_TEXT];
};

struct h_file {
    int fd;        /* -1: free */
    int slot;
    char tmp[64];  /* where the folder has no unnamed files: its temporary name */
};

struct h_state {
    struct h_slot slot[G_MAX_DEST];
    int nslot;
    struct h_file file[H_MAX_FILE];
    bool sealed;
};

/* may a file of slot s be given name? Only the name settled for a file;
 * in a folder, a name of its patterns, not hidden; never a path */
static bool
h_name_ok(const struct h_slot *s, const char *name)
{
    const char *p = s->text, *nl;
    char pat[H_TEXT];

    if (!name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return false;
    if (!s->folder)
        return !strcmp(name, s->text);
    if (name[0] == '.')
        return false;
    while (*p) {
        size_t len;

        nl = strchr(p, '\n');
        len = nl ? (size_t)(nl - p) : strlen(p);
        if (len < sizeof(pat)) {
            memcpy(pat, p, len);
            pat[len] = '\0';
            if (fnmatch(pat, name, FNM_PERIOD) == 0)
                return true;
        }
        p += len + (nl != NULL);
    }
    return false;
}

/* e, or ENOENT when the folder was removed (where the kernel says EPERM) */
static int
h_gone(int dirfd, int e)
{
    struct stat st;

    return fstat(dirfd, &st) == 0 && st.st_nlink == 0 ? ENOENT : e;
}

/* a new file in the slot's folder, mode 0666 less the umask: 0 or an errno */
static int
h_create(struct h_state *h, int slot, struct h_file *f)
{
    int dirfd = h->slot[slot].dirfd, i, e;
    mode_t um;

    f->slot = slot;
    f->tmp[0] = '\0';
#ifdef O_TMPFILE
    f->fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (f->fd >= 0)
        return 0;
    if (!no_tmpfile(errno))
        return h_gone(dirfd, errno);
#endif
    /* no unnamed files here: a temporary name, made 0600, given the mode any
     * new file gets */
    for (i = 0; i < 100; i++) {
        tmp_name(f->tmp, sizeof(f->tmp), NULL);
        f->fd = openat(dirfd, f->tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (f->fd >= 0 || errno != EEXIST)
            break;
    }
    if (f->fd < 0) {
        e = i == 100 ? EEXIST : errno;
        f->tmp[0] = '\0';
        return h_gone(dirfd, e);
    }
    um = umask(0);
    umask(um);
    if (fchmod(f->fd, 0666 & ~um) != 0) {
        e = errno;
        unlinkat(dirfd, f->tmp, 0);
        close(f->fd);
        f->fd = -1;
        f->tmp[0] = '\0';
        return e;
    }
    return 0;
}

static void
h_release(struct h_state *h, struct h_file *f)
{
    if (f->fd < 0)
        return;
    if (f->tmp[0])
        unlinkat(h->slot[f->slot].dirfd, f->tmp, 0);
    close(f->fd);
    f->fd = -1;
    f->tmp[0] = '\0';
}

/* The file that name replaces keeps who owns it and who may read it: f
 * gets its owner, group and permissions (not set-user or set-group ID).
 * Where the owner cannot be given (not root), the permissions still are. */
static void
h_keep_owner(int dirfd, const char *name, int fd)
{
    struct stat st;

    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
        return; /* nothing there, or a link replaced by the file itself */
    if (fchown(fd, st.st_uid, st.st_gid) != 0)
        (void)!fchown(fd, (uid_t)-1, st.st_gid); /* a group of ours, at least */
    (void)!fchmod(fd, st.st_mode & 0777);
}

/* the file named name in its folder, replacing what had that name: 0 or an
 * errno; released either way */
static int
h_commit(struct h_state *h, struct h_file *f, const char *name)
{
    int dirfd = h->slot[f->slot].dirfd, i, e = EEXIST;
    char tmp[64], proc[64];

    h_keep_owner(dirfd, name, f->fd);
    if (f->tmp[0]) {
        e = renameat(dirfd, f->tmp, dirfd, name) == 0 ? 0 : errno;
        if (!e)
            f->tmp[0] = '\0';
        h_release(h, f);
        return e;
    }
    /* an unnamed file: linked under a temporary name, then renamed */
    for (i = 0; i < 100 && e == EEXIST; i++) {
        tmp_name(tmp, sizeof(tmp), NULL);
#ifdef AT_EMPTY_PATH
        if (linkat(f->fd, "", dirfd, tmp, AT_EMPTY_PATH) == 0) {
            e = 0;
            break;
        }
        if (errno == EEXIST)
            continue;
#endif
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
        e = linkat(AT_FDCWD, proc, dirfd, tmp, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
    }
    if (!e && renameat(dirfd, tmp, dirfd, name) != 0) {
        e = errno;
        unlinkat(dirfd, tmp, 0);
    }
    h_release(h, f);
    return e;
}

/* one request: the reply, and a descriptor to give with it (or -1) */
static struct h_rep
h_serve(struct h_state *h, struct h_req *q, ssize_t n, int *fd, int *give)
{
    struct h_rep r = {0, -1, -1};
    struct h_file *f = NULL;
    int i;

    *give = -1;
    q->text[sizeof(q->text) - 1] = '\0';
    if (n != (ssize_t)sizeof(*q)) {
        r.err = EINVAL;
        return r;
    }
    if (q->op == H_COMMIT || q->op == H_DROP) {
        if (q->handle < 0 || q->handle >= H_MAX_FILE || h->file[q->handle].fd < 0) {
            r.err = EBADF;
            return r;
        }
        f = &h->file[q->handle];
    }
    switch (q->op) {
    case H_ADD: /* a folder opened by the writer before the drop */
        if (h->sealed || *fd < 0 || h->nslot == G_MAX_DEST) {
            r.err = EPERM;
            break;
        }
        h->slot[h->nslot].dirfd = *fd;
        h->slot[h->nslot].folder = q->folder != 0;
        memcpy(h->slot[h->nslot].text, q->text, sizeof(q->text));
        *fd = -1;
        r.slot = h->nslot++;
        break;
    case H_SEAL:
        h->sealed = true;
        break;
    case H_CREATE:
        if (q->slot < 0 || q->slot >= h->nslot) {
            r.err = EBADF;
            break;
        }
        for (i = 0; i < H_MAX_FILE && h->file[i].fd >= 0; i++)
            ;
        if (i == H_MAX_FILE) {
            r.err = EMFILE;
            break;
        }
        r.err = h_create(h, q->slot, &h->file[i]);
        if (!r.err) {
            r.handle = i;
            *give = h->file[i].fd;
        }
        break;
    case H_COMMIT:
        if (!h_name_ok(&h->slot[f->slot], q->text)) {
            h_release(h, f);
            r.err = EPERM;
            break;
        }
        r.err = h_commit(h, f, q->text);
        break;
    case H_DROP:
        h_release(h, f);
        break;
    default:
        r.err = EINVAL;
    }
    return r;
}

/* close every descriptor from lo up, but keep */
static void
h_close_from(int lo, int keep)
{
    int fd, max = (int)sysconf(_SC_OPEN_MAX);

#ifdef SYS_close_range
    if (keep > lo && syscall(SYS_close_range, (unsigned)lo, (unsigned)keep - 1, 0u) != 0)
        goto slow;
    if (syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0)
        return;
slow:
#endif
    if (max < 0 || max > 65536)
        max = 65536;
    for (fd = lo; fd < max; fd++)
        if (fd != keep)
            close(fd);
}

static void __attribute__((noreturn))
h_main(int sock, pid_t parent)
{
    static struct h_state h; /* the child's own copy */
    struct h_req q;
    int i, fd, give, null;

    /* it ends with the writer, and not before: the signals that stop a
     * capture (the terminal's Ctrl-C reaches the whole group) are the
     * writer's to handle, and the writer still needs the last renames */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(0);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    /* nothing of the writer's: not its capture, its port, its terminal */
    if (sock < 3 && (sock = fcntl(sock, F_DUPFD_CLOEXEC, 3)) < 0)
        _exit(1);
    null = open("/dev/null", O_RDWR);
    for (i = 0; i < 3 && null >= 0; i++)
        dup2(null, i);
    h_close_from(3, sock);
    for (i = 0; i < H_MAX_FILE; i++)
        h.file[i].fd = -1;
    for (;;) {
        struct h_rep r;
        ssize_t n = h_recv(sock, &q, sizeof(q), &fd);

        if (n <= 0)
            break;
        r = h_serve(&h, &q, n, &fd, &give);
        if (fd >= 0)
            close(fd); /* a descriptor that was not asked for */
        if (h_send(sock, &r, sizeof(r), give) != 0)
            break;
    }
    for (i = 0; i < H_MAX_FILE; i++)
        h_release(&h, &h.file[i]);
    _exit(0);
}

/* ---- the writer's side ---- */

/* the helper's state, when its work is done in this process (g.local) */
static struct h_state g_here;

/* one request served here, as the helper would serve it: the descriptors
 * given either way are copies, as they are over the socket */
static int
g_call_here(struct h_req *q, int give, struct h_rep *r, int *got)
{
    int fd = -1, out = -1;

    if (give >= 0 && (fd = fcntl(give, F_DUPFD_CLOEXEC, 0)) < 0)
        return errno;
    *r = h_serve(&g_here, q, (ssize_t)sizeof(*q), &fd, &out);
    if (fd >= 0)
        close(fd); /* a descriptor that was not asked for */
    if (got && out >= 0 && (*got = fcntl(out, F_DUPFD_CLOEXEC, 0)) < 0 && !r->err)
        r->err = errno;
    return r->err;
}

/* one request and its reply: 0 or an errno */
static int
g_call(struct h_req *q, int give, struct h_rep *r, int *got)
{
    int fd = -1;
    ssize_t n;

    if (got)
        *got = -1;
    if (g.local)
        return g_call_here(q, give, r, got);
    if (g.sock < 0)
        return EPIPE;
    if (h_send(g.sock, q, sizeof(*q), give) != 0)
        return errno ? errno : EPIPE;
    n = h_recv(g.sock, r, sizeof(*r), &fd);
    if (n != (ssize_t)sizeof(*r)) {
        if (fd >= 0)
            close(fd);
        return n < 0 ? errno : EPIPE;
    }
    if (got)
        *got = fd;
    else if (fd >= 0)
        close(fd);
    return r->err;
}

/* give the helper a folder opened now (dirfd, closed here): its slot, or -1
 * with *e set */
static int
g_add(int dirfd, bool folder, const char *text, int *e)
{
    struct h_req q = {.op = H_ADD, .folder = folder};
    struct h_rep r;

    if (strlen(text) >= sizeof(q.text)) {
        close(dirfd);
        *e = ENAMETOOLONG;
        return -1;
    }
    strcpy(q.text, text);
    *e = g_call(&q, dirfd, &r, NULL);
    close(dirfd);
    return *e ? -1 : r.slot;
}

static struct dest *
g_new(const char *path, const char *what, const char *name, bool folder, int slot)
{
    struct dest *d = &g.d[g.n];

    d->path = strdup(path);
    d->name = name ? strdup(name) : NULL;
    if (!d->path || (name && !d->name)) {
        free(d->path);
        free(d->name);
        return NULL;
    }
    d->what = what;
    d->folder = folder;
    d->slot = slot;
    d->in_place = slot < 0;
    d->obj = d->fd = -1;
    g.n++;
    return d;
}

/* settling with no drop (no helper): every path is settled, also late */
static bool
guard_local(void)
{
    return g.on && g.local;
}

static bool
guard_in_place(const struct dest *d)
{
    return d->in_place;
}

/* A device, FIFO or socket of root's run that drops: opened to write now,
 * before the drop (the user it becomes may not open it, and /dev/stdout or
 * a shell's /dev/fd/N is this process's own descriptor, which it may no
 * longer reach through /proc then), the object the walk found and no
 * other; a FIFO waits for its reader as open_in_place() does. 0 or an
 * errno. */
static int
guard_device(struct dest *d)
{
    char proc[64];
    struct stat st;

    if (d->fd >= 0 || g.local)
        return 0;
    if (d->obj < 0)
        return EBADF;
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", d->obj);
    d->fd = open_in_place(proc);
    if (d->fd < 0)
        return errno;
    if (fstat(d->fd, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
        S_ISBLK(st.st_mode)) {
        close(d->fd);
        d->fd = -1;
        return EINVAL;
    }
    return 0;
}

/* guard_device(), and a descriptor of its own to write: 0 or an errno */
static int
guard_device_dup(struct dest *d, int *fd)
{
    int e = guard_device(d);

    *fd = -1;
    if (!e && (*fd = fcntl(d->fd, F_DUPFD_CLOEXEC, 0)) < 0)
        e = errno;
    return e;
}

/* ---- settling a path as root: a symbolic link on the way is followed only
 * when it is root's own (the user ecnwatch was started as), as the kernel's
 * fs.protected_symlinks would have it in a shared folder, but everywhere and
 * whatever that setting: the user dropped to could follow none of root's
 * folders before, and a link another user planted must not lead root's
 * files elsewhere now. Each link is opened itself (O_PATH | O_NOFOLLOW), its
 * owner and text read from that one descriptor. ---- */

#define G_MAX_LINKS 40

struct walk {
    int links;    /* links followed so far */
    bool refused; /* a link not root's was met */
    bool make;    /* make a missing folder (0777 less the umask, as mkdir -p) */
};

static int g_open_folder(int at, const char *path, struct walk *w);

/* the text of the link lfd (O_PATH), when it is ours: a new string, or
 * NULL with errno */
static char *
g_link_text(int lfd, const struct stat *st, struct walk *w)
{
    char *t;
    ssize_t n;

    if (st->st_uid != geteuid() && st->st_uid != 0) {
        w->refused = true;
        errno = EACCES;
        return NULL;
    }
    if (++w->links > G_MAX_LINKS) {
        errno = ELOOP;
        return NULL;
    }
    t = malloc(PATH_MAX);
    if (!t) {
        errno = ENOMEM;
        return NULL;
    }
    n = readlinkat(lfd, "", t, PATH_MAX - 1);
    if (n <= 0) {
        int e = n < 0 ? errno : ENOENT;

        free(t);
        errno = e;
        return NULL;
    }
    t[n] = '\0';
    return t;
}

/* the folder c in fd, a link to one followed when ours: a new descriptor,
 * or -1 with errno */
static int
g_step(int fd, const char *c, struct walk *w)
{
    struct stat st;
    char *t;
    int lfd, nfd, e;

    nfd = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (nfd < 0 && errno == ENOENT && w->make) {
        if (mkdirat(fd, c, 0777) != 0 && errno != EEXIST)
            return -1;
        nfd = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (nfd >= 0 || (errno != ENOTDIR && errno != ELOOP))
        return nfd;
    lfd = openat(fd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (lfd < 0)
        return -1;
    e = fstat(lfd, &st) != 0 ? errno : !S_ISLNK(st.st_mode) ? ENOTDIR : 0;
    if (e) {
        close(lfd);
        errno = e;
        return -1;
    }
    t = g_link_text(lfd, &st, w);
    e = errno;
    close(lfd);
    if (!t) {
        errno = e;
        return -1;
    }
    nfd = g_open_folder(fd, t, w);
    e = errno;
    free(t);
    errno = e;
    return nfd;
}

/* the folder path names, from at (a folder's descriptor, or AT_FDCWD): a
 * new O_PATH descriptor, or -1 with errno */
static int
g_open_folder(int at, const char *path, struct walk *w)
{
    char *copy, *c, *next;
    int fd, nfd, e;

    if (path[0] == '/')
        fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    else if (at == AT_FDCWD)
        fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    else
        fd = fcntl(at, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    copy = strdup(path);
    if (!copy) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    for (c = copy; c; c = next) {
        next = strchr(c, '/');
        if (next)
            *next++ = '\0';
        if (!*c || !strcmp(c, "."))
            continue;
        nfd = g_step(fd, c, w);
        e = errno;
        close(fd);
        if (nfd < 0) {
            free(copy);
            errno = e;
            return -1;
        }
        fd = nfd;
    }
    free(copy);
    return fd;
}

/* where the file name in dirfd is written: 0 with *outdir (a new
 * descriptor, or -1 for a device, FIFO or socket, written in place, with
 * *obj an O_PATH descriptor of it) and *outname (a new string), *exists
 * when there is a file there now; or an errno. A link to a regular file is
 * its target, as without the guard; a link to nothing is itself replaced.
 * A link whose text is no path ("pipe:[N]", "socket:[N]": one of this
 * process's own descriptors, as /dev/stdout leads to) is in place. */
static int
g_settle(int dirfd, const char *name, struct walk *w, int *outdir, char **outname, bool *exists,
         int *obj)
{
    struct stat st;
    char *t = NULL, *tname = NULL;
    const char *slash;
    int lfd, tdir = -1, e = 0;

    *outdir = -1;
    *outname = NULL;
    *exists = false;
    lfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (lfd < 0 && errno != ENOENT)
        return errno;
    if (lfd >= 0 && fstat(lfd, &st) != 0) {
        e = errno;
        close(lfd);
        return e;
    }
    if (lfd >= 0 && S_ISDIR(st.st_mode)) {
        close(lfd);
        return EISDIR;
    }
    if (lfd >= 0 && S_ISLNK(st.st_mode)) {
        t = g_link_text(lfd, &st, w);
        e = t ? 0 : errno;
        close(lfd);
        if (e)
            return e;
        if (t[0] != '/' && strstr(t, ":[")) { /* a descriptor's magic link */
            free(t);
            *obj = openat(dirfd, name, O_PATH | O_CLOEXEC);
            if (*obj < 0)
                return errno;
            *exists = true;
            *outname = strdup(name);
            return *outname ? 0 : ENOMEM;
        }
        slash = strrchr(t, '/');
        if (slash && !slash[1]) { /* "x/": a folder, or nothing: the link replaced */
            tdir = g_open_folder(dirfd, t, w);
            e = tdir >= 0 ? EISDIR : errno == ENOENT ? 0 : errno;
            goto here;
        }
        if (slash) {
            char *td = slash == t ? strdup("/") : strndup(t, (size_t)(slash - t));

            tdir = td ? g_open_folder(dirfd, td, w) : -1;
            e = td ? errno : ENOMEM;
            free(td);
        } else {
            tdir = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
            e = errno;
        }
        if (tdir < 0) {
            e = e == ENOENT ? 0 : e; /* the target's folder is not there: a link to nothing */
            goto here;
        }
        e = g_settle(tdir, slash ? slash + 1 : t, w, outdir, &tname, exists, obj);
        if (!e && *exists) { /* the link's target */
            *outname = tname;
            close(tdir);
            free(t);
            return 0;
        }
        if (*outdir >= 0)
            close(*outdir);
        *outdir = -1;
        free(tname);
here:
        if (tdir >= 0)
            close(tdir);
        free(t);
        if (e)
            return e;
        *exists = false; /* a link to nothing: replaced */
    } else if (lfd >= 0) {
        *exists = true;
        if (!S_ISREG(st.st_mode)) { /* a device, FIFO or socket: in place */
            *obj = lfd;
            *outname = strdup(name);
            return *outname ? 0 : ENOMEM;
        }
        close(lfd);
    }
    *outdir = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    if (*outdir < 0)
        return errno;
    *outname = strdup(name);
    if (!*outname) {
        close(*outdir);
        *outdir = -1;
        return ENOMEM;
    }
    return 0;
}

/* the message of a path that cannot be settled */
static void
say_settle(char *err, size_t errlen, const char *path, const char *what, int e, bool refused)
{
    if (refused && g.user)
        snprintf(err, errlen,
                 "%s: cannot write the %s: a symbolic link on its way is not root's: not "
                 "followed before the drop to %s (see -Z)",
                 path, what, g.user);
    else if (refused)
        snprintf(err, errlen,
                 "%s: cannot write the %s: a symbolic link on its way belongs to another "
                 "user: not followed",
                 path, what);
    else
        say(err, errlen, path, what, e);
}

/* the destination of path, settled now when it is not yet (guarded, before
 * the seal): its folder opened and its name in it, as above. NULL when the
 * guard does not apply (*e 0) or on failure (*e an errno, *refused when a
 * link was not followed). */
static struct dest *
guard_dest(const char *path, const char *what, int *e, bool *refused)
{
    const char *base = strrchr(path, '/'), *name;
    struct walk w = {0, false, false};
    struct dest *d;
    struct stat st;
    char *dir, *rname = NULL;
    bool exists;
    int dirfd, rdir = -1, slot = -1, obj = -1;

    *e = 0;
    *refused = false;
    if (!g.on || !strcmp(path, "-"))
        return NULL;
    if ((d = guard_find(path, &name))) /* a file, or a name in a folder */
        return d;
    if (g.sealed)
        return NULL;
    if (g.n == G_MAX_DEST) {
        *e = EMFILE;
        return NULL;
    }
    base = base ? base + 1 : path;
    if (!*base) { /* "x/": a folder, or nothing a file can be */
        *e = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? EISDIR : ENOENT;
        return NULL;
    }
    dir = folder_of(path);
    if (!dir) {
        *e = ENOMEM;
        return NULL;
    }
    dirfd = g_open_folder(AT_FDCWD, dir, &w);
    *e = dirfd < 0 ? errno : g_settle(dirfd, base, &w, &rdir, &rname, &exists, &obj);
    free(dir);
    if (dirfd >= 0)
        close(dirfd);
    if (!*e && rdir >= 0) {
        slot = g_add(rdir, false, rname, e);
        rdir = -1;
    }
    if (!*e && !(d = g_new(path, what, slot >= 0 ? rname : NULL, false, slot)))
        *e = ENOMEM;
    if (!*e && d->in_place) {
        d->obj = obj;
        obj = -1;
    }
    if (obj >= 0)
        close(obj);
    if (rdir >= 0)
        close(rdir);
    free(rname);
    *refused = w.refused;
    return *e ? NULL : d;
}

/* the destination settled for path, and the name it writes there */
static struct dest *
guard_find(const char *path, const char **name)
{
    int i;

    if (!g.on || !strcmp(path, "-"))
        return NULL;
    for (i = 0; i < g.n; i++)
        if (!g.d[i].folder && !strcmp(path, g.d[i].path)) {
            *name = g.d[i].name;
            return &g.d[i];
        }
    for (i = 0; i < g.n; i++) {
        size_t len = strlen(g.d[i].path);
        const char *rest = path + len;

        if (!g.d[i].folder || strncmp(path, g.d[i].path, len) || *rest != '/')
            continue;
        while (*rest == '/')
            rest++;
        if (*rest && !strchr(rest, '/')) {
            *name = rest;
            return &g.d[i];
        }
    }
    return NULL;
}

static int
guard_create(const struct dest *d, int *fd, int *handle)
{
    struct h_req q = {.op = H_CREATE, .slot = d->slot};
    struct h_rep r;
    int e = g_call(&q, -1, &r, fd);

    *handle = e ? -1 : r.handle;
    if (!e && *fd < 0) {
        guard_drop(r.handle);
        e = EIO;
    }
    return e;
}

static int
guard_commit(int handle, const char *name)
{
    struct h_req q = {.op = H_COMMIT, .handle = handle};
    struct h_rep r;

    if (strlen(name) >= sizeof(q.text)) {
        guard_drop(handle);
        return ENAMETOOLONG;
    }
    strcpy(q.text, name);
    return g_call(&q, -1, &r, NULL);
}

static void
guard_drop(int handle)
{
    struct h_req q = {.op = H_DROP, .handle = handle};
    struct h_rep r;

    (void)g_call(&q, -1, &r, NULL);
}

/* can a file be made in d's folder? 0 or an errno */
static int
guard_probe(const struct dest *d)
{
    int fd, handle, e = guard_create(d, &fd, &handle);

    if (!e) {
        close(fd);
        guard_drop(handle);
    }
    return e;
}

/* fill into a file of the helper's, named name in d's folder */
static int
guard_replace(const struct dest *d, const char *name, ew_outfile_fill fill, void *arg)
{
    int fd, handle, e = guard_create(d, &fd, &handle);
    FILE *fp;

    if (e)
        return e;
    fp = fdopen(fd, "w");
    if (!fp) {
        e = errno;
        close(fd);
        guard_drop(handle);
        return e;
    }
    e = fill_and_close(fp, fill, arg, true);
    if (e) {
        guard_drop(handle);
        return e;
    }
    return guard_commit(handle, name);
}

int
ew_outfile_guard(const char *user, char *err, size_t errlen)
{
    int sv[2], i;
    pid_t parent = getpid();

    if (g.on)
        return 0;
    if (!user) { /* no drop: the same settling, done here */
        memset(&g_here, 0, sizeof(g_here));
        for (i = 0; i < H_MAX_FILE; i++)
            g_here.file[i].fd = -1;
        g.user = NULL;
        g.on = g.local = true;
        g.sealed = g.dropped = false;
        g.n = 0;
        return 0;
    }
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        snprintf(err, errlen, "cannot start the writer of root's files: %s", strerror(errno));
        return -1;
    }
    g.pid = fork();
    if (g.pid < 0) {
        snprintf(err, errlen, "cannot start the writer of root's files: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (g.pid == 0) {
        close(sv[0]);
        h_main(sv[1], parent);
    }
    close(sv[1]);
    g.sock = sv[0];
    g.user = user;
    g.on = true;
    g.local = false;
    g.sealed = g.dropped = false;
    g.n = 0;
    return 0;
}

int
ew_outfile_folder(const char *dir, const char *names, const char *what, char *err,
                  size_t errlen)
{
    struct walk w = {0, false, true};
    char *path;
    size_t len = strlen(dir);
    int dirfd, slot, e;

    if (!g.on || g.sealed)
        return 0;
    if (g.n == G_MAX_DEST) {
        say(err, errlen, dir, what, EMFILE);
        return -1;
    }
    dirfd = g_open_folder(AT_FDCWD, dir, &w);
    if (dirfd < 0) {
        say_settle(err, errlen, dir, what, errno, w.refused);
        return -1;
    }
    slot = g_add(dirfd, true, names, &e);
    if (slot < 0) {
        say(err, errlen, dir, what, e);
        return -1;
    }
    while (len > 1 && dir[len - 1] == '/')
        len--;
    path = strndup(dir, len);
    if (!path || !g_new(path, what, NULL, true, slot)) {
        free(path);
        say(err, errlen, dir, what, ENOMEM);
        return -1;
    }
    free(path);
    return 1;
}

int
ew_outfile_mkdir(const char *dir)
{
    size_t len = strlen(dir);
    int i;

    while (len > 1 && dir[len - 1] == '/')
        len--;
    for (i = 0; g.on && i < g.n; i++)
        if (g.d[i].folder && strlen(g.d[i].path) == len && !strncmp(g.d[i].path, dir, len))
            return 0; /* the folder opened at start, wherever it is now */
    return mkdir(dir, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

void
ew_outfile_seal(void)
{
    struct h_req q = {.op = H_SEAL};
    struct h_rep r;

    if (!g.on || g.sealed)
        return;
    (void)g_call(&q, -1, &r, NULL);
    g.sealed = true;
}

int
ew_outfile_dropped(char *err, size_t errlen)
{
    int i;

    if (!g.on)
        return 0;
    g.dropped = true;
    for (i = 0; i < g.n; i++)
        if (g.d[i].in_place && g.d[i].fd < 0 && access(g.d[i].path, W_OK) != 0) {
            say(err, errlen, g.d[i].path, g.d[i].what, errno);
            return -1;
        }
    return 0;
}

void
ew_outfile_unguard(void)
{
    int i;

    if (!g.on)
        return;
    if (g.local) {
        /* what was never named is removed, as the helper removes it */
        for (i = 0; i < H_MAX_FILE; i++)
            h_release(&g_here, &g_here.file[i]);
        for (i = 0; i < g_here.nslot; i++)
            close(g_here.slot[i].dirfd);
        g_here.nslot = 0;
    } else {
        close(g.sock);
        g.sock = -1;
        while (waitpid(g.pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    for (i = 0; i < g.n; i++) {
        free(g.d[i].path);
        free(g.d[i].name);
        if (g.d[i].obj >= 0)
            close(g.d[i].obj);
        if (g.d[i].fd >= 0)
            close(g.d[i].fd);
    }
    g.n = 0;
    g.on = g.local = g.sealed = g.dropped = false;
    g.pid = -1;
}
