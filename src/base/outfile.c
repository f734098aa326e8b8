/* outfile.c - the one writer of ecnwatch's files (outfile.h) */
#include "ecnwatch/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
ew_outfile_write(const char *path, ew_outfile_fill fill, void *arg, const char *what,
                 char *err, size_t errlen)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    FILE *fp = NULL;
    mode_t um;
    int fd, saved;

    if (!tmp) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
    fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create a temporary file beside it: %s", path,
                 strerror(errno));
        free(tmp);
        return -1;
    }
    /* mkstemp makes 0600: give the file the mode any new file gets */
    um = umask(0);
    umask(um);
    if (fchmod(fd, 0666 & ~um) != 0) {
        saved = errno;
        close(fd);
        goto fail;
    }
    fp = fdopen(fd, "w");
    if (!fp) {
        saved = errno;
        close(fd);
        goto fail;
    }
    errno = 0;
    if (fill(arg, fp) != 0) {
        saved = errno ? errno : EIO;
        fclose(fp);
        goto fail;
    }
    if (fflush(fp) != 0 || fsync(fileno(fp)) != 0) {
        saved = errno;
        fclose(fp);
        goto fail;
    }
    if (fclose(fp) != 0) {
        saved = errno;
        goto fail;
    }
    if (rename(tmp, path) != 0) {
        saved = errno;
        goto fail;
    }
    free(tmp);
    return 0;
fail:
    unlink(tmp);
    snprintf(err, errlen, "%s: cannot write the %s: %s", path, what, strerror(saved));
    free(tmp);
    return -1;
}
