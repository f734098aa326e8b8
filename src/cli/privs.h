/* privs.h - root gives up its privileges before it reads a packet, live
 * (once the interface is open) and from files (once they are open), as
 * tcpdump's -Z does: to -Z's user, nobody by default, for good.
 *
 *   ew_privs_plan()   who root becomes; nobody to become when ecnwatch is
 *                     not root, or -Z root
 *   ew_privs_guard()  before the outputs are checked: every output's
 *                     destination is settled as it is checked (outfile.h);
 *                     with a drop, through a helper that keeps root to name
 *                     root's files
 *   ew_privs_drop()   once the inputs and outputs are open: no supplementary
 *                     groups, the user's group and user, an empty capability
 *                     bounding set and no_new_privs (nothing run later can
 *                     gain a privilege back), checked by failing to become
 *                     root again
 *   ew_privs_end()    at the end, after the last output is written */
#ifndef ECNWATCH_PRIVS_H
#define ECNWATCH_PRIVS_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct ew_privs {
    bool drop;        /* root, to become user */
    const char *user; /* -Z, or "nobody" */
    uid_t uid;
    gid_t gid;
};

/* 0, or -1 with err set ("-Z NAME: no such user") */
int ew_privs_plan(const char *user, struct ew_privs *p, char *err, size_t errlen);
/* 0, or -1 with err set */
int ew_privs_guard(const struct ew_privs *p, char *err, size_t errlen);
/* 0 (also with nothing to drop), or the exit status with err set:
 * EW_EXIT_USAGE when the drop failed, EW_EXIT_OUTPUT when an output is no
 * longer writable by the user */
int ew_privs_drop(const struct ew_privs *p, char *err, size_t errlen);
void ew_privs_end(void);

#endif /* ECNWATCH_PRIVS_H */
