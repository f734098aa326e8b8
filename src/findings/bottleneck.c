/* bottleneck.c - flows that share a path in one capture (the same two hosts,
 * overlapping in time), L4S (ECT(1)) flows against classic (ECT(0)) ones:
 * throughput share, marking rate and queueing delay side by side, and whether
 * that looks like a DualQ (RFC 9332: ECT(1) marked often at low delay, ECT(0)
 * rarely at a deeper queue) or one shared queue (the same delay for both). */
#include "ecnwatch/bottleneck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecnwatch/conclude.h"
#include "ecnwatch/ecn.h"
#include "ecnwatch/flow.h"
#include "ecnwatch/format.h"
#include "ecnwatch/infer.h"
#include "ecnwatch/thresholds.h"

/* what the grouping reads of a flow, copied: flows are viewed one at a time */
struct member {
    struct ew_flow_key key;
    int64_t first_ns, last_ns;
    uint64_t id;
    uint32_t data_pkts; /* of the main direction */
    int d;        /* main data direction */
    bool l4s;
    double mbps, ce_per_pkt, qdelay_ms;
    double rtts; /* round trips the flow's data spanned, 0 when no RTT is known */
};

/* one kind's flows of a group, added up */
struct side {
    uint64_t *ids; /* n of them */
    double mbps, ce, ce_pkts, qd_sum, rtts;
    int n, qd_n;
};

static int
same_hosts(const struct member *a, const struct member *b)
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
classify(const struct ew_flow *f, struct member *m, bool *ok)
{
    struct ew_flow_summary sum;
    const struct ew_flow_verdict *v = &sum.v;
    const struct ew_path_verdict *p;
    const struct ew_half *h;
    double dur;

    *ok = false;
    if (f->key.l4 != EW_L4_TCP)
        return;
    ew_flow_conclude(f, EW_CONCLUDE_PATH | EW_CONCLUDE_NO_FINDINGS, &sum);
    m->key = f->key;
    m->first_ns = f->first_ns;
    m->last_ns = f->last_ns;
    m->id = f->id;
    m->d = v->main_dir;
    h = &f->inf->half[m->d];
    m->data_pkts = h->data_pkts;
    if (h->data_pkts < EW_PATH_BN_MIN_DATA_PKTS)
        return;
    if (v->dir[m->d].sender_ect1 && v->mode_accecn)
        m->l4s = true;
    else if (!strcmp(v->dir[m->d].sender_cp, "ect0") || classic_with_retransmissions(f, m->d))
        m->l4s = false;
    else
        return; /* neither an L4S nor a classic ECN sender */
    dur = (double)(h->data_last_ns - h->data_first_ns) / 1e9;
    m->mbps = dur > 0 ? (double)f->dir[m->d].payload_bytes * 8 / dur / 1e6 : 0;
    p = &sum.path[m->d];
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
    o->has_qdelay = s->qd_n > 0;
    o->qdelay_ms = s->qd_n ? (double)(int64_t)(s->qd_sum / s->qd_n * 1000) / 1000 : 0;
}

/* flows in host-pair order (family, addresses), then in report order */
struct ord {
    const struct member *f;
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
group(const struct member *flows, size_t n, struct grp *out)
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
            const struct member *fi = o[x].f;

            if (done[o[x].i])
                continue;
            for (y = x; y < b; y++) {
                const struct member *fj = o[y].f;

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

/* What the two kinds' queueing delays and marking rates look like: "dualq",
 * "single_queue" or "unknown", and why in words. One queue gives both kinds
 * the same delay; a DualQ keeps ECT(1) far shallower. Where the delays do
 * not tell (not measured, or neither pattern), the marking does. */
static const char *
looks_like(const struct side *l4s, const struct side *cl, char *reason, size_t len)
{
    double ql = l4s->qd_n ? l4s->qd_sum / l4s->qd_n : -1;
    double qc = cl->qd_n ? cl->qd_sum / cl->qd_n : -1;
    double pl = l4s->ce_pkts > 0 ? l4s->ce / l4s->ce_pkts : 0;
    double pc = cl->ce_pkts > 0 ? cl->ce / cl->ce_pkts : 0;
    double per_rtt = l4s->rtts > 0 ? l4s->ce / l4s->rtts : -1;
    char why[160], rtt_txt[48] = "";
    const char *m = by_marks(pl, pc, per_rtt, why, sizeof(why));

    if (per_rtt >= 0)
        snprintf(rtt_txt, sizeof(rtt_txt), ", %.2f marks per RTT on ECT(1)", per_rtt);
    if (ql >= 0 && qc >= 0) {
        if (ql * EW_PATH_DUALQ_DELAY_RATIO < qc && pl > EW_PATH_DUALQ_MARK_RATIO * pc) {
            snprintf(reason, len,
                     "ECT(1) marked %.1fx as often and queued %.1f ms on average, ECT(0) %.1f "
                     "ms: two queues, coupled as a DualQ%s",
                     pl / (pc > 0 ? pc : 1e-9), ql, qc, rtt_txt);
            return "dualq";
        }
        /* one queue cannot keep one kind that much shallower: two queues,
         * whatever their marking (a DualQ without the coupling) */
        if (ql * EW_PATH_DUALQ_DELAY_RATIO < qc) {
            snprintf(reason, len,
                     "ECT(1) queued %.1f ms on average, ECT(0) %.1f ms: two queues, ECT(1) "
                     "served first, marking not coupled (%.1fx as often)%s",
                     ql, qc, pl / (pc > 0 ? pc : 1e-9), rtt_txt);
            return "dualq";
        }
        if ((ql > qc ? ql - qc : qc - ql) <= EW_PATH_SAME_QDELAY_FRAC * (ql > qc ? ql : qc)) {
            snprintf(reason, len,
                     "the same queueing delay for both (%.1f and %.1f ms): one shared queue%s",
                     ql, qc, rtt_txt);
            return "single_queue";
        }
        if (m) {
            snprintf(reason, len, "queueing delay %.1f ms (ECT(1)) against %.1f ms (ECT(0)); %s%s",
                     ql, qc, why, rtt_txt);
            return m;
        }
        snprintf(reason, len,
                 "queueing delay %.1f ms (ECT(1)) against %.1f ms (ECT(0)): neither pattern", ql,
                 qc);
        return "unknown";
    }
    if (m) {
        snprintf(reason, len, "queueing delay not measured here; %s%s", why, rtt_txt);
        return m;
    }
    snprintf(reason, len,
             "queueing delay not measurable at this capture point for both kinds, and the "
             "marking rates fit neither pattern");
    return "unknown";
}

/* the flows of refs[0, n) that can be in a group, in report order: *nm of
 * them, a new array (NULL with *nm 0 when none, or out of memory) */
static struct member *
candidates(const struct ew_flowtab *tab, const uint32_t *refs, size_t n, size_t *nm)
{
    struct member *m = NULL, one;
    struct ew_flow_room *room = malloc(sizeof(*room));
    size_t i, cap = 0;
    bool ok;

    *nm = 0;
    for (i = 0; room && i < n; i++) {
        classify(ew_flowtab_view(tab, refs[i], room), &one, &ok);
        if (!ok)
            continue;
        if (*nm == cap) {
            struct member *more = realloc(m, (cap ? 2 * cap : 64) * sizeof(*m));

            if (!more) {
                free(m);
                m = NULL;
                *nm = 0;
                break;
            }
            m = more;
            cap = cap ? 2 * cap : 64;
        }
        m[(*nm)++] = one;
    }
    free(room);
    return m;
}

/* the members gm[from, to) of one group, added up by kind into l4s and cl
 * (each with room for to - from ids); false when out of memory */
static bool
sides_of(const struct member *m, const struct grp *gm, size_t from, size_t to, struct side *l4s,
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
        const struct member *x = &m[gm[y].j];
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

/* a group of both kinds between the hosts of lead, as the report shows it */
static void
group_out(const struct member *lead, struct side *l4s, struct side *cl, struct ew_bottleneck *g)
{
    memset(g, 0, sizeof(*g));
    g->looks_like = looks_like(l4s, cl, g->reason, sizeof(g->reason));
    /* RFC 9331 §4.3: an L4S flow on a classic single queue takes more than
     * its share; the ratio says whether it did here */
    if (!strcmp(g->looks_like, "single_queue") && cl->mbps > 0) {
        size_t used = strlen(g->reason);

        double per = (l4s->mbps / l4s->n) / (cl->mbps / cl->n);

        snprintf(g->reason + used, sizeof(g->reason) - used,
                 "; L4S:classic throughput %.2f:1 a flow, %s", per,
                 per > EW_PATH_HARM_RATIO
                     ? "the L4S flows take more than their share (classic_aqm_under_l4s)"
                     : "the L4S flows take no more than their share");
    }
    ew_addr_str(lead->key.lo, lead->key.family, g->hosts[0], sizeof(g->hosts[0]));
    ew_addr_str(lead->key.hi, lead->key.family, g->hosts[1], sizeof(g->hosts[1]));
    g->has_ratio = cl->mbps > 0;
    g->ratio = cl->mbps > 0 ? (double)(int64_t)(l4s->mbps / cl->mbps * 1000) / 1000 : 0;
    side_out(l4s, &g->l4s);
    side_out(cl, &g->classic);
}

void
ew_bottlenecks_find(const struct ew_flowtab *tab, const uint32_t *refs, size_t n,
                    struct ew_bottlenecks *out)
{
    struct member *m;
    struct grp *gm = NULL;
    size_t x, y, ng, nm, cap = 0;

    out->g = NULL;
    out->n = 0;
    m = candidates(tab, refs, n, &nm);
    gm = malloc((nm ? nm : 1) * sizeof(*gm));
    if (!gm)
        goto done;
    ng = group(m, nm, gm);
    for (x = 0; x < ng; x = y) {
        struct side l4s, cl;

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
            group_out(&m[gm[x].lead], &l4s, &cl, &out->g[out->n++]);
        }
        free(l4s.ids);
        free(cl.ids);
    }
done:
    free(gm);
    free(m);
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
    b->g = NULL;
    b->n = 0;
}

static int
cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

    return (a > b) - (a < b);
}

uint64_t *
ew_bottleneck_dualq_classics(const struct ew_bottlenecks *b, size_t *n)
{
    uint64_t *ids = NULL;
    size_t i, total = 0;

    *n = 0;
    for (i = 0; i < b->n; i++)
        if (!strcmp(b->g[i].looks_like, "dualq"))
            total += b->g[i].classic.n;
    if (!total || !(ids = malloc(total * sizeof(*ids))))
        return NULL;
    for (i = 0; i < b->n; i++)
        if (!strcmp(b->g[i].looks_like, "dualq")) {
            memcpy(ids + *n, b->g[i].classic.ids, b->g[i].classic.n * sizeof(*ids));
            *n += b->g[i].classic.n;
        }
    qsort(ids, *n, sizeof(*ids), cmp_u64);
    return ids;
}

void
ew_bottleneck_refine(const uint64_t *ids, size_t n, uint64_t id, struct ew_flow_summary *r)
{
    struct ew_path_verdict *p;

    if (!n || !r->has_path || !bsearch(&id, ids, n, sizeof(*ids), cmp_u64))
        return;
    p = &r->path[r->v.main_dir];
    if (p->aqm != EW_AQM_CLASSIC)
        return;
    p->aqm = EW_AQM_DUALQ_CLASSIC;
    snprintf(p->reason, EW_REASON_LEN,
             "%llu marks at %.1f ms of queueing delay on average, while ECT(1) flows through the "
             "same bottleneck are marked at a shallow queue: a DualQ's classic queue",
             (unsigned long long)p->marks, p->qdelay_at_marks_ms);
}
