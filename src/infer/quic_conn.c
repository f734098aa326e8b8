/* quic_conn.c - the QUIC state of each connection, from its datagrams (see
 * quic_conn.h): the pool of per-connection entries, coalesced packets, and
 * the Initial packets opened with the keys of the client's first
 * Destination Connection ID. Facts: RFC 9000, RFC 9001, RFC 9369. */
#include "infer/quic_conn.h"

#include <stdlib.h>
#include <string.h>

#include "dissectors/ecn.h"
#include "flow/flowtab.h"

#define SCRATCH_LEN 65536 /* a decrypted payload: no UDP datagram is larger */

/* ------------------------------------------------------------ the pool */

/* Entries come in chunks allocated as connections appear, so that memory
 * follows the QUIC connections held, not the flow table's size. */
#define POOL_CHUNK 1024u

struct ew_quic_pool {
    struct ew_quic_conn **chunk; /* cap / POOL_CHUNK + 1 pointers */
    uint32_t cap, used;
    uint32_t free_head;       /* index + 1 of the first free entry; 0: none */
    bool alloc_failed;        /* out of memory once: take no more */
    struct ew_quic_crypto *cx;
    bool cx_failed;
    uint8_t *scratch;         /* one decrypted payload */
};

struct ew_quic_pool *
ew_quic_pool_new(uint32_t cap)
{
    struct ew_quic_pool *p = calloc(1, sizeof(*p));

    if (!p)
        return NULL;
    p->cap = cap ? cap : 1;
    p->chunk = calloc(p->cap / POOL_CHUNK + 1, sizeof(*p->chunk));
    if (!p->chunk) {
        free(p);
        return NULL;
    }
    return p;
}

void
ew_quic_pool_free(struct ew_quic_pool *p)
{
    uint32_t i;

    if (!p)
        return;
    ew_quic_crypto_free(p->cx);
    free(p->scratch);
    for (i = 0; i <= p->cap / POOL_CHUNK; i++)
        free(p->chunk[i]);
    free(p->chunk);
    free(p);
}

static struct ew_quic_conn *
entry(const struct ew_quic_pool *p, uint32_t i)
{
    return &p->chunk[i / POOL_CHUNK][i % POOL_CHUNK];
}

static struct ew_quic_conn *
conn_take(struct ew_quic_pool *p)
{
    struct ew_quic_conn *c;
    uint32_t i;

    if (p->free_head) {
        i = p->free_head - 1;
        c = entry(p, i);
        p->free_head = c->next_free;
    } else if (p->used < p->cap && !p->alloc_failed) {
        i = p->used;
        if (!p->chunk[i / POOL_CHUNK]) {
            /* i starts the chunk; the last chunk holds only what cap allows */
            size_t n = p->cap - i < POOL_CHUNK ? p->cap - i : POOL_CHUNK;

            p->chunk[i / POOL_CHUNK] = malloc(n * sizeof(**p->chunk));
            if (!p->chunk[i / POOL_CHUNK]) {
                p->alloc_failed = true;
                return NULL;
            }
        }
        p->used++;
        c = entry(p, i);
    } else {
        return NULL; /* more QUIC flows than flow records: cannot happen */
    }
    memset(c, 0, sizeof(*c));
    c->self = i;
    c->dir[0].largest_pn = c->dir[1].largest_pn = -1;
    c->dir[0].largest_acked = c->dir[1].largest_acked = -1;
    return c;
}

void
ew_quic_release(struct ew_quic_pool *p, const struct ew_flow *f)
{
    uint32_t i;

    if (!p || !f->quic)
        return;
    i = f->quic->self;
    if (i >= p->used || entry(p, i) != f->quic)
        return;
    f->quic->next_free = p->free_head;
    p->free_head = i + 1;
}

static bool
crypto_ready(struct ew_quic_pool *p)
{
    if (p->cx)
        return true;
    if (p->cx_failed)
        return false;
    p->cx = ew_quic_crypto_new();
    p->scratch = malloc(SCRATCH_LEN);
    if (!p->cx || !p->scratch) {
        ew_quic_crypto_free(p->cx);
        free(p->scratch);
        p->cx = NULL;
        p->scratch = NULL;
        p->cx_failed = true;
        return false;
    }
    return true;
}

/* ------------------------------------------------------------ per connection */

/* keys from dcid for version, kept for the connection */
static int
adopt(struct ew_quic_conn *c, uint32_t version, const uint8_t *dcid, uint8_t dcid_len)
{
    struct ew_quic_initial_secrets s;

    if (ew_quic_derive_initial(version, dcid, dcid_len, &s))
        return -1;
    if (dcid != c->dcid)
        memcpy(c->dcid, dcid, dcid_len);
    c->dcid_len = dcid_len;
    c->keys[0] = s.ck;
    c->keys[1] = s.sk;
    c->key_version = version;
    return 0;
}

/* Open an Initial packet of direction dir. The client's first Initial gives
 * the keys of both directions (RFC 9001 §5.2); a client Initial that does not
 * open with them follows a Retry and uses keys from its own DCID, which from
 * then on are the keys of both directions. */
static long
open_initial(struct ew_quic_pool *p, struct ew_quic_conn *c, struct ew_flow *f, int dir,
             const uint8_t *pkt, const struct ew_quic_hdr *h, uint64_t *pn)
{
    struct ew_quic_initial_secrets s;
    int64_t largest = c->dir[dir].largest_pn;
    long n;

    if (!c->have_client) {
        if (ew_quic_derive_initial(h->version, h->dcid, h->dcid_len, &s))
            return -1;
        n = ew_quic_open(p->cx, &s.ck, pkt, h, largest, p->scratch, SCRATCH_LEN, pn);
        if (n < 0 || adopt(c, h->version, h->dcid, h->dcid_len))
            return -1;
        c->have_client = true;
        c->client_dir = (uint8_t)dir;
        if (f->client_from == EW_CLIENT_FIRST_PACKET)
            f->client_dir = (uint8_t)dir;
        return n;
    }
    /* a second version (compatible negotiation, RFC 9369 §4.1): its keys
     * come from the same DCID */
    if (h->version != c->key_version && adopt(c, h->version, c->dcid, c->dcid_len))
        return -1;
    n = ew_quic_open(p->cx, &c->keys[dir == c->client_dir ? 0 : 1], pkt, h, largest, p->scratch,
                     SCRATCH_LEN, pn);
    if (n >= 0 || dir != c->client_dir)
        return n;
    if (ew_quic_derive_initial(h->version, h->dcid, h->dcid_len, &s))
        return -1;
    n = ew_quic_open(p->cx, &s.ck, pkt, h, largest, p->scratch, SCRATCH_LEN, pn);
    if (n >= 0 && adopt(c, h->version, h->dcid, h->dcid_len))
        return -1;
    return n;
}

/* One Initial packet of direction dir: counted by codepoint, opened, its
 * packet number's codepoint kept, its frames read; an ACK among them goes
 * to the validation of the other direction's Initial packets. */
static void
on_initial(struct ew_quic_pool *p, struct ew_quic_conn *c, struct ew_flow *f, int dir,
           enum ew_ecn ecn, const uint8_t *pkt, size_t avail, const struct ew_quic_hdr *h,
           uint64_t frame)
{
    struct ew_quic_dir *q = &c->dir[dir];
    struct ew_quic_frames fr;
    unsigned cp = ecn;
    uint64_t pn = 0;
    long n;

    ew_quic_inc32(&q->initials[cp]);
    ew_quic_first(&q->first_frame, frame);
    if (cp != EW_ECN_NOT_ECT)
        ew_quic_first(&q->first_ect_frame, frame);
    /* cut by the snaplen, or no crypto library to be had */
    if (h->len > avail || !crypto_ready(p)) {
        ew_quic_inc32(&c->unopened);
        return;
    }
    n = open_initial(p, c, f, dir, pkt, h, &pn);
    if (n < 0) {
        ew_quic_inc32(&c->unopened);
        return;
    }
    ew_quic_inc32(&q->opened);
    if ((int64_t)pn > q->largest_pn)
        q->largest_pn = (int64_t)pn;
    if (pn < EW_QUIC_PN_TRACK && !(q->pn_seen & ((uint64_t)1 << pn))) {
        uint64_t bit = (uint64_t)1 << pn;

        q->pn_seen |= bit;
        if (cp & 2)
            q->cp_hi |= bit;
        if (cp & 1)
            q->cp_lo |= bit;
    }
    ew_quic_parse_frames(p->scratch, (size_t)n, &fr);
    if (fr.stopped || fr.malformed)
        ew_quic_inc32(&c->frames_stopped);
    if (fr.close) {
        ew_quic_first(&c->close_frame, frame);
        c->close_error = fr.close_error;
    }
    /* an ACK in this direction's Initial acknowledges the other's */
    if (fr.acks)
        ew_quic_on_ack(&c->dir[dir ^ 1], &fr.ack, frame);
}

void
ew_quic_datagram(struct ew_quic_pool *p, struct ew_flow *f, int dir, enum ew_ecn ecn,
                 const uint8_t *data, uint32_t caplen, uint32_t wirelen, uint64_t frame)
{
    struct ew_quic_conn *c = f->quic;
    struct ew_quic_hdr h;
    size_t avail = caplen, claimed = wirelen, off = 0;
    unsigned npk = 0;

    if (!p || !data || caplen == 0 || (dir != 0 && dir != 1))
        return;
    if (avail > claimed)
        avail = claimed;
    /* coalesced packets: each Length says where the next starts (§12.2) */
    while (off < avail) {
        if (ew_quic_parse_header(data + off, avail - off, claimed - off, c != NULL, &h) !=
            EW_QH_OK)
            break;
        if (!c) {
            c = conn_take(p);
            if (!c)
                return;
            c->version = h.version;
            c->first_frame = frame;
            f->quic = c;
        }
        npk++;
        ew_quic_inc32(&c->packets[h.type]);
        /* a connection first seen by its Version Negotiation takes the
         * version that follows it */
        if (h.version && !c->version)
            c->version = h.version;
        else if (h.version && h.version != c->version)
            c->version_changed = true;
        switch (h.type) {
        case EW_QP_INITIAL:
            on_initial(p, c, f, dir, ecn, data + off, avail - off, &h, frame);
            break;
        case EW_QP_RETRY:
            c->retry = true;
            break;
        case EW_QP_VN:
            if (!c->vn_frame) {
                c->vn_frame = frame;
                c->vn_listed = h.vn_listed;
                memcpy(c->vn_versions, h.vn_versions, sizeof(c->vn_versions));
            }
            break;
        case EW_QP_0RTT:
        case EW_QP_HANDSHAKE:
        case EW_QP_SHORT:
            ew_quic_inc32(&c->dir[dir].later[ecn]);
            if (ecn != EW_ECN_NOT_ECT)
                ew_quic_first(&c->dir[dir].first_later_ect_frame, frame);
            break;
        case EW_QP_COUNT:
            break;
        }
        if (!h.has_length)
            break;
        off += h.len;
    }
    if (npk > 1)
        ew_quic_inc32(&c->coalesced);
}
