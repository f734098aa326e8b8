/* fuzz_dissect.c - libFuzzer harness for the frame dissectors.
 *
 * Input: byte 0 selects the link type (modulo EW_LINK_COUNT); byte 1 sets the
 * wire length: 0 gives 0 (a capture that does not say), 1..127 the captured
 * length, 128..255 the captured length plus (byte - 127) * 64 (a frame cut
 * by the snaplen). The rest is the frame, dissected in place: libFuzzer's
 * buffer ends where the frame ends, so any read past it is caught.
 * Invariants of struct ew_pkt that every consumer relies on are checked. */
#include <stdlib.h>

#include "dissectors/dissect.h"
#include "fuzz.h"

static void
check_pkt(const struct ew_pkt *pkt, enum ew_link link, size_t caplen)
{
    unsigned i;

    if (pkt->link != link || pkt->caplen != caplen)
        abort();
    if (pkt->events >> EW_EV_COUNT)
        abort();
    if (pkt->vlan_depth > EW_VLAN_MAX_DEPTH || pkt->ext_count > EW_IPV6_EXT_MAX)
        abort();
    if (pkt->n_encap > EW_TUNNEL_MAX_DEPTH || pkt->tun_next != 0)
        abort();
    for (i = 0; i < pkt->n_encap; i++) {
        const struct ew_encap *e = &pkt->encap[i];

        if (e->type >= EW_TUN_COUNT || (e->family != 0 && e->family != 4 && e->family != 6) ||
            e->ecn > 3 || e->labels > EW_MPLS_MAX_LABELS)
            abort();
    }
    if (pkt->status != EW_PKT_OK) {
        if (pkt->l4 != EW_L4_NONE || pkt->n_encap != 0)
            abort();
        return;
    }
    if ((pkt->family != 4 && pkt->family != 6) || pkt->ecn > 3)
        abort();
    if (pkt->l4 == EW_L4_TCP) {
        if (pkt->u.tcp.doff < 5 || pkt->u.tcp.flags > 0x1ff || pkt->ip_proto != 6)
            abort();
        if (pkt->u.tcp.acc.present && pkt->u.tcp.acc.nfields > 3)
            abort();
    } else if (pkt->l4 == EW_L4_UDP) {
        if (pkt->ip_proto != 17)
            abort();
    }
    if (pkt->l4 != EW_L4_NONE && pkt->later_fragment)
        abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ew_pkt pkt;
    enum ew_link link;
    size_t caplen;
    uint32_t wirelen;

    if (size < 2)
        return 0;
    link = (enum ew_link)(data[0] % EW_LINK_COUNT);
    caplen = size - 2;
    if (data[1] == 0)
        wirelen = 0;
    else if (data[1] < 128)
        wirelen = (uint32_t)caplen;
    else
        wirelen = (uint32_t)caplen + (uint32_t)(data[1] - 127) * 64;
    ew_dissect_frame(link, data + 2, caplen, wirelen, &pkt);
    check_pkt(&pkt, link, caplen);
    return 0;
}
