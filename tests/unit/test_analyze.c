/* test_analyze.c - per-direction accounting, segment kinds, the client, and
 * the handshake table (RFC 3168 §6.1.1, RFC 9768 §3.1.2 Table 2). */
#include <CUnit/CUnit.h>
#include <string.h>

#include "engine/analyze.h"
#include "dissectors/ecn.h"
#include "flow/flowtab.h"
#include "infer/infer.h"
#include "fixture.h"
#include "suites.h"

/* the server has the lower address, so the client is the canonical "hi" end */
static const struct fx_hosts hosts = {.family = 4, .cli = 9, .srv = 1, .cport = 40000, .sport = 80, .hdr = 40};

static void
tcp_pkt(struct ew_pkt *p, int from, uint16_t flags, uint32_t seq, uint32_t payload, uint8_t ecn)
{
    fx_tcp(p, &hosts, from, flags, ecn, seq, 0, payload);
}

static struct ew_flow *
only_flow(struct ew_analyzer *an)
{
    static struct ew_flow_room room;
    uint32_t ref;

    if (ew_flowtab_refs(an->tab, &ref, 1, false) != 1)
        return NULL;
    return (struct ew_flow *)(uintptr_t)ew_flowtab_view(an->tab, ref, &room);
}

static void
init(struct ew_analyzer *an)
{
    struct ew_analyzer_cfg cfg = {.max_flows = 8, .hash_seed = 5, .idle_ns = 0};

    CU_ASSERT_FATAL(ew_analyzer_init(an, &cfg) == 0);
}

static void
test_kinds_and_client(void)
{
    struct ew_analyzer an;
    struct ew_pkt p;
    struct ew_flow *f;
    struct ew_dir_stats *c, *s;

    init(&an);
    /* a stray packet from the server first, then the handshake */
    tcp_pkt(&p, SRV, EW_TCP_ACK, 5000, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(&an, &p, 1);
    tcp_pkt(&p, CLI, EW_TCP_SYN | EW_TCP_ECE | EW_TCP_CWR, 100, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(&an, &p, 2);
    tcp_pkt(&p, SRV, EW_TCP_SYN | EW_TCP_ACK | EW_TCP_ECE, 7000, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(&an, &p, 3);
    tcp_pkt(&p, CLI, EW_TCP_ACK, 101, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(&an, &p, 4);
    tcp_pkt(&p, CLI, EW_TCP_ACK, 101, 1000, EW_ECN_ECT_0);
    ew_analyzer_frame(&an, &p, 5);
    tcp_pkt(&p, CLI, EW_TCP_ACK, 1101, 1000, EW_ECN_CE);
    ew_analyzer_frame(&an, &p, 6);
    tcp_pkt(&p, CLI, EW_TCP_ACK, 101, 1000, EW_ECN_NOT_ECT); /* retransmission */
    ew_analyzer_frame(&an, &p, 7);
    tcp_pkt(&p, SRV, EW_TCP_ACK | EW_TCP_ECE, 7001, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(&an, &p, 8);
    tcp_pkt(&p, CLI, EW_TCP_ACK | EW_TCP_FIN | EW_TCP_CWR, 2101, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(&an, &p, 9);

    f = only_flow(&an);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_TRUE(f->syn_seen);
    /* the client (higher address) is the canonical hi end: direction 1 */
    CU_ASSERT_EQUAL(f->client_dir, EW_DIR_HI_LO);
    c = &f->dir[f->client_dir];
    s = &f->dir[f->client_dir ^ 1];
    CU_ASSERT_EQUAL(c->packets, 6);
    CU_ASSERT_EQUAL(s->packets, 3);
    CU_ASSERT_EQUAL(f->inf->kind_ecn[f->client_dir][EW_SEG_SYN][EW_ECN_NOT_ECT], 1);
    CU_ASSERT_EQUAL(f->inf->kind_ecn[f->client_dir ^ 1][EW_SEG_SYNACK][EW_ECN_NOT_ECT], 1);
    CU_ASSERT_EQUAL(f->inf->kind_ecn[f->client_dir][EW_SEG_PURE_ACK][EW_ECN_NOT_ECT], 1);
    CU_ASSERT_EQUAL(f->inf->kind_ecn[f->client_dir][EW_SEG_DATA][EW_ECN_ECT_0], 1);
    CU_ASSERT_EQUAL(f->inf->kind_ecn[f->client_dir][EW_SEG_DATA][EW_ECN_CE], 1);
    CU_ASSERT_EQUAL(f->inf->kind_ecn[f->client_dir][EW_SEG_RETRANS][EW_ECN_NOT_ECT], 1);
    CU_ASSERT_EQUAL(f->inf->kind_ecn[f->client_dir][EW_SEG_FIN_RST][EW_ECN_NOT_ECT], 1);
    CU_ASSERT_EQUAL(f->inf->kind_ecn[f->client_dir ^ 1][EW_SEG_PURE_ACK][EW_ECN_NOT_ECT], 2);
    CU_ASSERT_EQUAL(c->ecn[EW_ECN_ECT_0], 1);
    CU_ASSERT_EQUAL(c->ecn[EW_ECN_CE], 1);
    CU_ASSERT_EQUAL(c->ecn[EW_ECN_NOT_ECT], 4);
    CU_ASSERT_EQUAL(c->payload_bytes, 3000);
    CU_ASSERT_EQUAL(c->ece, 1);
    CU_ASSERT_EQUAL(c->cwr, 2);
    CU_ASSERT_EQUAL(s->ece, 2);
    CU_ASSERT_EQUAL(f->first_frame, 1);
    CU_ASSERT_EQUAL(f->last_frame, 9);
    CU_ASSERT_EQUAL(an.tot.ip_packets, 9);
    CU_ASSERT_EQUAL(ew_flow_negotiation(f), EW_NEG_RFC3168);
    /* data and retransmissions carried Not-ECT and ECT(0): mixed */
    CU_ASSERT_STRING_EQUAL(ew_dir_sender_codepoint(f, f->client_dir), "mixed");
    CU_ASSERT_STRING_EQUAL(ew_dir_sender_codepoint(f, f->client_dir ^ 1), "none");
    ew_analyzer_free(&an);
}

static void
test_seq_wrap_not_retransmission(void)
{
    struct ew_dir_stats d;
    struct ew_tcp t;

    memset(&d, 0, sizeof(d));
    memset(&t, 0, sizeof(t));
    t.flags = EW_TCP_ACK;
    t.payload = 1000;
    t.seq = 0xfffffc00u;
    CU_ASSERT_EQUAL(ew_tcp_seg_kind(&d, &t), EW_SEG_DATA);
    t.seq = 0xfffffc00u + 1000; /* crosses zero */
    CU_ASSERT_EQUAL(ew_tcp_seg_kind(&d, &t), EW_SEG_DATA);
    t.seq = (uint32_t)(0xfffffc00u + 2000); /* again, after the wrap */
    CU_ASSERT_EQUAL(ew_tcp_seg_kind(&d, &t), EW_SEG_DATA);
    t.seq = 0xfffffc00u + 1000;
    CU_ASSERT_EQUAL(ew_tcp_seg_kind(&d, &t), EW_SEG_RETRANS);
}

struct neg_row {
    unsigned syn, synack; /* (AE,CWR,ECE) as 3 bits; synack 8 = none seen */
    enum ew_neg want;
};

static uint16_t
flags_of(unsigned bits)
{
    return (uint16_t)(((bits & 4) ? EW_TCP_AE : 0) | ((bits & 2) ? EW_TCP_CWR : 0) |
                      ((bits & 1) ? EW_TCP_ECE : 0));
}

static void
test_negotiation_table(void)
{
    static const struct neg_row rows[] = {
        {0, 0, EW_NEG_NONE},    {0, 1, EW_NEG_NONE},     {3, 1, EW_NEG_RFC3168},
        {3, 0, EW_NEG_REFUSED}, {3, 3, EW_NEG_BROKEN},   {3, 7, EW_NEG_BROKEN},
        {3, 2, EW_NEG_BROKEN},  {3, 4, EW_NEG_BROKEN},   {3, 6, EW_NEG_BROKEN},
        {3, 5, EW_NEG_RFC3168}, {7, 2, EW_NEG_ACCECN},   {7, 3, EW_NEG_ACCECN},
        {7, 4, EW_NEG_ACCECN},  {7, 6, EW_NEG_ACCECN},   {7, 5, EW_NEG_ACCECN},
        {7, 1, EW_NEG_RFC3168}, {7, 0, EW_NEG_REFUSED},  {7, 7, EW_NEG_BROKEN},
        {7, 8, EW_NEG_UNSEEN},  {3, 8, EW_NEG_UNSEEN},
    };
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct ew_analyzer an;
        struct ew_pkt p;
        struct ew_flow *f;

        init(&an);
        tcp_pkt(&p, CLI, (uint16_t)(EW_TCP_SYN | flags_of(rows[i].syn)), 1, 0, 0);
        ew_analyzer_frame(&an, &p, 1);
        if (rows[i].synack != 8) {
            tcp_pkt(&p, SRV, (uint16_t)(EW_TCP_SYN | EW_TCP_ACK | flags_of(rows[i].synack)), 1,
                    0, 0);
            ew_analyzer_frame(&an, &p, 2);
        }
        f = only_flow(&an);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        if (ew_flow_negotiation(f) != rows[i].want)
            fprintf(stderr, "row %zu: SYN %u SYN-ACK %u gave %s\n", i, rows[i].syn,
                    rows[i].synack, ew_neg_name[ew_flow_negotiation(f)]);
        CU_ASSERT_EQUAL(ew_flow_negotiation(f), rows[i].want);
        ew_analyzer_free(&an);
    }
}

static void
test_unseen_without_syn_and_synack_sets_client(void)
{
    struct ew_analyzer an;
    struct ew_pkt p;
    struct ew_flow *f;

    init(&an);
    tcp_pkt(&p, SRV, EW_TCP_SYN | EW_TCP_ACK | EW_TCP_ECE, 1, 0, 0);
    ew_analyzer_frame(&an, &p, 1);
    f = only_flow(&an);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(ew_flow_negotiation(f), EW_NEG_UNSEEN);
    /* a SYN-ACK goes to the client */
    CU_ASSERT_EQUAL(f->client_dir, EW_DIR_HI_LO);
    ew_analyzer_free(&an);
}

static void
test_non_ip_and_undecodable_counted(void)
{
    struct ew_analyzer an;
    struct ew_pkt p;

    init(&an);
    memset(&p, 0, sizeof(p));
    p.status = EW_PKT_NON_IP;
    ew_pkt_event(&p, EW_EV_NON_IP);
    ew_analyzer_frame(&an, &p, 1);
    memset(&p, 0, sizeof(p));
    p.status = EW_PKT_UNDECODABLE;
    ew_pkt_event(&p, EW_EV_IPV4_TRUNC);
    ew_analyzer_frame(&an, &p, 2);
    memset(&p, 0, sizeof(p));
    p.status = EW_PKT_UNDECODABLE;
    ew_pkt_event(&p, EW_EV_IPV4_HLEN_SMALL);
    ew_analyzer_frame(&an, &p, 3);
    CU_ASSERT_EQUAL(an.tot.frames, 3);
    CU_ASSERT_EQUAL(an.tot.non_ip, 1);
    CU_ASSERT_EQUAL(an.tot.undecodable, 2);
    CU_ASSERT_EQUAL(an.tot.truncated, 1);
    CU_ASSERT_EQUAL(an.tot.invalid, 1);
    CU_ASSERT_EQUAL(an.tot.ip_packets, 0);
    CU_ASSERT_EQUAL(an.tot.events[EW_EV_IPV4_TRUNC], 1);
    ew_analyzer_free(&an);
}

/* a TCP packet with RFC 7323 timestamps */
static void
ts_pkt(struct ew_pkt *p, int from, uint16_t flags, uint32_t seq, uint32_t payload, uint32_t tsval,
       uint32_t tsecr)
{
    tcp_pkt(p, from, flags, seq, payload, EW_ECN_ECT_0);
    p->u.tcp.has_ts = true;
    p->u.tcp.tsval = tsval;
    p->u.tcp.tsecr = tsecr;
}

/* Timestamps timed as pping does (RFC 7323 §3): the first packet with a new
 * TSval one way against the first packet coming back that echoes it. A TSval
 * seen again is not timed again, an echo seen again gives no second sample,
 * an echo of a later value drops the pending ones it passes without a sample,
 * a TSval sooner than an eighth of the loop's RTT after the last one noted
 * is not noted, and an ACK-less TSecr is not read (RFC 7323 §3.2). */
static void
test_ts_loops(void)
{
    struct ew_analyzer an;
    struct ew_pkt p;
    struct ew_flow *f;
    const struct ew_tsloop *l;
    const int64_t ms = 1000000;

    init(&an);
    ts_pkt(&p, CLI, EW_TCP_SYN, 100, 0, 1000, 0);
    ew_analyzer_frame(&an, &p, 0);
    ts_pkt(&p, SRV, EW_TCP_SYN | EW_TCP_ACK, 7000, 0, 50, 1000);
    ew_analyzer_frame(&an, &p, 20 * ms); /* 20 ms: client -> server -> here */
    ts_pkt(&p, CLI, EW_TCP_ACK, 101, 1000, 1000, 50);
    ew_analyzer_frame(&an, &p, 20 * ms); /* TSval 1000 again: not timed again */
    ts_pkt(&p, SRV, EW_TCP_ACK, 7001, 0, 51, 1000);
    ew_analyzer_frame(&an, &p, 40 * ms); /* a second echo of 1000: no sample */
    ts_pkt(&p, CLI, EW_TCP_ACK, 1101, 1000, 1001, 51);
    ew_analyzer_frame(&an, &p, 41 * ms); /* noted */
    ts_pkt(&p, CLI, EW_TCP_ACK, 2101, 1000, 1002, 51);
    ew_analyzer_frame(&an, &p, 42 * ms); /* 1 ms later, under 20/8: not noted */
    ts_pkt(&p, SRV, EW_TCP_ACK, 7001, 0, 52, 1002);
    ew_analyzer_frame(&an, &p, 66 * ms); /* passes 1001 without a sample */
    ts_pkt(&p, CLI, EW_TCP_ACK, 3101, 1000, 1030, 52);
    ew_analyzer_frame(&an, &p, 70 * ms);
    ts_pkt(&p, SRV, 0, 7001, 0, 53, 1030);
    ew_analyzer_frame(&an, &p, 95 * ms); /* no ACK flag: TSecr not valid */
    ts_pkt(&p, SRV, EW_TCP_ACK, 7001, 0, 54, 1030);
    ew_analyzer_frame(&an, &p, 96 * ms); /* 26 ms, 6 above the minimum */
    f = only_flow(&an);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    l = &f->inf->half[f->client_dir].ts;
    CU_ASSERT_EQUAL(l->samples, 2);
    CU_ASSERT_EQUAL(l->min, 20 * ms);
    CU_ASSERT_EQUAL(l->last, 26 * ms);
    CU_ASSERT_EQUAL(l->excess_max_us, 6000);
    /* the server's TSvals, echoed by the client: 0, 1 and 4 ms */
    l = &f->inf->half[f->client_dir ^ 1].ts;
    CU_ASSERT_EQUAL(l->samples, 3);
    CU_ASSERT_EQUAL(l->min, 0);
    ew_analyzer_free(&an);
}

int
ew_test_register_analyze(void)
{
    CU_pSuite s = CU_add_suite("analyze", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "segment kinds and the client", test_kinds_and_client) ||
        !CU_add_test(s, "timestamp loops, as pping times them", test_ts_loops) ||
        !CU_add_test(s, "sequence wrap is not a retransmission", test_seq_wrap_not_retransmission) ||
        !CU_add_test(s, "handshake table", test_negotiation_table) ||
        !CU_add_test(s, "SYN-ACK only: unseen, client known",
                     test_unseen_without_syn_and_synack_sets_client) ||
        !CU_add_test(s, "non-IP and undecodable counted", test_non_ip_and_undecodable_counted))
        return -1;
    return 0;
}
