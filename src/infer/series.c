/* series.c - per-flow time series (see series.h), as plain data: the
 * report writes them (output/report_json.c), --plot draws them
 * (output/plot_svg.c). */
#include "infer/series.h"

#include <stdlib.h>
#include <string.h>

#include "base/sat.h"
#include "dissectors/ecn.h"
#include "flow/flowtab.h"
#include "infer/infer.h"
#include "infer/qdhist.h"

int
ew_series_pool_init(struct ew_series_pool *p, uint32_t max_series, int64_t width_ns)
{
    memset(p, 0, sizeof(*p));
    if (max_series == 0)
        return 0;
    p->s = calloc(max_series, sizeof(*p->s));
    p->free_slot = malloc(max_series * sizeof(*p->free_slot));
    if (!p->s || !p->free_slot) {
        ew_series_pool_free(p);
        return -1;
    }
    p->cap = max_series;
    while (p->nfree < max_series) {
        p->free_slot[p->nfree] = max_series - 1 - p->nfree;
        p->nfree++;
    }
    p->width0 = width_ns > 0 ? width_ns : 100000000;
    return 0;
}

void
ew_series_pool_free(struct ew_series_pool *p)
{
    free(p->s);
    free(p->free_slot);
    memset(p, 0, sizeof(*p));
}

/* an unused series for flow id from ts, or NULL when all are taken: O(1) */
static struct ew_series *
take(struct ew_series_pool *p, uint64_t id, int64_t ts)
{
    struct ew_series *s;

    if (p->nfree == 0)
        return NULL;
    s = &p->s[p->free_slot[--p->nfree]];
    memset(s, 0, sizeof(*s));
    s->flow_id = id;
    s->t0 = ts;
    s->width = p->width0;
    return s;
}

/* one delay sample (ns, never negative) into a bin's histogram and count */
static void
add_qd(uint8_t *h, uint16_t *n, int64_t ns)
{
    if (ns < 0)
        return;
    ew_qd_add(h, ns / 1000 > UINT32_MAX ? UINT32_MAX : (uint32_t)(ns / 1000));
    *n = ew_sat_add16(*n, 1);
}

/* halve the resolution: bins 2k and 2k+1 become bin k */
static void
merge(struct ew_series *s)
{
    uint16_t i;

    for (i = 0; i < s->n / 2 + s->n % 2; i++) {
        struct ew_bin a = s->b[2 * i], b = 2 * i + 1 < s->n ? s->b[2 * i + 1] : (struct ew_bin){0};

        a.bytes = ew_sat_add32(a.bytes, b.bytes);
        a.pkts = ew_sat_add16(a.pkts, b.pkts);
        a.ce = ew_sat_add16(a.ce, b.ce);
        a.e1 = ew_sat_add16(a.e1, b.e1);
        a.e0 = ew_sat_add16(a.e0, b.e0);
        a.marks = ew_sat_add16(a.marks, b.marks);
        if (b.rtt_min_us && (!a.rtt_min_us || b.rtt_min_us < a.rtt_min_us))
            a.rtt_min_us = b.rtt_min_us;
        ew_qd_merge(a.qd_seq, b.qd_seq);
        ew_qd_merge(a.qd_up, b.qd_up);
        a.qd_seq_n = ew_sat_add16(a.qd_seq_n, b.qd_seq_n);
        a.qd_up_n = ew_sat_add16(a.qd_up_n, b.qd_up_n);
        s->b[i] = a;
    }
    memset(&s->b[s->n / 2 + s->n % 2], 0, sizeof(s->b[0]) * (EW_SERIES_BINS - (s->n / 2 + s->n % 2)));
    s->n = (uint16_t)(s->n / 2 + s->n % 2);
    s->width *= 2;
}

void
ew_series_packet(struct ew_series_pool *p, struct ew_flow *f, int dir, const struct ew_pkt *pkt,
                 int64_t ts)
{
    struct ew_series *s;
    const struct ew_half *h = &f->inf->half[dir];
    uint64_t marks;
    int64_t k;

    if (!p->s)
        return;
    if (!f->series[dir]) {
        /* a direction refused once (the pool was full at its first packet)
         * is not given a series later, part way through */
        if (f->series_refused & (1u << dir))
            return;
        s = take(p, f->id, ts);
        if (!s) {
            f->series_refused |= (uint8_t)(1u << dir);
            p->refused++;
            return;
        }
        f->series[dir] = (uint32_t)(s - p->s) + 1;
    }
    s = &p->s[f->series[dir] - 1];
    if (ts < s->t0)
        ts = s->t0; /* time going backwards lands in the first bin */
    while ((k = (ts - s->t0) / s->width) >= EW_SERIES_BINS)
        merge(s);
    if (k >= s->n)
        s->n = (uint16_t)(k + 1);
    s->b[k].pkts = ew_sat_add16(s->b[k].pkts, 1);
    if (pkt->l4 == EW_L4_TCP)
        s->b[k].bytes += pkt->u.tcp.payload;
    else if (pkt->l4 == EW_L4_UDP)
        s->b[k].bytes += pkt->u.udp.payload;
    if (pkt->ecn == EW_ECN_CE)
        s->b[k].ce = ew_sat_add16(s->b[k].ce, 1);
    if (pkt->ecn == EW_ECN_ECT_1)
        s->b[k].e1 = ew_sat_add16(s->b[k].e1, 1);
    if (pkt->ecn == EW_ECN_ECT_0)
        s->b[k].e0 = ew_sat_add16(s->b[k].e0, 1);
    /* what the feedback on this direction says, as it arrives (the other
     * direction's packets carry it; both directions' packets pass here) */
    /* the ACE counter's count under AccECN, ECE runs under classic feedback
     * (each reads the other's bits as noise) */
    marks = f->inf->accecn_mode ? h->cep_reported : h->ece_runs;
    if (marks > s->last_marks) {
        s->b[k].marks = ew_sat_add16(s->b[k].marks, (uint32_t)(marks - s->last_marks));
        s->last_marks = marks;
    }
    if (h->rtt_samples != s->last_rtt_samples) {
        uint32_t us = (uint32_t)(h->rtt_last / 1000);

        if (!s->b[k].rtt_min_us || us < s->b[k].rtt_min_us)
            s->b[k].rtt_min_us = us ? us : 1;
        /* the sample's queueing delay, as rtt_sample() took it */
        add_qd(s->b[k].qd_seq, &s->b[k].qd_seq_n, h->rtt_last - h->rtt_min);
        s->last_rtt_samples = h->rtt_samples;
    }
    /* the timestamp loop to d's sender and back (the other direction's
     * TSvals, echoed by d's sender): the queue upstream of this point */
    if (f->inf->half[dir ^ 1].ts.samples != s->last_up_samples) {
        const struct ew_tsloop *up = &f->inf->half[dir ^ 1].ts;

        add_qd(s->b[k].qd_up, &s->b[k].qd_up_n, up->last - up->min);
        s->last_up_samples = up->samples;
    }
}

enum ew_qd_src
ew_series_qd_src(const char *from, const struct ew_series *s)
{
    int i, seq = 0;

    if (from)
        return !strcmp(from, "data_to_ack")      ? EW_QS_SEQ
               : !strcmp(from, "ts_from_sender") ? EW_QS_UP
               : !strcmp(from, "both")           ? EW_QS_BOTH
                                                 : EW_QS_NONE;
    for (i = 0; i < s->n; i++)
        seq += s->b[i].qd_seq_n;
    return seq ? EW_QS_SEQ : EW_QS_UP;
}

double
ew_bin_qdelay_ms(const struct ew_bin *b, enum ew_qd_src src, double q)
{
    double x = src == EW_QS_SEQ || src == EW_QS_BOTH ? ew_qd_quantile(b->qd_seq, q, NULL, NULL) : -1;
    double y = src == EW_QS_UP || src == EW_QS_BOTH ? ew_qd_quantile(b->qd_up, q, NULL, NULL) : -1;

    if (x < 0 && y < 0)
        return -1;
    return ((x > 0 ? x : 0) + (y > 0 ? y : 0)) / 1000;
}

const struct ew_series *
ew_series_get(const struct ew_series_pool *p, const struct ew_flow *f, int dir)
{
    return p->s && f->series[dir] ? &p->s[f->series[dir] - 1] : NULL;
}

void
ew_series_release(struct ew_series_pool *p, struct ew_flow *f)
{
    int d;

    for (d = 0; d < 2; d++) {
        if (f->series[d] && p->s) {
            p->s[f->series[d] - 1].flow_id = 0;
            p->free_slot[p->nfree++] = f->series[d] - 1;
        }
        f->series[d] = 0;
    }
}
