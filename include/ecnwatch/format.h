/* format.h - vsnprintf() for the reasons and notes of a report.
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

/* size >= 1 */
void ew_vformat(char *buf, size_t size, const char *fmt, va_list ap);

#endif /* ECNWATCH_FORMAT_H */
