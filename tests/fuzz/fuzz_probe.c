/* fuzz_probe.c - libFuzzer harness for the active probe's readers of
 * answers (src/probe/probe_wire.c) and its judge (probe_judge.c).
 *
 * Input: byte 0 chooses the reader (modulo 6): an ICMP message with its
 * IPv4 header, an ICMPv6 message, a TCP or UDP answer with its IPv4 header,
 * a TCP or UDP answer without (IPv6; its traffic class from byte 1); the
 * rest is the message, copied into a buffer of exactly its length, so any
 * read past it is caught. An answer read must be consistent: no more bytes
 * quoted than were there, fields in range. Then the same bytes fill a
 * probe's observations (answer, from the destination, quoted bytes,
 * codepoint, flags, option, per TTL and type), which are judged, and the
 * report (JSON) and summary (text) written to /dev/null: no read out of an
 * array, whatever the observations say. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "probe/probe.h"

static const uint8_t FROM[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 9};

static void
check_reply(const struct ew_probe_reply *r, size_t n)
{
    if (r->quoted > n || r->ecn < -1 || r->ecn > 3 || r->flags < -1 || r->flags > 0x1ff ||
        (unsigned)r->option > EW_PO_CHANGED || (unsigned)r->answer >= EW_PA_COUNT)
        abort();
}

static void
judge(const uint8_t *data, size_t size)
{
    static struct ew_probe_result r;
    struct ew_probe_meta m = {.name = "fuzz", .tcp_port = 80, .udp_port = 443, .rate = 1,
                              .max_probes = 1, .wait_ms = 10, .stopped = "max_ttl"};
    size_t i = 0;
    FILE *null = fopen("/dev/null", "w");

    memset(&r, 0, sizeof(r));
    r.family = size && (data[0] & 1) ? 6 : 4;
    r.max_ttl = size > 1 ? 1 + data[1] % EW_PROBE_MAX_TTL : 1;
    r.dest_ttl = size > 2 ? data[2] % (r.max_ttl + 1) : 0;
    for (int t = 0; t < EW_PT_COUNT; t++)
        r.types[t] = size <= 3 || !((data[3] >> (t % 8)) & 1) || t == 0;
    for (int ttl = 1; ttl <= r.max_ttl; ttl++)
        for (int t = 0; t < EW_PT_COUNT; t++) {
            struct ew_probe_obs *o = &r.obs[ttl][t];
            uint8_t b = i + 4 < size ? data[4 + i] : 0, c = i + 5 < size ? data[5 + i] : 0;

            i += 2;
            o->sent = b & 1 ? 1 + (c & 1) : 0;
            o->answer = (enum ew_probe_answer)(b >> 1 & 7) % EW_PA_COUNT;
            o->from_dst = b >> 4 & 1;
            o->from[0] = (uint8_t)ttl;
            o->quoted = b >> 5 & 1 ? 28u + (c & 63) : 0;
            o->ecn = (int)(c >> 1 & 3) - (b >> 6 & 1);
            o->flags = b >> 7 ? -1 : (int)((unsigned)c << 1 & 0x1ff);
            o->option = (enum ew_probe_opt)(c >> 6);
            o->answer_ecn = (int)(c & 3) - (c >> 2 & 1);
            o->answer_flags = c >> 3 & 1 ? -1 : (int)c;
        }
    ew_probe_judge(&r);
    for (size_t k = 0; k < r.nfindings; k++)
        if ((unsigned)r.findings[k].kind >= EW_MU_COUNT || r.findings[k].ttl < 1 ||
            r.findings[k].ttl > r.max_ttl)
            abort();
    if (null) {
        (void)ew_probe_write_json(null, &r, &m);
        (void)ew_probe_write_text(null, &r, &m);
        fclose(null);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ew_probe_reply r;
    uint8_t *copy;
    size_t n;
    int rc = -1;

    if (size < 2)
        return 0;
    n = size - 2;
    copy = malloc(n ? n : 1);
    if (!copy)
        return 0;
    memcpy(copy, data + 2, n);
    switch (data[0] % 6) {
    case 0: rc = ew_probe_read_icmp4(copy, n, &r); break;
    case 1: rc = ew_probe_read_icmp6(copy, n, FROM, &r); break;
    case 2: rc = ew_probe_read_l4_4(copy, n, false, &r); break;
    case 3: rc = ew_probe_read_l4_4(copy, n, true, &r); break;
    case 4: rc = ew_probe_read_l4_6(copy, n, false, FROM, data[1], &r); break;
    default: rc = ew_probe_read_l4_6(copy, n, true, FROM, data[1] & 1 ? -1 : data[1], &r); break;
    }
    if (rc == 0)
        check_reply(&r, n);
    free(copy);
    judge(data, size);
    return 0;
}
