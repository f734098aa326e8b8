/* report_text.c - the human summary: totals, the findings, and a table of
 * flows; with several captures, the PATH lines of each hop between them. */
#include "output/report.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "findings/bottleneck.h"
#include "findings/conclude.h"
#include "dissectors/ecn.h"
#include "base/format.h"
#include "findings/pathcmp.h"
#include "flow/tunrec.h"
#include "probe/probe.h"

static double
pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* One line, formatted, folded at spaces to `cols` columns: the lines after
 * the first are indented by its own leading spaces and `more` more. A word
 * longer than the width is never cut. */
static void wrapf(FILE *out, int cols, int more, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
wrapf(FILE *out, int cols, int more, const char *fmt, ...)
{
    char buf[2048];
    const char *p = buf;
    va_list ap;
    int lead = 0, width = cols;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    while (buf[lead] == ' ')
        lead++;
    for (;;) {
        size_t n = strlen(p), cut;

        if ((int)n <= width) {
            fprintf(out, "%s\n", p);
            return;
        }
        for (cut = (size_t)width; cut > 0 && p[cut] != ' '; cut--)
            ;
        if (cut == 0 || p + cut <= buf + lead) /* one long word: up to its end */
            for (cut = (size_t)width; p[cut] && p[cut] != ' '; cut++)
                ;
        if (!p[cut]) {
            fprintf(out, "%s\n", p);
            return;
        }
        fprintf(out, "%.*s\n%*s", (int)cut, p, lead + more, "");
        p += cut + 1;
        width = cols - lead - more > 20 ? cols - lead - more : 20;
    }
}

static void
text_dir(FILE *out, const char *name, const struct ew_flow *f, int dir,
         const struct ew_flow_verdict *v)
{
    const struct ew_dir_stats *d = &f->dir[dir];

    fprintf(out, "    %-4s %9" PRIu64 " %7.1f%% %7.1f%% %7.1f%% %7.1f%%", name, d->packets,
            pct(d->ecn[EW_ECN_NOT_ECT], d->packets), pct(d->ecn[EW_ECN_ECT_0], d->packets),
            pct(d->ecn[EW_ECN_ECT_1], d->packets), pct(d->ecn[EW_ECN_CE], d->packets));
    if (f->key.l4 == EW_L4_TCP)
        fprintf(out, "  %-8s %s", ew_fb_name[v->dir[dir].feedback],
                ew_ect1_name[v->dir[dir].ect1]);
    fputc('\n', out);
}

/* a tunnelled flow: its encapsulations (those of the direction's first
 * tunnelled packet), and a row per direction of the outer IP header's
 * codepoints, nearest the inner packet, where they differ from the inner's
 * (tunrec.h) */
static void
text_tunnel(FILE *out, int w, const struct ew_flow *f)
{
    const struct ew_tunnel_rec *t = f->tun;
    char line[512];
    int d;

    if (!t)
        return;
    ew_tunnel_layers_str(&t->dir[t->first_dir], line, sizeof(line));
    wrapf(out, w, 6, "    tunnel: %s", line);
    for (d = 0; d < 2; d++) {
        const struct ew_tunnel_dir *td = &t->dir[d == 0 ? f->client_dir : f->client_dir ^ 1];
        uint64_t o[4], n;

        if (!td->packets)
            continue;
        ew_tunnel_dir_outer(td, o);
        n = o[0] + o[1] + o[2] + o[3];
        if (!n) {
            fprintf(out, "    %-4s %9" PRIu64 "  %s\n", d == 0 ? "c2s" : "s2c", td->packets,
                    td->mirrored ? "mirrored (ERSPAN): the outer header is not compared"
                                 : "no outer IP header");
            continue;
        }
        fprintf(out, "    %-4s %9" PRIu64 " %7.1f%% %7.1f%% %7.1f%% %7.1f%%  outer header, %" PRIu64
                     " differ%s\n",
                d == 0 ? "c2s" : "s2c", n, pct(o[EW_ECN_NOT_ECT], n), pct(o[EW_ECN_ECT_0], n),
                pct(o[EW_ECN_ECT_1], n), pct(o[EW_ECN_CE], n), ew_tunnel_dir_differ(td),
                td->plain ? " (and some packets untunnelled)" : "");
    }
}

/* which AQM marked a direction, and where the marks were applied relative
 * to this capture point; true when it wrote a line */
static bool
text_path(FILE *out, int w, const char *name, const struct ew_flow *f, int dir,
          const struct ew_flow_summary *sum)
{
    const struct ew_path_verdict *p = &sum->path[dir];
    const char *where = !p->marking || !strcmp(p->marking, "none") ? NULL
                        : !strcmp(p->marking, "both") ? "marks applied upstream and downstream of this capture point"
                        : !strcmp(p->marking, "upstream") ? "marks applied upstream of this capture point"
                                                          : "marks applied downstream of this capture point";

    /* no marks and no filling queue, or no marks on Not-ECT data: the table
     * above says as much */
    if (f->key.l4 != EW_L4_TCP || !sum->has_path || f->inf->half[dir].data_pkts == 0 ||
        p->aqm == EW_AQM_NONE_SEEN ||
        (p->marks == 0 &&
         !(f->inf->half[dir].seen & (EW_SEEN_ECT0 | EW_SEEN_ECT1 | EW_SEEN_CE))))
        return false;
    wrapf(out, w, 2, "    path %s: %s%s%s%s: %s", name, ew_aqm_name[p->aqm],
          !p->has_confidence ? "" : p->certain ? " (certain)" : " (likely)", where ? ", " : "",
          where ? where : "", p->reason);
    if (p->note)
        wrapf(out, w, 2, "      note: %s", p->note);
    /* the flow's one number for its queueing delay, as the plots draw it */
    if (p->qdelay_median_ms >= 0)
        wrapf(out, w, 2, "    queueing delay %s: median %.1f ms (p10 %.1f, p90 %.1f) above the "
              "flow's lowest RTT, timed by %s", name, p->qdelay_median_ms, p->qdelay_p10_ms,
              p->qdelay_p90_ms, !strcmp(p->qdelay_from, "data_to_ack") ? "data to ACK"
                                 : !strcmp(p->qdelay_from, "ts_from_sender")
                                     ? "timestamps to the sender and back"
                                     : "data to ACK and timestamps");
    return true;
}

void
ew_report_capture_text(const struct ew_flow *f, const struct ew_flow_verdict *v, char *buf,
                       size_t len)
{
    size_t k = 0;
    int i;

    buf[0] = '\0';
    if (f->key.l4 == EW_L4_TCP && v->neg_inferred)
        k += (size_t)snprintf(buf, len, "handshake not captured");
    for (i = 0; i < 2 && k < len; i++) {
        int d = i == 0 ? f->client_dir : f->client_dir ^ 1;
        const struct ew_dir_stats *ds = &f->dir[d];
        uint64_t missed = f->key.l4 == EW_L4_TCP ? f->inf->half[d].missed_bytes : 0;

        if (!missed && !ds->dups && !ds->dups_unsure)
            continue;
        k += (size_t)snprintf(buf + k, len - k, "%s%s:", k ? "; " : "", i ? "s2c" : "c2s");
        if (missed && k < len)
            k += (size_t)snprintf(buf + k, len - k,
                                  " %" PRIu64 " bytes acknowledged but not captured (%u gaps)",
                                  missed, f->inf->half[d].missed_gaps);
        if (ds->dups && k < len)
            k += (size_t)snprintf(buf + k, len - k, "%s %u copies left out",
                                  missed ? "," : "", ds->dups);
        if (ds->dups_unsure && k < len)
            k += (size_t)snprintf(buf + k, len - k,
                                  "%s %u packets that may be copies", missed || ds->dups ? "," : "",
                                  ds->dups_unsure);
    }
}

/* what this capture did not see of a flow, or saw twice; nothing when whole */
static void
text_capture(FILE *out, int w, const struct ew_flow *f, const struct ew_flow_verdict *v)
{
    char buf[320];

    ew_report_capture_text(f, v, buf, sizeof(buf));
    if (buf[0])
        wrapf(out, w, 2, "    capture: %s", buf);
}

/* the groups of flows sharing a bottleneck: one queue or a DualQ, and why */
static void
text_bottlenecks(FILE *out, int w, const struct ew_bottlenecks *bn)
{
    const struct ew_bottlenecks b = *bn;
    size_t i, k;

    if (b.n)
        fprintf(out, "\nBOTTLENECKS:\n");
    for (i = 0; i < b.n; i++) {
        const struct ew_bottleneck *g = &b.g[i];

        wrapf(out, w, 2, "  %s <-> %s: %s%s: %s", g->hosts[0], g->hosts[1], g->looks_like,
              g->likely ? " (likely)" : "", g->reason);
        fprintf(out, "    L4S flows");
        for (k = 0; k < g->l4s.n; k++)
            fprintf(out, " #%" PRIu64, g->l4s.ids[k]);
        fprintf(out, ", classic flows");
        for (k = 0; k < g->classic.n; k++)
            fprintf(out, " #%" PRIu64, g->classic.ids[k]);
        if (g->has_ratio && isfinite(g->ratio))
            fprintf(out, "; throughput L4S:classic %.2f", g->ratio);
        fputc('\n', out);
    }
}

/* findings first, where a person looks first */
static void
text_findings(FILE *out, int w, const struct ew_pass *p, struct ew_flow_room *room,
              struct ew_flow_summary *sum)
{
    size_t i, j, shown = 0, total = 0;
    uint64_t evicted = 0;
    int k;

    for (i = 0; i < p->c->n; i++) {
        const struct ew_flow *f;
        const struct ew_finding *fnd = sum->fnd;

        if (!p->c->row[i].nf)
            continue;
        f = ew_conclusion_words(p->c, i, 0, room, sum);
        for (j = 0; j < sum->nf; j++) {
            if (total++ == 0)
                fprintf(out, "\nMISUSE FOUND:\n");
            if (shown < 40) {
                wrapf(out, w, 2, "  #%" PRIu64 " %s %s (%s, %" PRIu64 "x from frame %" PRIu64 ", %s): %s",
                      f->id, ew_misuse_name[fnd[j].kind],
                      fnd[j].dir == f->client_dir ? "c2s" : "s2c",
                      ew_confidence_name[fnd[j].confidence], fnd[j].count, fnd[j].first_frame,
                      fnd[j].ref, fnd[j].detail);
                shown++;
            }
        }
    }
    if (total > shown)
        fprintf(out, "  ... and %zu more findings (the JSON report has them all)\n", total - shown);
    for (k = 0; k < EW_MU_COUNT; k++)
        evicted += p->an->evicted_findings[k];
    /* (with several captures, the hops below say what changed between them) */
    if (total == 0 && evicted == 0 && p->c->n > 0 && !p->path)
    {
        fputc('\n', out);
        wrapf(out, w, 2, "No misuse found in %zu flow%s (%d kinds, checked where this point "
                         "can see them)",
              p->c->n, p->c->n == 1 ? "" : "s", EW_MU_CAPTURE_COUNT);
    }
    if (evicted)
        fprintf(out, "  flows evicted from the table had %" PRIu64 " more findings (totals.findings)\n",
                evicted);
}

/* the capture's totals: frames, flows, codepoints, what was not decoded,
 * capture loss and table overflow */
static void
text_totals(FILE *out, int w, const struct ew_analyzer *an, const struct ew_report_src *src,
            const struct ew_flowtab_stats *st)
{
    const struct ew_totals *t = &an->tot;
    struct ew_quality q;

    wrapf(out, w, 2, "%s (%s): %" PRIu64 " frames, %" PRIu64 " IP packets, %" PRIu64 " flow%s",
          src->name && strcmp(src->name, "-") ? src->name : "standard input",
            src->linktype ? src->linktype : "unknown", t->frames, t->ip_packets,
            st->created, st->created == 1 ? "" : "s");
    wrapf(out, w, 2,
            "ECN: Not-ECT %" PRIu64 " (%.1f%%)  ECT(0) %" PRIu64 " (%.1f%%)  ECT(1) %" PRIu64
            " (%.1f%%)  CE %" PRIu64 " (%.1f%%)",
            t->ecn[EW_ECN_NOT_ECT], pct(t->ecn[EW_ECN_NOT_ECT], t->ip_packets),
            t->ecn[EW_ECN_ECT_0], pct(t->ecn[EW_ECN_ECT_0], t->ip_packets), t->ecn[EW_ECN_ECT_1],
            pct(t->ecn[EW_ECN_ECT_1], t->ip_packets), t->ecn[EW_ECN_CE],
            pct(t->ecn[EW_ECN_CE], t->ip_packets));
    if (t->non_ip || t->undecodable || t->truncated || t->invalid)
        wrapf(out, w, 2,
                "Other: %" PRIu64 " non-IP, %" PRIu64 " undecodable, %" PRIu64
                " truncated, %" PRIu64 " invalid",
                t->non_ip, t->undecodable, t->truncated, t->invalid);
    if (src->have_loss && (src->loss_dropped || src->loss_ifdropped))
        wrapf(out, w, 2,
                "Capture loss: of %" PRIu64 " packets the kernel received, %" PRIu64
                " dropped by its buffer and %" PRIu64
                " by the interface before ecnwatch read them (raise -B)",
                src->loss_received, src->loss_dropped, src->loss_ifdropped);
    if (st->evicted)
        wrapf(out, w, 2, "Flow table full: %" PRIu64 " flows evicted (raise --max-flows)",
                st->evicted);
    ew_analyzer_quality(an, &q);
    if (q.duplicates && q.duplicates_unsure)
        wrapf(out, w, 2,
              "Copies: %" PRIu64 " packets were captured twice (a mirror port, a bridge or "
              "merged captures) and counted once; %" PRIu64 " more may be copies or resends, "
              "and were counted",
              q.duplicates, q.duplicates_unsure);
    else if (q.duplicates)
        wrapf(out, w, 2,
              "Copies: %" PRIu64 " packets were captured twice (a mirror port, a bridge or "
              "merged captures) and counted once",
              q.duplicates);
    else if (q.duplicates_unsure)
        wrapf(out, w, 2, "Copies: %" PRIu64 " packets may be copies or resends, and were counted",
              q.duplicates_unsure);
    if (q.flows_missed)
        wrapf(out, w, 2,
                "Missed: %" PRIu64 " bytes of %" PRIu64 " TCP flow%s were acknowledged by "
                "their receivers but not captured: what rests on a signal's absence there is "
                "unknown",
                q.missed_bytes, q.flows_missed, q.flows_missed == 1 ? "" : "s");
    if (q.flows_midstream)
        wrapf(out, w, 2, "Joined mid-flow: %" PRIu64 " TCP flow%s without a captured handshake",
                q.flows_midstream, q.flows_midstream == 1 ? "" : "s");
    if (an->tot.tunnelled)
        wrapf(out, w, 2,
              "Tunnels: %" PRIu64 " packets of %" PRIu64 " flow%s came through tunnels, each "
              "counted as its inner packet; their outer headers are under each flow",
              an->tot.tunnelled, an->tot.tunnelled_flows, an->tot.tunnelled_flows == 1 ? "" : "s");
}

/* the flow's client end (client true) or server end is its key's low end */
static bool
endpoint_is_lo(const struct ew_flow *f, bool client)
{
    return client ? f->client_dir == EW_DIR_LO_HI : f->client_dir != EW_DIR_LO_HI;
}

static uint16_t
endpoint_port(const struct ew_flow *f, bool client)
{
    return endpoint_is_lo(f, client) ? f->key.port_lo : f->key.port_hi;
}

/* the flow's client end (client true) or server end as "addr:port"
 * ("[addr]:port" for IPv6, the address alone without ports) */
static void
text_endpoint(const struct ew_flow *f, bool client, char *buf, size_t len)
{
    char a[INET6_ADDRSTRLEN];
    const uint8_t *addr = endpoint_is_lo(f, client) ? f->key.lo : f->key.hi;
    uint16_t port = endpoint_port(f, client);

    ew_addr_str(addr, f->key.family, a, sizeof(a));
    if (f->key.l4 == EW_L4_NONE)
        snprintf(buf, len, "%s", a);
    else if (f->key.family == 6)
        snprintf(buf, len, "[%s]:%u", a, port);
    else
        snprintf(buf, len, "%s:%u", a, port);
}

/* the kinds that say the path changed ECN, which --probe can locate */
#define PATH_KINDS                                                                             \
    (1u << EW_MU_BLEACHING | 1u << EW_MU_REMARKING | 1u << EW_MU_CE_UNMARKED |                 \
     1u << EW_MU_ECT_ON_NOT_ECT | 1u << EW_MU_CE_ON_NOT_ECT | 1u << EW_MU_ACCECN_OPTION_MANGLED | \
     1u << EW_MU_ACCECN_ACE_ZEROED)

/* Where a finding says the path changed ECN, the probe that would find the
 * hop from the capturing host: toward the far end (the client when captured
 * at the server side, else the server), at the flow's own port. */
static void
text_probe_hint(FILE *out, int w, const struct ew_pass *p, struct ew_flow_room *room,
                struct ew_flow_summary *sum)
{
    size_t i, j;

    for (i = 0; i < p->c->n; i++) {
        const struct ew_flow *f;
        char e[INET6_ADDRSTRLEN + 10];
        bool client;

        if (!p->c->row[i].nf)
            continue;
        f = ew_conclusion_words(p->c, i, 0, room, sum);
        if (!(sum->kinds & PATH_KINDS) || f->key.l4 == EW_L4_NONE)
            continue;
        for (j = 0; j < sum->nf && !(PATH_KINDS & (1u << sum->fnd[j].kind)); j++)
            ;
        if (j == sum->nf)
            continue; /* the kind is among the findings not held in the row */
        client = sum->v.vantage == EW_VANT_SERVER;
        text_endpoint(f, client, e, sizeof(e));
        fputc('\n', out);
        if (f->key.l4 == EW_L4_UDP)
            wrapf(out, w, 2, "To find the hop of #%" PRIu64 "'s %s from the %s side: ecnwatch "
                             "--probe %s --probe-udp-port %u (ecnwatch(1), Probing a path)",
                  f->id, ew_misuse_name[sum->fnd[j].kind], client ? "server" : "client", e,
                  endpoint_port(f, client));
        else
            wrapf(out, w, 2, "To find the hop of #%" PRIu64 "'s %s from the %s side: ecnwatch "
                             "--probe %s (ecnwatch(1), Probing a path)",
                  f->id, ew_misuse_name[sum->fnd[j].kind], client ? "server" : "client", e);
        return;
    }
}

/* --probe-report: where the probe located each change, and whether these
 * captures show the same kind */
static void
text_probe_report(FILE *out, int w, const struct ew_pass *p)
{
    const struct ew_probe_summary *s = p->probe;
    uint32_t seen = ew_report_capture_kinds(p);
    size_t i;

    fprintf(out, "\nPROBE REPORT (%s): the path to %s from %s\n", s->file, s->target, s->source);
    if (s->n == 0)
        wrapf(out, w, 2, "  The probe found no change of ECN on the path%s.",
              seen & PATH_KINDS ? ", where these captures show one: the probe may have taken "
                                  "another path, or the change is past its last hop"
                                : "");
    for (i = 0; i < s->n; i++) {
        const struct ew_probe_located *l = &s->f[i];
        char last[80];

        if (l->last_ttl == 0)
            snprintf(last, sizeof(last), "after the sender");
        else if (l->last_ttl > 0)
            snprintf(last, sizeof(last), "after hop %d%s%s%s", l->last_ttl,
                     l->last_addr[0] ? " (" : "", l->last_addr, l->last_addr[0] ? ")" : "");
        else
            snprintf(last, sizeof(last), "no hop before it seen");
        wrapf(out, w, 2, "  %s (%s) at hop %d%s%s%s, %s, %s; %s", ew_misuse_name[l->kind], l->dim,
              l->ttl, l->addr[0] ? " (" : "", l->addr, l->addr[0] ? ")" : "", last, l->conf,
              (seen >> l->kind) & 1u ? "these captures show it too" : "these captures do not show it");
    }
    if (s->more)
        fprintf(out, "  ... and %zu more findings in the probe's report\n", s->more);
}

/* the flow's size, duration and the rate of each direction that carried
 * payload over the flow's whole duration */
static void
text_volume(FILE *out, const struct ew_flow *f)
{
    double dur = (double)(f->last_ns - f->first_ns) / 1e9;
    char b[32], r[2][32];
    int c2s = f->client_dir, d;

    ew_size_str(b, sizeof(b), (double)(f->dir[0].bytes + f->dir[1].bytes), "B");
    fprintf(out, "    %s in %.3f s", b, dur > 0 ? dur : 0);
    for (d = 0; d < 2 && dur > 0; d++) {
        const struct ew_dir_stats *ds = &f->dir[d == 0 ? c2s : c2s ^ 1];

        r[d][0] = '\0';
        if (ds->payload_bytes)
            ew_size_str(r[d], sizeof(r[d]), (double)ds->bytes * 8 / dur, "bit/s");
    }
    if (dur > 0 && (r[0][0] || r[1][0]))
        fprintf(out, " (%s%s%s%s%s on average)", r[0][0] ? r[0] : "", r[0][0] ? " c2s" : "",
                r[0][0] && r[1][0] ? ", " : "", r[1][0] ? r[1] : "", r[1][0] ? " s2c" : "");
    fputc('\n', out);
}

/* the terms the flows' lines used, for the legend after them */
struct text_terms {
    bool tcp, path;
};

/* one flow: its ends and protocol, the negotiation, the verdict, its size,
 * a row per direction and the path verdicts */
static void
text_flow(FILE *out, int w, const struct ew_pass *p, size_t i, struct ew_flow_room *room,
          struct ew_flow_summary *sum, struct text_terms *terms)
{
    const struct ew_flow *f = ew_conclusion_words(p->c, i, EW_REPORT_CONCLUDE, room, sum);
    const struct ew_flow_verdict *vp = &sum->v;
    int c2s = f->client_dir;
    char ce[INET6_ADDRSTRLEN + 10], se[INET6_ADDRSTRLEN + 10];

    text_endpoint(f, true, ce, sizeof(ce));
    text_endpoint(f, false, se, sizeof(se));
    fputc('\n', out);
    if (f->key.l4 == EW_L4_NONE && ew_ip_proto_name(f->key.proto))
        /* TCP or UDP here is a header that could not be decoded */
        fprintf(out, "#%" PRIu64 " %s%s  %s -> %s\n", f->id, ew_ip_proto_name(f->key.proto),
                f->key.proto == 6 || f->key.proto == 17 ? " (header not decoded)" : "", ce, se);
    else if (f->key.l4 == EW_L4_NONE)
        fprintf(out, "#%" PRIu64 " ip-proto %u  %s -> %s\n", f->id, f->key.proto, ce, se);
    else
        fprintf(out, "#%" PRIu64 " %s  %s -> %s", f->id, ew_report_proto_name(f), ce, se);
    if (f->key.l4 == EW_L4_TCP)
        fprintf(out, "  negotiation %s%s\n", ew_neg_name[vp->neg],
                vp->neg_inferred ? " (handshake not captured)" : "");
    else if (f->key.l4 == EW_L4_UDP)
        fputc('\n', out);
    wrapf(out, w, 2, "    verdict %s%s%s%s: %s", ew_verdict_name[vp->verdict],
          vp->verdict_likely && vp->verdict != EW_V_UNKNOWN ? " (likely)" : "",
          vp->vantage != EW_VANT_UNKNOWN ? ", captured " : "",
          vp->vantage == EW_VANT_CLIENT   ? "at the client side"
          : vp->vantage == EW_VANT_SERVER ? "at the server side"
          : vp->vantage != EW_VANT_UNKNOWN ? "in the middle"
                                           : "",
          vp->reason);
    text_volume(out, f);
    text_capture(out, w, f, vp);
    fprintf(out, "    dir  %9s %8s %8s %8s %8s%s\n", "packets", "Not-ECT", "ECT(0)", "ECT(1)",
            "CE", f->key.l4 == EW_L4_TCP ? "  feedback ECT(1) means" : "");
    text_dir(out, "c2s", f, c2s, vp);
    text_dir(out, "s2c", f, c2s ^ 1, vp);
    text_tunnel(out, w, f);
    terms->tcp |= f->key.l4 == EW_L4_TCP;
    terms->path |= text_path(out, w, "c2s", f, c2s, sum);
    terms->path |= text_path(out, w, "s2c", f, c2s ^ 1, sum);
}

/* the words of the flows' lines, once, after them */
static void
text_legend(FILE *out, int w, const struct text_terms *t)
{
    fputs("\nTerms:\n", out);
    wrapf(out, w, 4, "  c2s, s2c: client to server (the side that sent the first SYN, or the "
                     "first packet), server to client");
    wrapf(out, w, 4, "  verdict: what ECN the flow uses, from its codepoints and feedback; "
                     "(likely): a guess from evidence, (certain): this capture point saw all it "
                     "needs");
    if (t->tcp) {
        wrapf(out, w, 4, "  feedback: how the receiver reports CE back (rfc3168: ECE until CWR; "
                         "dctcp: ECE per CE; accecn: the ACE counter and options; sce: ESCE too)");
        wrapf(out, w, 4, "  ECT(1) means: what this direction's ECT(1) stands for: l4s (the L4S "
                         "identifier), sce (some congestion experienced), none (not used)");
    }
    if (t->path) {
        wrapf(out, w, 4, "  path: which kind of AQM marked the direction and where, from its "
                         "marks (CE seen here or fed back) and the queueing delay when they were "
                         "applied");
        wrapf(out, w, 4, "  queueing delay: a round trip's time above the flow's lowest; its "
                         "median and its 10th and 90th percentiles (p10, p90), as --plot draws "
                         "them");
    }
}

/* the flows to list, in the order --sort asks (largest first by bytes or
 * packets both ways, the first seen first among equals; or as first seen),
 * so that --text-flows N keeps the N that carried most */
struct by_size {
    uint64_t key;
    size_t i;
    bool folded; /* small, without ECN or a finding: one line for all */
};

static int
by_size_cmp(const void *a, const void *b)
{
    const struct by_size *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? 1 : -1;
    return x->i < y->i ? -1 : x->i > y->i;
}

void
ew_report_text(FILE *out, const struct ew_pass *p, const struct ew_text_opts *o)
{
    struct ew_flowtab_stats st;
    struct ew_flow_room *room;
    struct ew_flow_summary *sum;
    struct by_size *order;
    size_t n = p->c->n, i, listed = 0, folded = 0, more = 0;
    int w = o->width > 20 ? o->width : 20;
    struct text_terms terms = {false, false};

    ew_flowtab_get_stats(p->an->tab, &st);
    text_totals(out, w, p->an, p->src, &st);
    room = malloc(sizeof(*room));
    sum = malloc(sizeof(*sum));
    order = malloc((n ? n : 1) * sizeof(*order));
    if (!room || !sum || !order || p->c->nomem) {
        free(room);
        free(sum);
        free(order);
        return;
    }
    /* the findings of every flow come first, then the flows with their
     * reasons, each written out from the pass's row */
    text_findings(out, w, p, room, sum);
    if (p->probe)
        text_probe_report(out, w, p);
    else
        text_probe_hint(out, w, p, room, sum);
    text_bottlenecks(out, w, &p->c->bn);
    for (i = 0; i < n; i++) {
        const struct ew_flow *f = ew_flowtab_view(p->c->tab, p->c->row[i].ref, room);
        uint64_t key = o->sort == EW_SORT_PACKETS ? f->dir[0].packets + f->dir[1].packets
                                                  : f->dir[0].bytes + f->dir[1].bytes;

        order[i] = (struct by_size){o->sort == EW_SORT_FIRST ? 0 : key, i,
                                    !o->all && ew_conclusion_small_plain(f, &p->c->row[i])};
    }
    /* folded only beside a flow that is listed: a capture of nothing else
     * lists what it has */
    for (i = 0; i < n && order[i].folded; i++)
        ;
    if (i == n)
        for (i = 0; i < n; i++)
            order[i].folded = false;
    qsort(order, n, sizeof(*order), by_size_cmp);
    for (i = 0; i < n; i++) {
        if (order[i].folded)
            folded++;
        else if (listed < o->max_flows && ++listed)
            text_flow(out, w, p, order[i].i, room, sum, &terms);
        else
            more++;
    }
    if (listed)
        text_legend(out, w, &terms);
    if (folded) {
        fputc('\n', out);
        wrapf(out, w, 2, "%zu small flow%s without ECN and without a finding not listed (fewer "
                         "than %d packets, no ECT or CE either way; --text-all lists them)",
              folded, folded == 1 ? "" : "s", EW_SMALL_PKTS);
    }
    if (more) {
        fputc('\n', out);
        wrapf(out, w, 2, "... and %zu more flows past --text-flows %zu (the JSON report, --json or "
                         "-o, has them all)",
              more, o->max_flows);
    }
    free(order);
    free(room);
    free(sum);
}

void
ew_report_hop_text(FILE *out, const struct ew_hop *hop, const char *up_name,
                   const char *down_name)
{
    struct ew_hop_counts n;
    uint32_t i, nc = ew_hop_nchanges(hop);

    ew_hop_counts(hop, &n);
    fprintf(out, "\nPATH %s -> %s: %llu packets matched, %llu unchanged, %llu only upstream, "
                 "%llu only downstream\n",
            up_name, down_name, (unsigned long long)n.matched, (unsigned long long)n.unchanged,
            (unsigned long long)n.only_upstream, (unsigned long long)n.only_downstream);
    for (i = 0; i < nc; i++) {
        struct ew_hop_change c;
        char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

        ew_hop_change(hop, i, &c);
        ew_addr_str(c.src, c.family, a, sizeof(a));
        ew_addr_str(c.dst, c.family, b, sizeof(b));
        /* one line a change, unfolded: a line to grep for */
        fprintf(out, "  %s:%u -> %s:%u  %s -> %s  %llux (first: frame %llu -> frame %llu): %s\n",
                a, c.sport, b, c.dport, ew_ecn_name[c.from], ew_ecn_name[c.to],
                (unsigned long long)c.count, (unsigned long long)c.first_up,
                (unsigned long long)c.first_down, c.meaning);
    }
}
