/* thresholds.h - every number a heuristic of ecnwatch rests on, by name,
 * with where it comes from. A rule reads its threshold from here; none is a
 * bare number in an expression. Sections: inference (feedback, verdicts),
 * path (AQM kind, bottlenecks), misuse (findings). */
#ifndef ECNWATCH_THRESHOLDS_H
#define ECNWATCH_THRESHOLDS_H

/* ------------------------------------------------------------ inference */

/* ------------------------------------------------------------ path */

/* ------------------------------------------------------------ misuse */

#endif /* ECNWATCH_THRESHOLDS_H */
