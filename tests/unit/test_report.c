/* test_report.c - the report writers of src/report_*.c: the JSON report
 * against the interface contract (the field names and values of
 * ecnwatch.report/1, man/ecnwatch-report.5), its bytes (jansson's, the same
 * on every run), the human summary and the atomic report file (the time
 * and address formats are test_format.c's). */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/analyze.h"
#include "input/capture.h"
#include "dissectors/dissect.h"
#include "dissectors/ecn.h"
#include "base/jw.h"
#include "findings/conclusions.h"
#include "findings/pathcmp.h"
#include "output/output.h"
#include "output/report.h"
#include "base/version.h"
#include "fixture.h"
#include "suites.h"

/* 2023-11-14T22:13:20.123456Z plus 789 ns: packet time of the first frame */
#define T0 (1700000000LL * 1000000000LL + 123456789LL)

/* a packet between the client 10.0.0.9:cport and the server 10.0.0.1:80
 * (family 6: 2001:db8::9 and 2001:db8::1); l4 EW_L4_NONE is GRE */
static void
pkt(struct ew_pkt *p, int family, int l4, int from, uint16_t cport, uint16_t flags, uint32_t seq,
    uint32_t payload, uint8_t ecn)
{
    const struct fx_hosts h = {.family = (uint8_t)family,
                               .cli = family == 4 ? 0x0a000009 : 9,
                               .srv = family == 4 ? 0x0a000001 : 1,
                               .cport = cport,
                               .sport = 80,
                               .hdr = 40};

    if (l4 == EW_L4_TCP)
        fx_tcp(p, &h, from, flags, ecn, seq, 0, payload);
    else if (l4 == EW_L4_UDP)
        fx_udp(p, &h, from, ecn, payload);
    else
        fx_ip(p, &h, from, 47, ecn, payload);
}

static void
init(struct ew_analyzer *an, uint32_t max_flows)
{
    struct ew_analyzer_cfg cfg = {.max_flows = max_flows, .hash_seed = 3, .idle_ns = 0};

    CU_ASSERT_FATAL(ew_analyzer_init(an, &cfg) == 0);
}

/* a TCP flow from client port cport: the handshake (with ECN when ecn), then
 * n data segments of 1000 bytes with codepoint cp; *t advances 1 ms a frame */
static void
tcp_flow(struct ew_analyzer *an, int64_t *t, uint16_t cport, bool ecn, int n, uint8_t cp)
{
    struct ew_pkt p;
    int i;

    pkt(&p, 4, EW_L4_TCP, CLI, cport, (uint16_t)(EW_TCP_SYN | (ecn ? EW_TCP_ECE | EW_TCP_CWR : 0)),
        500, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, *t += 1000000);
    pkt(&p, 4, EW_L4_TCP, SRV, cport, (uint16_t)(EW_TCP_SYN | EW_TCP_ACK | (ecn ? EW_TCP_ECE : 0)),
        900, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, *t += 1000000);
    for (i = 0; i < n; i++) {
        pkt(&p, 4, EW_L4_TCP, CLI, cport, EW_TCP_ACK, 501 + 1000 * (uint32_t)i, 1000, cp);
        ew_analyzer_frame(an, &p, *t += 1000000);
    }
}

/* Five flows, the cases the contract names: (1) classic ECN TCP with a CE
 * mark, (2) UDP marked ECT(1), (3) TCP without ECN whose data is ECT(0)
 * (ect_without_negotiation), (4) IPv6 UDP, (5) GRE (proto "other"); then a
 * non-IP and an undecodable frame. 20 frames, 18 IP packets. */
static void
feed(struct ew_analyzer *an)
{
    struct ew_pkt p;
    int64_t t = T0;
    int i;

    init(an, 16);
    pkt(&p, 4, EW_L4_TCP, CLI, 40000, EW_TCP_SYN | EW_TCP_ECE | EW_TCP_CWR, 100, 0,
        EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, t);
    pkt(&p, 4, EW_L4_TCP, SRV, 40000, EW_TCP_SYN | EW_TCP_ACK | EW_TCP_ECE, 7000, 0,
        EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, t += 1000000);
    pkt(&p, 4, EW_L4_TCP, CLI, 40000, EW_TCP_ACK, 101, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, t += 1000000);
    pkt(&p, 4, EW_L4_TCP, CLI, 40000, EW_TCP_ACK, 101, 1000, EW_ECN_ECT_0);
    ew_analyzer_frame(an, &p, t += 1000000);
    pkt(&p, 4, EW_L4_TCP, CLI, 40000, EW_TCP_ACK, 1101, 1000, EW_ECN_CE);
    ew_analyzer_frame(an, &p, t += 1000000);
    for (i = 0; i < 5; i++) {
        pkt(&p, 4, EW_L4_UDP, CLI, 50000, 0, 0, 800, EW_ECN_ECT_1);
        ew_analyzer_frame(an, &p, t += 1000000);
    }
    tcp_flow(an, &t, 40001, false, 3, EW_ECN_ECT_0);
    pkt(&p, 6, EW_L4_UDP, CLI, 5353, 0, 0, 100, EW_ECN_ECT_0);
    ew_analyzer_frame(an, &p, t += 1000000);
    pkt(&p, 6, EW_L4_UDP, SRV, 5353, 0, 0, 100, EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, t += 1000000);
    pkt(&p, 4, EW_L4_NONE, CLI, 0, 0, 0, 60, EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, t += 1000000);
    memset(&p, 0, sizeof(p));
    p.status = EW_PKT_NON_IP;
    ew_pkt_event(&p, EW_EV_NON_IP);
    ew_analyzer_frame(an, &p, t += 1000000);
    memset(&p, 0, sizeof(p));
    p.status = EW_PKT_UNDECODABLE;
    ew_pkt_event(&p, EW_EV_IPV4_TRUNC);
    ew_analyzer_frame(an, &p, t += 1000000);
}

/* The outputs of one pass of conclusions over an (output.h), as ecnwatch
 * writes them at the end of a capture */
struct tpass {
    struct ew_conclusions c;
    struct ew_pass p;
};

static const struct ew_pass *
tpass_open(struct tpass *t, const struct ew_analyzer *an, const struct ew_report_src *src,
           const struct ew_report_path *path)
{
    t->c = (struct ew_conclusions)EW_CONCLUSIONS_INIT;
    CU_ASSERT_EQUAL_FATAL(ew_analyzer_pass(an, &t->c, EW_PASS_BOTTLENECKS, NULL), 0);
    ew_pass_init(&t->p, an, &t->c, src, path);
    return &t->p;
}

static void
tpass_close(struct tpass *t)
{
    ew_conclusions_free(&t->c);
}

static int
dump_pass(FILE *fp, const struct ew_analyzer *an, const struct ew_report_src *src,
          const struct ew_report_path *path)
{
    struct tpass t;
    int rc = ew_report_dump(fp, tpass_open(&t, an, src, path));

    tpass_close(&t);
    return rc;
}

static void
text_pass(FILE *fp, const struct ew_analyzer *an, const struct ew_report_src *src,
          size_t max_flows)
{
    struct tpass t;
    struct ew_text_opts o = {max_flows, EW_SORT_BYTES, true, 100};

    ew_report_text(fp, tpass_open(&t, an, src, NULL), &o);
    tpass_close(&t);
}

static int
write_pass(const struct ew_analyzer *an, const struct ew_report_src *src, const char *file,
           char *err, size_t errlen)
{
    struct tpass t;
    int rc = ew_report_write_file(tpass_open(&t, an, src, NULL), file, err, errlen);

    tpass_close(&t);
    return rc;
}

static const struct ew_report_src src_file = {.kind = "file", .name = "x.pcap",
                                              .linktype = "EN10MB"};

/* the report of an as ew_report_dump writes it, of one capture; *len its
 * length */
static char *
report_of(const struct ew_analyzer *an, const struct ew_report_src *src, size_t *len)
{
    char *m = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&m, &n);

    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    CU_ASSERT_EQUAL(dump_pass(fp, an, src, NULL), 0);
    fclose(fp);
    *len = n;
    return m;
}

static json_t *
parse(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);

    if (!j)
        fprintf(stderr, "report is not JSON: line %d: %s\n", e.line, e.text);
    return j;
}

/* s is one of the NULL-terminated names */
static bool
one_of(const json_t *s, const char *const *names)
{
    if (!json_is_string(s))
        return false;
    for (; *names; names++)
        if (!strcmp(json_string_value(s), *names))
            return true;
    return false;
}

static bool
is_count(const json_t *j)
{
    return json_is_integer(j) && json_integer_value(j) >= 0;
}

/* {"not_ect", "ect0", "ect1", "ce"}, counts; their sum */
static int64_t
ecn_sum(const json_t *o, int *bad)
{
    static const char *const k[] = {"not_ect", "ect0", "ect1", "ce"};
    int64_t sum = 0;
    int i;

    if (!json_is_object(o)) {
        (*bad)++;
        return 0;
    }
    for (i = 0; i < 4; i++) {
        if (!is_count(json_object_get(o, k[i])))
            (*bad)++;
        else
            sum += json_integer_value(json_object_get(o, k[i]));
    }
    return sum;
}

static const char *const protos[] = {"tcp", "udp", "other", NULL};
static const char *const negs[] = {"none", "rfc3168", "accecn", "refused", "broken", "unseen", NULL};
static const char *const fbs[] = {"none", "rfc3168", "dctcp", "accecn", "sce", "unknown", NULL};
static const char *const verdicts[] = {"not_ecn", "classic", "dctcp", "accecn_classic", "l4s",
                                       "sce", "conflict", "ambiguous", "unknown", NULL};
static const char *const vantages[] = {"client_side", "server_side", "middle", "unknown", NULL};
static const char *const cps[] = {"not_ect", "ect0", "ect1", "mixed", "none", NULL};
static const char *const ect1s[] = {"none", "l4s", "sce", "ambiguous", "conflict", NULL};

static int
check_endpoint(const json_t *e, const char *proto, int family)
{
    const json_t *a = json_object_get(e, "addr"), *port = json_object_get(e, "port");
    int bad = 0;

    if (!json_is_string(a) || !strchr(json_string_value(a), family == 6 ? ':' : '.'))
        bad++;
    if (!strcmp(proto, "other") ? !json_is_null(port)
                                : !(json_is_integer(port) && json_integer_value(port) >= 0 &&
                                    json_integer_value(port) <= 65535))
        bad++;
    return bad;
}

/* DIR; *packets gets its packets, ecn[] its counts added */
static int
check_dir(const json_t *d, bool tcp, int64_t *packets, int64_t ecn[4])
{
    static const char *const k[] = {"not_ect", "ect0", "ect1", "ce"};
    const json_t *fl = json_object_get(d, "tcp_flags");
    int bad = 0, i;

    if (!json_is_object(d))
        return 1;
    if (!is_count(json_object_get(d, "packets")) || !is_count(json_object_get(d, "bytes")))
        bad++;
    *packets += json_integer_value(json_object_get(d, "packets"));
    if (ecn_sum(json_object_get(d, "ecn"), &bad) != json_integer_value(json_object_get(d, "packets")))
        bad++;
    for (i = 0; i < 4; i++)
        ecn[i] += json_integer_value(json_object_get(json_object_get(d, "ecn"), k[i]));
    /* tcp_flags: TCP only (man/ecnwatch-report.5) */
    if (tcp && !(is_count(json_object_get(fl, "ece")) && is_count(json_object_get(fl, "cwr")) &&
                 is_count(json_object_get(fl, "ae"))))
        bad++;
    if (!one_of(json_object_get(d, "sender_codepoint"), cps) ||
        !one_of(json_object_get(d, "feedback"), fbs) || !one_of(json_object_get(d, "ect1"), ect1s))
        bad++;
    return bad;
}

/* A whole report against the contract; the flows' packets and codepoints
 * must add up to the totals' IP packets and codepoints (no flow evicted).
 * Returns the number of faults. */
static int
check_contract(const json_t *r, int64_t frames)
{
    static const char *const k[] = {"not_ect", "ect0", "ect1", "ce"};
    const json_t *src = json_object_get(r, "source"), *tot = json_object_get(r, "totals");
    const json_t *flows = json_object_get(r, "flows"), *f;
    int64_t packets = 0, ecn[4] = {0, 0, 0, 0}, last_first = 0;
    size_t i, j;
    int bad = 0, c;

    if (!json_is_object(r) || !json_is_object(src) || !json_is_object(tot) || !json_is_array(flows))
        return 1;
    if (!json_is_string(json_object_get(r, "schema")) ||
        strcmp(json_string_value(json_object_get(r, "schema")), "ecnwatch.report/1") ||
        !json_is_string(json_object_get(r, "version")) ||
        strcmp(json_string_value(json_object_get(r, "version")), EW_VERSION))
        bad++;
    if (!one_of(json_object_get(src, "kind"), (const char *const[]){"file", "interface", NULL}) ||
        !json_is_string(json_object_get(src, "name")) ||
        !json_is_string(json_object_get(src, "linktype")) ||
        !json_is_boolean(json_object_get(src, "truncated")))
        bad++;
    if (json_integer_value(json_object_get(tot, "frames")) != frames ||
        !is_count(json_object_get(tot, "undecodable")) ||
        !is_count(json_object_get(tot, "flows_evicted")) ||
        json_integer_value(json_object_get(tot, "flows")) != (json_int_t)json_array_size(flows))
        bad++;
    ecn_sum(json_object_get(tot, "ecn"), &bad);
    json_array_foreach(flows, i, f) {
        const char *proto = json_string_value(json_object_get(f, "proto"));
        int family = (int)json_integer_value(json_object_get(f, "family"));
        const json_t *mu = json_object_get(f, "misuse"), *ev = json_object_get(f, "evidence"), *x;
        int64_t first = json_integer_value(json_object_get(f, "first_frame"));

        /* in order of first frame, numbered so */
        if (json_integer_value(json_object_get(f, "id")) != (json_int_t)i + 1 ||
            !one_of(json_object_get(f, "proto"), protos) || (family != 4 && family != 6))
            bad++;
        if (!proto)
            continue;
        if (first < 1 || first <= last_first ||
            json_integer_value(json_object_get(f, "last_frame")) < first ||
            json_integer_value(json_object_get(f, "last_frame")) > frames)
            bad++;
        last_first = first;
        bad += check_endpoint(json_object_get(f, "client"), proto, family);
        bad += check_endpoint(json_object_get(f, "server"), proto, family);
        bad += check_dir(json_object_get(f, "c2s"), !strcmp(proto, "tcp"), &packets, ecn);
        bad += check_dir(json_object_get(f, "s2c"), !strcmp(proto, "tcp"), &packets, ecn);
        if (!one_of(json_object_get(f, "negotiation"), negs) ||
            (strcmp(proto, "tcp") && strcmp(json_string_value(json_object_get(f, "negotiation")),
                                            "none")) ||
            !one_of(json_object_get(f, "verdict"), verdicts) ||
            !one_of(json_object_get(f, "vantage"), vantages) || !json_is_array(mu) ||
            !json_is_array(ev))
            bad++;
        json_array_foreach(mu, j, x) {
            if (!json_is_string(json_object_get(x, "kind")) ||
                !one_of(json_object_get(x, "dir"), (const char *const[]){"c2s", "s2c", NULL}) ||
                json_integer_value(json_object_get(x, "first_frame")) < first ||
                json_integer_value(json_object_get(x, "count")) < 1 ||
                !json_is_string(json_object_get(x, "ref")) ||
                !json_is_string(json_object_get(x, "detail")) ||
                !*json_string_value(json_object_get(x, "detail")))
                bad++;
        }
        json_array_foreach(ev, j, x) {
            if (!is_count(json_object_get(x, "frame")) || !json_is_string(json_object_get(x, "note")))
                bad++;
        }
    }
    if (packets != json_integer_value(json_object_get(tot, "ip_packets")))
        bad++;
    for (c = 0; c < 4; c++)
        if (ecn[c] != json_integer_value(json_object_get(json_object_get(tot, "ecn"), k[c])))
            bad++;
    return bad;
}

/* report-contract.md, "The JSON report" and FLOW/DIR/MISUSE: every named
 * field, with the values the fixture's packets give */
static void
test_json_contract(void)
{
    struct ew_analyzer an;
    struct ew_report_src src = src_file;
    json_t *r, *tot, *fl, *f, *c2s, *s2c, *mu;
    size_t len;
    char *text;

    feed(&an);
    src.filter = "tcp or udp";
    src.packet_limit = 100;
    text = report_of(&an, &src, &len);
    r = parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(check_contract(r, 20), 0);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "schema")), EW_SCHEMA);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(r, "source"), "name")),
                           "x.pcap");
    CU_ASSERT_STRING_EQUAL(
        json_string_value(json_object_get(json_object_get(r, "source"), "filter")), "tcp or udp");
    CU_ASSERT_EQUAL(
        json_integer_value(json_object_get(json_object_get(r, "source"), "packet_limit")), 100);
    CU_ASSERT_STRING_EQUAL(
        json_string_value(json_object_get(json_object_get(r, "source"), "first_time")),
        "2023-11-14T22:13:20.123456Z");
    CU_ASSERT_STRING_EQUAL(
        json_string_value(json_object_get(json_object_get(r, "source"), "last_time")),
        "2023-11-14T22:13:20.142456Z");
    tot = json_object_get(r, "totals");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(tot, "frames")), 20);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(tot, "ip_packets")), 18);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(tot, "non_ip")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(tot, "undecodable")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(tot, "ecn"), "not_ect")), 7);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(tot, "ecn"), "ect0")), 5);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(tot, "ecn"), "ect1")), 5);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(tot, "ecn"), "ce")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(tot, "flows")), 5);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(tot, "flows_evicted")), 0);
    CU_ASSERT_EQUAL(
        json_integer_value(json_object_get(json_object_get(tot, "findings"),
                                           "ect_without_negotiation")), 1);
    fl = json_object_get(r, "flows");
    CU_ASSERT_EQUAL_FATAL(json_array_size(fl), 5);

    /* (1) classic ECN, CE on the client's data */
    f = json_array_get(fl, 0);
    c2s = json_object_get(f, "c2s");
    s2c = json_object_get(f, "s2c");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "proto")), "tcp");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(f, "family")), 4);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(f, "client"), "addr")),
                           "10.0.0.9");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(f, "client"), "port")), 40000);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(f, "server"), "addr")),
                           "10.0.0.1");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(f, "server"), "port")), 80);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(f, "first_frame")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(f, "last_frame")), 5);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(c2s, "packets")), 4);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(c2s, "bytes")), 2160);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(c2s, "ecn"), "ce")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(c2s, "ecn"), "ect0")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(c2s, "tcp_flags"), "ece")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(c2s, "tcp_flags"), "cwr")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(s2c, "tcp_flags"), "ece")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(s2c, "packets")), 1);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(c2s, "sender_codepoint")), "ect0");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(c2s, "feedback")), "rfc3168");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "negotiation")), "rfc3168");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "verdict")), "classic");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "ended")), "capture_end");
    CU_ASSERT_EQUAL(json_array_size(json_object_get(f, "misuse")), 0);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(json_object_get(f, "evidence"),
                                                                      0), "frame")), 1);

    /* (2) UDP: no handshake, "none"; no tcp_flags */
    f = json_array_get(fl, 1);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "proto")), "udp");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "negotiation")), "none");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(f, "client"), "port")), 50000);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(
                        json_object_get(json_object_get(f, "c2s"), "ecn"), "ect1")), 5);
    CU_ASSERT_STRING_EQUAL(
        json_string_value(json_object_get(json_object_get(f, "c2s"), "sender_codepoint")), "ect1");
    CU_ASSERT_PTR_NULL(json_object_get(json_object_get(f, "c2s"), "tcp_flags"));

    /* (3) ECT(0) data without negotiation: one MISUSE */
    f = json_array_get(fl, 2);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "negotiation")), "none");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "verdict")), "not_ecn");
    CU_ASSERT_EQUAL_FATAL(json_array_size(json_object_get(f, "misuse")), 1);
    mu = json_array_get(json_object_get(f, "misuse"), 0);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(mu, "kind")),
                           "ect_without_negotiation");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(mu, "dir")), "c2s");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(mu, "first_frame")), 13);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(mu, "count")), 3);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(mu, "ref")), "RFC 3168 §6.1.1");

    /* (4) IPv6 */
    f = json_array_get(fl, 3);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(f, "family")), 6);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(f, "client"), "addr")),
                           "2001:db8::9");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(f, "server"), "addr")),
                           "2001:db8::1");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(f, "s2c"), "packets")), 1);

    /* (5) no ports: "other", port null */
    f = json_array_get(fl, 4);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "proto")), "other");
    CU_ASSERT_TRUE(json_is_null(json_object_get(json_object_get(f, "client"), "port")));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "negotiation")), "none");

    json_decref(r);
    free(text);
    ew_analyzer_free(&an);
}

/* report.h: "the same capture gives the same bytes", and ew_report_dump's
 * bytes are jansson's JSON_INDENT(2) | JSON_REAL_PRECISION(10) and a newline */
static void
test_json_bytes(void)
{
    struct ew_analyzer a, b;
    json_t *r;
    char *x, *y, *j;
    size_t lx, ly;

    feed(&a);
    feed(&b);
    x = report_of(&a, &src_file, &lx);
    y = report_of(&a, &src_file, &ly);
    CU_ASSERT_EQUAL(lx, ly);
    CU_ASSERT_STRING_EQUAL(x, y); /* twice from one analyzer */
    free(y);
    y = report_of(&b, &src_file, &ly);
    CU_ASSERT_STRING_EQUAL(x, y); /* and from another fed the same */
    CU_ASSERT_TRUE(lx > 0 && x[lx - 1] == '\n' && (lx < 2 || x[lx - 2] != '\n'));
    r = parse(x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    j = json_dumps(r, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_EQUAL(strlen(j) + 1, lx);
    CU_ASSERT_EQUAL(strncmp(j, x, lx - 1), 0);
    free(j);
    json_decref(r);

    /* two captures: "path" after the flows, with the captures and the hop
     * between them; one capture (or none given): no "path" */
    {
        static const char *const caps[] = {"a.pcap", "b.pcap"};
        struct ew_hop *hop = ew_hop_new(1, 2);
        struct ew_hop *const hops[] = {hop};
        const struct ew_report_path two = {2, caps, hops}, one = {1, caps, hops};
        const char *k, *last;
        json_t *v;
        char *m = NULL;
        size_t n = 0;
        FILE *fp = open_memstream(&m, &n);

        CU_ASSERT_PTR_NOT_NULL_FATAL(hop);
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        CU_ASSERT_EQUAL(dump_pass(fp, &a, &src_file, &two), 0);
        fclose(fp);
        r = parse(m);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_EQUAL(json_array_size(json_object_get(r, "flows")), 5);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(
                                   json_object_get(json_object_get(r, "path"), "captures"), 1)),
                               "b.pcap");
        v = json_array_get(json_object_get(json_object_get(r, "path"), "hops"), 0);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(v, "from")), "a.pcap");
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(v, "to")), "b.pcap");
        CU_ASSERT_EQUAL(json_array_size(json_object_get(v, "changes")), 0);
        last = NULL;
        json_object_foreach(r, k, v)
            last = k;
        CU_ASSERT_PTR_NOT_NULL_FATAL(last);
        CU_ASSERT_STRING_EQUAL(last, "path");
        json_decref(r);
        free(m);

        m = NULL;
        fp = open_memstream(&m, &n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        CU_ASSERT_EQUAL(dump_pass(fp, &a, &src_file, &one), 0);
        fclose(fp);
        CU_ASSERT_STRING_EQUAL(m, x);
        free(m);
        ew_hop_free(hop);
    }
    free(x);
    free(y);
    ew_analyzer_free(&a);
    ew_analyzer_free(&b);
}

/* report_write.c's flows_write: many flows are written in chunks by two threads;
 * the flows stay in id order, whole, and the bytes stay the same */
static void
test_json_many_flows(void)
{
    enum { N = 700 };
    struct ew_analyzer an;
    struct ew_pkt p;
    json_t *r, *f;
    char *x, *y, *j;
    size_t lx, ly, i;
    int bad = 0;

    init(&an, 1024);
    for (i = 0; i < N; i++) {
        pkt(&p, 4, EW_L4_UDP, CLI, (uint16_t)(20000 + i), 0, 0, 100,
            (uint8_t)(i % 3 ? EW_ECN_ECT_0 : EW_ECN_CE));
        ew_analyzer_frame(&an, &p, T0 + (int64_t)i * 1000);
    }
    x = report_of(&an, &src_file, &lx);
    y = report_of(&an, &src_file, &ly);
    CU_ASSERT_EQUAL(lx, ly);
    CU_ASSERT_STRING_EQUAL(x, y);
    r = parse(x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(check_contract(r, N), 0);
    CU_ASSERT_EQUAL_FATAL(json_array_size(json_object_get(r, "flows")), N);
    json_array_foreach(json_object_get(r, "flows"), i, f) {
        if (json_integer_value(json_object_get(f, "id")) != (json_int_t)i + 1 ||
            json_integer_value(json_object_get(json_object_get(f, "client"), "port")) !=
                (json_int_t)(20000 + i))
            bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    j = json_dumps(r, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_EQUAL(strlen(j) + 1, lx);
    CU_ASSERT_EQUAL(strncmp(j, x, lx - 1), 0);
    free(j);
    json_decref(r);
    free(x);
    free(y);
    ew_analyzer_free(&an);
}

/* read path into a fresh analyzer; returns the frames read */
static int64_t
read_capture(const char *path, struct ew_analyzer *an)
{
    char err[EW_ERRBUF_SIZE];
    struct ew_capture *cap;
    struct ew_frame fr;
    int64_t n = 0;

    init(an, 4096);
    CU_ASSERT_FATAL(ew_capture_open_file(path, NULL, &cap, err, sizeof(err)) == 0);
    while (ew_capture_next(cap, &fr, err, sizeof(err)) == EW_CAP_FRAME) {
        struct ew_pkt pkt;

        ew_dissect_frame(ew_capture_link(cap), fr.data, fr.caplen, fr.wirelen, &pkt);
        ew_analyzer_frame(an, &pkt, fr.ts_ns);
        n++;
    }
    ew_capture_close(cap);
    return n;
}

/* report-contract.md on real traffic: every bundled capture (the .pcap files in captures/,
 * IPv4 and IPv6, TCP and UDP, each misuse the README names) gives a report
 * that meets the contract and adds up to its totals */
static void
test_json_captures(void)
{
    glob_t g;
    size_t i;
    int v6 = 0;

    CU_ASSERT_FATAL(glob("captures/*.pcap", 0, NULL, &g) == 0);
    CU_ASSERT(g.gl_pathc >= 30);
    for (i = 0; i < g.gl_pathc; i++) {
        struct ew_analyzer an;
        struct ew_report_src src = {.kind = "file", .name = g.gl_pathv[i], .linktype = "EN10MB"};
        int64_t frames = read_capture(g.gl_pathv[i], &an);
        size_t len;
        char *text = report_of(&an, &src, &len);
        json_t *r = parse(text);
        int bad;

        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        bad = check_contract(r, frames);
        if (bad)
            fprintf(stderr, "%s: %d faults against the contract\n", g.gl_pathv[i], bad);
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(json_array_size(json_object_get(r, "flows")) > 0);
        if (json_integer_value(json_object_get(json_array_get(json_object_get(r, "flows"), 0),
                                               "family")) == 6)
            v6++;
        json_decref(r);
        free(text);
        ew_analyzer_free(&an);
    }
    CU_ASSERT(v6 >= 4); /* the -v6- captures */
    globfree(&g);
}

/* an analyzer that saw nothing: a report with no times, zero totals, no
 * flows; a summary with 0.0%, not NaN */
static void
test_empty(void)
{
    struct ew_analyzer an;
    struct ew_report_src src = {.kind = "interface", .name = "eth0", .linktype = NULL};
    json_t *r;
    char *text, *m = NULL;
    size_t len, n = 0;
    FILE *fp;

    init(&an, 4);
    text = report_of(&an, &src, &len);
    r = parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(check_contract(r, 0), 0);
    CU_ASSERT_PTR_NULL(json_object_get(json_object_get(r, "source"), "first_time"));
    CU_ASSERT_STRING_EQUAL(
        json_string_value(json_object_get(json_object_get(r, "source"), "linktype")), "unknown");
    CU_ASSERT_TRUE(json_is_null(json_object_get(json_object_get(r, "source"), "filter")));
    CU_ASSERT_EQUAL(json_array_size(json_object_get(r, "flows")), 0);
    json_decref(r);
    free(text);

    fp = open_memstream(&m, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    text_pass(fp, &an, &src, 10);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(m, "eth0 (unknown): 0 frames, 0 IP packets, 0 flows\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(m, "ECN: Not-ECT 0 (0.0%)  ECT(0) 0 (0.0%)  ECT(1) 0 (0.0%)  "
                                     "CE 0 (0.0%)\n"));
    CU_ASSERT_PTR_NULL(strstr(m, "nan"));
    CU_ASSERT_PTR_NULL(strstr(m, "more flows past"));
    CU_ASSERT_PTR_NULL(strstr(m, "MISUSE"));
    free(m);
    ew_analyzer_free(&an);
}

static char *
text_with(const struct ew_analyzer *an, const struct ew_report_src *src)
{
    char *m = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&m, &n);

    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    text_pass(fp, an, src, 10);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    return m;
}

/* A live capture's own loss (pcap_stats) is in totals.capture, and a line
 * of the text summary when any packet was dropped: a lossy capture does not
 * look clean. A file's report has no such member. */
static void
test_capture_loss(void)
{
    struct ew_analyzer an;
    struct ew_report_src src = {.kind = "interface", .name = "eth0", .linktype = "EN10MB",
                                .have_loss = true, .loss_received = 1000, .loss_dropped = 7,
                                .loss_ifdropped = 2, .loss_ifdrop_known = true};
    json_t *r, *cap;
    char *text;
    size_t len;

    init(&an, 4);
    text = report_of(&an, &src, &len);
    r = parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(check_contract(r, 0), 0);
    cap = json_object_get(json_object_get(r, "totals"), "capture");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(cap, "received")), 1000);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(cap, "dropped")), 7);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(cap, "interface_dropped")), 2);
    json_decref(r);
    free(text);
    text = text_with(&an, &src);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "Capture loss: of 1000 packets the kernel received, 7 "
                                        "dropped by its buffer and 2 by the interface"));
    free(text);
    /* where the platform does not report the interface's drops: null */
    src.loss_ifdrop_known = false;
    text = report_of(&an, &src, &len);
    r = parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    cap = json_object_get(json_object_get(r, "totals"), "capture");
    CU_ASSERT_TRUE(json_is_null(json_object_get(cap, "interface_dropped")));
    json_decref(r);
    free(text);
    /* nothing lost: the members, but no line */
    src.loss_dropped = src.loss_ifdropped = 0;
    text = text_with(&an, &src);
    CU_ASSERT_PTR_NULL(strstr(text, "Capture loss"));
    free(text);
    /* a file */
    text = report_of(&an, &src_file, &len);
    r = parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_PTR_NULL(json_object_get(json_object_get(r, "totals"), "capture"));
    json_decref(r);
    free(text);
    ew_analyzer_free(&an);
}

static char *
text_of(const struct ew_analyzer *an, size_t max_flows)
{
    char *m = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&m, &n);

    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    text_pass(fp, an, &src_file, max_flows);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    return m;
}

/* lines that start with s */
static int
lines_starting(const char *text, const char *s)
{
    const char *p = text;
    int n = 0;

    for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, s, strlen(s)))
            n++;
    return n;
}

/* the ids of an's flows, largest first (bytes both ways; the lower id first
 * among equals): the text's order */
static int
ids_by_size(struct ew_analyzer *an, uint64_t *ids, int room)
{
    static struct ew_flow_room fr;
    uint32_t refs[16];
    uint64_t bytes[16];
    int n = (int)ew_flowtab_refs(an->tab, refs, 16, false), i, j;

    CU_ASSERT_FATAL(n <= room);
    for (i = 0; i < n; i++) {
        const struct ew_flow *f = ew_flowtab_view(an->tab, refs[i], &fr);

        ids[i] = f->id;
        bytes[i] = f->dir[0].bytes + f->dir[1].bytes;
    }
    for (i = 1; i < n; i++) /* insertion sort: a handful */
        for (j = i; j > 0 && (bytes[j] > bytes[j - 1] ||
                              (bytes[j] == bytes[j - 1] && ids[j] < ids[j - 1])); j--) {
            uint64_t b = bytes[j], d = ids[j];

            bytes[j] = bytes[j - 1];
            ids[j] = ids[j - 1];
            bytes[j - 1] = b;
            ids[j - 1] = d;
        }
    return n;
}

/* report.h, ew_report_text: totals and a table of at most max_flows flows,
 * the largest first, then how many more the JSON report has */
static void
test_text_summary(void)
{
    static const struct {
        size_t max;
        int listed;
        const char *more;
    } rows[] = {
        {0, 0, "\n... and 5 more flows past --text-flows 0 (the JSON report, --json or -o, has them all)\n"},
        {1, 1, "\n... and 4 more flows past --text-flows 1 (the JSON report, --json or -o, has them all)\n"},
        {4, 4, "\n... and 1 more flows past --text-flows 4 (the JSON report, --json or -o, has them all)\n"},
        {5, 5, NULL},
        {50, 5, NULL},
    };
    struct ew_analyzer an;
    uint64_t ids[8];
    size_t i;
    char *t;

    feed(&an);
    CU_ASSERT_EQUAL_FATAL(ids_by_size(&an, ids, 8), 5);
    /* not the order they were seen in: the test below means something */
    CU_ASSERT_TRUE(ids[0] != 1 || ids[1] != 2 || ids[2] != 3 || ids[3] != 4);
    t = text_of(&an, 50);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "x.pcap (EN10MB): 20 frames, 18 IP packets, 5 flows\n"));
    /* percentages of the IP packets: 7, 5, 5 and 1 of 18 */
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\nECN: Not-ECT 7 (38.9%)  ECT(0) 5 (27.8%)  ECT(1) 5 (27.8%)"
                                     "  CE 1 (5.6%)\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\nOther: 1 non-IP, 1 undecodable, 1 truncated, 0 invalid\n"));
    CU_ASSERT_PTR_NULL(strstr(t, "Flow table full"));
    /* findings first */
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\nMISUSE FOUND:\n  #3 ect_without_negotiation c2s (likely, "
                                     "3x from frame 13, RFC 3168 §6.1.1): "));
    CU_ASSERT_TRUE(strstr(t, "MISUSE FOUND") < strstr(t, "\n#1 "));
    /* a flow: its ends, its negotiation, its verdict and a row per direction */
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\n#1 tcp  10.0.0.9:40000 -> 10.0.0.1:80  negotiation "
                                     "rfc3168\n    verdict classic"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\n    c2s          4    50.0%    25.0%     0.0%    25.0%  "
                                     "rfc3168  none\n    s2c          1   100.0%     0.0%     0.0%"
                                     "     0.0%  rfc3168  none\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\n#2 udp  10.0.0.9:50000 -> 10.0.0.1:80\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\n    c2s          5     0.0%     0.0%   100.0%     0.0%\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\n#4 udp  [2001:db8::9]:5353 -> [2001:db8::1]:80\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\n#5 gre  10.0.0.9 -> 10.0.0.1\n"));
    free(t);

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        char first[16];
        int k;

        t = text_of(&an, rows[i].max);
        CU_ASSERT_EQUAL(lines_starting(t, "#"), rows[i].listed);
        /* the largest flows, largest first */
        for (k = 0; k < 5; k++) {
            snprintf(first, sizeof(first), "\n#%d ", (int)ids[k]);
            CU_ASSERT_EQUAL(strstr(t, first) != NULL, k < rows[i].listed);
            if (k > 0 && k < rows[i].listed) {
                char prev[16];

                snprintf(prev, sizeof(prev), "\n#%d ", (int)ids[k - 1]);
                CU_ASSERT_TRUE(strstr(t, prev) < strstr(t, first));
            }
        }
        if (rows[i].more) {
            size_t lt = strlen(t), lm = strlen(rows[i].more);

            /* the last line */
            CU_ASSERT_TRUE(lt >= lm && !strcmp(t + lt - lm, rows[i].more));
        } else {
            CU_ASSERT_PTR_NULL(strstr(t, "more flows past"));
        }
        free(t);
    }
    ew_analyzer_free(&an);
}

/* report_text.c, text_findings: 40 findings at most, then how many more; and a
 * full table says so, with the evicted flows' findings; "1 flow" */
static void
test_text_limits(void)
{
    struct ew_analyzer an;
    struct ew_pkt p;
    int64_t t = T0;
    char *x;
    int i;

    init(&an, 64);
    for (i = 0; i < 45; i++)
        tcp_flow(&an, &t, (uint16_t)(30000 + i), false, 2, EW_ECN_ECT_0);
    x = text_of(&an, 3);
    CU_ASSERT_EQUAL(lines_starting(x, "  #"), 40);
    CU_ASSERT_PTR_NOT_NULL(strstr(x, "\n  #40 ect_without_negotiation c2s "));
    CU_ASSERT_PTR_NULL(strstr(x, "\n  #41 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(x, "\n  ... and 5 more findings (the JSON report has them all)\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(x, "\n... and 42 more flows past --text-flows "));
    free(x);
    ew_analyzer_free(&an);

    /* two flows held, three seen: the first is evicted with its finding */
    init(&an, 2);
    tcp_flow(&an, &t, 30000, false, 2, EW_ECN_ECT_0);
    tcp_flow(&an, &t, 30001, true, 2, EW_ECN_ECT_0);
    tcp_flow(&an, &t, 30002, true, 2, EW_ECN_ECT_0);
    x = text_of(&an, 10);
    CU_ASSERT_PTR_NOT_NULL(strstr(x, ": 12 frames, 12 IP packets, 3 flows\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(x, "\nFlow table full: 1 flows evicted (raise --max-flows)\n"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(x, "\n  flows evicted from the table had 1 more findings (totals.findings)\n"));
    CU_ASSERT_EQUAL(lines_starting(x, "#"), 2);
    CU_ASSERT_PTR_NULL(strstr(x, "\n#1 "));
    free(x);
    ew_analyzer_free(&an);

    init(&an, 2);
    pkt(&p, 4, EW_L4_UDP, CLI, 999, 0, 0, 10, EW_ECN_NOT_ECT);
    ew_analyzer_frame(&an, &p, T0);
    x = text_of(&an, 10);
    CU_ASSERT_PTR_NOT_NULL(strstr(x, "x.pcap (EN10MB): 1 frames, 1 IP packets, 1 flow\n"));
    free(x);
    ew_analyzer_free(&an);
}

/* the names in folder dir other than . and .., counted; the first in *name */
static int
entries(const char *dir, char *name, size_t len)
{
    struct dirent *de;
    DIR *d = opendir(dir);
    int n = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (n++ == 0 && name && len > 0) {
            size_t l = strlen(de->d_name) < len - 1 ? strlen(de->d_name) : len - 1;

            memcpy(name, de->d_name, l);
            name[l] = '\0';
        }
    }
    closedir(d);
    return n;
}

/* remove folder dir and what a failed case left in it (one level down) */
static void
purge(const char *dir)
{
    struct dirent *de;
    char p[512];
    DIR *d = opendir(dir);

    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        snprintf(p, sizeof(p), "%s/%.200s", dir, de->d_name);
        if (unlink(p) != 0)
            purge(p);
    }
    closedir(d);
    rmdir(dir);
}

static char *
slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *m;
    long n;

    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    rewind(fp);
    m = malloc((size_t)n + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    *len = fread(m, 1, (size_t)n, fp);
    m[*len] = '\0';
    fclose(fp);
    return m;
}

/* report.h, ew_report_write_file: a temporary file beside path, renamed over
 * it, so the file appears whole (a reader of the old file keeps the old
 * bytes); the bytes are ew_report_dump's; the mode is that of any new file
 * under the umask (outfile.c: 0666 & ~umask); nothing else is left */
static void
test_write_file(void)
{
    static const mode_t masks[] = {022, 077, 0, 027};
    struct ew_analyzer an;
    char dir[] = "/tmp/ew-report-XXXXXX", path[128], err[512], name[64], old[8];
    char *want, *got;
    size_t lw, lg, i;
    struct stat st;
    mode_t um;
    int fd;

    feed(&an);
    want = report_of(&an, &src_file, &lw);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/report.json", dir);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(write(fd, "old\n", 4), 4);
    close(fd);
    fd = open(path, O_RDONLY);
    CU_ASSERT_FATAL(fd >= 0);

    um = umask(022);
    for (i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
        umask(masks[i]);
        err[0] = '\0';
        CU_ASSERT_EQUAL(write_pass(&an, &src_file, path, err, sizeof(err)), 0);
        CU_ASSERT_STRING_EQUAL(err, "");
        CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
        CU_ASSERT_TRUE(S_ISREG(st.st_mode));
        CU_ASSERT_EQUAL(st.st_mode & 07777, 0666 & ~masks[i]);
        got = slurp(path, &lg);
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        CU_ASSERT_EQUAL(lg, lw);
        CU_ASSERT_STRING_EQUAL(got, want);
        free(got);
        CU_ASSERT_EQUAL(entries(dir, name, sizeof(name)), 1);
        CU_ASSERT_STRING_EQUAL(name, "report.json");
    }
    umask(um);
    /* the old file was replaced, not written over */
    CU_ASSERT_EQUAL(read(fd, old, sizeof(old)), 4);
    CU_ASSERT_EQUAL(memcmp(old, "old\n", 4), 0);
    close(fd);

    purge(dir);
    free(want);
    ew_analyzer_free(&an);
}

/* one failing ew_report_write_file: -1, errbuf names the path and says why
 * (want), one line */
static void
write_fails(const struct ew_analyzer *an, const char *path, const char *want)
{
    char err[512];

    err[0] = '\0';
    CU_ASSERT_EQUAL(write_pass(an, &src_file, path, err, sizeof(err)), -1);
    if (!strstr(err, want))
        fprintf(stderr, "%s: \"%s\" does not say \"%s\"\n", path, err, want);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
    CU_ASSERT_PTR_NULL(strchr(err, '\n'));
}

/* report.h, ew_report_write_file: "on failure -1, errbuf says why, and
 * nothing is left at path or in the folder": a folder that does not exist,
 * a path under a file, a path that is a folder (the temporary file is made
 * and must go), a write cut short (file size limit: EFBIG), and, when not
 * root, a folder that is not writable */
static void
test_write_file_failures(void)
{
    struct ew_analyzer an;
    char dir[] = "/tmp/ew-report-XXXXXX", path[160], sub[128], file[128], name[64];
    struct rlimit rl, small;
    struct stat st;
    void (*old)(int);
    FILE *fp;

    feed(&an);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));

    snprintf(path, sizeof(path), "%s/no/such/folder/r.json", dir);
    write_fails(&an, path, "No such file or directory");
    CU_ASSERT_EQUAL(entries(dir, NULL, 0), 0);

    snprintf(file, sizeof(file), "%s/plain", dir);
    fp = fopen(file, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fclose(fp);
    snprintf(path, sizeof(path), "%s/r.json", file);
    write_fails(&an, path, "Not a directory");
    CU_ASSERT_EQUAL(entries(dir, NULL, 0), 1);
    unlink(file);

    snprintf(sub, sizeof(sub), "%s/taken", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
    write_fails(&an, sub, "Is a directory");
    CU_ASSERT_EQUAL(entries(dir, name, sizeof(name)), 1);
    CU_ASSERT_STRING_EQUAL(name, "taken");
    CU_ASSERT_EQUAL(entries(sub, NULL, 0), 0);
    CU_ASSERT_TRUE(stat(sub, &st) == 0 && S_ISDIR(st.st_mode));
    rmdir(sub);

    /* the report does not fit under the file size limit */
    snprintf(path, sizeof(path), "%s/r.json", dir);
    CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &rl), 0);
    small = rl;
    small.rlim_cur = 1000;
    old = signal(SIGXFSZ, SIG_IGN);
    CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &small), 0);
    write_fails(&an, path, "File too large");
    CU_ASSERT_EQUAL(setrlimit(RLIMIT_FSIZE, &rl), 0);
    signal(SIGXFSZ, old);
    CU_ASSERT_EQUAL(entries(dir, NULL, 0), 0);
    CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);

    if (geteuid() != 0) { /* root writes anywhere */
        CU_ASSERT_EQUAL(chmod(dir, 0500), 0);
        write_fails(&an, path, "Permission denied");
        CU_ASSERT_EQUAL(chmod(dir, 0700), 0);
        CU_ASSERT_EQUAL(entries(dir, NULL, 0), 0);
    }
    CU_ASSERT_EQUAL(entries(dir, NULL, 0), 0);
    purge(dir);
    ew_analyzer_free(&an);
}

/* report.h, ew_report_dump: "0 on success, else -1 with errno set": a full
 * device refuses the bytes. Unbuffered, every write reaches the device; with
 * the FILE's own buffer a report larger than it does too; a small report
 * may wait in the buffer, and then its fflush fails. */
static void
test_dump_full_device(void)
{
    struct ew_analyzer an, none;
    FILE *fp;
    int rc;

    feed(&an);
    fp = fopen("/dev/full", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    setvbuf(fp, NULL, _IONBF, 0);
    errno = 0;
    CU_ASSERT_EQUAL(dump_pass(fp, &an, &src_file, NULL), -1);
    CU_ASSERT_EQUAL(errno, ENOSPC);
    fclose(fp);

    fp = fopen("/dev/full", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    errno = 0;
    CU_ASSERT_EQUAL(dump_pass(fp, &an, &src_file, NULL), -1); /* some 15 kB, more than a buffer */
    CU_ASSERT_EQUAL(errno, ENOSPC);
    fclose(fp);

    init(&none, 2);
    fp = fopen("/dev/full", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    rc = dump_pass(fp, &none, &src_file, NULL);
    CU_ASSERT_TRUE(rc == -1 || fflush(fp) != 0);
    fclose(fp);
    ew_analyzer_free(&none);
    ew_analyzer_free(&an);
}

/* report.h: a flow written alone (ew_flow_conclude, ew_report_flow_write, as
 * the event stream writes it) is the flow the report has, compact */
static void
test_flow_alone(void)
{
    struct ew_analyzer an;
    struct ew_flow_room room;
    struct ew_flow_summary fr;
    uint32_t refs[8];
    json_t *r, *one;
    char *text, *m = NULL;
    size_t len, n = 0, k, i;
    struct jw w;
    FILE *fp;

    feed(&an);
    text = report_of(&an, &src_file, &len);
    r = parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    k = ew_flowtab_refs(an.tab, refs, 8, false);
    CU_ASSERT_EQUAL_FATAL(k, 5);
    for (i = 0; i < k; i++) {
        const struct ew_flow *f = ew_flowtab_view(an.tab, refs[i], &room);

        fp = open_memstream(&m, &n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        CU_ASSERT_EQUAL_FATAL(jw_init(&w, fp, 0, 10), 0);
        ew_flow_conclude(f, EW_REPORT_CONCLUDE, &fr);
        ew_report_flow_write(&w, &an, f, &fr);
        CU_ASSERT_EQUAL(jw_finish(&w), 0);
        fclose(fp);
        CU_ASSERT_PTR_NULL(strchr(m, '\n'));
        one = parse(m);
        CU_ASSERT_PTR_NOT_NULL_FATAL(one);
        CU_ASSERT_TRUE(json_equal(one, json_array_get(json_object_get(r, "flows"), i)));
        CU_ASSERT_STRING_EQUAL(ew_report_proto_name(f),
                               json_string_value(json_object_get(one, "proto")));
        json_decref(one);
        free(m);
        m = NULL;
    }
    json_decref(r);
    free(text);
    ew_analyzer_free(&an);
}

int
ew_test_register_report(void)
{
    CU_pSuite s = CU_add_suite("report", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "JSON report: the contract's fields and values", test_json_contract) ||
        !CU_add_test(s, "JSON report: jansson's bytes, the same twice", test_json_bytes) ||
        !CU_add_test(s, "JSON report: 700 flows in order", test_json_many_flows) ||
        !CU_add_test(s, "JSON report: every bundled capture", test_json_captures) ||
        !CU_add_test(s, "nothing seen: report and summary", test_empty) ||
        !CU_add_test(s, "summary: totals, flows, more flows", test_text_summary) ||
        !CU_add_test(s, "summary: 40 findings, a full table, 1 flow", test_text_limits) ||
        !CU_add_test(s, "report file: whole, mode, nothing else", test_write_file) ||
        !CU_add_test(s, "report file: failures leave nothing", test_write_file_failures) ||
        !CU_add_test(s, "report on a full device", test_dump_full_device) ||
        !CU_add_test(s, "a flow alone is the report's", test_flow_alone) ||
        !CU_add_test(s, "a live capture's loss in the totals and the text", test_capture_loss))
        return -1;
    return 0;
}
