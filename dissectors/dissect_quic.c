/* dissect_quic.c - QUIC packet headers and the frames of a decrypted
 * payload (see dissect_quic.h). Facts: RFC 9000 (transport), RFC 8999
 * (invariants), RFC 9369 (version 2). */
#include "dissectors/dissect_quic.h"

#include <string.h>

const char *const ew_quic_ptype_name[EW_QP_COUNT] = {
    [EW_QP_INITIAL] = "initial", [EW_QP_0RTT] = "0rtt",  [EW_QP_HANDSHAKE] = "handshake",
    [EW_QP_RETRY] = "retry",     [EW_QP_VN] = "version_negotiation", [EW_QP_SHORT] = "short",
};

/* RFC 9000 §17.2 Table 5; RFC 9369 §3.2 */
static enum ew_quic_ptype
long_type(uint32_t version, unsigned bits)
{
    static const enum ew_quic_ptype v1[4] = {EW_QP_INITIAL, EW_QP_0RTT, EW_QP_HANDSHAKE,
                                             EW_QP_RETRY};
    static const enum ew_quic_ptype v2[4] = {EW_QP_RETRY, EW_QP_INITIAL, EW_QP_0RTT,
                                             EW_QP_HANDSHAKE};

    return version == EW_QUIC_V2 ? v2[bits & 3] : v1[bits & 3];
}

bool
ew_quic_varint(struct ew_cur *c, uint64_t *v)
{
    uint8_t b;
    size_t n, i;

    *v = 0;
    if (!ew_cur_peek_u8(c, &b)) {
        c->trunc = true;
        return false;
    }
    n = (size_t)1 << (b >> 6);
    if (!ew_cur_has(c, n)) {
        c->trunc = true;
        c->p = c->end;
        return false;
    }
    *v = b & 0x3f;
    for (i = 1; i < n; i++)
        *v = (*v << 8) | c->p[i];
    c->p += n;
    return true;
}

/* copy a connection ID of len bytes (keeping at most EW_QUIC_CID_MAX) */
static bool
read_cid(struct ew_cur *c, uint8_t len, uint8_t *dst)
{
    size_t keep = len < EW_QUIC_CID_MAX ? len : EW_QUIC_CID_MAX;

    if (!ew_cur_has(c, len)) {
        c->trunc = true;
        c->p = c->end;
        return false;
    }
    memcpy(dst, c->p, keep);
    c->p += len;
    return true;
}

bool
ew_quic_version_family(uint32_t v)
{
    return ew_quic_known_version(v) || (v & 0xffffff00u) == 0xff000000u ||
           (v & 0x0f0f0f0fu) == 0x0a0a0a0au || (v & 0xffff0000u) == 0x51300000u ||
           (v & 0xffff0000u) == 0x54300000u || (v & 0xfffffff0u) == 0xfaceb000u;
}

/* Version Negotiation (RFC 9000 §17.2.1, RFC 8999 §6), the cursor after the
 * DCID length: the CIDs, then Supported Versions, 32 bits each, filling the
 * datagram; checked as ew_quic_parse_header() says */
static enum ew_quic_hdr_result
parse_vn(struct ew_cur *c, const uint8_t *buf, size_t claimed, bool known_quic,
         struct ew_quic_hdr *h)
{
    size_t off, rest, i;
    bool family = false;
    uint32_t v;

    if (!known_quic && h->dcid_len > EW_QUIC_CID_MAX)
        return EW_QH_NOT_QUIC;
    if (!read_cid(c, h->dcid_len, h->dcid))
        return EW_QH_TRUNC;
    h->scid_len = ew_cur_u8(c);
    if (c->trunc)
        return EW_QH_TRUNC;
    if (!known_quic && h->scid_len > EW_QUIC_CID_MAX)
        return EW_QH_NOT_QUIC;
    if (!read_cid(c, h->scid_len, h->scid))
        return EW_QH_TRUNC;
    off = (size_t)(c->p - buf);
    rest = claimed - off;
    if (rest < 4 || rest % 4 != 0)
        return EW_QH_NOT_QUIC;
    h->vn_listed = rest / 4 > UINT32_MAX ? UINT32_MAX : (uint32_t)(rest / 4);
    /* the versions as far as captured; a listed 0 is no version (§15) */
    for (i = 0; ew_cur_has(c, 4); i++) {
        v = ew_cur_be32(c);
        if (v == 0 && !known_quic)
            return EW_QH_NOT_QUIC;
        family = family || ew_quic_version_family(v);
        if (i < EW_QUIC_VN_KEEP)
            h->vn_versions[i] = v;
    }
    if (!known_quic && !family)
        return EW_QH_NOT_QUIC;
    h->type = EW_QP_VN;
    h->len = claimed;
    return EW_QH_OK;
}

enum ew_quic_hdr_result
ew_quic_parse_header(const uint8_t *buf, size_t avail, size_t claimed, bool known_quic,
                     struct ew_quic_hdr *h)
{
    struct ew_cur c;
    uint8_t b0;
    size_t off;
    uint64_t v;

    memset(h, 0, sizeof(*h));
    if (avail > claimed)
        avail = claimed;
    if (claimed == 0)
        return EW_QH_NOT_QUIC;
    if (avail == 0)
        return EW_QH_TRUNC;
    ew_cur_init(&c, buf, avail);
    b0 = ew_cur_u8(&c);
    if (!(b0 & 0x80)) {
        /* short header (RFC 9000 §17.3.1): the DCID length is the endpoints'
         * secret; at least a packet number and a sample. The fixed bit may
         * be greased once the flow is QUIC (RFC 9287 §3.1) */
        if (!known_quic || claimed < 1 + 4 + 16)
            return EW_QH_NOT_QUIC;
        h->type = EW_QP_SHORT;
        h->len = claimed;
        return EW_QH_OK;
    }
    h->version = ew_cur_be32(&c);
    h->dcid_len = ew_cur_u8(&c);
    if (c.trunc)
        return EW_QH_TRUNC;
    if (h->version == 0)
        return parse_vn(&c, buf, claimed, known_quic, h);
    /* versions 1 and 2: CIDs of at most 20 bytes (§17.2) */
    if (!ew_quic_known_version(h->version) || h->dcid_len > EW_QUIC_CID_MAX)
        return EW_QH_NOT_QUIC;
    if (!read_cid(&c, h->dcid_len, h->dcid))
        return EW_QH_TRUNC;
    h->scid_len = ew_cur_u8(&c);
    if (c.trunc)
        return EW_QH_TRUNC;
    if (h->scid_len > EW_QUIC_CID_MAX)
        return EW_QH_NOT_QUIC;
    if (!read_cid(&c, h->scid_len, h->scid))
        return EW_QH_TRUNC;
    h->type = long_type(h->version, (b0 >> 4) & 3u);
    if (h->type == EW_QP_RETRY && !(b0 & 0x40) && !known_quic)
        return EW_QH_NOT_QUIC;
    if (h->type == EW_QP_RETRY) {
        /* a non-empty token and the 16-byte integrity tag (§17.2.5) */
        off = (size_t)(c.p - buf);
        if (claimed - off < 1 + 16)
            return EW_QH_NOT_QUIC;
        h->len = claimed;
        return EW_QH_OK;
    }
    if (h->type == EW_QP_INITIAL) {
        if (!ew_quic_varint(&c, &h->token_len))
            return EW_QH_TRUNC;
        off = (size_t)(c.p - buf);
        if (h->token_len > claimed - off)
            return EW_QH_NOT_QUIC;
        if (!ew_cur_skip(&c, (size_t)h->token_len))
            return EW_QH_TRUNC;
    }
    /* The fixed bit is set, but for peers that grease it (RFC 9287 §3.1):
     * after the transport parameters, so on flows already QUIC, and in a
     * client's first Initial only with a token from NEW_TOKEN */
    if (!(b0 & 0x40) && !known_quic && !(h->type == EW_QP_INITIAL && h->token_len > 0))
        return EW_QH_NOT_QUIC;
    if (!ew_quic_varint(&c, &v))
        return EW_QH_TRUNC;
    off = (size_t)(c.p - buf);
    /* Length covers the packet number and the payload; the header
     * protection sample needs 4 + 16 bytes of them (RFC 9001 §5.4.2) */
    if (v < 4 + 16 || v > claimed - off)
        return EW_QH_NOT_QUIC;
    h->pn_offset = off;
    h->len = off + (size_t)v;
    h->has_length = true;
    return EW_QH_OK;
}

/* ------------------------------------------------------------ frames */

/* packet numbers lo..hi among 0..EW_QUIC_PN_TRACK-1, as a bit mask */
static uint64_t
range_mask(uint64_t lo, uint64_t hi)
{
    uint64_t top;

    if (lo >= EW_QUIC_PN_TRACK || lo > hi)
        return 0;
    top = hi >= EW_QUIC_PN_TRACK - 1 ? ~(uint64_t)0 : ((uint64_t)1 << (hi + 1)) - 1;
    return top & ~(((uint64_t)1 << lo) - 1);
}

/* ACK frame (RFC 9000 §19.3, §19.3.1): ranges run downwards from Largest */
static bool
parse_ack(struct ew_cur *c, bool ecn, struct ew_quic_frames *fr)
{
    uint64_t largest, delay, count, first, gap, rlen, smallest, hi, i, mask;
    uint64_t e0 = 0, e1 = 0, ce = 0;

    if (!ew_quic_varint(c, &largest) || !ew_quic_varint(c, &delay) ||
        !ew_quic_varint(c, &count) || !ew_quic_varint(c, &first))
        return false;
    if (first > largest)
        return false;
    smallest = largest - first;
    mask = range_mask(smallest, largest);
    /* each range takes at least two bytes: the loop ends with the payload */
    for (i = 0; i < count; i++) {
        if (!ew_quic_varint(c, &gap) || !ew_quic_varint(c, &rlen))
            return false;
        if (gap + 2 > smallest)
            return false;
        hi = smallest - gap - 2;
        if (rlen > hi)
            return false;
        smallest = hi - rlen;
        mask |= range_mask(smallest, hi);
    }
    if (ecn && (!ew_quic_varint(c, &e0) || !ew_quic_varint(c, &e1) || !ew_quic_varint(c, &ce)))
        return false;
    if (fr->acks == 0 || largest > fr->ack.largest)
        fr->ack.largest = largest;
    fr->ack.acked_mask |= mask;
    if (ecn) {
        fr->ack.ecn = true;
        fr->ack.ect0 = e0;
        fr->ack.ect1 = e1;
        fr->ack.ce = ce;
        fr->ack_ecn_seen = true;
    }
    fr->acks++;
    return true;
}

static bool
skip_len(struct ew_cur *c, uint64_t n)
{
    if (n > ew_cur_left(c))
        return false;
    c->p += (size_t)n;
    return true;
}

void
ew_quic_parse_frames(const uint8_t *p, size_t len, struct ew_quic_frames *fr)
{
    struct ew_cur c;
    uint64_t type, a, b, n;
    uint8_t z;

    memset(fr, 0, sizeof(*fr));
    if (len == 0)
        return;
    ew_cur_init(&c, p, len);
    while (ew_cur_left(&c) > 0) {
        if (!ew_quic_varint(&c, &type)) {
            fr->malformed = true;
            return;
        }
        switch (type) {
        case 0x00: /* PADDING: runs of zero bytes */
            fr->padding++;
            while (ew_cur_peek_u8(&c, &z) && z == 0)
                c.p++;
            break;
        case 0x01: /* PING */
            fr->ping++;
            break;
        case 0x02:
        case 0x03:
            if (!parse_ack(&c, type == 0x03, fr)) {
                fr->malformed = true;
                return;
            }
            break;
        case 0x06: /* CRYPTO: Offset, Length, Data (§19.6) */
            if (!ew_quic_varint(&c, &a) || !ew_quic_varint(&c, &n) || !skip_len(&c, n) ||
                a + n > ((uint64_t)1 << 62) - 1) {
                fr->malformed = true;
                return;
            }
            fr->crypto++;
            fr->crypto_bytes += n;
            break;
        case 0x1c:
        case 0x1d: /* CONNECTION_CLOSE (§19.19): the frame type only in 0x1c */
            if (!ew_quic_varint(&c, &a) || (type == 0x1c && !ew_quic_varint(&c, &b)) ||
                !ew_quic_varint(&c, &n) || !skip_len(&c, n)) {
                fr->malformed = true;
                return;
            }
            fr->close++;
            fr->close_error = a;
            break;
        default:
            /* any other frame's length is unknown here: stop */
            fr->stopped = true;
            fr->stop_type = type;
            return;
        }
    }
}
