/* report_path.c - the JSON report's parts that span flows and captures
 * (ecnwatch-report(5)): "bottlenecks", the groups of flows through one
 * bottleneck (findings/bottleneck.c finds them), and "path", the changes
 * between captures of the same traffic (findings/pathcmp.c finds them). */
#include "output/report.h"

#include <arpa/inet.h>

#include "findings/bottleneck.h"
#include "dissectors/ecn.h"
#include "base/format.h"
#include "base/jw.h"
#include "findings/misuse.h"
#include "findings/pathcmp.h"

static void
side_write(struct jw *w, const char *k, const struct ew_bottleneck_side *s)
{
    size_t i;

    jw_key(w, k);
    jw_object_begin(w);
    jw_key(w, "flows");
    jw_array_begin(w);
    for (i = 0; i < s->n; i++)
        jw_int(w, (int64_t)s->ids[i]);
    jw_array_end(w);
    jw_kreal(w, "throughput_mbps", s->throughput_mbps);
    jw_kreal(w, "ce_per_packet", s->ce_per_packet);
    jw_kint(w, "marks", (int64_t)s->marks);
    jw_kreal_if(w, "qdelay_ms", s->has_qdelay, s->qdelay_ms);
    jw_object_end(w);
}

void
ew_report_bottlenecks_write(struct jw *w, const struct ew_bottlenecks *b)
{
    size_t i;

    jw_array_begin(w);
    for (i = 0; i < b->n; i++) {
        const struct ew_bottleneck *g = &b->g[i];

        jw_object_begin(w);
        jw_key(w, "hosts");
        jw_array_begin(w);
        jw_string(w, g->hosts[0]);
        jw_string(w, g->hosts[1]);
        jw_array_end(w);
        jw_kstring(w, "looks_like", g->looks_like);
        jw_kstring_or_null(w, "confidence", g->likely ? "likely" : NULL);
        jw_kstring(w, "reason", g->reason);
        jw_kstring(w, "compared_over", g->over_overlap ? "overlap" : "whole_flows");
        jw_kreal_if(w, "overlap_s", g->over_overlap, g->overlap_s);
        jw_kreal_if(w, "base_rtt_ms", g->has_base, g->base_rtt_ms);
        jw_kreal_if(w, "qdelay_correlation", g->has_corr, g->corr);
        jw_kreal_if(w, "throughput_ratio_l4s_to_classic", g->has_ratio, g->ratio);
        side_write(w, "l4s", &g->l4s);
        side_write(w, "classic", &g->classic);
        jw_object_end(w);
    }
    jw_array_end(w);
}

/* one end of a change: {"addr", "port"} */
static void
end_write(struct jw *w, const char *k, const struct ew_hop_change *c, const uint8_t *addr,
          uint16_t port)
{
    char a[INET6_ADDRSTRLEN];

    ew_addr_str(addr, c->family, a, sizeof(a));
    jw_key(w, k);
    jw_object_begin(w);
    jw_kstring(w, "addr", a);
    jw_kint_if(w, "port", c->l4 != EW_L4_NONE, port);
    jw_object_end(w);
}

/* a {upstream, downstream} pair of frames */
static void
frame_pair(struct jw *w, uint64_t up, uint64_t down)
{
    jw_array_begin(w);
    jw_int(w, (int64_t)up);
    jw_int(w, (int64_t)down);
    jw_array_end(w);
}

/* change i of the hop; fr: its listed pairs, NULL when they could not be
 * sorted out (an empty list then) */
static void
change_write(struct jw *w, const struct ew_hop *hop, uint32_t i, const struct ew_hop_frames *fr)
{
    struct ew_hop_change c;
    uint32_t j;

    ew_hop_change(hop, i, &c);
    jw_object_begin(w);
    end_write(w, "src", &c, c.src, c.sport);
    end_write(w, "dst", &c, c.dst, c.dport);
    jw_kstring(w, "proto", c.l4 == EW_L4_TCP ? "tcp" : c.l4 == EW_L4_UDP ? "udp" : "other");
    jw_kstring(w, "from", ew_ecn_key[c.from & 3]);
    jw_kstring(w, "to", ew_ecn_key[c.to & 3]);
    if (c.outer)
        jw_kstring(w, "from_outer", ew_ecn_key[(c.outer - 1) & 3]);
    jw_kstring(w, "meaning", c.meaning);
    jw_kstring_or_null(w, "misuse", c.misuse >= 0 ? ew_misuse_name[c.misuse] : NULL);
    jw_kint(w, "count", (int64_t)c.count);
    jw_key(w, "first_frames");
    frame_pair(w, c.first_up, c.first_down);
    jw_key(w, "frames");
    jw_array_begin(w);
    for (j = fr ? fr->first[i] : 0; fr && j < fr->first[i + 1]; j++)
        frame_pair(w, fr->pair[j][0], fr->pair[j][1]);
    jw_array_end(w);
    jw_object_end(w);
}

void
ew_report_hop_write(struct jw *w, const struct ew_hop *hop, const char *up_name,
                    const char *down_name)
{
    struct ew_hop_counts n;
    struct ew_hop_frames fr;
    bool have_frames = ew_hop_frames(hop, &fr) == 0;
    uint32_t i, nc = ew_hop_nchanges(hop);

    ew_hop_counts(hop, &n);
    jw_object_begin(w);
    jw_kint(w, "from_capture", n.from_capture);
    jw_kint(w, "to_capture", n.to_capture);
    jw_kstring(w, "from", up_name);
    jw_kstring(w, "to", down_name);
    jw_kint(w, "matched", (int64_t)n.matched);
    jw_kint(w, "unchanged", (int64_t)n.unchanged);
    jw_kint(w, "only_upstream", (int64_t)n.only_upstream);
    jw_kint(w, "only_downstream", (int64_t)n.only_downstream);
    jw_kint(w, "not_indexed", (int64_t)n.not_indexed);
    jw_key(w, "changes");
    jw_array_begin(w);
    for (i = 0; i < nc; i++)
        change_write(w, hop, i, have_frames ? &fr : NULL);
    jw_array_end(w);
    if (n.not_listed)
        jw_kint(w, "changes_not_listed", (int64_t)n.not_listed);
    jw_object_end(w);
    if (have_frames)
        ew_hop_frames_free(&fr);
}

void
ew_report_path_write(struct jw *w, const struct ew_report_path *p)
{
    int i;

    jw_object_begin(w);
    jw_key(w, "captures");
    jw_array_begin(w);
    for (i = 0; i < p->ncaptures; i++)
        jw_string(w, p->captures[i]);
    jw_array_end(w);
    jw_key(w, "hops");
    jw_array_begin(w);
    for (i = 1; i < p->ncaptures; i++)
        ew_report_hop_write(w, p->hops[i - 1], p->captures[i - 1], p->captures[i]);
    jw_array_end(w);
    jw_object_end(w);
}
