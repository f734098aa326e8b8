/* pathcmp.c - match packets across captures and localise ECN changes
 * (see pathcmp.h). Transitions are named after RFC 3168 §18 and RFC 9768
 * §3.2.2.3: ECT->Not-ECT bleaching, ECT(0)<->ECT(1) remarking, CE->other
 * erasing a mark, Not-ECT->CE/ECT falsely claiming ECN, ECT->CE marking.
 * ECT(0)->ECT(1) on a flow whose receiver echoes ESCE is SCE marking
 * (draft-morton-tsvwg-sce: an SCE AQM turns ECT(0) into ECT(1)), by the same
 * rule as the single-capture verdict (infer.c), not remarking. */
#include "findings/pathcmp.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "flow/tunrec.h"
#include "dissectors/ecn.h"
#include "findings/conclusions.h"
#include "flow/flowtab.h"
#include "infer/infer.h"
#include "findings/misuse.h"

struct ix_entry {
    uint64_t sig;   /* 0 = empty slot */
    uint64_t frame;
    uint8_t ecn; /* enum ew_ecn */
    uint8_t outer; /* tunnelled here: the outer header's enum ew_ecn + 1 (tunrec.h); 0: not */
    bool matched;
};

struct ew_index {
    struct ix_entry *slot;
    uint64_t mask;
    uint32_t max, count;
    uint64_t not_indexed;
};

struct group {
    struct ew_flow_key key;
    uint8_t dir; /* canonical direction */
    uint8_t from, to;
    uint8_t outer; /* packets that left a tunnel between the points: the outer codepoint + 1 */
    bool used;
    bool sce;    /* ECT(0) -> ECT(1) on a flow whose receiver echoes ESCE: SCE marking */
    uint64_t count;
    uint64_t first_up, first_down;
    uint32_t hash;
};

struct pair {
    uint64_t up, down;
    uint16_t group;
};

struct ew_hop {
    int from_capture, to_capture;
    uint64_t matched, unmatched_down, unmatched_up, not_indexed;
    uint64_t unchanged;
    struct group groups[EW_PATH_MAX_GROUPS];
    uint32_t ngroups;
    uint64_t groups_dropped; /* changes in groups beyond the cap */
    struct pair *pairs;
    uint32_t npairs;
    uint64_t pairs_dropped;
};

static uint64_t
mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
}

/* what identifies one packet at every capture point: never the ECN field,
 * TTL, checksums or the TCP ECN flags, which the path may change */
static uint64_t
signature(const struct ew_pkt *pkt, const uint8_t *payload, size_t plen)
{
    uint64_t h = 0x5bd1e9955bd1e995ULL;
    size_t i;

    h = mix(h, pkt->family);
    h = mix(h, pkt->ip_proto);
    for (i = 0; i < 16; i += 8) {
        uint64_t a, b;

        memcpy(&a, pkt->src + i, 8);
        memcpy(&b, pkt->dst + i, 8);
        h = mix(h, a);
        h = mix(h, b);
    }
    h = mix(h, pkt->ip_id);
    h = mix(h, pkt->ip_len);
    if (pkt->l4 == EW_L4_TCP) {
        h = mix(h, ((uint64_t)pkt->u.tcp.sport << 16) | pkt->u.tcp.dport);
        h = mix(h, ((uint64_t)pkt->u.tcp.seq << 32) | pkt->u.tcp.ack);
        h = mix(h, pkt->u.tcp.flags & (EW_TCP_SYN | EW_TCP_FIN | EW_TCP_RST | EW_TCP_ACK));
        if (pkt->u.tcp.has_ts)
            h = mix(h, pkt->u.tcp.tsval);
    } else if (pkt->l4 == EW_L4_UDP) {
        h = mix(h, ((uint64_t)pkt->u.udp.sport << 16) | pkt->u.udp.dport);
    }
    /* a few payload bytes tell apart packets that share every header field */
    if (pkt->family == 6 || pkt->l4 != EW_L4_TCP) {
        for (i = 0; i < plen && i < 16; i++)
            h = mix(h, payload[i]);
    }
    return h ? h : 1;
}

struct ew_index *
ew_index_new(uint32_t max_index)
{
    struct ew_index *ix = calloc(1, sizeof(*ix));
    uint64_t n = 16;

    if (!ix)
        return NULL;
    while (n < 2ull * max_index)
        n <<= 1;
    ix->slot = calloc((size_t)n, sizeof(*ix->slot));
    if (!ix->slot) {
        free(ix);
        return NULL;
    }
    ix->mask = n - 1;
    ix->max = max_index;
    return ix;
}

void
ew_index_free(struct ew_index *ix)
{
    if (!ix)
        return;
    free(ix->slot);
    free(ix);
}

void
ew_index_add(struct ew_index *ix, const struct ew_pkt *pkt, const uint8_t *payload, size_t plen,
             uint64_t frame)
{
    uint64_t sig, i;

    if (pkt->status != EW_PKT_OK)
        return;
    if (ix->count >= ix->max) {
        ix->not_indexed++;
        return;
    }
    sig = signature(pkt, payload, plen);
    i = sig & ix->mask;
    while (ix->slot[i].sig)
        i = (i + 1) & ix->mask;
    ix->slot[i].sig = sig;
    ix->slot[i].frame = frame;
    ix->slot[i].ecn = (uint8_t)pkt->ecn;
    ix->slot[i].outer = 0;
    {
        int e = ew_tunnel_rfc6040_layer(pkt->encap, pkt->n_encap);

        if (e >= 0)
            ix->slot[i].outer = (uint8_t)(pkt->encap[e].ecn + 1);
    }
    ix->count++;
}

struct ew_hop *
ew_hop_new(int from_capture, int to_capture)
{
    struct ew_hop *hop = calloc(1, sizeof(*hop));

    if (!hop)
        return NULL;
    hop->pairs = calloc(EW_PATH_MAX_PAIRS, sizeof(*hop->pairs));
    if (!hop->pairs) {
        free(hop);
        return NULL;
    }
    hop->from_capture = from_capture;
    hop->to_capture = to_capture;
    return hop;
}

void
ew_hop_free(struct ew_hop *hop)
{
    if (!hop)
        return;
    free(hop->pairs);
    free(hop);
}

static struct group *
find_group(struct ew_hop *hop, const struct ew_flow_key *k, int dir, enum ew_ecn from, enum ew_ecn to,
           uint8_t outer, uint16_t *gi)
{
    uint32_t h = (uint32_t)ew_flow_hash(k, 0) ^ (uint32_t)(outer << 5 | dir << 4 | from << 2 | to);
    uint32_t i;

    /* groups are few (a flow and direction per transition): a scan is enough */
    for (i = 0; i < hop->ngroups; i++) {
        struct group *g = &hop->groups[i];

        if (g->hash == h && g->dir == dir && g->from == from && g->to == to && g->outer == outer &&
            memcmp(&g->key, k, sizeof(*k)) == 0) {
            *gi = (uint16_t)i;
            return g;
        }
    }
    if (hop->ngroups >= EW_PATH_MAX_GROUPS)
        return NULL;
    *gi = (uint16_t)hop->ngroups;
    hop->groups[hop->ngroups].key = *k;
    hop->groups[hop->ngroups].dir = (uint8_t)dir;
    hop->groups[hop->ngroups].from = from;
    hop->groups[hop->ngroups].to = to;
    hop->groups[hop->ngroups].outer = outer;
    hop->groups[hop->ngroups].hash = h;
    hop->groups[hop->ngroups].used = true;
    return &hop->groups[hop->ngroups++];
}

/* What a tunnel egress writes into a packet from its outer and inner
 * codepoints (RFC 6040 §4.2, Figure 4), or -1 where it must drop it. */
static int
rfc6040_egress(unsigned outer, unsigned inner)
{
    if (inner == EW_ECN_NOT_ECT)
        return outer == EW_ECN_CE ? -1 : EW_ECN_NOT_ECT;
    if (inner == EW_ECN_CE || outer == EW_ECN_CE)
        return EW_ECN_CE;
    if (outer == EW_ECN_ECT_1)
        return EW_ECN_ECT_1;
    return (int)inner;
}

void
ew_hop_match(struct ew_hop *hop, struct ew_index *up, const struct ew_pkt *pkt,
             const uint8_t *payload, size_t plen, uint64_t frame)
{
    uint8_t outer;
    uint64_t sig, i;
    struct ix_entry *e = NULL;

    if (pkt->status != EW_PKT_OK)
        return;
    sig = signature(pkt, payload, plen);
    for (i = sig & up->mask; up->slot[i].sig; i = (i + 1) & up->mask) {
        if (up->slot[i].sig == sig && !up->slot[i].matched) {
            e = &up->slot[i];
            break;
        }
    }
    if (!e) {
        hop->unmatched_down++;
        return;
    }
    e->matched = true;
    hop->matched++;
    /* tunnelled upstream and not downstream: it left the tunnel between the
     * two points, and its codepoint is the egress's, from both headers */
    outer = e->outer && ew_tunnel_ecn_layer(pkt->encap, pkt->n_encap) < 0 ? e->outer : 0;
    if (e->ecn == pkt->ecn && (!outer || rfc6040_egress(outer - 1, e->ecn) == (int)pkt->ecn)) {
        hop->unchanged++;
    } else {
        struct ew_flow_key k;
        int dir = ew_flow_key_from_pkt(pkt, &k);
        uint16_t gi = 0;
        struct group *g = find_group(hop, &k, dir, e->ecn, pkt->ecn, outer, &gi);

        if (!g) {
            hop->groups_dropped++;
            return;
        }
        if (g->count++ == 0) {
            g->first_up = e->frame;
            g->first_down = frame;
        }
        if (hop->npairs < EW_PATH_MAX_PAIRS) {
            hop->pairs[hop->npairs].up = e->frame;
            hop->pairs[hop->npairs].down = frame;
            hop->pairs[hop->npairs].group = gi;
            hop->npairs++;
        } else {
            hop->pairs_dropped++;
        }
    }
}

void
ew_hop_finish(struct ew_hop *hop, const struct ew_index *up)
{
    uint64_t i;

    hop->unmatched_up = 0;
    for (i = 0; i <= up->mask; i++)
        if (up->slot[i].sig && !up->slot[i].matched)
            hop->unmatched_up++;
    hop->not_indexed = up->not_indexed;
}

/* the misuse kind of a transition, or -1 for congestion marking (ECT -> CE,
 * and SCE's ECT(0) -> ECT(1)) */
static int
transition_kind(enum ew_ecn from, enum ew_ecn to, bool sce)
{
    if (sce && from == EW_ECN_ECT_0 && to == EW_ECN_ECT_1)
        return -1;
    if (from == EW_ECN_CE)
        return EW_MU_CE_UNMARKED;
    if (ew_ecn_is_ect(from) && to == EW_ECN_NOT_ECT)
        return EW_MU_BLEACHING;
    if (ew_ecn_is_ect(from) && ew_ecn_is_ect(to))
        return EW_MU_REMARKING;
    if (from == EW_ECN_NOT_ECT && to == EW_ECN_CE)
        return EW_MU_CE_ON_NOT_ECT;
    if (from == EW_ECN_NOT_ECT)
        return EW_MU_ECT_ON_NOT_ECT;
    return -1;
}

/* the same for a packet that left a tunnel between the two points, with
 * its upstream outer codepoint + 1: the egress did as RFC 6040 says (its
 * outer mark carried inward: -1), or not */
static int
group_kind(const struct group *g)
{
    if (!g->outer)
        return transition_kind(g->from, g->to, g->sce);
    return rfc6040_egress(g->outer - 1u, g->from) == (int)g->to ? -1 : EW_MU_TUNNEL_DECAP_VIOLATION;
}

static const char *
group_meaning(const struct group *g, const char *plain)
{
    int want;

    if (!g->outer)
        return plain;
    want = rfc6040_egress(g->outer - 1u, g->from);
    if (want < 0)
        return "left the tunnel though its outer header was CE over a Not-ECT packet: the egress "
               "must drop it, and the congestion signal is lost";
    if (want == (int)g->to)
        return "the tunnel egress carried the outer header's mark inward";
    if (want == EW_ECN_CE)
        return "the tunnel egress dropped the outer header's CE: a congestion mark lost";
    if (want == EW_ECN_ECT_1)
        return "the tunnel egress dropped the outer header's ECT(1)";
    return "the tunnel egress wrote another codepoint than RFC 6040 gives for its outer and inner "
           "headers";
}

static const char *
transition_meaning(enum ew_ecn from, enum ew_ecn to, bool sce)
{
    if (sce && from == EW_ECN_ECT_0 && to == EW_ECN_ECT_1)
        return "ECT(0) turned ECT(1) on a flow whose receiver echoes ESCE: SCE marking";
    switch (transition_kind(from, to, false)) {
    case EW_MU_CE_UNMARKED:
        return "a congestion mark erased";
    case EW_MU_BLEACHING:
        return "ECN capability cleared (bleaching)";
    case EW_MU_REMARKING:
        return from == EW_ECN_ECT_0 ? "ECT(0) turned ECT(1): SCE-style marking, or a remark into "
                                      "the L4S queue"
                                    : "ECT(1) turned ECT(0): the L4S identifier lost";
    case EW_MU_CE_ON_NOT_ECT:
        return "a packet that is not ECN-capable marked CE";
    case EW_MU_ECT_ON_NOT_ECT:
        return "a packet that is not ECN-capable made to look ECN-capable";
    default:
        return "congestion marking";
    }
}

void
ew_hop_judge_sce(struct ew_hop *hop, const struct ew_conclusions *c)
{
    struct ew_flow_room *room;
    size_t i;
    uint32_t g, cand = 0;

    for (g = 0; g < hop->ngroups; g++) {
        hop->groups[g].sce = false;
        if (hop->groups[g].from == EW_ECN_ECT_0 && hop->groups[g].to == EW_ECN_ECT_1 &&
            hop->groups[g].key.l4 == EW_L4_TCP)
            cand++;
    }
    if (!cand || !c || c->nomem)
        return;
    room = malloc(sizeof(*room));
    if (!room)
        return; /* out of memory: every ECT(0) -> ECT(1) stays remarking */
    for (i = 0; i < c->n; i++) {
        const struct ew_conclusion *r = &c->row[i];
        const struct ew_flow *f = ew_flowtab_view(c->tab, r->ref, room);

        if (f->key.l4 != EW_L4_TCP)
            continue;
        for (g = 0; g < hop->ngroups; g++) {
            struct group *gr = &hop->groups[g];

            /* the flow as the single-capture report concludes it: its
             * direction gets SCE marking and echoes it (feedback SCE, or
             * ECT(1) read as SCE) */
            if (gr->from == EW_ECN_ECT_0 && gr->to == EW_ECN_ECT_1 &&
                memcmp(&gr->key, &f->key, sizeof(f->key)) == 0 &&
                (r->ect1[gr->dir] == EW_ECT1_SCE || r->fb[gr->dir] == EW_FB_SCE))
                gr->sce = true;
        }
    }
    free(room);
}

uint32_t
ew_hop_kinds(const struct ew_hop *hop, uint64_t counts[EW_MU_MASK_BITS])
{
    uint32_t mask = 0, i;

    for (i = 0; i < hop->ngroups; i++) {
        int k = group_kind(&hop->groups[i]);

        /* SCE marking (ew_hop_judge_sce) is listed among the changes, but is
         * no misuse */
        if (k < 0)
            continue;
        mask |= 1u << k;
        counts[k] += hop->groups[i].count;
    }
    return mask;
}

void
ew_hop_counts(const struct ew_hop *hop, struct ew_hop_counts *c)
{
    c->from_capture = hop->from_capture;
    c->to_capture = hop->to_capture;
    c->matched = hop->matched;
    c->unchanged = hop->unchanged;
    c->only_upstream = hop->unmatched_up;
    c->only_downstream = hop->unmatched_down;
    c->not_indexed = hop->not_indexed;
    c->not_listed = hop->pairs_dropped + hop->groups_dropped;
}

uint32_t
ew_hop_nchanges(const struct ew_hop *hop)
{
    return hop->ngroups;
}

void
ew_hop_change(const struct ew_hop *hop, uint32_t i, struct ew_hop_change *c)
{
    const struct group *g = &hop->groups[i];
    bool lo_hi = g->dir == EW_DIR_LO_HI;

    c->family = g->key.family;
    c->l4 = g->key.l4;
    memcpy(c->src, lo_hi ? g->key.lo : g->key.hi, sizeof(c->src));
    memcpy(c->dst, lo_hi ? g->key.hi : g->key.lo, sizeof(c->dst));
    c->sport = lo_hi ? g->key.port_lo : g->key.port_hi;
    c->dport = lo_hi ? g->key.port_hi : g->key.port_lo;
    c->from = g->from;
    c->to = g->to;
    c->outer = g->outer;
    c->meaning = group_meaning(g, transition_meaning(g->from, g->to, g->sce));
    c->misuse = group_kind(g);
    c->count = g->count;
    c->first_up = g->first_up;
    c->first_down = g->first_down;
}

int
ew_hop_frames(const struct ew_hop *hop, struct ew_hop_frames *fr)
{
    uint32_t g, j;

    fr->pair = malloc((hop->npairs ? hop->npairs : 1) * sizeof(*fr->pair));
    fr->first = calloc((size_t)hop->ngroups + 1, sizeof(*fr->first));
    if (!fr->pair || !fr->first) {
        ew_hop_frames_free(fr);
        return -1;
    }
    /* a counting sort, stable: first[g] becomes where change g's pairs
     * start, then, as they are placed, where the next change's start */
    for (j = 0; j < hop->npairs; j++)
        fr->first[hop->pairs[j].group + 1]++;
    for (g = 0; g < hop->ngroups; g++)
        fr->first[g + 1] += fr->first[g];
    for (j = 0; j < hop->npairs; j++) {
        uint32_t k = fr->first[hop->pairs[j].group]++;

        fr->pair[k][0] = hop->pairs[j].up;
        fr->pair[k][1] = hop->pairs[j].down;
    }
    for (g = hop->ngroups; g > 0; g--)
        fr->first[g] = fr->first[g - 1];
    fr->first[0] = 0;
    return 0;
}

void
ew_hop_frames_free(struct ew_hop_frames *fr)
{
    free(fr->pair);
    free(fr->first);
    fr->pair = NULL;
    fr->first = NULL;
}
