/* test_misuse.c - the misuse catalogue (digest §8.4), one test per kind of
 * finding src/findings/misuse.c produces, and the --misuse list parser.
 *
 * Every flow is built from synthetic packets fed through the analyzer, so
 * the handshake table, the segment kinds, the inference state and the
 * verdict are the real ones; findings come from ew_misuse_find() on the
 * concluded verdict. Each test shows its rule firing (kind, direction,
 * confidence, first frame, count) and silent on the nearest legitimate flow.
 *
 * The vantage point comes from the handshake's timing (infer.c): the gap
 * that is short is the one next to the capture point. A capture at the
 * client sees SYN-ACK -> ACK quickly, one at the server SYN -> SYN-ACK. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "engine/analyze.h"
#include "findings/bottleneck.h"
#include "findings/conclude.h"
#include "dissectors/ecn.h"
#include "infer/infer.h"
#include "findings/misuse.h"
#include "dissectors/dissect_quic.h"
#include "infer/quic_conn.h"
#include "infer/quic_crypto.h"
#include "infer/quic_infer.h"
#include "output/quic_json.h"
#include "fixture.h"
#include "suites.h"

#define MS 1000000ll
#define SEG 1000u /* client data segments: 1000 payload bytes, the flow's MSS */

/* the hosts of the flows built: 10.0.0.2 (client) and 10.0.0.1, or with
 * link_local set 169.254.0.2 and 169.254.0.1 (RFC 3927: one link) */
static bool link_local;

struct seq {
    struct ew_analyzer an;
    uint32_t cseq, sseq; /* next sequence numbers */
    int64_t t;
    uint64_t syn_frame, synack_frame, ack3_frame;
};

/* what a flow was found to do */
struct result {
    struct ew_flow_verdict v;
    struct ew_finding fnd[32];
    size_t n;
    int c2s, s2c;
};

static void
pkt_init(struct ew_pkt *p, int from, uint16_t flags, uint8_t ecn, uint32_t seq, uint32_t ack,
         uint32_t payload)
{
    static const struct fx_hosts hosts = {.family = 4, .cli = 2, .srv = 1, .cport = 40000, .sport = 443, .hdr = 52};
    static const struct fx_hosts link_hosts = {.family = 4, .cli = 0xa9fe0002, .srv = 0xa9fe0001, .cport = 40000,
                                               .sport = 443, .hdr = 52};

    fx_tcp(p, link_local ? &link_hosts : &hosts, from, flags, ecn, seq, ack, payload);
}

static void
start(struct seq *s)
{
    struct ew_analyzer_cfg cfg = {.max_flows = 4, .hash_seed = 11, .idle_ns = 0};

    memset(s, 0, sizeof(*s));
    CU_ASSERT_FATAL(ew_analyzer_init(&s->an, &cfg) == 0);
    s->cseq = 1000;
    s->sseq = 9000;
    s->t = 1000000000;
}

/* the packet, gap ns after the previous one; returns its frame number */
static uint64_t
feed(struct seq *s, const struct ew_pkt *p, int64_t gap)
{
    s->t += gap;
    ew_analyzer_frame(&s->an, p, s->t);
    return s->an.tot.frames;
}

/* (AE,CWR,ECE) as header flags */
static uint16_t
ace(unsigned v)
{
    return (uint16_t)(((v & 4) ? EW_TCP_AE : 0) | ((v & 2) ? EW_TCP_CWR : 0) |
                      ((v & 1) ? EW_TCP_ECE : 0));
}

/* a handshake: the SYN's and SYN-ACK's (AE,CWR,ECE) and IP codepoints, the
 * ACE of the client's pure ACK that completes it, and where it is seen */
struct hs {
    unsigned syn, synack, ack3;
    uint8_t syn_ecn, synack_ecn;
    enum ew_vantage at;
};

static void
handshake(struct seq *s, const struct hs *h)
{
    struct ew_pkt p;
    int64_t t1 = h->at == EW_VANT_CLIENT ? 20 * MS : h->at == EW_VANT_SERVER ? MS : 10 * MS;
    int64_t t2 = h->at == EW_VANT_CLIENT ? MS : h->at == EW_VANT_SERVER ? 20 * MS : 10 * MS;

    pkt_init(&p, CLI, (uint16_t)(EW_TCP_SYN | ace(h->syn)), h->syn_ecn, s->cseq++, 0, 0);
    s->syn_frame = feed(s, &p, MS);
    pkt_init(&p, SRV, (uint16_t)(EW_TCP_SYN | EW_TCP_ACK | ace(h->synack)), h->synack_ecn,
             s->sseq++, s->cseq, 0);
    s->synack_frame = feed(s, &p, t1);
    pkt_init(&p, CLI, (uint16_t)(EW_TCP_ACK | ace(h->ack3)), EW_ECN_NOT_ECT, s->cseq, s->sseq, 0);
    s->ack3_frame = feed(s, &p, t2);
}

/* RFC 9768 Table 2 / Table 3: both handshake packets Not-ECT and reported so */
static const struct hs accecn_at_client = {.syn = 7, .synack = 2, .ack3 = 2,
                                           .at = EW_VANT_CLIENT};
static const struct hs accecn_at_server = {.syn = 7, .synack = 2, .ack3 = 2,
                                           .at = EW_VANT_SERVER};
/* RFC 3168 §6.1.1: ECN-setup SYN (011) and SYN-ACK (001) */
static const struct hs classic_at_client = {.syn = 3, .synack = 1, .at = EW_VANT_CLIENT};
static const struct hs classic_at_server = {.syn = 3, .synack = 1, .at = EW_VANT_SERVER};
static const struct hs no_ecn_at_client = {.syn = 0, .synack = 0, .at = EW_VANT_CLIENT};
static const struct hs no_ecn_at_server = {.syn = 0, .synack = 0, .at = EW_VANT_SERVER};

/* a client data segment of SEG bytes, 1 ms after the previous packet */
static uint64_t
data(struct seq *s, uint8_t ecn, uint16_t flags)
{
    struct ew_pkt p;

    pkt_init(&p, CLI, (uint16_t)(EW_TCP_ACK | flags), ecn, s->cseq, s->sseq, SEG);
    s->cseq += SEG;
    return feed(s, &p, MS);
}

/* the client's latest data segment again, with IP ID ip_id (0 for all the
 * packets built here: then a resend looks like a copy of the segment, and
 * is counted as one that may be, dups_unsure) */
static uint64_t
resend(struct seq *s, uint8_t ecn, uint16_t ip_id)
{
    struct ew_pkt p;

    pkt_init(&p, CLI, EW_TCP_ACK, ecn, s->cseq - SEG, s->sseq, SEG);
    p.ip_id = ip_id;
    return feed(s, &p, MS);
}

static uint64_t
retrans(struct seq *s, uint8_t ecn)
{
    return resend(s, ecn, 0);
}

/* the server's pure ACK of everything so far, gap ns after the previous
 * packet; with opt, an AccECN option with EE0B, ECEB, EE1B */
static uint64_t
ack_full(struct seq *s, uint16_t flags, uint8_t ecn, int64_t gap, const uint32_t *opt)
{
    struct ew_pkt p;
    int i;

    pkt_init(&p, SRV, (uint16_t)(EW_TCP_ACK | flags), ecn, s->sseq, s->cseq, 0);
    if (opt) {
        p.u.tcp.acc.present = true;
        p.u.tcp.acc.kind = 172;
        p.u.tcp.acc.nfields = 3;
        for (i = 0; i < 3; i++) {
            p.u.tcp.acc.has[i] = true;
            p.u.tcp.acc.val[i] = opt[i];
        }
    }
    return feed(s, &p, gap);
}

static uint64_t
ack(struct seq *s, uint16_t flags)
{
    return ack_full(s, flags, EW_ECN_NOT_ECT, MS, NULL);
}

static uint64_t
ack_opt(struct seq *s, uint16_t flags, uint32_t e0b, uint32_t ceb, uint32_t e1b)
{
    const uint32_t opt[3] = {[EW_ACC_E0B] = e0b, [EW_ACC_CEB] = ceb, [EW_ACC_E1B] = e1b};

    return ack_full(s, flags, EW_ECN_NOT_ECT, MS, opt);
}

static const struct ew_flow *
flow_of(struct seq *s)
{
    static struct ew_flow_room room;
    uint32_t ref;

    return ew_flowtab_refs(s->an.tab, &ref, 1, false) == 1 ? ew_flowtab_view(s->an.tab, ref, &room)
                                                           : NULL;
}

/* conclude the one flow, find its misuse, and free the analyzer */
static void
finish(struct seq *s, struct result *r)
{
    const struct ew_flow *f = flow_of(s);
    size_t i;

    memset(r, 0, sizeof(*r));
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    ew_infer_conclude(f, &r->v);
    r->n = ew_misuse_find(f, &r->v, r->fnd, sizeof(r->fnd) / sizeof(r->fnd[0]));
    r->c2s = f->client_dir;
    r->s2c = f->client_dir ^ 1;
    /* every finding is complete: a known kind, a frame, a count, a reason */
    for (i = 0; i < r->n; i++) {
        CU_ASSERT_TRUE(r->fnd[i].kind < EW_MU_COUNT);
        CU_ASSERT_TRUE(r->fnd[i].first_frame > 0);
        CU_ASSERT_TRUE(r->fnd[i].count > 0);
        CU_ASSERT_PTR_NOT_NULL(r->fnd[i].ref);
        CU_ASSERT_TRUE(r->fnd[i].detail[0] != '\0');
        if (i > 0)
            CU_ASSERT_TRUE(r->fnd[i - 1].first_frame <= r->fnd[i].first_frame);
    }
    ew_analyzer_free(&s->an);
}

/* findings of a kind on a direction (-1: either) */
static size_t
count_of(const struct result *r, enum ew_misuse_kind kind, int dir)
{
    size_t i, n = 0;

    for (i = 0; i < r->n; i++)
        if (r->fnd[i].kind == kind && (dir < 0 || r->fnd[i].dir == dir))
            n++;
    return n;
}

static const struct ew_finding *
find(const struct result *r, enum ew_misuse_kind kind, int dir)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (r->fnd[i].kind == kind && r->fnd[i].dir == dir)
            return &r->fnd[i];
    return NULL;
}

/* the detail of the finding of kind on dir, "" where there is none */
static const char *
detail_of(const struct result *r, enum ew_misuse_kind kind, int dir)
{
    const struct ew_finding *x = find(r, kind, dir);

    return x ? x->detail : "";
}

/* exactly one finding of kind on dir, with this confidence, frame and count */
#define EXPECT(r, kind, dir, conf, frame, cnt)                                                     \
    do {                                                                                           \
        const struct ew_finding *x_ = find((r), (kind), (dir));                                   \
        CU_ASSERT_EQUAL(count_of((r), (kind), (dir)), 1);                                          \
        CU_ASSERT_PTR_NOT_NULL(x_);                                                                \
        if (x_) {                                                                                  \
            CU_ASSERT_EQUAL(x_->confidence, (conf));                                               \
            CU_ASSERT_EQUAL(x_->first_frame, (uint64_t)(frame));                                   \
            CU_ASSERT_EQUAL(x_->count, (uint64_t)(cnt));                                           \
        }                                                                                          \
    } while (0)

/* no finding of kind on either direction */
#define SILENT(r, kind) CU_ASSERT_EQUAL(count_of((r), (kind), -1), 0)

/* ---------------------------------------------------------------- rules */

/* RFC 3168 §6.1.1: "A host MUST NOT set ECT on data packets unless it has
 * sent at least one ECN-setup SYN or ECN-setup SYN-ACK packet, and has
 * received at least one ECN-setup SYN or ECN-setup SYN-ACK packet" (digest
 * §2.2; §8.4 row 5: definitive at the sender, probable elsewhere). Case: a
 * handshake without ECN, then ECT(0) data, one of it CE on the way; silent
 * when the same data follows a classic ECN handshake. */
static void
test_ect_without_negotiation(void)
{
    struct seq s;
    struct result r;
    uint64_t f1;

    start(&s);
    handshake(&s, &no_ecn_at_client);
    f1 = data(&s, EW_ECN_ECT_0, 0);
    data(&s, EW_ECN_ECT_0, 0);
    data(&s, EW_ECN_CE, 0); /* was ECT when sent: counted with them */
    ack(&s, 0);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.neg, EW_NEG_NONE);
    CU_ASSERT_EQUAL(r.v.vantage, EW_VANT_CLIENT);
    EXPECT(&r, EW_MU_ECT_WITHOUT_NEGOTIATION, r.c2s, EW_CONF_CERTAIN, f1, 3);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_ECT_WITHOUT_NEGOTIATION, -1), 1);

    /* at the server the ECT may have been set on the path: likely */
    start(&s);
    handshake(&s, &no_ecn_at_server);
    f1 = data(&s, EW_ECN_ECT_0, 0);
    data(&s, EW_ECN_ECT_0, 0);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.vantage, EW_VANT_SERVER);
    EXPECT(&r, EW_MU_ECT_WITHOUT_NEGOTIATION, r.c2s, EW_CONF_LIKELY, f1, 2);

    /* negotiated: the same data is what the client ought to send */
    start(&s);
    handshake(&s, &classic_at_client);
    data(&s, EW_ECN_ECT_0, 0);
    data(&s, EW_ECN_ECT_0, 0);
    data(&s, EW_ECN_CE, 0);
    ack(&s, EW_TCP_ECE);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.neg, EW_NEG_RFC3168);
    SILENT(&r, EW_MU_ECT_WITHOUT_NEGOTIATION);
}

/* a UDP datagram of n bytes; data, when given, is its payload */
static uint64_t
udp(struct seq *s, int from, uint8_t ecn, const uint8_t *payload, uint32_t n)
{
    struct ew_pkt p;

    memset(&p, 0, sizeof(p));
    p.status = EW_PKT_OK;
    p.family = 4;
    p.ip_proto = 17;
    p.l4 = EW_L4_UDP;
    p.ecn = ecn;
    p.ip_len = 28 + n;
    p.src[10] = p.src[11] = p.dst[10] = p.dst[11] = 0xff;
    p.src[15] = from == CLI ? 2 : 1;
    p.dst[15] = from == CLI ? 1 : 2;
    p.u.udp.sport = from == CLI ? 40000 : 443;
    p.u.udp.dport = from == CLI ? 443 : 40000;
    p.u.udp.len = (uint16_t)(8 + n);
    p.u.udp.payload = n;
    p.l4_payload = payload;
    p.l4_payload_len = payload ? n : 0;
    return feed(s, &p, MS);
}

/* RFC 3168 §5: "Routers treat the ECT(0) and ECT(1) codepoints as
 * equivalent"; only ECN-capable packets may be marked, a Not-ECT packet is
 * dropped instead (digest §1.4 "Not-ECT -> ECT or CE: invalid"; §8.4 row 3),
 * and only the network sets CE. Cases: a TCP sender that sends no ECT whose
 * data arrives CE; an AccECN SYN-ACK reporting CE for a SYN that left here
 * Not-ECT (RFC 9768 Table 2); a UDP flow without ECT that arrives CE; a
 * direction CE from its first packet. Who set the CE is known only where the
 * capture point shows it: at the sender (the packets leave it CE) or on a
 * link no router forwards (link-local): certain there; elsewhere the sender
 * setting CE and an AQM marking Not-ECT packets look alike: likely. Silent
 * when the sender sends ECT and some of it is marked, when the SYN-ACK
 * reports Not-ECT, and on a UDP sender seen with fewer than 3 Not-ECT
 * datagrams before its CE. */
static void
test_ce_on_not_ect(void)
{
    struct seq s;
    struct result r;
    uint64_t ce1;
    int i;

    /* at the server, past the path: the client's host or an AQM on the way
     * (likely) */
    start(&s);
    handshake(&s, &no_ecn_at_server);
    data(&s, EW_ECN_NOT_ECT, 0);
    ce1 = data(&s, EW_ECN_CE, 0);
    data(&s, EW_ECN_NOT_ECT, 0);
    data(&s, EW_ECN_CE, 0);
    finish(&s, &r);
    EXPECT(&r, EW_MU_CE_ON_NOT_ECT, r.c2s, EW_CONF_LIKELY, ce1, 2);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_CE_ON_NOT_ECT, -1), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(detail_of(&r, EW_MU_CE_ON_NOT_ECT, r.c2s),
                                  "or an AQM upstream"));
    /* the same between link-local addresses: no router on the way, so the
     * sending host set it: certain */
    link_local = true;
    start(&s);
    handshake(&s, &no_ecn_at_server);
    data(&s, EW_ECN_NOT_ECT, 0);
    ce1 = data(&s, EW_ECN_CE, 0);
    data(&s, EW_ECN_NOT_ECT, 0);
    data(&s, EW_ECN_CE, 0);
    finish(&s, &r);
    link_local = false;
    EXPECT(&r, EW_MU_CE_ON_NOT_ECT, r.c2s, EW_CONF_CERTAIN, ce1, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(detail_of(&r, EW_MU_CE_ON_NOT_ECT, r.c2s), "link-local"));

    /* a one-packet TCP flow whose only packet is CE: its direction is CE
     * from its first packet and never ECT; no handshake: likely */
    start(&s);
    ce1 = data(&s, EW_ECN_CE, 0);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.n, 1);
    EXPECT(&r, EW_MU_CE_ON_NOT_ECT, r.c2s, EW_CONF_LIKELY, ce1, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(detail_of(&r, EW_MU_CE_ON_NOT_ECT, r.c2s),
                                  "from its first packet"));
    /* the same CE mid-flow after Not-ECT data, handshake unseen: the mode
     * is inferred, so at most likely */
    start(&s);
    for (i = 0; i < 3; i++)
        data(&s, EW_ECN_NOT_ECT, 0);
    ce1 = data(&s, EW_ECN_CE, 0);
    finish(&s, &r);
    EXPECT(&r, EW_MU_CE_ON_NOT_ECT, r.c2s, EW_CONF_LIKELY, ce1, 1);
    /* at the client, the CE leaves the capture point: the host sets it
     * itself, never an AQM on the path: certain */
    start(&s);
    handshake(&s, &no_ecn_at_client);
    data(&s, EW_ECN_NOT_ECT, 0);
    ce1 = data(&s, EW_ECN_CE, 0);
    data(&s, EW_ECN_NOT_ECT, 0);
    finish(&s, &r);
    EXPECT(&r, EW_MU_CE_ON_NOT_ECT, r.c2s, EW_CONF_CERTAIN, ce1, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(detail_of(&r, EW_MU_CE_ON_NOT_ECT, r.c2s), "as they leave it"));

    /* an ECT(0) sender, marked on the way: congestion marking */
    start(&s);
    handshake(&s, &classic_at_server);
    data(&s, EW_ECN_ECT_0, 0);
    data(&s, EW_ECN_CE, 0);
    data(&s, EW_ECN_ECT_0, 0);
    data(&s, EW_ECN_CE, 0);
    ack(&s, EW_TCP_ECE);
    finish(&s, &r);
    SILENT(&r, EW_MU_CE_ON_NOT_ECT);

    /* the SYN left here Not-ECT; the SYN-ACK code 110 says it arrived CE */
    start(&s);
    handshake(&s, &(struct hs){.syn = 7, .synack = 6, .ack3 = 2, .at = EW_VANT_CLIENT});
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.neg, EW_NEG_ACCECN);
    EXPECT(&r, EW_MU_CE_ON_NOT_ECT, r.c2s, EW_CONF_CERTAIN, s.synack_frame, 1);
    start(&s);
    handshake(&s, &accecn_at_client);
    finish(&s, &r);
    SILENT(&r, EW_MU_CE_ON_NOT_ECT);

    /* UDP: no ECT from the client, yet CE arrives */
    start(&s);
    for (i = 0; i < 3; i++)
        udp(&s, CLI, EW_ECN_NOT_ECT, NULL, 500);
    udp(&s, CLI, EW_ECN_CE, NULL, 500);
    udp(&s, CLI, EW_ECN_CE, NULL, 500);
    udp(&s, SRV, EW_ECN_NOT_ECT, NULL, 500);
    finish(&s, &r);
    /* no per-packet frame for UDP: the flow's first frame; no negotiation
     * says the sender must send Not-ECT: likely */
    EXPECT(&r, EW_MU_CE_ON_NOT_ECT, r.c2s, EW_CONF_LIKELY, 1, 2);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_CE_ON_NOT_ECT, -1), 1);
    /* a one-datagram flow whose only packet is CE: CE from its first
     * packet, never ECT: likely */
    start(&s);
    udp(&s, CLI, EW_ECN_CE, NULL, 500);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.n, 1);
    EXPECT(&r, EW_MU_CE_ON_NOT_ECT, r.c2s, EW_CONF_LIKELY, 1, 1);
    /* two Not-ECT datagrams, then CE: too few seen Not-ECT to judge the
     * sender (3 make it) */
    start(&s);
    udp(&s, CLI, EW_ECN_NOT_ECT, NULL, 500);
    udp(&s, CLI, EW_ECN_NOT_ECT, NULL, 500);
    udp(&s, CLI, EW_ECN_CE, NULL, 500);
    finish(&s, &r);
    SILENT(&r, EW_MU_CE_ON_NOT_ECT);
    start(&s);
    udp(&s, CLI, EW_ECN_ECT_0, NULL, 500);
    udp(&s, CLI, EW_ECN_CE, NULL, 500);
    udp(&s, SRV, EW_ECN_NOT_ECT, NULL, 500);
    finish(&s, &r);
    SILENT(&r, EW_MU_CE_ON_NOT_ECT);
}

/* RFC 3168 §18.1.4: a Not-ECT packet made to look ECN-capable "could
 * result in ... the router marking it instead of dropping it" (digest §1.4
 * "Not-ECT -> ECT: invalid"; §8.4 row 3, seen at the sender through the
 * AccECN handshake codes, RFC 9768 Table 2 and Table 3). Case: both
 * handshake packets leave here Not-ECT; the SYN-ACK code 100 reports the
 * SYN arrived ECT(0), the ACK's ACE 011 that the SYN-ACK arrived ECT(1).
 * Silent when the codes report Not-ECT (010). */
static void
test_ect_on_not_ect(void)
{
    struct seq s;
    struct result r;

    start(&s);
    handshake(&s, &(struct hs){.syn = 7, .synack = 4, .ack3 = 3, .at = EW_VANT_CLIENT});
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.neg, EW_NEG_ACCECN);
    EXPECT(&r, EW_MU_ECT_ON_NOT_ECT, r.c2s, EW_CONF_CERTAIN, s.synack_frame, 1);
    /* the SYN-ACK was seen here, at the client, as it arrived: only the
     * client's own report differs from it, so likely */
    EXPECT(&r, EW_MU_ECT_ON_NOT_ECT, r.s2c, EW_CONF_LIKELY, s.ack3_frame, 1);

    start(&s);
    handshake(&s, &accecn_at_client);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.neg, EW_NEG_ACCECN);
    SILENT(&r, EW_MU_ECT_ON_NOT_ECT);
}

/* ten ECT data segments of the client on an AccECN connection seen at
 * `at`, and four server ACKs with the AccECN option: before the data, and
 * after the 4th, 7th and 10th; the option field `grows` counts the bytes sent (-1: none
 * does; the others keep their initial values). Returns the frame of the
 * first option. */
static uint64_t
accecn_counters(struct seq *s, enum ew_vantage at, uint8_t ecn, int grows)
{
    static const uint32_t init[3] = {[EW_ACC_E0B] = 1, [EW_ACC_CEB] = 0, [EW_ACC_E1B] = 1};
    uint64_t first = 0, frame;
    uint32_t v[3];
    int i, k;

    handshake(s, at == EW_VANT_CLIENT ? &accecn_at_client : &accecn_at_server);
    /* the counters' first values, before any data: their baseline */
    first = ack_opt(s, ace(5), init[EW_ACC_E0B], init[EW_ACC_CEB], init[EW_ACC_E1B]);
    for (i = 1; i <= 10; i++) {
        data(s, ecn, ace(5));
        if (i == 4 || i == 7 || i == 10) {
            for (k = 0; k < 3; k++)
                v[k] = init[k] + (k == grows ? (uint32_t)i * SEG : 0);
            frame = ack_opt(s, ace(5), v[EW_ACC_E0B], v[EW_ACC_CEB], v[EW_ACC_E1B]);
            if (!first)
                first = frame;
        }
    }
    return first;
}

/* RFC 9768 §3.2.2.3: a change from ECT to Not-ECT is an invalid transition
 * (digest §1.4 "bleaching"; §8.4 row 1: exact at the sender through AccECN
 * feedback, weak at the receiver, where Not-ECT data may be the sender's
 * choice). Cases: (1) an ECT(0) AccECN SYN reported arrived Not-ECT (SYN-ACK
 * code 010) - certain; silent when reported ECT(0) (100). (2) At the
 * sender, 10 kB of ECT(0) data whose EE0B never grows - certain; silent
 * when EE0B counts it. (3) A classic connection whose data all arrives
 * Not-ECT at the server - likely; silent at the client (the sender chose
 * Not-ECT) and when the data arrives ECT(0). */
static void
test_bleaching(void)
{
    struct seq s;
    struct result r;
    uint64_t f1, opt1;
    int i;

    start(&s);
    handshake(&s, &(struct hs){.syn = 7, .synack = 2, .ack3 = 2, .syn_ecn = EW_ECN_ECT_0,
                               .at = EW_VANT_CLIENT});
    finish(&s, &r);
    EXPECT(&r, EW_MU_BLEACHING, r.c2s, EW_CONF_CERTAIN, s.synack_frame, 1);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_BLEACHING, -1), 1);
    start(&s);
    handshake(&s, &(struct hs){.syn = 7, .synack = 4, .ack3 = 2, .syn_ecn = EW_ECN_ECT_0,
                               .at = EW_VANT_CLIENT});
    finish(&s, &r);
    SILENT(&r, EW_MU_BLEACHING);

    /* 10 x 1000 bytes left ECT(0), the receiver counts none: 10 segments */
    start(&s);
    opt1 = accecn_counters(&s, EW_VANT_CLIENT, EW_ECN_ECT_0, -1);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.vantage, EW_VANT_CLIENT);
    EXPECT(&r, EW_MU_BLEACHING, r.c2s, EW_CONF_CERTAIN, opt1, 10);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_BLEACHING, -1), 1);
    start(&s);
    accecn_counters(&s, EW_VANT_CLIENT, EW_ECN_ECT_0, EW_ACC_E0B);
    finish(&s, &r);
    SILENT(&r, EW_MU_BLEACHING);

    /* negotiated, four data segments arrive Not-ECT at the server */
    start(&s);
    handshake(&s, &classic_at_server);
    f1 = data(&s, EW_ECN_NOT_ECT, 0);
    for (i = 0; i < 3; i++)
        data(&s, EW_ECN_NOT_ECT, 0);
    ack(&s, 0);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.vantage, EW_VANT_SERVER);
    EXPECT(&r, EW_MU_BLEACHING, r.c2s, EW_CONF_LIKELY, f1, 4);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_BLEACHING, -1), 1);
    /* the same seen at the client: its own choice */
    start(&s);
    handshake(&s, &classic_at_client);
    for (i = 0; i < 4; i++)
        data(&s, EW_ECN_NOT_ECT, 0);
    ack(&s, 0);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.vantage, EW_VANT_CLIENT);
    SILENT(&r, EW_MU_BLEACHING);
    /* ECT(0) arrives at the server */
    start(&s);
    handshake(&s, &classic_at_server);
    for (i = 0; i < 4; i++)
        data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0);
    finish(&s, &r);
    SILENT(&r, EW_MU_BLEACHING);
}

/* RFC 9331 §5.1: ECT(1) may only change to CE (digest §1.4 and §5.5:
 * ECT(1)->ECT(0) loses the L4S identifier, ECT(0)->ECT(1) moves classic
 * traffic into the L4S queue; §8.4 row 2). Cases: (1) an ECT(0) AccECN SYN
 * reported arrived ECT(1) (code 011) - certain; silent when reported
 * ECT(0). (2) At the sender, ECT(1) data counted by EE0B - certain; silent
 * when EE1B counts it. (3) ECT(0) data counted by EE1B - likely (an SCE
 * AQM may do it); silent when EE0B counts it. (4) ECT(1) in runs on an
 * ECT(0) sender's data on the path - likely; silent for an ECT(1) sender. */
static void
test_remarking(void)
{
    struct seq s;
    struct result r;
    uint64_t opt1, e1;

    start(&s);
    handshake(&s, &(struct hs){.syn = 7, .synack = 3, .ack3 = 2, .syn_ecn = EW_ECN_ECT_0,
                               .at = EW_VANT_CLIENT});
    finish(&s, &r);
    EXPECT(&r, EW_MU_REMARKING, r.c2s, EW_CONF_CERTAIN, s.synack_frame, 1);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_REMARKING, -1), 1);
    start(&s);
    handshake(&s, &(struct hs){.syn = 7, .synack = 4, .ack3 = 2, .syn_ecn = EW_ECN_ECT_0,
                               .at = EW_VANT_CLIENT});
    finish(&s, &r);
    SILENT(&r, EW_MU_REMARKING);

    /* an L4S sender's 10 kB counted as ECT(0): ceil(10000 / 1000) */
    start(&s);
    opt1 = accecn_counters(&s, EW_VANT_CLIENT, EW_ECN_ECT_1, EW_ACC_E0B);
    finish(&s, &r);
    CU_ASSERT_TRUE(r.v.dir[r.c2s].sender_ect1);
    EXPECT(&r, EW_MU_REMARKING, r.c2s, EW_CONF_CERTAIN, opt1, 10);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_REMARKING, -1), 1);
    SILENT(&r, EW_MU_BLEACHING); /* ECN-capable on arrival, just the other one */
    start(&s);
    accecn_counters(&s, EW_VANT_CLIENT, EW_ECN_ECT_1, EW_ACC_E1B);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.verdict, EW_V_L4S);
    SILENT(&r, EW_MU_REMARKING);

    /* a classic sender's 10 kB counted as ECT(1) */
    start(&s);
    opt1 = accecn_counters(&s, EW_VANT_CLIENT, EW_ECN_ECT_0, EW_ACC_E1B);
    finish(&s, &r);
    EXPECT(&r, EW_MU_REMARKING, r.c2s, EW_CONF_LIKELY, opt1, 10);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_REMARKING, -1), 1);
    start(&s);
    accecn_counters(&s, EW_VANT_CLIENT, EW_ECN_ECT_0, EW_ACC_E0B);
    finish(&s, &r);
    SILENT(&r, EW_MU_REMARKING);

    /* on the path: ECT(0), then runs of ECT(1) */
    start(&s);
    handshake(&s, &(struct hs){.syn = 7, .synack = 2, .ack3 = 2, .at = EW_VANT_MIDDLE});
    data(&s, EW_ECN_ECT_0, ace(5));
    data(&s, EW_ECN_ECT_0, ace(5));
    e1 = data(&s, EW_ECN_ECT_1, ace(5));
    data(&s, EW_ECN_ECT_1, ace(5));
    data(&s, EW_ECN_ECT_0, ace(5));
    data(&s, EW_ECN_ECT_1, ace(5));
    ack(&s, ace(5));
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.vantage, EW_VANT_MIDDLE);
    CU_ASSERT_TRUE(r.v.dir[r.c2s].network_ect1);
    EXPECT(&r, EW_MU_REMARKING, r.c2s, EW_CONF_LIKELY, e1, 3);
    start(&s);
    handshake(&s, &(struct hs){.syn = 7, .synack = 2, .ack3 = 2, .at = EW_VANT_MIDDLE});
    data(&s, EW_ECN_ECT_1, ace(5));
    data(&s, EW_ECN_ECT_1, ace(5));
    data(&s, EW_ECN_ECT_1, ace(5));
    ack(&s, ace(5));
    finish(&s, &r);
    SILENT(&r, EW_MU_REMARKING);
}

/* RFC 3168 §18.1.1: CE changed to ECT or Not-ECT erases the congestion
 * indication (digest §1.4 "CE -> ECT(0)/ECT(1): invalid"; §8.4 row 4,
 * exact at the sender with CE probes). Case: an AccECN SYN that left here
 * CE reported arrived ECT(0) (SYN-ACK code 100); a CE SYN-ACK reported
 * arrived Not-ECT (ACE 010 on the ACK, Table 3). Silent when both are
 * reported CE (110). */
static void
test_ce_unmarked(void)
{
    struct seq s;
    struct result r;

    start(&s);
    handshake(&s, &(struct hs){.syn = 7, .synack = 4, .ack3 = 2, .syn_ecn = EW_ECN_CE,
                               .synack_ecn = EW_ECN_CE, .at = EW_VANT_MIDDLE});
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.neg, EW_NEG_ACCECN);
    EXPECT(&r, EW_MU_CE_UNMARKED, r.c2s, EW_CONF_CERTAIN, s.synack_frame, 1);
    EXPECT(&r, EW_MU_CE_UNMARKED, r.s2c, EW_CONF_CERTAIN, s.ack3_frame, 1);

    start(&s);
    handshake(&s, &(struct hs){.syn = 7, .synack = 6, .ack3 = 6, .syn_ecn = EW_ECN_CE,
                               .synack_ecn = EW_ECN_CE, .at = EW_VANT_MIDDLE});
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.neg, EW_NEG_ACCECN);
    SILENT(&r, EW_MU_CE_UNMARKED);
}

/* RFC 3168 §6.1.1: "A host MUST NOT set ECT on SYN or SYN-ACK packets";
 * ECN++ allows it only with AccECN, DCTCP (RFC 8257 §3.6) sets it (digest
 * §1.3 table; §8.4 row 6: definitive at the sender, probable elsewhere).
 * Cases: an ECT(0) classic SYN seen at the client (certain) and at the
 * server (likely, with the server's own ECT(0) SYN-ACK certain). Silent on
 * an ECT(0) AccECN SYN and SYN-ACK, and on a DCTCP connection. */
static void
test_ect_on_syn(void)
{
    struct seq s;
    struct result r;

    start(&s);
    handshake(&s, &(struct hs){.syn = 3, .synack = 1, .syn_ecn = EW_ECN_ECT_0,
                               .at = EW_VANT_CLIENT});
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.vantage, EW_VANT_CLIENT);
    EXPECT(&r, EW_MU_ECT_ON_SYN, r.c2s, EW_CONF_CERTAIN, s.syn_frame, 1);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_ECT_ON_SYN, -1), 1);

    start(&s);
    handshake(&s, &(struct hs){.syn = 3, .synack = 1, .syn_ecn = EW_ECN_ECT_0,
                               .synack_ecn = EW_ECN_ECT_0, .at = EW_VANT_SERVER});
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.vantage, EW_VANT_SERVER);
    EXPECT(&r, EW_MU_ECT_ON_SYN, r.c2s, EW_CONF_LIKELY, s.syn_frame, 1);
    EXPECT(&r, EW_MU_ECT_ON_SYN, r.s2c, EW_CONF_CERTAIN, s.synack_frame, 1);

    /* ECN++ with AccECN: code 100 reports the SYN arrived ECT(0), as sent */
    start(&s);
    handshake(&s, &(struct hs){.syn = 7, .synack = 4, .ack3 = 4, .syn_ecn = EW_ECN_ECT_0,
                               .synack_ecn = EW_ECN_ECT_0, .at = EW_VANT_CLIENT});
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.neg, EW_NEG_ACCECN);
    SILENT(&r, EW_MU_ECT_ON_SYN);
    CU_ASSERT_EQUAL(r.n, 0);

    /* DCTCP: ECE follows CE, cleared without CWR (RFC 8257 §3.2) */
    start(&s);
    handshake(&s, &(struct hs){.syn = 3, .synack = 1, .syn_ecn = EW_ECN_ECT_0,
                               .synack_ecn = EW_ECN_ECT_0, .at = EW_VANT_CLIENT});
    data(&s, EW_ECN_CE, 0);
    ack(&s, EW_TCP_ECE);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0);
    data(&s, EW_ECN_CE, 0);
    ack(&s, EW_TCP_ECE);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.verdict, EW_V_DCTCP);
    SILENT(&r, EW_MU_ECT_ON_SYN);
}

/* RFC 3168 §6.1.4: "pure acknowledgement packets ... MUST NOT indicate
 * ECN-Capable Transport"; §6.1.5: "the TCP data sender MUST NOT set either
 * ECT codepoint on retransmitted data packets" (digest §1.3; §8.4 row 7;
 * allowed with AccECN, RFC 9768 §3.3.3). Case: a classic connection seen at
 * the server, whose pure ACKs are ECT(0) (certain: it is the sender) and
 * whose client retransmits three segments ECT(0) (likely). Silent for the
 * same under AccECN, and for two retransmissions (reordering at the
 * capture point looks the same: the rule asks for a pattern). */
static void
test_ect_on_control(void)
{
    struct seq s;
    struct result r;
    uint64_t a1, r1;
    int i;

    start(&s);
    handshake(&s, &classic_at_server);
    data(&s, EW_ECN_ECT_0, 0);
    a1 = ack_full(&s, 0, EW_ECN_ECT_0, MS, NULL);
    data(&s, EW_ECN_ECT_0, 0);
    ack_full(&s, 0, EW_ECN_ECT_0, MS, NULL);
    /* resends, each with an IP ID of its own, as Linux sends them */
    r1 = resend(&s, EW_ECN_ECT_0, 101);
    resend(&s, EW_ECN_ECT_0, 102);
    resend(&s, EW_ECN_ECT_0, 103);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.vantage, EW_VANT_SERVER);
    EXPECT(&r, EW_MU_ECT_ON_CONTROL, r.s2c, EW_CONF_CERTAIN, a1, 2);
    EXPECT(&r, EW_MU_ECT_ON_CONTROL, r.c2s, EW_CONF_LIKELY, r1, 3);

    /* the same segment three times over with nothing to tell a resend
     * from a copy (the capture doubled it, a mirror port): no evidence
     * that the sender resends ECT */
    start(&s);
    handshake(&s, &classic_at_server);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0);
    for (i = 0; i < 3; i++)
        retrans(&s, EW_ECN_ECT_0);
    finish(&s, &r);
    SILENT(&r, EW_MU_ECT_ON_CONTROL);

    /* AccECN: ECT on pure ACKs and retransmissions is allowed */
    start(&s);
    handshake(&s, &accecn_at_server);
    data(&s, EW_ECN_ECT_0, ace(5));
    ack_full(&s, ace(5), EW_ECN_ECT_0, MS, NULL);
    data(&s, EW_ECN_ECT_0, ace(5));
    ack_full(&s, ace(5), EW_ECN_ECT_0, MS, NULL);
    for (i = 0; i < 3; i++)
        retrans(&s, EW_ECN_ECT_0);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.neg, EW_NEG_ACCECN);
    SILENT(&r, EW_MU_ECT_ON_CONTROL);

    /* classic, Not-ECT ACKs, only two ECT retransmissions */
    start(&s);
    handshake(&s, &classic_at_server);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0);
    retrans(&s, EW_ECN_ECT_0);
    retrans(&s, EW_ECN_ECT_0);
    finish(&s, &r);
    SILENT(&r, EW_MU_ECT_ON_CONTROL);
}

/* RFC 8311 §4.2 (digest §5.5 and §8.4 row 8): ECT(1) is for senders with a
 * scalable response, and L4S over TCP needs accurate feedback (RFC 9331
 * §4.2). Case: a classic-feedback client marking its data ECT(1), seen at
 * the client (certain) and at the server (likely). Silent when the
 * connection negotiated AccECN: an L4S sender. */
static void
test_ect1_without_l4s(void)
{
    struct seq s;
    struct result r;
    uint64_t f1;
    int i;

    start(&s);
    handshake(&s, &classic_at_client);
    f1 = data(&s, EW_ECN_ECT_1, 0);
    for (i = 0; i < 3; i++)
        data(&s, EW_ECN_ECT_1, 0);
    ack(&s, 0);
    finish(&s, &r);
    EXPECT(&r, EW_MU_ECT1_WITHOUT_L4S, r.c2s, EW_CONF_CERTAIN, f1, 4);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_ECT1_WITHOUT_L4S, -1), 1);

    start(&s);
    handshake(&s, &classic_at_server);
    f1 = data(&s, EW_ECN_ECT_1, 0);
    data(&s, EW_ECN_ECT_1, 0);
    ack(&s, 0);
    finish(&s, &r);
    EXPECT(&r, EW_MU_ECT1_WITHOUT_L4S, r.c2s, EW_CONF_LIKELY, f1, 2);

    start(&s);
    handshake(&s, &accecn_at_client);
    for (i = 0; i < 4; i++)
        data(&s, EW_ECN_ECT_1, ace(5));
    ack(&s, ace(5));
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.verdict, EW_V_L4S);
    SILENT(&r, EW_MU_ECT1_WITHOUT_L4S);
}

/* RFC 3168 §6.1.3: on a CE packet "the receiver sets the ECN-Echo flag in
 * the TCP header of the subsequent ACK packet"; RFC 9768 §3.2: ACE counts
 * CE packets (digest §2.3, §4.4; §8.4 row 9: exact at the receiver). Cases:
 * classic, a CE segment acknowledged without ECE, at the server (certain)
 * and at the client (likely); AccECN, two CE arrivals and an ACE still 5,
 * at the server (certain). Silent when echoed: ECE set, or ACE 7. */
static void
test_feedback_missing(void)
{
    struct seq s;
    struct result r;
    uint64_t a;
    int at;

    for (at = 0; at < 2; at++) {
        start(&s);
        handshake(&s, at ? &classic_at_client : &classic_at_server);
        data(&s, EW_ECN_ECT_0, 0);
        data(&s, EW_ECN_CE, 0);
        a = ack(&s, 0);
        finish(&s, &r);
        EXPECT(&r, EW_MU_FEEDBACK_MISSING, r.c2s, at ? EW_CONF_LIKELY : EW_CONF_CERTAIN, a, 1);
        CU_ASSERT_EQUAL(count_of(&r, EW_MU_FEEDBACK_MISSING, -1), 1);
    }
    start(&s);
    handshake(&s, &classic_at_server);
    data(&s, EW_ECN_ECT_0, 0);
    data(&s, EW_ECN_CE, 0);
    ack(&s, EW_TCP_ECE);
    finish(&s, &r);
    SILENT(&r, EW_MU_FEEDBACK_MISSING);

    /* AccECN: r.cep 5 + 2 = 7 expected, 5 reported */
    start(&s);
    handshake(&s, &accecn_at_server);
    data(&s, EW_ECN_ECT_0, ace(5));
    data(&s, EW_ECN_CE, ace(5));
    data(&s, EW_ECN_CE, ace(5));
    a = ack(&s, ace(5));
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.neg, EW_NEG_ACCECN);
    EXPECT(&r, EW_MU_FEEDBACK_MISSING, r.c2s, EW_CONF_CERTAIN, a, 2);
    start(&s);
    handshake(&s, &accecn_at_server);
    data(&s, EW_ECN_ECT_0, ace(5));
    data(&s, EW_ECN_CE, ace(5));
    data(&s, EW_ECN_CE, ace(5));
    ack(&s, ace(7));
    finish(&s, &r);
    SILENT(&r, EW_MU_FEEDBACK_MISSING);
}

/* the client, seen at itself, gets ECE on the ACK of its first segment and
 * on every ACK after (the RFC 3168 latch); it sends `more` segments after,
 * the first with CWR when `cwr`, and the server stops echoing then */
static uint64_t
ece_run(struct seq *s, int more, bool cwr)
{
    uint64_t fe;
    int i;

    handshake(s, &classic_at_client);
    data(s, EW_ECN_ECT_0, 0);
    fe = ack(s, EW_TCP_ECE); /* marked downstream of this point */
    for (i = 0; i < more; i++) {
        data(s, EW_ECN_ECT_0, (uint16_t)(cwr && i == 0 ? EW_TCP_CWR : 0));
        ack(s, cwr ? 0 : EW_TCP_ECE);
    }
    return fe;
}

/* RFC 3168 §6.1.2: on ECE the sender reduces its window and "SHOULD set
 * the CWR bit on the first new data packet" sent afterwards (digest §2.4;
 * §8.4 row 10). Case: 11 ECE ACKs over 10 more segments, never a CWR, at
 * the client (certain). Silent when the first segment after ECE carries
 * CWR, and with only 9 segments after ECE (too few to tell). */
static void
test_ece_ignored(void)
{
    struct seq s;
    struct result r;
    uint64_t fe;

    start(&s);
    fe = ece_run(&s, 10, false);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.dir[r.c2s].feedback, EW_FB_RFC3168);
    EXPECT(&r, EW_MU_ECE_IGNORED, r.c2s, EW_CONF_CERTAIN, fe, 11);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_ECE_IGNORED, -1), 1);

    start(&s);
    ece_run(&s, 10, true);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.dir[r.c2s].feedback, EW_FB_RFC3168);
    SILENT(&r, EW_MU_ECE_IGNORED);

    start(&s);
    ece_run(&s, 9, false);
    finish(&s, &r);
    SILENT(&r, EW_MU_ECE_IGNORED);
}

/* RFC 3168 §6.1.3: "After the receipt of the CWR packet, acknowledgments
 * for subsequent non-CE data packets do not have the ECN-Echo flag set"
 * (digest §8.4 row 9: ECE held despite CWR). The client's CE segment is
 * echoed, it answers with CWR, and the server goes on setting ECE on the
 * ACKs of `after` more Not-CE segments (`ce_after`: the first of them CE),
 * seen at hs's side. Returns the frame of the first ACK past the CWR. */
static uint64_t
ece_held(struct seq *s, const struct hs *at, int after, bool ce_after)
{
    uint64_t first = 0, f;
    int i;

    handshake(s, at);
    data(s, EW_ECN_CE, 0);
    ack(s, EW_TCP_ECE);
    data(s, EW_ECN_ECT_0, EW_TCP_CWR);
    ack(s, EW_TCP_ECE); /* covers the CWR segment only: not yet a breach */
    for (i = 0; i < after; i++) {
        data(s, ce_after && i == 0 ? EW_ECN_CE : EW_ECN_ECT_0, 0);
        f = ack(s, EW_TCP_ECE);
        if (!first)
            first = f;
    }
    return first;
}

/* Case: 3 ECE ACKs past the CWR with no CE since, at the server (the
 * receiver: certain). Silent where a CE arrived after the CWR (the latch is
 * due again), with one such ACK only (below EW_MU_ECE_HELD_MIN), and at the
 * client, where a CE set past the capture point explains every ECE. */
static void
test_ece_held(void)
{
    struct seq s;
    struct result r;
    uint64_t fe;

    start(&s);
    fe = ece_held(&s, &classic_at_server, 3, false);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.vantage, EW_VANT_SERVER);
    EXPECT(&r, EW_MU_ECE_HELD, r.c2s, EW_CONF_CERTAIN, fe, 3);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_ECE_HELD, -1), 1);

    start(&s);
    ece_held(&s, &classic_at_server, 3, true);
    finish(&s, &r);
    SILENT(&r, EW_MU_ECE_HELD);

    start(&s);
    ece_held(&s, &classic_at_server, 1, false);
    finish(&s, &r);
    SILENT(&r, EW_MU_ECE_HELD);

    start(&s);
    ece_held(&s, &classic_at_client, 3, false);
    finish(&s, &r);
    SILENT(&r, EW_MU_ECE_HELD);
}

/* RFC 9768 §3.1.2: the four AccECN SYN-ACK codes "MUST NOT" answer a SYN
 * that did not request AccECN; §3.1.3: a server "MUST NOT send" SYN-ACK
 * 101; §3.2.3.2: no AccECN option on a SYN; §3.1.5: a host MUST NOT send
 * both a classic (011) and an AccECN (111) SYN (digest §4.2; §8.4 row 12).
 * Cases: 011 answered 010; 111 answered 101; an option on the SYN; 011 and
 * 111 SYNs in one connection (count: SYNs). Silent on 111 answered 010 and
 * on 011 answered 001. */
static void
test_accecn_handshake_violation(void)
{
    struct seq s;
    struct result r;
    struct ew_pkt p;
    uint64_t syn1, syn2;

    start(&s);
    handshake(&s, &(struct hs){.syn = 3, .synack = 2, .at = EW_VANT_CLIENT});
    finish(&s, &r);
    EXPECT(&r, EW_MU_ACCECN_HANDSHAKE_VIOLATION, r.s2c, EW_CONF_CERTAIN, s.synack_frame, 1);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_ACCECN_HANDSHAKE_VIOLATION, -1), 1);

    start(&s);
    handshake(&s, &(struct hs){.syn = 7, .synack = 5, .ack3 = 5, .at = EW_VANT_CLIENT});
    finish(&s, &r);
    EXPECT(&r, EW_MU_ACCECN_HANDSHAKE_VIOLATION, r.s2c, EW_CONF_CERTAIN, s.synack_frame, 1);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_ACCECN_HANDSHAKE_VIOLATION, -1), 1);

    /* an AccECN option on the SYN */
    start(&s);
    pkt_init(&p, CLI, (uint16_t)(EW_TCP_SYN | ace(7)), EW_ECN_NOT_ECT, s.cseq++, 0, 0);
    p.u.tcp.acc.present = true;
    p.u.tcp.acc.kind = 172;
    syn1 = feed(&s, &p, MS);
    pkt_init(&p, SRV, (uint16_t)(EW_TCP_SYN | EW_TCP_ACK | ace(2)), EW_ECN_NOT_ECT, s.sseq++,
             s.cseq, 0);
    feed(&s, &p, MS);
    finish(&s, &r);
    EXPECT(&r, EW_MU_ACCECN_HANDSHAKE_VIOLATION, r.c2s, EW_CONF_CERTAIN, syn1, 1);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_ACCECN_HANDSHAKE_VIOLATION, -1), 1);

    /* a classic SYN, then an AccECN one */
    start(&s);
    pkt_init(&p, CLI, (uint16_t)(EW_TCP_SYN | ace(3)), EW_ECN_NOT_ECT, s.cseq, 0, 0);
    syn1 = feed(&s, &p, MS);
    pkt_init(&p, CLI, (uint16_t)(EW_TCP_SYN | ace(7)), EW_ECN_NOT_ECT, s.cseq, 0, 0);
    syn2 = feed(&s, &p, 1000 * MS);
    s.cseq++;
    pkt_init(&p, SRV, (uint16_t)(EW_TCP_SYN | EW_TCP_ACK | ace(1)), EW_ECN_NOT_ECT, s.sseq++,
             s.cseq, 0);
    feed(&s, &p, MS);
    finish(&s, &r);
    CU_ASSERT_TRUE(syn2 > syn1);
    EXPECT(&r, EW_MU_ACCECN_HANDSHAKE_VIOLATION, r.c2s, EW_CONF_CERTAIN, syn1, 2);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_ACCECN_HANDSHAKE_VIOLATION, -1), 1);

    start(&s);
    handshake(&s, &accecn_at_client);
    finish(&s, &r);
    SILENT(&r, EW_MU_ACCECN_HANDSHAKE_VIOLATION);
    start(&s);
    handshake(&s, &classic_at_client);
    finish(&s, &r);
    SILENT(&r, EW_MU_ACCECN_HANDSHAKE_VIOLATION);
}

/* What ECT(1) on a sender's data means, and who is blamed for it.
 * RFC 9331 §4.1: an L4S sender marks ECT(1); on the heistp field captures
 * (2021 L4S kernel, captured at the sender) iperf3 writes its 37-byte
 * cookie ECT(0) before the socket turns Prague, then every segment is
 * ECT(1): one ECT(0)->ECT(1) switch after a short prefix is an L4S sender,
 * not remarking (RFC 9331 §5.1 remarking comes and goes in runs on the
 * path). Cases: (1) at the server, one ECT(0) segment then ECT(1): l4s, no
 * finding; (2) ten ECT(0) segments, then ECT(1) for good: one switch, no
 * runs: ambiguous, no remarking; (3) ECT(1) coming and going, captured at
 * the client, i.e. as the client wrote it: its own choice (digest §8.5),
 * never the path's remarking; (4) an ECT(1) SYN with ECT(0) data (digest
 * §1.3: a congestion control asking for ECT(1) negotiation): the data
 * decides, accecn_classic; (5) the receiver's ECT(1) pure ACKs on a
 * direction without data mean nothing. */
static void
test_l4s_sender_and_vantage(void)
{
    struct seq s;
    struct result r;
    struct ew_pkt p;
    int i;

    start(&s);
    handshake(&s, &accecn_at_server);
    data(&s, EW_ECN_ECT_0, ace(5));
    for (i = 0; i < 30; i++) {
        data(&s, EW_ECN_ECT_1, ace(5));
        if (i % 2)
            ack_full(&s, ace(5), EW_ECN_ECT_1, MS, NULL); /* a Prague receiver's ACKs */
    }
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.verdict, EW_V_L4S);
    CU_ASSERT_TRUE(r.v.dir[r.c2s].sender_ect1);
    CU_ASSERT_FALSE(r.v.dir[r.c2s].network_ect1);
    CU_ASSERT_EQUAL(r.v.dir[r.s2c].ect1, EW_ECT1_NONE);
    CU_ASSERT_EQUAL(r.n, 0);

    start(&s);
    handshake(&s, &accecn_at_server);
    for (i = 0; i < 10; i++)
        data(&s, EW_ECN_ECT_0, ace(5));
    for (i = 0; i < 30; i++)
        data(&s, EW_ECN_ECT_1, ace(5));
    ack(&s, ace(5));
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.dir[r.c2s].ect1, EW_ECT1_AMBIGUOUS);
    CU_ASSERT_FALSE(r.v.dir[r.c2s].sender_ect1);
    CU_ASSERT_FALSE(r.v.dir[r.c2s].network_ect1);
    SILENT(&r, EW_MU_REMARKING);

    start(&s);
    handshake(&s, &accecn_at_client);
    for (i = 0; i < 12; i++)
        data(&s, (i / 3) % 2 ? EW_ECN_ECT_1 : EW_ECN_ECT_0, ace(5));
    ack(&s, ace(5));
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.vantage, EW_VANT_CLIENT);
    CU_ASSERT_FALSE(r.v.dir[r.c2s].network_ect1);
    CU_ASSERT_NOT_EQUAL(r.v.verdict, EW_V_CONFLICT);
    SILENT(&r, EW_MU_REMARKING);

    start(&s);
    handshake(&s, &(struct hs){.syn = 7, .synack = 3, .ack3 = 2, .syn_ecn = EW_ECN_ECT_1,
                               .at = EW_VANT_CLIENT});
    for (i = 0; i < 10; i++)
        data(&s, EW_ECN_ECT_0, ace(5));
    pkt_init(&p, SRV, (uint16_t)(EW_TCP_ACK | ace(5)), EW_ECN_ECT_0, s.sseq, s.cseq, 0);
    feed(&s, &p, MS);
    finish(&s, &r);
    CU_ASSERT_EQUAL(r.v.dir[r.c2s].ect1, EW_ECT1_NONE);
    CU_ASSERT_EQUAL(r.v.verdict, EW_V_ACCECN_CLASSIC);
    CU_ASSERT_EQUAL(r.n, 0);
}

/* RFC 9768 §3.2.3.2.4: EE0B and EE1B start at 1, so that a zero in the
 * first option can expose zeroing; but pre-RFC endpoints start them at 0
 * (the experimental option 254 of the 2021 L4S kernel: EE1B 0 on the
 * SYN-ACK of the heistp field captures), so a zero first value is read as
 * the endpoint's generation, never as tampering. What one capture can show
 * is a counter back at 0 after it had counted bytes (counters only grow,
 * §3.2): likely, since one capture point cannot say where it happened
 * (digest §8.4 row 11: S+R to localise). §3.2.3.2.5: ECEB increasing
 * without ACE increasing means the counters were mangled. The finding is on
 * the direction of the option's packets (the server's ACKs). */
static void
test_accecn_option_mangled(void)
{
    struct seq s;
    struct result r;
    uint64_t o1;
    const struct ew_finding *x;

    /* a zero first EE0B that then counts from 0: a pre-RFC endpoint */
    start(&s);
    handshake(&s, &accecn_at_client);
    ack_opt(&s, ace(5), 0, 0, 1);
    data(&s, EW_ECN_ECT_0, ace(5));
    data(&s, EW_ECN_ECT_0, ace(5));
    ack_opt(&s, ace(5), 2 * SEG, 0, 1);
    finish(&s, &r);
    SILENT(&r, EW_MU_ACCECN_OPTION_MANGLED);
    CU_ASSERT_EQUAL(r.n, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.v.dir[r.c2s].feedback_reason, "pre-RFC"));

    /* EE0B back at 0 after it had counted two segments: zeroed on the way */
    start(&s);
    handshake(&s, &accecn_at_client);
    ack_opt(&s, ace(5), 1, 0, 1);
    data(&s, EW_ECN_ECT_0, ace(5));
    ack_opt(&s, ace(5), 1 + SEG, 0, 1);
    data(&s, EW_ECN_ECT_0, ace(5));
    o1 = ack_opt(&s, ace(5), 0, 0, 1);
    finish(&s, &r);
    EXPECT(&r, EW_MU_ACCECN_OPTION_MANGLED, r.s2c, EW_CONF_LIKELY, o1, 1);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_ACCECN_OPTION_MANGLED, -1), 1);
    /* and the zero counted nothing: no 2^24 bytes of phantom ECT(0) */
    SILENT(&r, EW_MU_REMARKING);
    /* seen where the option leaves the server: its own doing, no middlebox */
    start(&s);
    handshake(&s, &accecn_at_server);
    ack_opt(&s, ace(5), 1, 0, 1);
    data(&s, EW_ECN_ECT_0, ace(5));
    ack_opt(&s, ace(5), 1 + SEG, 0, 1);
    o1 = ack_opt(&s, ace(5), 0, 0, 1);
    finish(&s, &r);
    EXPECT(&r, EW_MU_ACCECN_OPTION_MANGLED, r.s2c, EW_CONF_LIKELY, o1, 1);
    x = find(&r, EW_MU_ACCECN_OPTION_MANGLED, r.s2c);
    CU_ASSERT_TRUE(x && strstr(x->detail, "no middlebox"));

    /* ECEB grows by a segment while ACE reports no CE */
    start(&s);
    handshake(&s, &accecn_at_client);
    data(&s, EW_ECN_ECT_0, ace(5));
    ack_opt(&s, ace(5), 1 + SEG, 0, 1);
    data(&s, EW_ECN_ECT_0, ace(5));
    ack_opt(&s, ace(5), 1 + SEG, SEG, 1);
    finish(&s, &r);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_ACCECN_OPTION_MANGLED, r.s2c), 1);
    x = find(&r, EW_MU_ACCECN_OPTION_MANGLED, r.s2c);
    CU_ASSERT_TRUE(x && x->confidence == EW_CONF_LIKELY);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_ACCECN_OPTION_MANGLED, -1), 1);

    start(&s);
    handshake(&s, &accecn_at_client);
    data(&s, EW_ECN_ECT_0, ace(5));
    data(&s, EW_ECN_ECT_0, ace(5));
    ack_opt(&s, ace(5), 1 + 2 * SEG, 0, 1);
    finish(&s, &r);
    SILENT(&r, EW_MU_ACCECN_OPTION_MANGLED);
    CU_ASSERT_EQUAL(r.n, 0);
}

/* RFC 9768 §3.2.2.4: r.cep starts at 5 so that "a zero ACE field" on the
 * first feedback after the handshake exposes zeroing of the header (digest
 * §4.4; §8.4 row 11). Case: the server's first ACK after the handshake has
 * ACE 000; the finding is on the server's direction, certain only where the
 * ACE is seen leaving the server (digest §8.5: only there is the sender of a
 * value known). Silent on ACE 101. */
static void
test_accecn_ace_zeroed(void)
{
    struct seq s;
    struct result r;
    uint64_t a;

    /* at the client the zero arrives: the path or the server (likely) */
    start(&s);
    handshake(&s, &accecn_at_client);
    data(&s, EW_ECN_ECT_0, ace(5));
    a = ack(&s, ace(0));
    finish(&s, &r);
    EXPECT(&r, EW_MU_ACCECN_ACE_ZEROED, r.s2c, EW_CONF_LIKELY, a, 1);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_ACCECN_ACE_ZEROED, -1), 1);
    /* at the server it is seen leaving the server: certain, and its own */
    start(&s);
    handshake(&s, &accecn_at_server);
    data(&s, EW_ECN_ECT_0, ace(5));
    a = ack(&s, ace(0));
    finish(&s, &r);
    EXPECT(&r, EW_MU_ACCECN_ACE_ZEROED, r.s2c, EW_CONF_CERTAIN, a, 1);

    start(&s);
    handshake(&s, &accecn_at_client);
    data(&s, EW_ECN_ECT_0, ace(5));
    ack(&s, ace(5));
    finish(&s, &r);
    SILENT(&r, EW_MU_ACCECN_ACE_ZEROED);
    CU_ASSERT_EQUAL(r.n, 0);
}

/* RFC 9768 §3.1.2 Table 2: a SYN-ACK 111 to a 111 SYN is a "Broken
 * (reflects flags)" server: Not ECN (digest §4.2, §8.1 "broken reflector";
 * §8.4 row 11). Cases: 111 answered 111, and 011 answered 011. Silent on a
 * proper answer to each: 010 and 001. */
static void
test_ecn_flags_reflected(void)
{
    struct seq s;
    struct result r;
    unsigned syn;

    for (syn = 3; syn <= 7; syn += 4) {
        start(&s);
        handshake(&s, &(struct hs){.syn = syn, .synack = syn, .at = EW_VANT_CLIENT});
        finish(&s, &r);
        CU_ASSERT_EQUAL(r.v.neg, EW_NEG_BROKEN);
        EXPECT(&r, EW_MU_ECN_FLAGS_REFLECTED, r.s2c, EW_CONF_CERTAIN, s.synack_frame, 1);
        CU_ASSERT_EQUAL(count_of(&r, EW_MU_ECN_FLAGS_REFLECTED, -1), 1);

        start(&s);
        handshake(&s, syn == 7 ? &accecn_at_client : &classic_at_client);
        finish(&s, &r);
        SILENT(&r, EW_MU_ECN_FLAGS_REFLECTED);
    }
}

/* An L4S sender (ECT(1), AccECN) seen at itself: three RTTs of 10 ms,
 * then a segment whose ACK, after mark_rtt, reports one CE (ACE 5 -> 6).
 * Returns that ACK's frame. */
static uint64_t
l4s_marked(struct seq *s, int64_t mark_rtt)
{
    int i;

    handshake(s, &accecn_at_client);
    for (i = 0; i < 3; i++) {
        data(s, EW_ECN_ECT_1, ace(5));
        ack_full(s, ace(5), EW_ECN_NOT_ECT, 10 * MS, NULL);
    }
    data(s, EW_ECN_ECT_1, ace(5));
    return ack_full(s, ace(6), EW_ECN_NOT_ECT, mark_rtt, NULL);
}

/* RFC 9331 §4.3: an L4S sender must detect a classic ECN bottleneck and
 * fall back (digest §5.4). The harm is a throughput share against classic
 * flows in the same queue, which one flow cannot show: the finding is no
 * longer made from a flow alone but by ew_bottleneck_apply() for an L4S flow
 * that one queue marks alike with classic flows (test_bottleneck.c). Here:
 * an L4S flow marked once at 10 ms of queueing delay above its 10 ms RTT,
 * and once at 1 ms, alone: no finding either way, and none when its
 * (empty) bottlenecks are applied; its one mark names no AQM (few marks). */
static void
test_classic_aqm_under_l4s(void)
{
    static const int64_t rtts[] = {20 * MS, 11 * MS};
    struct ew_bottlenecks none = {NULL, 0, NULL, 0};
    struct ew_flow_summary *sum;
    const struct ew_flow *f;
    struct seq s;
    size_t k;
    int d;

    for (k = 0; k < 2; k++) {
        start(&s);
        l4s_marked(&s, rtts[k]);
        f = flow_of(&s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        sum = calloc(1, sizeof(*sum));
        CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
        ew_flow_conclude(f, EW_CONCLUDE_WORDS | EW_CONCLUDE_PATH, sum);
        d = sum->v.main_dir;
        CU_ASSERT_EQUAL(sum->v.verdict, EW_V_L4S);
        CU_ASSERT_EQUAL(sum->v.vantage, EW_VANT_CLIENT);
        CU_ASSERT_EQUAL(sum->path[d].marks, 1);
        CU_ASSERT_EQUAL(sum->path[d].aqm, EW_AQM_UNKNOWN);
        CU_ASSERT_TRUE(sum->path[d].few_marks);
        CU_ASSERT_FALSE(sum->kinds & (1u << EW_MU_CLASSIC_AQM_UNDER_L4S));
        ew_bottleneck_apply(&none, f, sum);
        CU_ASSERT_FALSE(sum->kinds & (1u << EW_MU_CLASSIC_AQM_UNDER_L4S));
        CU_ASSERT_EQUAL(sum->path[d].aqm, EW_AQM_UNKNOWN);
        free(sum);
        ew_analyzer_free(&s.an);
    }
}

/* ---------------------------------------------------------------- QUIC */

static const uint8_t q_dcid[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static const uint8_t q_cscid[4] = {0xc1, 0xc2, 0xc3, 0xc4};
static const uint8_t q_sscid[8] = {0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58};

/* a v1 Initial (RFC 9000 §17.2.2) with a 2-byte packet number, frames
 * padded to pad_to, protected with k (RFC 9001 §5) */
static size_t
initial(struct ew_quic_crypto *cx, const struct ew_quic_keys *k, const uint8_t *dcid, size_t dl,
        const uint8_t *scid, size_t sl, const uint8_t *frames, size_t flen, size_t pad_to,
        uint8_t *out, size_t room)
{
    uint8_t hdr[64], payload[1300];
    size_t h = 0, plen = flen, len, pno;
    long n;

    memcpy(payload, frames, flen);
    while (plen < pad_to)
        payload[plen++] = 0;
    hdr[h++] = 0xc1;
    hdr[h++] = 0;
    hdr[h++] = 0;
    hdr[h++] = 0;
    hdr[h++] = 1;
    hdr[h++] = (uint8_t)dl;
    memcpy(hdr + h, dcid, dl);
    h += dl;
    hdr[h++] = (uint8_t)sl;
    memcpy(hdr + h, scid, sl);
    h += sl;
    hdr[h++] = 0; /* no token */
    len = 2 + plen + EW_QUIC_TAG_LEN;
    hdr[h++] = (uint8_t)(0x40 | (len >> 8));
    hdr[h++] = (uint8_t)len;
    pno = h;
    hdr[h++] = 0; /* packet number 0 */
    hdr[h++] = 0;
    n = ew_quic_seal(cx, k, hdr, h, pno, 0, payload, plen, out, room);
    CU_ASSERT_TRUE(n > 0);
    return n > 0 ? (size_t)n : 0;
}

/* the client's ECT(0) Initial (a CRYPTO frame), then the server's Initial
 * with the ACK frame given; returns the client Initial's frame */
static uint64_t
quic_exchange(struct seq *s, const uint8_t *ack_frame, size_t ack_len)
{
    static const uint8_t hello[] = {0x06, 0x00, 0x04, 0x01, 0x00, 0x00, 0x00};
    static uint8_t c[1300], sv[1300];
    struct ew_quic_initial_secrets k;
    struct ew_quic_crypto *cx = ew_quic_crypto_new();
    size_t cn, sn;
    uint64_t f1;

    CU_ASSERT_PTR_NOT_NULL_FATAL(cx);
    CU_ASSERT_EQUAL(ew_quic_derive_initial(EW_QUIC_V1, q_dcid, 8, &k), 0);
    cn = initial(cx, &k.ck, q_dcid, 8, q_cscid, 4, hello, sizeof(hello), 1162, c, sizeof(c));
    sn = initial(cx, &k.sk, q_cscid, 4, q_sscid, 8, ack_frame, ack_len, 0, sv, sizeof(sv));
    ew_quic_crypto_free(cx);
    f1 = udp(s, CLI, EW_ECN_ECT_0, c, (uint32_t)cn);
    udp(s, SRV, EW_ECN_NOT_ECT, sv, (uint32_t)sn);
    return f1;
}

/* RFC 9000 §13.4.2.1: validation fails if an ACK "newly acknowledges a
 * packet that the endpoint sent with an ECT(0) or ECT(1) codepoint set"
 * without ECN counts; App. A.4 lets a sender treat all-CE as a failure too
 * (digest §7.3; §8.4 row 14). The finding is on the direction whose
 * Initials failed. Cases: the server's Initial ACK (type 0x02) without
 * counts over the client's ECT(0) Initial - certain; counts that report it
 * CE - likely (it may be real congestion). Silent when the counts report
 * it ECT(0). */
static void
test_quic_ecn_validation_failed(void)
{
    /* ACK largest 0, delay 0, no more ranges, first range 0; type 3 adds
     * the counts ECT(0), ECT(1), CE */
    static const uint8_t plain[] = {0x02, 0x00, 0x00, 0x00, 0x00};
    static const uint8_t all_ce[] = {0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};
    static const uint8_t ect0[] = {0x03, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00};
    struct seq s;
    struct result r;
    uint64_t f1;

    start(&s);
    f1 = quic_exchange(&s, plain, sizeof(plain));
    finish(&s, &r);
    EXPECT(&r, EW_MU_QUIC_ECN_VALIDATION_FAILED, r.c2s, EW_CONF_CERTAIN, f1, 1);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_QUIC_ECN_VALIDATION_FAILED, -1), 1);

    start(&s);
    f1 = quic_exchange(&s, all_ce, sizeof(all_ce));
    finish(&s, &r);
    EXPECT(&r, EW_MU_QUIC_ECN_VALIDATION_FAILED, r.c2s, EW_CONF_LIKELY, f1, 1);

    start(&s);
    quic_exchange(&s, ect0, sizeof(ect0));
    finish(&s, &r);
    SILENT(&r, EW_MU_QUIC_ECN_VALIDATION_FAILED);
    CU_ASSERT_EQUAL(r.n, 0);
}

/* ---------------------------------------------------------------- the list */

/* ecnwatch(1) --misuse: a comma-separated list of kind names, or "any";
 * each kind is a bit of a 32-bit mask (analyze.h keeps counts[32] too), so
 * the kinds must fit, strictly below 32 for "any" to shift by the count.
 * Fires (-1, the word copied) on an unknown word, a prefix, an empty item
 * and an empty list; accepts every name, lists, and "any". */
static void
test_parse_list(void)
{
    char bad[16], name[64];
    uint32_t mask = 0, all = 0;
    int k, j;

    CU_ASSERT_TRUE(EW_MU_COUNT < 32);
    for (k = 0; k < EW_MU_COUNT; k++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(ew_misuse_name[k]);
        for (j = 0; j < k; j++)
            CU_ASSERT_STRING_NOT_EQUAL(ew_misuse_name[j], ew_misuse_name[k]);
        mask = 0;
        CU_ASSERT_EQUAL(ew_misuse_parse_list(ew_misuse_name[k], &mask, bad, sizeof(bad)), 0);
        CU_ASSERT_EQUAL(mask, 1u << k);
        all |= 1u << k;
    }
    CU_ASSERT_EQUAL(ew_misuse_parse_list("any", &mask, bad, sizeof(bad)), 0);
    CU_ASSERT_EQUAL(mask, all);
    CU_ASSERT_EQUAL(ew_misuse_parse_list("bleaching,ect_on_syn", &mask, bad, sizeof(bad)), 0);
    CU_ASSERT_EQUAL(mask, (1u << EW_MU_BLEACHING) | (1u << EW_MU_ECT_ON_SYN));
    CU_ASSERT_EQUAL(ew_misuse_parse_list("remarking,", &mask, bad, sizeof(bad)), 0);
    CU_ASSERT_EQUAL(mask, 1u << EW_MU_REMARKING);
    CU_ASSERT_EQUAL(ew_misuse_parse_list("bleaching,any", &mask, bad, sizeof(bad)), 0);
    CU_ASSERT_EQUAL(mask, all);

    CU_ASSERT_EQUAL(ew_misuse_parse_list("bleaching,nonsense", &mask, bad, sizeof(bad)), -1);
    CU_ASSERT_STRING_EQUAL(bad, "nonsense");
    CU_ASSERT_EQUAL(ew_misuse_parse_list("bleach", &mask, bad, sizeof(bad)), -1);
    CU_ASSERT_STRING_EQUAL(bad, "bleach");
    CU_ASSERT_EQUAL(ew_misuse_parse_list("bleachings", &mask, bad, sizeof(bad)), -1);
    CU_ASSERT_STRING_EQUAL(bad, "bleachings");
    CU_ASSERT_EQUAL(ew_misuse_parse_list("Bleaching", &mask, bad, sizeof(bad)), -1);
    CU_ASSERT_EQUAL(ew_misuse_parse_list("bleaching,,remarking", &mask, bad, sizeof(bad)), -1);
    CU_ASSERT_STRING_EQUAL(bad, "");
    CU_ASSERT_EQUAL(ew_misuse_parse_list("", &mask, bad, sizeof(bad)), -1);
    CU_ASSERT_EQUAL(mask, 0);
    /* a long unknown word is cut to the buffer */
    memset(name, 'x', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    CU_ASSERT_EQUAL(ew_misuse_parse_list(name, &mask, bad, sizeof(bad)), -1);
    CU_ASSERT_EQUAL(strlen(bad), sizeof(bad) - 1);
}

/* ---------------------------------------------------------------- tunnels */

/* a client data segment of SEG bytes in GRE (type) between 192.0.2.1 and
 * 192.0.2.2, its outer header's ECN field `outer` */
static uint64_t
data_in(struct seq *s, uint8_t type, uint8_t inner, uint8_t outer)
{
    struct ew_pkt p;

    pkt_init(&p, CLI, EW_TCP_ACK, inner, s->cseq, s->sseq, SEG);
    s->cseq += SEG;
    p.n_encap = 1;
    memset(&p.encap[0], 0, sizeof(p.encap[0]));
    p.encap[0].type = type;
    p.encap[0].family = 4;
    p.encap[0].ecn = outer;
    fx_addr(p.encap[0].src, 4, 0xc0000201);
    fx_addr(p.encap[0].dst, 4, 0xc0000202);
    return feed(s, &p, MS);
}

/* RFC 6040 §4.1: a normal-mode ingress copies the inner field outward;
 * compatibility mode sets the outer Not-ECT, and the tunnel's queues can
 * only drop (digest §1.5). Case: ECT(0) and CE data under a Not-ECT outer
 * header: tunnel_ecn_not_propagated, certain (what this point saw), on the
 * data's direction; silent when the outer copies the inner (the outer CE of
 * a mark made in the underlay included), and for ERSPAN, whose outer header
 * is a mirror session's. The handshake was not tunnelled: it is no part of
 * what the rule reads. */
static void
test_tunnel_not_propagated(void)
{
    struct seq s;
    struct result r;
    uint64_t f1;

    start(&s);
    handshake(&s, &classic_at_client);
    f1 = data_in(&s, EW_TUN_GRE, EW_ECN_ECT_0, EW_ECN_NOT_ECT);
    data_in(&s, EW_TUN_GRE, EW_ECN_ECT_0, EW_ECN_NOT_ECT);
    data_in(&s, EW_TUN_GRE, EW_ECN_CE, EW_ECN_NOT_ECT);
    ack(&s, EW_TCP_ECE);
    finish(&s, &r);
    EXPECT(&r, EW_MU_TUNNEL_ECN_NOT_PROPAGATED, r.c2s, EW_CONF_CERTAIN, f1, 3);
    SILENT(&r, EW_MU_TUNNEL_ECN_UNSAFE_COMBINATION);
    CU_ASSERT_PTR_NOT_NULL(strstr(detail_of(&r, EW_MU_TUNNEL_ECN_NOT_PROPAGATED, r.c2s),
                                  "3 of 3 ECN-capable packets from the client cross gre"));

    /* some copied, some not: the detail says so */
    start(&s);
    handshake(&s, &classic_at_client);
    data_in(&s, EW_TUN_GRE, EW_ECN_ECT_0, EW_ECN_ECT_0);
    f1 = data_in(&s, EW_TUN_GRE, EW_ECN_ECT_0, EW_ECN_NOT_ECT);
    finish(&s, &r);
    EXPECT(&r, EW_MU_TUNNEL_ECN_NOT_PROPAGATED, r.c2s, EW_CONF_CERTAIN, f1, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(detail_of(&r, EW_MU_TUNNEL_ECN_NOT_PROPAGATED, r.c2s),
                                  "cleared for some"));

    start(&s);
    handshake(&s, &classic_at_client);
    data_in(&s, EW_TUN_VXLAN, EW_ECN_ECT_0, EW_ECN_ECT_0);
    data_in(&s, EW_TUN_VXLAN, EW_ECN_ECT_0, EW_ECN_CE);  /* marked in the underlay */
    data_in(&s, EW_TUN_VXLAN, EW_ECN_CE, EW_ECN_ECT_0);  /* RFC 3168's reset of CE outward */
    data_in(&s, EW_TUN_ERSPAN, EW_ECN_ECT_0, EW_ECN_NOT_ECT);
    finish(&s, &r);
    SILENT(&r, EW_MU_TUNNEL_ECN_NOT_PROPAGATED);
    SILENT(&r, EW_MU_TUNNEL_ECN_UNSAFE_COMBINATION);
}

/* RFC 6040 §4.2 (Figure 4): the egress table's (!!!) cells, an ECT or CE
 * outer header over a Not-ECT packet and ECT(1) over CE, are always
 * potentially dangerous (certain); its (!) cell, ECT(0) over ECT(1), is
 * possibly so (likely). Each pair is found on the direction that carried it,
 * even on a flow that negotiated no ECN (the rows run before the check for
 * ECN in the TCP header). */
static void
test_tunnel_unsafe(void)
{
    struct seq s;
    struct result r;
    uint64_t f1, f2;

    start(&s);
    handshake(&s, &no_ecn_at_client);
    f1 = data_in(&s, EW_TUN_VXLAN, EW_ECN_NOT_ECT, EW_ECN_ECT_0);
    data_in(&s, EW_TUN_VXLAN, EW_ECN_NOT_ECT, EW_ECN_CE);
    finish(&s, &r);
    EXPECT(&r, EW_MU_TUNNEL_ECN_UNSAFE_COMBINATION, r.c2s, EW_CONF_CERTAIN, f1, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(detail_of(&r, EW_MU_TUNNEL_ECN_UNSAFE_COMBINATION, r.c2s),
                                  "some already CE"));
    SILENT(&r, EW_MU_TUNNEL_ECN_NOT_PROPAGATED);

    start(&s);
    handshake(&s, &classic_at_client);
    data_in(&s, EW_TUN_VXLAN, EW_ECN_ECT_1, EW_ECN_ECT_1);
    f1 = data_in(&s, EW_TUN_VXLAN, EW_ECN_CE, EW_ECN_ECT_1);
    f2 = data_in(&s, EW_TUN_VXLAN, EW_ECN_ECT_1, EW_ECN_ECT_0);
    data_in(&s, EW_TUN_VXLAN, EW_ECN_ECT_1, EW_ECN_ECT_0);
    finish(&s, &r);
    CU_ASSERT_EQUAL(count_of(&r, EW_MU_TUNNEL_ECN_UNSAFE_COMBINATION, r.c2s), 2);
    {
        size_t i, seen = 0;

        for (i = 0; i < r.n; i++) {
            const struct ew_finding *x = &r.fnd[i];

            if (x->kind != EW_MU_TUNNEL_ECN_UNSAFE_COMBINATION)
                continue;
            if (x->first_frame == f1) {
                CU_ASSERT_EQUAL(x->confidence, EW_CONF_CERTAIN);
                CU_ASSERT_EQUAL(x->count, 1);
                CU_ASSERT_PTR_NOT_NULL(strstr(x->detail, "under an ECT(1) outer header"));
                seen |= 1;
            } else if (x->first_frame == f2) {
                CU_ASSERT_EQUAL(x->confidence, EW_CONF_LIKELY);
                CU_ASSERT_EQUAL(x->count, 2);
                CU_ASSERT_PTR_NOT_NULL(strstr(x->detail, "under an ECT(0) outer header"));
                seen |= 2;
            }
        }
        CU_ASSERT_EQUAL(seen, 3);
    }
}

int
ew_test_register_misuse(void)
{
    CU_pSuite s = CU_add_suite("misuse", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "ect_without_negotiation: ECT data after a non-ECN handshake",
                     test_ect_without_negotiation) ||
        !CU_add_test(s, "ce_on_not_ect: CE on a sender without ECT (TCP, SYN-ACK code, UDP)",
                     test_ce_on_not_ect) ||
        !CU_add_test(s, "ect_on_not_ect: AccECN codes report ECT for Not-ECT handshake packets",
                     test_ect_on_not_ect) ||
        !CU_add_test(s, "bleaching: certain by AccECN feedback, likely at the receiver",
                     test_bleaching) ||
        !CU_add_test(s, "remarking: AccECN codes, option counters, ECT(1) runs",
                     test_remarking) ||
        !CU_add_test(s, "ce_unmarked: CE handshake packets reported otherwise",
                     test_ce_unmarked) ||
        !CU_add_test(s, "ect_on_syn: classic SYN, not AccECN nor DCTCP", test_ect_on_syn) ||
        !CU_add_test(s, "ect_on_control: pure ACKs and retransmissions under classic feedback",
                     test_ect_on_control) ||
        !CU_add_test(s, "ect1_without_l4s: ECT(1) with classic feedback",
                     test_ect1_without_l4s) ||
        !CU_add_test(s, "feedback_missing: CE not echoed (ECE, ACE)", test_feedback_missing) ||
        !CU_add_test(s, "ece_ignored: ECE never answered by CWR", test_ece_ignored) ||
        !CU_add_test(s, "ece_held: ECE still set after CWR, no CE since", test_ece_held) ||
        !CU_add_test(s, "accecn_handshake_violation: codes, 101, option on SYN, mixed SYNs",
                     test_accecn_handshake_violation) ||
        !CU_add_test(s, "accecn_option_mangled: zero EE0B, ECEB without ACE",
                     test_accecn_option_mangled) ||
        !CU_add_test(s, "ECT(1): an L4S sender's ECT(0) first write, one switch, the sender's own",
                     test_l4s_sender_and_vantage) ||
        !CU_add_test(s, "accecn_ace_zeroed: first ACE 0", test_accecn_ace_zeroed) ||
        !CU_add_test(s, "ecn_flags_reflected: SYN-ACK repeats the SYN's flags",
                     test_ecn_flags_reflected) ||
        !CU_add_test(s, "classic_aqm_under_l4s: not from a flow alone",
                     test_classic_aqm_under_l4s) ||
        !CU_add_test(s, "quic_ecn_validation_failed: counts missing, all CE",
                     test_quic_ecn_validation_failed) ||
        !CU_add_test(s, "tunnel_ecn_not_propagated: inner ECT under outer Not-ECT",
                     test_tunnel_not_propagated) ||
        !CU_add_test(s, "tunnel_ecn_unsafe_combination: RFC 6040's dangerous pairs",
                     test_tunnel_unsafe) ||
        !CU_add_test(s, "misuse list: names, any, unknown words; kinds fit the mask",
                     test_parse_list))
        return -1;
    return 0;
}
