/* csv.h - --csv FILE: one line per flow, for a spreadsheet or a data frame.
 *
 * A header line, then a line per flow of the pass in id order, RFC 4180
 * comma-separated (no field holds a comma, a quote or a line break: names,
 * addresses, numbers and times): the endpoints, the verdict and its
 * confidence, the negotiation, and for each direction its packets by
 * codepoint, its feedback, what its ECT(1) means and its path verdict (a
 * TCP direction that carried data), then
 * the misuse kinds found, separated by ';'. The names are the JSON
 * report's (ecnwatch-report(5)); an empty field is the report's null. */
#ifndef ECNWATCH_CSV_H
#define ECNWATCH_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "output/output.h"

/* Write the lines of pass p to out. 0, or -1 when a write failed. */
int ew_csv_print(FILE *out, const struct ew_pass *p);

/* Write them to path atomically (outfile.h; "-" is standard output).
 * 0, or -1 with one line in err. */
int ew_csv_write_file(const struct ew_pass *p, const char *path, char *err, size_t errlen);

#endif /* ECNWATCH_CSV_H */
