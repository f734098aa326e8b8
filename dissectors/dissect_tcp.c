/* dissect_tcp.c - TCP header (RFC 9293 §3.1) with all nine flag bits (AE:
 * RFC 9768 §3.1.1), and the options MSS, window scale, SACK-permitted, SACK,
 * timestamps (RFC 2018, RFC 7323) and AccECN (RFC 9768 §3.2.3: kinds 172 and
 * 174, and the experimental kind 254 with ExID 0xACC0 / 0xACC1, RFC 6994). */
#include "dissectors/dissect_tcp.h"

#include "dissectors/ecn.h"

enum {
    TCPOPT_EOL = 0,
    TCPOPT_NOP = 1,
    TCPOPT_MSS = 2,
    TCPOPT_WS = 3,
    TCPOPT_SACKPERM = 4,
    TCPOPT_SACK = 5,
    TCPOPT_TS = 8,
    TCPOPT_ACCECN0 = 172,
    TCPOPT_ACCECN1 = 174,
    TCPOPT_EXP = 254,
    TCP_EXID_ACCECN0 = 0xACC0,
    TCP_EXID_ACCECN1 = 0xACC1,
};

/* AccECN field order: which counter each 24-bit field carries (§3.2.3.1) */
static const enum ew_accecn_field accecn_order[2][3] = {
    {EW_ACC_E0B, EW_ACC_CEB, EW_ACC_E1B}, /* kind 172 / ExID 0xACC0 */
    {EW_ACC_E1B, EW_ACC_CEB, EW_ACC_E0B}, /* kind 174 / ExID 0xACC1 */
};

/* body: the option's bytes after kind and length (and after the ExID for 254).
 * Whole 3-byte fields are read; a partial trailing field is ignored (§3.2.3.1
 * forward compatibility). */
static void
parse_accecn(struct ew_cur *body, uint8_t kind, uint8_t order, uint8_t len, struct ew_tcp *t)
{
    struct ew_accecn_opt *a = &t->acc;
    size_t n = ew_cur_left(body) / 3;
    size_t i;

    if (n > 3)
        n = 3;
    a->present = true;
    a->kind = kind;
    a->order = order;
    a->len = len;
    a->nfields = (uint8_t)n;
    for (i = 0; i < 3; i++)
        a->has[i] = false;
    for (i = 0; i < n; i++) {
        enum ew_accecn_field f = accecn_order[order][i];

        a->val[f] = ew_cur_be24(body);
        a->has[f] = true;
    }
}

static uint16_t
be16_at(const uint8_t *p)
{
    return (uint16_t)(((unsigned)p[0] << 8) | p[1]);
}

static uint32_t
be32_at(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* An experimental option (kind 254, RFC 6994): AccECN when its ExID says
 * so, else nothing read. */
static inline void
option_exp(struct ew_pkt *pkt, uint8_t len, const uint8_t *body, size_t blen)
{
    uint16_t exid;
    struct ew_cur b;

    if (len < 4) {
        ew_pkt_event(pkt, EW_EV_TCP_OPT_BADLEN); /* no room for an ExID (RFC 6994) */
        return;
    }
    exid = be16_at(body);
    if (exid == TCP_EXID_ACCECN0 || exid == TCP_EXID_ACCECN1) {
        ew_cur_init(&b, body + 2, blen - 2);
        parse_accecn(&b, TCPOPT_EXP, exid == TCP_EXID_ACCECN1, len, &pkt->u.tcp);
    }
}

/* One option of the kinds read here, its body (len - 2 = blen bytes) found
 * whole inside both the option space and the capture; a length its kind
 * does not allow is an event, and the option is not read. */
static inline void
option_read(struct ew_pkt *pkt, uint8_t kind, uint8_t len, const uint8_t *body, size_t blen)
{
    struct ew_tcp *t = &pkt->u.tcp;
    struct ew_cur b;

    switch (kind) {
    case TCPOPT_MSS:
        if (len != 4) {
            ew_pkt_event(pkt, EW_EV_TCP_OPT_BADLEN);
            break;
        }
        t->has_mss = true;
        t->mss = be16_at(body);
        break;
    case TCPOPT_WS:
        if (len != 3) {
            ew_pkt_event(pkt, EW_EV_TCP_OPT_BADLEN);
            break;
        }
        t->has_ws = true;
        t->ws = body[0];
        break;
    case TCPOPT_SACKPERM:
        if (len != 2)
            ew_pkt_event(pkt, EW_EV_TCP_OPT_BADLEN);
        else
            t->has_sackperm = true;
        break;
    case TCPOPT_SACK:
        if ((len - 2) % 8 != 0 || len == 2)
            ew_pkt_event(pkt, EW_EV_TCP_OPT_BADLEN);
        else
            t->sack_blocks = (uint8_t)((len - 2) / 8);
        break;
    case TCPOPT_TS:
        if (len != 10) {
            ew_pkt_event(pkt, EW_EV_TCP_OPT_BADLEN);
            break;
        }
        t->has_ts = true;
        t->tsval = be32_at(body);
        t->tsecr = be32_at(body + 4);
        break;
    case TCPOPT_ACCECN0:
    case TCPOPT_ACCECN1:
        ew_cur_init(&b, body, blen);
        parse_accecn(&b, kind, kind == TCPOPT_ACCECN1, len, t);
        break;
    case TCPOPT_EXP:
        option_exp(pkt, len, body, blen);
        break;
    default:
        break;
    }
}

/* Linux starts nearly every segment's options with NOP, NOP, timestamps:
 * taken at once, the same as three turns of the walk in parse_options.
 * true when they were there (p is then past them). */
static inline bool
linux_ts_prefix(struct ew_tcp *t, const uint8_t **p, const uint8_t *end, size_t space)
{
    const uint8_t *q = *p;

    if (space < 12 || end - q < 12 || q[0] != TCPOPT_NOP || q[1] != TCPOPT_NOP ||
        q[2] != TCPOPT_TS || q[3] != 10)
        return false;
    t->has_ts = true;
    t->tsval = be32_at(q + 4);
    t->tsecr = be32_at(q + 8);
    *p = q + 12;
    return true;
}

/* Walk the option space. `captured_all` says whether the whole option space
 * was captured, so that running out can be told apart: truncated by the
 * snaplen, or an option that overruns the space (invalid). Every read is
 * checked against the end of the cursor first; an option's body is read in
 * place once its whole length has been found inside. */
static void
parse_options(struct ew_cur *o, size_t space, bool captured_all, struct ew_pkt *pkt)
{
    const uint8_t *start = o->p, *p = o->p, *end = o->end;
    unsigned guard = linux_ts_prefix(&pkt->u.tcp, &p, end, space) ? 3 : 0;

    while (p < end && guard++ < 40) {
        uint8_t kind = *p++;
        uint8_t len;
        size_t blen;

        if (kind == TCPOPT_EOL)
            return;
        if (kind == TCPOPT_NOP)
            continue;
        if (p == end) {
            ew_pkt_event(pkt, captured_all ? EW_EV_TCP_OPT_OVERRUN : EW_EV_TCP_OPT_TRUNC);
            return;
        }
        len = *p++;
        if (len < 2) {
            ew_pkt_event(pkt, EW_EV_TCP_OPT_BADLEN);
            return;
        }
        blen = (size_t)len - 2;
        /* longer than the option space the data offset declares: invalid,
         * whatever the capture holds */
        if (blen > space - (size_t)(p - start)) {
            ew_pkt_event(pkt, EW_EV_TCP_OPT_OVERRUN);
            return;
        }
        if ((size_t)(end - p) < blen) {
            ew_pkt_event(pkt, captured_all ? EW_EV_TCP_OPT_OVERRUN : EW_EV_TCP_OPT_TRUNC);
            return;
        }
        option_read(pkt, kind, len, p, blen);
        p += blen;
    }
}

void
ew_dissect_tcp(struct ew_cur *c, uint32_t seglen, struct ew_pkt *pkt, const uint8_t *fs)
{
    struct ew_tcp *t = &pkt->u.tcp;
    const uint8_t *start = c->p;
    uint8_t offb, flb;
    uint32_t hlen;
    struct ew_cur o;
    bool whole;

    if (seglen < 20) {
        ew_pkt_event(pkt, EW_EV_TCP_SHORT);
        return;
    }
    if (ew_cur_has(c, 20)) {
        /* the fixed header was captured: read it in place, once checked */
        const uint8_t *h = c->p;

        t->sport = be16_at(h);
        t->dport = be16_at(h + 2);
        t->seq = be32_at(h + 4);
        t->ack = be32_at(h + 8);
        offb = h[12];
        flb = h[13];
        t->window = be16_at(h + 14);
        t->csum = be16_at(h + 16);
        c->p += 20;
    } else {
        t->sport = ew_cur_be16(c);
        t->dport = ew_cur_be16(c);
        t->seq = ew_cur_be32(c);
        t->ack = ew_cur_be32(c);
        offb = ew_cur_u8(c);
        flb = ew_cur_u8(c);
        t->window = ew_cur_be16(c);
        t->csum = ew_cur_be16(c);
        ew_cur_skip(c, 2); /* urgent pointer */
    }
    if (c->trunc) {
        ew_pkt_event(pkt, EW_EV_TCP_TRUNC);
        return;
    }
    t->doff = (uint8_t)(offb >> 4);
    t->flags = (uint16_t)(((offb & 0x01u) << 8) | flb);
    hlen = (uint32_t)t->doff * 4;
    if (hlen < 20) {
        ew_pkt_event(pkt, EW_EV_TCP_DOFF_SMALL);
        return;
    }
    if (hlen > seglen) {
        ew_pkt_event(pkt, EW_EV_TCP_DOFF_PAST_END);
        return;
    }
    whole = ew_cur_sub(c, hlen - 20, &o);
    t->opts_complete = whole;
    if (!whole)
        ew_pkt_event(pkt, EW_EV_TCP_OPT_TRUNC);
    parse_options(&o, hlen - 20, whole, pkt);
    t->payload = seglen - hlen;
    pkt->l4 = EW_L4_TCP;
    pkt->l4_end = (uint32_t)(start - fs) + hlen;
}

void
ew_dissect_udp(struct ew_cur *c, uint32_t seglen, struct ew_pkt *pkt, const uint8_t *fs)
{
    struct ew_udp *u = &pkt->u.udp;
    const uint8_t *start = c->p;

    if (seglen < 8) {
        ew_pkt_event(pkt, EW_EV_UDP_LEN_BAD);
        return;
    }
    u->sport = ew_cur_be16(c);
    u->dport = ew_cur_be16(c);
    u->len = ew_cur_be16(c);
    u->csum = ew_cur_be16(c);
    if (c->trunc) {
        ew_pkt_event(pkt, EW_EV_UDP_TRUNC);
        return;
    }
    if (u->len < 8 || u->len > seglen) {
        ew_pkt_event(pkt, EW_EV_UDP_LEN_BAD);
        u->payload = seglen - 8;
    } else {
        u->payload = (uint32_t)u->len - 8;
    }
    pkt->l4 = EW_L4_UDP;
    pkt->l4_end = (uint32_t)(start - fs) + 8;
    /* borrowed (pkt.h): what was captured of the payload, within the UDP length */
    pkt->l4_payload = c->p;
    pkt->l4_payload_len = ew_cur_left(c) < u->payload ? (uint32_t)ew_cur_left(c) : u->payload;
}
