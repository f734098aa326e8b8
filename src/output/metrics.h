/* metrics.h - the analyzer's counters in the Prometheus text exposition
 * format (version 0.0.4), for --metrics and --metrics-file.
 *
 * Counters and totals are read from the analyzer as they are. The per-flow
 * gauges (flows by verdict, by negotiation, with each misuse kind) need a
 * verdict per held flow: ew_metrics_count_flows() counts them from the rows
 * of one snapshot of the table (snapshot.h), at most `budget` rows; above
 * that the rows are an even sample (every k-th flow by id), the counts are
 * scaled, and the text says so in a comment line. The diagnosis (flow
 * directions by path verdict, bottlenecks by kind, the queueing delay
 * histogram by sender codepoint) comes from the same pass, every flow's
 * conclusion read as the report writes it (ew_conclusion_words), so that the
 * metrics and the report of one run agree. No per-flow labels: the output
 * has a fixed set of series, every label value from a fixed list, and every
 * one of them present, zero or not. */
#ifndef ECNWATCH_METRICS_H
#define ECNWATCH_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "engine/analyze.h"
#include "infer/infer.h"
#include "findings/misuse.h"

/* flows evaluated at most per pass over the table */
#define EW_METRICS_FLOW_BUDGET 100000

#define EW_METRICS_VERDICTS (EW_V_UNKNOWN + 1)
#define EW_METRICS_NEGS (EW_NEG_NA + 1)
/* what a bottleneck looks like (the report's bottlenecks[].looks_like):
 * dualq, single_queue, fq, unknown */
#define EW_METRICS_BN_KINDS 4
/* a direction's sender codepoint (the report's sender_codepoint): not_ect,
 * ect0, ect1, mixed, none (its data arrived CE only) */
#define EW_METRICS_CP_CLASSES 5
/* the queueing delay histogram's finite buckets (0.5 ms to 1 s; +Inf is the count) */
#define EW_METRICS_QD_BUCKETS 11

/* the label values, in the order the text gives them (fixed lists: no
 * address, port or other per-flow value is ever a label) */
extern const char *const ew_metrics_bn_kind[EW_METRICS_BN_KINDS];
extern const char *const ew_metrics_cp_class[EW_METRICS_CP_CLASSES];
/* the buckets' upper bounds: in microseconds, and as the le label says them */
extern const uint32_t ew_metrics_qd_le_us[EW_METRICS_QD_BUCKETS];
extern const char *const ew_metrics_qd_le[EW_METRICS_QD_BUCKETS];

/* the per-flow gauges: counts of held flows (scaled when sampled), plus, for
 * misuse, the flows evicted from the table with each kind */
struct ew_metrics_flows {
    uint64_t held;       /* flows in the table, active and ended */
    uint64_t evaluated;  /* of them, flows whose verdict was computed */
    uint64_t verdict[EW_METRICS_VERDICTS];
    uint64_t negotiation[EW_METRICS_NEGS];
    uint64_t misuse[EW_MU_COUNT];
    /* The diagnosis, from the same flows. A TCP direction that carried data
     * (one the report gives a "path"): by its path verdict as its bottleneck
     * refines it (path.aqm), and, where its queueing delay was measured
     * (path.qdelay_mean_ms, timed as path.qdelay_from says), by that delay
     * rounded to the microsecond as the report writes it, by the direction's
     * sender codepoint. Bottlenecks by what they look like, and their flows. */
    uint64_t path[EW_AQM_COUNT];
    uint64_t bottlenecks[EW_METRICS_BN_KINDS];      /* groups, not scaled */
    uint64_t bottleneck_flows[EW_METRICS_BN_KINDS];
    uint64_t qd_bucket[EW_METRICS_CP_CLASSES][EW_METRICS_QD_BUCKETS]; /* cumulative (le) */
    uint64_t qd_count[EW_METRICS_CP_CLASSES];
    uint64_t qd_sum_us[EW_METRICS_CP_CLASSES];
    bool paths_missing;  /* out of memory for a flow's words: path and delay not counted */
};

/* where the counters come from */
struct ew_metrics_src {
    const char *interface; /* the live interface; NULL or "" when reading a file */
    bool have_capture;     /* the kernel's counters below are known */
    uint64_t received;     /* pcap_stats: packets received, dropped */
    uint64_t dropped;
};

/* One pass over the flow table: at most `budget` (>= 1) flows evaluated. */
void ew_metrics_count_flows(const struct ew_analyzer *an, size_t budget,
                            struct ew_metrics_flows *out);

/* The same from a pass of conclusions already built (of every flow held,
 * or an even sample, conclusions.h) */
struct ew_conclusions;
void ew_metrics_count_pass(const struct ew_conclusions *c, const struct ew_analyzer *an,
                           struct ew_metrics_flows *out);

/* Write the text into buf (NUL-terminated when room > 0). Returns the length
 * of the whole text, as snprintf does: a result >= room means it was cut. */
size_t ew_metrics_format(char *buf, size_t room, const struct ew_analyzer *an,
                         const struct ew_metrics_flows *fl, const struct ew_metrics_src *src);

/* Write the text to out. 0, or -1 when a write failed. */
int ew_metrics_print(FILE *out, const struct ew_analyzer *an, const struct ew_metrics_flows *fl,
                     const struct ew_metrics_src *src);

/* The text in a new malloc'd buffer (its length in *len), or NULL. */
char *ew_metrics_text(const struct ew_analyzer *an, const struct ew_metrics_flows *fl,
                      const struct ew_metrics_src *src, size_t *len);

/* Replace path with text atomically: a temporary file in the same folder,
 * then rename, so a reader sees the old text or the new one, never a part.
 * 0, or -1 with a one-line message in err; nothing is left behind. */
int ew_metrics_write_file(const char *path, const char *text, size_t len, char *err,
                          size_t errlen);

/* Count the flows of the pass p, build the text and write it to path
 * atomically: the offline --metrics-file. 0, or -1 as above. */
struct ew_pass;
int ew_metrics_write_snapshot(const struct ew_pass *p, const struct ew_metrics_src *src,
                              const char *path, char *err, size_t errlen);

/* Parse "ADDR:PORT" with a numeric IPv4 address or a bracketed IPv6 one
 * ("127.0.0.1:9109", "[::1]:9109"), port 1-65535. 0, or -1 with the reason
 * in err. */
int ew_metrics_parse_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *sslen,
                          char *err, size_t errlen);

#endif /* ECNWATCH_METRICS_H */
