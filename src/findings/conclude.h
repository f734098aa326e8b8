/* conclude.h - one conclusion per flow. A flow's verdict (with the QUIC
 * rule: a QUIC connection takes the verdict of its Initial packets' ECN
 * validation), its misuse findings under that verdict, and the path verdict
 * of each direction are concluded here, once, into one summary; every output
 * (the JSON report, the text summary, NDJSON events, metrics, the live view,
 * plots, --fail-on, the bottleneck grouping, evicted flows' findings) reads
 * that summary and concludes nothing itself. */
#ifndef ECNWATCH_CONCLUDE_H
#define ECNWATCH_CONCLUDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "infer/infer.h"
#include "findings/misuse.h"

/* findings of one flow: at most one per kind and direction */
#define EW_FLOW_FINDINGS_MAX 32

/* the evidence of one flow: the frames and notes behind its verdict */
#define EW_FLOW_EVIDENCE_MAX 24

/* what to conclude beyond the verdict and the findings */
enum {
    EW_CONCLUDE_WORDS = 1u << 0,    /* the reasons in words (else left empty) */
    EW_CONCLUDE_PATH = 1u << 1,     /* the path verdict of both directions */
    EW_CONCLUDE_EVIDENCE = 1u << 2, /* ev[]: the frames behind the verdict */
    EW_CONCLUDE_NO_FINDINGS = 1u << 3, /* the verdict (and path) only: nf = 0, kinds = 0 */
};

struct ew_flow_summary {
    struct ew_flow_verdict v; /* ew_infer_conclude, then the QUIC rule */
    bool quic;                /* the QUIC rule decided the verdict */
    struct ew_finding fnd[EW_FLOW_FINDINGS_MAX];
    size_t nf;
    uint32_t kinds;           /* bit (1 << kind) of every finding */
    bool has_path;            /* path[] was concluded (EW_CONCLUDE_PATH) */
    struct ew_path_verdict path[2]; /* by canonical direction */
    size_t nev;               /* ev[] entries (EW_CONCLUDE_EVIDENCE; else 0) */
    struct ew_evidence ev[EW_FLOW_EVIDENCE_MAX];
};

struct ew_flow;

void ew_flow_conclude(const struct ew_flow *f, unsigned what, struct ew_flow_summary *s);

#endif /* ECNWATCH_CONCLUDE_H */
