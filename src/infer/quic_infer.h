/* quic_infer.h - what a QUIC connection's Initial packets say about ECN on
 * its path. Each direction's Initial packets are validated against the
 * peer's Initial ACK frames' ECN counts (RFC 9000 §19.3.2) the way their
 * sender validates them (RFC 9000 §13.4.2.1, App. A.4); the conclusion is a
 * pure function of the connection's state (quic_conn.h) and of its
 * validation (quic_validate.h). */
#ifndef ECNWATCH_QUIC_INFER_H
#define ECNWATCH_QUIC_INFER_H

#include <stdbool.h>
#include <stdint.h>

#include "infer/infer.h"
#include "infer/quic_conn.h"
#include "infer/quic_validate.h"

/* How a connection's ECN use turned out, from its Initial packets. */
enum ew_quic_verdict {
    EW_QV_NOT_ECN,        /* no Initial packet was ECN-capable */
    EW_QV_VALIDATED,      /* ECT(0) Initials, counts that account for them */
    EW_QV_FAILED,         /* a direction failed validation (the reason says how) */
    EW_QV_L4S_CANDIDATE,  /* ECT(1) Initials, counts that account for them */
    EW_QV_UNKNOWN,        /* ECT sent, but no Initial ACK that covers it was read */
};
extern const char *const ew_quic_verdict_name[];

/* The conclusion for a connection, and per canonical direction. */
enum ew_quic_dir_result {
    EW_QD_NOT_ECT,   /* this end sent no ECT Initial */
    EW_QD_NO_ACK,    /* ECT sent; no Initial ACK over it read */
    EW_QD_VALIDATED,
    EW_QD_FAILED,
};
extern const char *const ew_quic_dir_result_name[];

struct ew_quic_summary {
    enum ew_quic_verdict verdict;
    int fail_dir;             /* the first failing direction (by frame), -1 none */
    char reason[EW_REASON_LEN];
    struct {
        enum ew_quic_dir_result result;
        enum ew_quic_fail fail;
        uint64_t frame;       /* the ACK that failed, or that last validated */
        uint64_t first_frame; /* the first ECT (or CE) Initial of this direction */
        uint64_t count;       /* ECT or CE Initial packets concerned */
        char reason[EW_REASON_LEN];
    } dir[2];
};

struct ew_flow;

/* The conclusion for a flow's QUIC connection; false when it has none. A pure
 * function of the state, like the rest of the inference. */
bool ew_quic_conclude(const struct ew_flow *f, struct ew_quic_summary *s);

/* For a flow with QUIC state: its verdict in the report's vocabulary (with a
 * reason), replacing what the generic inference said; false otherwise. */
bool ew_quic_flow_verdict(const struct ew_flow *f, struct ew_flow_verdict *v);

#endif /* ECNWATCH_QUIC_INFER_H */
