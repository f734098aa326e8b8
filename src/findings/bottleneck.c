/* bottleneck.c - flows that share a path in one capture (the same two hosts,
 * overlapping in time), L4S (ECT(1)) flows against classic (ECT(0)) ones:
 * throughput share, marking rate and queueing delay side by side, and whether
 * that looks like a DualQ (RFC 9332: ECT(1) marked often at low delay, ECT(0)
 * rarely at a deeper queue) or one shared queue (the same delay for both). */
#include "findings/bottleneck.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings/conclude.h"
#include "dissectors/ecn.h"
#include "flow/flowtab.h"
#include "base/format.h"
#include "infer/infer.h"
#include "findings/misuse.h"
#include "infer/qseries.h"
#include "infer/thresholds.h"

/* which round trips a flow's queueing delay is read from (its path verdict's qdelay_from) */
enum src { SRC_NONE, SRC_DN, SRC_UP, SRC_BOTH };

/* what the grouping reads of a flow, copied: flows are viewed one at a time */
struct ew_bn_member {
    struct ew_flow_key key;
    int64_t first_ns, last_ns;
    uint64_t id;
    uint32_t data_pkts; /* of the main direction */
    int d;        /* main data direction */
    bool l4s;
    double mbps, ce_per_pkt, qdelay_ms; /* over the whole flow */
    double rtts; /* round trips the flow's data spanned, 0 when no RTT is known */
    uint64_t marks;
    struct ew_qseries *qs; /* the main direction's series as far as it goes (a copy), or NULL */
    enum src src;
    int64_t base_ns; /* the flow's lowest RTT from src, 0 when none */
    bool accecn;     /* its marks are fed back by the ACE counter, else as ECE runs */
    bool classic_aqm; /* its own path verdict names a classic AQM */
};

/* one kind's flows of a group, added up */
struct side {
    uint64_t *ids; /* n of them */
    double mbps, ce, ce_pkts, qd_sum, rtts;
    int n, qd_n;
};

static int
same_hosts(const struct ew_bn_member *a, const struct ew_bn_member *b)
{
    return a->key.family == b->key.family && !memcmp(a->key.lo, b->key.lo, 16) &&
           !memcmp(a->key.hi, b->key.hi, 16);
}

/* An RFC 3168 sender sends its retransmissions Not-ECT. RFC 3168 §6.1.5:
 * "ECN-capable TCP implementations MUST NOT set either ECT codepoint (ECT(0)
 * or ECT(1)) in the IP header for retransmitted data packets". Still a
 * classic sender when every first transmission is ECT(0) (or CE). */
static bool
classic_with_retransmissions(const struct ew_flow *f, int d)
{
    const uint32_t *n = f->inf->kind_ecn[d][EW_SEG_DATA];
    const uint32_t *r = f->inf->kind_ecn[d][EW_SEG_RETRANS];

    return n[EW_ECN_ECT_0] > 0 && n[EW_ECN_NOT_ECT] == 0 && n[EW_ECN_ECT_1] == 0 &&
           r[EW_ECN_ECT_1] == 0;
}

static void
classify(const struct ew_flow *f, const struct ew_flow_summary *sum,
         const struct ew_qseries_pool *qs, struct ew_bn_member *m, bool *ok)
{
    const struct ew_flow_verdict *v = &sum->v;
    const struct ew_path_verdict *p;
    const struct ew_half *h;
    double dur;

    *ok = false;
    memset(m, 0, sizeof(*m));
    if (f->key.l4 != EW_L4_TCP || !sum->has_path)
        return;
    m->key = f->key;
    m->first_ns = f->first_ns;
    m->last_ns = f->last_ns;
    m->id = f->id;
    m->d = v->main_dir;
    h = &f->inf->half[m->d];
    m->data_pkts = h->data_pkts;
    if (h->data_pkts < EW_PATH_BN_MIN_DATA_PKTS)
        return;
    m->accecn = v->mode_accecn;
    if (v->dir[m->d].sender_ect1 && v->mode_accecn)
        m->l4s = true;
    else if (!strcmp(v->dir[m->d].sender_cp, "ect0") || classic_with_retransmissions(f, m->d))
        m->l4s = false;
    else
        return; /* neither an L4S nor a classic ECN sender */
    dur = (double)(h->data_last_ns - h->data_first_ns) / 1e9;
    m->mbps = dur > 0 ? (double)f->dir[m->d].payload_bytes * 8 / dur / 1e6 : 0;
    p = &sum->path[m->d];
    m->marks = p->marks;
    m->classic_aqm = p->aqm == EW_AQM_CLASSIC;
    m->ce_per_pkt = (double)p->marks / (double)h->data_pkts;
    /* The delay the flow's packets waited, over all its RTT samples: the
     * same for every flow in one queue. Not the delay at the marks: AccECN
     * feeds back every mark, RFC 3168 one per congestion episode (ECE until
     * CWR), so those two averages weigh the queue's excursions differently
     * even when both kinds wait in the same queue. */
    {
        int64_t rtt = ew_infer_path_rtt(f, m->d);

        m->rtts = rtt > 0 ? (double)(h->data_last_ns - h->data_first_ns) / (double)rtt : 0;
    }
    if (p->marks > 0 && p->qdelay_at_marks_ms < 0)
        m->qdelay_ms = -1; /* the path verdict found the RTT unusable here */
    else
        m->qdelay_ms = p->qdelay_mean_ms;
    /* the same round trips, interval by interval, from the flow's series */
    if (ew_qseries_get(qs, f, m->d) && (m->qs = malloc(sizeof(*m->qs))) != NULL &&
        !ew_qseries_view(qs, f, m->d, m->qs)) {
        free(m->qs);
        m->qs = NULL;
    }
    m->src = !strcmp(p->qdelay_from, "data_to_ack")      ? SRC_DN
             : !strcmp(p->qdelay_from, "ts_from_sender") ? SRC_UP
             : !strcmp(p->qdelay_from, "both")           ? SRC_BOTH
                                                         : SRC_NONE;
    if (m->src == SRC_DN || m->src == SRC_BOTH)
        m->base_ns = h->rtt_samples ? h->rtt_min : 0;
    if (m->src == SRC_UP || m->src == SRC_BOTH) {
        const struct ew_tsloop *up = &f->inf->half[m->d ^ 1].ts;

        m->base_ns = up->samples ? m->base_ns + up->min : 0;
    }
    *ok = true;
}

/* a side's sums as the report shows them: rounded down to 0.001 (to 0.00001
 * for marks per packet); the side's ids go with it */
static void
side_out(struct side *s, struct ew_bottleneck_side *o)
{
    o->ids = s->ids;
    o->n = (size_t)s->n;
    s->ids = NULL;
    o->throughput_mbps = (double)(int64_t)(s->mbps * 1000) / 1000;
    o->ce_per_packet = s->ce_pkts > 0 ? (double)(int64_t)(s->ce / s->ce_pkts * 1e5) / 1e5 : 0;
    o->marks = (uint64_t)(s->ce + 0.5);
    o->has_qdelay = s->qd_n > 0;
    o->qdelay_ms = s->qd_n ? (double)(int64_t)(s->qd_sum / s->qd_n * 1000) / 1000 : 0;
}

/* flows in host-pair order (family, addresses), then in report order */
struct ord {
    const struct ew_bn_member *f;
    size_t i;
};

static int
cmp_ord(const void *pa, const void *pb)
{
    const struct ord *a = pa, *b = pb;
    int c;

    if (a->f->key.family != b->f->key.family)
        return a->f->key.family < b->f->key.family ? -1 : 1;
    if ((c = memcmp(a->f->key.lo, b->f->key.lo, 16)) != 0)
        return c;
    if ((c = memcmp(a->f->key.hi, b->f->key.hi, 16)) != 0)
        return c;
    return (a->i > b->i) - (a->i < b->i);
}

/* members by group (its first flow), then in report order */
struct grp {
    size_t lead, j;
};

static int
cmp_grp(const void *pa, const void *pb)
{
    const struct grp *a = pa, *b = pb;

    if (a->lead != b->lead)
        return a->lead < b->lead ? -1 : 1;
    return (a->j > b->j) - (a->j < b->j);
}

/* Groups: taking flows in report order, a flow not yet grouped leads a group
 * of itself and the later flows between the same two hosts that overlap it in
 * time. Flows are first sorted by host pair, so that only flows between the
 * same hosts are compared: O(n log n) plus the pairs within each host pair. */
static size_t
group(const struct ew_bn_member *flows, size_t n, struct grp *out)
{
    struct ord *o = malloc((n ? n : 1) * sizeof(*o));
    bool *done = calloc(n ? n : 1, sizeof(*done));
    size_t k = 0, a, b, x, y, ng = 0;

    if (!o || !done) {
        free(o);
        free(done);
        return 0;
    }
    for (a = 0; a < n; a++)
        o[k++] = (struct ord){&flows[a], a};
    qsort(o, k, sizeof(*o), cmp_ord);
    for (a = 0; a < k; a = b) {
        for (b = a + 1; b < k && same_hosts(o[a].f, o[b].f); b++)
            ;
        for (x = a; x < b; x++) {
            const struct ew_bn_member *fi = o[x].f;

            if (done[o[x].i])
                continue;
            for (y = x; y < b; y++) {
                const struct ew_bn_member *fj = o[y].f;

                if (done[o[y].i])
                    continue;
                if (y != x && (fj->first_ns > fi->last_ns || fj->last_ns < fi->first_ns))
                    continue;
                done[o[y].i] = true;
                out[ng++] = (struct grp){o[x].i, o[y].i};
            }
        }
    }
    qsort(out, ng, sizeof(*out), cmp_grp);
    free(o);
    free(done);
    return ng;
}

/* ---------------------------------------------------------------- over time */

/* One interval of the group's time, by kind (0 classic, 1 L4S): payload,
 * data segments, marks, and the queueing delay above the base RTT (a sum
 * over samples, and their count). */
struct cell {
    double bytes[2], data[2], marks[2], qd_sum[2], qd_n[2];
};

/* the two kinds over the time they overlap */
struct overlap {
    bool ok;          /* every flow had a series, and the kinds overlapped */
    double secs;      /* the overlap's length */
    double base_ms;   /* the base RTT: the lowest of the flows' */
    bool same_base;   /* one base for every flow (else each flow's own) */
    double mbps[2], data[2], marks[2], qd[2]; /* qd: -1 when not measured */
    bool has_corr;
    double corr;
    bool steady;      /* a side's delay hardly moves: no correlation tells (EW_PATH_BN_STEADY_*) */
    int cells;        /* intervals with a delay on both sides (for corr) */
};

static int64_t
floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;

    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* a bin's lowest RTT from the member's source (ns), and its samples; -1 when none */
static double
bin_rtt(const struct ew_bn_member *x, const struct ew_qbin *b, double *n)
{
    double dn = b->dn_n ? (double)b->dn_min * EW_QS_RTT_UNIT_NS : -1;
    double up = b->up_n ? (double)b->up_min * EW_QS_RTT_UNIT_NS : -1;

    *n = 0;
    switch (x->src) {
    case SRC_DN:
        *n = b->dn_n;
        return dn;
    case SRC_UP:
        *n = b->up_n;
        return up;
    case SRC_BOTH:
        if (dn < 0 || up < 0)
            return -1;
        *n = b->dn_n < b->up_n ? b->dn_n : b->up_n;
        return dn + up;
    case SRC_NONE:
        break;
    }
    return -1;
}

static double
pearson(const double *x, const double *y, int n)
{
    double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
    int i;

    for (i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    for (i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    /* a delay that does not vary (below 10 us rms) moves with nothing */
    if (sxx <= n * 1e-4 || syy <= n * 1e-4)
        return 2; /* undefined */
    return sxy / sqrt(sxx * syy);
}

/* a delay (ms, per interval) that hardly moves: its standard deviation
 * below EW_PATH_BN_STEADY_MS and EW_PATH_BN_STEADY_FRAC of its mean; two
 * such delays move together or apart only by their noise */
static bool
steady(const double *x, int n)
{
    double m = 0, v = 0;
    int i;

    for (i = 0; i < n; i++)
        m += x[i];
    m /= n;
    for (i = 0; i < n; i++)
        v += (x[i] - m) * (x[i] - m);
    v = sqrt(v / n);
    return v < EW_PATH_BN_STEADY_MS || v < EW_PATH_BN_STEADY_FRAC * m;
}

/* the members gm[from, to) of one group over the time both kinds ran,
 * interval by interval: the series' coarsest width */
static void
overlap_of(const struct ew_bn_member *m, const struct grp *gm, size_t from, size_t to,
           struct overlap *o)
{
    int64_t w = 0, c0 = INT64_MAX, c1 = INT64_MIN, base = 0;
    enum src src = SRC_NONE;
    struct cell *c;
    double *xs, *ys;
    size_t y, nc, i;
    int k, no = 0;

    memset(o, 0, sizeof(*o));
    o->same_base = true;
    for (y = from; y < to; y++) {
        const struct ew_bn_member *x = &m[gm[y].j];

        if (!x->qs || x->src == SRC_NONE || !x->base_ns)
            return;
        if (x->qs->width > w)
            w = x->qs->width;
        if (src != SRC_NONE && x->src != src)
            o->same_base = false;
        src = x->src;
        if (!base || x->base_ns < base)
            base = x->base_ns;
    }
    for (y = from; y < to; y++) {
        const struct ew_qseries *q = m[gm[y].j].qs;

        if (floor_div(q->t0, w) < c0)
            c0 = floor_div(q->t0, w);
        if (floor_div(q->t0 + q->n * q->width - 1, w) > c1)
            c1 = floor_div(q->t0 + q->n * q->width - 1, w);
    }
    if (c1 < c0 || c1 - c0 >= EW_PATH_BN_MAX_CELLS)
        return;
    nc = (size_t)(c1 - c0 + 1);
    c = calloc(nc, sizeof(*c));
    xs = malloc(nc * sizeof(*xs));
    ys = malloc(nc * sizeof(*ys));
    if (!c || !xs || !ys)
        goto out;
    for (y = from; y < to; y++) {
        const struct ew_bn_member *x = &m[gm[y].j];
        const struct ew_qseries *q = x->qs;
        int64_t b0 = o->same_base ? base : x->base_ns;

        k = x->l4s ? 1 : 0;
        for (i = 0; i < q->n; i++) {
            const struct ew_qbin *b = &q->b[i];
            struct cell *ce = &c[floor_div(q->t0 + (int64_t)i * q->width, w) - c0];
            double n, rtt = bin_rtt(x, b, &n);

            ce->bytes[k] += b->bytes;
            ce->data[k] += b->data;
            {
                /* marks seen here, or fed back in the flow's own mode */
                uint16_t fb = x->accecn ? b->marks : b->ece;

                ce->marks[k] += b->ce > fb ? b->ce : fb;
            }
            if (rtt >= 0 && n > 0) {
                ce->qd_sum[k] += (rtt - (double)b0) / 1e6 * n;
                ce->qd_n[k] += n;
            }
        }
    }
    {
        double bytes[2] = {0, 0}, qs[2] = {0, 0}, qn[2] = {0, 0};
        size_t cells = 0;

        for (i = 0; i < nc; i++) {
            if (c[i].bytes[0] <= 0 || c[i].bytes[1] <= 0)
                continue;
            cells++;
            for (k = 0; k < 2; k++) {
                bytes[k] += c[i].bytes[k];
                o->data[k] += c[i].data[k];
                o->marks[k] += c[i].marks[k];
                qs[k] += c[i].qd_sum[k];
                qn[k] += c[i].qd_n[k];
            }
            if (c[i].qd_n[0] > 0 && c[i].qd_n[1] > 0) {
                xs[no] = c[i].qd_sum[1] / c[i].qd_n[1];
                ys[no] = c[i].qd_sum[0] / c[i].qd_n[0];
                no++;
            }
        }
        if (cells == 0)
            goto out;
        o->ok = true;
        o->secs = (double)cells * (double)w / 1e9;
        o->base_ms = (double)base / 1e6;
        for (k = 0; k < 2; k++) {
            o->mbps[k] = bytes[k] * 8 / o->secs / 1e6;
            o->qd[k] = qn[k] > 0 ? qs[k] / qn[k] : -1;
        }
        o->cells = no;
        if (no >= EW_PATH_BN_MIN_CELLS) {
            double r = pearson(xs, ys, no);

            if (r <= 1) {
                o->has_corr = true;
                o->corr = r;
            }
            o->steady = steady(xs, no) || steady(ys, no);
        }
    }
out:
    free(c);
    free(xs);
    free(ys);
}

/* ---------------------------------------------------------------- the verdict */

/* What the two kinds' marking says, apart from their delays: a DualQ
 * couples them (RFC 9332 §2.1: p_C = (p_L / k)^2, k = 2 by default, the L
 * queue's own step marking only adding to p_L), so ECT(1) is marked far more
 * often, and an L4S AQM marks a scalable flow about twice a round trip; one
 * queue marks both kinds alike, and a classic AQM an L4S flow once in many
 * round trips. "dualq", "single_queue" or NULL, with the numbers in words. */
static const char *
by_marks(double pl, double pc, double l4s_per_rtt, char *why, size_t len)
{
    double coupled = (pl / EW_PATH_DUALQ_K) * (pl / EW_PATH_DUALQ_K);

    if (pl <= 0)
        return NULL;
    if (pl > EW_PATH_DUALQ_MARK_RATIO * pc && pc <= EW_PATH_DUALQ_COUPLING_SLACK * coupled &&
        (l4s_per_rtt < 0 || l4s_per_rtt >= EW_PATH_L4S_MIN_CE_PER_RTT)) {
        snprintf(why, len,
                 "ECT(1) CE-marked on %.3f%% of packets, ECT(0) on %.4f%% (a DualQ's coupling "
                 "predicts %.4f%%)",
                 pl * 100, pc * 100, coupled * 100);
        return "dualq";
    }
    if (pc > 0 && pl <= EW_PATH_SAME_MARK_RATIO * pc && pc <= EW_PATH_SAME_MARK_RATIO * pl &&
        (l4s_per_rtt < 0 || l4s_per_rtt < EW_PATH_L4S_MIN_CE_PER_RTT)) {
        snprintf(why, len,
                 "ECT(1) CE-marked on %.3f%% of packets, ECT(0) on %.3f%%: alike", pl * 100,
                 pc * 100);
        return "single_queue";
    }
    return NULL;
}

/* two delays (ms) alike: within EW_PATH_SAME_QDELAY_FRAC of the larger, or
 * within the noise of timing them */
static bool
alike(double a, double b)
{
    double d = a > b ? a - b : b - a, hi = a > b ? a : b;

    return d <= EW_PATH_SAME_QDELAY_FRAC * hi || d <= EW_PATH_QDELAY_NOISE_MS;
}

/* The two kinds compared over the time they overlap: "dualq",
 * "single_queue", "fq" or "unknown", and why in words. ECT(1) kept far
 * shallower than ECT(0), and CE-marked, is a DualQ (never without ECT(1)
 * marks: a DualQ's L queue marks a scalable flow about twice a round trip);
 * delays that move together at one level are one queue; delays that do not
 * move together while both kinds are marked at a classic depth are a queue
 * per flow. */
static const char *
looks_over_overlap(const struct overlap *o, char *reason, size_t len, bool *likely)
{
    double ql = o->qd[1], qc = o->qd[0];
    double pl = o->data[1] > 0 ? o->marks[1] / o->data[1] : 0;
    double pc = o->data[0] > 0 ? o->marks[0] / o->data[0] : 0;
    char corr[64] = "", why[160];
    const char *m = by_marks(pl, pc, -1, why, sizeof(why));

    *likely = true;
    if (o->has_corr)
        snprintf(corr, sizeof(corr), ", their delays' correlation %.2f", o->corr);
    else if (o->cells >= EW_PATH_BN_MIN_CELLS)
        snprintf(corr, sizeof(corr), ", a delay too steady to correlate");
    else
        snprintf(corr, sizeof(corr), ", too few intervals to correlate their delays");
    if (ql < 0 || qc < 0) {
        if (m && (strcmp(m, "dualq") || o->marks[1] > 0)) {
            snprintf(reason, len, "over the %.1f s both kinds ran, queueing delay not measured; %s",
                     o->secs, why);
            return m;
        }
        *likely = false;
        snprintf(reason, len,
                 "over the %.1f s both kinds ran, the queueing delay could not be measured and "
                 "the marking fits no pattern",
                 o->secs);
        return "unknown";
    }
    /* delays that move together are one queue, their levels apart only by
     * what each loop adds (a paced sender's wait, an ACK held back) */
    if (o->has_corr && !o->steady && o->corr >= EW_PATH_CORR_ONE_QUEUE &&
        (alike(ql, qc) || (ql > qc ? ql - qc : qc - ql) < EW_PATH_MOVE_TOGETHER_GAP_MS)) {
        snprintf(reason, len,
                 "over the %.1f s both kinds ran, their queueing delays move together (%.1f and "
                 "%.1f ms on average above the path's base RTT)%s: one shared queue",
                 o->secs, ql, qc, corr);
        return "single_queue";
    }
    if (ql * EW_PATH_DUALQ_DELAY_RATIO < qc && qc - ql >= EW_PATH_DUALQ_MIN_GAP_MS &&
        o->marks[1] > 0) {
        snprintf(reason, len,
                 "over the %.1f s both kinds ran, ECT(1) queued %.1f ms and ECT(0) %.1f ms on "
                 "average above the path's base RTT, ECT(1) marked on %.2f%% of its packets and ECT(0) on %.2f%% "
                 "(%.0f and %.0f marks): two queues, ECT(1) kept shallow: a DualQ%s",
                 o->secs, ql, qc, pl * 100, pc * 100, o->marks[1], o->marks[0], corr);
        return "dualq";
    }
    if (o->steady) {
        *likely = false;
        snprintf(reason, len,
                 "over the %.1f s both kinds ran, ECT(1) queued %.1f ms and ECT(0) %.1f ms on "
                 "average above the path's base RTT, but a delay that hardly moves cannot show whether they wait in "
                 "one queue or in a queue each",
                 o->secs, ql, qc);
        return "unknown";
    }
    if (!o->has_corr && alike(ql, qc) && m && !strcmp(m, "single_queue")) {
        snprintf(reason, len,
                 "over the %.1f s both kinds ran, the same queueing delay for both (%.1f and "
                 "%.1f ms on average above the path's base RTT) and the same marking%s: one shared queue",
                 o->secs, ql, qc, corr);
        return "single_queue";
    }
    if (o->has_corr && o->corr < EW_PATH_CORR_APART && o->marks[0] > 0 && o->marks[1] > 0 &&
        ql * 1000 >= EW_PATH_QD_CLASSIC_US && qc * 1000 >= EW_PATH_QD_CLASSIC_US) {
        snprintf(reason, len,
                 "over the %.1f s both kinds ran, both are marked at classic depths (%.1f and "
                 "%.1f ms on average above the path's base RTT) but their delays do not move together%s: a queue "
                 "for each flow (flow queueing, as fq_codel)",
                 o->secs, ql, qc, corr);
        return "fq";
    }
    *likely = false;
    snprintf(reason, len,
             "over the %.1f s both kinds ran, ECT(1) queued %.1f ms and ECT(0) %.1f ms on "
             "average above the path's base RTT%s, with %.0f and %.0f marks: neither one queue, a DualQ, nor a queue "
             "per flow",
             o->secs, ql, qc, corr, o->marks[1], o->marks[0]);
    return "unknown";
}

/* What the two kinds' whole flows look like, where their series do not
 * tell (a flow without one): "dualq", "single_queue" or "unknown", and why
 * in words. One queue gives both kinds the same delay; a DualQ keeps ECT(1)
 * far shallower, and marks it. */
static const char *
looks_whole(const struct side *l4s, const struct side *cl, char *reason, size_t len,
            bool *likely)
{
    double ql = l4s->qd_n ? l4s->qd_sum / l4s->qd_n : -1;
    double qc = cl->qd_n ? cl->qd_sum / cl->qd_n : -1;
    double pl = l4s->ce_pkts > 0 ? l4s->ce / l4s->ce_pkts : 0;
    double pc = cl->ce_pkts > 0 ? cl->ce / cl->ce_pkts : 0;
    double per_rtt = l4s->rtts > 0 ? l4s->ce / l4s->rtts : -1;
    char why[160], rtt_txt[48] = "";
    const char *m = by_marks(pl, pc, per_rtt, why, sizeof(why));

    *likely = true;
    if (per_rtt >= 0)
        snprintf(rtt_txt, sizeof(rtt_txt), ", %.2f marks per RTT on ECT(1)", per_rtt);
    if (ql >= 0 && qc >= 0) {
        if (ql * EW_PATH_DUALQ_DELAY_RATIO < qc && qc - ql >= EW_PATH_DUALQ_MIN_GAP_MS &&
            l4s->ce > 0) {
            snprintf(reason, len,
                     "whole flows (no time series to compare them over their overlap): ECT(1) "
                     "marked on %.2f%% of its packets and queued %.1f ms on average, ECT(0) on "
                     "%.2f%% at %.1f ms: two queues, as a DualQ%s",
                     pl * 100, ql, pc * 100, qc, rtt_txt);
            return "dualq";
        }
        if (alike(ql, qc)) {
            snprintf(reason, len,
                     "whole flows (no time series to compare them over their overlap): the same "
                     "queueing delay for both (%.1f and %.1f ms): one shared queue%s",
                     ql, qc, rtt_txt);
            return "single_queue";
        }
        /* the marking alone tells a DualQ only where the delays do not
         * contradict it: within a millisecond of each other they are one
         * queue's, or noise */
        if (m && (strcmp(m, "dualq") || (l4s->ce > 0 && qc - ql >= EW_PATH_DUALQ_MIN_GAP_MS))) {
            snprintf(reason, len,
                     "whole flows: queueing delay %.1f ms (ECT(1)) against %.1f ms (ECT(0)); %s%s",
                     ql, qc, why, rtt_txt);
            return m;
        }
        *likely = false;
        snprintf(reason, len,
                 "whole flows: queueing delay %.1f ms (ECT(1)) against %.1f ms (ECT(0)): neither "
                 "pattern", ql, qc);
        return "unknown";
    }
    if (m) {
        snprintf(reason, len, "whole flows, queueing delay not measured here; %s%s", why, rtt_txt);
        return m;
    }
    *likely = false;
    snprintf(reason, len,
             "queueing delay not measurable at this capture point for both kinds, and the "
             "marking rates fit neither pattern");
    return "unknown";
}

static void
members_free(struct ew_bn_member *m, size_t n)
{
    size_t i;

    for (i = 0; m && i < n; i++)
        free(m[i].qs);
    free(m);
}

void
ew_bottlenecks_add(struct ew_bn_members *ms, const struct ew_qseries_pool *qs,
                   const struct ew_flow *f, const struct ew_flow_summary *s)
{
    struct ew_bn_member one;
    bool ok;

    if (ms->nomem)
        return;
    classify(f, s, qs, &one, &ok);
    if (!ok) {
        free(one.qs);
        return;
    }
    if (ms->n == ms->cap) {
        struct ew_bn_member *more = realloc(ms->m, (ms->cap ? 2 * ms->cap : 64) * sizeof(*more));

        if (!more) {
            /* no groups can be found without every member */
            free(one.qs);
            members_free(ms->m, ms->n);
            *ms = (struct ew_bn_members){NULL, 0, 0, true};
            return;
        }
        ms->m = more;
        ms->cap = ms->cap ? 2 * ms->cap : 64;
    }
    ms->m[ms->n++] = one;
}

/* the members gm[from, to) of one group, added up by kind into l4s and cl
 * (each with room for to - from ids); false when out of memory */
static bool
sides_of(const struct ew_bn_member *m, const struct grp *gm, size_t from, size_t to, struct side *l4s,
         struct side *cl)
{
    size_t y;

    memset(l4s, 0, sizeof(*l4s));
    memset(cl, 0, sizeof(*cl));
    l4s->ids = malloc((to - from) * sizeof(*l4s->ids));
    cl->ids = malloc((to - from) * sizeof(*cl->ids));
    if (!l4s->ids || !cl->ids)
        return false;
    for (y = from; y < to; y++) {
        const struct ew_bn_member *x = &m[gm[y].j];
        struct side *s = x->l4s ? l4s : cl;

        s->ids[s->n] = x->id;
        s->mbps += x->mbps;
        s->ce += x->ce_per_pkt * x->data_pkts;
        s->ce_pkts += x->data_pkts;
        s->rtts += x->rtts;
        if (x->qdelay_ms >= 0) {
            s->qd_sum += x->qdelay_ms;
            s->qd_n++;
        }
        s->n++;
    }
    return true;
}

/* a group of both kinds between the hosts of lead, as the report shows it:
 * over the time the kinds overlap where every flow has a series, else over
 * the whole flows */
static void
group_out(const struct ew_bn_member *lead, struct side *l4s, struct side *cl, const struct overlap *o,
          struct ew_bottleneck *g)
{
    memset(g, 0, sizeof(*g));
    if (o->ok) {
        int k;

        g->looks_like = looks_over_overlap(o, g->reason, sizeof(g->reason), &g->likely);
        g->over_overlap = true;
        g->overlap_s = (double)(int64_t)(o->secs * 1000) / 1000;
        g->has_base = o->same_base;
        g->base_rtt_ms = (double)(int64_t)(o->base_ms * 1000) / 1000;
        g->has_corr = o->has_corr;
        g->corr = o->has_corr ? (double)(int64_t)(o->corr * 1000) / 1000 : 0;
        /* the sides' numbers over the overlap */
        for (k = 0; k < 2; k++) {
            struct side *s = k ? l4s : cl;

            s->mbps = o->mbps[k];
            s->ce = o->marks[k];
            s->ce_pkts = o->data[k];
            s->qd_sum = o->qd[k] >= 0 ? o->qd[k] : 0;
            s->qd_n = o->qd[k] >= 0 ? 1 : 0;
        }
    } else {
        g->looks_like = looks_whole(l4s, cl, g->reason, sizeof(g->reason), &g->likely);
    }
    /* RFC 9331 §4.3: an L4S flow in a classic single queue takes more than
     * its share; the ratio says whether it did here */
    if (!strcmp(g->looks_like, "single_queue") && cl->mbps > 0 && l4s->n > 0) {
        size_t used = strlen(g->reason);
        double per = (l4s->mbps / l4s->n) / (cl->mbps / cl->n);

        snprintf(g->reason + used, sizeof(g->reason) - used,
                 "; L4S:classic throughput %.2f:1 a flow, %s", per,
                 per > EW_PATH_HARM_RATIO ? "the L4S flows take more than their share"
                                          : "the L4S flows take no more than their share");
    }
    ew_addr_str(lead->key.lo, lead->key.family, g->hosts[0], sizeof(g->hosts[0]));
    ew_addr_str(lead->key.hi, lead->key.family, g->hosts[1], sizeof(g->hosts[1]));
    g->has_ratio = cl->mbps > 0;
    g->ratio = cl->mbps > 0 ? (double)(int64_t)(l4s->mbps / cl->mbps * 1000) / 1000 : 0;
    side_out(l4s, &g->l4s);
    side_out(cl, &g->classic);
}

static int
cmp_role(const void *pa, const void *pb)
{
    const struct ew_bn_role *a = pa, *b = pb;

    return (a->id > b->id) - (a->id < b->id);
}

/* the group's two kinds CE-marked alike, per data packet (within
 * EW_PATH_SAME_MARK_RATIO): one AQM that marks ECT(1) as it marks ECT(0) */
static bool
marked_alike(const struct ew_bottleneck *g)
{
    double pl = g->l4s.ce_per_packet, pc = g->classic.ce_per_packet;

    return g->l4s.marks > 0 && g->classic.marks > 0 && pl <= EW_PATH_SAME_MARK_RATIO * pc &&
           pc <= EW_PATH_SAME_MARK_RATIO * pl;
}

/* an L4S flow's throughput against a classic flow's, each kind's mean (0: no classic throughput) */
static double
per_flow_ratio(const struct ew_bottleneck *g)
{
    if (!g->l4s.n || !g->classic.n || g->classic.throughput_mbps <= 0)
        return 0;
    return (g->l4s.throughput_mbps / (double)g->l4s.n) /
           (g->classic.throughput_mbps / (double)g->classic.n);
}

/* the members gm[from, to) of group gi, for ew_bottleneck_apply(); false
 * out of memory */
static bool
roles_add(struct ew_bottlenecks *b, size_t *cap, const struct ew_bn_member *m, const struct grp *gm,
          size_t from, size_t to, uint32_t gi)
{
    const struct ew_bottleneck *g = &b->g[gi];
    bool shared = !strcmp(g->looks_like, "single_queue") && g->l4s.marks > 0;
    size_t y;

    for (y = from; y < to; y++) {
        const struct ew_bn_member *x = &m[gm[y].j];

        if (b->nrole == *cap) {
            struct ew_bn_role *more = realloc(b->role, (*cap ? 2 * *cap : 16) * sizeof(*more));

            if (!more)
                return false;
            b->role = more;
            *cap = *cap ? 2 * *cap : 16;
        }
        b->role[b->nrole++] = (struct ew_bn_role){
            x->id, gi, x->l4s,
            x->l4s && shared && x->marks > 0 &&
                (x->classic_aqm || marked_alike(g) || per_flow_ratio(g) > EW_PATH_HARM_RATIO)};
    }
    return true;
}

void
ew_bottlenecks_group(struct ew_bn_members *ms, struct ew_bottlenecks *out)
{
    struct ew_bn_member *m;
    struct grp *gm = NULL;
    size_t x, y, ng, nm, cap = 0, rcap = 0;

    memset(out, 0, sizeof(*out));
    m = ms->m;
    nm = ms->n;
    *ms = (struct ew_bn_members){NULL, 0, 0, false};
    gm = malloc((nm ? nm : 1) * sizeof(*gm));
    if (!gm)
        goto done;
    ng = group(m, nm, gm);
    for (x = 0; x < ng; x = y) {
        struct side l4s, cl;
        struct overlap o;

        for (y = x; y < ng && gm[y].lead == gm[x].lead; y++)
            ;
        if (!sides_of(m, gm, x, y, &l4s, &cl)) {
            free(l4s.ids);
            free(cl.ids);
            break; /* out of memory: the groups so far */
        }
        if (l4s.n > 0 && cl.n > 0) {
            if (out->n == cap) {
                struct ew_bottleneck *more = realloc(out->g, (cap ? 2 * cap : 4) * sizeof(*more));

                if (!more) {
                    free(l4s.ids);
                    free(cl.ids);
                    break;
                }
                out->g = more;
                cap = cap ? 2 * cap : 4;
            }
            overlap_of(m, gm, x, y, &o);
            group_out(&m[gm[x].lead], &l4s, &cl, &o, &out->g[out->n++]);
            if (!roles_add(out, &rcap, m, gm, x, y, (uint32_t)(out->n - 1))) {
                free(l4s.ids);
                free(cl.ids);
                break;
            }
        }
        free(l4s.ids);
        free(cl.ids);
    }
    if (out->role)
        qsort(out->role, out->nrole, sizeof(*out->role), cmp_role);
done:
    free(gm);
    members_free(m, nm);
}

void
ew_bottlenecks_free(struct ew_bottlenecks *b)
{
    size_t i;

    for (i = 0; i < b->n; i++) {
        free(b->g[i].l4s.ids);
        free(b->g[i].classic.ids);
    }
    free(b->g);
    free(b->role);
    memset(b, 0, sizeof(*b));
}

/* the flows of the other kind in group g, as "#3 #4" */
static void
others(const struct ew_bottleneck *g, bool l4s, char *buf, size_t len)
{
    const struct ew_bottleneck_side *s = l4s ? &g->classic : &g->l4s;
    size_t i, k = 0;

    buf[0] = '\0';
    for (i = 0; i < s->n && k + 24 < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s#%llu", i ? " " : "",
                              (unsigned long long)s->ids[i]);
}

/* a reason in words, cut to its buffer */
static void fmt(char *buf, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));

static void
fmt(char *buf, size_t len, const char *f, ...)
{
    va_list ap;

    va_start(ap, f);
    ew_vformat(buf, len, f, ap);
    va_end(ap);
}

/* the harm of RFC 9331 §4.3: an L4S flow CE-marked in one queue with
 * classic flows, which a classic AQM marks alike, out-competes them */
static void
harm_finding(const struct ew_bottleneck *g, const struct ew_flow *f, int d,
             struct ew_flow_summary *s)
{
    const struct ew_half *h = &f->inf->half[d];
    struct ew_finding *x;
    char cls[96];
    size_t i;

    if (s->nf >= EW_FLOW_FINDINGS_MAX)
        return;
    x = &s->fnd[s->nf];
    memset(x, 0, sizeof(*x));
    x->kind = EW_MU_CLASSIC_AQM_UNDER_L4S;
    x->dir = d;
    x->first_frame = h->first_ce_frame ? h->first_ce_frame : h->first_ace_change_frame;
    if (!x->first_frame)
        x->first_frame = f->first_frame;
    /* an L4S flow's marks: seen here, or counted by its ACE counter */
    x->count = h->ce_seen > h->cep_reported ? h->ce_seen : h->cep_reported;
    if (!x->count)
        x->count = 1;
    x->confidence = EW_CONF_LIKELY;
    x->ref = "RFC 9331 §4.3";
    others(g, true, cls, sizeof(cls));
    fmt(x->detail, sizeof(x->detail),
        "CE-marked in one queue with the classic flow%s %s, which marks ECT(1) like ECT(0): a "
        "classic AQM, where an L4S flow out-competes classic ones (L4S:classic throughput "
        "%.2f%s); it should fall back to classic",
        g->classic.n == 1 ? "" : "s", cls, g->has_ratio ? g->ratio : 0,
        g->over_overlap ? " while they overlap" : "");
    s->nf++;
    s->kinds |= 1u << x->kind;
    /* kept in the order ew_misuse_find() gives: by frame, kind, direction */
    for (i = s->nf - 1; i > 0; i--) {
        struct ew_finding t;
        const struct ew_finding *a = &s->fnd[i - 1], *b = &s->fnd[i];

        if (a->first_frame < b->first_frame ||
            (a->first_frame == b->first_frame &&
             (a->kind < b->kind || (a->kind == b->kind && a->dir <= b->dir))))
            break;
        t = s->fnd[i - 1];
        s->fnd[i - 1] = s->fnd[i];
        s->fnd[i] = t;
    }
}



const struct ew_bn_role *
ew_bottleneck_role(const struct ew_bottlenecks *b, uint64_t id)
{
    struct ew_bn_role key = {id, 0, false, false};

    if (!b || !b->nrole)
        return NULL;
    return bsearch(&key, b->role, b->nrole, sizeof(*b->role), cmp_role);
}

enum ew_aqm
ew_bottleneck_refine(const struct ew_bottlenecks *b, const struct ew_bn_role *r, enum ew_aqm aqm,
                     bool few_marks, bool marked)
{
    const char *like = b->g[r->group].looks_like;
    /* a classic AQM, or one this flow's few marks could not name: its
     * bottleneck's flows tell the queue */
    bool classic = aqm == EW_AQM_CLASSIC || (aqm == EW_AQM_UNKNOWN && few_marks);

    if (!marked)
        return aqm;
    if (!strcmp(like, "dualq") && !r->l4s && classic)
        return EW_AQM_DUALQ_CLASSIC;
    if (!strcmp(like, "single_queue") &&
        (r->l4s ? classic || (r->harm && aqm == EW_AQM_L4S) : classic))
        return EW_AQM_CLASSIC_SINGLE;
    if (!strcmp(like, "fq") && classic)
        return EW_AQM_FQ_CLASSIC;
    return aqm;
}

void
ew_bottleneck_apply(const struct ew_bottlenecks *b, const struct ew_flow *f,
                    struct ew_flow_summary *s)
{
    const struct ew_bn_role *r = ew_bottleneck_role(b, f->id);
    const struct ew_bottleneck *g;
    struct ew_path_verdict *p;
    int d = s->v.main_dir;
    char cls[96];

    if (!r)
        return;
    g = &b->g[r->group];
    others(g, r->l4s, cls, sizeof(cls));
    /* one queue shared with classic flows that marks the L4S flow as a
     * classic AQM does, or lets it take more than its share: the harm (the
     * group decided it, so that a summary with or without paths agrees) */
    if (r->harm && !(s->kinds & (1u << EW_MU_CLASSIC_AQM_UNDER_L4S)))
        harm_finding(g, f, d, s);
    if (!s->has_path)
        return;
    p = &s->path[d];
    switch (ew_bottleneck_refine(b, r, p->aqm, p->few_marks, p->marks > 0)) {
    case EW_AQM_DUALQ_CLASSIC:
        p->aqm = EW_AQM_DUALQ_CLASSIC;
        p->has_confidence = true;
        p->few_marks = false;
        fmt(p->reason, EW_REASON_LEN,
                 "%llu marks, applied at a mean queueing delay of %.1f ms, while ECT(1) flows through "
                 "the same bottleneck (%s) are marked at a shallow queue: a DualQ's classic queue",
                 (unsigned long long)p->marks, p->qdelay_at_marks_ms, cls);
        break;
    case EW_AQM_CLASSIC_SINGLE:
        p->aqm = EW_AQM_CLASSIC_SINGLE;
        p->has_confidence = true;
        p->few_marks = false;
        p->certain = false;
        fmt(p->reason, EW_REASON_LEN,
                 "%llu marks, applied at a mean queueing delay of %.1f ms, in one queue with the "
                 "%s flows %s (bottlenecks): a classic single-queue AQM",
                 (unsigned long long)p->marks, p->qdelay_at_marks_ms,
                 r->l4s ? "classic" : "L4S", cls);
        if (r->l4s)
            p->note = "an L4S flow in one classic queue with classic flows: it loses its low "
                      "latency and takes more than its share (classic_aqm_under_l4s)";
        break;
    case EW_AQM_FQ_CLASSIC:
        p->aqm = EW_AQM_FQ_CLASSIC;
        p->has_confidence = true;
        p->few_marks = false;
        fmt(p->reason, EW_REASON_LEN,
                 "%llu marks, applied at a mean queueing delay of %.1f ms, in a queue of its own: "
                 "the %s flows %s through the same bottleneck are marked at classic depths too, "
                 "and their delays do not move with this one's (flow queueing)",
                 (unsigned long long)p->marks, p->qdelay_at_marks_ms,
                 r->l4s ? "classic" : "L4S", cls);
        break;
    default:
        break;
    }
}
