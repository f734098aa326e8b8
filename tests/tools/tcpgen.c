/* tcpgen.c - writes protocol-faithful TCP conversations with ECN feedback
 * that a stock Linux stack cannot produce: DCTCP echo, SCE receivers with
 * ESCE, Prague-like ECT(1) senders with AccECN feedback, and the L4S/SCE
 * conflicts; also RFC 3168, AccECN and non-ECN for reference.
 *
 *   tcpgen SCHEME VANTAGE OUT [--seed N] [--segments N] [--skip N]
 *
 * SCHEME: notecn classic dctcp accecn prague sce l4s-into-sce sce-on-accecn
 * VANTAGE: sender (capture at the data sender: data as sent, ACKs as they
 * arrive) or receiver (data as it arrives after the AQM, ACKs as sent).
 * --skip N leaves out the first N packets, as a capture started mid-flow.
 * --qdelay MS sets the standing queue the data meets at the AQM (it builds up
 * over the first 40 segments; marks only come once it has); by default 6 ms
 * for classic schemes and 0.8 ms for DCTCP and Prague.
 * --mark-p P sets the AQM's marking probability once the queue is up (a
 * classic AQM's: it marks in the upper half of the queue's breathing only,
 * at twice P, as an AQM marks when its queue is long).
 * --ts 1 puts RFC 7323 timestamps on every segment (1 ms clocks; a receiver
 * echoes the earliest unacknowledged segment's TSval, RFC 7323 §4.3).
 * --gap MS spaces the data segments MS apart (default 0.5 ms: 23 Mbit/s);
 * at 2.4 ms a segment, as on a 5 Mbit/s link.
 * --pair dualq|single writes two flows at once through one bottleneck, a
 * Prague-like ECT(1) flow and a classic ECT(0) flow: a DualQ (the L4S flow
 * at 0.8 ms, marked often; the classic flow at 12 ms, marked rarely) or one
 * shared queue (both waiting in one queue that rises from 5 to 11 ms and back
 * every 600 ms, marked alike above its 8 ms target).
 * --fault F breaks one rule, for the misuse tests: reflect (the SYN-ACK
 * repeats the SYN's ECN flags), synack101 (the reserved AccECN code),
 * synopt (an AccECN option on the SYN), ectsyn (an ECT(0) classic SYN),
 * ectack (ECT on a classic receiver's pure ACKs), noecho (the receiver never
 * sets ECE), nocwr (the sender never sets CWR), holdece (the receiver's ECE
 * latch ignores CWR: once set it stays set), zeroopt (the first AccECN
 * option carries EE0B = 0), zeroace (ACE 0 on the first feedback),
 * remark01 (a device after the AQM rewrites ECT(0) to ECT(1) on every other
 * run of 20 data segments from the 60th on; the receiver echoes no ESCE),
 * --ce-burst N (dctcp): the step AQM marks bursts of N segments, every 200
 * segments once the queue stands, the first followed 10 segments later by a
 * burst of 2: with N = 60 (30 ms, more than the 20 ms round trip) the
 * sender's CWR falls inside every long ECE run, while the one short run
 * clears with no CWR (the sender reduces at most once per round trip).
 * zeroopt-path (a device on the path zeroes every fourth AccECN option of
 * the receiver after the first ten: seen zeroed only at the data sender).
 * --prerfc makes the AccECN endpoints pre-RFC ones, as the 2021 L4S kernel
 * of the heistp field captures: the experimental option 254 with ExID
 * 0xACC0 (RFC 6994; EE0B, ECEB, EE1B) and counters EE0B 1, ECEB 0, EE1B 0
 * on the SYN-ACK and after (RFC 9768 §3.2.1 starts EE1B at 1).
 * --ect0-prefix N sends the first data segment with N bytes, ECT(0): an
 * application's first write before it turned the socket L4S (iperf3's
 * 37-byte cookie on the heistp Prague capture); the handshake is Not-ECT then.
 * --ect1-syn sends the SYN and SYN-ACK ECT(1) whatever the data carries (a
 * congestion control asking for ECT(1) negotiation, digest §1.3).
 * --ack-ect1 sends the receiver's pure ACKs ECT(1) (an L4S receiver).
 * --jitter MS adds delay that is not queueing, after the AQM: every data
 * segment (and the FIN) waits a further time drawn uniformly in [MS/2,
 * 3MS/2] (netem "delay MS MS/2") from a generator of its own, so the AQM
 * marks as it does without it. The link keeps the order (netem with a pfifo
 * child): a segment drawn to arrive before the one ahead of it leaves 12 us
 * after that one, so with MS well above --gap the delays bunch towards the
 * top of the range. The RTT at the sender then varies by up to MS, and not
 * with the marks.
 * --slot MS holds the data after the AQM and releases it in bursts (netem
 * "slot"): each segment at the next multiple of MS from the flow's SYN,
 * 12 us apart in a burst; the marks are as without it.
 * --pair fq: the two flows through flow queueing (fq_codel, 5 ms target),
 * each in a queue of its own whose delay moves on its own between 2 and
 * 12 ms (the L4S flow's a 1 s triangle, the classic flow's a 2.7 s sawtooth
 * at another phase: uncorrelated over the default 5 s); each queue marks CE
 * on any ECT, ECT(1) as ECT(0), with probability 0.05 (--mark-p) while its
 * delay is above 5 ms. Both flows send alike (equal throughput).
 * --pair fifo: one drop-tail FIFO, no AQM: no CE, no ECE, ACE stays 5. The
 * classic flow fills a 200 ms buffer over its first 1.5 s, then the queue
 * saws between 150 and 200 ms (2 s period); at each peak the first segment
 * of each flow is tail-dropped and fast-retransmitted on the third duplicate
 * ACK (the classic sender's retransmission Not-ECT, then CWR on its next new
 * segment, RFC 3168 §6.1.2; the L4S sender's ECT(1)). The L4S flow joins
 * 3 s later by default (--stagger), into the standing queue from its SYN on.
 * The modelled queues (fq, fifo, single with --stagger) delay the SYN and
 * the handshake's last ACK too.
 * --stagger SEC (any --pair): the L4S flow's SYN SEC seconds after the
 * classic flow's, both ending together. The link carries two segments a
 * --gap: the classic flow alone sends at that rate, then the two share it,
 * alike (dualq, fq, fifo) or the L4S flow 3.5 times the classic flow's
 * (single). With --pair single, the queue is then one process both flows
 * see at the same moment: 5 to 8 ms while the classic flow is alone, and
 * from the L4S flow's SYN on (150 ms to get there) a sawtooth between 0.5
 * and 2 ms (500 ms period) about a 1 ms CoDel target, marking either flow
 * with probability 0.03 (--mark-p) while above it.
 * With --pair fq or fifo or with --stagger, --gap defaults to 1 ms (each
 * flow's spacing while both send) and --segments (the L4S flow's segments)
 * to 5 s of the L4S flow; without --stagger, the classic flow sends as many.
 * --capture-loss P: the capture point misses each packet with probability P
 * (0 < P < 1; drawn from a generator of its own, one draw a packet); the
 * conversation is unchanged (IP IDs included), only the file loses packets.
 * --capture-loss-dir data|acks|both (default both) limits the misses to the
 * data sender's packets or to the receiver's.
 * --capture-dup writes every packet twice, the copy 10 us later (a mirror
 * port that duplicates); --capture-dup-some N only every N-th written one.
 * --sender-ce (notecn): the sender sets CE itself on every data segment from
 * the first; no ECN negotiated, nothing ECT, the ACKs Not-ECT.
 *
 * The model: the client sends --segments data segments of 1448 bytes, paced
 * 0.5 ms apart, across a path of 10 ms each way with an AQM in the middle.
 * The AQM marks per scheme from a seeded generator (fixed default seed). The
 * receiver feeds back as its scheme's specification says:
 *   RFC 3168 §6.1.3 latch; RFC 8257 §3.2 DCTCP echo with paired ACKs;
 *   RFC 9768 §3.2 ACE and AccECN option (kind 174); SCE: classic ECE/CWR
 *   for CE plus ESCE (the former NS bit) on ACKs covering ECT(1) arrivals,
 *   with immediate ACKs at ECT(0)/ECT(1) changes.
 * The sender sets CWR on its first new segment after an ECE ACK arrives
 * (RFC 3168 §6.1.2), at most once per RTT; AccECN senders never use CWR.
 * Addresses are from the documentation ranges; nothing is sent anywhere.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"

enum scheme { S_NOTECN, S_CLASSIC, S_DCTCP, S_ACCECN, S_PRAGUE, S_SCE, S_L4S_INTO_SCE, S_SCE_ON_ACCECN };
static const char *const scheme_names[] = {"notecn", "classic", "dctcp", "accecn", "prague",
                                           "sce", "l4s-into-sce", "sce-on-accecn"};

enum { NOT_ECT = 0, ECT1 = 1, ECT0 = 2, CE = 3 };
enum { F_FIN = 0x01, F_SYN = 0x02, F_RST = 0x04, F_PSH = 0x08, F_ACK = 0x10, F_ECE = 0x40, F_CWR = 0x80, F_AE = 0x100 };

#define MSS 1448
#define OWD_NS 10000000LL
#define GAP_NS 500000LL
#define SNAPLEN 128
/* a packet held behind another on a link that keeps the order leaves this
 * long after it (1500 bytes at 1 Gbit/s) */
#define SER_NS 12000LL
/* a copy from a mirror port that duplicates (--capture-dup) */
#define DUP_NS 10000LL

struct rec {
    int64_t ts;
    int from_client;
    uint8_t ecn;
    uint16_t flags;
    uint32_t seq, ack;
    uint32_t payload;
    bool accecn_opt;
    uint32_t e0b, ceb, e1b;
    bool mss_opt;
    bool ts_opt;    /* RFC 7323 timestamps: NOP, NOP, TS */
    uint32_t tsval, tsecr;
    uint16_t cport; /* the flow's client port */
    uint64_t order; /* creation order, to keep equal times stable */
};

static struct rec *recs;
static uint16_t cur_cport = 40000;
static size_t nrecs, caprecs;
static uint64_t order_ctr;

static void
emit(const struct rec *r)
{
    if (nrecs == caprecs) {
        caprecs = caprecs ? caprecs * 2 : 1024;
        recs = realloc(recs, caprecs * sizeof(*recs));
        if (!recs) {
            perror("tcpgen");
            exit(1);
        }
    }
    recs[nrecs] = *r;
    recs[nrecs].order = order_ctr++;
    recs[nrecs].cport = cur_cport;
    nrecs++;
}

static uint64_t rng_state;

/* xorshift64*: fixed seed, so the same arguments give the same file */
static double
rnd_from(uint64_t *st)
{
    *st ^= *st >> 12;
    *st ^= *st << 25;
    *st ^= *st >> 27;
    return (double)((*st * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

/* the network's generator: the AQM's marks */
static double
rnd(void)
{
    return rnd_from(&rng_state);
}

/* generators of their own, from the same seed, so that what they draw (the
 * jitter, the capture's losses) leaves the marks and the conversation as
 * they are without them */
static uint64_t jit_state, cap_state;

static uint64_t
seed_stream(uint64_t seed, uint64_t salt)
{
    /* splitmix64 of seed and salt: a state far from the marks' */
    uint64_t z = seed + salt * 0x9E3779B97F4A7C15ULL;

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return (z ^ (z >> 31)) | 1;
}

enum fault { F_NONE, F_REFLECT, F_SYNACK101, F_SYNOPT, F_ECTSYN, F_ECTACK, F_NOECHO, F_NOCWR,
             F_ZEROOPT, F_ZEROACE, F_REMARK01, F_ZEROOPT_PATH, F_HOLDECE };
static const char *const fault_names[] = {"none", "reflect", "synack101", "synopt", "ectsyn",
                                          "ectack", "noecho", "nocwr", "zeroopt", "zeroace",
                                          "remark01", "zeroopt-path", "holdece"};

/* the queue the data meets: QM_DEFAULT the per-flow model of generate();
 * the others (--pair fq, --pair single --stagger, --pair fifo) a delay that
 * is a function of the time a segment enters the queue (model_q) */
enum qmodel { QM_DEFAULT, QM_FQ, QM_SHARED, QM_FIFO, QM_ONE };

enum capdir { CAP_BOTH, CAP_DATA, CAP_ACKS };

struct cfg {
    enum scheme s;
    bool at_sender;
    int segments;
    int skip;
    enum fault fault;
    int64_t qdelay_ns; /* -1: the scheme's default */
    double mark_p;     /* < 0: the scheme's default */
    uint16_t cport;
    int64_t t_offset;
    bool prerfc;        /* pre-RFC AccECN: option 254 + ExID, EE1B from 0 */
    uint32_t ect0_prefix; /* bytes of a first ECT(0) write (0: none) */
    bool ect1_syn;
    bool ack_ect1;
    bool ts;          /* --ts: RFC 7323 timestamps on every segment */
    int64_t gap_ns;   /* --gap MS: time between data segments (the link rate) */
    int64_t jitter_ns; /* --jitter MS: a further delay after the AQM, in [MS/2, 3MS/2] */
    int64_t slot_ns;   /* --slot MS: released after the AQM at multiples of MS */
    bool sender_ce;    /* --sender-ce: the sender sets CE itself */
    enum qmodel qm;
    int qflow;         /* QM_FQ: whose queue (0 the L4S flow's, 1 the classic flow's) */
    int64_t qjoin_ns;  /* QM_SHARED: when the L4S flow joins the queue (absolute) */
    int64_t join_ns;   /* the classic flow sends at gap_alone_ns until then (absolute) */
    int64_t gap_alone_ns; /* 0: gap_ns throughout */
    int64_t end_ns;    /* the last data segment at or before it (absolute; 0: --segments) */
    double cap_loss;   /* --capture-loss P */
    enum capdir cap_dir;
    int cap_dup_every; /* --capture-dup (1) or --capture-dup-some N; 0: none */
};

/* a host's timestamp clock: 1 ms ticks, as Linux's */
static uint32_t
ts_clock(int64_t t)
{
    return (uint32_t)(t / 1000000);
}

/* the initial EE1B: RFC 9768 §3.2.1 starts it at 1, the 2021 L4S kernel at 0 */
static bool prerfc_opt;

static bool
is_accecn(enum scheme s)
{
    return s == S_ACCECN || s == S_PRAGUE || s == S_SCE_ON_ACCECN;
}

static bool
sce_receiver(enum scheme s)
{
    return s == S_SCE || s == S_L4S_INTO_SCE;
}

static uint8_t
sender_cp(enum scheme s)
{
    switch (s) {
    case S_NOTECN:
        return NOT_ECT;
    case S_PRAGUE:
    case S_L4S_INTO_SCE:
        return ECT1;
    default:
        return ECT0;
    }
}

/* the receiver's ACK codepoint: Linux AccECN and DCTCP put ECT on ACKs too */
static uint8_t
ack_cp(enum scheme s)
{
    return (is_accecn(s) || s == S_DCTCP) ? ECT0 : NOT_ECT;
}

/* AQM state: a two-state marking process per scheme */
struct aqm {
    bool run; /* inside a marking run */
};

static double mark_override = -1;
static int ce_burst;     /* --ce-burst: DCTCP bursts of this many segments */
static int burst_i;      /* segments the AQM has seen since the queue stood */

/* long: the breathing queue is in its upper half, where a classic AQM marks
 * (it marks when its queue is long: twice the probability there, none below) */
static uint8_t
aqm_mark(enum scheme s, struct aqm *q, uint8_t ecn, bool queue_up, bool long_q)
{
    if (!queue_up)
        return ecn; /* an AQM marks only once a queue stands */
    if (mark_override >= 0)
        return (ecn != NOT_ECT && long_q && rnd() < 2 * mark_override) ? CE : ecn;
    switch (s) {
    case S_CLASSIC:
    case S_ACCECN:
        return (ecn != NOT_ECT && long_q && rnd() < 0.06) ? CE : ecn;
    case S_DCTCP:
        if (ce_burst > 0) {
            int k = burst_i % 200;
            bool mark = k < ce_burst || (burst_i < 200 && k >= ce_burst + 10 && k < ce_burst + 12);

            burst_i++;

            return (mark && ecn != NOT_ECT) ? CE : ecn;
        }
        /* a step threshold: marks come in short runs as the queue crosses K */
        q->run = q->run ? rnd() < 0.6 : rnd() < 0.04;
        return (q->run && ecn != NOT_ECT) ? CE : ecn;
    case S_PRAGUE:
        /* DualQ L queue: frequent shallow CE on ECT(1) */
        return (ecn == ECT1 && rnd() < 0.12) ? CE : ecn;
    case S_SCE:
    case S_SCE_ON_ACCECN:
    case S_L4S_INTO_SCE:
        /* SCE AQM: ECT(0) -> ECT(1) in runs as the queue builds; rare CE */
        if (ecn != NOT_ECT && rnd() < 0.01)
            return CE;
        q->run = q->run ? rnd() < 0.85 : rnd() < 0.05;
        return (q->run && ecn == ECT0) ? ECT1 : ecn;
    default:
        return ecn;
    }
}

/* ------------------------------------------- the queues of --pair fq/fifo, --stagger */

/* the pairs' time origin: the first flow's SYN */
#define BASE_NS (1700000000LL * 1000000000LL)

/* a periodic shape of period p ms: from lo up to hi over the first `rise`
 * of each period, then back down to lo; `phase` in periods. x >= 0. Its
 * slopes stay far below 1 ms a ms, so that the queue never lets a segment
 * overtake the one before it. */
static double
saw(double x, double p, double rise, double lo, double hi, double phase)
{
    double f = x / p + phase;

    f -= (double)(int64_t)f;
    return f < rise ? lo + (hi - lo) * f / rise : hi - (hi - lo) * (f - rise) / (1 - rise);
}

/* --pair fifo: the drop-tail buffer of 200 ms, filled by the classic flow
 * over its first 1.5 s, then a loss-based sawtooth: at each peak (full) a
 * tail drop, the senders back off and the queue drains to 150 ms in 100 ms,
 * then fills again over 1.9 s */
#define FIFO_FILL_MS 1500.0
#define FIFO_PERIOD_MS 2000.0

static int64_t
fifo_peaks(int64_t t)
{
    double x = (double)(t - BASE_NS) / 1e6;

    return x < FIFO_FILL_MS ? 0 : 1 + (int64_t)((x - FIFO_FILL_MS) / FIFO_PERIOD_MS);
}

/* the queueing delay (ns) of a segment that enters the queue at time t */
static int64_t
model_q(const struct cfg *c, int64_t t)
{
    double x = (double)(t - BASE_NS) / 1e6, ms;

    if (x < 0)
        x = 0;
    switch (c->qm) {
    case QM_FQ: {
        /* fq_codel: each flow's own queue, on its own period and phase */
        double since = (double)(t - BASE_NS - c->t_offset) / 1e6;

        ms = c->qflow == 0 ? saw(x, 1000, 0.5, 2, 12, 0.0) : saw(x, 2700, 0.8, 2, 12, 0.85);
        if (since < 200)
            ms *= since > 0 ? since / 200 : 0; /* it builds up as the flow starts */
        break;
    }
    case QM_SHARED: {
        /* one CoDel queue (1 ms target) for both: the classic flow alone
         * holds it between 5 and 8 ms; from the L4S flow's arrival it sinks
         * in 150 ms to a sawtooth between 0.5 and 2 ms (a 500 ms period) */
        double j = (double)(c->qjoin_ns - BASE_NS) / 1e6;
        double alone = (x < 300 ? x / 300 : 1) * saw(x, 1000, 0.5, 5, 8, 0);
        double both = x >= j ? saw(x - j, 500, 0.9, 0.5, 2.0, 0) : 0;

        if (x < j)
            ms = alone;
        else if (x < j + 150)
            ms = alone + (both - alone) * (x - j) / 150;
        else
            ms = both;
        break;
    }
    case QM_ONE:
        /* --pair single without --stagger: one queue both flows wait in,
         * rising from 5 to 11 ms and back every 600 ms (a classic AQM's
         * sawtooth around its 8 ms target) */
        ms = (x < 30 ? x / 30 : 1) * saw(x, 600, 0.5, 5, 11, 0);
        break;
    case QM_FIFO:
        if (x < FIFO_FILL_MS) {
            ms = 200 * x / FIFO_FILL_MS;
        } else {
            double f = x - FIFO_FILL_MS;

            f -= FIFO_PERIOD_MS * (double)(int64_t)(f / FIFO_PERIOD_MS);
            ms = f < 100 ? 200 - 50 * f / 100 : 150 + 50 * (f - 100) / (FIFO_PERIOD_MS - 100);
        }
        break;
    default:
        ms = 0;
        break;
    }
    return (int64_t)(ms * 1e6);
}

/* the marks of those queues: CE on any ECT (ECT(1) as ECT(0)) while the
 * delay is above the CoDel target, with probability --mark-p; a FIFO none */
static uint8_t
model_mark(const struct cfg *c, uint8_t ecn, int64_t q)
{
    int64_t target = c->qm == QM_FQ ? 5000000 : c->qm == QM_ONE ? 8000000 : 1000000;
    double p = c->mark_p >= 0 ? c->mark_p : c->qm == QM_FQ ? 0.05 : 0.03;

    if (c->qm == QM_FIFO || ecn == NOT_ECT || q <= target)
        return ecn;
    return rnd() < p ? CE : ecn;
}

/* the time between a flow's data segments at time t */
static int64_t
gap_at(const struct cfg *c, int64_t t)
{
    return (c->gap_alone_ns && t < c->join_ns) ? c->gap_alone_ns : c->gap_ns;
}

/* after the AQM (--jitter, --slot): a segment that would reach the receiver
 * at `arr` is delayed by the jitter, held to the next slot from the flow's
 * start t0, and kept behind the segment before it (the order is kept) */
struct stage {
    int64_t last;
    bool any;
};

static int64_t
post_aqm(const struct cfg *c, struct stage *st, int64_t arr, int64_t t0)
{
    if (c->jitter_ns > 0)
        arr += c->jitter_ns / 2 + (int64_t)(rnd_from(&jit_state) * (double)c->jitter_ns);
    if (c->slot_ns > 0)
        arr = t0 + (arr - t0 + c->slot_ns - 1) / c->slot_ns * c->slot_ns;
    if (st->any && arr < st->last + SER_NS)
        arr = st->last + SER_NS;
    st->last = arr;
    st->any = true;
    return arr;
}

struct receiver {
    uint32_t rcv_nxt;
    int unacked;          /* segments since the last ACK */
    bool latched;         /* RFC 3168 ECE latch */
    bool dctcp_ce;        /* DCTCP.CE */
    bool prior_esce, queue_esce; /* SCE */
    uint32_t cep;         /* AccECN r.cep */
    uint32_t e0b, ceb, e1b;
    uint8_t prev_ecn;
    bool fed_back;        /* a feedback segment has been sent */
    unsigned opts;        /* AccECN options sent */
    uint32_t ts_recent;   /* RFC 7323 §4.3: TSval of the earliest segment not yet ACKed */
    bool hole;            /* --pair fifo: a segment was lost; rcv_nxt waits for it */
    uint32_t ooo_end;     /* the end of what arrived beyond the hole */
};

struct sender {
    bool cwr_pending;
    int64_t last_cwr_ts;
    uint32_t ts_recent;   /* the latest ACK's TSval */
    int64_t cwr_guard_ns; /* once per round trip: the round trip */
    /* --pair fifo: the one segment lost at a time, and the fast retransmit */
    bool lost;
    uint32_t lost_seq, lost_len, last_ack;
    int64_t lost_ts;
    int dups;
    bool rtx_due;
    int64_t rtx_at;       /* when the third duplicate ACK arrived */
};

static void
send_ack(const struct cfg *c, struct receiver *rv, int64_t t, uint32_t server_seq, bool esce_force)
{
    struct rec a = {0};
    enum scheme s = c->s;

    a.from_client = 0;
    a.flags = F_ACK;
    a.seq = server_seq;
    a.ack = rv->rcv_nxt;
    a.ecn = c->fault == F_ECTACK ? ECT0 : c->ack_ect1 ? ECT1 : ack_cp(s);
    if (is_accecn(s)) {
        uint32_t ace = rv->cep & 7;

        if (ace & 4)
            a.flags |= F_AE;
        if (ace & 2)
            a.flags |= F_CWR;
        if (ace & 1)
            a.flags |= F_ECE;
        a.accecn_opt = true;
        a.e0b = rv->e0b;
        a.ceb = rv->ceb;
        a.e1b = rv->e1b;
        if (!rv->fed_back && c->fault == F_ZEROOPT)
            a.e0b = 0;
        /* zeroed on the path: only the sender's side sees it */
        if (c->fault == F_ZEROOPT_PATH && c->at_sender && ++rv->opts > 10 && rv->opts % 4 == 0)
            a.e0b = a.ceb = a.e1b = 0;
        if (!rv->fed_back && c->fault == F_ZEROACE)
            a.flags = F_ACK;
        rv->fed_back = true;
    } else if (s != S_NOTECN) {
        bool ece = (s == S_DCTCP ? rv->dctcp_ce : rv->latched) && c->fault != F_NOECHO;

        if (ece)
            a.flags |= F_ECE;
        if (sce_receiver(s) && (rv->queue_esce || esce_force)) {
            a.flags |= F_AE;
            rv->queue_esce = false;
        }
    }
    a.ts_opt = c->ts;
    a.tsval = ts_clock(t);
    a.tsecr = rv->ts_recent;
    /* receiver-side time; the sender sees it one way later */
    a.ts = c->at_sender ? t + OWD_NS : t;
    emit(&a);
    rv->unacked = 0;
}

/* a data segment arrives at the receiver at time t with codepoint ecn */
static void
receive(const struct cfg *c, struct receiver *rv, int64_t t, uint32_t seq, uint32_t len,
        uint8_t ecn, bool cwr, uint32_t server_seq, uint32_t tsval)
{
    enum scheme s = c->s;
    bool immediate = false, ce = ecn == CE;

    /* RFC 7323 §4.3: not from a segment beyond a hole */
    if (rv->unacked == 0 && seq == rv->rcv_nxt)
        rv->ts_recent = tsval;

    if (s == S_DCTCP) {
        /* RFC 8257 §3.2: at a CE state change, ACK what came before with the old
         * state if an ACK was pending, then ACK at once with the new state */
        if (ce != rv->dctcp_ce) {
            if (rv->unacked > 0)
                send_ack(c, rv, t, server_seq, false);
            rv->dctcp_ce = ce;
            immediate = true;
        }
        if (cwr)
            rv->latched = false;
    } else if (is_accecn(s)) {
        if (ce) {
            rv->cep++;
            if (rv->prev_ecn != CE)
                immediate = true; /* change-triggered ACK, §3.2.2.5.1 */
        }
        if (ecn == ECT0)
            rv->e0b += len;
        else if (ecn == ECT1)
            rv->e1b += len;
        else if (ecn == CE)
            rv->ceb += len;
    } else if (s != S_NOTECN) {
        /* Errata 3639: CWR first, then CE re-arms the latch */
        if (cwr && c->fault != F_HOLDECE)
            rv->latched = false;
        if (ce && !rv->latched) {
            rv->latched = true;
            immediate = true;
        }
        if (sce_receiver(s)) {
            bool sce = ecn == ECT1;

            if (sce != rv->prior_esce && rv->unacked > 0) {
                send_ack(c, rv, t, server_seq, false);
                immediate = true;
            }
            if (sce) {
                rv->queue_esce = true;
                immediate = immediate || !rv->prior_esce;
            }
            rv->prior_esce = sce;
        }
    }
    rv->prev_ecn = ecn;
    if (c->qm == QM_FIFO && (rv->hole || seq != rv->rcv_nxt)) {
        /* a tail drop: what arrives beyond the hole, and what fills it, is
         * ACKed at once (RFC 5681 §4.2), the former with a duplicate ACK */
        if (seq == rv->rcv_nxt) {
            rv->rcv_nxt = rv->ooo_end;
            rv->hole = false;
        } else {
            if (!rv->hole || seq + len > rv->ooo_end)
                rv->ooo_end = seq + len;
            rv->hole = true;
        }
        rv->unacked++;
        send_ack(c, rv, t, server_seq, false);
        return;
    }
    rv->rcv_nxt = seq + len;
    rv->unacked++;
    if (immediate || rv->unacked >= 2)
        send_ack(c, rv, t, server_seq, false);
}

/* the sender learns of ECE when ACKs reach it */
static void
sender_sees_acks(const struct cfg *c, struct sender *sd, size_t *next_ack, int64_t now)
{
    while (*next_ack < nrecs) {
        struct rec *r = &recs[*next_ack];
        int64_t arrive = c->at_sender ? r->ts : r->ts + OWD_NS;

        if (r->from_client || r->cport != cur_cport) {
            (*next_ack)++;
            continue;
        }
        if (arrive > now)
            break;
        sd->ts_recent = r->tsval;
        if (!is_accecn(c->s) && c->fault != F_NOCWR && (r->flags & F_ECE) && !(r->flags & F_SYN) &&
            now - sd->last_cwr_ts > sd->cwr_guard_ns)
            sd->cwr_pending = true;
        /* the third duplicate ACK of a lost segment: retransmit it (RFC 5681 §3.2) */
        if (r->ack == sd->last_ack) {
            if (sd->lost && !sd->rtx_due && r->ack == sd->lost_seq && ++sd->dups == 3) {
                sd->rtx_due = true;
                sd->rtx_at = arrive;
            }
        } else {
            sd->last_ack = r->ack;
            sd->dups = 0;
        }
        (*next_ack)++;
    }
}

/* --pair fifo: the lost segment again at rt, from the data sender: Not-ECT
 * from the RFC 3168 sender (§6.1.5), ECT(1) from the L4S one (Linux sends a
 * Prague flow's retransmissions ECT) */
static void
retransmit(const struct cfg *c, struct sender *sd, struct receiver *rv, struct stage *st,
           int64_t rt, int64_t t0, uint32_t sseq)
{
    struct rec r;
    int64_t arr = rt + OWD_NS + model_q(c, rt);
    uint8_t cp = is_accecn(c->s) ? sender_cp(c->s) : NOT_ECT;

    if (c->jitter_ns > 0 || c->slot_ns > 0)
        arr = post_aqm(c, st, arr, t0);
    memset(&r, 0, sizeof(r));
    r.from_client = 1;
    r.flags = F_ACK | F_PSH;
    if (is_accecn(c->s))
        r.flags |= F_AE | F_ECE;
    r.seq = sd->lost_seq;
    r.ack = sseq;
    r.payload = sd->lost_len;
    r.ecn = cp;
    r.ts = c->at_sender ? rt : arr;
    r.ts_opt = c->ts;
    r.tsval = ts_clock(rt);
    r.tsecr = sd->ts_recent;
    emit(&r);
    receive(c, rv, arr, r.seq, r.payload, cp, false, sseq, r.tsval);
    sd->lost = sd->rtx_due = false;
    /* RFC 3168 §6.1.2: CWR on the first new data after a reduction "for any
     * reason", a fast retransmit's too */
    if (!is_accecn(c->s) && c->s != S_NOTECN && c->fault != F_NOCWR)
        sd->cwr_pending = true;
}

/* what generate() tells of a flow: when it sent its first and last data */
struct span {
    int64_t first, last;
};

static void
generate(const struct cfg *c, struct span *sp)
{
    enum scheme s = c->s;
    struct receiver rv = {0};
    struct sender sd = {.last_cwr_ts = -1000000000LL, .cwr_guard_ns = 2 * OWD_NS};
    struct aqm aq = {false};
    struct stage st = {0, false};
    /* the queues of --pair fq/fifo and --stagger; what comes after the AQM */
    bool modelled = c->qm != QM_DEFAULT, staged = c->jitter_ns > 0 || c->slot_ns > 0;
    uint32_t cseq = 1000, sseq = 50000;
    int64_t t0 = BASE_NS + c->t_offset, t;
    /* a modelled queue delays the SYN and the ACK of the SYN-ACK as well */
    int64_t hq = modelled ? model_q(c, t0) : 0, hq2;
    int64_t qd = c->qdelay_ns >= 0                       ? c->qdelay_ns
                 : (s == S_DCTCP || s == S_PRAGUE)        ? 800000
                 : s == S_NOTECN                          ? 0
                                                          : 6000000;
    int64_t last_arr = 0, last_t = 0, peaks = 0;
    uint8_t scp = c->sender_ce ? CE : sender_cp(s);
    uint8_t syn_cp = c->ect1_syn        ? ECT1
                     : c->ect0_prefix    ? NOT_ECT
                     : (s == S_DCTCP)    ? ECT0
                     : (s == S_PRAGUE)   ? ECT1
                                         : NOT_ECT;
    uint32_t e1b_init = c->prerfc ? 0 : 1;
    size_t next_ack = 0;
    struct rec r;
    int i;

    /* handshake: the flow's records from the first on */
    cur_cport = c->cport;
    memset(&r, 0, sizeof(r));
    r.from_client = 1;
    r.flags = F_SYN;
    if (s != S_NOTECN)
        r.flags |= F_ECE | F_CWR;
    if (is_accecn(s))
        r.flags |= F_AE;
    r.seq = cseq;
    r.ecn = c->fault == F_ECTSYN ? ECT0 : syn_cp;
    r.mss_opt = true;
    r.accecn_opt = c->fault == F_SYNOPT;
    r.e0b = r.e1b = 1;
    r.ts = c->at_sender ? t0 : t0 + OWD_NS + hq;
    r.ts_opt = c->ts;
    r.tsval = ts_clock(t0);
    emit(&r);

    memset(&r, 0, sizeof(r));
    r.from_client = 0;
    r.flags = F_SYN | F_ACK;
    if (is_accecn(s)) {
        /* RFC 9768 Table 2: the SYN-ACK reports the SYN's arriving IP-ECN */
        static const uint16_t code[4] = {[NOT_ECT] = F_CWR, [ECT1] = F_CWR | F_ECE,
                                          [ECT0] = F_AE, [CE] = F_AE | F_CWR};
        r.flags |= code[syn_cp];
        r.accecn_opt = true;
        r.e0b = 1;
        r.e1b = e1b_init;
    } else if (s != S_NOTECN) {
        r.flags |= F_ECE;
    }
    if (c->fault == F_REFLECT)
        r.flags = (uint16_t)(F_SYN | F_ACK | (recs[0].flags & (F_AE | F_CWR | F_ECE)));
    if (c->fault == F_SYNACK101)
        r.flags = F_SYN | F_ACK | F_AE | F_ECE;
    r.seq = sseq;
    r.ack = cseq + 1;
    r.ecn = syn_cp;
    r.mss_opt = true;
    r.ts = c->at_sender ? t0 + 2 * OWD_NS + hq : t0 + OWD_NS + hq;
    r.ts_opt = c->ts;
    r.tsval = ts_clock(t0 + OWD_NS + hq);
    r.tsecr = ts_clock(t0);
    emit(&r);

    memset(&r, 0, sizeof(r));
    r.from_client = 1;
    r.flags = F_ACK;
    if (is_accecn(s)) {
        /* §3.2.2.1: the ACK of the SYN-ACK reports the SYN-ACK's IP-ECN */
        static const uint16_t code[4] = {[NOT_ECT] = F_CWR, [ECT1] = F_CWR | F_ECE,
                                          [ECT0] = F_AE, [CE] = F_AE | F_CWR};
        r.flags |= code[syn_cp];
        r.accecn_opt = true;
        r.e0b = 1;
        r.e1b = e1b_init;
    }
    r.seq = cseq + 1;
    r.ack = sseq + 1;
    r.ecn = is_accecn(s) ? (c->ect0_prefix ? ECT0 : scp) : (s == S_DCTCP ? ECT0 : NOT_ECT);
    if (c->sender_ce)
        r.ecn = NOT_ECT; /* CE on the data only */
    hq2 = modelled ? model_q(c, t0 + 2 * OWD_NS + hq) : 0;
    r.ts = c->at_sender ? t0 + 2 * OWD_NS + hq : t0 + 3 * OWD_NS + hq + hq2;
    r.ts_opt = c->ts;
    r.tsval = ts_clock(t0 + 2 * OWD_NS + hq);
    r.tsecr = ts_clock(t0 + OWD_NS + hq);
    sd.ts_recent = r.tsecr;
    emit(&r);

    cseq += 1;
    sseq += 1;
    rv.rcv_nxt = cseq;
    rv.cep = 5;
    rv.e0b = 1;
    rv.e1b = e1b_init;
    rv.prev_ecn = NOT_ECT;
    prerfc_opt = c->prerfc;

    t = t0 + 2 * OWD_NS + hq + gap_at(c, t0 + 2 * OWD_NS + hq);
    if (sp)
        sp->first = t;
    if (c->qm == QM_FIFO)
        peaks = fifo_peaks(t);

    mark_override = c->mark_p;
    for (i = 0; c->end_ns ? t <= c->end_ns : i < c->segments; i++, t += gap_at(c, t)) {
        uint8_t arrived, cp = (i == 0 && c->ect0_prefix) ? ECT0 : scp;
        uint32_t len = (i == 0 && c->ect0_prefix) ? c->ect0_prefix : MSS;
        /* the standing queue builds over 40 segments, then breathes between 50
         * and 100% over 400 segments in small steps, so that packets never
         * overtake each other */
        int64_t q = modelled ? model_q(c, t)
                    : i < 40 ? qd * i / 40
                             : (int64_t)((double)qd * (0.5 + 0.5 * abs(i % 400 - 200) / 200.0));
        int64_t arr = t + OWD_NS + q;
        bool lost = false;

        sender_sees_acks(c, &sd, &next_ack, t);
        if (sd.rtx_due)
            retransmit(c, &sd, &rv, &st, sd.rtx_at > t - c->gap_ns / 2 ? sd.rtx_at : t - c->gap_ns / 2,
                       t0, sseq);
        if (c->qm == QM_FIFO) {
            /* the buffer full: the first segment after it fills is dropped */
            int64_t pk = fifo_peaks(t);

            lost = pk > peaks && !sd.lost;
            peaks = pk;
        }
        memset(&r, 0, sizeof(r));
        r.from_client = 1;
        r.flags = F_ACK | F_PSH;
        if (sd.cwr_pending) {
            r.flags |= F_CWR;
            sd.cwr_pending = false;
            sd.last_cwr_ts = t;
        }
        r.seq = cseq;
        r.ack = sseq;
        r.payload = len;
        r.ecn = cp;
        if (is_accecn(s)) {
            /* an AccECN sender keeps ACE at 5 (no CE from the server's side) */
            r.flags = (uint16_t)((r.flags & ~F_CWR) | F_AE | F_ECE);
        }
        arrived = modelled ? model_mark(c, cp, q)
                           : aqm_mark(s, &aq, cp, i >= 40 || qd == 0, abs(i % 400 - 200) >= 100);
        if (c->fault == F_REMARK01 && arrived == ECT0 && i >= 60 && (i / 20) % 2 == 1)
            arrived = ECT1; /* a remarking device after the AQM */
        if (staged && !lost)
            arr = post_aqm(c, &st, arr, t0);
        if (modelled || staged)
            sd.cwr_guard_ns = arr - t + OWD_NS; /* this segment's round trip */
        if (!c->at_sender)
            r.ecn = arrived;
        r.ts = c->at_sender ? t : arr;
        r.ts_opt = c->ts;
        r.tsval = ts_clock(t);
        r.tsecr = sd.ts_recent;
        last_t = t;
        if (lost) {
            /* seen where it was sent, never where it was going */
            sd.lost = true;
            sd.lost_seq = cseq;
            sd.lost_len = len;
            sd.lost_ts = t;
            if (c->at_sender)
                emit(&r);
            cseq += len;
            continue;
        }
        emit(&r);
        receive(c, &rv, arr, cseq, len, arrived, (r.flags & F_CWR) && !is_accecn(s), sseq,
                r.tsval);
        last_arr = arr;
        cseq += len;
    }
    if (sp)
        sp->last = last_t;
    if (sd.lost) {
        /* a drop among the last segments: the retransmission on the third
         * duplicate ACK if one came, else on a probe two round trips on */
        int64_t rt = sd.lost_ts + 2 * (2 * OWD_NS + model_q(c, sd.lost_ts));

        sender_sees_acks(c, &sd, &next_ack, INT64_MAX);
        if (sd.rtx_due)
            rt = sd.rtx_at;
        if (rt < t)
            rt = t;
        retransmit(c, &sd, &rv, &st, rt, t0, sseq);
        last_arr = st.any ? st.last : rt + OWD_NS + model_q(c, rt);
        t = rt;
    }
    if (modelled || staged) {
        /* the last odd segment's delayed ACK; the FIN through the same path */
        int64_t fin_arr = t + c->gap_ns + OWD_NS + (modelled ? model_q(c, t + c->gap_ns) : qd);

        if (rv.unacked)
            send_ack(c, &rv, last_arr + c->gap_ns, sseq, false);
        if (staged)
            fin_arr = post_aqm(c, &st, fin_arr, t0);
        memset(&r, 0, sizeof(r));
        r.from_client = 1;
        r.flags = F_FIN | F_ACK;
        r.seq = cseq;
        r.ack = sseq;
        r.ecn = NOT_ECT;
        r.ts = c->at_sender ? t + c->gap_ns : fin_arr;
        r.ts_opt = c->ts;
        r.tsval = ts_clock(t + c->gap_ns);
        r.tsecr = sd.ts_recent;
        emit(&r);
        return;
    }
    if (rv.unacked)
        send_ack(c, &rv, t + OWD_NS + qd, sseq, false);

    /* close */
    memset(&r, 0, sizeof(r));
    r.from_client = 1;
    r.flags = F_FIN | F_ACK;
    r.seq = cseq;
    r.ack = sseq;
    r.ecn = NOT_ECT;
    r.ts = c->at_sender ? t + c->gap_ns : t + c->gap_ns + OWD_NS + qd;
    r.ts_opt = c->ts;
    r.tsval = ts_clock(t + c->gap_ns);
    r.tsecr = sd.ts_recent;
    emit(&r);
}

/* ---------------------------------------------------------------- pcap writer */

static int
cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;

    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* --capture-dup: the copies not yet written, each DUP_NS after its original,
 * written in time order among the records that follow it */
struct dup {
    int64_t ts;
    uint32_t caplen, len;
    uint8_t b[SNAPLEN];
};

static struct dup *dups;
static size_t dup_head, dup_n, dup_cap;

static void
put_record(FILE *out, int64_t ts, const uint8_t *pkt, uint32_t caplen, uint32_t len)
{
    uint8_t ph[16];

    putle32(ph, (uint32_t)(ts / 1000000000LL));
    putle32(ph + 4, (uint32_t)(ts % 1000000000LL));
    putle32(ph + 8, caplen);
    putle32(ph + 12, len);
    fwrite(ph, 1, 16, out);
    fwrite(pkt, 1, caplen, out);
}

/* write the copies due by `until` */
static void
flush_dups(FILE *out, int64_t until)
{
    while (dup_n > 0 && dups[dup_head].ts <= until) {
        put_record(out, dups[dup_head].ts, dups[dup_head].b, dups[dup_head].caplen, dups[dup_head].len);
        dup_head++;
        dup_n--;
    }
    if (dup_n == 0)
        dup_head = 0;
}

static void
queue_dup(int64_t ts, const uint8_t *pkt, uint32_t caplen, uint32_t len)
{
    if (dup_head + dup_n == dup_cap) {
        if (dup_head > 0) {
            memmove(dups, dups + dup_head, dup_n * sizeof(*dups));
            dup_head = 0;
        } else {
            dup_cap = dup_cap ? dup_cap * 2 : 16;
            dups = realloc(dups, dup_cap * sizeof(*dups));
            if (!dups) {
                perror("tcpgen");
                exit(1);
            }
        }
    }
    dups[dup_head + dup_n].ts = ts;
    dups[dup_head + dup_n].caplen = caplen;
    dups[dup_head + dup_n].len = len;
    memcpy(dups[dup_head + dup_n].b, pkt, caplen);
    dup_n++;
}

static void
write_pcap(FILE *out, const struct cfg *c)
{
    uint8_t gh[24], pkt[14 + 20 + 60 + MSS];
    uint16_t ipid_c = 1, ipid_s = 1;
    size_t i;
    int k = 0;
    uint64_t captured = 0;

    putle32(gh, 0xa1b23c4d); /* nanosecond pcap */
    gh[4] = 2;
    gh[5] = 0;
    gh[6] = 4;
    gh[7] = 0;
    memset(gh + 8, 0, 8);
    putle32(gh + 16, SNAPLEN);
    putle32(gh + 20, 1); /* Ethernet */
    fwrite(gh, 1, 24, out);

    qsort(recs, nrecs, sizeof(*recs), cmp_rec);
    for (i = 0; i < nrecs; i++) {
        const struct rec *r = &recs[i];
        uint8_t *e = pkt, *ip = pkt + 14, *th = ip + 20, *o;
        uint32_t optlen = 0, iplen, caplen;

        if (k++ < c->skip)
            continue;
        memset(pkt, 0, sizeof(pkt));
        /* Ethernet: locally administered addresses */
        memcpy(e, r->from_client ? "\x02\x00\x00\x00\x00\x02" : "\x02\x00\x00\x00\x00\x01", 6);
        memcpy(e + 6, r->from_client ? "\x02\x00\x00\x00\x00\x01" : "\x02\x00\x00\x00\x00\x02", 6);
        put16(e + 12, 0x0800);
        o = th + 20;
        if (r->mss_opt) {
            o[0] = 2;
            o[1] = 4;
            put16(o + 2, MSS);
            optlen += 4;
        }
        if (r->accecn_opt && prerfc_opt) {
            uint8_t *a = th + 20 + optlen;

            /* kind 254, length 13, ExID 0xACC0, EE0B, ECEB, EE1B, then
             * NOP, NOP, NOP to a whole word, as on the heistp captures */
            a[0] = 254;
            a[1] = 13;
            a[2] = 0xac;
            a[3] = 0xc0;
            a[4] = (uint8_t)(r->e0b >> 16);
            a[5] = (uint8_t)(r->e0b >> 8);
            a[6] = (uint8_t)r->e0b;
            a[7] = (uint8_t)(r->ceb >> 16);
            a[8] = (uint8_t)(r->ceb >> 8);
            a[9] = (uint8_t)r->ceb;
            a[10] = (uint8_t)(r->e1b >> 16);
            a[11] = (uint8_t)(r->e1b >> 8);
            a[12] = (uint8_t)r->e1b;
            a[13] = a[14] = a[15] = 1;
            optlen += 16;
        } else if (r->accecn_opt) {
            uint8_t *a = th + 20 + optlen;

            a[0] = 1; /* NOP, as Linux pads */
            a[1] = 174;
            a[2] = 11;
            a[3] = (uint8_t)(r->e1b >> 16);
            a[4] = (uint8_t)(r->e1b >> 8);
            a[5] = (uint8_t)r->e1b;
            a[6] = (uint8_t)(r->ceb >> 16);
            a[7] = (uint8_t)(r->ceb >> 8);
            a[8] = (uint8_t)r->ceb;
            a[9] = (uint8_t)(r->e0b >> 16);
            a[10] = (uint8_t)(r->e0b >> 8);
            a[11] = (uint8_t)r->e0b;
            optlen += 12;
        }
        if (r->ts_opt) {
            uint8_t *a = th + 20 + optlen;

            a[0] = 1;
            a[1] = 1;
            a[2] = 8;
            a[3] = 10;
            put32(a + 4, r->tsval);
            put32(a + 8, r->tsecr);
            optlen += 12;
        }
        iplen = 20 + 20 + optlen + r->payload;
        ip[0] = 0x45;
        ip[1] = r->ecn;
        put16(ip + 2, iplen);
        put16(ip + 4, r->from_client ? ipid_c++ : ipid_s++);
        put16(ip + 6, 0x4000);
        ip[8] = 64;
        ip[9] = 6;
        memcpy(ip + 12, r->from_client ? "\xc0\x00\x02\x01" : "\xc6\x33\x64\x02", 4);
        memcpy(ip + 16, r->from_client ? "\xc6\x33\x64\x02" : "\xc0\x00\x02\x01", 4);
        put_ipv4_checksum(ip);
        put16(th, r->from_client ? r->cport : 5201);
        put16(th + 2, r->from_client ? 5201 : r->cport);
        put32(th + 4, r->seq);
        put32(th + 8, r->ack);
        th[12] = (uint8_t)((((20 + optlen) / 4) << 4) | ((r->flags & F_AE) ? 1 : 0));
        th[13] = (uint8_t)(r->flags & 0xff);
        put16(th + 14, 65535);
        caplen = 14 + iplen;
        if (caplen > SNAPLEN)
            caplen = SNAPLEN;
        flush_dups(out, r->ts);
        if (c->cap_loss > 0) {
            /* the capture point misses it (its IP ID was used all the same);
             * one draw a packet whichever the direction */
            bool miss = rnd_from(&cap_state) < c->cap_loss;

            if (miss && (c->cap_dir == CAP_BOTH || (c->cap_dir == CAP_DATA) == (r->from_client != 0)))
                continue;
        }
        put_record(out, r->ts, pkt, caplen, 14 + iplen);
        captured++;
        if (c->cap_dup_every > 0 && captured % (uint64_t)c->cap_dup_every == 0)
            queue_dup(r->ts + DUP_NS, pkt, caplen, 14 + iplen);
    }
    flush_dups(out, INT64_MAX);
    free(dups);
}

int
main(int argc, char **argv)
{
    struct cfg c = {.segments = 400, .qdelay_ns = -1, .mark_p = -1, .cport = 40000,
                    .gap_ns = GAP_NS};
    const char *pair = NULL;
    const char *out_path;
    FILE *out;
    size_t si;
    int i;
    bool segments_set = false, gap_set = false;
    int64_t stagger_ns = -1; /* -1: no --stagger */

    if (argc < 4) {
        fprintf(stderr, "usage: tcpgen SCHEME sender|receiver OUT [--seed N] [--segments N] [--skip N] "
                        "[--fault F]\n"
                        "       [--pair dualq|single|fq|fifo [--stagger SEC]] [--jitter MS] [--slot MS]\n"
                        "       [--capture-loss P [--capture-loss-dir data|acks|both]] [--capture-dup]\n"
                        "       [--capture-dup-some N] [--sender-ce]\n");
        return 2;
    }
    for (si = 0; si < sizeof(scheme_names) / sizeof(scheme_names[0]); si++)
        if (!strcmp(argv[1], scheme_names[si]))
            break;
    if (si == sizeof(scheme_names) / sizeof(scheme_names[0])) {
        fprintf(stderr, "tcpgen: unknown scheme '%s'\n", argv[1]);
        return 2;
    }
    c.s = (enum scheme)si;
    if (strcmp(argv[2], "sender") && strcmp(argv[2], "receiver")) {
        fprintf(stderr, "tcpgen: vantage must be sender or receiver\n");
        return 2;
    }
    c.at_sender = !strcmp(argv[2], "sender");
    out_path = argv[3];
    rng_state = 0x5eed5eed12345678ULL;
    for (i = 4; i < argc; i += 2) {
        /* the flags without a value */
        if (!strcmp(argv[i], "--prerfc") || !strcmp(argv[i], "--ect1-syn") ||
            !strcmp(argv[i], "--ack-ect1") || !strcmp(argv[i], "--capture-dup") ||
            !strcmp(argv[i], "--sender-ce")) {
            if (!strcmp(argv[i], "--prerfc"))
                c.prerfc = true;
            else if (!strcmp(argv[i], "--ect1-syn"))
                c.ect1_syn = true;
            else if (!strcmp(argv[i], "--capture-dup"))
                c.cap_dup_every = 1;
            else if (!strcmp(argv[i], "--sender-ce"))
                c.sender_ce = true;
            else
                c.ack_ect1 = true;
            i--;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "tcpgen: %s needs a value\n", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--seed"))
            rng_state = strtoull(argv[i + 1], NULL, 0) | 1;
        else if (!strcmp(argv[i], "--segments")) {
            c.segments = atoi(argv[i + 1]);
            segments_set = true;
        }
        else if (!strcmp(argv[i], "--skip"))
            c.skip = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--qdelay"))
            c.qdelay_ns = (int64_t)(atof(argv[i + 1]) * 1e6);
        else if (!strcmp(argv[i], "--mark-p"))
            c.mark_p = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--ce-burst"))
            ce_burst = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--gap")) {
            c.gap_ns = (int64_t)(atof(argv[i + 1]) * 1e6);
            gap_set = true;
        }
        else if (!strcmp(argv[i], "--jitter") || !strcmp(argv[i], "--slot")) {
            double ms = atof(argv[i + 1]);

            if (!(ms >= 0 && ms <= 10000) || (argv[i][2] == 's' && ms <= 0)) {
                fprintf(stderr, "tcpgen: %s takes milliseconds (--slot above 0)\n", argv[i]);
                return 2;
            }
            if (argv[i][2] == 'j')
                c.jitter_ns = (int64_t)(ms * 1e6);
            else
                c.slot_ns = (int64_t)(ms * 1e6);
        }
        else if (!strcmp(argv[i], "--stagger")) {
            double sec = atof(argv[i + 1]);

            if (!(sec >= 0 && sec <= 3600)) {
                fprintf(stderr, "tcpgen: --stagger takes seconds\n");
                return 2;
            }
            stagger_ns = (int64_t)(sec * 1e9);
        }
        else if (!strcmp(argv[i], "--capture-loss")) {
            c.cap_loss = atof(argv[i + 1]);
            if (!(c.cap_loss > 0 && c.cap_loss < 1)) {
                fprintf(stderr, "tcpgen: --capture-loss takes a probability above 0 and below 1\n");
                return 2;
            }
        }
        else if (!strcmp(argv[i], "--capture-loss-dir")) {
            if (!strcmp(argv[i + 1], "both"))
                c.cap_dir = CAP_BOTH;
            else if (!strcmp(argv[i + 1], "data"))
                c.cap_dir = CAP_DATA;
            else if (!strcmp(argv[i + 1], "acks"))
                c.cap_dir = CAP_ACKS;
            else {
                fprintf(stderr, "tcpgen: --capture-loss-dir takes data, acks or both\n");
                return 2;
            }
        }
        else if (!strcmp(argv[i], "--capture-dup-some")) {
            c.cap_dup_every = atoi(argv[i + 1]);
            if (c.cap_dup_every < 1) {
                fprintf(stderr, "tcpgen: --capture-dup-some takes a count of 1 or more\n");
                return 2;
            }
        }
        else if (!strcmp(argv[i], "--ts"))
            c.ts = atoi(argv[i + 1]) != 0;
        else if (!strcmp(argv[i], "--pair"))
            pair = argv[i + 1];
        else if (!strcmp(argv[i], "--ect0-prefix")) {
            c.ect0_prefix = (uint32_t)atoi(argv[i + 1]);
            if (c.ect0_prefix < 1 || c.ect0_prefix > MSS) {
                fprintf(stderr, "tcpgen: --ect0-prefix takes 1 to %d bytes\n", MSS);
                return 2;
            }
        }
        else if (!strcmp(argv[i], "--fault")) {
            size_t fi;

            for (fi = 0; fi < sizeof(fault_names) / sizeof(fault_names[0]); fi++)
                if (!strcmp(argv[i + 1], fault_names[fi]))
                    break;
            if (fi == sizeof(fault_names) / sizeof(fault_names[0])) {
                fprintf(stderr, "tcpgen: unknown fault '%s'\n", argv[i + 1]);
                return 2;
            }
            c.fault = (enum fault)fi;
        }
        else {
            fprintf(stderr, "tcpgen: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    /* the jitter's and the capture's own generators, from the seed */
    jit_state = seed_stream(rng_state, 1);
    cap_state = seed_stream(rng_state, 2);
    if (stagger_ns >= 0 && !pair) {
        fprintf(stderr, "tcpgen: --stagger needs --pair\n");
        return 2;
    }
    if (c.sender_ce && (c.s != S_NOTECN || pair)) {
        fprintf(stderr, "tcpgen: --sender-ce goes with scheme notecn (and no --pair)\n");
        return 2;
    }
    if (pair) {
        /* one bottleneck, two flows: a Prague-like L4S flow and a classic one */
        struct cfg l4s = c, classic = c;
        bool dualq = !strcmp(pair, "dualq"), single = !strcmp(pair, "single");
        bool fq = !strcmp(pair, "fq"), fifo = !strcmp(pair, "fifo");

        if (!dualq && !single && !fq && !fifo) {
            fprintf(stderr, "tcpgen: --pair takes dualq, single, fq or fifo\n");
            return 2;
        }
        l4s.s = S_PRAGUE;
        classic.s = S_CLASSIC;
        classic.cport = 40001;
        if ((dualq || single) && stagger_ns < 0) {
            classic.t_offset = 3000000;
            l4s.qdelay_ns = dualq ? 800000 : 8000000;
            classic.qdelay_ns = dualq ? 12000000 : 8000000;
            l4s.mark_p = dualq ? 0.12 : 0.06;
            classic.mark_p = dualq ? 0.01 : 0.06;
            if (single)
                l4s.qm = classic.qm = QM_ONE;
            generate(&l4s, NULL);
            generate(&classic, NULL);
        } else {
            /* the link carries two segments a --gap (default 1 ms here): a
             * flow alone sends at that rate; two share it, the L4S flow
             * 3.5 times the classic one's in a single queue, alike else */
            int64_t g = gap_set ? c.gap_ns : 1000000;
            int64_t stag = stagger_ns >= 0 ? stagger_ns : fifo ? 3000000000LL : 0;
            double share = single ? 3.5 : 1.0;
            struct span sp;

            l4s.gap_ns = (int64_t)((double)g * (1 + share) / (2 * share));
            classic.gap_ns = (int64_t)((double)g * (1 + share) / 2);
            if (stag > 0)
                classic.gap_alone_ns = g / 2;
            l4s.t_offset = stag;
            classic.t_offset = stag > 0 ? 0 : 3000000;
            /* long enough to matter: 5 s of the L4S flow by default */
            if (!segments_set)
                l4s.segments = (int)(5000000000LL / l4s.gap_ns);
            if (dualq) {
                l4s.qdelay_ns = 800000;
                classic.qdelay_ns = 12000000;
                l4s.mark_p = 0.12;
                classic.mark_p = 0.01;
            } else {
                l4s.qm = classic.qm = fq ? QM_FQ : fifo ? QM_FIFO : QM_SHARED;
                l4s.qflow = 0;
                classic.qflow = 1;
                l4s.qjoin_ns = classic.qjoin_ns = BASE_NS + stag;
            }
            generate(&l4s, &sp);
            if (stag > 0) {
                /* alone until the L4S flow's first data, then both to the end */
                classic.join_ns = sp.first;
                classic.end_ns = sp.last;
            } else {
                classic.segments = l4s.segments;
            }
            generate(&classic, NULL);
        }
    } else {
        generate(&c, NULL);
    }
    out = fopen(out_path, "wb");
    if (!out) {
        perror(out_path);
        return 3;
    }
    write_pcap(out, &c);
    if (fclose(out) != 0) {
        perror(out_path);
        return 3;
    }
    free(recs);
    return 0;
}
