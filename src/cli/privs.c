/* privs.c - root's drop to -Z's user (privs.h) */
#include "cli/privs.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/outfile.h"
#include "cli/cli.h"

int
ew_privs_plan(const char *user, struct ew_privs *p, char *err, size_t errlen)
{
    struct passwd *pw;

    *p = (struct ew_privs){.user = user ? user : "nobody"};
    if (geteuid() != 0 || !strcmp(p->user, "root"))
        return 0;
    pw = getpwnam(p->user);
    if (!pw) {
        snprintf(err, errlen, "-Z %s: no such user", p->user);
        return -1;
    }
    p->drop = true;
    p->uid = pw->pw_uid;
    p->gid = pw->pw_gid;
    return 0;
}

int
ew_privs_guard(const struct ew_privs *p, char *err, size_t errlen)
{
    return ew_outfile_guard(p->drop ? p->user : NULL, err, errlen);
}

/* every capability out of the bounding set (while root may still: it takes
 * CAP_SETPCAP), so that no program run later gains one back: 0 or an errno */
static int
empty_bounding_set(void)
{
    int cap;

    for (cap = 0; prctl(PR_CAPBSET_READ, (unsigned long)cap, 0, 0, 0) >= 0; cap++)
        if (prctl(PR_CAPBSET_DROP, (unsigned long)cap, 0, 0, 0) != 0)
            return errno;
    return 0;
}

int
ew_privs_drop(const struct ew_privs *p, char *err, size_t errlen)
{
    int e;

    if (!p->drop)
        return 0;
    ew_outfile_seal();
    if ((e = empty_bounding_set()) != 0) {
        snprintf(err, errlen, "cannot drop privileges to %s: capability bounding set: %s",
                 p->user, strerror(e));
        return EW_EXIT_USAGE;
    }
    if (setgroups(1, &p->gid) != 0 || setgid(p->gid) != 0 || setuid(p->uid) != 0) {
        snprintf(err, errlen, "cannot drop privileges to %s: %s", p->user, strerror(errno));
        return EW_EXIT_USAGE;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(err, errlen, "cannot drop privileges to %s: no_new_privs: %s", p->user,
                 strerror(errno));
        return EW_EXIT_USAGE;
    }
    if (setuid(0) == 0) {
        snprintf(err, errlen, "dropping privileges to %s did not hold", p->user);
        return EW_EXIT_USAGE;
    }
    /* a device or FIFO written at the end is written as the user */
    if (ew_outfile_dropped(err, errlen) != 0)
        return EW_EXIT_OUTPUT;
    return 0;
}

void
ew_privs_end(void)
{
    ew_outfile_unguard();
}
