/* quic_json.c - the report's "quic" object of a flow (see quic_json.h):
 * the connection's packets, its conclusion and per direction the Initial
 * packets, the peer's counts and the frames that decided. */
#include "output/quic_json.h"

#include <stdio.h>

#include "dissectors/ecn.h"
#include "flow/flowtab.h"
#include "base/jw.h"
#include "infer/quic_infer.h"

/* a count as a JSON integer, clamped to what an int64_t holds */
static void
kcount(struct jw *w, const char *k, uint64_t v)
{
    jw_kint(w, k, (int64_t)(v > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : v));
}

/* a frame number, null when none */
static void
kframe(struct jw *w, const char *k, uint64_t frame)
{
    if (frame)
        kcount(w, k, frame);
    else
        jw_knull(w, k);
}

static void
counts4(struct jw *w, const char *k, const uint64_t *n)
{
    jw_key(w, k);
    jw_object_begin(w);
    jw_kint(w, "not_ect", (int64_t)n[EW_ECN_NOT_ECT]);
    jw_kint(w, "ect0", (int64_t)n[EW_ECN_ECT_0]);
    jw_kint(w, "ect1", (int64_t)n[EW_ECN_ECT_1]);
    jw_kint(w, "ce", (int64_t)n[EW_ECN_CE]);
    jw_object_end(w);
}

static void
dir_write(struct jw *w, const char *name, const struct ew_quic_conn *c, int d,
          const struct ew_quic_summary *s)
{
    const struct ew_quic_dir *q = &c->dir[d];
    uint64_t n[4];
    int i;

    jw_key(w, name);
    jw_object_begin(w);
    for (i = 0; i < 4; i++)
        n[i] = q->initials[i];
    counts4(w, "initial_packets", n);
    kcount(w, "initial_packets_decrypted", q->opened);
    for (i = 0; i < 4; i++)
        n[i] = q->later[i];
    counts4(w, "later_packets", n);
    for (i = 0; i < 4; i++)
        n[i] = q->acked_cp[i];
    counts4(w, "acknowledged", n);
    jw_key(w, "reported_by_peer");
    if (q->acks_ecn) {
        jw_object_begin(w);
        kcount(w, "ect0", q->rep[0]);
        kcount(w, "ect1", q->rep[1]);
        kcount(w, "ce", q->rep[2]);
        jw_object_end(w);
    } else {
        jw_null(w);
    }
    kcount(w, "peer_acks", q->acks);
    kcount(w, "peer_acks_with_ecn", q->acks_ecn);
    kcount(w, "peer_acks_without_ecn_over_ect", q->plain_on_ect);
    jw_kstring(w, "validation", ew_quic_dir_result_name[s->dir[d].result]);
    jw_kstring_or_null(w, "failure", s->dir[d].fail ? ew_quic_fail_name[s->dir[d].fail] : NULL);
    jw_kstring(w, "reason", s->dir[d].reason);
    jw_key(w, "frames");
    jw_object_begin(w);
    kframe(w, "first_initial", q->first_frame);
    kframe(w, "first_ect_initial", q->first_ect_frame);
    kframe(w, "first_peer_ack", q->ack_frame);
    kframe(w, "last_peer_ack_with_ecn", q->ecn_ack_frame);
    kframe(w, "first_peer_ack_without_ecn_over_ect", q->plain_ack_frame);
    kframe(w, "first_ect_later_packet", q->first_later_ect_frame);
    if (s->dir[d].fail)
        kframe(w, "failure", s->dir[d].frame);
    else
        jw_knull(w, "failure");
    jw_object_end(w);
    jw_object_end(w);
}

static void
version_name(char *buf, size_t len, uint32_t v)
{
    if (v == EW_QUIC_V1)
        snprintf(buf, len, "v1");
    else if (v == EW_QUIC_V2)
        snprintf(buf, len, "v2");
    else
        snprintf(buf, len, "0x%08x", (unsigned)v);
}

void
ew_quic_write(struct jw *w, const char *key, const struct ew_flow *f)
{
    const struct ew_quic_conn *c = f->quic;
    struct ew_quic_summary s;
    char ver[16];
    int t;

    if (!c || !ew_quic_conclude(f, &s))
        return;
    version_name(ver, sizeof(ver), c->version);
    jw_key(w, key);
    jw_object_begin(w);
    jw_kstring(w, "version", ver);
    jw_kbool(w, "version_changed", c->version_changed);
    jw_kint_if(w, "dcid_len", c->have_client, (int64_t)c->dcid_len);
    jw_kbool(w, "client_identified", c->have_client);
    jw_kbool(w, "retry", c->retry);
    jw_key(w, "packets");
    jw_object_begin(w);
    for (t = 0; t < EW_QP_COUNT; t++)
        kcount(w, ew_quic_ptype_name[t], c->packets[t]);
    jw_object_end(w);
    kcount(w, "initial_packets_undecrypted", c->unopened);
    kcount(w, "coalesced_datagrams", c->coalesced);
    jw_key(w, "version_negotiation");
    if (c->vn_frame) {
        uint32_t i, kept = c->vn_listed < EW_QUIC_VN_KEEP ? c->vn_listed : EW_QUIC_VN_KEEP;

        jw_object_begin(w);
        kcount(w, "frame", c->vn_frame);
        kcount(w, "versions_listed", c->vn_listed);
        jw_key(w, "versions");
        jw_array_begin(w);
        for (i = 0; i < kept; i++) {
            version_name(ver, sizeof(ver), c->vn_versions[i]);
            jw_string(w, ver);
        }
        jw_array_end(w);
        jw_object_end(w);
    } else {
        jw_null(w);
    }
    kframe(w, "connection_close_frame", c->close_frame);
    jw_kstring(w, "verdict", ew_quic_verdict_name[s.verdict]);
    jw_kstring(w, "reason", s.reason);
    dir_write(w, "c2s", c, f->client_dir, &s);
    dir_write(w, "s2c", c, f->client_dir ^ 1, &s);
    jw_object_end(w);
}
