/* format.h - text formatting shared by every output: the reasons and notes
 * of a report, addresses and packet times. Depends on nothing of ecnwatch.
 *
 * The verdicts' reasons and the evidence notes are formats of %s, %u, %llu
 * and %% only, mostly: a report formats some twenty of them per flow, and
 * the C library's general machinery costs several times the text. These
 * formats are done here; any other format goes to vsnprintf(). The result,
 * truncation included, is vsnprintf's.
 */
#ifndef ECNWATCH_FORMAT_H
#define ECNWATCH_FORMAT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* size >= 1 */
void ew_vformat(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* address of a flow end as text ("192.0.2.1" or "2001:db8::1"); an IPv4
 * address is in the last 4 bytes of addr (family 4) */
void ew_addr_str(const uint8_t addr[16], int family, char *buf, size_t len);

/* RFC 3339 UTC with microseconds, from packet time */
void ew_time_str(int64_t ns, char *buf, size_t len);
/* a quantity as a person reads it, in powers of 1000 of unit (B, bit/s):
 * "512 B", "1.4 MB" */
void ew_size_str(char *buf, size_t len, double v, const char *unit);

/* A message on standard error that stays one line whatever it quotes (a
 * newline in a path a user gave): a control character before the last
 * newline is written as \n, \r, \t or \xHH. */
void ew_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* ECNWATCH_FORMAT_H */
