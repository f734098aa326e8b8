/* dedupe.c - the same packet captured twice (dedupe.h) */
#include "ecnwatch/dedupe.h"

#include <stdbool.h>
#include <stdlib.h>

int
ew_dedupe_init(struct ew_dedupe *d)
{
    d->mask = (1u << EW_DUP_SLOTS_LOG2) - 1;
    d->slot = calloc((size_t)d->mask + 1, sizeof(*d->slot));
    return d->slot ? 0 : -1;
}

void
ew_dedupe_free(struct ew_dedupe *d)
{
    free(d->slot);
    d->slot = NULL;
}

/* one 64-bit word into the hash (the finaliser of MurmurHash3's 64-bit mix) */
static uint64_t
mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

enum ew_dup
ew_dedupe_check(struct ew_dedupe *d, uint64_t flow_id, int dir, const struct ew_pkt *pkt,
                int64_t ts)
{
    uint64_t sig = mix(flow_id, (uint64_t)dir << 32 | pkt->ip_proto);
    bool tells; /* the packet carries something a resend would change */
    struct ew_dup_slot *s;

    sig = mix(sig, (uint64_t)pkt->ip_id << 32 | pkt->ip_len);
    if (pkt->l4 == EW_L4_TCP) {
        const struct ew_tcp *t = &pkt->u.tcp;

        sig = mix(sig, (uint64_t)t->seq << 32 | t->ack);
        sig = mix(sig, (uint64_t)t->flags << 48 | (uint64_t)t->window << 32 | t->payload);
        sig = mix(sig, (uint64_t)t->csum << 32 | t->has_ts);
        if (t->has_ts)
            sig = mix(sig, (uint64_t)t->tsval << 32 | t->tsecr);
        tells = (pkt->family == 4 && pkt->ip_id != 0) || t->has_ts;
    } else if (pkt->l4 == EW_L4_UDP) {
        sig = mix(sig, (uint64_t)pkt->u.udp.csum << 32 | pkt->u.udp.len);
        /* a datagram's checksum covers its payload: equal ones within the
         * window are one datagram twice (IPv4 may leave it 0) */
        tells = (pkt->family == 4 && pkt->ip_id != 0) || pkt->u.udp.csum != 0;
    } else {
        tells = pkt->family == 4 && pkt->ip_id != 0;
        if (!tells)
            return EW_DUP_NEW; /* nothing to go by, and no transport to count */
    }
    if (!d->slot)
        return EW_DUP_NEW;
    s = &d->slot[sig & d->mask];
    if (s->sig == sig && ts >= s->ts && ts - s->ts <= EW_DUP_WINDOW_NS) {
        s->ts = ts;
        return tells ? EW_DUP_COPY : EW_DUP_UNSURE;
    }
    s->sig = sig;
    s->ts = ts;
    return EW_DUP_NEW;
}
