/* probe_out.c - the probe's report: JSON ("ecnwatch.probe/1", described in
 * ecnwatch-report(5) and man/ecnwatch-report.schema.json) and the text a
 * person reads: a row per hop, a line per dimension, the findings. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/jw.h"
#include "base/version.h"
#include "infer/negotiation.h"
#include "probe/probe.h"

static const char *
addr_str(const uint8_t a[16], int family, char *buf, size_t len)
{
    if (!inet_ntop(family == 4 ? AF_INET : AF_INET6, a, buf, (socklen_t)len))
        snprintf(buf, len, "?");
    return buf;
}

static void
flags_obj(struct jw *w, const char *k, int f)
{
    jw_key(w, k);
    jw_object_begin(w);
    jw_kint(w, "ae", f & EW_TCP_AE ? 1 : 0);
    jw_kint(w, "cwr", f & EW_TCP_CWR ? 1 : 0);
    jw_kint(w, "ece", f & EW_TCP_ECE ? 1 : 0);
    jw_object_end(w);
}

static void
probe_obj(struct jw *w, const struct ew_probe_result *r, enum ew_probe_type t,
          const struct ew_probe_obs *o)
{
    char a[64];

    jw_object_begin(w);
    jw_kstring(w, "answer", ew_probe_answer_name[o->answer]);
    if (o->answer == EW_PA_NONE)
        jw_knull(w, "from");
    else
        jw_kstring(w, "from", addr_str(o->from, r->family, a, sizeof(a)));
    jw_kbool(w, "from_destination", o->from_dst);
    jw_kint(w, "sent", o->sent);
    if (o->answer != EW_PA_NONE)
        jw_kreal(w, "rtt_ms", o->rtt_ms);
    jw_kint(w, "quoted_bytes", o->quoted);
    jw_kstring(w, "ecn", o->quoted && o->ecn >= 0 ? ew_ecn_key[o->ecn] : "not_quoted");
    if (!ew_probe_specs[t].udp) {
        if (o->quoted && o->flags >= 0)
            flags_obj(w, "tcp_flags", o->flags);
        else
            jw_kstring(w, "tcp_flags", "not_quoted");
        jw_kstring(w, "accecn_option", o->quoted ? ew_probe_opt_name[o->option] : "not_quoted");
    }
    if (o->answer_ecn >= 0)
        jw_kstring(w, "answer_ecn", ew_ecn_key[o->answer_ecn]);
    if (o->answer_flags >= 0)
        flags_obj(w, "answer_tcp_flags", o->answer_flags);
    jw_object_end(w);
}

static void
value_json(struct jw *w, const char *k, enum ew_probe_type t, int v)
{
    switch (ew_probe_specs[t].field) {
    case EW_PF_ECN:
        jw_kstring(w, k, ew_ecn_key[v & 3]);
        break;
    case EW_PF_FLAGS:
        flags_obj(w, k, v);
        break;
    case EW_PF_OPTION:
        jw_kstring(w, k, v ? "present" : "absent");
        break;
    }
}

static void
hop_ref(struct jw *w, const char *k, const struct ew_probe_result *r, enum ew_probe_type t, int ttl,
        bool seen, int v)
{
    char a[64];

    jw_key(w, k);
    if (ttl < 0) {
        jw_null(w);
        return;
    }
    jw_object_begin(w);
    jw_kint(w, "ttl", ttl);
    if (ttl == 0)
        jw_kstring(w, "addr", addr_str(r->src, r->family, a, sizeof(a)));
    else if (r->obs[ttl][t].answer != EW_PA_NONE)
        jw_kstring(w, "addr", addr_str(r->obs[ttl][t].from, r->family, a, sizeof(a)));
    else
        jw_knull(w, "addr");
    if (seen)
        value_json(w, "seen", t, v);
    jw_object_end(w);
}

/* the destination's answers to the TCP set-up probes: what it negotiated
 * (the capture's own rule, negotiation.h), "closed" (a RST) or "unseen" */
static const char *
negotiation(const struct ew_probe_result *r, enum ew_probe_type t)
{
    const struct ew_probe_obs *o;
    int neg;

    if (!r->dest_ttl || !r->types[t])
        return "unseen";
    o = &r->obs[r->dest_ttl][t];
    if (o->answer == EW_PA_RST && o->from_dst)
        return "closed";
    neg = ew_probe_negotiation(o, t);
    return neg < 0 ? "unseen" : ew_neg_name[neg];
}

/* RFC 9768 Table 2: the codepoint of the SYN an AccECN SYN-ACK reflects */
static const char *
reflected(const struct ew_probe_result *r)
{
    const struct ew_probe_obs *o;
    int cp;

    if (strcmp(negotiation(r, EW_PT_TCP_ACCECN_SETUP), "accecn"))
        return NULL;
    o = &r->obs[r->dest_ttl][EW_PT_TCP_ACCECN_SETUP];
    cp = ew_accecn_code_cp(ew_tcp_ace((uint16_t)o->answer_flags));
    return cp < 0 ? NULL : ew_ecn_key[cp];
}

/* the codepoint of the destination's SYN-ACK to the plain SYN */
static const char *
synack_codepoint(const struct ew_probe_result *r)
{
    const struct ew_probe_obs *o;

    if (!r->dest_ttl || !r->types[EW_PT_TCP_PLAIN])
        return NULL;
    o = &r->obs[r->dest_ttl][EW_PT_TCP_PLAIN];
    if (o->answer != EW_PA_SYN_ACK || !o->from_dst || o->answer_ecn < 0)
        return NULL;
    return ew_ecn_key[o->answer_ecn & 3];
}

static int
write_json(struct jw *w, const struct ew_probe_result *r, const struct ew_probe_meta *m)
{
    char a[64];
    int ttl, t, last = r->dest_ttl ? r->dest_ttl : r->max_ttl;
    size_t i;

    jw_object_begin(w);
    jw_kstring(w, "schema", "ecnwatch.probe/1");
    jw_kstring(w, "version", EW_VERSION);
    jw_key(w, "target");
    jw_object_begin(w);
    jw_kstring(w, "name", m->name);
    jw_kstring(w, "addr", addr_str(r->dst, r->family, a, sizeof(a)));
    jw_kint(w, "family", r->family);
    jw_kint(w, "tcp_port", m->tcp_port);
    jw_kint(w, "udp_port", m->udp_port);
    jw_object_end(w);
    jw_key(w, "source");
    jw_object_begin(w);
    jw_kstring(w, "addr", addr_str(r->src, r->family, a, sizeof(a)));
    jw_object_end(w);
    jw_key(w, "limits");
    jw_object_begin(w);
    jw_kint(w, "max_ttl", r->max_ttl);
    jw_kint(w, "rate", m->rate);
    jw_kint(w, "max_probes", m->max_probes);
    jw_kint(w, "wait_ms", m->wait_ms);
    jw_object_end(w);
    jw_kcount(w, "sent", m->sent);
    jw_kcount(w, "answers", m->answers);
    jw_kcount(w, "stray", m->stray);
    if (r->dest_ttl)
        jw_kint(w, "destination_ttl", r->dest_ttl);
    else
        jw_knull(w, "destination_ttl");
    jw_kstring(w, "stopped", m->stopped);
    jw_key(w, "destination");
    jw_object_begin(w);
    jw_kstring(w, "rfc3168", negotiation(r, EW_PT_TCP_ECN_SETUP));
    jw_kstring(w, "accecn", negotiation(r, EW_PT_TCP_ACCECN_SETUP));
    jw_kstring_or_null(w, "syn_codepoint_reflected", reflected(r));
    jw_kstring_or_null(w, "synack_codepoint", synack_codepoint(r));
    jw_object_end(w);
    jw_key(w, "hops");
    jw_array_begin(w);
    for (ttl = 1; ttl <= last && ttl <= r->max_ttl; ttl++) {
        jw_object_begin(w);
        jw_kint(w, "ttl", ttl);
        jw_key(w, "probes");
        jw_object_begin(w);
        for (t = 0; t < EW_PT_COUNT; t++) {
            if (!r->types[t] || !r->obs[ttl][t].sent)
                continue;
            jw_key(w, ew_probe_specs[t].name);
            probe_obj(w, r, (enum ew_probe_type)t, &r->obs[ttl][t]);
        }
        jw_object_end(w);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_key(w, "dimensions");
    jw_array_begin(w);
    for (t = 0; t < EW_PT_COUNT; t++) {
        const struct ew_probe_dim *d = &r->dims[t];

        if (!r->types[t])
            continue;
        jw_object_begin(w);
        jw_kstring(w, "name", ew_probe_specs[t].name);
        jw_kstring(w, "field", ew_probe_field_name[ew_probe_specs[t].field]);
        value_json(w, "sent", (enum ew_probe_type)t, ew_probe_sent_value((enum ew_probe_type)t));
        jw_kstring(w, "verdict", ew_probe_verdict_name[d->verdict]);
        if (d->change == EW_PC_NONE)
            jw_knull(w, "change");
        else
            jw_kstring(w, "change", ew_probe_change_name[d->change]);
        hop_ref(w, "last_as_sent", r, (enum ew_probe_type)t, d->last_as_sent, false, 0);
        hop_ref(w, "first_changed", r, (enum ew_probe_type)t, d->first_changed, true, d->seen);
        jw_key(w, "first_silent");
        if (d->first_silent > 0) {
            jw_object_begin(w);
            jw_kint(w, "ttl", d->first_silent);
            jw_object_end(w);
        } else {
            jw_null(w);
        }
        jw_kstring(w, "confidence", ew_probe_conf_name[d->conf]);
        jw_kstring(w, "reason", d->reason);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_key(w, "findings");
    jw_array_begin(w);
    for (i = 0; i < r->nfindings; i++) {
        const struct ew_probe_finding *f = &r->findings[i];
        const struct ew_probe_obs *o = f->ttl > 0 && f->ttl <= r->max_ttl ? &r->obs[f->ttl][f->type] : NULL;

        jw_object_begin(w);
        jw_kstring(w, "kind", ew_misuse_name[f->kind]);
        jw_kstring(w, "dimension", ew_probe_specs[f->type].name);
        jw_kint(w, "ttl", f->ttl);
        if (o && o->answer != EW_PA_NONE)
            jw_kstring(w, "addr", addr_str(o->from, r->family, a, sizeof(a)));
        else
            jw_knull(w, "addr");
        jw_kstring(w, "confidence", ew_probe_conf_name[f->conf]);
        jw_kstring(w, "detail", f->detail);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_object_end(w);
    return jw_finish(w);
}

int
ew_probe_write_json(FILE *out, const struct ew_probe_result *r, const struct ew_probe_meta *m)
{
    struct jw w;
    int rc;

    if (jw_init(&w, out, 2, 17) != 0) {
        errno = ENOMEM;
        return -1;
    }
    rc = write_json(&w, r, m);
    if (rc == 0 && fputc('\n', out) == EOF)
        rc = -1;
    return rc;
}

/* a cell of the hop table: the field's value as quoted, "=" as sent, "-"
 * no answer, "nq" not quoted */
static void
cell(const struct ew_probe_result *r, int ttl, enum ew_probe_type t, char *buf, size_t len)
{
    const struct ew_probe_obs *o = &r->obs[ttl][t];
    int v = ew_probe_obs_value(o, t);

    if (!o->sent)
        snprintf(buf, len, " ");
    else if (o->answer == EW_PA_NONE)
        snprintf(buf, len, "-");
    else if (v < 0)
        snprintf(buf, len, "nq");
    else if (v == ew_probe_sent_value(t))
        snprintf(buf, len, "=");
    else if (ew_probe_specs[t].field == EW_PF_ECN)
        snprintf(buf, len, "%s", ew_ecn_key[v & 3]);
    else if (ew_probe_specs[t].field == EW_PF_OPTION)
        snprintf(buf, len, "gone");
    else
        snprintf(buf, len, "%s%s%s", v & EW_TCP_AE ? "A" : "", v & EW_TCP_CWR ? "C" : "",
                 v & EW_TCP_ECE ? "E" : (v ? "" : "0"));
}

/* the short column names, in the types' order */
static const char *const short_name[EW_PT_COUNT] = {
    "plain", "ect0", "ect1", "ce", "3168", "acc", "opt", "u:not", "u:ect0", "u:ect1", "u:ce",
};

int
ew_probe_write_text(FILE *out, const struct ew_probe_result *r, const struct ew_probe_meta *m)
{
    char a[64], b[64], c[16];
    int ttl, t, last = r->dest_ttl ? r->dest_ttl : r->max_ttl;
    size_t i;

    fprintf(out, "Probe of %s (%s): TCP port %u, UDP port %u, from %s\n", m->name,
            addr_str(r->dst, r->family, a, sizeof(a)), m->tcp_port, m->udp_port,
            addr_str(r->src, r->family, b, sizeof(b)));
    fprintf(out, "  %llu probes sent, %llu answered", (unsigned long long)m->sent,
            (unsigned long long)m->answers);
    if (r->dest_ttl)
        fprintf(out, "; the destination answered at hop %d\n", r->dest_ttl);
    else
        fprintf(out, "; the destination did not answer (stopped: %s)\n", m->stopped);
    fprintf(out, "\nWhat each hop quoted ('=' as sent, '-' no answer, 'nq' not quoted):\n");
    fprintf(out, "  %-3s %-39s", "hop", "address");
    for (t = 0; t < EW_PT_COUNT; t++)
        if (r->types[t])
            fprintf(out, " %-6s", short_name[t]);
    fputc('\n', out);
    for (ttl = 1; ttl <= last && ttl <= r->max_ttl; ttl++) {
        const uint8_t *from = NULL;

        for (t = 0; t < EW_PT_COUNT && !from; t++)
            if (r->obs[ttl][t].answer != EW_PA_NONE)
                from = r->obs[ttl][t].from;
        fprintf(out, "  %-3d %-39s", ttl, from ? addr_str(from, r->family, a, sizeof(a)) : "*");
        for (t = 0; t < EW_PT_COUNT; t++) {
            if (!r->types[t])
                continue;
            cell(r, ttl, (enum ew_probe_type)t, c, sizeof(c));
            fprintf(out, " %-6s", c);
        }
        fputc('\n', out);
    }
    fprintf(out, "\nDestination: RFC 3168 set-up %s, AccECN set-up %s",
            negotiation(r, EW_PT_TCP_ECN_SETUP), negotiation(r, EW_PT_TCP_ACCECN_SETUP));
    if (reflected(r))
        fprintf(out, " (the SYN arrived %s)", reflected(r));
    fputc('\n', out);
    fprintf(out, "\nDimensions:\n");
    for (t = 0; t < EW_PT_COUNT; t++) {
        const struct ew_probe_dim *d = &r->dims[t];

        if (!r->types[t])
            continue;
        fprintf(out, "  %-18s %s", ew_probe_specs[t].name, ew_probe_verdict_name[d->verdict]);
        if (d->change != EW_PC_NONE)
            fprintf(out, " (%s)", ew_probe_change_name[d->change]);
        fprintf(out, ", %s: %s\n", ew_probe_conf_name[d->conf], d->reason);
    }
    if (r->nfindings == 0) {
        fprintf(out, "\nNo ECN misuse found on the path.\n");
    } else {
        fprintf(out, "\nFindings:\n");
        for (i = 0; i < r->nfindings; i++) {
            const struct ew_probe_finding *f = &r->findings[i];
            const struct ew_probe_obs *o = &r->obs[f->ttl][f->type];

            fprintf(out, "  %s, %s, hop %d%s%s%s: %s\n", ew_misuse_name[f->kind],
                    ew_probe_conf_name[f->conf], f->ttl, o->answer != EW_PA_NONE ? " (" : "",
                    o->answer != EW_PA_NONE ? addr_str(o->from, r->family, a, sizeof(a)) : "",
                    o->answer != EW_PA_NONE ? ")" : "", f->detail);
        }
    }
    return ferror(out) ? -1 : 0;
}
