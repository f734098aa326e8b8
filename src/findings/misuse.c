/* misuse.c - the misuse catalogue (see misuse.h) as one table: a row per
 * rule, naming the kind it finds, where it looks, the condition that fires
 * it, the RFC section and sentence it enforces, and how sure a finding can
 * be. Each rule names the vantage at which it can be certain; elsewhere it is
 * "likely" or silent. The engine, ew_misuse_find(), walks the table.
 *
 * About 1000 lines, over the usual 600, for a reason: the table names each
 * rule's condition, a static function of this file, so the 37 rows and their
 * conditions belong together (the engine and the kinds' names are the other
 * 150 lines). Split, a rule's row would sit far from what it checks, and the
 * conditions would need a header of their own. */
#include "findings/misuse.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissectors/ecn.h"
#include "flow/flowtab.h"
#include "flow/tunrec.h"
#include "infer/quic_infer.h"
#include "infer/thresholds.h"

const char *const ew_misuse_name[EW_MU_COUNT] = {
#define EW_X(id, name, text) [EW_MU_##id] = name,
    EW_MISUSE_KINDS(EW_X)
#undef EW_X
};
const char *const ew_misuse_text[EW_MU_COUNT] = {
#define EW_X(id, name, text) [EW_MU_##id] = text,
    EW_MISUSE_KINDS(EW_X)
#undef EW_X
};
const char *const ew_confidence_name[] = {[EW_CONF_CERTAIN] = "certain",
                                          [EW_CONF_LIKELY] = "likely"};

/* the (AE,CWR,ECE) handshake codes the rules name (RFC 9768 §3.1.2 Table 2) */
enum {
    HS_CLASSIC_SYN = 3,     /* 011: an RFC 3168 ECN-setup SYN */
    HS_RESERVED_SYNACK = 5, /* 101: a SYN-ACK code no server may send */
    HS_ACCECN_SYN = 7,      /* 111: a SYN asking for AccECN */
};

struct ctx {
    const struct ew_flow *f;
    const struct ew_flow_verdict *v;
    const struct ew_quic_summary *quic; /* other transports: QUIC's conclusion, or NULL */
    struct ew_finding *out;
    size_t n, room;
};

/* ------------------------------------------------------------ helpers */

/* the detail sentence of a finding; true, so that a condition can end with it */
static bool say(struct ew_finding *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool
say(struct ew_finding *x, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(x->detail, sizeof(x->detail), fmt, ap);
    va_end(ap);
    return true;
}

static uint64_t
min_frame(uint64_t a, uint64_t b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    return a < b ? a : b;
}

/* the capture point is at the sender (or receiver) of direction d */
static bool
at_sender(const struct ctx *c, int d)
{
    bool c2s = d == c->f->client_dir;

    return c2s ? c->v->vantage == EW_VANT_CLIENT : c->v->vantage == EW_VANT_SERVER;
}

static bool
at_receiver(const struct ctx *c, int d)
{
    bool c2s = d == c->f->client_dir;

    return c2s ? c->v->vantage == EW_VANT_SERVER : c->v->vantage == EW_VANT_CLIENT;
}

/* the sender of direction d, and its peer */
static const char *
dname(const struct ctx *c, int d)
{
    return d == c->f->client_dir ? "client" : "server";
}

static const char *
peer_name(const struct ctx *c, int d)
{
    return d == c->f->client_dir ? "server" : "client";
}

static uint64_t
kind_cp(const struct ew_flow *f, int d, int kind, enum ew_ecn cp)
{
    return f->inf->kind_ecn[d][kind][cp];
}

static uint64_t
data_cp(const struct ew_flow *f, int d, enum ew_ecn cp)
{
    return kind_cp(f, d, EW_SEG_DATA, cp) + kind_cp(f, d, EW_SEG_RETRANS, cp);
}

static uint64_t
ect_data(const struct ctx *c, int d)
{
    return data_cp(c->f, d, EW_ECN_ECT_0) + data_cp(c->f, d, EW_ECN_ECT_1);
}

/* what direction d's feedback is */
static bool
fb_none(const struct ctx *c, int d)
{
    return c->v->dir[d].feedback == EW_FB_NONE;
}

static bool
fb_classic(const struct ctx *c, int d)
{
    return !c->v->mode_accecn && !fb_none(c, d) && c->v->dir[d].feedback != EW_FB_UNKNOWN;
}

/* a DCTCP flow may set ECT on control packets: RFC 8257 §3.6 ("DCTCP SHOULD
 * set ECT on SYN, SYN-ACK and RST"), and Linux DCTCP sets it on every packet,
 * pure ACKs and retransmissions included (digest §1.3); seen on either side */
static bool
dctcp(const struct ctx *c)
{
    return c->v->verdict == EW_V_DCTCP || c->v->dir[0].feedback == EW_FB_DCTCP ||
           c->v->dir[1].feedback == EW_FB_DCTCP;
}

static uint64_t
mss_of(const struct ctx *c, int d)
{
    return c->f->dir[d].max_payload ? c->f->dir[d].max_payload : EW_MU_DEFAULT_MSS;
}

/* the receiver's AccECN byte counters can judge d: enough options, read at
 * or near the sender (at the receiver the arrivals are seen directly) */
static bool
counters_usable(const struct ctx *c, int d)
{
    return c->v->mode_accecn && c->f->inf->half[d].opt_segments >= EW_MU_COUNTER_MIN_OPTS &&
           !at_receiver(c, d);
}

/* payload bytes of codepoint cp from d that passed here since the option
 * field counting them first appeared (all of them where it never did): the
 * counters' baseline is their first value (infer_track.c) */
static uint64_t
since_first(const struct ew_half *h, int field, enum ew_ecn cp)
{
    return h->opt_seen[field] ? h->bytes_seen[cp] - h->opt_base_bytes[field] : h->bytes_seen[cp];
}

/* where the capture point sits for d's packets, in words: a codepoint seen
 * here is as d's sender chose it (at its side), or as it arrives (at the
 * receiver's), or somewhere between */
static const char *
where_d(const struct ctx *c, int d)
{
    return at_sender(c, d) ? "seen as sent" : at_receiver(c, d) ? "seen as received" : "seen on the way";
}

/* who put there what d's packets carry as seen here: where the capture
 * point is at d's sender, the packets leave the host as it wrote them, and
 * no path or middlebox is to blame */
static const char *
origin(const struct ctx *c, int d)
{
    return at_sender(c, d) ? "seen as its sender wrote it: the sender's own doing"
                           : "its sender's doing, or changed upstream of this point";
}

/* the same for what d's receiver feeds back on d (the other direction's
 * packets): its own as it leaves it where the capture point is there */
static const char *
fb_origin(const struct ctx *c, int d)
{
    return at_receiver(c, d) ? "seen as the receiver wrote it: its own doing"
                             : "the receiver's doing, or changed between it and this point";
}

/* ------------------------------------------------ the handshake's codes */

/* An AccECN handshake packet of direction d (the SYN on the client's, the
 * SYN-ACK on the server's) seen here as *sent; the peer reports it arrived as
 * *got. Any difference happened between this capture point and the peer. */
struct arrival {
    uint64_t frame; /* the packet carrying the peer's report */
    const char *what;
    enum ew_ecn sent;
    int got; /* enum ew_ecn, or -1: the code says nothing of it */
};

static bool
arrival_of(const struct ctx *c, int d, struct arrival *a)
{
    const struct ew_handshake *h = &c->f->hs;

    if (c->v->neg != EW_NEG_ACCECN)
        return false;
    if (d == c->f->client_dir) {
        *a = (struct arrival){h->synack_frame, "SYN", h->syn_ecn,
                              ew_accecn_code_cp(ew_tcp_ace(h->synack_flags))};
    } else {
        if (!c->f->inf->ack3_seen)
            return false;
        *a = (struct arrival){c->f->inf->ack3_frame, "SYN-ACK", h->synack_ecn,
                              ew_accecn_code_cp(c->f->inf->ack3_ace)};
    }
    return true;
}

/* which change the arrival shows; EW_MU_COUNT for none (same, unknown, or marking) */
static enum ew_misuse_kind
arrival_change(enum ew_ecn sent, int got)
{
    enum ew_ecn g;

    if (got < 0)
        return EW_MU_COUNT;
    g = (enum ew_ecn)got;
    if (sent == g)
        return EW_MU_COUNT;
    if (ew_ecn_is_ect(sent) && g == EW_ECN_NOT_ECT)
        return EW_MU_BLEACHING;
    if (ew_ecn_is_ect(sent) && ew_ecn_is_ect(g))
        return EW_MU_REMARKING;
    if (sent == EW_ECN_CE)
        return EW_MU_CE_UNMARKED;
    if (sent == EW_ECN_NOT_ECT && g == EW_ECN_CE)
        return EW_MU_CE_ON_NOT_ECT;
    if (sent == EW_ECN_NOT_ECT)
        return EW_MU_ECT_ON_NOT_ECT;
    return EW_MU_COUNT;
}

/* the arrival of d's handshake packet shows change k; sets the frame */
static bool
arrival_is(const struct ctx *c, int d, enum ew_misuse_kind k, struct arrival *a,
           struct ew_finding *x)
{
    if (!arrival_of(c, d, a) || arrival_change(a->sent, a->got) != k)
        return false;
    x->first_frame = a->frame;
    return true;
}

/* ------------------------------------------------------------ conditions
 *
 * A condition reads the flow and its verdict for direction d; if its rule
 * fires, it fills in the finding's first frame (0: the flow's first) and
 * count (0: one), its confidence where the row says CONF_OWN, and its detail,
 * and returns true. The engine sets the kind, direction, reference and the
 * confidence the row's rule gives. */

static unsigned
syn_code(const struct ctx *c)
{
    return ew_tcp_ace(c->f->hs.syn_flags);
}

static unsigned
synack_code(const struct ctx *c)
{
    return ew_tcp_ace(c->f->hs.synack_flags);
}

static bool
both_handshake(const struct ctx *c)
{
    return c->f->hs.syn_count && c->f->hs.synack_count;
}

static bool
c_flags_reflected(const struct ctx *c, int d, struct ew_finding *x)
{
    unsigned syn = syn_code(c);

    if (!both_handshake(c) || synack_code(c) != syn ||
        (syn != HS_CLASSIC_SYN && syn != HS_ACCECN_SYN))
        return false;
    x->first_frame = c->f->hs.synack_frame;
    return say(x,
               "the SYN-ACK repeats the SYN's ECN flags (%u%u%u) (%s): a reflector of reserved "
               "flags; ECN cannot be used on this connection",
               (syn >> 2) & 1, (syn >> 1) & 1, syn & 1, origin(c, d));
}

static bool
c_accecn_code_unasked(const struct ctx *c, int d, struct ew_finding *x)
{
    unsigned syn = syn_code(c), sa = synack_code(c);

    if (!both_handshake(c) || syn == HS_ACCECN_SYN || ew_accecn_code_cp(sa) < 0 || syn == sa)
        return false;
    x->first_frame = c->f->hs.synack_frame;
    return say(x,
               "the SYN-ACK answers a SYN that did not ask for AccECN with an AccECN code "
               "(%u%u%u) (%s)",
               (sa >> 2) & 1, (sa >> 1) & 1, sa & 1, origin(c, d));
}

static bool
c_reserved_synack(const struct ctx *c, int d, struct ew_finding *x)
{
    if (!both_handshake(c) || syn_code(c) != HS_ACCECN_SYN ||
        synack_code(c) != HS_RESERVED_SYNACK)
        return false;
    x->first_frame = c->f->hs.synack_frame;
    return say(x, "the SYN-ACK carries the reserved code 101, which a server must not send (%s); "
                  "clients before 2026 read it as classic ECN, newer ones as AccECN",
               origin(c, d));
}

static bool
c_option_on_syn(const struct ctx *c, int d, struct ew_finding *x)
{
    if (!c->f->hs.syn_accecn_option)
        return false;
    x->first_frame = c->f->hs.syn_option_frame;
    return say(x, "an AccECN option on a SYN, where it is never sent (%s)", origin(c, d));
}

static bool
c_classic_and_accecn_syn(const struct ctx *c, int d, struct ew_finding *x)
{
    if (!c->f->hs.syn_classic_and_accecn)
        return false;
    x->first_frame = c->f->hs.syn_frame;
    x->count = c->f->hs.syn_count;
    return say(x, "both a classic (011) and an AccECN (111) SYN in one connection (%s)",
               origin(c, d));
}

/* ECN++ allows ECT on the handshake only with AccECN; DCTCP sets it in data
 * centres (RFC 8257 §3.6) */
static bool
c_ect_on_syn(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_handshake *h = &c->f->hs;

    if (!h->syn_count || !ew_ecn_is_ect(h->syn_ecn) || syn_code(c) == HS_ACCECN_SYN || dctcp(c))
        return false;
    x->first_frame = h->syn_frame;
    return say(x, "the SYN is %s without an AccECN request (%s)", ew_ecn_name[h->syn_ecn],
               at_sender(c, d) ? "the client sets it" : "the client, or the path, sets it");
}

static bool
c_ect_on_synack(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_handshake *h = &c->f->hs;

    if (!h->synack_count || !ew_ecn_is_ect(h->synack_ecn) || syn_code(c) == HS_ACCECN_SYN ||
        dctcp(c))
        return false;
    x->first_frame = h->synack_frame;
    return say(x, "the SYN-ACK is %s although the SYN did not request AccECN (%s)",
               ew_ecn_name[h->synack_ecn], origin(c, d));
}

/* where the capture point is next to the reporting peer, the packet was
 * seen as it arrived there, and the peer's own report is what differs */
static const char *
near_peer(const struct ctx *c, int d)
{
    return at_receiver(c, d) ? "; this point is next to it, so most likely its own misreport" : "";
}

/* the AccECN handshake codes against what was seen sent: one change each */
static bool
c_arrival_bleached(const struct ctx *c, int d, struct ew_finding *x)
{
    struct arrival a;

    if (!arrival_is(c, d, EW_MU_BLEACHING, &a, x))
        return false;
    return say(x,
               "the %s left here %s but the %s reports it arrived Not-ECT: a device between this "
               "point and the %s clears the ECN field%s",
               a.what, ew_ecn_name[a.sent], peer_name(c, d), peer_name(c, d), near_peer(c, d));
}

static bool
c_arrival_remarked(const struct ctx *c, int d, struct ew_finding *x)
{
    struct arrival a;

    if (!arrival_is(c, d, EW_MU_REMARKING, &a, x))
        return false;
    return say(x,
               "the %s left here %s but the %s reports it arrived %s: a device between this point "
               "and the %s swaps ECT(0) and ECT(1)%s",
               a.what, ew_ecn_name[a.sent], peer_name(c, d), ew_ecn_name[a.got], peer_name(c, d), near_peer(c, d));
}

static bool
c_arrival_ce_erased(const struct ctx *c, int d, struct ew_finding *x)
{
    struct arrival a;

    if (!arrival_is(c, d, EW_MU_CE_UNMARKED, &a, x))
        return false;
    return say(x,
               "the %s left here CE but the %s reports it arrived %s: a device on the way erases "
               "congestion marks%s",
               a.what, peer_name(c, d), ew_ecn_name[a.got], near_peer(c, d));
}

static bool
c_arrival_ce_on_not_ect(const struct ctx *c, int d, struct ew_finding *x)
{
    struct arrival a;

    if (!arrival_is(c, d, EW_MU_CE_ON_NOT_ECT, &a, x))
        return false;
    return say(x,
               "the %s left here Not-ECT but the %s reports it arrived CE: a device between this "
               "point and the %s marks packets that are not ECN-capable%s",
               a.what, peer_name(c, d), peer_name(c, d), near_peer(c, d));
}

static bool
c_arrival_ect_on_not_ect(const struct ctx *c, int d, struct ew_finding *x)
{
    struct arrival a;

    if (!arrival_is(c, d, EW_MU_ECT_ON_NOT_ECT, &a, x))
        return false;
    return say(x,
               "the %s left here Not-ECT but the %s reports it arrived %s: a device between this "
               "point and the %s makes packets look ECN-capable%s",
               a.what, peer_name(c, d), ew_ecn_name[a.got], peer_name(c, d), near_peer(c, d));
}

/* CE-marked data was ECT when sent, so it counts too */
static bool
c_ect_without_negotiation(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_half *h = &c->f->inf->half[d];
    uint64_t n = ect_data(c, d) + data_cp(c->f, d, EW_ECN_CE);

    if (!fb_none(c, d) || ect_data(c, d) == 0 || c->v->neg_inferred)
        return false;
    x->first_frame = min_frame(h->first_ect0_frame, h->first_ect1_frame);
    x->count = n;
    return say(x,
               "%llu data segments from the %s carry ECT or CE although ECN was not negotiated "
               "(%s); %u of its packets are CE-marked and nobody reports them",
               (unsigned long long)n, dname(c, d),
               at_sender(c, d) ? "the sender sets it" : "set by the sender, or by the path",
               h->ce_seen);
}

/* Both ends of a flow on one link (IPv6 or IPv4 link-local): no router
 * forwards its packets (RFC 4291 §2.5.6, RFC 3927 §2.6.2), so no router's
 * AQM can have marked them on the way. */
static bool
link_local(const struct ew_flow *f)
{
    const uint8_t *a[2] = {f->key.lo, f->key.hi};
    int i, local = 0;

    for (i = 0; i < 2; i++) {
        if (f->key.family == 6 && a[i][0] == 0xfe && (a[i][1] & 0xc0) == 0x80)
            local++;
        else if (f->key.family == 6 && a[i][0] == 0xff && (a[i][1] & 0x0f) == 0x02)
            local++; /* a link-scope multicast group */
        else if (f->key.family == 4 && a[i][12] == 169 && a[i][13] == 254)
            local++;
    }
    return local == 2;
}

/* CE on a sender's packets that carry no ECT. RFC 3168 §5: a router sets
 * CE instead of dropping only "if the ECT codepoint is set in that packet's
 * IP header"; and only the network sets CE. What the CE packets were when
 * sent is never seen here, so who set CE is known only where the capture
 * point shows it: next to the sender (the packets leave the host CE), or on
 * a link no router forwards (link-local): certain there; elsewhere the
 * sender setting CE itself and an AQM marking its Not-ECT packets look
 * alike: likely. A direction CE from its first packet is judged too; one
 * that sends Not-ECT and CE (and no ECT) from EW_MU_CE_NOT_ECT_MIN_SEEN
 * Not-ECT packets on, as a single CE packet tells little. */
static bool
ce_never_ect(const struct ctx *c, int d, struct ew_finding *x, uint64_t first_ce)
{
    const struct ew_dir_stats *s = &c->f->dir[d];
    bool from_first = s->packets > 0 && s->first_ecn == EW_ECN_CE;
    bool sender = c->f->key.l4 == EW_L4_TCP && at_sender(c, d), local = link_local(c->f);

    if (s->ecn[EW_ECN_CE] == 0 || s->ecn[EW_ECN_ECT_0] + s->ecn[EW_ECN_ECT_1] != 0)
        return false;
    if (!from_first && s->ecn[EW_ECN_NOT_ECT] < (c->f->key.l4 == EW_L4_TCP ? 1u : EW_MU_CE_NOT_ECT_MIN_SEEN))
        return false;
    /* what the capture missed may have been ECT */
    if (c->f->key.l4 == EW_L4_TCP &&
        s->ecn[EW_ECN_NOT_ECT] < (uint64_t)EW_MU_CE_NOT_ECT_PER_GAP * c->f->inf->half[d].missed_gaps)
        return false;
    x->first_frame = first_ce ? first_ce : c->f->first_frame;
    x->count = s->ecn[EW_ECN_CE];
    x->confidence = sender || local ? EW_CONF_CERTAIN : EW_CONF_LIKELY;
    if (sender || local)
        return say(x,
                   "%llu packets from the %s, which sends no ECT (%llu Not-ECT), are CE%s %s: "
                   "the sending host sets CE itself, which only the network may, and only on "
                   "ECN-capable packets",
                   (unsigned long long)s->ecn[EW_ECN_CE], dname(c, d),
                   (unsigned long long)s->ecn[EW_ECN_NOT_ECT],
                   from_first ? " from its first packet" : "",
                   sender ? "as they leave it" : "on a link no router forwards (link-local)");
    return say(x,
               "%llu packets from the %s, which sends no ECT otherwise (%llu Not-ECT%s), arrive "
               "CE%s: the sender sets CE itself, or an AQM upstream of this point marks Not-ECT "
               "packets instead of dropping them; nobody reacts either way",
               (unsigned long long)s->ecn[EW_ECN_CE], dname(c, d),
               (unsigned long long)s->ecn[EW_ECN_NOT_ECT],
               c->f->key.l4 == EW_L4_TCP && fb_none(c, d) && !c->v->neg_inferred
                   ? ", no ECN negotiated" : "",
               from_first ? " from its first packet" : "");
}

static bool
c_ce_on_not_ect(const struct ctx *c, int d, struct ew_finding *x)
{
    return ce_never_ect(c, d, x, c->f->inf->half[d].first_ce_frame);
}

static bool
c_bleached_by_counters(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_half *h = &c->f->inf->half[d];
    uint64_t mss = mss_of(c, d), sent, rep;

    if (!counters_usable(c, d))
        return false;
    sent = since_first(h, EW_ACC_E0B, EW_ECN_ECT_0) + since_first(h, EW_ACC_E1B, EW_ECN_ECT_1) +
           since_first(h, EW_ACC_CEB, EW_ECN_CE);
    rep = h->opt_total[EW_ACC_E0B] + h->opt_total[EW_ACC_E1B] + h->opt_total[EW_ACC_CEB];
    if (sent < EW_MU_COUNTER_MIN_MSS * mss || rep * EW_MU_BLEACH_REPORTED_DIV >= sent)
        return false;
    x->first_frame = h->first_opt_frame;
    x->count = (sent - rep + mss - 1) / mss;
    return say(x,
               "%llu payload bytes passed here ECN-capable (%s), but the receiver's AccECN "
               "counters report only %llu arriving ECT or CE: cleared between this point and the "
               "%s",
               (unsigned long long)sent, where_d(c, d), (unsigned long long)rep, peer_name(c, d));
}

static bool
c_ect1_to_ect0_by_counters(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_half *h = &c->f->inf->half[d];
    uint64_t mss = mss_of(c, d);

    if (!counters_usable(c, d) || !c->v->dir[d].sender_ect1 || !h->opt_seen[EW_ACC_E0B] ||
        h->opt_total[EW_ACC_E0B] * EW_MU_REMARK_E0B_DIV <= since_first(h, EW_ACC_E1B, EW_ECN_ECT_1) ||
        since_first(h, EW_ACC_E1B, EW_ECN_ECT_1) < EW_MU_COUNTER_MIN_MSS * mss)
        return false;
    x->first_frame = h->first_opt_frame;
    x->count = (h->opt_total[EW_ACC_E0B] + mss - 1) / mss;
    return say(x,
               "the sender marks ECT(1) (%s) but the receiver counts %llu bytes arriving ECT(0): "
               "rewritten between this point and the %s, and the L4S identifier is lost",
               where_d(c, d), (unsigned long long)h->opt_total[EW_ACC_E0B], peer_name(c, d));
}

static bool
c_ect0_to_ect1_by_counters(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_half *h = &c->f->inf->half[d];
    uint64_t mss = mss_of(c, d);

    if (!counters_usable(c, d) || c->v->dir[d].sender_ect1 || h->bytes_seen[EW_ECN_ECT_1] != 0 ||
        !h->opt_seen[EW_ACC_E1B] || h->opt_total[EW_ACC_E1B] == 0 ||
        h->bytes_seen[EW_ECN_ECT_0] == 0)
        return false;
    x->first_frame = h->first_opt_frame;
    x->count = (h->opt_total[EW_ACC_E1B] + mss - 1) / mss;
    return say(x,
               "the sender marks ECT(0) (%s) but the receiver counts %llu bytes arriving ECT(1): "
               "between this point and the %s an SCE-style AQM or a remark moves this classic "
               "traffic into an L4S queue",
               where_d(c, d), (unsigned long long)h->opt_total[EW_ACC_E1B], peer_name(c, d));
}

static bool
c_ect1_runs(const struct ctx *c, int d, struct ew_finding *x)
{
    if (!c->v->mode_accecn || !c->v->dir[d].network_ect1)
        return false;
    x->first_frame = c->f->inf->half[d].first_ect1_frame;
    x->count = data_cp(c->f, d, EW_ECN_ECT_1);
    return say(x,
               "ECT(1) appears in runs on the %s's ECT(0) data (%s): upstream of this point an "
               "SCE-style AQM or a remark moves this classic traffic into an L4S queue",
               dname(c, d), where_d(c, d));
}

/* Classic feedback, the sender's first data ECT(0), ECT(1) arriving later in
 * runs, and no ESCE at all: no SCE receiver uses the ECT(1) as a mark
 * (draft-morton-tsvwg-sce; digest §6.5: "classic negotiation + ECT(1) data +
 * no ESCE"), so ECT(0) was rewritten to ECT(1) upstream of this point. Where
 * the capture is at the sender, ECT(1) leaving it is the sender's own: no
 * finding. Likely: the sender's codepoint is inferred from its early data. */
static bool
c_ect1_runs_unechoed(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_half *h = &c->f->inf->half[d];

    /* no ESCE seen proves nothing where the capture missed the feedback's segments */
    if (!fb_classic(c, d) || !c->v->dir[d].network_ect1 || h->esce_acks != 0 || at_sender(c, d) ||
        c->f->inf->half[d ^ 1].missed_bytes)
        return false;
    x->first_frame = h->first_ect1_frame;
    x->count = data_cp(c->f, d, EW_ECN_ECT_1);
    return say(x,
               "the %s's data starts ECT(0), yet %llu segments are ECT(1) here (%u changes) "
               "and the %s echoes no ESCE: a device %s rewrites ECT(0) to ECT(1), into an L4S "
               "queue's class",
               dname(c, d), (unsigned long long)x->count, h->ect1_runs, peer_name(c, d),
               at_receiver(c, d) ? "between the sender and this capture point (the receiver)"
                                 : "upstream of this capture point");
}

/* at the sender all-Not-ECT data is the sender's own choice: only judged elsewhere */
static bool
c_all_not_ect(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_half *h = &c->f->inf->half[d];

    /* the negotiation says ECN was agreed: without it, Not-ECT data is no sign */
    if (fb_none(c, d) || at_sender(c, d) || h->data_pkts < EW_MU_NOT_ECT_MIN_DATA ||
        ect_data(c, d) != 0 || data_cp(c->f, d, EW_ECN_CE) != 0 || c->v->neg_inferred)
        return false;
    x->first_frame = h->first_data_frame;
    x->count = h->data_pkts;
    return say(x,
               "ECN was negotiated but all %u data segments from the %s arrive Not-ECT: cleared "
               "upstream of this point, unless the sender chose not to set it",
               h->data_pkts, dname(c, d));
}

static bool
c_ect_on_pure_acks(const struct ctx *c, int d, struct ew_finding *x)
{
    uint64_t acks = kind_cp(c->f, d, EW_SEG_PURE_ACK, EW_ECN_ECT_0) +
                    kind_cp(c->f, d, EW_SEG_PURE_ACK, EW_ECN_ECT_1);

    if (!fb_classic(c, d) || dctcp(c) || acks == 0)
        return false;
    x->first_frame = c->f->inf->half[d].first_ect_pure_ack_frame;
    x->count = acks;
    return say(x,
               "%llu pure ACKs from the %s carry ECT under classic ECN feedback, where they must "
               "be Not-ECT (only AccECN allows it); %s",
               (unsigned long long)acks, dname(c, d), origin(c, d));
}

/* reordering at the capture point looks like retransmission: ask for a pattern */
static bool
c_ect_on_retransmissions(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_flow *f = c->f;
    uint64_t rtx_ect = kind_cp(f, d, EW_SEG_RETRANS, EW_ECN_ECT_0) +
                       kind_cp(f, d, EW_SEG_RETRANS, EW_ECN_ECT_1);
    uint64_t rtx = rtx_ect + kind_cp(f, d, EW_SEG_RETRANS, EW_ECN_NOT_ECT) +
                   kind_cp(f, d, EW_SEG_RETRANS, EW_ECN_CE);
    uint64_t unsure = f->dir[d].dups_unsure;

    /* a segment that may be a copy is counted a retransmission: leave
     * those out, as if each were an ECT one */
    rtx_ect = rtx_ect > unsure ? rtx_ect - unsure : 0;
    rtx = rtx > unsure ? rtx - unsure : 0;
    if (!fb_classic(c, d) || dctcp(c) || rtx_ect < EW_MU_RTX_ECT_MIN ||
        rtx_ect * EW_MU_RTX_ECT_DIV < rtx)
        return false;
    x->first_frame = f->inf->half[d].first_ect_retrans_frame;
    x->count = rtx_ect;
    return say(x,
               "%llu retransmissions from the %s carry ECT under classic ECN feedback, where they "
               "must be Not-ECT; %s",
               (unsigned long long)rtx_ect, dname(c, d), origin(c, d));
}

static bool
c_ect1_without_l4s(const struct ctx *c, int d, struct ew_finding *x)
{
    if (!c->v->dir[d].sender_ect1 || c->v->mode_accecn || c->v->neg_inferred)
        return false;
    x->first_frame = c->f->inf->half[d].first_data_frame;
    x->count = data_cp(c->f, d, EW_ECN_ECT_1);
    return say(x,
               "the %s's data is ECT(1) (%s) but %s: ECT(1) is for L4S senders with accurate "
               "feedback",
               dname(c, d), origin(c, d),
               fb_none(c, d) ? "ECN was not negotiated" : "it has only classic ECN feedback");
}

static bool
c_ce_not_echoed(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_half *h = &c->f->inf->half[d];

    if (!fb_classic(c, d) || h->ce_unechoed == 0)
        return false;
    x->first_frame = h->first_ce_unechoed_frame;
    x->count = h->ce_unechoed;
    return say(x, "%u ACKs acknowledge CE-marked data without ECE (%s): the %s does not echo "
                  "congestion, or its ECE is cleared on the way",
               h->ce_unechoed, fb_origin(c, d), peer_name(c, d));
}

/* certain at the receiver, unless ACE may have wrapped between two ACKs */
static bool
c_ace_under_reports(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_half *h = &c->f->inf->half[d];

    if (!c->v->mode_accecn || h->ace_segments == 0 || h->ce_seen <= h->cep_reported ||
        h->ace_mismatch == 0 || c->v->neg_inferred)
        return false;
    x->first_frame = h->first_ace_mismatch_frame;
    x->count = h->ce_seen - h->cep_reported;
    x->confidence =
        at_receiver(c, d) && !h->ace_wrap_ambiguous ? EW_CONF_CERTAIN : EW_CONF_LIKELY;
    return say(x,
               "%u CE packets arrived but the ACE counter reports only %llu (%s): the %s "
               "under-reports congestion",
               h->ce_seen, (unsigned long long)h->cep_reported, fb_origin(c, d), peer_name(c, d));
}

/* DCTCP and SCE senders answer ECE differently, without CWR */
static bool
c_ece_ignored(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_half *h = &c->f->inf->half[d];

    /* no CWR seen proves nothing where the capture missed some of the data */
    if (!fb_classic(c, d) || dctcp(c) || c->v->dir[d].feedback == EW_FB_SCE ||
        h->ece_acks == 0 || h->cwr_seen != 0 || h->data_after_ece < EW_MU_ECE_IGNORED_MIN_DATA ||
        h->missed_bytes)
        return false;
    x->first_frame = h->first_ece_frame;
    x->count = h->ece_acks;
    return say(x,
               "the %s got %u ECE ACKs and sent %u more data segments without a CWR seen here "
               "(%s): it does not react to congestion marks",
               dname(c, d), h->ece_acks, h->data_after_ece, origin(c, d));
}

/* RFC 3168 §6.1.3: the receiver's echo clears on the CWR. Judged only where
 * the arrivals are seen (at the receiver): elsewhere a CE set past the
 * capture point explains any ECE; and not where the capture missed some of
 * d's data, which may have held that CE */
static bool
c_ece_held(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_half *h = &c->f->inf->half[d];

    if (!fb_classic(c, d) || !at_receiver(c, d) || h->ece_held < EW_MU_ECE_HELD_MIN ||
        h->missed_bytes || h->nholes)
        return false;
    x->first_frame = h->first_ece_held_frame;
    x->count = h->ece_held;
    return say(x,
               "the %s sent %u ECE ACKs for %s data that arrived after a CWR with no CE since "
               "(%s): its echo does not clear, so the %s reduces again for marks it has "
               "answered",
               peer_name(c, d), h->ece_held, dname(c, d), fb_origin(c, d), dname(c, d));
}

/* counters of the feedback on d: judged only where AccECN was seen negotiated */
static bool
accecn_seen(const struct ctx *c)
{
    return c->v->mode_accecn && !c->v->neg_inferred;
}

static bool
c_ace_zeroed(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_half *h = &c->f->inf->half[d];

    if (!accecn_seen(c) || !h->ace_zero_first)
        return false;
    x->first_frame = h->first_ace_change_frame;
    if (at_receiver(c, d))
        return say(x, "the first ACE after the handshake is 0 as it leaves the %s: the %s itself "
                      "is not in AccECN mode, or broken; no middlebox",
                   peer_name(c, d), peer_name(c, d));
    return say(x, "the first ACE after the handshake arrives 0: zeroed between the %s and this "
                  "point, or the %s is not in AccECN mode",
               peer_name(c, d), peer_name(c, d));
}

/* RFC 9768 §3.2.3.2.4 reads EE0B or EE1B zero in the first option as a
 * zeroed option; but pre-RFC endpoints start those counters at 0 (the
 * experimental kind 254 of the 2021 L4S kernels, heistp field captures),
 * so a zero first value is read as the endpoint's generation and never
 * judged. What a single capture can show is a field going back to 0 after
 * a higher value (the SYN-ACK's included), which no counter does: the option was zeroed, by a
 * device between the receiver and this point (likely: two captures would
 * show where), or by the receiver itself where the capture point is at the
 * receiver, whose options leave it as written. */
static bool
c_option_zeroed(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_half *h = &c->f->inf->half[d];

    if (!c->v->mode_accecn || h->opt_zeroed == 0)
        return false;
    x->first_frame = h->first_opt_zeroed_frame;
    x->count = h->opt_zeroed;
    if (at_receiver(c, d))
        return say(x,
                   "%u AccECN options from the %s carry a counter back at 0 after a higher value, "
                   "as they leave it: its own AccECN implementation writes them so, no middlebox",
                   h->opt_zeroed, peer_name(c, d));
    return say(x,
               "%u AccECN options from the %s arrive with a counter back at 0 after a higher "
               "value, which no counter does: zeroed between the %s and this point",
               h->opt_zeroed, peer_name(c, d), peer_name(c, d));
}

/* either counter may be the mangled one: likely */
static bool
c_option_disagrees(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_half *h = &c->f->inf->half[d];

    if (!accecn_seen(c) || !h->opt_seen[EW_ACC_CEB] || h->opt_total[EW_ACC_CEB] == 0 ||
        h->cep_reported != 0 || h->ace_segments == 0)
        return false;
    x->first_frame = h->first_opt_frame;
    return say(x,
               "ECEB reports %llu CE bytes while ACE reports no CE packet: the counters disagree "
               "(%s)",
               (unsigned long long)h->opt_total[EW_ACC_CEB], fb_origin(c, d));
}

/* any transport but TCP: no negotiation to say the sender must send
 * Not-ECT, so at most likely, and only where enough of its packets are seen
 * Not-ECT (a flow of CE packets alone tells nothing of its sender) */
static bool
c_ce_on_not_ect_any(const struct ctx *c, int d, struct ew_finding *x)
{
    return ce_never_ect(c, d, x, 0);
}

/* QUIC Initial packets fail ECN validation against the peer's Initial ACK
 * counts. All CE may be real congestion, hence only likely then. */
static bool
c_quic_validation_failed(const struct ctx *c, int d, struct ew_finding *x)
{
    const struct ew_quic_summary *s = c->quic;

    if (!s || s->dir[d].result != EW_QD_FAILED)
        return false;
    x->first_frame = s->dir[d].first_frame ? s->dir[d].first_frame : s->dir[d].frame;
    x->count = s->dir[d].count;
    x->confidence = s->dir[d].fail == EW_QF_ALL_CE ? EW_CONF_LIKELY : EW_CONF_CERTAIN;
    return say(x, "%s", s->dir[d].reason);
}

/* ------------------------------------------------------------ tunnels */

/* The outer IP header nearest a tunnelled packet against its own
 * (tunrec.h), in direction d: what this capture point saw of the pair. */
static const struct ew_tunnel_dir *
tun_dir(const struct ctx *c, int d)
{
    const struct ew_tunnel_rec *t = c->f->tun;

    return t && ew_tunnel_dir_rfc6040(&t->dir[d]) ? &t->dir[d] : NULL;
}

/* cells of (outer, inner) counted into x: their packets and first frame */
static uint64_t
tun_cells(const struct ew_tunnel_dir *t, const uint8_t (*cell)[2], int n, struct ew_finding *x)
{
    int i;

    x->count = 0;
    x->first_frame = 0;
    for (i = 0; i < n; i++) {
        x->count += t->cell[cell[i][0]][cell[i][1]];
        if (t->cell[cell[i][0]][cell[i][1]])
            x->first_frame = min_frame(x->first_frame, t->cell_first[cell[i][0]][cell[i][1]]);
    }
    return x->count;
}

static const char *
tun_type(const struct ew_tunnel_dir *t)
{
    return ew_tunnel_name[t->layer[t->ecn_layer].type];
}

/* ECT or CE inside, Not-ECT outside: the ingress did not copy the field
 * (RFC 6040's compatibility mode, or a pre-RFC 3168 tunnel), or the outer
 * field was cleared before this point. Either way the queues after this
 * point see a packet that is not ECN-capable: they drop it where they would
 * have marked it. What this point saw is certain; who cleared it is not
 * said. */
static bool
c_tun_not_propagated(const struct ctx *c, int d, struct ew_finding *x)
{
    static const uint8_t cells[3][2] = {{EW_ECN_NOT_ECT, EW_ECN_ECT_0},
                                        {EW_ECN_NOT_ECT, EW_ECN_ECT_1},
                                        {EW_ECN_NOT_ECT, EW_ECN_CE}};
    const struct ew_tunnel_dir *t = tun_dir(c, d);
    uint64_t ect, all;

    if (!t || !tun_cells(t, cells, 3, x))
        return false;
    ect = t->cell[EW_ECN_ECT_0][EW_ECN_ECT_0] + t->cell[EW_ECN_ECT_1][EW_ECN_ECT_1] +
          t->cell[EW_ECN_CE][EW_ECN_CE] + t->cell[EW_ECN_ECT_0][EW_ECN_CE] +
          t->cell[EW_ECN_CE][EW_ECN_ECT_0] + t->cell[EW_ECN_CE][EW_ECN_ECT_1] +
          t->cell[EW_ECN_ECT_1][EW_ECN_CE] + t->cell[EW_ECN_ECT_0][EW_ECN_ECT_1] +
          t->cell[EW_ECN_ECT_1][EW_ECN_ECT_0];
    all = x->count + ect;
    return say(x,
               "%" PRIu64 " of %" PRIu64 " ECN-capable packets from the %s cross %s under a Not-ECT "
               "outer header, so the tunnel's queues drop them instead of marking: %s",
               x->count, all, dname(c, d), tun_type(t),
               ect ? "the outer field is cleared for some (on the way, or by one of several "
                     "ingresses)"
                   : "the ingress does not copy ECN outward, or the field is cleared before this "
                     "point");
}

/* An ECN-capable or CE outer header over a Not-ECT packet: the ingress
 * made it look ECN-capable to the underlay (a normal-mode ingress copies
 * Not-ECT), and where a queue marked it CE, a compliant egress drops it. */
static bool
c_tun_ect_over_not_ect(const struct ctx *c, int d, struct ew_finding *x)
{
    static const uint8_t cells[3][2] = {{EW_ECN_ECT_0, EW_ECN_NOT_ECT},
                                        {EW_ECN_ECT_1, EW_ECN_NOT_ECT},
                                        {EW_ECN_CE, EW_ECN_NOT_ECT}};
    const struct ew_tunnel_dir *t = tun_dir(c, d);
    uint64_t ce;

    if (!t || !tun_cells(t, cells, 3, x))
        return false;
    ce = t->cell[EW_ECN_CE][EW_ECN_NOT_ECT];
    return say(x,
               "%" PRIu64 " Not-ECT packet%s from the %s cross %s under an ECN-capable outer "
               "header%s: the underlay marks where it should drop them%s",
               x->count, x->count == 1 ? "" : "s", dname(c, d), tun_type(t),
               ce ? " (some already CE)" : "",
               ce ? ", and the tunnel egress must drop those marked CE or the congestion signal is "
                    "lost"
                  : "; the tunnel egress must then drop those it finds marked CE");
}

/* CE inside, ECT(1) outside: the outer copy of a congestion mark turned
 * ECT(1); CE never changes on the way (RFC 6040's (!!!) cell). */
static bool
c_tun_ect1_over_ce(const struct ctx *c, int d, struct ew_finding *x)
{
    static const uint8_t cells[1][2] = {{EW_ECN_ECT_1, EW_ECN_CE}};
    const struct ew_tunnel_dir *t = tun_dir(c, d);

    if (!t || !tun_cells(t, cells, 1, x))
        return false;
    return say(x,
               "%" PRIu64 " CE packet%s from the %s cross %s under an ECT(1) outer header: the "
               "outer copy of a congestion mark was changed, which no ingress or queue may do",
               x->count, x->count == 1 ? "" : "s", dname(c, d), tun_type(t));
}

/* ECT(1) inside, ECT(0) outside: the ingress did not copy ECT(1), or the
 * underlay changed it; an L4S packet travels the tunnel as classic
 * traffic (RFC 6040's (!) cell: possibly dangerous). */
static bool
c_tun_ect0_over_ect1(const struct ctx *c, int d, struct ew_finding *x)
{
    static const uint8_t cells[1][2] = {{EW_ECN_ECT_0, EW_ECN_ECT_1}};
    const struct ew_tunnel_dir *t = tun_dir(c, d);

    if (!t || !tun_cells(t, cells, 1, x))
        return false;
    return say(x,
               "%" PRIu64 " ECT(1) packet%s from the %s cross %s under an ECT(0) outer header: "
               "the ingress does not copy ECT(1), or the underlay changed it, so the tunnel's "
               "queues treat L4S packets as classic ones",
               x->count, x->count == 1 ? "" : "s", dname(c, d), tun_type(t));
}

/* ------------------------------------------------------------ the table */

/* where a rule looks, and which direction its finding is on */
enum where {
    AT_SYN,       /* TCP, once: the client's handshake; finding on client -> server */
    AT_SYNACK,    /* TCP, once: the server's handshake; finding on server -> client */
    AT_DATA,      /* TCP, each direction d: d's packets and the feedback on them; finding on d */
    AT_FEEDBACK,  /* TCP, each direction d: the feedback on d as sent; finding on d ^ 1, its sender */
    AT_OTHER,     /* other transports, each direction d; finding on d */
    AT_TUNNEL,    /* any transport, each direction d of a tunnelled flow; finding on d */
};

/* how sure a finding is */
enum conf_rule {
    CONF_CERTAIN,     /* from any vantage */
    CONF_LIKELY,      /* from any vantage, another explanation remains */
    CONF_AT_SENDER,   /* certain where captured at d's sender, else likely */
    CONF_AT_RECEIVER, /* certain where captured at d's receiver, else likely */
    CONF_PAST_RECEIVER, /* certain unless captured at d's receiver, where the receiver's own
                         * report of what it was just seen to get is all that differs */
    CONF_OWN,         /* the condition decides (its comment says how) */
};

struct rule {
    enum ew_misuse_kind kind;
    enum where where;
    bool (*fires)(const struct ctx *c, int d, struct ew_finding *x);
    const char *ref;  /* the RFC section, as reports print it */
    const char *says; /* the sentence enforced (see below) */
    enum conf_rule conf;
};

/* In the table's order, which is the order findings are made in: it decides
 * between findings equal in frame, kind and direction (ew_misuse_find sorts
 * by those). The handshake rows come first, then the rows of each direction,
 * the client's direction index 0 before 1; other transports' rows walk both
 * directions one row at a time.
 *
 * `says`: in double quotes where it is the RFC's own sentence, checked against
 * the RFC's text; otherwise a paraphrase, after ecn-digest.md (§ given). */
static const struct rule rules[] = {
    /* -- the handshake */
    {EW_MU_ECN_FLAGS_REFLECTED, AT_SYNACK, c_flags_reflected, "RFC 9768 §3.1.2",
     "Table 2: a SYN-ACK repeating the SYN's 111 is a broken reflector, and the connection falls "
     "back to Not ECN (digest §4.2; RFC 3168 §6.1.1.2 for 011)",
     CONF_CERTAIN},
    {EW_MU_ACCECN_HANDSHAKE_VIOLATION, AT_SYNACK, c_accecn_code_unasked, "RFC 9768 §3.1.2",
     "the four AccECN SYN-ACK codes must not be sent unless the SYN requested AccECN (digest §4.2)",
     CONF_CERTAIN},
    {EW_MU_ACCECN_HANDSHAKE_VIOLATION, AT_SYNACK, c_reserved_synack, "RFC 9768 §3.1.3",
     "a server must not send SYN-ACK 101 (digest §4.2)", CONF_CERTAIN},
    {EW_MU_ACCECN_HANDSHAKE_VIOLATION, AT_SYN, c_option_on_syn, "RFC 9768 §3.2.3.2",
     "the AccECN option is never sent on a SYN (digest §4.6)", CONF_CERTAIN},
    {EW_MU_ACCECN_HANDSHAKE_VIOLATION, AT_SYN, c_classic_and_accecn_syn, "RFC 9768 §3.1.5",
     "a host must not send both a classic (011) and an AccECN (111) SYN in one connection "
     "(digest §4.2)",
     CONF_CERTAIN},
    {EW_MU_ECT_ON_SYN, AT_SYN, c_ect_on_syn, "RFC 3168 §6.1.1",
     "\"A host MUST NOT set ECT on SYN or SYN-ACK packets.\"", CONF_AT_SENDER},
    {EW_MU_ECT_ON_SYN, AT_SYNACK, c_ect_on_synack, "RFC 3168 §6.1.1",
     "\"A host MUST NOT set ECT on SYN or SYN-ACK packets.\"", CONF_AT_SENDER},

    /* -- the AccECN handshake codes against what was seen sent: the SYN's
     * arrival (reported on the SYN-ACK), then the SYN-ACK's (on the third ACK) */
    {EW_MU_BLEACHING, AT_SYN, c_arrival_bleached, "RFC 9768 §3.2.2.3",
     "either ECT becoming Not-ECT is an invalid transition (digest §1.4)", CONF_PAST_RECEIVER},
    {EW_MU_REMARKING, AT_SYN, c_arrival_remarked, "RFC 9331 §5.1",
     "ECT(1) may change only to CE; ECT(0) must not become ECT(1) (digest §1.4, §5.5)",
     CONF_PAST_RECEIVER},
    {EW_MU_CE_UNMARKED, AT_SYN, c_arrival_ce_erased, "RFC 3168 §18.1.1",
     "\"Replacing the CE codepoint with the ECT(0) or ECT(1) codepoint effectively erases the "
     "congestion indication.\"",
     CONF_PAST_RECEIVER},
    {EW_MU_CE_ON_NOT_ECT, AT_SYN, c_arrival_ce_on_not_ect, "RFC 3168 §5",
     "a router sets CE instead of dropping only \"if the ECT codepoint is set in that packet's "
     "IP header\"",
     CONF_PAST_RECEIVER},
    {EW_MU_ECT_ON_NOT_ECT, AT_SYN, c_arrival_ect_on_not_ect, "RFC 3168 §18.1.4",
     "\"This change would incorrectly label a packet as ECN-Capable.\"", CONF_PAST_RECEIVER},
    {EW_MU_BLEACHING, AT_SYNACK, c_arrival_bleached, "RFC 9768 §3.2.2.3",
     "either ECT becoming Not-ECT is an invalid transition (digest §1.4)", CONF_PAST_RECEIVER},
    {EW_MU_REMARKING, AT_SYNACK, c_arrival_remarked, "RFC 9331 §5.1",
     "ECT(1) may change only to CE; ECT(0) must not become ECT(1) (digest §1.4, §5.5)",
     CONF_PAST_RECEIVER},
    {EW_MU_CE_UNMARKED, AT_SYNACK, c_arrival_ce_erased, "RFC 3168 §18.1.1",
     "\"Replacing the CE codepoint with the ECT(0) or ECT(1) codepoint effectively erases the "
     "congestion indication.\"",
     CONF_PAST_RECEIVER},
    {EW_MU_CE_ON_NOT_ECT, AT_SYNACK, c_arrival_ce_on_not_ect, "RFC 3168 §5",
     "a router sets CE instead of dropping only \"if the ECT codepoint is set in that packet's "
     "IP header\"",
     CONF_PAST_RECEIVER},
    {EW_MU_ECT_ON_NOT_ECT, AT_SYNACK, c_arrival_ect_on_not_ect, "RFC 3168 §18.1.4",
     "\"This change would incorrectly label a packet as ECN-Capable.\"", CONF_PAST_RECEIVER},

    /* -- each direction's data, and the feedback on it */
    {EW_MU_ECT_WITHOUT_NEGOTIATION, AT_DATA, c_ect_without_negotiation, "RFC 3168 §6.1.1",
     "\"A host MUST NOT set ECT on data packets unless it has sent at least one ECN-setup SYN or "
     "ECN-setup SYN-ACK packet, and has received at least one [...]\"",
     CONF_AT_SENDER},
    {EW_MU_CE_ON_NOT_ECT, AT_DATA, c_ce_on_not_ect, "RFC 3168 §5",
     "a router sets CE instead of dropping only \"if the ECT codepoint is set in that packet's "
     "IP header\"",
     CONF_OWN},
    {EW_MU_BLEACHING, AT_DATA, c_bleached_by_counters, "RFC 9768 §3.2.2.3",
     "either ECT becoming Not-ECT is an invalid transition (digest §1.4)", CONF_CERTAIN},
    {EW_MU_REMARKING, AT_DATA, c_ect1_to_ect0_by_counters, "RFC 9331 §5.1",
     "ECT(1) may change only to CE (digest §1.4)", CONF_CERTAIN},
    {EW_MU_REMARKING, AT_DATA, c_ect0_to_ect1_by_counters, "RFC 9331 §5.1",
     "ECT(0) turned ECT(1) wrongly moves classic traffic into the L4S queue (digest §1.4); an "
     "SCE AQM does it by design, hence likely",
     CONF_LIKELY},
    {EW_MU_REMARKING, AT_DATA, c_ect1_runs, "RFC 9331 §5.1",
     "ECT(0) turned ECT(1) wrongly moves classic traffic into the L4S queue (digest §1.4)",
     CONF_LIKELY},
    {EW_MU_REMARKING, AT_DATA, c_ect1_runs_unechoed, "RFC 9331 §5.1",
     "ECT(0) turned ECT(1) wrongly moves classic traffic into the L4S queue (digest §1.4); with "
     "no ESCE echo no SCE receiver uses it (digest §6.5)",
     CONF_LIKELY},
    {EW_MU_BLEACHING, AT_DATA, c_all_not_ect, "RFC 3168 §18.1.1",
     "turning ECT off disables ECN-capability on the way (§18.1.3; digest §8.4 row 1: weak "
     "where the sender is not seen)",
     CONF_LIKELY},
    {EW_MU_ECT_ON_CONTROL, AT_DATA, c_ect_on_pure_acks, "RFC 3168 §6.1.4",
     "\"pure acknowledgement packets (e.g., packets that do not contain any accompanying data) "
     "MUST be sent with the not-ECT codepoint.\"",
     CONF_AT_SENDER},
    {EW_MU_ECT_ON_CONTROL, AT_DATA, c_ect_on_retransmissions, "RFC 3168 §6.1.5",
     "\"ECN-capable TCP implementations MUST NOT set either ECT codepoint (ECT(0) or ECT(1)) in "
     "the IP header for retransmitted data packets\"",
     CONF_AT_SENDER},
    {EW_MU_ECT1_WITHOUT_L4S, AT_DATA, c_ect1_without_l4s, "RFC 8311 §4.2",
     "ECT(1) is for experiments such as L4S, whose senders need accurate feedback (digest §5.5)",
     CONF_AT_SENDER},
    {EW_MU_FEEDBACK_MISSING, AT_DATA, c_ce_not_echoed, "RFC 3168 §6.1.3",
     "\"When TCP receives a CE data packet at the destination end-system, the TCP data receiver "
     "sets the ECN-Echo flag in the TCP header of the subsequent ACK packet.\"",
     CONF_AT_RECEIVER},
    {EW_MU_FEEDBACK_MISSING, AT_DATA, c_ace_under_reports, "RFC 9768 §3.2.2",
     "the receiver feeds back r.cep, its count of CE packets, in ACE on every segment (digest "
     "§4.4, §4.5)",
     CONF_OWN},
    {EW_MU_ECE_IGNORED, AT_DATA, c_ece_ignored, "RFC 3168 §6.1.2",
     "\"the TCP sender sets the CWR flag in the TCP header of the first new data packet sent "
     "after the window reduction.\"",
     CONF_AT_SENDER},
    {EW_MU_ECE_HELD, AT_DATA, c_ece_held, "RFC 3168 §6.1.3",
     "\"After the receipt of the CWR packet, acknowledgments for subsequent non-CE data packets "
     "do not have the ECN-Echo flag set.\"",
     CONF_AT_RECEIVER},
    {EW_MU_ACCECN_ACE_ZEROED, AT_FEEDBACK, c_ace_zeroed, "RFC 9768 §3.2.2.4",
     "ACE 0 on the first feedback after the handshake shows a broken peer or a mangled header "
     "(digest §4.5); certain only where the ACE is seen leaving the peer",
     CONF_AT_RECEIVER},
    {EW_MU_ACCECN_OPTION_MANGLED, AT_FEEDBACK, c_option_zeroed, "RFC 9768 §3.2.3.2.4",
     "a zeroed option is ignored (digest §4.6); counters only grow (§3.2), so a field back at 0 "
     "was zeroed; from one capture point, likely",
     CONF_LIKELY},
    {EW_MU_ACCECN_OPTION_MANGLED, AT_FEEDBACK, c_option_disagrees, "RFC 9768 §3.2.3.2.5",
     "s.ceb increasing without s.cep, no other explanation: the sender must stop sending ECT "
     "(digest §4.6)",
     CONF_LIKELY},

    /* -- other transports */
    {EW_MU_CE_ON_NOT_ECT, AT_OTHER, c_ce_on_not_ect_any, "RFC 3168 §5",
     "a router sets CE instead of dropping only \"if the ECT codepoint is set in that packet's "
     "IP header\"",
     CONF_OWN},
    {EW_MU_QUIC_ECN_VALIDATION_FAILED, AT_OTHER, c_quic_validation_failed, "RFC 9000 §13.4.2.1",
     "an ACK fails validation when the ECT(0) and CE counts grow less than the ECT(0) packets it "
     "newly acknowledges, or lacks counts (digest §7.3); then \"the endpoint MUST disable ECN\" "
     "(§13.4.2.2)",
     CONF_OWN},

    /* -- tunnels: the outer header nearest the packet against its own */
    {EW_MU_TUNNEL_ECN_NOT_PROPAGATED, AT_TUNNEL, c_tun_not_propagated, "RFC 6040 §4.1",
     "a normal-mode ingress copies the inner ECN field to the outer header; compatibility mode "
     "sets it Not-ECT, which leaves the tunnel's queues nothing to mark (digest §1.5; RFC 9601 "
     "§4 for a legacy ingress)",
     CONF_CERTAIN},
    {EW_MU_TUNNEL_ECN_UNSAFE_COMBINATION, AT_TUNNEL, c_tun_ect_over_not_ect, "RFC 6040 §4.2",
     "an ECT or CE outer header over a Not-ECT inner one is a combination the egress table marks "
     "(!!!): \"always potentially dangerous\"; CE over Not-ECT is dropped (digest §1.5)",
     CONF_CERTAIN},
    {EW_MU_TUNNEL_ECN_UNSAFE_COMBINATION, AT_TUNNEL, c_tun_ect1_over_ce, "RFC 6040 §4.2",
     "an ECT(1) outer header over a CE inner one is marked (!!!) in the egress table (digest "
     "§1.5)",
     CONF_CERTAIN},
    {EW_MU_TUNNEL_ECN_UNSAFE_COMBINATION, AT_TUNNEL, c_tun_ect0_over_ect1, "RFC 6040 §4.2",
     "an ECT(0) outer header over an ECT(1) inner one is marked (!) in the egress table: "
     "possibly dangerous (digest §1.5)",
     CONF_LIKELY},
};

/* ------------------------------------------------------------ the engine */

static enum ew_confidence
confidence(const struct ctx *c, enum conf_rule r, int d)
{
    switch (r) {
    case CONF_LIKELY:
        return EW_CONF_LIKELY;
    /* a feedback mode inferred without the handshake rests on the absence
     * of AccECN signs: never certain then */
    case CONF_AT_SENDER:
        return at_sender(c, d) && !c->v->neg_inferred ? EW_CONF_CERTAIN : EW_CONF_LIKELY;
    case CONF_AT_RECEIVER:
        return at_receiver(c, d) && !c->v->neg_inferred ? EW_CONF_CERTAIN : EW_CONF_LIKELY;
    case CONF_PAST_RECEIVER:
        return at_receiver(c, d) ? EW_CONF_LIKELY : EW_CONF_CERTAIN;
    case CONF_CERTAIN:
    case CONF_OWN:
        break;
    }
    return EW_CONF_CERTAIN;
}

/* one row on direction d: the finding is made in the next free slot and kept
 * if the rule fires */
static void
apply(struct ctx *c, const struct rule *r, int d)
{
    struct ew_finding *x;

    if (c->n >= c->room)
        return;
    x = &c->out[c->n];
    x->kind = r->kind;
    x->dir = r->where == AT_FEEDBACK ? d ^ 1 : d;
    x->first_frame = 0;
    x->count = 0;
    x->confidence = confidence(c, r->conf, d);
    x->ref = r->ref;
    if (!r->fires(c, d, x))
        return;
    /* nothing is certain from a flow whose handshake was not captured, or
     * that holds packets that may be copies
     * (what a tunnel's outer and inner headers show does not rest on the
     * handshake, nor on which copy of a packet was counted) */
    if (r->where != AT_TUNNEL && (c->v->neg_inferred || ew_infer_copies_left(c->f)))
        x->confidence = EW_CONF_LIKELY;
    if (!x->first_frame)
        x->first_frame = c->f->first_frame; /* never 0: the flow's first */
    if (!x->count)
        x->count = 1;
    c->n++;
}

static int
cmp_finding(const void *a, const void *b)
{
    const struct ew_finding *x = a, *y = b;

    if (x->first_frame != y->first_frame)
        return x->first_frame < y->first_frame ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return (x->dir > y->dir) - (x->dir < y->dir);
}

/* any ECT or CE packet, or any ECE, CWR or AE bit, in either direction */
static bool
tcp_has_ecn(const struct ew_flow *f)
{
    int d;

    for (d = 0; d < 2; d++) {
        const struct ew_dir_stats *x = &f->dir[d];

        if (x->ecn[EW_ECN_ECT_0] || x->ecn[EW_ECN_ECT_1] || x->ecn[EW_ECN_CE] || x->ece ||
            x->cwr || x->ae)
            return true;
    }
    return false;
}

size_t
ew_misuse_find(const struct ew_flow *f, const struct ew_flow_verdict *v, struct ew_finding *out,
               size_t room)
{
    struct ctx c = {.f = f, .v = v, .quic = NULL, .out = out, .n = 0, .room = room};
    const size_t nrules = sizeof(rules) / sizeof(rules[0]);
    size_t i;
    int d;

    if (f->tun)
        for (i = 0; i < nrules; i++)
            if (rules[i].where == AT_TUNNEL)
                for (d = 0; d < 2; d++)
                    apply(&c, &rules[i], d);
    if (f->key.l4 == EW_L4_TCP) {
        int c2s = f->client_dir;

        /* every other rule needs an ECN codepoint or an ECN header bit
         * somewhere on the flow: a flow with neither (most non-ECN flows)
         * has none to find, and the 36 rows are not walked for it */
        if (!tcp_has_ecn(f))
            goto done;

        for (i = 0; i < nrules; i++)
            if (rules[i].where == AT_SYN || rules[i].where == AT_SYNACK)
                apply(&c, &rules[i], rules[i].where == AT_SYN ? c2s : c2s ^ 1);
        for (d = 0; d < 2; d++)
            for (i = 0; i < nrules; i++)
                if (rules[i].where == AT_DATA || rules[i].where == AT_FEEDBACK)
                    apply(&c, &rules[i], d);
    } else {
        struct ew_quic_summary q;

        if (ew_quic_conclude(f, &q))
            c.quic = &q;
        for (i = 0; i < nrules; i++)
            if (rules[i].where == AT_OTHER)
                for (d = 0; d < 2; d++)
                    apply(&c, &rules[i], d);
    }
done:
    qsort(out, c.n, sizeof(*out), cmp_finding);
    return c.n;
}

int
ew_misuse_parse_list(const char *list, uint32_t *mask, char *bad, size_t badlen)
{
    const char *p = list;

    *mask = 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        int k;
        bool found = false;

        if (len == 3 && !strncmp(p, "any", 3)) {
            *mask = (1u << EW_MU_COUNT) - 1;
            found = true;
        }
        for (k = 0; !found && k < EW_MU_COUNT; k++) {
            if (strlen(ew_misuse_name[k]) == len && !strncmp(p, ew_misuse_name[k], len)) {
                *mask |= 1u << k;
                found = true;
            }
        }
        if (!found) {
            snprintf(bad, badlen, "%.*s", (int)(len > 64 ? 64 : len), p);
            return -1;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return *mask ? 0 : -1;
}
