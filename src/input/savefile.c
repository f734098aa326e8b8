/* savefile.c - -w through libpcap's pcap_dump (see savefile.h) */
#include "input/savefile.h"

#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outfile.h"

struct ew_savefile {
    struct ew_outfile *out;
    pcap_t *dead;       /* the link type and snapshot length the file declares */
    pcap_dumper_t *d;
    FILE *fp;           /* the dumper's */
    char *path;
    bool failed;
    int errnum;         /* why it failed */
};

struct ew_savefile *
ew_savefile_open(const char *path, const struct ew_capture *cap, char *err, size_t errlen)
{
    struct ew_savefile *s = calloc(1, sizeof(*s));
    int dlt, snap, fd = -1;
    FILE *fp = NULL;

    if (!s || !(s->path = strdup(path))) {
        free(s);
        snprintf(err, errlen, "%s: cannot write the packets: %s", path, strerror(ENOMEM));
        return NULL;
    }
    s->out = ew_outfile_open(path, "packets", err, errlen);
    if (!s->out) {
        free(s->path);
        free(s);
        return NULL;
    }
    ew_capture_format(cap, &dlt, &snap);
    s->dead = pcap_open_dead_with_tstamp_precision(dlt, snap > 0 ? snap : 262144,
                                                   PCAP_TSTAMP_PRECISION_NANO);
    /* libpcap closes the FILE it is given: a descriptor of its own */
    if (s->dead)
        fd = fcntl(ew_outfile_fd(s->out), F_DUPFD_CLOEXEC, 0);
    if (fd >= 0 && !(fp = fdopen(fd, "wb")))
        close(fd);
    s->fp = fp;
    if (fp && !(s->d = pcap_dump_fopen(s->dead, fp)))
        fclose(fp);
    if (!s->d) {
        snprintf(err, errlen, "%s: cannot write the packets: %s", path,
                 s->dead && fp ? pcap_geterr(s->dead) : strerror(errno ? errno : ENOMEM));
        if (s->dead)
            pcap_close(s->dead);
        ew_outfile_close(s->out, false, err + strlen(err), 0);
        free(s->path);
        free(s);
        return NULL;
    }
    return s;
}

void
ew_savefile_frame(struct ew_savefile *s, const struct ew_frame *fr)
{
    struct pcap_pkthdr h;

    h.ts.tv_sec = (time_t)(fr->ts_ns / 1000000000);
    h.ts.tv_usec = (suseconds_t)(fr->ts_ns % 1000000000); /* nanoseconds: a nanosecond file */
    h.caplen = fr->caplen;
    h.len = fr->wirelen;
    pcap_dump((u_char *)s->d, &h, fr->data);
    /* why a write failed is in errno now, not at the flush (ENOSPC is no
     * "Input/output error") */
    if (__builtin_expect(ferror_unlocked(s->fp), 0) && !s->errnum)
        s->errnum = errno ? errno : EIO;
}

int
ew_savefile_flush(struct ew_savefile *s, char *err, size_t errlen)
{
    errno = 0;
    if (!s->failed && (pcap_dump_flush(s->d) != 0 || ferror(pcap_dump_file(s->d)))) {
        s->failed = true;
        if (!s->errnum)
            s->errnum = errno ? errno : EIO;
        snprintf(err, errlen, "%s: cannot write the packets: %s", s->path, strerror(s->errnum));
    }
    return s->failed ? -1 : 0;
}

int
ew_savefile_close(struct ew_savefile *s, bool commit, char *err, size_t errlen)
{
    bool was_failed = s->failed;
    int rc = ew_savefile_flush(s, err, errlen);

    if (rc != 0 && was_failed) /* a flush before failed: the reason it kept */
        snprintf(err, errlen, "%s: cannot write the packets: %s", s->path, strerror(s->errnum));
    pcap_dump_close(s->d);
    pcap_close(s->dead);
    if (ew_outfile_close(s->out, commit && rc == 0, rc == 0 ? err : err + strlen(err),
                         rc == 0 ? errlen : 0) != 0)
        rc = -1;
    free(s->path);
    free(s);
    return rc;
}
