/* dynlib.h - the libraries that only some runs need, loaded when first
 * needed: the live view's ncurses, QUIC decryption's libcrypto and the
 * metrics exporter's libmicrohttpd. ecnwatch is not linked against them, so
 * that reading a capture into a report does not pay, at every start, for
 * loading and relocating them and the libraries they bring (libmicrohttpd
 * alone brings GnuTLS and eight more); a run that needs one and cannot load
 * it says so in one line. */
#ifndef ECNWATCH_DYNLIB_H
#define ECNWATCH_DYNLIB_H

#include <stddef.h>

/* The library `soname` (its major version, as the headers ecnwatch was built
 * with), and the address of each of `names` (NULL-terminated) into `table`,
 * a struct of as many pointers (functions or data), in the same order, of
 * `size` bytes: 0, or -1 with err set to one line, "WHAT needs SONAME:
 * REASON" (what: what the run cannot do without it, e.g. "the live view"),
 * and the table as it was. Loading it again gives the same addresses. */
int ew_dynlib_load(const char *soname, const char *what, const char *const *names, void *table,
                   size_t size, char *err, size_t errlen);

/* Strings for the sonames made of a header's version macro. */
#define EW_DYNLIB_STR_(x) #x
#define EW_DYNLIB_STR(x) EW_DYNLIB_STR_(x)

#endif /* ECNWATCH_DYNLIB_H */
