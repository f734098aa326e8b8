/* ifaces.h - -D: the interfaces a live capture (-i) can open, listed as
 * tcpdump -D lists them. */
#ifndef ECNWATCH_IFACES_H
#define ECNWATCH_IFACES_H

#include <stdio.h>

/* One line per interface libpcap finds ("1.eth0 [Up, Running, Connected]",
 * with its description in parentheses when it has one). 0; or -1 when none
 * is found or libpcap cannot list them, with one line on standard error. */
int ew_ifaces_list(FILE *out);

#endif /* ECNWATCH_IFACES_H */
