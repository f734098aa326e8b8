/* analyze.c - totals, flows and per-direction ECN accounting. */
#include "engine/analyze.h"

#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "findings/conclusions.h"
#include "dissectors/ecn.h"
#include "infer/infer.h"
#include "findings/misuse.h"
#include "infer/negotiation.h"
#include "infer/quic_infer.h"

/* events that mean "the capture ended early" rather than "the header is wrong" */
static const uint64_t trunc_events =
    (1ull << EW_EV_LINK_TRUNC) | (1ull << EW_EV_IPV4_TRUNC) | (1ull << EW_EV_IPV6_TRUNC) |
    (1ull << EW_EV_TCP_TRUNC) | (1ull << EW_EV_TCP_OPT_TRUNC) | (1ull << EW_EV_UDP_TRUNC) |
    (1ull << EW_EV_TUNNEL_TRUNC);
static const uint64_t benign_events =
    (1ull << EW_EV_NON_IP) | (1ull << EW_EV_IPV4_FRAGMENT) | (1ull << EW_EV_IPV6_FRAGMENT) |
    (1ull << EW_EV_LINK_UNSUPPORTED) | (1ull << EW_EV_TUNNEL_NON_IP) |
    (1ull << EW_EV_MACSEC_ENCRYPTED); /* not wrong: not read */

/* what one flow says of the capture, added to q */
static void
flow_quality(const struct ew_flow *f, struct ew_quality *q)
{
    int d;

    if (f->key.l4 != EW_L4_TCP)
        return;
    for (d = 0; d < 2; d++)
        q->missed_bytes += f->inf->half[d].missed_bytes;
    if (f->inf->half[0].missed_bytes || f->inf->half[1].missed_bytes)
        q->flows_missed++;
    if (ew_flow_negotiation(f) == EW_NEG_UNSEEN)
        q->flows_midstream++;
}

void
ew_analyzer_quality(const struct ew_analyzer *an, struct ew_quality *q)
{
    struct ew_flow_iter it;
    const struct ew_flow *f;

    *q = an->evicted_quality;
    q->duplicates = an->tot.duplicates;
    q->duplicates_unsure = an->tot.duplicates_unsure;
    ew_flow_iter_start(&it, an->tab, EW_ITER_HELD, 0);
    while ((f = ew_flow_iter_next(&it)) != NULL)
        flow_quality(f, q);
    ew_flow_iter_end(&it);
}

/* a flow leaves the table: keep what it was found to do, then tell the user */
static void
on_evict(void *arg, const struct ew_flow *f)
{
    struct ew_analyzer *an = arg;
    struct ew_conclusion row;
    int k;

    /* concluded once: its kinds kept here, its row and summary handed on */
    ew_conclusion_of(f, 0, 0, an->evict_sum, &row);
    for (k = 0; k < EW_MU_COUNT; k++)
        if (row.kinds & (1u << k))
            an->evicted_findings[k]++;
    flow_quality(f, &an->evicted_quality);
    if (an->user_evict)
        an->user_evict(an->user_evict_arg, f, &row);
    if (an->series)
        ew_series_release(an->series, (struct ew_flow *)(uintptr_t)f);
    ew_qseries_release(&an->qs, (struct ew_flow *)(uintptr_t)f);
    ew_quic_release(an->quic, f);
    ew_tunnel_release(&an->tun, (struct ew_flow *)(uintptr_t)f);
}

int
ew_analyzer_init(struct ew_analyzer *an, const struct ew_analyzer_cfg *cfg)
{
    memset(an, 0, sizeof(*an));
    an->user_evict = cfg->on_evict;
    an->user_evict_arg = cfg->evict_arg;
    an->tab = ew_flowtab_new(cfg->max_flows, cfg->hash_seed, cfg->idle_ns, on_evict, an,
                             &ew_infer_state);
    if (an->tab && cfg->hot_flows && ew_flowtab_set_hot(an->tab, cfg->hot_flows) < 0) {
        ew_flowtab_free(an->tab);
        an->tab = NULL;
    }
    if (an->tab && cfg->on_end)
        ew_flowtab_set_end_cb(an->tab, cfg->on_end, cfg->end_arg);
    /* as many QUIC entries as flow records: a flow gives its entry back on eviction */
    an->quic = an->tab ? ew_quic_pool_new(cfg->max_flows) : NULL;
    an->evict_sum = an->tab ? malloc(sizeof(*an->evict_sum)) : NULL;
    if (an->tab && (!an->quic || !an->evict_sum || ew_tunnel_pool_init(&an->tun, cfg->max_flows) != 0 ||
                    ew_dedupe_init(&an->dedupe, cfg->dup_slots_log2) != 0 ||
                    ew_qseries_pool_init(&an->qs, cfg->max_qseries ? cfg->max_qseries
                                                                   : EW_QS_MAX) != 0)) {
        ew_dedupe_free(&an->dedupe);
        ew_quic_pool_free(an->quic);
        an->quic = NULL;
        ew_tunnel_pool_free(&an->tun);
        free(an->evict_sum);
        an->evict_sum = NULL;
        ew_flowtab_free(an->tab);
        an->tab = NULL;
    }
    return an->tab ? 0 : -1;
}

int
ew_analyzer_pass(const struct ew_analyzer *an, struct ew_conclusions *c, unsigned what,
                 const struct ew_pass_sel *sel)
{
    static const struct ew_pass_sel held = {EW_ITER_HELD, 0, 0};

    return ew_conclusions_build(c, an->tab, &an->qs, what, sel ? sel : &held);
}

uint32_t
ew_analyzer_findings(const struct ew_analyzer *an, const struct ew_conclusions *c,
                     uint64_t counts[EW_MU_MASK_BITS])
{
    uint32_t mask = 0;
    size_t i;
    int k;

    for (k = 0; k < EW_MU_MASK_BITS; k++)
        counts[k] = k < EW_MU_COUNT ? an->evicted_findings[k] : 0;
    for (i = 0; c && i < c->n; i++)
        for (k = 0; k < EW_MU_COUNT; k++)
            if (c->row[i].kinds & (1u << k))
                counts[k]++;
    for (k = 0; k < EW_MU_COUNT; k++)
        if (counts[k])
            mask |= 1u << k;
    return mask;
}

void
ew_analyzer_free(struct ew_analyzer *an)
{
    ew_flowtab_free(an->tab);
    an->tab = NULL;
    ew_quic_pool_free(an->quic);
    an->quic = NULL;
    ew_tunnel_pool_free(&an->tun);
    free(an->evict_sum);
    an->evict_sum = NULL;
    ew_dedupe_free(&an->dedupe);
    ew_qseries_pool_free(&an->qs);
}

/* RFC 1982 serial number arithmetic on 32-bit sequence numbers */
static bool
seq_leq(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) <= 0;
}

enum ew_seg_kind
ew_tcp_seg_kind(struct ew_dir_stats *d, const struct ew_tcp *t)
{
    uint32_t end = t->seq + t->payload;
    enum ew_seg_kind k;

    if (t->flags & EW_TCP_SYN) {
        k = (t->flags & EW_TCP_ACK) ? EW_SEG_SYNACK : EW_SEG_SYN;
        end += 1;
    } else if (t->flags & (EW_TCP_FIN | EW_TCP_RST)) {
        k = EW_SEG_FIN_RST;
        if (t->flags & EW_TCP_FIN)
            end += 1;
    } else if (t->payload > 0) {
        /* all of it sent before: a retransmission (or reordering at the tap) */
        k = (d->have_seq && seq_leq(end, d->seq_max)) ? EW_SEG_RETRANS : EW_SEG_DATA;
    } else if (t->flags & EW_TCP_ACK) {
        k = EW_SEG_PURE_ACK;
    } else {
        k = EW_SEG_OTHER;
    }
    if (!(t->flags & EW_TCP_RST) && (!d->have_seq || !seq_leq(end, d->seq_max))) {
        if (k != EW_SEG_PURE_ACK && k != EW_SEG_OTHER) {
            d->seq_max = end;
            d->have_seq = true;
        }
    }
    return k;
}

static void
record_handshake(struct ew_flow *f, const struct ew_pkt *pkt, uint64_t frame, int dir)
{
    const struct ew_tcp *t = &pkt->u.tcp;
    uint16_t ecnflags = t->flags & (EW_TCP_AE | EW_TCP_CWR | EW_TCP_ECE);
    struct ew_handshake *h = &f->hs;

    if (!(t->flags & EW_TCP_SYN))
        return;
    if (!(t->flags & EW_TCP_ACK)) {
        if (t->acc.present && !h->syn_accecn_option) {
            h->syn_accecn_option = true;
            h->syn_option_frame = frame;
        }
        if (h->syn_count > 0) {
            unsigned a = ew_tcp_ace(h->syn_flags), b = ew_tcp_ace(t->flags);

            if ((a == 3 && b == 7) || (a == 7 && b == 3))
                h->syn_classic_and_accecn = true;
        }
        if (h->syn_count == 0) {
            h->syn_frame = frame;
            h->syn_flags = t->flags;
            h->syn_ecn = (uint8_t)pkt->ecn;
            /* the SYN's sender is the client (simultaneous open aside) */
            if (!f->syn_seen) {
                f->client_dir = (uint8_t)dir;
                f->syn_seen = true;
                f->client_from = EW_CLIENT_SYN;
            }
        } else if ((h->syn_flags & (EW_TCP_AE | EW_TCP_CWR | EW_TCP_ECE)) != ecnflags) {
            h->syn_flags_changed = true;
        }
        if (h->syn_count < UINT16_MAX)
            h->syn_count++;
    } else {
        if (h->synack_count == 0) {
            h->synack_frame = frame;
            h->synack_flags = t->flags;
            h->synack_ecn = (uint8_t)pkt->ecn;
            /* a SYN-ACK goes to the client */
            if (!f->syn_seen) {
                f->client_dir = (uint8_t)(dir ^ 1);
                f->client_from = EW_CLIENT_SYNACK;
            }
        } else if ((h->synack_flags & (EW_TCP_AE | EW_TCP_CWR | EW_TCP_ECE)) != ecnflags) {
            h->synack_flags_changed = true;
        }
        if (h->synack_count < UINT16_MAX)
            h->synack_count++;
    }
    /* the negotiation changes only here: keep what the inference asks on
     * every packet */
    h->neg_accecn = ew_flow_negotiation(f) == EW_NEG_ACCECN;
}

void
ew_analyzer_prepare(const struct ew_analyzer *an, const struct ew_pkt *pkt,
                    struct ew_prepared *pre)
{
    ew_prepare_seeded(ew_analyzer_seed(an), pkt, pre);
}

uint64_t
ew_analyzer_seed(const struct ew_analyzer *an)
{
    return ew_flowtab_seed(an->tab);
}

void
ew_prepare_seeded(uint64_t seed, const struct ew_pkt *pkt, struct ew_prepared *pre)
{
    pre->valid = pkt->status == EW_PKT_OK;
    if (!pre->valid)
        return;
    pre->dir = (uint8_t)ew_flow_key_from_pkt(pkt, &pre->key);
    pre->hash = (uint32_t)ew_flow_hash(&pre->key, seed);
    pre->dup_sig = ew_dedupe_sig(ew_dedupe_flow(&pre->key), pre->dir, pkt, &pre->dup_tells);
}

void
ew_analyzer_prefetch_slot(const struct ew_analyzer *an, const struct ew_prepared *pre)
{
    if (pre->valid) {
        ew_flowtab_prefetch_slot(an->tab, pre->hash);
        __builtin_prefetch(ew_dedupe_slot_of(&an->dedupe, pre->dup_sig), 1);
    }
}

void
ew_analyzer_prefetch_flow(const struct ew_analyzer *an, const struct ew_pkt *pkt,
                          const struct ew_prepared *pre)
{
    /* a TCP packet touches most of the record and its inference state */
    if (pre->valid)
        ew_flowtab_prefetch_flow(an->tab, pre->hash, sizeof(struct ew_flow),
                                 pkt->l4 == EW_L4_TCP);
}

void
ew_analyzer_frame(struct ew_analyzer *an, const struct ew_pkt *pkt, int64_t ts_ns)
{
    ew_analyzer_frame_prepared(an, pkt, ts_ns, NULL);
}

void
ew_analyzer_frame_prepared(struct ew_analyzer *an, const struct ew_pkt *pkt, int64_t ts_ns,
                           const struct ew_prepared *pre)
{
    struct ew_totals *tot = &an->tot;
    uint64_t frame = ++tot->frames;
    struct ew_flow_key key;
    struct ew_flow *f;
    struct ew_dir_stats *d;
    uint64_t sig;
    bool created, tells;
    int dir, ev;

    /* the frame's number in its file when the reader knows it (a filter skips
     * frames), else its position among the frames given */
    if (pkt->frame_no)
        frame = pkt->frame_no;
    if (!an->have_time) {
        an->first_ns = an->last_ns = ts_ns;
        an->have_time = true;
    }
    if (ts_ns < an->first_ns)
        an->first_ns = ts_ns;
    if (ts_ns > an->last_ns)
        an->last_ns = ts_ns;
    if (pkt->events) { /* most frames have none: skip the walk */
        for (ev = 0; ev < EW_EV_COUNT; ev++)
            if (ew_pkt_has_event(pkt, (enum ew_event)ev))
                tot->events[ev]++;
    }
    if (pkt->events & trunc_events)
        tot->truncated++;
    if (pkt->events & ~(trunc_events | benign_events))
        tot->invalid++;

    if (pkt->status == EW_PKT_NON_IP) {
        tot->non_ip++;
        return;
    }
    if (pkt->status != EW_PKT_OK) {
        tot->undecodable++;
        return;
    }
    if (pre && pre->valid) {
        dir = pre->dir;
        f = ew_flowtab_get_hashed(an->tab, &pre->key, pre->hash, ts_ns, &created);
        sig = pre->dup_sig;
        tells = pre->dup_tells;
    } else {
        uint32_t hash;

        dir = ew_flow_key_from_pkt(pkt, &key);
        hash = (uint32_t)ew_flow_hash(&key, ew_flowtab_seed(an->tab));
        f = ew_flowtab_get_hashed(an->tab, &key, hash, ts_ns, &created);
        sig = ew_dedupe_sig(ew_dedupe_flow(&key), dir, pkt, &tells);
    }
    if (created) {
        f->first_frame = frame;
        f->client_dir = (uint8_t)dir; /* until a SYN says otherwise */
        f->client_from = EW_CLIENT_FIRST_PACKET;
        if (pkt->l4 == EW_L4_TCP && !(pkt->u.tcp.flags & EW_TCP_SYN) &&
            pkt->u.tcp.sport != pkt->u.tcp.dport) {
            /* joined mid-flow: the server is the end with the lower port */
            f->client_dir = (uint8_t)(pkt->u.tcp.sport > pkt->u.tcp.dport ? dir : dir ^ 1);
            f->client_from = EW_CLIENT_PORT;
        }
    } else {
        ew_flowtab_touch(an->tab, f);
        /* a copy of a packet already counted is left out of every count
         * (another IP protocol without an identification has nothing to go by) */
        switch (!tells && pkt->l4 == EW_L4_NONE ? EW_DUP_NEW
                                                 : ew_dedupe_check_sig(&an->dedupe, sig, tells, ts_ns)) {
        case EW_DUP_COPY:
            tot->duplicates++;
            f->dir[dir].dups++;
            return;
        case EW_DUP_UNSURE:
            tot->duplicates_unsure++;
            f->dir[dir].dups_unsure++;
            break;
        case EW_DUP_NEW:
            break;
        }
    }
    if (created)
        ew_dedupe_check_sig(&an->dedupe, sig, tells, ts_ns);
    tot->ip_packets++;
    tot->ecn[pkt->ecn]++;
    tot->ecn_bytes[pkt->ecn] += pkt->ip_len;
    f->last_frame = frame;
    f->last_ns = ts_ns;

    d = &f->dir[dir];
    if (d->packets == 0)
        d->first_ecn = (uint8_t)pkt->ecn;
    d->packets++;
    d->bytes += pkt->ip_len;
    d->ecn[pkt->ecn]++;
    if (pkt->l4 == EW_L4_TCP) {
        const struct ew_tcp *t = &pkt->u.tcp;
        enum ew_seg_kind k;

        d->payload_bytes += t->payload;
        if (t->payload > d->max_payload)
            d->max_payload = t->payload;
        if (t->flags & EW_TCP_ECE)
            d->ece++;
        if (t->flags & EW_TCP_CWR)
            d->cwr++;
        if (t->flags & EW_TCP_AE)
            d->ae++;
        k = ew_tcp_seg_kind(d, t);
        f->inf->kind_ecn[dir][k][pkt->ecn]++;
        record_handshake(f, pkt, frame, dir);
        /* the bottleneck series first: an interval this packet ends is
         * closed before the inference gathers the packet into the next */
        ew_qseries_packet(&an->qs, f, dir, pkt, ts_ns);
        ew_infer_tcp(f, pkt, dir, (int)k, frame, ts_ns);
    } else if (pkt->l4 == EW_L4_UDP) {
        d->payload_bytes += pkt->u.udp.payload;
        if (pkt->u.udp.payload > d->max_payload)
            d->max_payload = pkt->u.udp.payload;
        if (pkt->l4_payload_len > 0)
            ew_quic_datagram(an->quic, f, dir, pkt->ecn, pkt->l4_payload,
                             pkt->l4_payload_len, pkt->u.udp.payload, frame);
    }
    if (pkt->n_encap || f->tun) {
        bool had = f->tun != NULL;
        int pair;

        tot->tunnelled += pkt->n_encap != 0;
        pair = ew_tunnel_packet(&an->tun, f, dir, pkt, frame);
        if (pair >= 0)
            tot->tunnel_pair[pair >> 2][pair & 3]++;
        tot->tunnelled_flows += !had && f->tun;
    }
    if (an->series)
        ew_series_packet(an->series, f, dir, pkt, ts_ns);
}
