/* dedupe.c - the same packet captured twice (dedupe.h) */
#include "flow/dedupe.h"

#include <stdbool.h>
#include <stdlib.h>

int
ew_dedupe_init(struct ew_dedupe *d, unsigned slots_log2)
{
    if (slots_log2 == 0 || slots_log2 > EW_DUP_SLOTS_LOG2)
        slots_log2 = EW_DUP_SLOTS_LOG2;
    d->mask = (1u << slots_log2) - 1;
    d->slot = calloc((size_t)d->mask + 1, sizeof(*d->slot));
    return d->slot ? 0 : -1;
}

void
ew_dedupe_free(struct ew_dedupe *d)
{
    free(d->slot);
    d->slot = NULL;
}

/* words into the signature: a multiply and a rotation each, one final mix
 * (MurmurHash3's 64-bit finaliser) */
static inline uint64_t
take(uint64_t h, uint64_t v)
{
    h ^= v * 0x9e3779b97f4a7c15ull;
    return (h << 27 | h >> 37) * 0xc2b2ae3d27d4eb4full;
}

static inline uint64_t
finish(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

uint64_t
ew_dedupe_sig(uint64_t flow, int dir, const struct ew_pkt *pkt, bool *tells)
{
    uint64_t h = take(flow << 16 | (uint64_t)dir << 8 | pkt->ip_proto,
                      (uint64_t)pkt->ip_id << 32 | pkt->ip_len);

    if (pkt->l4 == EW_L4_TCP) {
        const struct ew_tcp *t = &pkt->u.tcp;

        h = take(h, (uint64_t)t->seq << 32 | t->ack);
        h = take(h, (uint64_t)t->csum << 48 | (uint64_t)t->flags << 32 | t->window);
        if (t->has_ts)
            h = take(h, (uint64_t)t->tsval << 32 | t->tsecr);
        *tells = (pkt->family == 4 && pkt->ip_id != 0) || t->has_ts;
    } else if (pkt->l4 == EW_L4_UDP) {
        h = take(h, (uint64_t)pkt->u.udp.csum << 32 | pkt->u.udp.len);
        /* a datagram's checksum covers its payload: equal ones within the
         * window are one datagram twice (IPv4 may leave it 0) */
        *tells = (pkt->family == 4 && pkt->ip_id != 0) || pkt->u.udp.csum != 0;
    } else {
        *tells = pkt->family == 4 && pkt->ip_id != 0;
    }
    return finish(h);
}

enum ew_dup
ew_dedupe_check_sig(struct ew_dedupe *d, uint64_t sig, bool tells, int64_t ts)
{
    struct ew_dup_slot *s;
    uint32_t hi = (uint32_t)(sig >> 32), t = (uint32_t)((uint64_t)ts / 1000);

    if (!d->slot)
        return EW_DUP_NEW;
    s = &d->slot[sig & d->mask];
    /* t - s->t as unsigned: time gone backwards is far, not near */
    if (s->sig == hi && s->t != 0 && t - s->t < EW_DUP_WINDOW_NS / 1000) {
        s->t = t ? t : 1;
        return tells ? EW_DUP_COPY : EW_DUP_UNSURE;
    }
    s->sig = hi;
    s->t = t ? t : 1;
    return EW_DUP_NEW;
}

enum ew_dup
ew_dedupe_check(struct ew_dedupe *d, uint64_t flow, int dir, const struct ew_pkt *pkt, int64_t ts)
{
    bool tells;
    uint64_t sig = ew_dedupe_sig(flow, dir, pkt, &tells);

    /* another IP protocol without an identification: nothing to go by, and
     * no transport to count */
    if (!tells && pkt->l4 != EW_L4_TCP && pkt->l4 != EW_L4_UDP)
        return EW_DUP_NEW;
    return ew_dedupe_check_sig(d, sig, tells, ts);
}
