/* test_metrics.c - the Prometheus text built from an analyzer fed a few
 * packets: values, format rules, sampling, the atomic file, ADDR:PORT. */
#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/analyze.h"
#include "dissectors/ecn.h"
#include "findings/conclusions.h"
#include "output/metrics.h"
#include "base/version.h"
#include "fixture.h"
#include "suites.h"

/* three flows: classic ECN TCP with a CE mark, UDP marked ECT(1), and TCP
 * without ECN whose data is ECT(0); plus a non-IP and an undecodable frame */
static void
feed(struct ew_analyzer *an)
{
    struct ew_analyzer_cfg cfg = {.max_flows = 16, .hash_seed = 3, .idle_ns = 0};
    struct ew_pkt p;
    int64_t t = 1000;
    int i;

    CU_ASSERT_FATAL(ew_analyzer_init(an, &cfg) == 0);
    fx_pkt(&p, EW_L4_TCP, CLI, 40000, EW_TCP_SYN | EW_TCP_ECE | EW_TCP_CWR, 100, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, t++);
    fx_pkt(&p, EW_L4_TCP, SRV, 40000, EW_TCP_SYN | EW_TCP_ACK | EW_TCP_ECE, 7000, 0,
        EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, t++);
    fx_pkt(&p, EW_L4_TCP, CLI, 40000, EW_TCP_ACK, 101, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, t++);
    fx_pkt(&p, EW_L4_TCP, CLI, 40000, EW_TCP_ACK, 101, 1000, EW_ECN_ECT_0);
    ew_analyzer_frame(an, &p, t++);
    fx_pkt(&p, EW_L4_TCP, CLI, 40000, EW_TCP_ACK, 1101, 1000, EW_ECN_CE);
    ew_analyzer_frame(an, &p, t++);
    for (i = 0; i < 5; i++) {
        fx_pkt(&p, EW_L4_UDP, CLI, 50000, 0, 0, 800, EW_ECN_ECT_1);
        ew_analyzer_frame(an, &p, t++);
    }
    fx_pkt(&p, EW_L4_TCP, CLI, 40001, EW_TCP_SYN, 500, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, t++);
    fx_pkt(&p, EW_L4_TCP, SRV, 40001, EW_TCP_SYN | EW_TCP_ACK, 900, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, t++);
    for (i = 0; i < 3; i++) {
        fx_pkt(&p, EW_L4_TCP, CLI, 40001, EW_TCP_ACK, 501 + 1000 * (uint32_t)i, 1000, EW_ECN_ECT_0);
        ew_analyzer_frame(an, &p, t++);
    }
    memset(&p, 0, sizeof(p));
    p.status = EW_PKT_NON_IP;
    ew_pkt_event(&p, EW_EV_NON_IP);
    ew_analyzer_frame(an, &p, t++);
    memset(&p, 0, sizeof(p));
    p.status = EW_PKT_UNDECODABLE;
    ew_pkt_event(&p, EW_EV_IPV4_TRUNC);
    ew_analyzer_frame(an, &p, t++);
}

static char *
text_of(const struct ew_analyzer *an, const struct ew_metrics_flows *fl,
        const struct ew_metrics_src *src)
{
    size_t len = 0;
    char *t = ew_metrics_text(an, fl, src, &len);

    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(strlen(t), len);
    return t;
}

/* the whole line is in the text */
static int
has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    const char *p = text;

    while ((p = strstr(p, line)) != NULL) {
        if ((p == text || p[-1] == '\n') && p[n] == '\n')
            return 1;
        p += n;
    }
    return 0;
}

static uint64_t
value_of(const char *text, const char *series)
{
    char want[200];
    const char *p;

    snprintf(want, sizeof(want), "\n%s ", series);
    p = strstr(text, want);
    if (!p)
        return UINT64_MAX;
    return strtoull(p + strlen(want), NULL, 10);
}

/* the sample name (line's first k bytes) belongs to the family: its name,
 * or for a histogram its name and _bucket, _sum or _count */
static int
sample_of(const char *line, size_t k, const char *fam, const char *type)
{
    static const char *const part[] = {"_bucket", "_sum", "_count"};
    size_t n = strlen(fam), i;

    if (strncmp(line, fam, n) || k < n)
        return 0;
    if (strcmp(type, "histogram"))
        return k == n;
    for (i = 0; i < 3; i++)
        if (k == n + strlen(part[i]) && !strncmp(line + n, part[i], k - n))
            return 1;
    return 0;
}

/* The format's rules, as promtool reads them: each family has one HELP and
 * one TYPE before its samples, and its samples together; counters end in
 * _total and nothing else does; names and labels are well formed; every
 * line ends with a newline. Returns the number of broken lines. */
static int
check_format(const char *text)
{
    char fams[64][80], types[64][16];
    int nf = 0, bad = 0, cur = -1, i;
    const char *p = text;

    if (!*text || text[strlen(text) - 1] != '\n')
        return 1;
    while (*p) {
        const char *e = strchr(p, '\n');
        char line[512], name[80], type[16];
        size_t n = (size_t)(e - p);

        if (n >= sizeof(line))
            return bad + 1;
        memcpy(line, p, n);
        line[n] = '\0';
        p = e + 1;
        if (sscanf(line, "# HELP %79s", name) == 1) {
            for (i = 0; i < nf; i++)
                if (!strcmp(fams[i], name))
                    bad++; /* a second HELP, or a family split */
            if (nf < 64) {
                snprintf(fams[nf], sizeof(fams[nf]), "%s", name);
                types[nf][0] = '\0';
                cur = nf++;
            }
        } else if (sscanf(line, "# TYPE %79s %15s", name, type) == 2) {
            if (cur < 0 || strcmp(fams[cur], name) || types[cur][0])
                bad++;
            else
                snprintf(types[cur], sizeof(types[cur]), "%s", type);
            if (strcmp(type, "counter") && strcmp(type, "gauge") && strcmp(type, "histogram"))
                bad++;
            if (!strcmp(type, "counter") != (strlen(name) > 6 &&
                                             !strcmp(name + strlen(name) - 6, "_total")))
                bad++;
        } else if (line[0] == '#') {
            if (line[1] != ' ')
                bad++;
        } else {
            size_t k = strspn(line, "abcdefghijklmnopqrstuvwxyz_0123456789");
            char *end;

            if (k == 0 || cur < 0 || !types[cur][0] || !sample_of(line, k, fams[cur], types[cur])) {
                bad++;
                continue;
            }
            if (line[k] == '{') {
                const char *q = line + k + 1;

                while (*q != '}') {
                    size_t l = strspn(q, "abcdefghijklmnopqrstuvwxyz_");

                    if (l == 0 || q[l] != '=' || q[l + 1] != '"')
                        break;
                    q += l + 2;
                    while (*q && *q != '"')
                        q += (*q == '\\' && q[1]) ? 2 : 1;
                    if (*q != '"')
                        break;
                    q++;
                    if (*q == ',')
                        q++;
                }
                if (*q != '}') {
                    bad++;
                    continue;
                }
                k = (size_t)(q + 1 - line);
            }
            if (line[k] != ' ' || (strtod(line + k + 1, &end), *end != '\0') || end == line + k + 1)
                bad++;
        }
    }
    for (i = 0; i < nf; i++)
        if (!types[i][0])
            bad++;
    return bad;
}

static void
test_values(void)
{
    struct ew_analyzer an;
    struct ew_metrics_flows fl;
    struct ew_metrics_src src = {.interface = "eth0", .have_capture = true, .received = 99,
                                 .dropped = 7};
    uint64_t counts[32], sum = 0;
    char *t;
    int k;

    feed(&an);
    ew_metrics_count_flows(&an, EW_METRICS_FLOW_BUDGET, &fl);
    CU_ASSERT_EQUAL(fl.held, 3);
    CU_ASSERT_EQUAL(fl.evaluated, 3);
    for (k = 0; k < EW_METRICS_VERDICTS; k++)
        sum += fl.verdict[k];
    CU_ASSERT_EQUAL(sum, 3);
    CU_ASSERT_EQUAL(fl.negotiation[EW_NEG_RFC3168], 1);
    CU_ASSERT_EQUAL(fl.negotiation[EW_NEG_NONE], 1);
    CU_ASSERT_EQUAL(fl.negotiation[EW_NEG_NA], 1);
    /* the misuse gauges are ew_analyzer_findings' counts over a pass */
    {
        struct ew_conclusions c = EW_CONCLUSIONS_INIT;

        CU_ASSERT_EQUAL_FATAL(ew_analyzer_pass(&an, &c, EW_PASS_BOTTLENECKS, NULL), 0);
        ew_analyzer_findings(&an, &c, counts);
        ew_conclusions_free(&c);
    }
    for (k = 0; k < EW_MU_COUNT; k++)
        CU_ASSERT_EQUAL(fl.misuse[k], counts[k]);
    CU_ASSERT_EQUAL(fl.misuse[EW_MU_ECT_WITHOUT_NEGOTIATION], 1);

    t = text_of(&an, &fl, &src);
    CU_ASSERT_EQUAL(check_format(t), 0);
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_info{version=\"" EW_VERSION "\",interface=\"eth0\"} 1"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_frames_total 17"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_packets_total{codepoint=\"not_ect\"} 5"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_packets_total{codepoint=\"ect0\"} 4"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_packets_total{codepoint=\"ect1\"} 5"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_packets_total{codepoint=\"ce\"} 1"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_undecodable_frames_total 1"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_truncated_frames_total 1"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_flows_total 3"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_flows_active 3"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_flows_held 3"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_flows_evicted_total 0"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_flows_evaluated 3"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_flows_by_negotiation{negotiation=\"rfc3168\"} 1"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_flows_by_negotiation{negotiation=\"not_tcp\"} 1"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_misuse_flows{kind=\"ect_without_negotiation\"} 1"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_misuse_flows{kind=\"bleaching\"} 0"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_capture_received_total 99"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_capture_dropped_total 7"));
    CU_ASSERT_TRUE(has_line(t, "# TYPE ecnwatch_packets_total counter"));
    CU_ASSERT_TRUE(has_line(t, "# TYPE ecnwatch_flows gauge"));
    CU_ASSERT_PTR_NULL(strstr(t, "estimated"));
    /* every verdict has its series, zero or not */
    for (k = 0, sum = 0; k < EW_METRICS_VERDICTS; k++) {
        char series[80];

        snprintf(series, sizeof(series), "ecnwatch_flows{verdict=\"%s\"}", ew_verdict_name[k]);
        CU_ASSERT_NOT_EQUAL(value_of(t, series), UINT64_MAX);
        sum += value_of(t, series);
    }
    CU_ASSERT_EQUAL(sum, 3);
    free(t);
    ew_analyzer_free(&an);
}

/* the diagnosis: two TCP directions carried data (the UDP flow has no
 * path); every path verdict, bottleneck kind and histogram series is there,
 * zero or not, the buckets rise to the count, and the text says the same */
static void
test_diagnosis(void)
{
    struct ew_analyzer an;
    struct ew_metrics_flows fl;
    struct ew_metrics_src src = {0};
    uint64_t sum = 0, timed = 0;
    char *t, series[160];
    int k, b;

    feed(&an);
    ew_metrics_count_flows(&an, EW_METRICS_FLOW_BUDGET, &fl);
    CU_ASSERT_FALSE(fl.paths_missing);
    for (k = 0; k < EW_AQM_COUNT; k++)
        sum += fl.path[k];
    CU_ASSERT_EQUAL(sum, 2);
    for (k = 0; k < EW_METRICS_BN_KINDS; k++) {
        CU_ASSERT_EQUAL(fl.bottlenecks[k], 0);
        CU_ASSERT_EQUAL(fl.bottleneck_flows[k], 0);
    }
    for (k = 0; k < EW_METRICS_CP_CLASSES; k++) {
        for (b = 0; b < EW_METRICS_QD_BUCKETS; b++)
            CU_ASSERT_TRUE(fl.qd_bucket[k][b] <= (b + 1 < EW_METRICS_QD_BUCKETS
                                                      ? fl.qd_bucket[k][b + 1]
                                                      : fl.qd_count[k]));
        timed += fl.qd_count[k];
    }
    CU_ASSERT_TRUE(timed <= 2);
    t = text_of(&an, &fl, &src);
    CU_ASSERT_EQUAL(check_format(t), 0);
    CU_ASSERT_TRUE(has_line(t, "# TYPE ecnwatch_flow_directions_by_path gauge"));
    CU_ASSERT_TRUE(has_line(t, "# TYPE ecnwatch_bottlenecks gauge"));
    CU_ASSERT_TRUE(has_line(t, "# TYPE ecnwatch_bottleneck_flows gauge"));
    CU_ASSERT_TRUE(has_line(t, "# TYPE ecnwatch_flow_queueing_delay_seconds histogram"));
    for (k = 0, sum = 0; k < EW_AQM_COUNT; k++) {
        snprintf(series, sizeof(series), "ecnwatch_flow_directions_by_path{aqm=\"%s\"}",
                 ew_aqm_name[k]);
        CU_ASSERT_EQUAL(value_of(t, series), fl.path[k]);
        sum += value_of(t, series);
    }
    CU_ASSERT_EQUAL(sum, 2);
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_bottlenecks{looks_like=\"dualq\"} 0"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_bottleneck_flows{looks_like=\"unknown\"} 0"));
    for (k = 0; k < EW_METRICS_CP_CLASSES; k++) {
        const char *cl = ew_metrics_cp_class[k];

        snprintf(series, sizeof(series),
                 "ecnwatch_flow_queueing_delay_seconds_bucket{sender_codepoint=\"%s\",le=\"+Inf\"}",
                 cl);
        CU_ASSERT_EQUAL(value_of(t, series), fl.qd_count[k]);
        snprintf(series, sizeof(series),
                 "ecnwatch_flow_queueing_delay_seconds_count{sender_codepoint=\"%s\"}", cl);
        CU_ASSERT_EQUAL(value_of(t, series), fl.qd_count[k]);
        snprintf(series, sizeof(series),
                 "ecnwatch_flow_queueing_delay_seconds_bucket{sender_codepoint=\"%s\",le=\"0.0005\"}",
                 cl);
        CU_ASSERT_EQUAL(value_of(t, series), fl.qd_bucket[k][0]);
    }
    free(t);
    /* the sum in seconds, as few digits as it needs */
    memset(&fl, 0, sizeof(fl));
    fl.qd_count[2] = 2;
    fl.qd_sum_us[2] = 1004500;
    fl.qd_sum_us[1] = 5000000;
    t = text_of(&an, &fl, &src);
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_flow_queueing_delay_seconds_sum{sender_codepoint=\"ect1\"} 1.0045"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_flow_queueing_delay_seconds_sum{sender_codepoint=\"ect0\"} 5"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_flow_queueing_delay_seconds_sum{sender_codepoint=\"none\"} 0"));
    free(t);
    ew_analyzer_free(&an);
}

static void
test_buffer_file_and_labels(void)
{
    struct ew_analyzer an;
    struct ew_metrics_flows fl;
    struct ew_metrics_src src = {.interface = "we\"ird\\if\nx"};
    char small[64], *t, *m = NULL;
    size_t len, mlen = 0;
    FILE *fp;

    feed(&an);
    ew_metrics_count_flows(&an, EW_METRICS_FLOW_BUDGET, &fl);
    t = text_of(&an, &fl, &src);
    len = strlen(t);
    CU_ASSERT_EQUAL(check_format(t), 0);
    CU_ASSERT_TRUE(strstr(t, "interface=\"we\\\"ird\\\\if\\nx\"} 1\n") != NULL);
    /* no capture statistics: no capture families */
    CU_ASSERT_PTR_NULL(strstr(t, "ecnwatch_capture_"));
    /* a short buffer: cut, terminated, and the full length returned */
    CU_ASSERT_EQUAL(ew_metrics_format(small, sizeof(small), &an, &fl, &src), len);
    CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
    CU_ASSERT_EQUAL(strncmp(small, t, sizeof(small) - 1), 0);
    /* the FILE writer gives the same bytes */
    fp = open_memstream(&m, &mlen);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    CU_ASSERT_EQUAL(ew_metrics_print(fp, &an, &fl, &src), 0);
    fclose(fp);
    CU_ASSERT_EQUAL(mlen, len);
    CU_ASSERT_STRING_EQUAL(m, t);
    free(m);
    free(t);
    ew_analyzer_free(&an);
}

static void
test_sampled(void)
{
    struct ew_analyzer an;
    struct ew_metrics_flows fl;
    struct ew_metrics_src src = {0};
    uint64_t sum = 0;
    char *t;
    int k;

    feed(&an);
    ew_metrics_count_flows(&an, 2, &fl); /* 3 held, budget 2: every 2nd flow */
    CU_ASSERT_EQUAL(fl.held, 3);
    CU_ASSERT_EQUAL(fl.evaluated, 2);
    for (k = 0; k < EW_METRICS_VERDICTS; k++)
        sum += fl.verdict[k];
    CU_ASSERT_TRUE(sum >= 2 && sum <= 4);
    t = text_of(&an, &fl, &src);
    CU_ASSERT_EQUAL(check_format(t), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\n# ecnwatch_flows, ecnwatch_flows_by_negotiation and "
                                     "ecnwatch_misuse_flows are estimated: of 3 flows held, the "
                                     "verdicts of 2 (1 in 2, by id) were computed"));
    CU_ASSERT_TRUE(has_line(t, "ecnwatch_flows_evaluated 2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\n# ecnwatch_flow_directions_by_path, ecnwatch_bottleneck_flows "
                                     "and ecnwatch_flow_queueing_delay_seconds are scaled alike"));
    free(t);
    ew_analyzer_free(&an);
}

static void
test_write_file(void)
{
    char dir[] = "/tmp/ew-metrics-XXXXXX", path[128], buf[64], err[512];
    const char *text = "ecnwatch_frames_total 1\n";
    struct dirent *de;
    FILE *fp;
    DIR *d;
    int n = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/ecnwatch.prom", dir);
    CU_ASSERT_EQUAL(ew_metrics_write_file(path, "old\n", 4, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(ew_metrics_write_file(path, text, strlen(text), err, sizeof(err)), 0);
    fp = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    CU_ASSERT_PTR_NOT_NULL(fgets(buf, sizeof(buf), fp));
    fclose(fp);
    CU_ASSERT_STRING_EQUAL(buf, text);
    d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            n++;
    closedir(d);
    CU_ASSERT_EQUAL(n, 1); /* no temporary file left */
    snprintf(path, sizeof(path), "%s/no/such/dir/x.prom", dir);
    CU_ASSERT_EQUAL(ew_metrics_write_file(path, text, strlen(text), err, sizeof(err)), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "No such file or directory"));
    snprintf(path, sizeof(path), "%s/ecnwatch.prom", dir);
    unlink(path);
    rmdir(dir);
}

static void
test_parse_addr(void)
{
    static const char *const bad[] = {
        "", "9109", ":9109", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
        "127.0.0.1:-1", "127.0.0.1:91x", "localhost:9109", "::1:9109", "[::1]", "[::1]9109",
        "[127.0.0.1]:9109", "1.2.3:9109", "[::1:9109",
    };
    struct sockaddr_storage ss;
    socklen_t len;
    char err[200];
    size_t i;

    CU_ASSERT_EQUAL(ew_metrics_parse_addr("127.0.0.1:9109", &ss, &len, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(ss.ss_family, AF_INET);
    CU_ASSERT_EQUAL(len, sizeof(struct sockaddr_in));
    CU_ASSERT_EQUAL(ntohs(((struct sockaddr_in *)&ss)->sin_port), 9109);
    CU_ASSERT_EQUAL(ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr), 0x7f000001);
    CU_ASSERT_EQUAL(ew_metrics_parse_addr("[::1]:65535", &ss, &len, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(ss.ss_family, AF_INET6);
    CU_ASSERT_EQUAL(len, sizeof(struct sockaddr_in6));
    CU_ASSERT_EQUAL(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 65535);
    CU_ASSERT_TRUE(IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr));
    CU_ASSERT_EQUAL(ew_metrics_parse_addr("0.0.0.0:1", &ss, &len, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(ew_metrics_parse_addr("[::]:9109", &ss, &len, err, sizeof(err)), 0);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        CU_ASSERT_EQUAL(ew_metrics_parse_addr(bad[i], &ss, &len, err, sizeof(err)), -1);
        CU_ASSERT_TRUE(err[0] != '\0' && strchr(err, '\n') == NULL);
    }
}

int
ew_test_register_metrics(void)
{
    CU_pSuite s = CU_add_suite("metrics", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "values from an analyzer fed a few packets", test_values) ||
        !CU_add_test(s, "the diagnosis: paths, bottlenecks, queueing delay", test_diagnosis) ||
        !CU_add_test(s, "buffer, FILE and label escaping", test_buffer_file_and_labels) ||
        !CU_add_test(s, "more flows than the budget: sampled and said", test_sampled) ||
        !CU_add_test(s, "atomic metrics file", test_write_file) ||
        !CU_add_test(s, "ADDR:PORT", test_parse_addr))
        return -1;
    return 0;
}
