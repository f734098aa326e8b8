/* probe_judge.c - from what each hop quoted, per dimension (a probe type
 * and the field it tests): the last hop that saw the probe as sent, the
 * first that did not and what it saw, or a blackhole; and the findings.
 *
 * Evidence decides confidence: a change is located for certain only between
 * two hops that both answered and both quoted the field; with silent or
 * short-quoting hops between them it is "likely" somewhere in that span. A
 * blackhole is an absence, and is never more than "likely". A destination
 * that answers TCP quotes nothing, so what it saw is known only where its
 * answer says (an RFC 3168 or AccECN SYN-ACK shows the set-up arrived). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "infer/negotiation.h"
#include "probe/probe.h"

const char *const ew_probe_verdict_name[EW_PV_COUNT] = {
    "unchanged", "changed", "blackhole", "ambiguous", "unknown",
};
const char *const ew_probe_change_name[EW_PC_COUNT] = {
    "none", "bleached", "remarked", "ce_cleared", "ce_marked", "ect_set", "ce_set",
    "flags_stripped", "flags_changed", "option_removed", "option_changed",
};
const char *const ew_probe_conf_name[3] = {"certain", "likely", "unknown"};

#define ECN_FLAGS (EW_TCP_ECE | EW_TCP_CWR | EW_TCP_AE)

int
ew_probe_sent_value(enum ew_probe_type t)
{
    const struct ew_probe_spec *s = &ew_probe_specs[t];

    switch (s->field) {
    case EW_PF_ECN: return s->ecn;
    case EW_PF_FLAGS: return s->flags & ECN_FLAGS;
    case EW_PF_OPTION: return 1;
    }
    return -1;
}

int
ew_probe_negotiation(const struct ew_probe_obs *o, enum ew_probe_type t)
{
    if (o->answer != EW_PA_SYN_ACK || !o->from_dst || o->answer_flags < 0)
        return -1;
    return ew_negotiation(ew_tcp_ace(ew_probe_specs[t].flags),
                          ew_tcp_ace((uint16_t)o->answer_flags));
}

/* a SYN-ACK's answer to an ECN set-up SYN: the set-up arrived where the
 * SYN-ACK negotiates what it asked for (RFC 3168 §6.1.1, RFC 9768 Table 2) */
static int
synack_value(const struct ew_probe_obs *o, enum ew_probe_type t)
{
    int neg = ew_probe_negotiation(o, t);

    if ((t == EW_PT_TCP_ECN_SETUP && neg == EW_NEG_RFC3168) ||
        (t == EW_PT_TCP_ACCECN_SETUP && neg == EW_NEG_ACCECN))
        return ew_probe_sent_value(t);
    return -1;
}

int
ew_probe_obs_value(const struct ew_probe_obs *o, enum ew_probe_type t)
{
    switch (ew_probe_specs[t].field) {
    case EW_PF_ECN:
        return o->quoted ? o->ecn : -1;
    case EW_PF_FLAGS:
        if (o->quoted && o->flags >= 0)
            return o->flags & ECN_FLAGS;
        return synack_value(o, t);
    case EW_PF_OPTION:
        if (!o->quoted)
            return -1;
        return o->option == EW_PO_PRESENT ? 1 : o->option == EW_PO_ABSENT ? 0 : -1;
    }
    return -1;
}

static enum ew_probe_change
classify(enum ew_probe_type t, int s, int v)
{
    switch (ew_probe_specs[t].field) {
    case EW_PF_ECN:
        if (v == EW_ECN_NOT_ECT)
            return EW_PC_BLEACHED;
        if (s == EW_ECN_NOT_ECT)
            return v == EW_ECN_CE ? EW_PC_CE_SET : EW_PC_ECT_SET;
        if (s == EW_ECN_CE)
            return EW_PC_CE_CLEARED;
        return v == EW_ECN_CE ? EW_PC_CE_MARKED : EW_PC_REMARKED;
    case EW_PF_FLAGS:
        return (v & s) != s ? EW_PC_FLAGS_STRIPPED : EW_PC_FLAGS_CHANGED;
    case EW_PF_OPTION:
        return v == 0 ? EW_PC_OPTION_REMOVED : EW_PC_OPTION_CHANGED;
    }
    return EW_PC_NONE;
}

/* the finding a change is, or EW_MU_COUNT for none (a CE mark is congestion
 * signalled, not misuse; flags added to a SYN are not ECN's business) */
static enum ew_misuse_kind
change_kind(enum ew_probe_change c)
{
    switch (c) {
    case EW_PC_BLEACHED: return EW_MU_BLEACHING;
    case EW_PC_REMARKED: return EW_MU_REMARKING;
    case EW_PC_CE_CLEARED: return EW_MU_CE_UNMARKED;
    case EW_PC_ECT_SET: return EW_MU_ECT_ON_NOT_ECT;
    case EW_PC_CE_SET: return EW_MU_CE_ON_NOT_ECT;
    case EW_PC_FLAGS_STRIPPED: return EW_MU_ECN_SETUP_STRIPPED;
    case EW_PC_OPTION_REMOVED:
    case EW_PC_OPTION_CHANGED: return EW_MU_ACCECN_OPTION_MANGLED;
    default: return EW_MU_COUNT;
    }
}

/* the value of a field as text */
static const char *
value_str(enum ew_probe_type t, int v, char *buf, size_t len)
{
    switch (ew_probe_specs[t].field) {
    case EW_PF_ECN:
        return v >= 0 && v < 4 ? ew_ecn_name[v] : "?";
    case EW_PF_FLAGS:
        snprintf(buf, len, "%s%s%s%s", v & EW_TCP_AE ? "AE," : "", v & EW_TCP_CWR ? "CWR," : "",
                 v & EW_TCP_ECE ? "ECE," : "", v & ECN_FLAGS ? "" : "none");
        if (buf[0] && buf[strlen(buf) - 1] == ',')
            buf[strlen(buf) - 1] = '\0';
        return buf;
    case EW_PF_OPTION:
        return v ? "the option" : "no option";
    }
    return "?";
}

static enum ew_probe_type
baseline(enum ew_probe_type t)
{
    return ew_probe_specs[t].udp ? EW_PT_UDP_NOT_ECT : EW_PT_TCP_PLAIN;
}

/* the last TTL at which type t got any answer, up to last */
static int
last_answer(const struct ew_probe_result *r, enum ew_probe_type t, int last)
{
    int ttl, a = 0;

    for (ttl = 1; ttl <= last; ttl++)
        if (r->obs[ttl][t].answer != EW_PA_NONE)
            a = ttl;
    return a;
}

static void
judge_one(const struct ew_probe_result *r, enum ew_probe_type t, struct ew_probe_dim *d)
{
    int s = ew_probe_sent_value(t), last = r->dest_ttl ? r->dest_ttl : r->max_ttl;
    int ttl, a, p, quoted = 0, restored = 0, differ = 0;
    enum ew_probe_type b = baseline(t);
    char svb[32], vvb[32];
    const char *sv, *vv;

    memset(d, 0, sizeof(*d));
    d->type = t;
    d->last_as_sent = 0;
    d->first_changed = -1;
    d->first_silent = -1;
    d->seen = -1;
    d->conf = EW_PCONF_UNKNOWN;
    for (ttl = 1; ttl <= last; ttl++) {
        int v = ew_probe_obs_value(&r->obs[ttl][t], t);

        if (v < 0)
            continue;
        quoted++;
        if (v == s) {
            if (d->first_changed < 0)
                d->last_as_sent = ttl;
            else if (!restored)
                restored = ttl;
        } else if (d->first_changed < 0) {
            d->first_changed = ttl;
            d->seen = v;
        } else if (v != d->seen) {
            differ = ttl;
        }
    }
    a = last_answer(r, t, last);
    p = last_answer(r, b, last);
    sv = value_str(t, s, svb, sizeof(svb));
    if (d->first_changed > 0) {
        vv = value_str(t, d->seen, vvb, sizeof(vvb));
        if (restored) {
            d->verdict = EW_PV_AMBIGUOUS;
            d->conf = EW_PCONF_UNKNOWN;
            snprintf(d->reason, sizeof(d->reason),
                     "hop %d saw %s where %s was sent, but hop %d saw it as sent again: the "
                     "route varies between probes, or a quote was rewritten",
                     d->first_changed, vv, sv, restored);
            return;
        }
        d->verdict = EW_PV_CHANGED;
        d->change = classify(t, s, d->seen);
        d->conf = d->first_changed - d->last_as_sent == 1 ? EW_PCONF_CERTAIN : EW_PCONF_LIKELY;
        if (d->conf == EW_PCONF_CERTAIN && d->last_as_sent == 0)
            snprintf(d->reason, sizeof(d->reason), "%s sent; hop 1 saw %s%s", sv, vv,
                     differ ? "; a later hop saw yet another value" : "");
        else if (d->conf == EW_PCONF_CERTAIN)
            snprintf(d->reason, sizeof(d->reason), "%s sent; hop %d saw it as sent, hop %d saw %s%s",
                     sv, d->last_as_sent, d->first_changed, vv,
                     differ ? "; a later hop saw yet another value" : "");
        else
            snprintf(d->reason, sizeof(d->reason),
                     "%s sent; hop %d saw %s; hops %d to %d did not quote the field, so the "
                     "change is somewhere after hop %d",
                     sv, d->first_changed, vv, d->last_as_sent + 1, d->first_changed - 1,
                     d->last_as_sent);
        return;
    }
    /* a destination's Port Unreachable is an ICMP error its kernel rate-
     * limits (Linux: one a second after a burst), so a UDP probe unanswered
     * by the destination alone is no blackhole; a SYN's answer is not
     * limited so */
    if (t != b && p > a && !(ew_probe_specs[t].udp && p == r->dest_ttl && p - a == 1)) {
        int sent = 0;

        for (ttl = a + 1; ttl <= p; ttl++)
            sent += r->obs[ttl][t].sent > 0 && r->obs[ttl][b].answer != EW_PA_NONE;
        if (sent > 0) {
            d->verdict = EW_PV_BLACKHOLE;
            d->first_silent = a + 1;
            d->conf = EW_PCONF_LIKELY;
            snprintf(d->reason, sizeof(d->reason),
                     "no answer to these probes from hop %d on, where %s probes were answered "
                     "up to hop %d%s: they are dropped at or after hop %d",
                     a + 1, ew_probe_specs[b].name, p, p == r->dest_ttl ? " (the destination)" : "",
                     a);
            return;
        }
    }
    if (quoted > 0) {
        d->verdict = EW_PV_UNCHANGED;
        if (d->last_as_sent == last) {
            d->conf = EW_PCONF_CERTAIN;
            snprintf(d->reason, sizeof(d->reason), "%s as sent at every hop that quoted it, to hop %d%s",
                     sv, last, r->dest_ttl ? " (the destination)" : "");
        } else {
            d->conf = EW_PCONF_LIKELY;
            snprintf(d->reason, sizeof(d->reason),
                     "%s as sent as far as hop %d; beyond it to hop %d nothing quoted the field%s",
                     sv, d->last_as_sent, last,
                     r->dest_ttl && !ew_probe_specs[t].udp ? " (a TCP answer quotes nothing)" : "");
        }
        return;
    }
    d->verdict = EW_PV_UNKNOWN;
    d->last_as_sent = -1;
    snprintf(d->reason, sizeof(d->reason), "%s",
             a == 0 ? "no hop answered these probes"
                    : "no answer quoted the field: the quotes are too short, or the answers "
                      "are the destination's own");
}

void
ew_probe_judge(struct ew_probe_result *r)
{
    int t;

    r->nfindings = 0;
    for (t = 0; t < EW_PT_COUNT; t++) {
        struct ew_probe_dim *d = &r->dims[t];
        enum ew_misuse_kind k = EW_MU_COUNT;
        struct ew_probe_finding *f;
        char svb[32], vvb[32];
        const char *sv, *vv;

        if (!r->types[t]) {
            memset(d, 0, sizeof(*d));
            d->type = (enum ew_probe_type)t;
            d->verdict = EW_PV_UNKNOWN;
            d->conf = EW_PCONF_UNKNOWN;
            d->last_as_sent = d->first_changed = d->first_silent = d->seen = -1;
            snprintf(d->reason, sizeof(d->reason), "not probed (--probe-types)");
            continue;
        }
        judge_one(r, (enum ew_probe_type)t, d);
        if (d->verdict == EW_PV_CHANGED)
            k = change_kind(d->change);
        else if (d->verdict == EW_PV_BLACKHOLE)
            k = EW_MU_ECN_BLACKHOLE;
        if (k == EW_MU_COUNT || r->nfindings == EW_PROBE_FINDINGS_MAX)
            continue;
        f = &r->findings[r->nfindings++];
        f->kind = k;
        f->type = (enum ew_probe_type)t;
        f->conf = d->conf;
        sv = value_str((enum ew_probe_type)t, ew_probe_sent_value((enum ew_probe_type)t), svb,
                       sizeof(svb));
        if (d->verdict == EW_PV_BLACKHOLE) {
            f->ttl = d->first_silent;
            snprintf(f->detail, sizeof(f->detail),
                     "%s probes (%s) are answered to hop %d, then never: something at or after "
                     "hop %d drops them while plain probes pass",
                     ew_probe_specs[t].name, sv, d->first_silent - 1, d->first_silent - 1);
        } else {
            f->ttl = d->first_changed;
            vv = value_str((enum ew_probe_type)t, d->seen, vvb, sizeof(vvb));
            if (d->last_as_sent == 0)
                snprintf(f->detail, sizeof(f->detail),
                         "%s sent, %s at hop %d: changed %s the sender and hop %d", sv, vv,
                         d->first_changed,
                         d->conf == EW_PCONF_CERTAIN ? "between" : "somewhere between",
                         d->first_changed);
            else
                snprintf(f->detail, sizeof(f->detail), "%s sent, %s at hop %d: changed %s hop %d",
                         sv, vv, d->first_changed,
                         d->conf == EW_PCONF_CERTAIN ? "between it and" : "somewhere after",
                         d->last_as_sent);
        }
    }
}

uint32_t
ew_probe_found(const struct ew_probe_result *r)
{
    uint32_t m = 0;
    size_t i;

    for (i = 0; i < r->nfindings; i++)
        m |= 1u << r->findings[i].kind;
    return m;
}
