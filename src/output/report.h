/* report.h - the JSON report (schema ecnwatch.report/1, see
 * man/ecnwatch-report.5) and the human summary. Both are built from the
 * analyzer's state after the capture and depend on nothing else, so the same
 * capture gives the same bytes.
 *
 * The JSON's parts are in report_json.c (a flow, the source and totals) and
 * report_path.c (bottlenecks, the path between captures), all written with
 * the streaming writer (jw.h); the report written out in report_write.c,
 * the summary and the PATH lines between captures in report_text.c. */
#ifndef ECNWATCH_REPORT_H
#define ECNWATCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "engine/analyze.h"
#include "findings/conclude.h"
#include "output/output.h"
/* ew_addr_str() and ew_time_str(), which the report's users print with */
#include "base/format.h"
#include "infer/infer.h"
#include "findings/misuse.h"

#define EW_SCHEMA "ecnwatch.report/1"

struct ew_report_src {
    const char *kind;     /* "file" or "interface" */
    const char *name;
    const char *linktype;
    const char *filter;   /* NULL when none */
    bool truncated;       /* the capture ended mid-record */
    bool interrupted;     /* stopped by a signal */
    uint64_t packet_limit; /* -c, 0 when none */
    /* a live capture's own loss, from pcap_stats at the end (totals.capture) */
    bool have_loss;
    bool loss_ifdrop_known;
    uint64_t loss_received, loss_dropped, loss_ifdropped;
};

struct jw;

/* What a flow's report is written from: its one conclusion, with words and
 * path verdicts (conclude.h) */
#define EW_REPORT_CONCLUDE (EW_CONCLUDE_WORDS | EW_CONCLUDE_PATH | EW_CONCLUDE_EVIDENCE)
/* One flow as the report shows it, written as the value at w's place (after
 * a key, or as an element); r from ew_flow_conclude(f, EW_REPORT_CONCLUDE). */
void ew_report_flow_write(struct jw *w, const struct ew_analyzer *an, const struct ew_flow *f,
                          const struct ew_flow_summary *r);
/* One finding's members ("kind" ... "detail"), into the object open in w. */
void ew_report_finding_members(struct jw *w, const struct ew_flow *f, const struct ew_finding *x);
/* The member name: the flow's client (client true) or server end, {"addr", "port"}. */
void ew_report_endpoint_write(struct jw *w, const char *name, const struct ew_flow *f, bool client);
/* "tcp", "udp" or "other" */
static inline const char *
ew_report_proto_name(const struct ew_flow *f)
{
    switch (f->key.l4) {
    case EW_L4_TCP:
        return "tcp";
    case EW_L4_UDP:
        return "udp";
    default:
        return "other";
    }
}

/* The human summary of pass p: totals and a table of at most max_flows
 * flows. */
/* how the text summary lists flows */
enum ew_text_sort { EW_SORT_BYTES, EW_SORT_PACKETS, EW_SORT_FIRST };
struct ew_text_opts {
    size_t max_flows;       /* listed at most (--text-flows) */
    enum ew_text_sort sort; /* the order (--sort): largest first, or as first seen */
    bool all;               /* also small flows without ECN or a finding (--text-all) */
    int width;              /* lines folded to this many columns */
};
void ew_report_text(FILE *out, const struct ew_pass *p, const struct ew_text_opts *o);

struct ew_hop;
/* One hop between two captures (pathcmp.h), named up_name and down_name,
 * for people, after the summary: a PATH line of its counts, then one line
 * per change. */
/* What this capture did not see of a flow, or saw twice, in words into
 * buf ("handshake not captured; c2s: 2896 bytes acknowledged but not
 * captured (2 gaps)"); empty when it saw the flow whole. */
void ew_report_capture_text(const struct ew_flow *f, const struct ew_flow_verdict *v, char *buf,
                            size_t len);

void ew_report_hop_text(FILE *out, const struct ew_hop *hop, const char *up_name,
                        const char *down_name);

/* The part of a report read from several captures of the same traffic
 * (upstream first): their names, and the hop from each to the next
 * (pathcmp.h). */
struct ew_report_path {
    int ncaptures;
    const char *const *captures; /* ncaptures names */
    struct ew_hop *const *hops;  /* ncaptures - 1 hops */
};

/* The kinds the captures of pass p show: its flows' findings and the
 * changes between captures. */
uint32_t ew_report_capture_kinds(const struct ew_pass *p);

/* Write pass p's report as indented JSON (jansson's JSON_INDENT(2) |
 * JSON_REAL_PRECISION(10) layout) and a newline, through a buffer, the flows
 * written out one at a time so that memory does not grow with their number;
 * p->path NULL (or of one capture): no "path" member. 0 on success, else -1
 * with errno set. */
int ew_report_dump(FILE *out, const struct ew_pass *p);

/* Write the report (ew_report_dump) to file atomically (temporary file in
 * the same folder, fsync, rename). 0 on success; on failure -1, errbuf says
 * why, and nothing is left at file or in the folder. */
int ew_report_write_file(const struct ew_pass *p, const char *file, char *errbuf, size_t errlen);

/* The members "source" and "totals", into the object open in w (the
 * report's, and the event stream's summary). */
void ew_report_source_write(struct jw *w, const struct ew_pass *p);
void ew_report_totals_write(struct jw *w, const struct ew_pass *p);

/* The report's "bottlenecks" (bottleneck.h) as the value at w's place. */
struct ew_bottlenecks;
void ew_report_bottlenecks_write(struct jw *w, const struct ew_bottlenecks *b);
/* One hop between two captures, named up_name and down_name, as the value
 * at w's place: its counts, and each change with its packets' frames. */
void ew_report_hop_write(struct jw *w, const struct ew_hop *hop, const char *up_name,
                         const char *down_name);
/* The report's "path" as the value at w's place: the captures and the hops. */
void ew_report_path_write(struct jw *w, const struct ew_report_path *p);

#endif /* ECNWATCH_REPORT_H */
