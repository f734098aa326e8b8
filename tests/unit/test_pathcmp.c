/* test_pathcmp.c - unit tests of src/findings/pathcmp.c: the same packets matched
 * across an upstream and a downstream capture, and every change of the ECN
 * field named (RFC 3168 §18, RFC 9768 §3.2.2.3) with the frame numbers in
 * both captures. Packets are built as decoded values (struct ew_pkt), as the
 * reader hands them over; the payload bytes are passed beside them. What the
 * hop found is read as the report writes it (src/output/report_path.c). */
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissectors/ecn.h"
#include "findings/misuse.h"
#include "base/jw.h"
#include "findings/pathcmp.h"
#include "output/report.h"
#include "suites.h"

/* 10.0.0.9:40000 is the client, 10.0.0.1:443 the server */
enum { CLI = 9, SRV = 1, CPORT = 40000, SPORT = 443 };

static void
ip4(struct ew_pkt *p, uint8_t from, uint8_t to, uint16_t ip_id, uint8_t ecn)
{
    memset(p, 0, sizeof(*p));
    p->status = EW_PKT_OK;
    p->family = 4;
    p->src[10] = p->src[11] = p->dst[10] = p->dst[11] = 0xff;
    p->src[12] = p->dst[12] = 10;
    p->src[15] = from;
    p->dst[15] = to;
    p->ttl = 64;
    p->ip_id = ip_id;
    p->ecn = ecn;
}

/* a TCP segment between the client and the server (from: CLI or SRV) */
static void
tcp4(struct ew_pkt *p, int from, uint16_t ip_id, uint32_t seq, uint32_t ack, uint32_t payload,
     uint8_t ecn)
{
    ip4(p, from == CLI ? CLI : SRV, from == CLI ? SRV : CLI, ip_id, ecn);
    p->ip_proto = 6;
    p->l4 = EW_L4_TCP;
    p->ip_len = 40 + payload;
    p->u.tcp.sport = from == CLI ? CPORT : SPORT;
    p->u.tcp.dport = from == CLI ? SPORT : CPORT;
    p->u.tcp.flags = EW_TCP_ACK;
    p->u.tcp.seq = seq;
    p->u.tcp.ack = ack;
    p->u.tcp.doff = 5;
    p->u.tcp.payload = payload;
}

static void
udp4(struct ew_pkt *p, uint16_t sport, uint16_t dport, uint16_t ip_id, uint16_t payload,
     uint8_t ecn)
{
    ip4(p, CLI, SRV, ip_id, ecn);
    p->ip_proto = 17;
    p->l4 = EW_L4_UDP;
    p->ip_len = 28u + payload;
    p->u.udp.sport = sport;
    p->u.udp.dport = dport;
    p->u.udp.len = (uint16_t)(8 + payload);
    p->u.udp.payload = payload;
}

/* 2001:db8::9 to 2001:db8::1 (IPv6 has no IP ID) */
static void
ip6(struct ew_pkt *p, uint8_t proto, uint32_t l4_len, uint8_t ecn)
{
    memset(p, 0, sizeof(*p));
    p->status = EW_PKT_OK;
    p->family = 6;
    p->src[0] = p->dst[0] = 0x20;
    p->src[1] = p->dst[1] = 0x01;
    p->src[2] = p->dst[2] = 0x0d;
    p->src[3] = p->dst[3] = 0xb8;
    p->src[15] = CLI;
    p->dst[15] = SRV;
    p->ttl = 64;
    p->ecn = ecn;
    p->ip_proto = proto;
    p->ip_len = 40 + l4_len;
}

static void
tcp6(struct ew_pkt *p, uint32_t seq, uint32_t payload, uint8_t ecn)
{
    ip6(p, 6, 20 + payload, ecn);
    p->l4 = EW_L4_TCP;
    p->u.tcp.sport = CPORT;
    p->u.tcp.dport = SPORT;
    p->u.tcp.flags = EW_TCP_ACK;
    p->u.tcp.seq = seq;
    p->u.tcp.ack = 7000;
    p->u.tcp.doff = 5;
    p->u.tcp.payload = payload;
}

static void
udp6(struct ew_pkt *p, uint16_t payload, uint8_t ecn)
{
    ip6(p, 17, 8u + payload, ecn);
    p->l4 = EW_L4_UDP;
    p->u.udp.sport = CPORT;
    p->u.udp.dport = SPORT;
    p->u.udp.len = (uint16_t)(8 + payload);
    p->u.udp.payload = payload;
}

/* a fresh index and hop; the hop is from capture 1 to capture 2 */
static void
setup(struct ew_index **ix, struct ew_hop **hop, uint32_t max_index)
{
    *ix = ew_index_new(max_index);
    *hop = ew_hop_new(1, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*ix);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*hop);
}

static void
teardown(struct ew_index *ix, struct ew_hop *hop)
{
    ew_hop_free(hop);
    ew_index_free(ix);
}

/* the same packet as it arrives downstream, with another ECN field */
static struct ew_pkt
as_ecn(const struct ew_pkt *p, uint8_t ecn)
{
    struct ew_pkt q = *p;

    q.ecn = ecn;
    q.ttl = (uint8_t)(p->ttl - 3); /* three routers on the way */
    return q;
}

/* the hop as the report's "path" has it, parsed */
static json_t *
hop_json(const struct ew_hop *hop, const char *up, const char *down)
{
    char *m = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&m, &n);
    struct jw w;
    json_t *o;

    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    CU_ASSERT_EQUAL_FATAL(jw_init(&w, fp, 0, 10), 0);
    ew_report_hop_write(&w, hop, up, down);
    CU_ASSERT_EQUAL(jw_finish(&w), 0);
    fclose(fp);
    o = json_loadb(m, n, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    free(m);
    return o;
}

static json_int_t
ival(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    CU_ASSERT_TRUE(json_is_integer(v));
    return json_integer_value(v);
}

static const char *
sval(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    CU_ASSERT_PTR_NOT_NULL(s);
    return s ? s : "";
}

/* the hop's counters, in the order of the report's members */
static void
check_counts(const json_t *o, json_int_t matched, json_int_t unchanged, json_int_t only_up,
             json_int_t only_down, json_int_t not_indexed)
{
    CU_ASSERT_EQUAL(ival(o, "matched"), matched);
    CU_ASSERT_EQUAL(ival(o, "unchanged"), unchanged);
    CU_ASSERT_EQUAL(ival(o, "only_upstream"), only_up);
    CU_ASSERT_EQUAL(ival(o, "only_downstream"), only_down);
    CU_ASSERT_EQUAL(ival(o, "not_indexed"), not_indexed);
}

/* a change: its codepoints, misuse kind (NULL: congestion marking), count,
 * and every [upstream frame, downstream frame] pair in downstream order */
static void
check_change(const json_t *c, const char *from, const char *to, const char *misuse,
             json_int_t count, const uint64_t (*pairs)[2], size_t npairs)
{
    const json_t *frames = json_object_get(c, "frames");
    const json_t *first = json_object_get(c, "first_frames");
    size_t i;

    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(sval(c, "from"), from);
    CU_ASSERT_STRING_EQUAL(sval(c, "to"), to);
    if (misuse) {
        CU_ASSERT_STRING_EQUAL(sval(c, "misuse"), misuse);
    } else {
        CU_ASSERT_TRUE(json_is_null(json_object_get(c, "misuse")));
    }
    CU_ASSERT_EQUAL(ival(c, "count"), count);
    CU_ASSERT_EQUAL_FATAL(json_array_size(frames), npairs);
    for (i = 0; i < npairs; i++) {
        const json_t *pr = json_array_get(frames, i);

        CU_ASSERT_EQUAL(json_array_size(pr), 2);
        CU_ASSERT_EQUAL(json_integer_value(json_array_get(pr, 0)), (json_int_t)pairs[i][0]);
        CU_ASSERT_EQUAL(json_integer_value(json_array_get(pr, 1)), (json_int_t)pairs[i][1]);
    }
    CU_ASSERT_EQUAL(json_array_size(first), 2);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(first, 0)), (json_int_t)pairs[0][0]);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(first, 1)), (json_int_t)pairs[0][1]);
}

static void
check_endpoint(const json_t *c, const char *which, const char *addr, json_int_t port)
{
    const json_t *e = json_object_get(c, which);

    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(sval(e, "addr"), addr);
    CU_ASSERT_EQUAL(ival(e, "port"), port);
}

/* the hop as text, in a string to free */
static char *
text_of(const struct ew_hop *hop, const char *up, const char *down)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    ew_report_hop_text(f, hop, up, down);
    fclose(f);
    return buf;
}

static size_t
count_lines(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The same four packets (two directions of a TCP connection and a UDP
 * datagram) at both points, three routers apart: every packet matched, none
 * changed, nothing to report and no misuse kind. */
static void
test_identical_unchanged(void)
{
    static const uint8_t dgram[] = {0x40, 0x01, 0x02, 0x03, 0x04, 0x05};
    struct ew_index *ix;
    struct ew_hop *hop;
    struct ew_pkt p[4], q;
    uint64_t counts[32] = {0};
    json_t *o;
    char *txt;
    int i;

    setup(&ix, &hop, 16);
    tcp4(&p[0], CLI, 100, 1000, 7000, 1000, EW_ECN_ECT_0);
    tcp4(&p[1], SRV, 500, 7000, 2000, 0, EW_ECN_NOT_ECT);
    tcp4(&p[2], CLI, 101, 2000, 7000, 1000, EW_ECN_ECT_0);
    udp4(&p[3], 50000, 4433, 0, sizeof(dgram), EW_ECN_ECT_1);
    for (i = 0; i < 4; i++)
        ew_index_add(ix, &p[i], i == 3 ? dgram : NULL, i == 3 ? sizeof(dgram) : 0,
                     (uint64_t)i + 1);
    for (i = 0; i < 4; i++) {
        q = as_ecn(&p[i], p[i].ecn);
        ew_hop_match(hop, ix, &q, i == 3 ? dgram : NULL, i == 3 ? sizeof(dgram) : 0,
                     (uint64_t)i + 21);
    }
    ew_hop_finish(hop, ix);

    o = hop_json(hop, "a.pcap", "b.pcap");
    CU_ASSERT_EQUAL(ival(o, "from_capture"), 1);
    CU_ASSERT_EQUAL(ival(o, "to_capture"), 2);
    CU_ASSERT_STRING_EQUAL(sval(o, "from"), "a.pcap");
    CU_ASSERT_STRING_EQUAL(sval(o, "to"), "b.pcap");
    check_counts(o, 4, 4, 0, 0, 0);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(o, "changes")), 0);
    CU_ASSERT_PTR_NULL(json_object_get(o, "changes_not_listed"));
    json_decref(o);

    CU_ASSERT_EQUAL(ew_hop_kinds(hop, counts), 0);
    for (i = 0; i < 32; i++)
        CU_ASSERT_EQUAL(counts[i], 0);

    txt = text_of(hop, "a.pcap", "b.pcap");
    CU_ASSERT_STRING_EQUAL(txt, "\nPATH a.pcap -> b.pcap: 4 packets matched, 4 unchanged, "
                                "0 only upstream, 0 only downstream\n");
    free(txt);
    teardown(ix, hop);
}

/* What the path may rewrite does not identify a packet: TTL, DSCP, the TCP
 * ECN flags (ECE, CWR, AE), PSH, the window. What identifies it does: IP ID,
 * sequence and acknowledgement numbers, the IP length, the ports, SYN. */
static void
test_identity_fields(void)
{
    struct ew_index *ix;
    struct ew_hop *hop;
    struct ew_pkt up, q;
    json_t *o;

    setup(&ix, &hop, 16);
    tcp4(&up, CLI, 100, 1000, 7000, 1000, EW_ECN_ECT_0);
    up.u.tcp.window = 512;
    ew_index_add(ix, &up, NULL, 0, 1);

    /* rewritten on the way: still the same packet, with the same ECN field */
    q = as_ecn(&up, EW_ECN_ECT_0);
    q.dscp = 10;
    q.u.tcp.flags |= EW_TCP_ECE | EW_TCP_CWR | EW_TCP_AE | EW_TCP_PSH;
    q.u.tcp.window = 100;
    ew_hop_match(hop, ix, &q, NULL, 0, 10);

    /* each of these is another packet, and matches nothing */
    q = up;
    q.ip_id = 101;
    ew_hop_match(hop, ix, &q, NULL, 0, 11);
    q = up;
    q.u.tcp.seq += 1000;
    ew_hop_match(hop, ix, &q, NULL, 0, 12);
    q = up;
    q.u.tcp.ack += 1;
    ew_hop_match(hop, ix, &q, NULL, 0, 13);
    q = up;
    q.ip_len -= 1;
    ew_hop_match(hop, ix, &q, NULL, 0, 14);
    q = up;
    q.u.tcp.sport = CPORT + 1;
    ew_hop_match(hop, ix, &q, NULL, 0, 15);
    q = up;
    q.u.tcp.flags |= EW_TCP_SYN;
    ew_hop_match(hop, ix, &q, NULL, 0, 16);
    ew_hop_finish(hop, ix);

    o = hop_json(hop, "a", "b");
    check_counts(o, 1, 1, 0, 6, 0);
    json_decref(o);
    teardown(ix, hop);

    /* a packet whose only change is one of the identifying fields is not
     * mistaken for its upstream self: it stays unmatched on both sides */
    setup(&ix, &hop, 16);
    ew_index_add(ix, &up, NULL, 0, 1);
    q = up;
    q.u.tcp.seq += 1;
    ew_hop_match(hop, ix, &q, NULL, 0, 2);
    ew_hop_finish(hop, ix);
    o = hop_json(hop, "a", "b");
    check_counts(o, 0, 0, 1, 1, 0);
    json_decref(o);
    teardown(ix, hop);
}

/* Bleaching, remarking, erasing a mark, and marking, on packets that arrive
 * downstream in another order than they left upstream (RFC 3168 §18 names;
 * ew_hop_kinds maps them to misuse kinds, congestion marking to none):
 *   up 1, 2  ECT(0)  -> down 102, 101  Not-ECT   bleaching, 2 packets
 *   up 3     ECT(1)  -> down 103       ECT(0)    remarking (the L4S identifier lost)
 *   up 5     ECT(0)  -> down 104       CE        congestion marking: no kind
 *   up 4     CE      -> down 105       ECT(0)    ce_unmarked
 * The ECT(1) packet belongs to a second connection (client port 40001). */
static void
test_transitions_and_frames(void)
{
    static const uint64_t bleached[][2] = {{2, 101}, {1, 102}};
    static const uint64_t remarked[][2] = {{3, 103}};
    static const uint64_t marked[][2] = {{5, 104}};
    static const uint64_t erased[][2] = {{4, 105}};
    struct ew_index *ix;
    struct ew_hop *hop;
    struct ew_pkt p[5], q;
    uint64_t counts[32] = {0};
    uint32_t mask;
    const json_t *ch;
    json_t *o;
    int i;

    setup(&ix, &hop, 16);
    tcp4(&p[0], CLI, 1, 1000, 7000, 1000, EW_ECN_ECT_0);
    tcp4(&p[1], CLI, 2, 2000, 7000, 1000, EW_ECN_ECT_0);
    tcp4(&p[2], CLI, 3, 3000, 7000, 1000, EW_ECN_ECT_1);
    p[2].u.tcp.sport = CPORT + 1;
    tcp4(&p[3], CLI, 4, 4000, 7000, 1000, EW_ECN_CE);
    tcp4(&p[4], CLI, 5, 5000, 7000, 1000, EW_ECN_ECT_0);
    for (i = 0; i < 5; i++)
        ew_index_add(ix, &p[i], NULL, 0, (uint64_t)i + 1);

    q = as_ecn(&p[1], EW_ECN_NOT_ECT);
    ew_hop_match(hop, ix, &q, NULL, 0, 101);
    q = as_ecn(&p[0], EW_ECN_NOT_ECT);
    ew_hop_match(hop, ix, &q, NULL, 0, 102);
    q = as_ecn(&p[2], EW_ECN_ECT_0);
    ew_hop_match(hop, ix, &q, NULL, 0, 103);
    q = as_ecn(&p[4], EW_ECN_CE);
    ew_hop_match(hop, ix, &q, NULL, 0, 104);
    q = as_ecn(&p[3], EW_ECN_ECT_0);
    ew_hop_match(hop, ix, &q, NULL, 0, 105);
    ew_hop_finish(hop, ix);

    o = hop_json(hop, "up", "down");
    check_counts(o, 5, 0, 0, 0, 0);
    CU_ASSERT_EQUAL_FATAL(json_array_size(json_object_get(o, "changes")), 4);
    /* in order of first occurrence downstream */
    ch = json_array_get(json_object_get(o, "changes"), 0);
    check_change(ch, "ect0", "not_ect", "bleaching", 2, bleached, 2);
    check_endpoint(ch, "src", "10.0.0.9", CPORT);
    check_endpoint(ch, "dst", "10.0.0.1", SPORT);
    CU_ASSERT_STRING_EQUAL(sval(ch, "proto"), "tcp");
    CU_ASSERT_STRING_EQUAL(sval(ch, "meaning"), "ECN capability cleared (bleaching)");
    ch = json_array_get(json_object_get(o, "changes"), 1);
    check_change(ch, "ect1", "ect0", "remarking", 1, remarked, 1);
    check_endpoint(ch, "src", "10.0.0.9", CPORT + 1);
    CU_ASSERT_STRING_EQUAL(sval(ch, "meaning"), "ECT(1) turned ECT(0): the L4S identifier lost");
    ch = json_array_get(json_object_get(o, "changes"), 2);
    check_change(ch, "ect0", "ce", NULL, 1, marked, 1);
    CU_ASSERT_STRING_EQUAL(sval(ch, "meaning"), "congestion marking");
    ch = json_array_get(json_object_get(o, "changes"), 3);
    check_change(ch, "ce", "ect0", "ce_unmarked", 1, erased, 1);
    CU_ASSERT_STRING_EQUAL(sval(ch, "meaning"), "a congestion mark erased");
    CU_ASSERT_PTR_NULL(json_object_get(o, "changes_not_listed"));
    json_decref(o);

    /* the counts add to what the caller holds (one hop after another) */
    counts[EW_MU_BLEACHING] = 1;
    mask = ew_hop_kinds(hop, counts);
    CU_ASSERT_EQUAL(mask, (1u << EW_MU_BLEACHING) | (1u << EW_MU_REMARKING) |
                              (1u << EW_MU_CE_UNMARKED));
    CU_ASSERT_EQUAL(counts[EW_MU_BLEACHING], 3);
    CU_ASSERT_EQUAL(counts[EW_MU_REMARKING], 1);
    CU_ASSERT_EQUAL(counts[EW_MU_CE_UNMARKED], 1);
    CU_ASSERT_EQUAL(counts[EW_MU_CE_ON_NOT_ECT], 0);
    CU_ASSERT_EQUAL(counts[EW_MU_ECT_ON_NOT_ECT], 0);
    teardown(ix, hop);
}

/* The other transitions, and directions: Not-ECT made CE (ce_on_not_ect) or
 * ECT(1) (ect_on_not_ect), ECT(0) made ECT(1) (remarking, the SCE-style
 * meaning), CE made Not-ECT (ce_unmarked). The same change in the two
 * directions of one connection is two changes, each named by its sender. */
static void
test_other_transitions_and_directions(void)
{
    static const uint64_t c2s[][2] = {{1, 11}};
    static const uint64_t s2c[][2] = {{2, 12}};
    static const uint64_t ect1[][2] = {{3, 13}};
    static const uint64_t sce[][2] = {{4, 14}};
    static const uint64_t erased[][2] = {{5, 15}};
    struct ew_index *ix;
    struct ew_hop *hop;
    struct ew_pkt p[5], q;
    uint64_t counts[32] = {0};
    const json_t *ch;
    json_t *o;
    int i;

    setup(&ix, &hop, 16);
    tcp4(&p[0], CLI, 1, 1000, 7000, 0, EW_ECN_NOT_ECT); /* pure ACKs */
    tcp4(&p[1], SRV, 2, 7000, 1000, 0, EW_ECN_NOT_ECT);
    tcp4(&p[2], CLI, 3, 1000, 7000, 100, EW_ECN_NOT_ECT);
    tcp4(&p[3], CLI, 4, 1100, 7000, 100, EW_ECN_ECT_0);
    tcp4(&p[4], CLI, 5, 1200, 7000, 100, EW_ECN_CE);
    for (i = 0; i < 5; i++)
        ew_index_add(ix, &p[i], NULL, 0, (uint64_t)i + 1);
    q = as_ecn(&p[0], EW_ECN_CE);
    ew_hop_match(hop, ix, &q, NULL, 0, 11);
    q = as_ecn(&p[1], EW_ECN_CE);
    ew_hop_match(hop, ix, &q, NULL, 0, 12);
    q = as_ecn(&p[2], EW_ECN_ECT_1);
    ew_hop_match(hop, ix, &q, NULL, 0, 13);
    q = as_ecn(&p[3], EW_ECN_ECT_1);
    ew_hop_match(hop, ix, &q, NULL, 0, 14);
    q = as_ecn(&p[4], EW_ECN_NOT_ECT);
    ew_hop_match(hop, ix, &q, NULL, 0, 15);
    ew_hop_finish(hop, ix);

    o = hop_json(hop, "up", "down");
    check_counts(o, 5, 0, 0, 0, 0);
    CU_ASSERT_EQUAL_FATAL(json_array_size(json_object_get(o, "changes")), 5);
    ch = json_array_get(json_object_get(o, "changes"), 0);
    check_change(ch, "not_ect", "ce", "ce_on_not_ect", 1, c2s, 1);
    check_endpoint(ch, "src", "10.0.0.9", CPORT);
    check_endpoint(ch, "dst", "10.0.0.1", SPORT);
    CU_ASSERT_STRING_EQUAL(sval(ch, "meaning"), "a packet that is not ECN-capable marked CE");
    ch = json_array_get(json_object_get(o, "changes"), 1);
    check_change(ch, "not_ect", "ce", "ce_on_not_ect", 1, s2c, 1);
    check_endpoint(ch, "src", "10.0.0.1", SPORT);
    check_endpoint(ch, "dst", "10.0.0.9", CPORT);
    ch = json_array_get(json_object_get(o, "changes"), 2);
    check_change(ch, "not_ect", "ect1", "ect_on_not_ect", 1, ect1, 1);
    ch = json_array_get(json_object_get(o, "changes"), 3);
    check_change(ch, "ect0", "ect1", "remarking", 1, sce, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(sval(ch, "meaning"), "SCE-style"));
    ch = json_array_get(json_object_get(o, "changes"), 4);
    check_change(ch, "ce", "not_ect", "ce_unmarked", 1, erased, 1);
    json_decref(o);

    CU_ASSERT_EQUAL(ew_hop_kinds(hop, counts),
                    (1u << EW_MU_CE_ON_NOT_ECT) | (1u << EW_MU_ECT_ON_NOT_ECT) |
                        (1u << EW_MU_REMARKING) | (1u << EW_MU_CE_UNMARKED));
    CU_ASSERT_EQUAL(counts[EW_MU_CE_ON_NOT_ECT], 2);
    CU_ASSERT_EQUAL(counts[EW_MU_ECT_ON_NOT_ECT], 1);
    CU_ASSERT_EQUAL(counts[EW_MU_REMARKING], 1);
    CU_ASSERT_EQUAL(counts[EW_MU_CE_UNMARKED], 1);
    CU_ASSERT_EQUAL(counts[EW_MU_BLEACHING], 0);
    teardown(ix, hop);
}

/* Packets lost (or filtered) between the points stay upstream; packets added
 * (or captured only downstream) stay downstream. ew_hop_finish counts the
 * upstream ones, and may be called again. Frames that are not IP are
 * neither indexed nor matched. Upstream: frames 1-4; downstream: 2 and 4
 * (as frames 7 and 8), a new one (9), and a frame that is not IP (10). */
static void
test_unmatched_counted_by_finish(void)
{
    struct ew_index *ix;
    struct ew_hop *hop;
    struct ew_pkt p[4], q, junk;
    json_t *o;
    int i;

    setup(&ix, &hop, 16);
    memset(&junk, 0, sizeof(junk));
    junk.status = EW_PKT_NON_IP;
    for (i = 0; i < 4; i++) {
        tcp4(&p[i], CLI, (uint16_t)(10 + i), 1000u + 1000u * (uint32_t)i, 7000, 1000,
             EW_ECN_ECT_0);
        ew_index_add(ix, &p[i], NULL, 0, (uint64_t)i + 1);
    }
    ew_index_add(ix, &junk, NULL, 0, 5);
    q = as_ecn(&p[1], EW_ECN_ECT_0);
    ew_hop_match(hop, ix, &q, NULL, 0, 7);
    q = as_ecn(&p[3], EW_ECN_ECT_0);
    ew_hop_match(hop, ix, &q, NULL, 0, 8);
    tcp4(&q, CLI, 99, 99000, 7000, 1000, EW_ECN_ECT_0);
    ew_hop_match(hop, ix, &q, NULL, 0, 9);
    ew_hop_match(hop, ix, &junk, NULL, 0, 10);

    /* before finishing, nothing is known about the upstream side */
    o = hop_json(hop, "a", "b");
    check_counts(o, 2, 2, 0, 1, 0);
    json_decref(o);

    ew_hop_finish(hop, ix);
    o = hop_json(hop, "a", "b");
    check_counts(o, 2, 2, 2, 1, 0);
    json_decref(o);
    ew_hop_finish(hop, ix);
    o = hop_json(hop, "a", "b");
    check_counts(o, 2, 2, 2, 1, 0);
    json_decref(o);
    teardown(ix, hop);
}

/* At most max_index upstream packets are indexed: with a bound of 3, the
 * fourth and fifth packets are counted as not indexed (reported by
 * ew_hop_finish), cannot be matched (their downstream copies are counted
 * only downstream), and are not counted as only upstream. */
static void
test_index_bound(void)
{
    struct ew_index *ix;
    struct ew_hop *hop;
    struct ew_pkt p[5], q;
    json_t *o;
    int i;

    setup(&ix, &hop, 3);
    for (i = 0; i < 5; i++) {
        tcp4(&p[i], CLI, (uint16_t)(10 + i), 1000u + 1000u * (uint32_t)i, 7000, 1000,
             EW_ECN_ECT_0);
        ew_index_add(ix, &p[i], NULL, 0, (uint64_t)i + 1);
    }
    for (i = 4; i >= 1; i--) {
        q = as_ecn(&p[i], EW_ECN_NOT_ECT);
        ew_hop_match(hop, ix, &q, NULL, 0, (uint64_t)i + 100);
    }
    ew_hop_finish(hop, ix);
    o = hop_json(hop, "a", "b");
    /* indexed: frames 1-3; matched: 2 and 3 (bleached); only upstream: 1 */
    check_counts(o, 2, 0, 1, 2, 2);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(o, "changes")), 1);
    CU_ASSERT_EQUAL(ival(json_array_get(json_object_get(o, "changes"), 0), "count"), 2);
    json_decref(o);
    teardown(ix, hop);

    /* a bound of zero indexes nothing */
    setup(&ix, &hop, 0);
    ew_index_add(ix, &p[0], NULL, 0, 1);
    ew_hop_match(hop, ix, &p[0], NULL, 0, 1);
    ew_hop_finish(hop, ix);
    o = hop_json(hop, "a", "b");
    check_counts(o, 0, 0, 0, 1, 1);
    json_decref(o);
    teardown(ix, hop);
}

/* UDP datagrams and IPv6 packets can share every header field (no IP ID:
 * IPv6 has none, and many UDP senders leave it 0): a few payload bytes tell
 * them apart. Upstream A then B; downstream B then A, each with its ECN
 * field unchanged: both must be matched unchanged. Matched by headers alone,
 * B would pair with A and show two changes. IPv4 TCP is matched by its
 * headers only: there the payload is not read. */
static void
test_payload_tells_apart(void)
{
    static const uint8_t a[] = {0xc3, 0, 0, 0, 1, 8, 1, 2, 3, 4, 5, 6, 7, 8, 0xaa, 0xaa};
    static const uint8_t b[] = {0xc3, 0, 0, 0, 1, 8, 1, 2, 3, 4, 5, 6, 7, 8, 0xbb, 0xbb};
    struct ew_index *ix;
    struct ew_hop *hop;
    struct ew_pkt pa, pb;
    json_t *o;
    int kind;

    /* 0: IPv4 UDP, 1: IPv6 UDP, 2: IPv6 TCP (same segment sent twice, no
     * timestamps, different bytes: a window probe, say) */
    for (kind = 0; kind < 3; kind++) {
        setup(&ix, &hop, 16);
        if (kind == 0) {
            udp4(&pa, 50000, 4433, 0, sizeof(a), EW_ECN_ECT_0);
            udp4(&pb, 50000, 4433, 0, sizeof(b), EW_ECN_ECT_1);
        } else if (kind == 1) {
            udp6(&pa, sizeof(a), EW_ECN_ECT_0);
            udp6(&pb, sizeof(b), EW_ECN_ECT_1);
        } else {
            tcp6(&pa, 1000, sizeof(a), EW_ECN_ECT_0);
            tcp6(&pb, 1000, sizeof(b), EW_ECN_ECT_1);
        }
        ew_index_add(ix, &pa, a, sizeof(a), 1);
        ew_index_add(ix, &pb, b, sizeof(b), 2);
        ew_hop_match(hop, ix, &pb, b, sizeof(b), 11);
        ew_hop_match(hop, ix, &pa, a, sizeof(a), 12);
        ew_hop_finish(hop, ix);
        o = hop_json(hop, "a", "b");
        check_counts(o, 2, 2, 0, 0, 0);
        CU_ASSERT_EQUAL(json_array_size(json_object_get(o, "changes")), 0);
        json_decref(o);
        teardown(ix, hop);
    }

    /* an IPv6 change names IPv6 endpoints and the transport */
    setup(&ix, &hop, 16);
    udp6(&pa, sizeof(a), EW_ECN_ECT_0);
    ew_index_add(ix, &pa, a, sizeof(a), 1);
    pb = as_ecn(&pa, EW_ECN_NOT_ECT);
    ew_hop_match(hop, ix, &pb, a, sizeof(a), 5);
    ew_hop_finish(hop, ix);
    o = hop_json(hop, "a", "b");
    {
        static const uint64_t pr[][2] = {{1, 5}};
        const json_t *ch = json_array_get(json_object_get(o, "changes"), 0);

        check_change(ch, "ect0", "not_ect", "bleaching", 1, pr, 1);
        check_endpoint(ch, "src", "2001:db8::9", CPORT);
        check_endpoint(ch, "dst", "2001:db8::1", SPORT);
        CU_ASSERT_STRING_EQUAL(sval(ch, "proto"), "udp");
    }
    json_decref(o);
    teardown(ix, hop);

    /* IPv4 TCP: two segments alike in every header field are one packet to
     * the matcher whatever their bytes; they pair in upstream order */
    setup(&ix, &hop, 16);
    tcp4(&pa, CLI, 7, 1000, 7000, sizeof(a), EW_ECN_ECT_0);
    pb = pa;
    pb.ecn = EW_ECN_ECT_1;
    ew_index_add(ix, &pa, a, sizeof(a), 1);
    ew_index_add(ix, &pb, b, sizeof(b), 2);
    ew_hop_match(hop, ix, &pb, b, sizeof(b), 11); /* pairs with frame 1 */
    ew_hop_match(hop, ix, &pa, a, sizeof(a), 12); /* pairs with frame 2 */
    ew_hop_finish(hop, ix);
    o = hop_json(hop, "a", "b");
    check_counts(o, 2, 0, 0, 0, 0);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(o, "changes")), 2);
    json_decref(o);
    teardown(ix, hop);
}

/* Retransmissions and duplicates.
 * - An IPv4 retransmission carries a new IP ID: a packet of its own. Only
 *   the retransmission (upstream frame 2) got through, bleached: it pairs
 *   with frame 2, and the original (frame 1) stays upstream.
 * - An IPv6 retransmission with TCP timestamps differs in TSval.
 * - Exact duplicates (frames 3 and 4, a packet copied on the way) are
 *   matched one for one in upstream order: the first downstream copy with
 *   frame 3, the second with frame 4, and a third copy has no upstream
 *   packet left (only downstream). */
static void
test_retransmissions_and_duplicates(void)
{
    static const uint64_t bleached[][2] = {{2, 7}, {3, 8}};
    static const uint64_t tsval[][2] = {{21, 31}};
    static const uint8_t bytes[] = {1, 2, 3, 4};
    struct ew_index *ix;
    struct ew_hop *hop;
    struct ew_pkt orig, re, dup, q, t1, t2;
    json_t *o;

    setup(&ix, &hop, 16);
    tcp4(&orig, CLI, 100, 1000, 7000, 1000, EW_ECN_ECT_0);
    re = orig;
    re.ip_id = 103; /* sent later, the same segment */
    tcp4(&dup, CLI, 101, 2000, 7000, 1000, EW_ECN_ECT_0);
    ew_index_add(ix, &orig, NULL, 0, 1);
    ew_index_add(ix, &re, NULL, 0, 2);
    ew_index_add(ix, &dup, NULL, 0, 3);
    ew_index_add(ix, &dup, NULL, 0, 4);
    q = as_ecn(&re, EW_ECN_NOT_ECT);
    ew_hop_match(hop, ix, &q, NULL, 0, 7);
    q = as_ecn(&dup, EW_ECN_NOT_ECT);
    ew_hop_match(hop, ix, &q, NULL, 0, 8);
    q = as_ecn(&dup, EW_ECN_ECT_0);
    ew_hop_match(hop, ix, &q, NULL, 0, 9);
    ew_hop_match(hop, ix, &q, NULL, 0, 10);

    /* IPv6: TSval tells the retransmission (frame 21) from the original (20) */
    tcp6(&t1, 50000, sizeof(bytes), EW_ECN_ECT_1);
    t1.u.tcp.has_ts = true;
    t1.u.tcp.tsval = 1000;
    t2 = t1;
    t2.u.tcp.tsval = 1200;
    ew_index_add(ix, &t1, bytes, sizeof(bytes), 20);
    ew_index_add(ix, &t2, bytes, sizeof(bytes), 21);
    q = as_ecn(&t2, EW_ECN_ECT_0);
    ew_hop_match(hop, ix, &q, bytes, sizeof(bytes), 31);
    ew_hop_finish(hop, ix);

    o = hop_json(hop, "a", "b");
    /* matched: 7, 8, 9, 31; only upstream: 1 and 20; only downstream: 10 */
    check_counts(o, 4, 1, 2, 1, 0);
    CU_ASSERT_EQUAL_FATAL(json_array_size(json_object_get(o, "changes")), 2);
    check_change(json_array_get(json_object_get(o, "changes"), 0), "ect0", "not_ect",
                 "bleaching", 2, bleached, 2);
    check_change(json_array_get(json_object_get(o, "changes"), 1), "ect1", "ect0", "remarking",
                 1, tsval, 1);
    json_decref(o);
    teardown(ix, hop);
}

/* The text: a header line with the counts, then one line per change with
 * its endpoints, codepoints, count, first frames and meaning. Two changes
 * (three bleached packets, one CE erased) give three lines after the
 * leading blank one. */
static void
test_text_one_line_per_change(void)
{
    struct ew_index *ix;
    struct ew_hop *hop;
    struct ew_pkt p[5], q;
    char *txt;
    int i;

    setup(&ix, &hop, 16);
    for (i = 0; i < 5; i++) {
        tcp4(&p[i], CLI, (uint16_t)(10 + i), 1000u + 1000u * (uint32_t)i, 7000, 1000,
             i == 3 ? EW_ECN_CE : EW_ECN_ECT_0);
        ew_index_add(ix, &p[i], NULL, 0, (uint64_t)i + 1);
    }
    for (i = 0; i < 4; i++) {
        q = as_ecn(&p[i], i == 3 ? EW_ECN_ECT_0 : EW_ECN_NOT_ECT);
        ew_hop_match(hop, ix, &q, NULL, 0, (uint64_t)i + 41);
    }
    ew_hop_finish(hop, ix);

    txt = text_of(hop, "a.pcap", "b.pcap");
    CU_ASSERT_EQUAL(count_lines(txt), 1 + 1 + 2);
    CU_ASSERT_STRING_EQUAL(
        txt, "\nPATH a.pcap -> b.pcap: 4 packets matched, 0 unchanged, 1 only upstream, "
             "0 only downstream\n"
             "  10.0.0.9:40000 -> 10.0.0.1:443  ECT(0) -> Not-ECT  3x (first: frame 1 -> frame "
             "41): ECN capability cleared (bleaching)\n"
             "  10.0.0.9:40000 -> 10.0.0.1:443  CE -> ECT(0)  1x (first: frame 4 -> frame 44): "
             "a congestion mark erased\n");
    free(txt);
    teardown(ix, hop);
}

/* The bounds on what is listed (ecnwatch-report(5): 200000 pairs and 4096
 * changes per hop): past them, changes are still counted, in count and in
 * changes_not_listed, but not listed. */
static void
test_listing_bounds(void)
{
    struct ew_index *ix;
    struct ew_hop *hop;
    struct ew_pkt p, q;
    const json_t *ch;
    json_t *o;
    uint32_t i;

    CU_ASSERT_EQUAL(EW_PATH_MAX_PAIRS, 200000);
    CU_ASSERT_EQUAL(EW_PATH_MAX_GROUPS, 4096);

    /* one more bleached packet than pairs are listed, all of one flow */
    setup(&ix, &hop, EW_PATH_MAX_PAIRS + 1);
    for (i = 0; i <= EW_PATH_MAX_PAIRS; i++) {
        tcp4(&p, CLI, (uint16_t)i, 1000 + 1000 * i, 7000, 1000, EW_ECN_ECT_0);
        ew_index_add(ix, &p, NULL, 0, (uint64_t)i + 1);
        q = as_ecn(&p, EW_ECN_NOT_ECT);
        ew_hop_match(hop, ix, &q, NULL, 0, (uint64_t)i + 1);
    }
    ew_hop_finish(hop, ix);
    o = hop_json(hop, "a", "b");
    check_counts(o, EW_PATH_MAX_PAIRS + 1, 0, 0, 0, 0);
    CU_ASSERT_EQUAL_FATAL(json_array_size(json_object_get(o, "changes")), 1);
    ch = json_array_get(json_object_get(o, "changes"), 0);
    CU_ASSERT_EQUAL(ival(ch, "count"), EW_PATH_MAX_PAIRS + 1);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(ch, "frames")), EW_PATH_MAX_PAIRS);
    CU_ASSERT_EQUAL(ival(o, "changes_not_listed"), 1);
    json_decref(o);
    teardown(ix, hop);

    /* one more flow with a change than changes are listed: a client port each */
    setup(&ix, &hop, EW_PATH_MAX_GROUPS + 1);
    for (i = 0; i <= EW_PATH_MAX_GROUPS; i++) {
        tcp4(&p, CLI, 1, 1000, 7000, 1000, EW_ECN_ECT_1);
        p.u.tcp.sport = (uint16_t)(20000 + i);
        ew_index_add(ix, &p, NULL, 0, (uint64_t)i + 1);
        q = as_ecn(&p, EW_ECN_NOT_ECT);
        ew_hop_match(hop, ix, &q, NULL, 0, (uint64_t)i + 1);
    }
    ew_hop_finish(hop, ix);
    o = hop_json(hop, "a", "b");
    check_counts(o, EW_PATH_MAX_GROUPS + 1, 0, 0, 0, 0);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(o, "changes")), EW_PATH_MAX_GROUPS);
    CU_ASSERT_EQUAL(ival(o, "changes_not_listed"), 1);
    /* the last listed is the 4096th flow; the 4097th is the one left out */
    ch = json_array_get(json_object_get(o, "changes"), EW_PATH_MAX_GROUPS - 1);
    check_endpoint(ch, "src", "10.0.0.9", 20000 + EW_PATH_MAX_GROUPS - 1);
    json_decref(o);
    teardown(ix, hop);
}

/* a packet as the underlay carries it: in VXLAN (VNI 42) between 192.0.2.1
 * and 192.0.2.2, its outer header's ECN field `outer` */
static struct ew_pkt
in_vxlan(const struct ew_pkt *p, uint8_t outer)
{
    struct ew_pkt q = *p;

    q.n_encap = 1;
    memset(&q.encap[0], 0, sizeof(q.encap[0]));
    q.encap[0].type = EW_TUN_VXLAN;
    q.encap[0].family = 4;
    q.encap[0].ecn = outer;
    q.encap[0].has_id = true;
    q.encap[0].id = 42;
    q.encap[0].src[10] = q.encap[0].src[11] = q.encap[0].dst[10] = q.encap[0].dst[11] = 0xff;
    q.encap[0].src[12] = q.encap[0].dst[12] = 192;
    q.encap[0].src[14] = q.encap[0].dst[14] = 2;
    q.encap[0].src[15] = 1;
    q.encap[0].dst[15] = 2;
    return q;
}

/* Packets captured in the underlay, in a tunnel, then past its egress: the
 * egress writes what RFC 6040 §4.2 (Figure 4) gives for the outer and inner
 * codepoints, and what it writes otherwise is tunnel_decap_violation:
 *   up 1  outer CE / inner ECT(0)      -> down 101 CE        the mark carried in: no kind
 *   up 2  outer CE / inner ECT(0)      -> down 102 ECT(0)    the mark lost
 *   up 3  outer CE / inner Not-ECT     -> down 103 Not-ECT   forwarded, not dropped
 *   up 4  outer ECT(1) / inner ECT(0)  -> down 104 ECT(0)    ECT(1) not carried in
 *   up 5  outer ECT(0) / inner ECT(0)  -> down 105 ECT(0)    unchanged
 *   up 6  outer ECT(0) / inner ECT(1)  -> down 106 ECT(1)    unchanged (the inner kept)
 * A packet still in a tunnel downstream is compared by its inner header, as
 * before: up 7 outer CE / inner ECT(0) -> down 107 the same, unchanged. */
static void
test_tunnel_egress(void)
{
    static const uint64_t carried[][2] = {{1, 101}};
    static const uint64_t lost[][2] = {{2, 102}};
    static const uint64_t forwarded[][2] = {{3, 103}};
    static const uint64_t ect1_lost[][2] = {{4, 104}};
    static const uint8_t outer[7] = {EW_ECN_CE,    EW_ECN_CE,    EW_ECN_CE,   EW_ECN_ECT_1,
                                     EW_ECN_ECT_0, EW_ECN_ECT_0, EW_ECN_CE};
    static const uint8_t inner[7] = {EW_ECN_ECT_0, EW_ECN_ECT_0, EW_ECN_NOT_ECT, EW_ECN_ECT_0,
                                     EW_ECN_ECT_0, EW_ECN_ECT_1, EW_ECN_ECT_0};
    static const uint8_t out[7] = {EW_ECN_CE,    EW_ECN_ECT_0, EW_ECN_NOT_ECT, EW_ECN_ECT_0,
                                   EW_ECN_ECT_0, EW_ECN_ECT_1, EW_ECN_ECT_0};
    struct ew_index *ix;
    struct ew_hop *hop;
    struct ew_pkt p[7], q;
    uint64_t counts[32] = {0};
    const json_t *chs;
    json_t *o;
    int i;

    setup(&ix, &hop, 16);
    for (i = 0; i < 7; i++) {
        tcp4(&p[i], CLI, (uint16_t)(i + 1), 1000u * (unsigned)(i + 1), 7000, 1000, inner[i]);
        q = in_vxlan(&p[i], outer[i]);
        ew_index_add(ix, &q, NULL, 0, (uint64_t)i + 1);
    }
    for (i = 0; i < 7; i++) {
        q = as_ecn(&p[i], out[i]);
        if (i == 6)
            q = in_vxlan(&q, EW_ECN_CE);
        ew_hop_match(hop, ix, &q, NULL, 0, 101 + (uint64_t)i);
    }
    ew_hop_finish(hop, ix);

    o = hop_json(hop, "underlay", "overlay");
    check_counts(o, 7, 3, 0, 0, 0);
    chs = json_object_get(o, "changes");
    CU_ASSERT_EQUAL_FATAL(json_array_size(chs), 4);
    check_change(json_array_get(chs, 0), "ect0", "ce", NULL, 1, carried, 1);
    check_change(json_array_get(chs, 1), "ect0", "ect0", "tunnel_decap_violation", 1, lost, 1);
    check_change(json_array_get(chs, 2), "not_ect", "not_ect", "tunnel_decap_violation", 1,
                 forwarded, 1);
    check_change(json_array_get(chs, 3), "ect0", "ect0", "tunnel_decap_violation", 1, ect1_lost,
                 1);
    CU_ASSERT_STRING_EQUAL(sval(json_array_get(chs, 0), "from_outer"), "ce");
    CU_ASSERT_STRING_EQUAL(sval(json_array_get(chs, 2), "from_outer"), "ce");
    CU_ASSERT_STRING_EQUAL(sval(json_array_get(chs, 3), "from_outer"), "ect1");
    CU_ASSERT_PTR_NOT_NULL(strstr(sval(json_array_get(chs, 1), "meaning"), "mark lost"));
    CU_ASSERT_PTR_NOT_NULL(strstr(sval(json_array_get(chs, 2), "meaning"), "must drop"));
    CU_ASSERT_EQUAL(ew_hop_kinds(hop, counts), 1u << EW_MU_TUNNEL_DECAP_VIOLATION);
    CU_ASSERT_EQUAL(counts[EW_MU_TUNNEL_DECAP_VIOLATION], 3);
    json_decref(o);
    teardown(ix, hop);
}

int
ew_test_register_pathcmp(void)
{
    CU_pSuite s = CU_add_suite("pathcmp", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "identical packets: matched, unchanged", test_identical_unchanged) ||
        !CU_add_test(s, "fields the path rewrites do not identify a packet",
                     test_identity_fields) ||
        !CU_add_test(s, "bleaching, remarking, CE erased, marking, with frames",
                     test_transitions_and_frames) ||
        !CU_add_test(s, "Not-ECT made ECN, SCE-style remark, both directions",
                     test_other_transitions_and_directions) ||
        !CU_add_test(s, "unmatched packets counted by finish", test_unmatched_counted_by_finish) ||
        !CU_add_test(s, "the index bound and what it leaves out", test_index_bound) ||
        !CU_add_test(s, "UDP and IPv6 told apart by payload", test_payload_tells_apart) ||
        !CU_add_test(s, "retransmissions and duplicates", test_retransmissions_and_duplicates) ||
        !CU_add_test(s, "text: one line per change", test_text_one_line_per_change) ||
        !CU_add_test(s, "pairs and changes past the listing bounds", test_listing_bounds) ||
        !CU_add_test(s, "a tunnel egress against RFC 6040", test_tunnel_egress))
        return -1;
    return 0;
}
