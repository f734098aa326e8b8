/* outfile.c - the one writer of ecnwatch's files (outfile.h) */
#define _GNU_SOURCE /* O_TMPFILE, linkat's AT_EMPTY_PATH */
#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum target_kind { T_STDOUT, T_REPLACE, T_IN_PLACE };

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
        snprintf(name, len, "%s/.ecnwatch-%ld-%u.tmp", dir, (long)getpid(), i);
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

/* a device, FIFO or socket: opened and written as it is */
static int
in_place(const char *path, ew_outfile_fill fill, void *arg)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
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
    int e = target_of(path, &kind, &file);

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
        snprintf(err, errlen, "%s: cannot write the %s: %s", path, what, strerror(e));
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
    int e = target_of(path, &kind, &file), fd;

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
        snprintf(err, errlen, "%s: cannot write the %s: %s", path, what, strerror(e));
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
    int e;

    if (!f) {
        snprintf(err, errlen, "%s: cannot write the %s: %s", path, what, strerror(ENOMEM));
        return NULL;
    }
    f->fd = -1;
    f->what = what;
    f->path = strdup(path);
    e = f->path ? target_of(path, &f->kind, &f->file) : ENOMEM;
    if (!e) {
        switch (f->kind) {
        case T_STDOUT:
            f->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
            break;
        case T_IN_PLACE:
            f->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
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
        snprintf(err, errlen, "%s: cannot write the %s: %s", path, what, strerror(e));
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

    if (f->kind == T_REPLACE) {
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
        snprintf(err, errlen, "%s: cannot write the %s: %s", f->path, f->what, strerror(e));
    outfile_free(f);
    return e ? -1 : 0;
}
